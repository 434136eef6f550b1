//! First frame after start (README "Performance"): the real binary in a pseudo-terminal on
//! the shipped sample, timed from spawn until the screen shows all five panes, and until the
//! audited sample is on screen. 20 runs; median and worst. With `GPUPLAN_BENCH_LOG` naming a
//! log, also that log opened three times in one home: the first open reads its bytes and keeps
//! the read, the next two take it from the cache.
//!
//! `cargo bench --bench startup`

use std::time::{Duration, Instant};

#[path = "../tests/integration/common/pty.rs"]
mod pty;

use pty::Workbench;

const RUNS: usize = 20;

fn one_run() -> (Duration, Duration) {
    let home = std::env::temp_dir().join(format!("gpuplan-startup-{}", std::process::id()));
    let start = Instant::now();
    let mut workbench = Workbench::start(&[], &home, 200, 60);
    let patience = Duration::from_secs(30);
    workbench.wait_for("the first frame", patience, |s| {
        s.contains("5 Contracts") && s.contains("h100-sxm")
    });
    let first = start.elapsed();
    workbench.wait_for("the audited sample", patience, |s| s.contains("stranded spend"));
    let audited = start.elapsed();
    workbench.press(b"q");
    workbench.wait_exit(patience);
    (first, audited)
}

/// `log` opened three times in one fresh home, each timed until its audit is on screen.
fn reopen(log: &str) {
    let home = std::env::temp_dir().join(format!("gpuplan-reopen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let patience = Duration::from_secs(600);
    for open in [
        "first open (reads the log)",
        "second open (the cache)",
        "third open (the cache)",
    ] {
        let start = Instant::now();
        let mut workbench = Workbench::start(&[std::ffi::OsStr::new(log)], &home, 200, 60);
        workbench.wait_for("the audited log", patience, |s| s.contains("stranded spend"));
        let shown = start.elapsed();
        // The waterfall is complete when its split step has a figure: the replay has landed.
        workbench.wait_for("the complete waterfall", patience, |s| {
            s.lines()
                .any(|line| line.contains("split pools") && line.contains("/mo"))
        });
        let waterfall = start.elapsed();
        workbench.press(b"q");
        workbench.wait_exit(patience);
        println!(
            "{open}: audited picture on screen after {:.2} s, the complete waterfall after {:.2} s ({:.2}x), process ended after {:.2} s",
            shown.as_secs_f64(),
            waterfall.as_secs_f64(),
            waterfall.as_secs_f64() / shown.as_secs_f64(),
            start.elapsed().as_secs_f64()
        );
    }
    let _ = std::fs::remove_dir_all(&home);
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut firsts = Vec::new();
    let mut audited = Vec::new();
    for _ in 0..RUNS {
        let (f, a) = one_run();
        firsts.push(f);
        audited.push(a);
    }
    if let Ok(log) = std::env::var("GPUPLAN_BENCH_LOG") {
        reopen(&log);
    }
    firsts.sort();
    audited.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "first frame after start: median {:.0} ms, worst {:.0} ms; audited sample on screen: median {:.0} ms, worst {:.0} ms ({RUNS} runs)",
        ms(firsts[RUNS / 2]),
        ms(firsts[RUNS - 1]),
        ms(audited[RUNS / 2]),
        ms(audited[RUNS - 1])
    );
}
