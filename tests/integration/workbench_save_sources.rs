//! A scenario names its data: the workbench opened on a log with no plan, `Ctrl-S`, a path
//! asked (a missing folder refused, Tab completing, `plan.toml` by default), quit; the plan
//! written names the log relative to itself, the quit names the file, and the plan alone gives
//! the audit of the log. A plan naming a log that is not there opens with a banner naming it.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::pty::Workbench;
use serde_json::Value;

const PATIENCE: Duration = Duration::from_secs(60);

/// `gpuplan ARGS` run from `cwd`: its standard output as JSON, and its standard error.
fn json_in(home: &Path, cwd: &Path, args: &[&str]) -> (Value, String) {
    let output = common::gpuplan_command(home, args)
        .current_dir(cwd)
        .output()
        .expect("gpuplan runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
    (serde_json::from_slice(&output.stdout).expect("JSON"), stderr)
}

#[test]
fn a_plan_saved_from_a_log_names_it_and_reopens_on_it() {
    let home = tempfile::tempdir().expect("tempdir");
    let work = home.path().join("work");
    std::fs::create_dir_all(work.join("data")).expect("folders");
    let log = work.join("data/jobs.csv");
    std::fs::copy(common::SAMPLE_LOG, &log).expect("log");

    let mut screen = Workbench::start_in(&["data/jobs.csv".as_ref()], home.path(), Some(&work), 200, 60);
    screen.wait_for("the audited log", PATIENCE, |s| s.contains("stranded spend"));

    // Ctrl-S with no plan file asks where, `plan.toml` offered.
    screen.press(b"\x13");
    screen.wait_for("the save dialog", PATIENCE, |s| {
        s.contains("Save the plan to") && s.contains("› plan.toml")
    });
    // A folder that is not there is refused, and said.
    screen.press(b"\x15nowhere/plan.toml\r");
    screen.wait_for("the refusal", PATIENCE, |s| {
        s.contains("does not exist") && s.contains("nowhere")
    });
    // Tab completes the folder on disk.
    screen.press(b"\x15da\t");
    screen.wait_for("the completion", PATIENCE, |s| s.contains("› data/"));
    // Esc, then Ctrl-S again and Enter: the default.
    screen.press(b"\x1b");
    screen.wait_for("the dialog to close", PATIENCE, |s| !s.contains("Save the plan to"));
    screen.press(b"\x13");
    screen.wait_for("the save dialog again", PATIENCE, |s| s.contains("› plan.toml"));
    screen.press(b"\r");
    let written = work.join("plan.toml");
    let shown = written.display().to_string();
    screen.wait_for("the save in the status line", PATIENCE, |s| {
        s.contains(&format!("saved {shown}"))
    });
    screen.press(b"q");
    let status = screen.wait_exit(PATIENCE);
    assert!(status.success(), "{status:?}");
    let said = String::from_utf8_lossy(&screen.written_since(0)).into_owned();
    assert!(
        said.contains(&format!("gpuplan: the plan was saved to {shown}")),
        "the exit message names the file: {}",
        said.chars()
            .rev()
            .take(400)
            .collect::<String>()
            .chars()
            .rev()
            .collect::<String>()
    );

    // The plan names the log relative to itself, and keeps the built-in plan's comments.
    let text = std::fs::read_to_string(&written).expect("the plan");
    let plan: toml::Value = toml::from_str(&text).expect("TOML");
    assert_eq!(plan["logs"][0]["path"].as_str(), Some("data/jobs.csv"), "{text}");
    let first_comment = common::default_plan_text()
        .lines()
        .find(|l| l.starts_with('#'))
        .expect("a comment")
        .to_string();
    assert!(text.contains(&first_comment), "{text}");

    // The plan alone, from another folder: the audit of the log, the report on it.
    let plan_arg = written.display().to_string();
    let log_arg = log.display().to_string();
    let (from_plan, _) = json_in(
        home.path(),
        home.path(),
        &["audit", "--plan", &plan_arg, "--format", "json"],
    );
    let (from_log, _) = json_in(home.path(), &work, &["audit", &log_arg, "--format", "json"]);
    assert_eq!(from_plan, from_log, "audit --plan against audit LOG");
    let (report, _) = json_in(
        home.path(),
        home.path(),
        &["report", "--plan", &plan_arg, "--format", "json"],
    );
    assert_eq!(report["inputs"], from_log["inputs"], "the report read the same log");
    let (report_on_log, _) = json_in(home.path(), &work, &["report", "--logs", &log_arg, "--format", "json"]);
    for part in ["contracts", "replay", "waterfall", "forecast", "board"] {
        assert_eq!(report[part], report_on_log[part], "{part}");
    }
}

#[test]
fn a_plan_naming_a_missing_log_opens_with_a_banner_naming_it() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan_path = home.path().join("plan.toml");
    std::fs::write(
        &plan_path,
        format!("{}\n[[logs]]\npath = \"gone/jobs.csv\"\n", common::default_plan_text()),
    )
    .expect("plan");
    let mut screen = Workbench::start(&["--plan".as_ref(), plan_path.as_os_str()], home.path(), 200, 60);
    let shown = screen.wait_for("the banner", PATIENCE, |s| s.contains("not found"));
    assert!(shown.contains("gone/jobs.csv"), "{shown}");
    // The plan's own figures are there; no other fleet stands in for the missing log.
    screen.wait_for("the plan's training runs", PATIENCE, |s| s.contains("h100-sxm"));
    let shown = screen.text();
    assert!(!shown.contains("stranded spend"), "{shown}");
    screen.press(b"q");
    assert!(screen.wait_exit(PATIENCE).success());

    // Headless: the report goes on without it and says so; the audit has nothing left to read.
    let plan_arg = plan_path.display().to_string();
    let (report, stderr) = json_in(
        home.path(),
        home.path(),
        &["report", "--plan", &plan_arg, "--format", "json"],
    );
    assert!(
        stderr.contains("warning:") && stderr.contains("gone/jobs.csv") && stderr.contains("not found"),
        "{stderr}"
    );
    assert!(report["waterfall"].is_null(), "no audit, no waterfall");
    let audit = common::gpuplan_in(home.path(), &["audit", "--plan", &plan_arg]);
    assert_eq!(audit.code, 2, "{}", audit.stdout);
    assert!(
        audit.stderr.contains("gone/jobs.csv") && audit.stderr.contains("not found"),
        "{}",
        audit.stderr
    );
}
