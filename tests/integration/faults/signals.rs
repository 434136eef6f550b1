//! Faults: signals. SIGTERM, SIGHUP, SIGINT or SIGQUIT sent to the real workbench holding an
//! unsaved edit: it exits with 128 + the signal's number, the edit is in the recovery file beside
//! the plan (the plan itself untouched), and the terminal is given back (normal screen, cursor
//! shown, mouse tracking off). The next open offers the edit back; Recover puts it on screen.

use std::ffi::OsStr;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use crate::common::pty::Workbench;

use gpuplan::config::catalog::builtin;
use gpuplan::config::plan_file::{DEFAULT_PLAN_TOML, read_plan_text};
use gpuplan::model::evaluate::{MfuSource, training_run};
use gpuplan::shared::format::usd_compact;

const PATIENCE: Duration = Duration::from_secs(30);

/// The workbench on `plan` at 200×60.
fn workbench(plan: &Path, home: &Path) -> Workbench {
    Workbench::start(&[OsStr::new("--plan"), plan.as_os_str()], home, 200, 60)
}

/// The cost shown at the end of an accelerator's slider line.
fn slider_cost(screen: &str, accelerator: &str) -> Option<String> {
    screen
        .lines()
        .flat_map(|l| l.split(['┃', '│']))
        .find(|part| part.trim_start().starts_with(accelerator) && part.contains('●'))
        .and_then(|part| part.split_whitespace().last().map(str::to_string))
}

fn h100_cost_at(mfu: f64) -> String {
    let catalog = builtin().catalog;
    let plan = read_plan_text("plan.toml", DEFAULT_PLAN_TOML, &catalog).expect("plan");
    let run = training_run(&plan, &catalog, &plan.accelerators[0], mfu, MfuSource::Slider).expect("run");
    usd_compact(run.cost_usd)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Starts the workbench on `plan`, moves the H100 slider two fine steps (45 % -> 46 %) and sends
/// `signal`: what it does then.
fn edit_and_signal(plan: &Path, home: &Path, signal: i32) {
    std::fs::write(plan, DEFAULT_PLAN_TOML).expect("plan");
    let mut screen = workbench(plan, home);
    screen.wait_for("the sliders", PATIENCE, |s| s.contains("h100-sxm") && s.contains('●'));
    screen.press(b"2\x1b[C\x1b[C");
    let at_46 = h100_cost_at(0.46);
    screen.wait_for("the edit", PATIENCE, |s| {
        s.contains(" * ") && slider_cost(s, "h100-sxm").as_deref() == Some(at_46.as_str())
    });
    let before_signal = screen.written_len();
    screen.signal(signal);
    let code = screen.wait_exit(PATIENCE).exit_code();
    assert_eq!(code, 128 + signal as u32, "signal {signal}: the exit status");

    let recovery = plan.with_file_name(".plan.toml.gpuplan-recover");
    let kept = std::fs::read_to_string(&recovery)
        .unwrap_or_else(|e| panic!("signal {signal}: no recovery file {}: {e}", recovery.display()));
    let catalog = builtin().catalog;
    let kept_plan = read_plan_text("recover", &kept, &catalog).expect("the recovery file reads as a plan");
    assert!(
        (kept_plan.accelerators[0].mfu - 0.46).abs() < 1e-9,
        "signal {signal}: the kept edit: {kept}"
    );
    assert_eq!(
        std::fs::read_to_string(plan).expect("plan"),
        DEFAULT_PLAN_TOML,
        "the plan itself is not saved over"
    );

    // The terminal given back after the signal: normal screen, cursor shown, mouse off.
    // Wait for the reader to drain what the process wrote before it ended.
    let start = Instant::now();
    let restored = |after: &[u8]| {
        contains(after, b"\x1b[?1049l") && contains(after, b"\x1b[?25h") && contains(after, b"\x1b[?1000l")
    };
    while !restored(&screen.written_since(before_signal)) && start.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(10));
    }
    let after = screen.written_since(before_signal);
    assert!(
        restored(&after),
        "signal {signal}: the terminal is not restored after the signal: {:?}",
        String::from_utf8_lossy(&after)
    );
    for mouse_off in [&b"\x1b[?1002l"[..], b"\x1b[?1003l", b"\x1b[?1006l"] {
        assert!(contains(&after, mouse_off), "signal {signal}: mouse tracking left on");
    }
    let said = String::from_utf8_lossy(&after);
    assert!(
        said.contains(".plan.toml.gpuplan-recover"),
        "says where the edits went: {said}"
    );
}

#[test]
fn sigterm_sighup_sigint_and_sigquit_keep_the_edit_and_restore_the_terminal() {
    for signal in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGQUIT] {
        let home = tempfile::tempdir().expect("home");
        edit_and_signal(&home.path().join("plan.toml"), home.path(), signal);
    }
}

#[test]
fn the_next_open_offers_the_kept_edit_and_recover_puts_it_on_screen() {
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    edit_and_signal(&plan, home.path(), libc::SIGTERM);

    let mut screen = workbench(&plan, home.path());
    // The dialog is waited for whole: a frame read while the terminal is still drawing it
    // holds its title without its last lines.
    let offer = screen.wait_for("the recovery offer", PATIENCE, |s| {
        s.contains("Unsaved edits were kept") && ["recover them", "discard them", "diff"].iter().all(|c| s.contains(c))
    });
    for choice in ["recover them", "discard them", "diff"] {
        assert!(offer.contains(choice), "{choice} is offered:\n{offer}");
    }
    screen.press(b"R");
    let at_46 = h100_cost_at(0.46);
    screen.wait_for("the recovered edit", PATIENCE, |s| {
        !s.contains("Unsaved edits were kept")
            && s.contains(" * ")
            && slider_cost(s, "h100-sxm").as_deref() == Some(at_46.as_str())
    });
    assert_eq!(
        std::fs::read_to_string(&plan).expect("plan"),
        DEFAULT_PLAN_TOML,
        "recovered edits are not saved until the user saves"
    );
    // Save, then a clean quit: the recovery file goes.
    screen.press(b"\x13");
    screen.wait_for("the save", PATIENCE, |s| !s.contains(" * "));
    screen.press(b"q");
    assert_eq!(screen.wait_exit(PATIENCE).exit_code(), 0);
    let saved = std::fs::read_to_string(&plan).expect("plan");
    let catalog = builtin().catalog;
    let saved_plan = read_plan_text("plan.toml", &saved, &catalog).expect("saved plan reads");
    assert!((saved_plan.accelerators[0].mfu - 0.46).abs() < 1e-9);
    assert!(
        !plan.with_file_name(".plan.toml.gpuplan-recover").exists(),
        "a clean quit after recovering removes the recovery file"
    );
}
