//! Faults: what reading said reaches the workbench (issue 67, finding 1). A log with a run
//! listed twice, a row of 1e9 % utilization and a CPU-only row, opened at 80×24: the banner
//! counts what reading said and names the key that lists it, the Workloads pane shows all
//! three without a key, and the overlay lists each with the row that shows it.

use std::ffi::OsStr;
use std::time::Duration;

use crate::common::pty::Workbench;

const PATIENCE: Duration = Duration::from_secs(30);

const HEADER: &str = "job_id,cluster,name,user,queue,state,start,end,gpus,gpu_type,gpu_util_pct,label";

#[test]
fn the_workbench_shows_a_duplicate_run_a_wild_utilization_and_a_cpu_only_row() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("hostile.csv");
    let mut text = format!("{HEADER}\n");
    for day in 1..=9 {
        text.push_str(&format!(
            "j{day},us-east-h100,train-{day},ana,train,COMPLETED,2026-06-0{day}T00:00:00Z,2026-06-0{day}T20:00:00Z,8,h100-sxm,70,\n"
        ));
    }
    // The same run twice, a utilization no GPU reaches, and a row with no GPU.
    text.push_str(
        "j3,us-east-h100,train-3,ana,train,COMPLETED,2026-06-03T00:00:00Z,2026-06-03T20:00:00Z,8,h100-sxm,70,\n",
    );
    text.push_str("wild,us-east-h100,serve-1,svc,prod,COMPLETED,2026-06-04T00:00:00Z,2026-06-04T10:00:00Z,2,h100-sxm,1000000000,\n");
    text.push_str("cpu,us-east-h100,etl-1,svc,batch,COMPLETED,2026-06-05T00:00:00Z,2026-06-05T10:00:00Z,0,,,\n");
    std::fs::write(&log, text).unwrap();
    let mut screen = Workbench::start(&[OsStr::new(&log)], home.path(), 80, 24);
    // Every one said on the screen (a frame is drawn in parts: the banner can be there first).
    let shown = screen.wait_for("what reading said", PATIENCE, |s| {
        s.contains("reading said 3 things")
            && ["listed more than once", "utilization outside 0-100 %", "CPU-only"]
                .iter()
                .all(|said| s.contains(said))
    });
    // The banner names the key first, so a narrow screen keeps it.
    assert!(shown.contains("reading said 3 things (W lists them)"), "{shown}");
    for said in ["listed more than once", "utilization outside 0-100 %", "CPU-only"] {
        assert!(shown.contains(said), "{said} is not on the 80×24 screen:\n{shown}");
    }
    screen.press(b"W");
    let overlay = screen.wait_for("the overlay with its rows", PATIENCE, |s| {
        s.contains("What reading the logs said: 3") && s.contains("hostile.csv:13") && s.contains("cpu,us-east-h100")
    });
    for row in ["hostile.csv:12", "hostile.csv:13"] {
        assert!(overlay.contains(row), "{row} is not listed:\n{overlay}");
    }
    assert!(overlay.contains("wild,us-east-h100"), "{overlay}");
    assert!(overlay.contains("cpu,us-east-h100"), "{overlay}");
    screen.press(b"\x1b");
    screen.wait_for("the overlay to close", PATIENCE, |s| {
        !s.contains("What reading the logs said")
    });
    screen.press(b"q");
    screen.wait_exit(PATIENCE);
}
