//! Faults: values that cannot be true reaching the figures. Each is a real log file with one
//! impossible thing in it (a utilization of 1e9 %, 999,999 GPUs on a 192-GPU cluster, an end in
//! 2100, a start in 1970, a run listed twice, a valid offset far from UTC), audited under the
//! default plan; each ends refused with its reason or flagged and said, and the figures stay
//! physically possible: no utilization above 100 %, no stranded spend of $0 from a bogus value.

use crate::common;

use serde_json::Value;

const HEADER: &str = "job_id,cluster,name,user,queue,state,start,end,gpus,gpu_util_pct\n";

/// A week of believable serving and training on us-east-h100 (192 GPUs in the default plan):
/// 16 GPUs at 40 % for a day each.
fn believable_rows() -> String {
    (0..6)
        .map(|day| {
            format!(
                "{job},us-east-h100,serve-chat-{day},svc,prod,COMPLETED,2025-01-0{d}T00:00:00Z,2025-01-0{d}T23:00:00Z,16,40\n",
                job = 100 + day,
                d = day + 1
            )
        })
        .collect()
}

/// `audit LOG --all-time --format json` on a log of the believable rows and `extra`, and the
/// same audit as the table.
fn audit_with(extra: &str) -> (Value, common::Run) {
    audit_log(&format!("{HEADER}{}{extra}", believable_rows()))
}

fn audit_log(text: &str) -> (Value, common::Run) {
    let home = tempfile::tempdir().expect("tempdir");
    let log = home.path().join("jobs.csv");
    std::fs::write(&log, text).expect("log");
    let log = log.to_str().expect("utf-8");
    let run = common::gpuplan_in(home.path(), &["audit", log, "--all-time", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = serde_json::from_str(&run.stdout).expect("JSON");
    let text = common::gpuplan_in(home.path(), &["audit", log, "--all-time"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    (report, text)
}

fn east(report: &Value) -> &Value {
    report["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .find(|c| c["name"] == "us-east-h100")
        .expect("us-east-h100")
}

/// What every audit here must show whatever the fault: figures a real cluster can have.
fn physically_possible(report: &Value) {
    let east = east(report);
    for class in ["training", "inference", "burst"] {
        if let Some(util) = report["classes"][class]["mean_util_frac"].as_f64() {
            assert!((0.0..=1.0).contains(&util), "{class} mean utilization {util}");
        }
    }
    let util = east["utilization_frac"].as_f64().expect("utilization");
    assert!((0.0..=1.0).contains(&util), "utilization {util}");
    let peak = east["peak_concurrent_gpus"].as_f64().expect("peak");
    assert!(peak <= 192.0, "peak {peak}");
    let stranded = &east["spend_parts"]["stranded_usd_per_month"];
    assert!(stranded.as_f64().expect("stranded") > 0.0, "{stranded}");
}

/// The GPU-hour-weighted mean utilization over the classes that report one.
fn mean_util(report: &Value) -> f64 {
    let (mut sum, mut weight) = (0.0, 0.0);
    for class in ["training", "inference", "burst"] {
        let c = &report["classes"][class];
        if let (Some(util), Some(hours)) = (c["mean_util_frac"].as_f64(), c["gpu_hours"].as_f64()) {
            sum += util * hours;
            weight += hours;
        }
    }
    sum / weight
}

fn rejected(report: &Value, reason: &str) -> u64 {
    report["rows_rejected"][reason].as_u64().unwrap_or(0)
}

#[test]
fn utilization_outside_0_to_100_percent_is_set_aside_with_its_reason() {
    let extra = "900,us-east-h100,serve-x,svc,prod,COMPLETED,2025-01-02T00:00:00Z,2025-01-02T10:00:00Z,8,1e9\n\
                 901,us-east-h100,serve-y,svc,prod,COMPLETED,2025-01-02T00:00:00Z,2025-01-02T10:00:00Z,8,150\n\
                 902,us-east-h100,serve-z,svc,prod,COMPLETED,2025-01-02T00:00:00Z,2025-01-02T10:00:00Z,8,-50\n";
    let (report, text) = audit_with(extra);
    assert_eq!(
        rejected(&report, "utilization_out_of_range"),
        3,
        "{}",
        report["rows_rejected"]
    );
    assert_eq!(report["jobs_total"], 6);
    let samples = report["rejected_samples"].to_string();
    assert!(samples.contains("1e9") && samples.contains("-50"), "{samples}");
    assert!(text.stdout.contains("utilization outside 0-100 %"), "{}", text.stdout);
    physically_possible(&report);
    // The believable rows alone: 40 % mean.
    let mean = mean_util(&report);
    assert!((mean - 0.4).abs() < 1e-9, "{mean}");
}

#[test]
fn utilization_a_little_past_100_percent_is_read_as_100() {
    let extra = "903,us-east-h100,serve-w,svc,prod,COMPLETED,2025-01-02T00:00:00Z,2025-01-02T23:00:00Z,16,104\n";
    let (report, _) = audit_with(extra);
    assert_eq!(report["rows_rejected_total"], 0, "{}", report["rows_rejected"]);
    assert_eq!(report["jobs_total"], 7);
    // Six days at 40 % and one at 100 %, the same GPU-hours each.
    let mean = mean_util(&report);
    assert!((mean - (6.0 * 0.4 + 1.0) / 7.0).abs() < 1e-9, "{mean}");
    physically_possible(&report);
}

#[test]
fn a_job_larger_than_its_cluster_is_kept_out_of_the_figures_and_named() {
    let extra =
        "big-1,us-east-h100,serve-huge,svc,prod,COMPLETED,2025-01-02T00:00:00Z,2025-01-02T10:00:00Z,999999,50\n";
    let (report, text) = audit_with(extra);
    let warnings = report["inputs"][0]["warnings"].to_string();
    assert!(
        warnings
            .contains("job big-1 asks 999999 GPUs, more than cluster us-east-h100's capacity of 192 GPUs in the plan: 1 run kept out"),
        "{warnings}"
    );
    assert!(
        text.stdout.contains("job big-1 asks 999999 GPUs") || text.stderr.contains("job big-1 asks 999999 GPUs"),
        "{}\n{}",
        text.stdout,
        text.stderr
    );
    // The believable rows' GPU-hours alone: 6 days × 16 GPUs × 23 h.
    let hours = east(&report)["gpu_hours"].as_f64().expect("GPU-hours");
    assert!((hours - 6.0 * 16.0 * 23.0).abs() < 1e-6, "{hours}");
    assert_eq!(east(&report)["peak_concurrent_gpus"].as_f64(), Some(16.0));
    physically_possible(&report);
}

/// Issue 67, finding 3: on a small cluster no plan sizes, eight 4-GPU runs beside one of 999,999
/// GPUs counted the outlier (10,000,310 GPU-h, $8.97 billion a month): a 99th percentile of nine
/// runs is the outlier itself. The bound now reads the cluster's other runs, however few.
#[test]
fn a_lone_huge_run_on_a_small_unsized_cluster_is_kept_out_and_named() {
    let mut log = String::from(HEADER);
    for k in 0..8 {
        log.push_str(&format!(
            "{},lab-small,train-{k},ana,dev,COMPLETED,2025-01-0{}T00:00:00Z,2025-01-0{}T10:00:00Z,4,40\n",
            300 + k,
            k % 5 + 1,
            k % 5 + 1
        ));
    }
    log.push_str("huge-1,lab-small,train-huge,ana,dev,COMPLETED,2025-01-03T00:00:00Z,2025-01-03T10:00:00Z,999999,40\n");
    let (report, text) = audit_log(&log);
    let warnings = report["inputs"][0]["warnings"].to_string();
    assert!(warnings.contains("job huge-1 asks 999999 GPUs"), "{warnings}");
    let small = report["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .find(|c| c["name"] == "lab-small")
        .expect("lab-small");
    // Eight runs of 4 GPUs × 10 h; the capacity is what they held.
    let hours = small["gpu_hours"].as_f64().expect("GPU-hours");
    assert!((hours - 8.0 * 4.0 * 10.0).abs() < 1e-6, "{hours}");
    let capacity = small["capacity_gpus"].as_f64().expect("capacity");
    assert!(capacity <= 8.0, "{capacity}");
    assert!(
        text.stdout.contains("job huge-1 asks 999999 GPUs") || text.stderr.contains("job huge-1 asks 999999 GPUs"),
        "{}\n{}",
        text.stdout,
        text.stderr
    );
}

#[test]
fn times_outside_2000_to_a_day_from_now_are_set_aside_and_never_move_the_window() {
    let extra = "904,us-east-h100,serve-late,svc,prod,COMPLETED,2025-01-02T00:00:00Z,2100-01-01T00:00:00Z,8,40\n\
                 905,us-east-h100,serve-early,svc,prod,COMPLETED,1970-01-01T00:00:00Z,2025-01-02T00:00:00Z,8,40\n";
    let (report, text) = audit_with(extra);
    assert_eq!(rejected(&report, "time_out_of_range"), 2, "{}", report["rows_rejected"]);
    assert_eq!(report["window"]["start"], "2025-01-01T00:00:00Z");
    assert_eq!(report["window"]["end"], "2025-01-06T23:00:00Z");
    assert!(text.stdout.contains("time outside 2000..now+1d"), "{}", text.stdout);
    physically_possible(&report);
}

/// Rows of Alibaba's GPU-DLRM 2025 trace as published (cluster-trace-gpu-v2025, CC BY 4.0):
/// times in seconds from the trace's start, empty for instances running before it began (about
/// 30 % of its rows). Read raw they are not January 1970: the trace is recognised, second 0
/// placed at its stated origin, the empty times read as the trace's edges, and its CPU-node
/// instances counted apart.
#[test]
fn a_raw_dlrm_trace_of_relative_seconds_with_empty_times_is_anchored_never_read_as_1970() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = home.path().join("disaggregated_DLRM_trace.csv");
    std::fs::write(
        &log,
        "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,\
         memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,\
         deletion_time\n\
         instance_0,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n\
         instance_7280,CN,app_22,64,64,0,0,1,1,320.0,320.0,544.0,640.0,-1,475.00000000000006,623.0,\n\
         instance_7281,CN,app_88,64,64,0,0,1,1,320.0,320.0,255.0,300.0,-1,610.0,683.0,91730.0\n\
         instance_7283,CN,app_0,48,48,0,0,25,25,240.0,240.0,680.0,800.0,-1,475.00000000000006,475.00000000000006,\n\
         instance_7290,HN,app_1,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,300.0,310.0,7510.0\n",
    )
    .expect("log");
    let run = common::gpuplan_in(home.path(), &["audit", log.to_str().expect("utf-8"), "--all-time"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("recognised by its header as Alibaba GPU-disaggregated DLRM 2025"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("1970"), "{}", run.stdout);
    assert!(
        run.stdout.contains("2025-01-06"),
        "second 0 at the stated origin: {}",
        run.stdout
    );
    assert!(
        run.stdout.contains("CPU-only (no GPU): not in GPU figures"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_log_whose_every_time_is_before_2000_is_refused_naming_the_column() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = home.path().join("trace.csv");
    std::fs::write(
        &log,
        "job_id,cluster,begin,finish,gpus\n1,a,12,3612,8\n2,a,600,4200,4\n3,a,7200,9000,1\n",
    )
    .expect("log");
    let run = common::gpuplan_in(home.path(), &["audit", log.to_str().expect("utf-8"), "--all-time"]);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(run.stderr.contains("column begin"), "{}", run.stderr);
    assert!(run.stderr.contains("12 s"), "{}", run.stderr);
    assert!(
        run.stderr.contains("seconds from a trace's start, not dates") && run.stderr.contains("--time-origin DATE"),
        "the message names the flag that reads them: {}",
        run.stderr
    );
    // With the origin stated, the same log audits from it: no 1970 anywhere.
    let run = common::gpuplan_in(
        home.path(),
        &[
            "audit",
            log.to_str().expect("utf-8"),
            "--all-time",
            "--time-origin",
            "2024-03-01",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("1970"), "{}", run.stdout);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(report["window"]["start"].as_str(), Some("2024-03-01T00:00:12Z"));
    assert_eq!(report["gpu_hours_total"].as_f64(), Some(8.0 + 4.0 + 0.5));
    // An origin that would put every time out of range is refused as such, not read as "no rows".
    let run = common::gpuplan_in(
        home.path(),
        &["audit", log.to_str().expect("utf-8"), "--time-origin", "1960-01-01"],
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("--time-origin: '1960-01-01' is outside 2000 to today"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_run_listed_twice_counts_once_and_the_disagreement_is_said() {
    let extra = "42,us-east-h100,train-llm,ml,train,COMPLETED,2025-01-03T04:00:00Z,2025-01-03T08:00:00Z,64,90\n\
                 42,us-east-h100,train-llm,ml,train,COMPLETED,2025-01-03T04:00:00Z,2025-01-03T08:00:00Z,256,90\n";
    let (report, text) = audit_with(extra);
    assert_eq!(report["jobs_total"], 7);
    assert_eq!(report["runs_total"], 7);
    let hours = east(&report)["gpu_hours"].as_f64().expect("GPU-hours");
    assert!((hours - (6.0 * 16.0 * 23.0 + 64.0 * 4.0)).abs() < 1e-6, "{hours}");
    let warnings = report["inputs"][0]["warnings"].to_string();
    assert!(
        warnings.contains("job 42 at 2025-01-03T04:00:00Z listed twice with 64 and 256 GPUs: kept the first"),
        "{warnings}"
    );
    assert!(
        text.stdout.contains("listed twice") || text.stderr.contains("listed twice"),
        "{}\n{}",
        text.stdout,
        text.stderr
    );
    physically_possible(&report);
}

#[test]
fn offsets_from_minus_12_to_plus_14_hours_are_read() {
    // The layout is recognised from the first values: 600 rows in UTC with a `Z` come first.
    let filler: String = (0..600)
        .map(|i| {
            format!(
                "{},us-east-h100,serve-f-{i},svc,prod,COMPLETED,2025-01-04T00:00:00Z,2025-01-04T01:00:00Z,1,40\n",
                2000 + i
            )
        })
        .collect();
    // 2025-01-03T04:00Z to 08:00Z, written at +14:00 and at -12:00.
    let offsets = "950,us-east-h100,serve-kiribati,svc,prod,COMPLETED,2025-01-03T18:00:00+14:00,2025-01-03T22:00:00+14:00,8,40\n\
                   951,us-east-h100,serve-baker,svc,prod,COMPLETED,2025-01-02T16:00:00-12:00,2025-01-02T20:00:00-12:00,8,40\n";
    let (report, _) = audit_log(&format!("{HEADER}{}{filler}{offsets}", believable_rows()));
    assert_eq!(report["rows_rejected_total"], 0, "{}", report["rows_rejected"]);
    assert_eq!(report["jobs_total"], 608);
    let hours = east(&report)["gpu_hours"].as_f64().expect("GPU-hours");
    assert!(
        (hours - (6.0 * 16.0 * 23.0 + 600.0 + 2.0 * 8.0 * 4.0)).abs() < 1e-6,
        "{hours}"
    );
}

/// What reading a log said reaches `report` too, in every format: JSON `inputs[]` and the
/// table's and Markdown's first section, not only `audit` (nor only standard error).
#[test]
fn the_report_says_what_reading_its_log_said() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = home.path().join("jobs.csv");
    let extra = "42,us-east-h100,train-llm,ml,train,COMPLETED,2025-01-03T04:00:00Z,2025-01-03T08:00:00Z,64,90\n\
                 42,us-east-h100,train-llm,ml,train,COMPLETED,2025-01-03T04:00:00Z,2025-01-03T08:00:00Z,256,90\n";
    std::fs::write(&log, format!("{HEADER}{}{extra}", believable_rows())).expect("log");
    let log = log.to_str().expect("utf-8");
    let said = "job 42 at 2025-01-03T04:00:00Z listed twice with 64 and 256 GPUs: kept the first";
    let json = common::gpuplan_in(home.path(), &["report", "--logs", log, "--format", "json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let report: Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert!(
        report["inputs"][0]["warnings"].to_string().contains(said),
        "{}",
        report["inputs"]
    );
    for format in ["table", "markdown"] {
        let run = common::gpuplan_in(home.path(), &["report", "--logs", log, "--format", format]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains(said), "{format}:\n{}", run.stdout);
    }
}
