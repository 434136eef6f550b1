//! Real fleets as they arrive (issue 29): Kubernetes pod lists classed by their owner kind and
//! QoS, clusters the plan does not list priced as the accelerator their log names, a starting
//! plan written from the logs, paid capacity in its three parts.

use serde_json::Value;

use crate::common::{gpuplan, gpuplan_in};

/// A pod list as `kubectl get pods -o custom-columns` and a metrics export would give it:
/// owner kind, QoS, GPU product label. Ten hours from 2026-03-01.
const PODS: &str = "\
pod,cluster,namespace,owner_kind,qos,gpu_type,gpus,start,end
llm-7d9f8-x2x9q,k8s-a100,serving,ReplicaSet,Guaranteed,NVIDIA-A100-SXM4-80GB,2,2026-03-01T00:00:00Z,2026-03-01T10:00:00Z
mm-exp-42-worker-0,k8s-a100,research,PyTorchJob,Guaranteed,NVIDIA-A100-SXM4-80GB,8,2026-03-01T01:00:00Z,2026-03-01T02:00:00Z
jupyter-alice-0,k8s-a100,alice,Notebook,Burstable,NVIDIA-A100-SXM4-80GB,1,2026-03-01T00:00:00Z,2026-03-01T09:00:00Z
batch-7,k8s-a100,research,Job,BestEffort,NVIDIA-A100-SXM4-80GB,4,2026-03-01T03:00:00Z,2026-03-01T09:00:00Z
ls-pod,k8s-a100,web,,LS,NVIDIA-A100-SXM4-80GB,0.5,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z
old-1,k8s-v100,legacy,Job,,Tesla-V100-SXM2-32GB,8,2026-03-01T00:00:00Z,2026-03-01T10:00:00Z
";

fn audit_json(home: &std::path::Path, log: &str) -> Value {
    let run = gpuplan_in(home, &["audit", "--format", "json", "--all-time", log]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("json")
}

fn write_pods(dir: &std::path::Path) -> String {
    // The A100 cluster's pods alone.
    let a100: String = PODS
        .lines()
        .filter(|l| !l.contains("V100"))
        .map(|l| format!("{l}\n"))
        .collect();
    let path = dir.join("k8s-a100.csv");
    std::fs::write(&path, a100).expect("pods");
    path.to_str().expect("utf-8").to_string()
}

#[test]
fn pods_are_classed_by_what_owns_them_and_their_qos_with_the_rule_named() {
    let home = tempfile::tempdir().expect("home");
    let log = write_pods(home.path());
    let init = gpuplan_in(home.path(), &["mapping", "init", &log, "-o", "-"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    for line in [
        "owner_kind = \"owner_kind\"",
        "qos = \"qos\"",
        "gpu_type = \"gpu_type\"",
    ] {
        assert!(init.stdout.contains(line), "{line}\n{}", init.stdout);
    }
    let report = audit_json(home.path(), &log);
    let rule_of = |rule: &str| -> u64 {
        report["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .find(|r| r["rule"].as_str().is_some_and(|name| name.starts_with(rule)))
            .map_or(0, |r| r["jobs"].as_u64().expect("jobs"))
    };
    assert_eq!(rule_of("serving workload"), 1, "{report}");
    // One hour on eight GPUs, a name no rule reads: its owner says it trains.
    assert_eq!(rule_of("training operator"), 1, "{report}");
    assert_eq!(rule_of("notebook"), 1, "{report}");
    assert_eq!(rule_of("latency-sensitive QoS"), 1, "{report}");
    // A plain Job and Kubernetes' own BestEffort decide nothing: six hours on four GPUs.
    assert_eq!(rule_of("long multi-GPU run"), 1, "{report}");
    let classes = &report["classes"];
    assert_eq!(classes["training"]["jobs"], 2);
    assert_eq!(classes["inference"]["jobs"], 2);
    assert_eq!(classes["burst"]["jobs"], 1);
}

#[test]
fn an_unlisted_cluster_is_priced_as_the_accelerator_its_log_names() {
    let home = tempfile::tempdir().expect("home");
    let dir = home.path();
    let log = dir.join("pods.csv");
    std::fs::write(&log, PODS).expect("pods");
    let run = gpuplan_in(
        dir,
        &["audit", "--format", "json", "--all-time", log.to_str().expect("utf-8")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("json");
    let cluster = |name: &str| -> Value {
        report["clusters"]
            .as_array()
            .expect("clusters")
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name}: {report}"))
    };
    let a100 = cluster("k8s-a100");
    assert_eq!(a100["priced_as"], "a100-80gb");
    assert!((a100["usd_per_gpu_hour"].as_f64().expect("price") - 27.44705 / 8.0).abs() < 1e-9);
    assert!(
        a100["price_source"]
            .as_str()
            .expect("source")
            .contains("AWS p4de.24xlarge")
    );
    // The V100 32GB is in the catalog now: priced at its own list price, not as an H100.
    let v100 = cluster("k8s-v100");
    assert_eq!(v100["priced_as"], "v100-32gb");
    assert!(
        (v100["usd_per_gpu_hour"].as_f64().expect("price") - 31.212 / 8.0).abs() < 1e-9,
        "{v100}"
    );
    assert!(
        v100["price_source"]
            .as_str()
            .expect("source")
            .contains("AWS p3dn.24xlarge"),
        "{v100}"
    );
    // Not in any plan: the term is unknown, and so is whether it is committed.
    assert_eq!(v100["term"], Value::Null);
}

#[test]
fn paid_capacity_splits_into_three_parts_that_add_up_to_the_cost() {
    let home = tempfile::tempdir().expect("home");
    let run = gpuplan_in(home.path(), &["audit", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("json");
    for c in report["clusters"].as_array().expect("clusters") {
        let parts = &c["spend_parts"];
        let get = |k: &str| parts[k].as_f64().unwrap_or_else(|| panic!("{k}: {c}"));
        let (unallocated, idle, busy) = (
            get("never_allocated_usd_per_month"),
            get("allocated_idle_usd_per_month"),
            get("busy_usd_per_month"),
        );
        let cost = c["monthly_cost_usd"].as_f64().expect("cost");
        assert!(unallocated >= 0.0 && idle >= 0.0 && busy >= 0.0, "{c}");
        assert!((unallocated + idle + busy - cost).abs() < 1e-6 * cost.max(1.0), "{c}");
        let capacity = c["capacity_gpus"].as_f64().expect("capacity");
        let allocation = c["allocation_frac"].as_f64().expect("allocation");
        assert!(
            (unallocated - cost * (1.0 - allocation.min(1.0))).abs() < 1e-6 * cost,
            "{c}"
        );
        assert!(capacity > 0.0);
        assert_eq!(parts["busy_source"], "job_log");
        // The flag about commitments only where the plan commits: eu-west-a100 and
        // ap-south-h100 are on demand in the built-in plan, whatever their utilization.
        let committed = matches!(c["term"].as_str(), Some("monthly" | "1-year" | "3-year"));
        let flagged = c["flags"]
            .as_array()
            .expect("flags")
            .iter()
            .any(|f| f.as_str().is_some_and(|f| f.contains("shorter commitment")));
        if flagged {
            assert!(committed, "{c}");
        }
        if committed && c["utilization_frac"].as_f64().expect("util") < 0.4 {
            assert!(flagged, "{c}");
        }
    }
    let text = gpuplan(&["audit"]);
    assert!(text.stdout.contains("PAID CAPACITY BY WHAT IT DID"), "{}", text.stdout);
}

#[test]
fn a_starting_plan_is_written_from_the_logs_and_reads_back() {
    let home = tempfile::tempdir().expect("home");
    let dir = home.path();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
    let plan = dir.join("fleet.toml");
    let run = gpuplan_in(
        dir,
        &["plan", "new", "--logs", sample, "-o", plan.to_str().expect("utf-8")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("4 clusters from the logs"), "{}", run.stderr);
    let text = std::fs::read_to_string(&plan).expect("plan written");
    let written: toml::Value = toml::from_str(&text).expect("TOML");
    let clusters = written["clusters"].as_array().expect("clusters");
    let names: Vec<&str> = clusters.iter().map(|c| c["name"].as_str().expect("name")).collect();
    assert_eq!(names, ["ap-south-h100", "eu-west-a100", "us-east-h100", "us-west-h200"]);
    // The capacity is the observed peak (of the whole log) in whole GPUs, as `report --logs`
    // sizes a cluster the plan does not list, so the plan reports as the logs do.
    let audit: Value =
        serde_json::from_str(&gpuplan_in(dir, &["audit", "--format", "json", "--all-time", sample]).stdout)
            .expect("json");
    for (written, audited) in clusters.iter().zip(audit["clusters"].as_array().expect("clusters")) {
        assert_eq!(written["name"].as_str(), audited["name"].as_str());
        let peak = audited["peak_concurrent_gpus"].as_f64().expect("peak");
        let gpus = written["gpus"].as_integer().expect("whole GPUs") as f64;
        assert!(gpus >= peak && gpus < peak + 1.0, "{written} against a peak of {peak}");
        assert!(written["price_source"].as_str().expect("source").starts_with("ASSUMED"));
    }
    assert_eq!(clusters[1]["accelerator"].as_str(), Some("a100-80gb"));
    assert!(text.contains("# ASSUMED: as the audit sized it"), "{text}");
    // It validates, and a report reads it with the logs it names.
    let validate = gpuplan_in(dir, &["plan", "validate", plan.to_str().expect("utf-8")]);
    assert_eq!(validate.code, 0, "{}", validate.stderr);
    let again = gpuplan_in(
        dir,
        &["plan", "new", "--logs", sample, "-o", plan.to_str().expect("utf-8")],
    );
    assert_eq!(again.code, 2, "an existing plan is never replaced without --force");
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);
}
