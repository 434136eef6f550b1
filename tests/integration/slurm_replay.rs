//! `--slurm` without a Slurm: a script stands in for sacct and prints what a real Slurm 22.05
//! printed for gpuplan's own call (`tests/fixtures/slurm/live-22.05.txt`, recorded by
//! `slurm_live`). Every piece of the window prints every job, as pieces do for jobs across their
//! boundaries: each job must still count once. The workbench reads the same source.

use crate::common;

use std::time::Duration;

use common::pty::Workbench;
use serde_json::Value;

const REPLAY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/slurm/replay-sacct.sh");
const LIVE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/slurm/live-22.05.txt");

#[test]
fn six_pieces_printing_the_same_jobs_count_each_job_once() {
    let home = tempfile::tempdir().expect("tempdir");
    let args_file = home.path().join("sacct-args.txt");
    let args_shown = args_file.display().to_string();
    let run = common::gpuplan_with(
        home.path(),
        &[
            "audit",
            "--slurm",
            "--slurm-sacct",
            REPLAY,
            "--slurm-clusters",
            "gpt",
            "--slurm-piece-days",
            "1",
            "--since",
            "2026-11-20",
            "--until",
            "2026-11-26",
            "--format",
            "json",
        ],
        &[("SACCT_ARGS_TO", args_shown.as_str())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("in 6 calls (gpt)"), "{}", run.stderr);
    let audit: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(audit["jobs_total"], 8);
    assert_eq!(audit["runs_total"], 9);
    assert_eq!(audit["pending"]["training"]["jobs"], 1);
    // The calls: consecutive days, every user, every record, the named cluster.
    let calls = std::fs::read_to_string(&args_file).expect("the stand-in heard its calls");
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(calls.len(), 6);
    assert!(calls[0].starts_with("-a -D -P --format=JobID,"), "{}", calls[0]);
    assert!(
        calls[0].ends_with("-S 2026-11-20T00:00:00 -E 2026-11-21T00:00:00 -M gpt"),
        "{}",
        calls[0]
    );
    assert!(
        calls[5].ends_with("-S 2026-11-25T00:00:00 -E 2026-11-26T00:00:00 -M gpt"),
        "{}",
        calls[5]
    );
}

#[test]
fn bad_slurm_settings_are_named_before_anything_runs() {
    let stray = common::gpuplan(&["audit", "--slurm-clusters", "gpt"]);
    assert_eq!(stray.code, 2);
    assert!(
        stray.stderr.contains("--slurm-clusters: sets how Slurm is read"),
        "{}",
        stray.stderr
    );
    let both = common::gpuplan(&["audit", "--slurm", "sample-data/jobs-90d.csv"]);
    assert_eq!(both.code, 2);
    assert!(both.stderr.contains("give one or the other"), "{}", both.stderr);
    let all_time = common::gpuplan(&["audit", "--slurm", "--all-time"]);
    assert_eq!(all_time.code, 2);
    assert!(all_time.stderr.contains("read over a window"), "{}", all_time.stderr);
    let zero = common::gpuplan(&["audit", "--slurm", "--slurm-piece-days", "0"]);
    assert_eq!(zero.code, 2);
    assert!(zero.stderr.contains("piece_days"), "{}", zero.stderr);
    let missing = common::gpuplan(&["audit", "--slurm", "--slurm-sacct", "/nonexistent/sacct", "--days", "1"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("could not run sacct"), "{}", missing.stderr);
}

#[test]
fn a_plan_with_a_slurm_table_reads_its_jobs_from_sacct() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan = home.path().join("plan.toml");
    let text = format!(
        "{}\n[slurm]\nsacct = \"{REPLAY}\"\nclusters = [\"gpt\"]\npiece_days = 30\n",
        common::default_plan_text()
    );
    std::fs::write(&plan, text).expect("plan");
    let plan_shown = plan.display().to_string();
    let run = common::gpuplan_in(
        home.path(),
        &[
            "audit",
            "--plan",
            &plan_shown,
            "--since",
            "2026-11-01",
            "--until",
            "2026-11-26",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("sacct (live)"), "{}", run.stdout);
    assert!(run.stdout.contains("train-holder"), "{}", run.stdout);
}

/// The recording with every time moved so that its last one is an hour ago: the workbench reads
/// the last 90 days, whenever the test runs.
fn recording_of_the_last_hour() -> String {
    let text = std::fs::read_to_string(LIVE).expect("recording");
    let format = "%Y-%m-%dT%H:%M:%S";
    let is_time = |field: &str| chrono::NaiveDateTime::parse_from_str(field, format).is_ok();
    let last = text
        .split(['|', '\n'])
        .filter(|f| is_time(f))
        .filter_map(|f| chrono::NaiveDateTime::parse_from_str(f, format).ok())
        .max()
        .expect("times");
    let shift = chrono::Utc::now().naive_utc() - chrono::Duration::hours(1) - last;
    text.lines()
        .map(|line| {
            line.split('|')
                .map(|field| match chrono::NaiveDateTime::parse_from_str(field, format) {
                    Ok(t) => (t + shift).format(format).to_string(),
                    Err(_) => field.to_string(),
                })
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_workbench_opens_on_what_sacct_printed() {
    let home = tempfile::tempdir().expect("tempdir");
    let recording = home.path().join("recent.txt");
    std::fs::write(&recording, recording_of_the_last_hour()).expect("recording");
    let stand_in = home.path().join("sacct");
    std::fs::write(&stand_in, format!("#!/bin/sh\ncat '{}'\n", recording.display())).expect("stand-in");
    std::fs::set_permissions(&stand_in, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("executable");
    let mut screen = Workbench::start(
        &["--slurm".as_ref(), "--slurm-sacct".as_ref(), stand_in.as_os_str()],
        home.path(),
        200,
        60,
    );
    let shown = screen.wait_for("the sacct source in the title", Duration::from_secs(60), |s| {
        s.contains("sacct (all clusters") && s.contains("gpt")
    });
    assert!(!shown.contains("jobs-90d.csv"), "{shown}");
    screen.press(b"q");
    let _ = screen.wait_exit(Duration::from_secs(10));
}
