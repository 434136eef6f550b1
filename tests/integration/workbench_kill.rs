//! `kill -9` of the real workbench while it saves: the plan on disk is always one that loads,
//! the old one or the new one, never half of each (saves go to a temporary file in the same
//! folder, synced, then renamed over the plan).

use crate::common;

use std::time::Duration;

use common::pty::Workbench;
use gpuplan::config::catalog::builtin;
use gpuplan::config::plan_file::{DEFAULT_PLAN_TOML, read_plan_text};

const PATIENCE: Duration = Duration::from_secs(30);
/// Kills 0.4 ms apart, from before the save starts to after it has finished on an idle machine.
const ROUNDS: u64 = 12;
/// On a loaded machine the save can finish later than the last of those: rounds go on, each
/// waiting twice as long (up to 0.4 ms × 2^13, 3.3 s), until one has saved.
const LATE_ROUNDS: u64 = 10;

/// How long round `round` waits between the save key and the kill.
fn kill_delay(round: u64) -> Duration {
    if round < ROUNDS {
        Duration::from_micros(round * 400)
    } else {
        Duration::from_micros(400 << (round - ROUNDS + 4))
    }
}

#[test]
fn a_workbench_killed_mid_save_leaves_a_plan_that_loads() {
    let catalog = builtin().catalog;
    let home = tempfile::tempdir().expect("home");
    let plan_path = home.path().join("plan.toml");
    std::fs::write(&plan_path, DEFAULT_PLAN_TOML).expect("plan");
    let mut saved_rounds = 0;
    for round in 0..ROUNDS + LATE_ROUNDS {
        if round >= ROUNDS && saved_rounds > 0 {
            break;
        }
        let before = std::fs::read_to_string(&plan_path).expect("plan");
        let mut screen = Workbench::start(&["--plan".as_ref(), plan_path.as_os_str()], home.path(), 200, 60);
        screen.wait_for("the sliders", PATIENCE, |s| s.contains("h100-sxm") && s.contains('●'));
        // Move the H100 slider, save, and kill the process a little later each round: from
        // before the save starts to after it has finished.
        screen.press(b"2\x1b[C\x1b[C");
        screen.wait_for("the edit", PATIENCE, |s| s.contains(" * "));
        screen.press(b"\x13");
        std::thread::sleep(kill_delay(round));
        let pid = screen.child.process_id().expect("pid") as i32;
        // SAFETY: kill(2) on the pid of our own child, with SIGKILL.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
        screen.wait_exit(PATIENCE);
        let after = std::fs::read_to_string(&plan_path).expect("the plan is still there");
        let plan = read_plan_text("plan.toml", &after, &catalog)
            .unwrap_or_else(|e| panic!("round {round}: the plan no longer loads: {e:?}\n{after}"));
        if after != before {
            saved_rounds += 1;
            assert!(
                plan.accelerators[0].mfu > 0.45,
                "round {round}: a save that changed nothing else"
            );
        }
    }
    // Some rounds were killed before the save and some after: both sides were exercised.
    assert!(saved_rounds > 0, "no round saved: the kills all came too early");
}
