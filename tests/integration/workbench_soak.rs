//! A soak of the release binary in a pseudo-terminal: 10,000 key presses across sliders, panes,
//! the palette, drill-down and undo, while the plan file is rewritten on disk every 100
//! presses. No panic, resident memory after the soak within 10 % of where it stood after the
//! first 1,000 presses, and the terminal restored on quit.

use crate::common;

use std::time::Duration;

use common::pty::Workbench;
use gpuplan::config::plan_file::DEFAULT_PLAN_TOML;

const PRESSES: usize = 10_000;
const PATIENCE: Duration = Duration::from_secs(60);

/// Resident memory of a process, in KiB, from /proc.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS")
}

#[test]
fn ten_thousand_presses_with_the_plan_rewritten_on_disk() {
    let home = tempfile::tempdir().expect("home");
    let plan_path = home.path().join("plan.toml");
    std::fs::write(&plan_path, DEFAULT_PLAN_TOML).expect("plan");
    let mut screen = Workbench::start(&["--plan".as_ref(), plan_path.as_os_str()], home.path(), 160, 48);
    screen.wait_for("the audited sample", PATIENCE, |s| s.contains("stranded spend"));
    let pid = screen.child.process_id().expect("pid");
    // One cycle touches every kind of input: a pane, slider steps both ways, the palette
    // opened and closed, drill in and out, undo, the next pane.
    let cycle: [&[u8]; 10] = [
        b"2", b"\x1b[C", b"\x1b[C", b"\x1b[D", b":", b"\x1b", b"1", b"\r", b"\x1b", b"u",
    ];
    let mut warm_rss = 0;
    for press in 0..PRESSES {
        screen.press(cycle[press % cycle.len()]);
        if press % 100 == 99 {
            // Someone edits the plan in their editor: Trainium2's MFU goes back and forth.
            let mfu = if press % 200 == 99 { "0.30" } else { "0.45" };
            let edited = DEFAULT_PLAN_TOML.replacen(
                "id = \"trainium2\"\nmfu = 0.45",
                &format!("id = \"trainium2\"\nmfu = {mfu}"),
                1,
            );
            std::fs::write(&plan_path, edited).expect("edit on disk");
            std::thread::sleep(Duration::from_millis(20));
        }
        if press % 10 == 9 {
            std::thread::sleep(Duration::from_millis(1));
        }
        if press == 999 {
            std::thread::sleep(Duration::from_millis(500));
            warm_rss = rss_kib(pid);
        }
        assert!(
            screen.child.try_wait().expect("wait").is_none(),
            "gpuplan exited at press {press}"
        );
    }
    std::thread::sleep(Duration::from_millis(500));
    let end_rss = rss_kib(pid);
    assert!(
        (end_rss as f64) < warm_rss as f64 * 1.10,
        "resident memory grew from {warm_rss} KiB to {end_rss} KiB"
    );
    eprintln!("soak: {PRESSES} presses, RSS {warm_rss} KiB after 1,000, {end_rss} KiB at the end");
    // Quit: a conflict dialog may be open (edits on screen, the file changed on disk): take
    // theirs, then quit, discarding what is left.
    screen.press(b"\x1b\x1bT");
    std::thread::sleep(Duration::from_millis(200));
    screen.press(b"q");
    std::thread::sleep(Duration::from_millis(200));
    screen.press(b"y");
    let status = screen.wait_exit(PATIENCE);
    assert!(
        status.success(),
        "exit status {status:?}; the screen:\n{}",
        screen.text()
    );
    std::thread::sleep(Duration::from_millis(100));
    assert!(!screen.on_alternate_screen(), "the terminal was not restored");
}
