//! Issue 67, finding 2: a log the plan's `[[logs]]` names that is not there vanished from the
//! report: `inputs[]` listed only the logs read, nothing in the JSON or Markdown named the
//! missing one, and with only the missing log the log-dependent sections were null with no
//! reason. It is now an input with its state and reason, and the nulls say why.

use std::path::Path;

use serde_json::Value;

use crate::common::{SAMPLE_LOG, gpuplan_in};

fn plan_naming(home: &Path, logs: &[&str]) -> String {
    let plan = home.join("plan.toml");
    let run = gpuplan_in(home, &["plan", "new", "-o", plan.to_str().expect("path")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut text = std::fs::read_to_string(&plan).expect("plan");
    for log in logs {
        text.push_str(&format!("\n[[logs]]\npath = \"{log}\"\n"));
    }
    std::fs::write(&plan, text).expect("plan");
    plan.to_str().expect("path").to_string()
}

fn report(home: &Path, plan: &str, format: &str) -> String {
    let run = gpuplan_in(home, &["report", "--plan", plan, "--format", format]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("does-not-exist.csv not found"), "{}", run.stderr);
    run.stdout
}

#[test]
fn a_missing_log_is_an_input_said_missing_and_the_nulls_say_why() {
    let home = tempfile::tempdir().expect("home");
    std::fs::copy(SAMPLE_LOG, home.path().join("base.csv")).expect("base");
    let plan = plan_naming(home.path(), &["base.csv", "does-not-exist.csv"]);
    let json: Value = serde_json::from_str(&report(home.path(), &plan, "json")).expect("JSON");
    let inputs = json["inputs"].as_array().expect("inputs");
    assert_eq!(inputs.len(), 2, "{inputs:?}");
    assert_eq!(inputs[0]["state"], "read");
    let missing = &inputs[1];
    assert_eq!(missing["state"], "missing", "{missing}");
    assert!(missing["path"].as_str().expect("path").ends_with("does-not-exist.csv"));
    assert!(
        missing["reason"]
            .as_str()
            .expect("reason")
            .contains("not found (named by"),
        "{missing}"
    );
    assert!(
        json["not_computed"].is_null(),
        "the base log was read: {}",
        json["not_computed"]
    );
    let markdown = report(home.path(), &plan, "markdown");
    assert!(markdown.contains("does-not-exist.csv**: not found"), "{markdown}");

    // Only the missing log: every log section is null, and the report says why.
    let home = tempfile::tempdir().expect("home");
    let plan = plan_naming(home.path(), &["does-not-exist.csv"]);
    let json: Value = serde_json::from_str(&report(home.path(), &plan, "json")).expect("JSON");
    assert_eq!(json["inputs"][0]["state"], "missing");
    for section in ["contracts", "replay", "waterfall", "forecast", "commitments"] {
        assert!(json[section].is_null(), "{section}");
    }
    let why = json["not_computed"].as_str().expect("a reason");
    assert!(
        why.contains("no log was read") && why.contains("does-not-exist.csv not found"),
        "{why}"
    );
}
