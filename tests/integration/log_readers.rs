//! Job logs as they come in the field: every broken fixture pinned to its outcome (a clear
//! error, or rows quarantined by reason while the rest loads), every field format to its
//! numbers, and the real Philly trace to the figures of the issue.

use std::path::{Path, PathBuf};

use gpuplan::config::catalog::builtin;
use gpuplan::data::audit::{AuditReport, AuditSettings, WindowSpec, audit};
use gpuplan::data::readers::load::{LoadedLogs, load_logs};
use gpuplan::data::readers::mapping::Mapping;
use gpuplan::data::readers::reject::RejectReason;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path)
}

fn load(path: &str) -> Result<LoadedLogs, String> {
    load_logs(
        &[fixture(path)],
        None,
        None,
        gpuplan::data::readers::tabular::Detail::Full,
    )
    .map_err(|e| e.to_string())
}

fn settings() -> AuditSettings {
    AuditSettings {
        window: WindowSpec {
            days: None,
            since_ms: None,
            until_ms: None,
        },
        hours_per_month: 730.0,
        clusters: Vec::new(),
        default_usd_per_gpu_hour: 10.0,
        default_price_source: "test".into(),
        list_prices: Vec::new(),
        min_utilization_frac: 0.40,
        host_patterns: Default::default(),
        host_utc_offsets_min: Default::default(),
        input_utc_offset_min: None,
        node_inventories: Vec::new(),
        model_prices: Default::default(),
    }
}

fn audited(logs: &LoadedLogs) -> AuditReport {
    let rules = builtin().catalog.classification.expect("built-in rules");
    audit(&logs.jobs, &logs.quarantine, &rules, &settings()).expect("audit")
}

fn rejected(logs: &LoadedLogs, reason: RejectReason) -> u64 {
    logs.quarantine.counts.get(&reason).copied().unwrap_or(0)
}

#[test]
fn unreadable_files_get_one_clear_error_naming_the_file() {
    for (file, expected) in [
        ("broken/empty.csv", "empty.csv: the file is empty"),
        ("broken/binary.csv", "binary.csv: binary content (NUL bytes)"),
    ] {
        let error = load(file).expect_err(file);
        assert!(error.contains(expected), "{file}: {error}");
    }
    let ndjson = load("broken/bad_line.ndjson").expect_err("broken JSON line");
    assert!(
        ndjson.contains(
            "bad_line.ndjson: line 2, column 25: expected one JSON object per line: EOF while parsing a value"
        ),
        "{ndjson}"
    );
    let missing = load("broken/no-such-file.csv").expect_err("missing");
    assert!(missing.contains("no-such-file.csv: cannot open"), "{missing}");
}

#[test]
fn a_header_without_rows_loads_nothing_and_the_audit_says_so() {
    let logs = load("broken/header_only.csv").expect("loads");
    assert_eq!(logs.jobs.height(), 0);
    let rules = builtin().catalog.classification.expect("rules");
    let error = audit(&logs.jobs, &logs.quarantine, &rules, &settings())
        .expect_err("nothing to audit")
        .to_string();
    assert!(error.contains("no usable rows"), "{error}");
}

#[test]
fn bad_rows_are_quarantined_by_reason_with_their_lines_and_the_rest_loads() {
    let logs = load("broken/contradictory_times.csv").expect("loads");
    assert_eq!(logs.jobs.height(), 1);
    assert_eq!(rejected(&logs, RejectReason::EndBeforeStart), 1);
    assert_eq!(rejected(&logs, RejectReason::UnparseableTime), 1);
    assert_eq!(rejected(&logs, RejectReason::NegativeGpus), 1);
    let end_before_start = logs
        .quarantine
        .samples
        .iter()
        .find(|s| s.reason == RejectReason::EndBeforeStart)
        .expect("sample");
    assert_eq!(end_before_start.line, 3);
    assert!(
        end_before_start.detail.starts_with("j2,east,"),
        "{}",
        end_before_start.detail
    );
    assert!(end_before_start.file.ends_with("contradictory_times.csv"));

    let truncated = load("broken/truncated.csv").expect("loads");
    assert_eq!(truncated.jobs.height(), 2);
    assert_eq!(rejected(&truncated, RejectReason::UnparseableTime), 1);

    // 1e400 overflows to infinity: an infinite GPU count would make GPU-hours infinite.
    let infinite = load("broken/infinite_numbers.csv").expect("loads");
    assert_eq!(infinite.jobs.height(), 1);
    assert_eq!(rejected(&infinite, RejectReason::UnparseableNumber), 3);

    let mixed = load("broken/mixed_types.csv").expect("loads");
    // "four", an empty count and a NaN utilization; "NA" utilization is a missing value, kept.
    assert_eq!(mixed.jobs.height(), 3);
    assert_eq!(rejected(&mixed, RejectReason::UnparseableNumber), 3);
}

#[test]
fn odd_but_valid_files_load_whole() {
    let huge = load("broken/huge_line.csv").expect("a megabyte-long field loads");
    assert_eq!(huge.jobs.height(), 3);
    let latin1 = load("broken/latin1.csv").expect("wrong encoding still loads");
    assert_eq!(latin1.jobs.height(), 2);
    assert!(
        latin1.files[0].warnings.iter().any(|w| w.contains("not UTF-8")),
        "{:?}",
        latin1.files[0].warnings
    );
    let trailing = load("formats/trailing_commas.csv").expect("trailing commas");
    assert_eq!(trailing.jobs.height(), 2);
}

#[test]
fn duplicated_job_ids_are_attempts_of_one_job() {
    let logs = load("broken/duplicated_ids.csv").expect("loads");
    let report = audited(&logs);
    assert_eq!(report.runs_total, 4);
    assert_eq!(report.jobs_total, 2);
    // 8 GPUs × (10 + 9 + 4) hours for j1, 8 × 6 for j2.
    assert!(
        (report.gpu_hours_total - 232.0).abs() < 1e-9,
        "{}",
        report.gpu_hours_total
    );
}

#[test]
fn columns_empty_for_the_first_thousand_rows_still_load() {
    let logs = load("formats/late_values.csv").expect("loads");
    let report = audited(&logs);
    assert_eq!(report.jobs_total, 1200);
    // 1,100 jobs × 1 GPU × 2 h + 100 × 0.5 × 2 h; utilization only on the late rows.
    assert!((report.gpu_hours_total - 2300.0).abs() < 1e-9);
    let util = report.classes.training.mean_util_frac.expect("utilization reported");
    assert!((util - 0.55).abs() < 1e-12, "{util}");
}

#[test]
fn offsets_zone_names_and_epochs_become_utc() {
    // 10:00-12:00 PST is 18:00-20:00 UTC; 10:00-11:00 UTC.
    let zones = audited(&load("formats/offsets_and_zones.csv").expect("loads"));
    assert_eq!(zones.window.start, "2024-03-01T10:00:00Z");
    assert_eq!(zones.window.end, "2024-03-01T20:00:00Z");
    assert!((zones.gpu_hours_total - 3.0).abs() < 1e-9);
    // +02:00 and Z mixed in one column.
    let iso = audited(&load("formats/offsets_iso.csv").expect("loads"));
    assert_eq!(iso.rows_rejected_total, 0);
    assert!((iso.gpu_hours_total - 7.0).abs() < 1e-9, "{}", iso.gpu_hours_total);
    let epoch = audited(&load("formats/epoch_seconds.tsv").expect("loads"));
    assert_eq!(epoch.window.start, "2024-03-01T10:00:00Z");
    // The open-ended job runs to the window's end (censored, not dropped); labels give the classes.
    assert_eq!(epoch.classes.training.jobs, 1);
    assert_eq!(epoch.classes.inference.jobs, 1);
}

#[test]
fn kubernetes_pods_with_offsets_milli_gpus_and_censored_ends() {
    let text = std::fs::read_to_string(fixture("formats/k8s_pods.mapping.toml")).expect("mapping");
    let mapping: Mapping = toml::from_str(&text).expect("mapping parses");
    let logs = load_logs(
        &[fixture("formats/k8s_pods.csv")],
        None,
        Some(&mapping),
        gpuplan::data::readers::tabular::Detail::Full,
    )
    .expect("loads");
    let report = audited(&logs);
    assert_eq!(report.window.start, "2023-07-01T00:01:00Z");
    // pod 1: 0.5 GPU from 60 s to the window end at 7,300 s; pod 2: 1 GPU, 200-7,300 s;
    // pod 3: 2 GPUs × 1,000 milli, 300-3,900 s.
    let expected = 0.5 * 7240.0 / 3600.0 + 7100.0 / 3600.0 + 2.0;
    assert!(
        (report.gpu_hours_total - expected).abs() < 1e-9,
        "{}",
        report.gpu_hours_total
    );
    assert_eq!(report.clusters[0].name, "openb");
}

#[test]
fn headerless_files_take_their_names_from_the_header_file() {
    let logs = load("formats/pai_task_table.csv").expect("loads");
    assert_eq!(logs.jobs.height(), 3);
    assert!(
        logs.files[0]
            .warnings
            .iter()
            .any(|w| w.contains("pai_task_table.header"))
    );
    // plan_gpu is hundredths of a GPU per instance: 50 → 0.5; 200 × 2 instances → 4.
    let gpus: Vec<f64> = logs
        .jobs
        .column("gpus")
        .expect("gpus")
        .f64()
        .expect("f64")
        .into_no_null_iter()
        .collect();
    assert_eq!(gpus, vec![0.5, 4.0, 1.0]);
}

#[test]
fn slurm_sacct_counts_gpus_once_per_job() {
    let logs = load("slurm/sacct_steps_arrays.txt").expect("loads");
    assert_eq!(logs.files[0].format, "sacct");
    let report = audited(&logs);
    // Job 1004 ran on the CPU partition (its AllocTRES names no gres/gpu): counted apart.
    assert_eq!(report.jobs_total, 9);
    assert_eq!(logs.quarantine.counts.get(&RejectReason::CpuOnly), Some(&1));
}

#[test]
fn the_philly_trace_audits_as_the_issue_says() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/philly/jobs.json");
    if !path.exists() {
        eprintln!("skipped: {} is not beside the project", path.display());
        return;
    }
    let logs = load_logs(&[path], None, None, gpuplan::data::readers::tabular::Detail::Full).expect("Philly loads");
    assert_eq!(logs.files[0].format, "philly");
    let report = audited(&logs);
    assert_eq!(report.jobs_total, 3_034);
    // Attempts summed (the span from first start to last end would give 776,342).
    assert_eq!(report.gpu_hours_total.round(), 772_361.0);
    assert!(
        report.classes.training.gpu_hours_share >= 0.95,
        "{}",
        report.classes.training.gpu_hours_share
    );
}

/// Writes `rows` (CSV text with a header) as NDJSON and as hive-partitioned Parquet
/// (`cluster=<name>/part.parquet`), and checks all three load to the same totals.
#[test]
fn parquet_folders_and_ndjson_read_like_the_csv() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("jobs.csv");
    let mut text = String::from("job_id,cluster,name,queue,start,end,gpus,gpu_util_pct\n");
    for i in 0..40 {
        let cluster = if i % 2 == 0 { "east" } else { "west" };
        let hour = i % 20;
        text.push_str(&format!(
            "j{i},{cluster},train-{i},train,2024-03-01T{hour:02}:00:00Z,2024-03-01T{:02}:30:00Z,{},{}\n",
            hour + 2,
            1 + i % 4,
            50 + i
        ));
    }
    std::fs::write(&csv, &text).expect("csv");
    let from_csv = load_logs(
        std::slice::from_ref(&csv),
        None,
        None,
        gpuplan::data::readers::tabular::Detail::Full,
    )
    .expect("csv loads");

    let ndjson = dir.path().join("jobs.ndjson");
    let lines: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            format!(
                r#"{{"job_id":"{}","cluster":"{}","name":"{}","queue":"{}","start":"{}","end":"{}","gpus":{},"gpu_util_pct":{}}}"#,
                f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]
            )
        })
        .collect();
    std::fs::write(&ndjson, lines.join("\n") + "\n").expect("ndjson");
    let from_ndjson =
        load_logs(&[ndjson], None, None, gpuplan::data::readers::tabular::Detail::Full).expect("ndjson loads");

    let folder = dir.path().join("dataset");
    let mut frame = CsvReadOptions::default()
        .with_infer_schema_length(None)
        .try_into_reader_with_file_path(Some(csv))
        .and_then(|r| r.finish())
        .expect("read csv");
    for cluster in ["east", "west"] {
        let part_dir = folder.join(format!("cluster={cluster}"));
        std::fs::create_dir_all(&part_dir).expect("dir");
        let mut part = frame
            .clone()
            .lazy()
            .filter(col("cluster").eq(lit(cluster)))
            .drop(by_name(["cluster"], true, false))
            .collect()
            .expect("partition");
        let file = std::fs::File::create(part_dir.join("part-0.parquet")).expect("file");
        ParquetWriter::new(file).finish(&mut part).expect("write parquet");
    }
    frame.rechunk_mut();
    let from_parquet =
        load_logs(&[folder], None, None, gpuplan::data::readers::tabular::Detail::Full).expect("parquet folder loads");
    assert_eq!(from_parquet.files[0].format, "parquet");

    let totals = |logs: &LoadedLogs| {
        let r = audited(logs);
        (
            r.jobs_total,
            (r.gpu_hours_total * 1e6).round(),
            r.clusters.len(),
            r.classes.training.mean_util_frac.map(|u| (u * 1e9).round()),
        )
    };
    assert_eq!(totals(&from_csv), totals(&from_ndjson));
    assert_eq!(totals(&from_csv), totals(&from_parquet));
    assert_eq!(totals(&from_csv).2, 2);
}

/// The audit of logs read as `gpuplan audit` reads them (or in full detail), with the jobs
/// that never started and the largest jobs' names read back.
fn audited_as_cli(path: &str, mapping: Option<&Mapping>, full: bool) -> (LoadedLogs, AuditReport) {
    let rules = builtin().catalog.classification.expect("built-in rules");
    let detail = if full {
        gpuplan::data::readers::tabular::Detail::Full
    } else {
        gpuplan::data::readers::tabular::Detail::Audit(&rules)
    };
    let logs = load_logs(&[fixture(path)], None, mapping, detail).expect("loads");
    let report = gpuplan::data::audit::audit_loaded(&logs, &rules, &settings()).expect("audit");
    (logs, report)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn sacct_pending_jobs_are_pending_demand_by_class_not_rejected_rows() {
    let (logs, report) = audited_as_cli("slurm/sacct_pending.txt", None, false);
    assert_eq!(logs.quarantine.total(), 0);
    assert_eq!(report.rows_rejected_total, 0);
    assert_eq!(report.jobs_total, 2, "the started jobs only");
    use gpuplan::model::fleet::{PendingHoursBasis, class_pending_gpu_hours};
    use gpuplan::model::workload::WorkloadClass::{Burst, Inference, Training};
    let cluster = &report.clusters[0];
    // 2003: 64 GPUs × a 2-day limit. 2004: 1 GPU, no limit: waited 12 h to the window's end.
    // 2005_[1-3%2]: three tasks, 1 GPU × 1 h each. 2006 left the queue before the window.
    let training = cluster.pending.get(Training);
    assert_eq!((training.jobs, training.gpus), (1, 64.0));
    assert!(close(training.gpu_hours_requested, 64.0 * 48.0));
    assert_eq!(training.gpu_hours_basis, PendingHoursBasis::TimeLimit);
    let inference = cluster.pending.get(Inference);
    assert_eq!((inference.jobs, inference.gpus), (1, 1.0));
    assert!(close(inference.gpu_hours_requested, 12.0));
    assert_eq!(inference.gpu_hours_basis, PendingHoursBasis::WaitInWindow);
    let burst = cluster.pending.get(Burst);
    assert_eq!((burst.jobs, burst.gpus), (3, 3.0));
    assert!(close(burst.gpu_hours_requested, 3.0));
    assert_eq!(report.pending.jobs(), 5);
    assert!(close(class_pending_gpu_hours(&report, Training), 3072.0));
    // The largest jobs carry what sacct says of them.
    let top = report
        .top_jobs
        .iter()
        .find(|j| j.class == Training)
        .expect("a training job");
    assert_eq!(top.job_id.as_deref(), Some("2001"));
    assert_eq!(top.name.as_deref(), Some("pretrain-llama-70b"));
    assert_eq!(top.user.as_deref(), Some("alice"));
    assert_eq!(top.queue.as_deref(), Some("gpu/high"));
    assert_eq!(top.state.as_deref(), Some("COMPLETED"));
    assert_eq!(top.mean_util_frac, None, "the log has no utilization");
}

#[test]
fn a_pod_never_scheduled_is_pending_demand_and_one_never_created_is_rejected() {
    let text = std::fs::read_to_string(fixture("formats/k8s_pods.mapping.toml")).expect("mapping");
    let mapping: Mapping = toml::from_str(&text).expect("mapping parses");
    for full in [false, true] {
        let (logs, report) = audited_as_cli("formats/k8s_pods_pending.csv", Some(&mapping), full);
        // Pod 4: neither created nor scheduled: as before, an unparseable time.
        assert_eq!(rejected(&logs, RejectReason::UnparseableTime), 1);
        assert_eq!(report.rows_rejected_total, 1);
        assert_eq!(report.jobs_total, 2);
        // Pod 3: 2 × 1,000 milli-GPUs, created at second 3,000, never scheduled: it waited to the
        // window's end at second 7,300 (no time limit in a pod list). No rule on run hours
        // applies to it: the default rule, training.
        let pending = report.clusters[0]
            .pending
            .get(gpuplan::model::workload::WorkloadClass::Training);
        assert_eq!((pending.jobs, pending.gpus), (1, 2.0), "full detail: {full}");
        assert!(close(pending.gpu_hours_requested, 2.0 * 4300.0 / 3600.0));
        assert_eq!(report.pending.jobs(), 1);
        let pod = report
            .top_jobs
            .iter()
            .find(|j| j.job_id.as_deref() == Some("openb-pod-0001"))
            .expect("pod 1 among the largest");
        assert_eq!(pod.state.as_deref(), Some("Running"));
        assert_eq!(pod.queue.as_deref(), Some("LS"));
        assert_eq!(pod.name, None, "a pod list has no name column");
    }
}

#[test]
fn an_empty_start_beside_a_submit_time_is_pending_demand() {
    for full in [false, true] {
        let (logs, report) = audited_as_cli("formats/submit_no_start.csv", None, full);
        // a4: no submit, no start; a5: a start that does not read: both rejected as before.
        assert_eq!(rejected(&logs, RejectReason::UnparseableTime), 2, "full detail: {full}");
        assert_eq!(report.rows_rejected_total, 2);
        assert_eq!(report.jobs_total, 1);
        use gpuplan::model::workload::WorkloadClass::{Burst, Inference};
        let cluster = &report.clusters[0];
        // a2: 4 GPUs waiting from 12:00 to the window's end at 01:00 the next day.
        let inference = cluster.pending.get(Inference);
        assert_eq!((inference.jobs, inference.gpus), (1, 4.0));
        assert!(close(inference.gpu_hours_requested, 4.0 * 13.0));
        // a3: 2 GPUs × a 90-minute limit (bare numbers are minutes).
        let burst = cluster.pending.get(Burst);
        assert!(close(burst.gpu_hours_requested, 3.0));
        assert_eq!(burst.jobs_with_time_limit, 1);
        let top = &report.top_jobs[0];
        assert_eq!(
            (top.job_id.as_deref(), top.name.as_deref(), top.user.as_deref()),
            (Some("a1"), Some("train-llm"), Some("ana"))
        );
        assert_eq!(
            (top.queue.as_deref(), top.state.as_deref()),
            (Some("batch"), Some("COMPLETED"))
        );
    }
}

/// An AcmeTrace-shaped log (Shanghai AI Lab, NSDI '24: `trace_kalos.csv`'s columns) reads with
/// no mapping, and its own `type` labels decide the classes: Pretrain, SFT and MLLM train,
/// Evaluation and Debug are burst, Other falls to the rules; its numeric `queue` (waits) is not
/// read as queue names. The truth is summed here from the rows as written.
#[test]
fn an_acme_trace_is_classified_by_its_own_type_labels_and_its_waits_are_no_queue() {
    let home = tempfile::tempdir().expect("tempdir");
    let kinds = [
        ("Pretrain", 64.0_f64, 6.0 * 3600.0_f64, Some("training")),
        ("SFT", 8.0, 3.0 * 3600.0, Some("training")),
        ("MLLM", 16.0, 5.0 * 3600.0, Some("training")),
        // A 64-GPU, 6-hour evaluation: the rules alone call it training.
        ("Evaluation", 64.0, 6.0 * 3600.0, Some("burst")),
        ("Debug", 1.0, 600.0, Some("burst")),
        ("Other", 2.0, 1800.0, None),
    ];
    let origin = 1_682_899_200i64; // 2023-05-01 00:00:00 UTC
    let stamp = |s: i64| {
        chrono::DateTime::from_timestamp(s, 0)
            .expect("a time")
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()
    };
    let mut text =
        "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue\n".to_string();
    let mut labelled = std::collections::BTreeMap::<&str, f64>::new();
    for round in 0..20i64 {
        for (i, (kind, gpus, seconds, class)) in kinds.iter().enumerate() {
            let submit = origin + round * 7200 + i as i64 * 10;
            let start = submit + 300;
            let end = start + *seconds as i64;
            text.push_str(&format!(
                "dlc{round:03}{i},u{i},{},{gpus},{},{kind},COMPLETED,{},{},{},{seconds},300\n",
                (gpus / 8.0).ceil(),
                gpus * 4.0,
                stamp(submit),
                stamp(start),
                stamp(end),
            ));
            if let Some(class) = class {
                *labelled.entry(class).or_default() += gpus * seconds / 3600.0;
            }
        }
    }
    let log = home.path().join("trace_kalos.csv");
    std::fs::write(&log, text).expect("write the trace");
    let run = crate::common::gpuplan_in(
        home.path(),
        &["audit", log.to_str().expect("utf-8"), "--all-time", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let hours = |class: &str| report["classes"][class]["gpu_hours"].as_f64().expect("GPU-hours");
    assert!(
        (hours("training") - labelled["training"]).abs() < 1e-6,
        "{}",
        report["classes"]
    );
    // Burst: the labelled burst plus Other's 2-GPU half hours, which the rules call burst.
    let other = 20.0 * 2.0 * 0.5;
    assert!(
        (hours("burst") - labelled["burst"] - other).abs() < 1e-6,
        "{}",
        report["classes"]
    );
    assert_eq!(hours("inference"), 0.0);
    // Acme's `queue` holds the seconds each job waited: never read as a queue name.
    let jobs = report["top_jobs"].as_array().expect("top jobs");
    assert!(
        !jobs.is_empty() && jobs.iter().all(|j| j["queue"].is_null()),
        "{jobs:?}"
    );
    let warnings = report["inputs"][0]["warnings"].to_string();
    assert!(warnings.contains("recognised by its header as AcmeTrace"), "{warnings}");
    // The mapping `mapping init` writes is the one the audit used.
    let init = crate::common::gpuplan_in(home.path(), &["mapping", "init", log.to_str().expect("utf-8")]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(init.stdout.contains("label = \"type\""), "{}", init.stdout);
    assert!(!init.stdout.contains("queue = \"queue\""), "{}", init.stdout);
    assert!(init.stdout.contains("wait = \"queue\""), "{}", init.stdout);
    assert!(init.stdout.contains("cluster = \"kalos\""), "{}", init.stdout);
}
