//! `gpuplan audit`, `mapping init` and `sample` as a person or a script runs them.

use crate::common;

use common::{gpuplan, gpuplan_in};
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
const PHILLY_EXCERPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/philly-excerpt.json");

fn audit_json(args: &[&str]) -> Value {
    let mut all = vec!["audit", "--format", "json"];
    all.extend_from_slice(args);
    let run = gpuplan(&all);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("audit JSON")
}

#[test]
fn the_audit_json_has_the_documented_fields() {
    let report = audit_json(&[SAMPLE]);
    assert!(report["jobs_total"].as_u64().expect("jobs_total") > 10_000);
    assert!(report["gpu_hours_total"].as_f64().expect("gpu_hours_total") > 0.0);
    assert!(report["rows_rejected"].is_object());
    let mut share = 0.0;
    for class in ["training", "inference", "burst"] {
        let c = &report["classes"][class];
        for key in ["jobs", "gpu_hours", "gpu_hours_share", "mean_util_frac"] {
            assert!(c.get(key).is_some(), "classes.{class} lacks {key}");
        }
        assert!(c["jobs"].as_u64().expect("jobs") > 0, "{class} present in the sample");
        share += c["gpu_hours_share"].as_f64().expect("share");
    }
    assert!((share - 1.0).abs() < 1e-9);
    let clusters = report["clusters"].as_array().expect("clusters");
    assert_eq!(clusters.len(), 4);
    for cluster in clusters {
        for key in [
            "name",
            "capacity_gpus",
            "utilization_frac",
            "non_training_idle_usd_per_month",
            "spend_parts",
            "flags",
        ] {
            assert!(cluster.get(key).is_some(), "cluster lacks {key}");
        }
        let hourly = cluster["hourly"]["busy_gpus"].as_array().expect("hourly series");
        assert_eq!(hourly.len(), 90 * 24);
    }
    // The sample's labels agree with what the rules say.
    assert!(report["label_agreement"]["agreement_frac"].as_f64().expect("agreement") > 0.9);
    // Every label the sample uses is one [labels] knows.
    assert_eq!(
        report["unknown_labels"].as_array().map(Vec::len),
        Some(0),
        "{}",
        report["unknown_labels"]
    );
    // And it carries a few bad rows on purpose.
    assert!(report["rows_rejected_total"].as_u64().expect("rejected") > 0);
}

#[test]
fn seed_001s_non_training_idle_follows_the_documented_formula() {
    let report = audit_json(&[SAMPLE, "--cost-per-gpu-hour", "2.00"]);
    for c in report["clusters"].as_array().expect("clusters") {
        let monthly = c["capacity_gpus"].as_f64().expect("capacity") * 2.0 * 730.0;
        assert!((c["monthly_cost_usd"].as_f64().expect("cost") - monthly).abs() < 1e-6);
        let expected = monthly
            * c["non_training_time_frac"].as_f64().expect("share")
            * (1.0 - c["non_training_utilization_frac"].as_f64().expect("util"));
        assert!((c["non_training_idle_usd_per_month"].as_f64().expect("seed 001") - expected).abs() < 1e-6);
    }
}

/// One decomposition of idle money: per cluster, paid = never allocated + allocated idle +
/// busy within $1, and stranded = never allocated + allocated idle; where no utilization splits
/// what the jobs held, idle, busy and stranded are null in JSON and "unknown" in text, never 0.
#[test]
fn paid_capacity_adds_up_and_unknown_stays_unknown() {
    let report = audit_json(&[SAMPLE]);
    for c in report["clusters"].as_array().expect("clusters") {
        let parts = &c["spend_parts"];
        let get = |key: &str| parts[key].as_f64().unwrap_or_else(|| panic!("{key} in {parts}"));
        let paid = c["monthly_cost_usd"].as_f64().expect("cost");
        let sum =
            get("never_allocated_usd_per_month") + get("allocated_idle_usd_per_month") + get("busy_usd_per_month");
        assert!((sum - paid).abs() <= 1.0, "{}: {sum} against {paid}", c["name"]);
        let stranded = get("never_allocated_usd_per_month") + get("allocated_idle_usd_per_month");
        assert!((get("stranded_usd_per_month") - stranded).abs() <= 1e-6);
    }
    // A log without a utilization column: what the jobs held cannot be split.
    let home = tempfile::tempdir().expect("tempdir");
    let log = home.path().join("no-util.csv");
    std::fs::write(
        &log,
        "job_id,cluster,gpus,start,end\n1,alpha,8,2026-01-01T00:00:00Z,2026-01-01T10:00:00Z\n\
         2,alpha,4,2026-01-01T05:00:00Z,2026-01-02T00:00:00Z\n",
    )
    .expect("log");
    let path = log.display().to_string();
    let run = gpuplan_in(home.path(), &["audit", &path, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let parts = &json["clusters"][0]["spend_parts"];
    for key in [
        "allocated_idle_usd_per_month",
        "busy_usd_per_month",
        "stranded_usd_per_month",
    ] {
        assert!(parts[key].is_null(), "{key} is unknown, not 0: {parts}");
    }
    let paid = json["clusters"][0]["monthly_cost_usd"].as_f64().expect("cost");
    let known = parts["never_allocated_usd_per_month"]
        .as_f64()
        .expect("never allocated")
        + parts["allocated_usd_per_month"].as_f64().expect("allocated");
    assert!((known - paid).abs() <= 1.0);
    let text = gpuplan_in(home.path(), &["audit", &path]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let said = |name: &str| {
        text.stdout
            .lines()
            .any(|l| l.trim_start().starts_with(name) && l.contains("unknown") && !l.contains("$0.00"))
    };
    assert!(said("allocated idle") && said("stranded"), "{}", text.stdout);
}

#[test]
fn the_window_defaults_to_90_days_and_follows_the_flags() {
    let default = audit_json(&[SAMPLE]);
    assert!((default["window"]["days"].as_f64().expect("days") - 90.0).abs() < 1e-9);
    let week = audit_json(&[SAMPLE, "--days", "7"]);
    assert!((week["window"]["days"].as_f64().expect("days") - 7.0).abs() < 1e-9);
    assert!(week["gpu_hours_total"].as_f64() < default["gpu_hours_total"].as_f64());
    let ranged = audit_json(&[SAMPLE, "--since", "2026-08-01", "--until", "2026-08-15"]);
    assert_eq!(ranged["window"]["start"], "2026-08-01T00:00:00Z");
    assert_eq!(ranged["window"]["end"], "2026-08-15T00:00:00Z");
}

#[test]
fn the_philly_excerpt_is_training_and_its_table_names_the_rules() {
    let report = audit_json(&[PHILLY_EXCERPT, "--all-time"]);
    assert_eq!(report["jobs_total"], 300);
    assert!(
        report["classes"]["training"]["gpu_hours_share"]
            .as_f64()
            .expect("share")
            >= 0.95
    );
    let table = gpuplan(&["audit", PHILLY_EXCERPT, "--all-time"]);
    assert!(
        table.stdout.contains("long multi-GPU run  training"),
        "{}",
        table.stdout
    );
}

#[test]
fn bad_input_exits_2_with_the_file_and_the_reason() {
    let binary = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/broken/binary.csv");
    let run = gpuplan(&["audit", binary]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("binary.csv: binary content"), "{}", run.stderr);
    let missing = gpuplan(&["audit", "/nonexistent/jobs.csv"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("/nonexistent/jobs.csv: cannot open"),
        "{}",
        missing.stderr
    );
    let bad_date = gpuplan(&["audit", SAMPLE, "--since", "last tuesday"]);
    assert_eq!(bad_date.code, 2);
    assert!(bad_date.stderr.contains("expected YYYY-MM-DD"), "{}", bad_date.stderr);
}

#[test]
fn a_header_that_is_not_the_format_is_refused_at_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sacct = dir.path().join("jobs.sacct");
    std::fs::write(&sacct, "\nJobID|Foo|Bar\n1|2|3\n").expect("write sacct");
    let dcgm = dir.path().join("dcgm.csv");
    std::fs::write(&dcgm, "\n\ntime,host,value\n2026-01-01T00:00:00Z,n1,50\n").expect("write dcgm");
    for (path, format, expected) in [
        (&sacct, "sacct", ":2: not a sacct -P export: no Start column"),
        (&dcgm, "dcgm-long", ":3: not a DCGM long export"),
    ] {
        let run = gpuplan(&["audit", path.to_str().expect("utf-8 path"), "--input-format", format]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        let shown = format!("{}{expected}", path.display());
        assert!(run.stderr.contains(&shown), "{shown} in {}", run.stderr);
        assert_eq!(
            run.stderr.matches(&*path.display().to_string()).count(),
            1,
            "{}",
            run.stderr
        );
    }
}

#[test]
fn mapping_init_writes_a_mapping_the_audit_accepts() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/formats/k8s_pods.csv");
    let mapping = home.path().join("pods.toml");
    let mapping_str = mapping.to_str().expect("utf-8");
    let init = gpuplan_in(home.path(), &["mapping", "init", log, "--output", mapping_str]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    let text = std::fs::read_to_string(&mapping).expect("written");
    assert!(text.contains("gpus = \"gpu_milli\""), "{text}");
    assert!(text.contains("gpu_multiplier = \"num_gpu\""), "{text}");
    let audited = gpuplan_in(
        home.path(),
        &["audit", log, "--mapping", mapping_str, "--all-time", "--format", "json"],
    );
    assert_eq!(audited.code, 0, "{}", audited.stderr);
    let again = gpuplan_in(home.path(), &["mapping", "init", log, "--output", mapping_str]);
    assert_eq!(again.code, 2, "never overwrites a mapping");
}

#[test]
fn mapping_init_to_dash_or_a_device_writes_to_the_stream_not_a_file() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/formats/k8s_pods.csv");
    let printed = gpuplan_in(home.path(), &["mapping", "init", log]);
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    let dash = gpuplan_in(home.path(), &["mapping", "init", log, "-o", "-"]);
    assert_eq!(dash.code, 0, "{}", dash.stderr);
    assert_eq!(dash.stdout, printed.stdout);
    assert!(!home.path().join("-").exists(), "no file named '-'");
    assert!(!dash.stderr.contains("--mapping -"), "{}", dash.stderr);
    // A character device that exists is written to, not refused as a file in the way.
    let device = gpuplan_in(home.path(), &["mapping", "init", log, "-o", "/dev/null"]);
    assert_eq!(device.code, 0, "{}", device.stderr);
}

#[test]
fn sample_is_deterministic_and_the_shipped_file_is_its_output() {
    let a = gpuplan(&[
        "sample",
        "--jobs",
        "500",
        "--days",
        "10",
        "--clusters",
        "2",
        "--seed",
        "3",
    ]);
    let b = gpuplan(&[
        "sample",
        "--jobs",
        "500",
        "--days",
        "10",
        "--clusters",
        "2",
        "--seed",
        "3",
    ]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.stdout.lines().count(), 501);
    let shipped = gpuplan(&[
        "sample",
        "--jobs",
        "20000",
        "--days",
        "90",
        "--clusters",
        "4",
        "--seed",
        "7",
    ]);
    let file = std::fs::read_to_string(SAMPLE).expect("shipped sample");
    assert!(
        shipped.stdout == file,
        "sample-data/jobs-90d.csv is not what the README's command generates"
    );
}

#[test]
fn check_reads_the_logs_utilization_into_the_cluster_rules() {
    let run = gpuplan(&["check", SAMPLE]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let low = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("WARN  permanent_allocation_utilization"))
        .count();
    assert!(low >= 1, "{}", run.stdout);
    let json = gpuplan(&["check", SAMPLE, "--format", "json"]);
    let parsed: Value = serde_json::from_str(&json.stdout).expect("check JSON");
    assert_eq!(parsed["status"], "fail");
    assert!(
        parsed["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .any(|c| c["rule"] == "permanent_allocation_utilization")
    );
}

#[test]
fn mapping_init_takes_a_headerless_logs_names_from_its_header_file() {
    let log = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/formats/pai_task_table.csv");
    let run = gpuplan(&["mapping", "init", log]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("has_header = false"), "{}", run.stdout);
    assert!(
        run.stdout.contains("header_file = \"pai_task_table.header\""),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("gpus = \"plan_gpu\""), "{}", run.stdout);
    assert!(run.stdout.contains("gpus = \"percent\""), "{}", run.stdout);
}

#[test]
fn utilization_samples_alone_are_told_apart_from_jobs() {
    let samples = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/dcgm/DCGM_FI_DEV_GPU_UTIL.csv"
    );
    let run = gpuplan(&["audit", samples]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("DCGM_FI_DEV_GPU_UTIL.csv"), "{}", run.stderr);
    assert!(run.stderr.contains("utilization samples"), "{}", run.stderr);
    assert!(run.stderr.contains("needs a job log"), "{}", run.stderr);
}

/// A job log and DCGM samples of the same four hours: what the hardware measured beside what
/// the log reports. Figures by hand: series n1/0 (0.8, 0.6) → 0.7, n1/1 → 0.2, n2/0 (0.1, an
/// empty sample, 0.3) → 0.2, n3/0 (1.0 at the window's end; its samples before and after the
/// window left out) → 1.0; mean of the series 0.525.
#[test]
fn dcgm_samples_beside_a_job_log_report_measured_utilization() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/measured");
    let (jobs, samples) = (format!("{dir}/jobs.csv"), format!("{dir}/dcgm-long.csv"));
    let report = audit_json(&[&jobs, &samples]);
    let m = &report["measured_utilization"];
    assert_eq!(m["samples"], 6);
    assert_eq!(m["hosts"], 3);
    assert_eq!(m["gpu_series"], 4);
    let close = |v: &Value, x: f64| (v.as_f64().expect("number") - x).abs() < 1e-12;
    assert!(close(&m["mean_util_frac"], 0.525), "{m}");
    // Hours from 10:00: (0.8 + 0.6 + 0.2) / 3, 0.1, none, then 0.3 at 13:59 with 1.0 at 14:00.
    let hourly = m["hourly_util_frac"].as_array().expect("hourly");
    assert_eq!(hourly.len(), 4);
    assert!(close(&hourly[0], 1.6 / 3.0) && close(&hourly[1], 0.1) && hourly[2].is_null() && close(&hourly[3], 0.65));
    // n1 averages 0.45: above the 40 % threshold; n2 is below it.
    assert!(close(&m["threshold_frac"], 0.4));
    let below = m["hosts_below_threshold"].as_array().expect("hosts");
    assert_eq!(below.len(), 1);
    assert_eq!(below[0]["host"], "n2");
    // The log's own figures are unchanged by the samples.
    let alone = audit_json(&[&jobs]);
    assert!(alone["measured_utilization"].is_null());
    assert_eq!(alone["clusters"], report["clusters"]);
    let table = gpuplan(&["audit", &jobs, &samples]);
    assert!(
        table
            .stdout
            .contains("52.5 % mean over 4 GPU series on 3 hosts (6 samples)"),
        "{}",
        table.stdout
    );
    assert!(
        table
            .stdout
            .contains("n2        20.0 % over 1 GPU series: below 40.0 %"),
        "{}",
        table.stdout
    );
}

/// DCGM samples of a Slurm fleet placed per cluster: `NodeList` puts e-gpu01/02 in east and
/// w-gpu01 in west, the plan's `[hosts]` puts w-gpu02 in west, spare-9 belongs to none.
/// Figures by hand, hours from 10:00: east h0 mean(0.8, 0.5) = 0.65, h2 0.1 → 0.375; west h0
/// 0.3, h1 mean(0.5, 0.4) = 0.45 → 0.375. East trained 10:00–12:00, so its non-training
/// utilization is hour 2's 0.1; west served throughout: 0.375.
#[test]
fn dcgm_samples_of_a_slurm_fleet_are_measured_per_cluster() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/measured/per-cluster");
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    let extra = std::fs::read_to_string(format!("{dir}/hosts-plan-extra.toml")).expect("extra");
    std::fs::write(&plan, common::default_plan_text() + &extra).expect("plan");
    let (log, samples) = (format!("{dir}/sacct.txt"), format!("{dir}/dcgm-long.csv"));
    let run = gpuplan_in(
        home.path(),
        &[
            "audit",
            &log,
            &samples,
            "--plan",
            plan.to_str().expect("path"),
            "--cost-per-gpu-hour",
            "2",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("json");
    let close = |v: &Value, x: f64| (v.as_f64().expect("number") - x).abs() < 1e-9;
    let cluster = |name: &str| {
        report["clusters"]
            .as_array()
            .expect("clusters")
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .expect("cluster")
    };
    let east = cluster("east");
    assert_eq!(east["utilization_source"], "measured");
    assert_eq!(
        (
            east["measured"]["gpu_series"].as_u64(),
            east["measured"]["hosts"].as_u64()
        ),
        (Some(2), Some(2))
    );
    let hourly = east["measured"]["hourly_util_frac"].as_array().expect("hourly");
    assert!(close(&hourly[0], 0.65) && hourly[1].is_null() && close(&hourly[2], 0.1) && hourly[3].is_null());
    assert!(close(&east["utilization_frac"], 0.375));
    assert!(close(&east["non_training_utilization_frac"], 0.1));
    assert!(close(
        &east["non_training_idle_usd_per_month"],
        4.0 * 2.0 * 730.0 * 0.5 * 0.9
    ));
    let west = cluster("west");
    assert!(close(&west["utilization_frac"], 0.375));
    assert!(close(
        &west["non_training_idle_usd_per_month"],
        2.0 * 2.0 * 730.0 * (1.0 - 0.375)
    ));
    assert_eq!(west["measured"]["hosts"].as_u64(), Some(2));
    // The log's own figures stay beside: allocation, since sacct -X carries no utilization.
    assert!(close(&west["log"]["utilization_frac"], 1.0));
    let notes = report["measurement_notes"].to_string();
    assert!(
        notes.contains("1 host belongs to no cluster, GPUs left out: spare-9"),
        "{notes}"
    );
}

/// A Slurm log (with submit times) beside a CSV (without): both stack into one audit and one
/// replay, the CSV's jobs starting at their starts.
#[test]
fn logs_with_and_without_submit_times_audit_and_replay_together() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/measured");
    let (sacct, csv) = (format!("{dir}/per-cluster/sacct.txt"), format!("{dir}/jobs.csv"));
    let alone = audit_json(&[&csv, "--all-time"]);
    let both = audit_json(&[&sacct, &csv, "--all-time"]);
    let jobs = |r: &Value| r["jobs_total"].as_u64().expect("jobs");
    assert_eq!(jobs(&both), jobs(&alone) + 2);
    let run = gpuplan(&["replay", &sacct, &csv, "--all-time", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay: Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(replay["jobs"].as_u64(), Some(jobs(&both)));
}

/// JSON nested 200,000 levels deep overflowed the stack of the JSON reader and aborted the
/// process; it is refused with the file, line and column instead.
#[test]
fn json_nested_absurdly_deep_is_refused_not_a_crash() {
    let home = tempfile::tempdir().expect("home");
    let deep = "[".repeat(200_000) + &"]".repeat(200_000);
    for (name, text) in [
        ("deep.json", deep.clone()),
        (
            "deep.ndjson",
            "{\"a\":".repeat(200_000) + "1" + &"}".repeat(200_000) + "\n",
        ),
    ] {
        let path = home.path().join(name);
        std::fs::write(&path, &text).expect("write");
        let run = gpuplan_in(home.path(), &["audit", path.to_str().expect("path")]);
        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
        assert!(run.stderr.contains(name), "{}", run.stderr);
        assert!(
            run.stderr.contains("JSON nested deeper than 64 levels"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_mapping_a_log_proves_wrong_is_named_with_its_line_and_key() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
    let mapping = dir.path().join("m.toml");
    let mapping_arg = mapping.to_str().expect("utf-8");
    let init = gpuplan(&["mapping", "init", log, "-o", mapping_arg]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    let text = std::fs::read_to_string(&mapping).expect("mapping");
    let user_line = text.lines().position(|l| l.starts_with("user = ")).expect("user line") + 1;
    std::fs::write(&mapping, text.replace("user = \"user\"", "user = \"owner\"")).expect("write");
    let run = gpuplan(&["audit", log, "--mapping", mapping_arg]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let place = format!("{mapping_arg}:{user_line} (columns.user) names \"owner\"");
    assert!(run.stderr.contains(&place), "{}", run.stderr);

    // A strftime pattern that cannot parse is refused when the mapping is read, at its line.
    std::fs::write(&mapping, text.replace("time = \"auto\"", "time = \"%Q-%d\"")).expect("write");
    let time_line = text.lines().position(|l| l.starts_with("time = ")).expect("time line") + 1;
    let run = gpuplan(&["audit", log, "--mapping", mapping_arg]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("{mapping_arg}:{time_line}:8: units.time")),
        "{}",
        run.stderr
    );
}

const SACCT_PENDING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/slurm/sacct_pending.txt");

#[test]
fn pending_demand_and_named_top_jobs_reach_json_and_text() {
    let report = audit_json(&[SACCT_PENDING, "--all-time"]);
    let pending = &report["pending"]["training"];
    assert_eq!(pending["jobs"], 1);
    assert_eq!(pending["gpus"], 64.0);
    assert_eq!(pending["gpu_hours_requested"], 3072.0);
    assert_eq!(pending["gpu_hours_basis"], "time_limit");
    assert_eq!(report["clusters"][0]["pending"]["burst"]["jobs"], 3);
    assert_eq!(report["pending"]["inference"]["gpu_hours_basis"], "wait_in_window");
    assert_eq!(report["rows_rejected_total"], 0);
    let top = &report["top_jobs"][0];
    for (key, value) in [
        ("job_id", "2001"),
        ("name", "pretrain-llama-70b"),
        ("user", "alice"),
        ("queue", "gpu/high"),
        ("state", "COMPLETED"),
    ] {
        assert_eq!(top[key], value, "{key}");
    }
    assert!(top["mean_util_frac"].is_null());

    let text = gpuplan(&["audit", SACCT_PENDING, "--all-time"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("PENDING DEMAND (JOBS THAT NEVER STARTED)"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("TOP JOBS"), "{}", text.stdout);
    let from = text.stdout.find("PENDING DEMAND").expect("pending section");
    let to = text.stdout.find("CLASSIFICATION RULES").expect("rules section");
    let sections = &text.stdout[from..to];
    assert!(sections.lines().all(|l| l.chars().count() <= 120), "{sections}");
    let sample = gpuplan(&["audit", SAMPLE]);
    assert!(
        !sample.stdout.contains("PENDING DEMAND"),
        "no section without pending jobs"
    );
    let markdown = gpuplan(&["audit", SACCT_PENDING, "--all-time", "--format", "markdown"]);
    assert!(markdown.stdout.contains("## Pending demand"), "{}", markdown.stdout);
}

/// A CPU partition's export: said plainly, the column read as GPUs named, and no flag about
/// shortening a commitment on a cluster that held no GPU.
#[test]
fn a_log_with_no_gpu_job_says_so_exits_2_and_names_the_gpu_column() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = home.path().join("cpu-partition.csv");
    std::fs::write(
        &log,
        "id,cluster,gpu_num,start,end\n1,cpu,0,2024-01-01T00:00:00Z,2024-01-01T02:00:00Z\n\
         2,cpu,0,2024-01-01T01:00:00Z,2024-01-01T05:00:00Z\n",
    )
    .expect("write");
    // Nothing GPU-shaped is left: exit 2, said with the column read as GPUs, not a fleet of
    // nothing at $0.00.
    let run = gpuplan_in(home.path(), &["audit", log.to_str().expect("utf-8"), "--all-time"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("no GPUs allocated in this log: all 2 of its runs are CPU-only")
            && run.stderr.contains("column `gpu_num`, read as the GPU count, is 0"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    // A CPU partition beside a GPU one: the GPU jobs audited, the CPU ones counted apart.
    std::fs::write(
        &log,
        "id,cluster,gpu_num,start,end\n1,cpu,0,2024-01-01T00:00:00Z,2024-01-01T02:00:00Z\n\
         2,gpu,8,2024-01-01T01:00:00Z,2024-01-01T05:00:00Z\n",
    )
    .expect("write");
    let run = gpuplan_in(
        home.path(),
        &["audit", log.to_str().expect("utf-8"), "--all-time", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(report["jobs_total"].as_u64(), Some(1));
    assert_eq!(report["rows_rejected"]["cpu_only"].as_u64(), Some(1));
    let clusters: Vec<&str> = report["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(clusters, ["gpu"], "the CPU cluster is not priced as GPUs");
}

/// The star's footnote only where a row carries the star, and the utilization flag names the
/// measure it used.
#[test]
fn footnotes_and_flags_say_only_what_applies() {
    let run = gpuplan(&["audit"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let starred = run
        .stdout
        .lines()
        .any(|l| l.split_whitespace().nth(1).is_some_and(|gpus| gpus.ends_with('*')));
    assert_eq!(
        run.stdout.contains("* capacity not in the plan"),
        starred,
        "{}",
        run.stdout
    );
    let flagged: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("candidate for a shorter commitment"))
        .collect();
    assert!(
        !flagged.is_empty(),
        "the sample has clusters below 40 %: {}",
        run.stdout
    );
    for line in flagged {
        assert!(line.contains("(busy time, from the job log's utilization)"), "{line}");
    }
}

/// A job on a fraction of a GPU is not training: held for hours it is serving, briefly it is
/// burst; the same job on a whole GPU stays training by default.
#[test]
fn a_long_job_on_a_shared_gpu_is_serving_not_training() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = home.path().join("pods.csv");
    let mut text = "id,cluster,gpus,start,end\n".to_string();
    // id, GPUs, hours
    let jobs = [
        ("shared-long", 0.25, 30),
        ("shared-short", 0.5, 1),
        ("whole-long", 1.0, 30),
    ];
    for (id, gpus, hours) in jobs {
        text.push_str(&format!(
            "{id},k8s,{gpus},2024-01-01T00:00:00Z,2024-01-{:02}T{:02}:00:00Z\n",
            1 + hours / 24,
            hours % 24
        ));
    }
    std::fs::write(&log, text).expect("write");
    let run = gpuplan_in(
        home.path(),
        &["audit", log.to_str().expect("utf-8"), "--all-time", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let hours = |class: &str| report["classes"][class]["gpu_hours"].as_f64().expect("GPU-hours");
    assert!((hours("inference") - 0.25 * 30.0).abs() < 1e-9, "{}", report["classes"]);
    assert!((hours("burst") - 0.5).abs() < 1e-9, "{}", report["classes"]);
    assert!((hours("training") - 30.0).abs() < 1e-9, "{}", report["classes"]);
    let rules: Vec<&str> = report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["rule"].as_str().expect("name"))
        .collect();
    assert!(rules.contains(&"long job on a shared GPU (service)"), "{rules:?}");
}

/// A real shape of sacct export from a CPU cluster (tdhock/slurm's `sacct-manyfields.txt`
/// layout: sixteen fields, `AllocTRES` naming no `gres/gpu`): said as no GPUs, exit 2, never a
/// fleet of 1 job, 0 GPUs and $0.00.
#[test]
fn a_cpu_clusters_sacct_export_says_no_gpus_and_exits_2() {
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/slurm/sacct_cpu_manyfields.txt"
    );
    for format in ["table", "json", "markdown"] {
        let run = gpuplan(&["audit", log, "--all-time", "--format", format]);
        assert_eq!(run.code, 2, "{format}: {}", run.stdout);
        assert!(
            run.stderr.contains(
                "no GPUs allocated in this log: all 1 of its runs are CPU-only (`AllocTRES` names no gres/gpu)"
            ),
            "{format}: {}",
            run.stderr
        );
        assert!(!run.stdout.contains("$0.00"), "{format}: {}", run.stdout);
    }
}

/// Sixteen jobs of equal GPU-hours, listed in the reverse of their ids, and one 0.002 GPU-hours
/// larger listed last: the largest-jobs list keeps the larger one first, then the eleven least
/// ids as text ("100000" before "99990"), whatever order the log lists them in.
#[test]
fn the_largest_jobs_rank_by_exact_hours_then_job_id() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = home.path().join("tied.csv");
    let mut csv = String::from("job_id,cluster,name,queue,start,end,gpus,gpu_util_pct\n");
    for tied in (0..16).rev() {
        csv.push_str(&format!(
            "{},c1,pretrain-tied,research,2026-01-06T00:00:00Z,2026-01-06T10:00:00Z,8,50\n",
            99_990 + tied
        ));
    }
    // 10 h 00 min 01 s: 0.0022 GPU-hours more, the same to the hundredth.
    csv.push_str("77777,c1,pretrain-tied,research,2026-01-06T00:00:00Z,2026-01-06T10:00:01Z,8,50\n");
    std::fs::write(&log, csv).expect("log");
    let report = audit_json(&[log.to_str().expect("utf-8"), "--all-time"]);
    let ids: Vec<&str> = report["top_jobs"]
        .as_array()
        .expect("top_jobs")
        .iter()
        .map(|job| job["job_id"].as_str().expect("job id"))
        .collect();
    let mut expected = vec!["77777".to_string()];
    expected.extend((100_000..=100_005).map(|id| id.to_string()));
    expected.extend((99_990..=99_994).map(|id| id.to_string()));
    assert_eq!(ids, expected);
}
