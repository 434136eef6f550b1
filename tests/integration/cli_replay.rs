//! `gpuplan replay` on the shipped sample and the Philly trace: today's replay reproduces the
//! audit, the split is sized by the plan or the matcher, and every job is accounted for.

use crate::common;

use common::{default_plan_text, gpuplan, gpuplan_in};
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
const PHILLY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/philly/jobs.json");

fn json(args: &[&str]) -> Value {
    let run = gpuplan(args);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

#[test]
fn todays_replay_reproduces_the_audit_of_the_sample() {
    let audit = json(&["audit", SAMPLE, "--format", "json"]);
    let replay = json(&["replay", SAMPLE, "--format", "json"]);
    let audited = number(&audit["gpu_hours_total"]);
    let today = &replay["today"];
    let ran: f64 = today["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .map(|p| number(&p["allocated_gpu_hours_in_window"]))
        .sum();
    assert!(
        (ran - audited).abs() < 1e-6 * audited,
        "replayed {ran} GPU-h against the audit's {audited}"
    );
    // Each cluster's utilization is the audit's allocation.
    for (pool, cluster) in today["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .zip(audit["clusters"].as_array().expect("clusters"))
    {
        assert_eq!(pool["name"], cluster["name"]);
        let util = number(&pool["allocated_frac"]);
        assert!(
            (util - number(&cluster["allocation_frac"])).abs() < 1e-3,
            "{}: {util}",
            pool["name"]
        );
    }
    // The log's jobs started when they started: no job waits long today.
    for class in today["classes"].as_array().expect("classes") {
        assert_eq!(class["wait"]["p95_ms"].as_i64(), Some(0), "{}", class["class"]);
        assert_eq!(class["jobs_never_started"].as_u64(), Some(0));
    }
    assert_eq!(replay["jobs"].as_u64(), audit["jobs_total"].as_u64());
    assert_eq!(replay["jobs_submit_is_start"], replay["jobs"]);
    // The split's pools come from the term mix at today's prices when the plan gives none.
    for pool in replay["split_pools"].as_array().expect("split pools") {
        assert!(
            pool["source"]
                .as_str()
                .expect("source")
                .starts_with("term mix at today's prices"),
            "{pool}"
        );
    }
    let split_jobs: u64 = replay["split"]["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .map(|c| c["jobs"].as_u64().expect("jobs"))
        .sum();
    assert_eq!(
        split_jobs,
        replay["jobs"].as_u64().expect("jobs"),
        "every job is in the split too"
    );
}

#[test]
fn the_plans_pool_sizes_are_used_and_too_small_pools_list_their_jobs() {
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    let text = default_plan_text()
        + "\n[replay]\ntraining_gpus = 64\ninference_gpus = 120\nburst_gpus = 40\ninference_start_slo_minutes = 2\n";
    std::fs::write(&plan, text).expect("plan");
    let run = gpuplan_in(
        home.path(),
        &[
            "replay",
            SAMPLE,
            "--plan",
            plan.to_str().expect("path"),
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay: Value = serde_json::from_str(&run.stdout).expect("json");
    let gpus: Vec<u64> = replay["split"]["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .map(|p| p["gpus"].as_u64().expect("gpus"))
        .collect();
    assert_eq!(gpus, [64, 120, 40]);
    assert_eq!(replay["split_pools"][0]["source"], "plan ([replay])");
    assert_eq!(replay["policy"]["inference_start_slo_ms"].as_i64(), Some(120_000));
    let table = gpuplan_in(home.path(), &["replay", SAMPLE, "--plan", plan.to_str().expect("path")]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(table.stdout.contains("WAITS BY CLASS"), "{}", table.stdout);
    assert!(table.stdout.contains("training pool (+on-demand)"), "{}", table.stdout);
}

#[test]
fn a_bad_replay_table_names_its_line() {
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    std::fs::write(&plan, default_plan_text() + "\n[replay]\ntraining_gpus = -4\n").expect("plan");
    let run = gpuplan_in(home.path(), &["replay", SAMPLE, "--plan", plan.to_str().expect("path")]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("replay.training_gpus"), "{}", run.stderr);
    assert!(run.stderr.contains("expected a GPU count"), "{}", run.stderr);
}

#[test]
fn the_philly_trace_replays() {
    if !std::path::Path::new(PHILLY).exists() {
        eprintln!("the Philly trace is not beside the repository (../shared/data/philly): skipped");
        return;
    }
    let replay = json(&["replay", PHILLY, "--all-time", "--format", "json"]);
    assert_eq!(replay["jobs"].as_u64(), Some(3_034));
    // Philly's submitted_time is each job's submit: only the jobs without one wait from their start.
    let from_start = replay["jobs_submit_is_start"].as_u64().expect("count");
    assert!(from_start < 30, "{from_start} jobs without a submit time");
    let today = &replay["today"]["totals"];
    // The audit counts 772,361 GPU-hours (attempts summed): today's replay runs them all.
    assert!(
        (number(&today["allocated_gpu_hours_in_window"]) - 772_361.0).abs() < 1.0,
        "{today}"
    );
    assert!(number(&replay["split"]["totals"]["total_usd_per_month"]) > 0.0);
}

#[test]
fn the_report_with_logs_carries_the_replay() {
    let report = json(&["report", "--logs", SAMPLE, "--format", "json"]);
    let replay = json(&["replay", SAMPLE, "--format", "json"]);
    assert_eq!(report["replay"]["split"]["totals"], replay["split"]["totals"]);
    assert_eq!(report["replay"]["today"]["totals"], replay["today"]["totals"]);
    let markdown = gpuplan(&["report", "--logs", SAMPLE, "--format", "markdown"]);
    assert_eq!(markdown.code, 0, "{}", markdown.stderr);
    assert!(markdown.stdout.contains("## Waits by class"), "{}", markdown.stdout);
    // Without logs, the shipped sample, as the workbench opens it: the same replay.
    let without_logs = json(&["report", "--format", "json"]);
    assert_eq!(without_logs["replay"]["split"]["totals"], replay["split"]["totals"]);
}
