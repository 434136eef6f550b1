//! The public GPU traces a planner tries first, each written here from its publisher's schema
//! (small fixtures: the full traces are large downloads) and audited with no mapping. The truth
//! of every figure is summed in the test from the rows as written, not from gpuplan.

use std::path::{Path, PathBuf};

use gpuplan::data::canonical as c;
use gpuplan::data::readers::load::load_logs;
use gpuplan::data::readers::tabular::Detail;

use crate::common::{Run, gpuplan_in};

fn audit_json(home: &Path, log: &Path) -> (serde_json::Value, Run) {
    let run = gpuplan_in(
        home,
        &["audit", log.to_str().expect("utf-8"), "--all-time", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    (serde_json::from_str(&run.stdout).expect("JSON"), run)
}

/// The audit's inputs say which trace the file was recognised as.
fn assert_recognised(run: &Run, how_and_trace: &str) {
    assert!(
        run.stderr.contains(&format!("recognised by {how_and_trace}")),
        "{}",
        run.stderr
    );
}

fn class_hours(report: &serde_json::Value, class: &str) -> f64 {
    report["classes"][class]["gpu_hours"].as_f64().expect("GPU-hours")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

fn write(path: PathBuf, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
    std::fs::write(&path, text).expect("write the fixture");
    path
}

fn stamp(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .expect("a time")
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

/// Each run's submit time as read (ms), by job id.
fn submits_by_job(log: &Path) -> std::collections::BTreeMap<String, Option<i64>> {
    let logs = load_logs(&[log.to_path_buf()], None, None, Detail::Full).expect("load");
    let ids = logs.jobs.column(c::JOB_ID).expect("ids").str().expect("text").clone();
    let submits = c::int64_column(&logs.jobs, c::SUBMIT).expect("submits");
    (0..logs.jobs.height())
        .map(|row| (ids.get(row).expect("id").to_string(), submits.get(row)))
        .collect()
}

/// Helios: `<Cluster>/cluster_log.csv`, Slurm-like, `vc` a team's virtual cluster, `queue`
/// the seconds waited, CPU jobs with `gpu_num` 0.
#[test]
fn a_helios_cluster_log_reads_its_cluster_from_the_folder_and_its_queue_as_waits() {
    let home = tempfile::tempdir().expect("tempdir");
    let origin = 1_585_699_200i64; // 2020-04-01
    let mut text =
        "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n".to_string();
    let mut gpu_hours = 0.0;
    for job in 0..30i64 {
        let gpus = [0, 1, 8, 16][job as usize % 4];
        let wait = job * 37 % 900;
        let submit = origin + job * 3_000;
        let start = submit + wait;
        let seconds = 600 + job * 450;
        gpu_hours += gpus as f64 * seconds as f64 / 3600.0;
        text.push_str(&format!(
            "{job},u{},vc{},{gpus},{},{},COMPLETED,{},{},{},{seconds},{wait}\n",
            job % 5,
            job % 3,
            gpus * 4 + 2,
            (gpus + 7) / 8,
            stamp(submit),
            stamp(start),
            stamp(start + seconds)
        ));
    }
    let log = write(home.path().join("helios/Venus/cluster_log.csv"), &text);
    let (report, run) = audit_json(home.path(), &log);
    assert_recognised(&run, "its header as Helios");
    assert!(
        close(report["gpu_hours_total"].as_f64().expect("total"), gpu_hours),
        "{}",
        report["gpu_hours_total"]
    );
    let clusters: Vec<&str> = report["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    assert_eq!(clusters, ["Venus"]);
    // Submitted = the submit time as written; its queue agrees, so no warning.
    assert!(!run.stderr.contains("differs from start"), "{}", run.stderr);
    for (job, submit) in submits_by_job(&log) {
        let job_number: i64 = job.parse().expect("a number");
        assert_eq!(submit, Some((origin + job_number * 3_000) * 1_000), "job {job}");
    }
}

/// openb (Alibaba GPU 2023, Kubernetes): `gpu_milli` thousandths of each of `num_gpu` GPUs,
/// `qos` LS serving and BE best-effort, times in seconds from the trace's start, a pod never
/// scheduled has no `scheduled_time`.
#[test]
fn an_openb_pod_list_counts_shared_gpus_and_reads_its_qos_as_classes() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
        .to_string();
    let (mut ls_hours, mut be_hours) = (0.0, 0.0);
    for pod in 0..40i64 {
        let (num_gpu, milli) = [(1, 1000), (1, 460), (2, 1000), (1, 250), (8, 1000)][pod as usize % 5];
        let qos = if pod % 2 == 0 { "LS" } else { "BE" };
        let created = pod * 5_000;
        let scheduled = created + 30;
        // Long enough for the rules never to matter: the label decides.
        let deleted = scheduled + 40_000 + pod * 1_000;
        let hours = num_gpu as f64 * milli as f64 / 1000.0 * (deleted - scheduled) as f64 / 3600.0;
        if qos == "LS" {
            ls_hours += hours;
        } else {
            be_hours += hours;
        }
        text.push_str(&format!(
            "openb-pod-{pod:04},8000,30517,{num_gpu},{milli},,{qos},Running,{created},{deleted},{scheduled}\n"
        ));
    }
    // Never placed: pending demand, no GPU-hours.
    text.push_str("openb-pod-9999,8000,30517,1,1000,,LS,Pending,100000,100500,\n");
    let log = write(home.path().join("openb_pod_list_default.csv"), &text);
    let (report, run) = audit_json(home.path(), &log);
    assert_recognised(&run, "its header as Alibaba GPU 2023");
    assert!(
        close(class_hours(&report, "inference"), ls_hours),
        "{}",
        report["classes"]
    );
    assert!(close(class_hours(&report, "burst"), be_hours), "{}", report["classes"]);
    assert_eq!(class_hours(&report, "training"), 0.0);
    assert_eq!(
        report["pending"]["inference"]["jobs"].as_u64(),
        Some(1),
        "{}",
        report["pending"]
    );
}

fn pai_task_rows() -> (String, f64, usize) {
    let mut text = String::new();
    let mut gpu_hours = 0.0;
    let mut jobs = std::collections::BTreeSet::new();
    for job in 0..12u64 {
        let name = format!("{:024x}", 0x9f5d_5b4e_43d6_c0a1u64 * (job + 1));
        jobs.insert(name.clone());
        let start = 5_600_000.0 + job as f64 * 7_200.0;
        for (task, inst, plan_gpu) in [("worker", 4.0, 50.0), ("ps", 2.0, f64::NAN), ("evaluator", 1.0, 100.0)] {
            let end = start + 3_600.0 * (1.0 + job as f64);
            let gpu = if plan_gpu.is_nan() {
                String::new()
            } else {
                gpu_hours += inst * plan_gpu / 100.0 * (end - start) / 3600.0;
                format!("{plan_gpu:.1}")
            };
            text.push_str(&format!(
                "{name},{task},{inst:.1},Terminated,{start:.1},{end:.1},600.0,29.296875,{gpu},{}\n",
                if gpu.is_empty() { "" } else { "V100" }
            ));
        }
    }
    (text, gpu_hours, jobs.len())
}

/// PAI's tasks with an empty `plan_gpu`: CPU-only.
fn pai_cpu_tasks(text: &str) -> u64 {
    text.lines().filter(|line| line.split(',').nth(8) == Some("")).count() as u64
}

/// PAI 2020's task table has no header: known by its ten columns and their values; GPUs are
/// `plan_gpu` hundredths × `inst_num` instances; times are seconds from the trace's origin;
/// parameter-server tasks hold no GPU.
#[test]
fn a_headerless_pai_task_table_is_read_as_published() {
    let home = tempfile::tempdir().expect("tempdir");
    let (text, gpu_hours, jobs) = pai_task_rows();
    let log = write(home.path().join("pai/pai_task_table.csv"), &text);
    let (report, run) = audit_json(home.path(), &log);
    assert_recognised(&run, "its 10 unnamed columns and their values as Alibaba PAI 2020");
    assert!(
        close(report["gpu_hours_total"].as_f64().expect("total"), gpu_hours),
        "{}",
        report["gpu_hours_total"]
    );
    assert_eq!(report["jobs_total"].as_u64(), Some(jobs as u64));
    // A parameter server's empty plan_gpu is a CPU-only task, not a bad row: set apart under
    // its own reason, out of every GPU figure.
    let cpu_only = pai_cpu_tasks(&text);
    assert!(cpu_only > 0);
    assert_eq!(
        report["rows_rejected"]
            .as_object()
            .map(|r| r.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["cpu_only".to_string()]),
        "{}",
        report["rows_rejected"]
    );
    assert_eq!(report["rows_rejected"]["cpu_only"].as_u64(), Some(cpu_only));
    // Second 5,600,000 (64 days 19:33:20) from the nominal origin 2020-07-02T00:00:00Z: a
    // Friday, as 1970-01-01 + 5,600,000 s is.
    assert_eq!(
        report["window"]["start"].as_str(),
        Some("2020-09-04T19:33:20Z"),
        "{}",
        report["window"]
    );
    // The same table with its header file beside it reads the same.
    std::fs::write(
        log.with_extension("header"),
        "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type\n",
    )
    .expect("header");
    let (with_header, _) = audit_json(home.path(), &log);
    assert_eq!(with_header["gpu_hours_total"], report["gpu_hours_total"]);
    // A zero time is missing, as PAI's own analysis takes it: the task is set aside, not run
    // from the trace's origin.
    let zero = write(
        home.path().join("zero/pai_task_table.csv"),
        &format!("{text}ffffffffffffffffffff0001,worker,1.0,Terminated,0.0,5700000.0,600.0,29.3,100.0,T4\n"),
    );
    let (with_zero, _) = audit_json(home.path(), &zero);
    assert_eq!(
        with_zero["rows_rejected"]["unparseable_time"].as_u64(),
        Some(1),
        "{}",
        with_zero["rows_rejected"]
    );
    assert_eq!(with_zero["gpu_hours_total"], report["gpu_hours_total"]);
}

#[test]
fn pai_s_job_table_is_refused_with_the_table_to_audit() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = write(
        home.path().join("pai_job_table.csv"),
        "4f057009a5d481acec67b088,1d8dd4e7b0fb3e7eb0ad7fa9,58540f191766,Terminated,5600845.0,5601254.0\n",
    );
    let run = gpuplan_in(home.path(), &["audit", log.to_str().expect("utf-8"), "--all-time"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("has no GPU counts: audit pai_task_table.csv"),
        "{}",
        run.stderr
    );
}

/// `mapping init` prints, to standard output, the mapping each trace was audited with.
#[test]
fn mapping_init_prints_the_mapping_each_trace_is_read_with() {
    let home = tempfile::tempdir().expect("tempdir");
    let (pai, _, _) = pai_task_rows();
    let cases = [
        (
            write(
                home.path().join("Saturn/cluster_log.csv"),
                "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n\
                 1,u,vc1,8,8,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:01:00,2020-04-01 01:01:00,3600,60\n",
            ),
            vec!["queue = \"vc\"", "wait = \"queue\"", "cluster = \"Saturn\""],
        ),
        (
            write(
                home.path().join("openb_pod_list_gpuspec33.csv"),
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
                 openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0\n",
            ),
            vec![
                "gpus = \"gpu_milli\"",
                "gpu_multiplier = \"num_gpu\"",
                "qos = \"qos\"",
                "time = \"offset-s\"",
            ],
        ),
        (
            write(home.path().join("pai_task_table.csv"), &pai),
            vec![
                "has_header = false",
                "gpus = \"plan_gpu\"",
                "gpus = \"percent\"",
                "gpu_multiplier = \"inst_num\"",
            ],
        ),
    ];
    for (log, expected) in cases {
        let run = gpuplan_in(
            home.path(),
            &["mapping", "init", log.to_str().expect("utf-8"), "-o", "-"],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        for line in expected {
            assert!(run.stdout.contains(line), "{}: {line}\n{}", log.display(), run.stdout);
        }
        // Every column the trace's layout reads says why.
        let read: Vec<&str> = run
            .stdout
            .lines()
            .skip_while(|l| *l != "[columns]")
            .take_while(|l| *l != "[constants]")
            .filter(|l| {
                ["job_id", "start", "end", "gpus"]
                    .iter()
                    .any(|f| l.starts_with(&format!("{f} = ")))
            })
            .collect();
        assert_eq!(read.len(), 4, "{}", run.stdout);
        for line in read {
            assert!(line.contains("  # "), "no reason: {line}");
        }
        // And the mapping it prints reads the log to the same figures.
        let mapping = home.path().join("printed.toml");
        std::fs::write(&mapping, &run.stdout).expect("write the mapping");
        let (with, _) = audit_json_with_mapping(home.path(), &log, &mapping);
        let (without, _) = audit_json(home.path(), &log);
        assert_eq!(with["gpu_hours_total"], without["gpu_hours_total"], "{}", log.display());
        assert_eq!(with["classes"], without["classes"], "{}", log.display());
    }
}

fn audit_json_with_mapping(home: &Path, log: &Path, mapping: &Path) -> (serde_json::Value, Run) {
    let run = gpuplan_in(
        home,
        &[
            "audit",
            log.to_str().expect("utf-8"),
            "--mapping",
            mapping.to_str().expect("utf-8"),
            "--all-time",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    (serde_json::from_str(&run.stdout).expect("JSON"), run)
}

/// A log of no known trace whose `queue` holds numbers: the seconds waited. With no submit
/// column, submitted = started − wait; with one, the two are checked and a disagreement told.
#[test]
fn a_numeric_queue_is_a_wait_giving_the_submit_time_or_checked_against_it() {
    let home = tempfile::tempdir().expect("tempdir");
    let origin = 1_700_000_000i64;
    let mut without_submit = "id,gpus,started,ended,queue\n".to_string();
    let mut with_submit = "id,gpus,submitted,started,ended,queue\n".to_string();
    for job in 0..10i64 {
        let start = origin + job * 1_000;
        let wait = job * 90;
        without_submit.push_str(&format!("j{job},2,{},{},{wait}\n", stamp(start), stamp(start + 3_600)));
        // Job 3's queue says 270 s, its times 570 s.
        let submitted = if job == 3 { start - wait - 300 } else { start - wait };
        with_submit.push_str(&format!(
            "j{job},2,{},{},{},{wait}\n",
            stamp(submitted),
            stamp(start),
            stamp(start + 3_600)
        ));
    }
    let log = write(home.path().join("fleet.csv"), &without_submit);
    for (job, submit) in submits_by_job(&log) {
        let n: i64 = job[1..].parse().expect("a number");
        assert_eq!(submit, Some((origin + n * 1_000 - n * 90) * 1_000), "{job}");
    }
    let (_, run) = audit_json(home.path(), &log);
    assert!(run.stderr.contains("submitted = started − wait"), "{}", run.stderr);
    let log = write(home.path().join("fleet2.csv"), &with_submit);
    let (_, run) = audit_json(home.path(), &log);
    assert!(
        run.stderr
            .contains("differs from start − submit by over a minute on 1 of 10 rows"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("(first at line 5)"), "{}", run.stderr);
}

/// A label the vocabulary lacks is listed with its jobs and GPU-hours; Other is not.
#[test]
fn labels_the_vocabulary_lacks_are_reported_with_their_jobs_and_gpu_hours() {
    let home = tempfile::tempdir().expect("tempdir");
    let origin = 1_700_000_000i64;
    let mut text = "job_id,gpu_num,type,start_time,end_time\n".to_string();
    let mut rollout = (0u64, 0.0);
    for job in 0..24i64 {
        let (label, gpus) = [("Pretrain", 8.0), ("Rollout", 4.0), ("rollout", 2.0), ("Other", 1.0)][job as usize % 4];
        let seconds = 1_800 + job * 600;
        if label.eq_ignore_ascii_case("rollout") {
            rollout.0 += 1;
            rollout.1 += gpus * seconds as f64 / 3600.0;
        }
        text.push_str(&format!(
            "{job},{gpus},{label},{},{}\n",
            stamp(origin + job * 60),
            stamp(origin + job * 60 + seconds)
        ));
    }
    let log = write(home.path().join("labelled.csv"), &text);
    let (report, _) = audit_json(home.path(), &log);
    let unknown = report["unknown_labels"].as_array().expect("unknown labels");
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert_eq!(unknown[0]["label"].as_str(), Some("Rollout"));
    assert_eq!(unknown[0]["jobs"].as_u64(), Some(rollout.0));
    assert!(
        close(unknown[0]["gpu_hours"].as_f64().expect("hours"), rollout.1),
        "{unknown:?}"
    );
    let text_report = gpuplan_in(home.path(), &["audit", log.to_str().expect("utf-8"), "--all-time"]);
    assert!(
        text_report
            .stdout
            .contains("Labels in the log that [labels] does not know"),
        "{}",
        text_report.stdout
    );
}

/// AcmeTrace as published: Kalos adds memory, failure and stop columns and `gpu_time`, its times
/// carry an offset (`+00:00` in Kalos, `+08:00` in Seren).
#[test]
fn acme_s_published_kalos_and_seren_layouts_are_read_with_their_offsets() {
    let home = tempfile::tempdir().expect("tempdir");
    let kalos = write(
        home.path().join("trace_kalos.csv"),
        "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time\n\
         dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Pretrain,FAILED,2023-05-17 11:00:58+00:00,2023-05-17 11:01:08+00:00,2023-05-17 13:01:08+00:00,2023-05-17 13:01:08+00:00,,7200,10.0,460800.0\n\
         dlc1t2ypl09b8qtp,uf794,1,8,960,1000,100.0,Evaluation,CANCELLED,2023-05-17 11:28:42+00:00,2023-05-17 11:28:54+00:00,2023-05-17 11:58:54+00:00,,2023-05-17 11:58:54+00:00,1800,12.0,14400.0\n",
    );
    let (report, run) = audit_json(home.path(), &kalos);
    assert_recognised(&run, "its header as AcmeTrace");
    assert!(
        close(class_hours(&report, "training"), 64.0 * 2.0),
        "{}",
        report["classes"]
    );
    assert!(close(class_hours(&report, "burst"), 8.0 * 0.5), "{}", report["classes"]);
    assert_eq!(report["clusters"][0]["name"].as_str(), Some("kalos"));
    let seren = write(
        home.path().join("trace_seren.csv"),
        "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n\
         5778469,u5907,1,8,128,SFT,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,13,21544.0\n",
    );
    let (report, _) = audit_json(home.path(), &seren);
    // 00:24:11 at +08:00 is 16:24:11 UTC the day before.
    assert_eq!(
        report["window"]["start"].as_str(),
        Some("2023-02-28T16:24:11Z"),
        "{}",
        report["window"]
    );
    assert!(
        close(class_hours(&report, "training"), 8.0 * 2693.0 / 3600.0),
        "{}",
        report["classes"]
    );
    assert_eq!(report["clusters"][0]["name"].as_str(), Some("seren"));
}

/// A slice of Alibaba's GPU-disaggregated DLRM 2025 trace as published (every 60th instance,
/// tests/fixtures/dlrm-2025): read with no mapping and no flag, its seconds anchored at the
/// stated origin, an empty scheduled time read as the trace's first instant (left-censored),
/// an empty deletion time as its last (right-censored), its CPU-node instances counted apart.
/// The GPU-hours equal the same rows anchored by hand, here, within 1 %.
#[test]
fn the_raw_dlrm_2025_trace_is_anchored_censored_at_its_edges_and_its_cpu_pods_kept_apart() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dlrm-2025/disaggregated_DLRM_trace.csv");
    let text = std::fs::read_to_string(&fixture).expect("fixture");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (gpu, scheduled, deleted) = (at("gpu_request"), at("scheduled_time"), at("deletion_time"));
    let seconds = |v: &str| (!v.is_empty() && v != "NaN").then(|| v.parse::<f64>().expect("seconds"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let last = rows
        .iter()
        .flat_map(|r| [at("creation_time"), scheduled, deleted].map(|i| seconds(r[i])))
        .flatten()
        .fold(0.0, f64::max);
    let (mut gpu_hours, mut gpu_rows, mut cpu_rows, mut left, mut right) = (0.0, 0u64, 0u64, 0, 0);
    for row in &rows {
        let gpus: f64 = row[gpu].parse().expect("gpus");
        if gpus == 0.0 {
            cpu_rows += 1;
            continue;
        }
        gpu_rows += 1;
        let start = seconds(row[scheduled]).unwrap_or_else(|| {
            left += 1;
            0.0
        });
        let end = seconds(row[deleted]).unwrap_or_else(|| {
            right += 1;
            last
        });
        gpu_hours += gpus * (end - start) / 3600.0;
    }
    assert!(
        left > 0 && right > 0,
        "the slice holds censored instances of both kinds"
    );

    let home = tempfile::tempdir().expect("tempdir");
    let (report, run) = audit_json(home.path(), &fixture);
    assert_recognised(&run, "its header as Alibaba GPU-disaggregated DLRM 2025");
    assert!(!run.stdout.contains("1970"), "{}", run.stdout);
    assert_eq!(report["window"]["start"].as_str(), Some("2025-01-06T00:00:00Z"));
    assert_eq!(
        report["jobs_total"].as_u64(),
        Some(gpu_rows),
        "every GPU instance, censored ones too"
    );
    assert_eq!(report["rows_rejected"]["cpu_only"].as_u64(), Some(cpu_rows));
    let audited = report["gpu_hours_total"].as_f64().expect("GPU-hours");
    assert!(
        (audited - gpu_hours).abs() <= 0.01 * gpu_hours,
        "audited {audited:.1} GPU-hours against {gpu_hours:.1} anchored by hand"
    );
    // Every instance serves (the trace's README): no training, no burst.
    assert!(
        close(class_hours(&report, "inference"), audited),
        "{}",
        report["classes"]
    );
    // `--time-origin` moves second 0.
    let moved = gpuplan_in(
        home.path(),
        &[
            "audit",
            fixture.to_str().expect("utf-8"),
            "--all-time",
            "--time-origin",
            "2025-03-03",
            "--format",
            "json",
        ],
    );
    let moved: serde_json::Value = serde_json::from_str(&moved.stdout).expect("JSON");
    assert_eq!(moved["window"]["start"].as_str(), Some("2025-03-03T00:00:00Z"));
    assert_eq!(moved["gpu_hours_total"], report["gpu_hours_total"]);
}

/// A node list beside the pods (openb's `openb_node_list_gpu_node.csv` layout: `sn,
/// cpu_milli, memory_mib, gpu, model`) gives the cluster its capacity and prices it by what it
/// runs on: each model at the catalog's list price, GPU-weighted, a model the catalog cannot
/// price (openb's G2) at the stated fallback and named; the board says how much of its saving
/// rests on those assumed prices. CPU nodes count for nothing.
#[test]
fn a_node_list_beside_the_pods_prices_the_cluster_by_its_accelerators() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut pods = String::from(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n",
    );
    for pod in 0..20 {
        let start = 3_600 * pod;
        pods.push_str(&format!(
            "openb-pod-{pod:04},8000,30517,2,1000,,LS,Running,{start},{},{start}\n",
            start + 36_000
        ));
    }
    let pods = write(home.path().join("openb_pod_list_default.csv"), &pods);
    let nodes = write(
        home.path().join("openb_node_list_gpu_node.csv"),
        "sn,cpu_milli,memory_mib,gpu,model\n\
         openb-node-0000,64000,262144,8,T4\n\
         openb-node-0001,64000,262144,8,T4\n\
         openb-node-0002,96000,786432,8,G2\n\
         openb-node-0003,96000,786432,0,\n",
    );
    let (alone, _) = audit_json(home.path(), &pods);
    let run = gpuplan_in(
        home.path(),
        &[
            "audit",
            pods.to_str().expect("utf-8"),
            nodes.to_str().expect("utf-8"),
            "--all-time",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let with_nodes: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let cluster = &with_nodes["clusters"][0];
    assert_eq!(cluster["capacity_source"], "node list", "{cluster}");
    assert_eq!(cluster["capacity_gpus"].as_f64(), Some(24.0), "three GPU nodes of 8");
    assert_eq!(cluster["priced_as"], "t4");
    let t4 = 0.526;
    let fallback = 12.29;
    let weighted = (16.0 * t4 + 8.0 * fallback) / 24.0;
    assert!(
        (cluster["usd_per_gpu_hour"].as_f64().expect("price") - weighted).abs() < 1e-9,
        "{cluster}"
    );
    let source = cluster["price_source"].as_str().expect("source");
    assert!(
        source.contains("8 G2 at the fallback $12.29 (not in the catalog)"),
        "{source}"
    );
    // A line per model, the pods (naming none) spread over them by their GPUs.
    let models = cluster["models"].as_array().expect("models");
    let lines: Vec<(&str, f64)> = models
        .iter()
        .map(|m| (m["model"].as_str().unwrap_or(""), m["gpus"].as_f64().unwrap_or(0.0)))
        .collect();
    assert_eq!(lines, [("T4", 16.0), ("G2", 8.0)], "{cluster}");
    let hours: f64 = models.iter().map(|m| m["gpu_hours"].as_f64().unwrap_or(0.0)).sum();
    assert!(
        (hours - cluster["gpu_hours"].as_f64().unwrap_or(0.0)).abs() < 1e-6,
        "{cluster}"
    );
    assert!(
        cluster["models_spread"]
            .as_str()
            .is_some_and(|s| s.contains("by their GPUs")),
        "{cluster}"
    );
    // The jobs are the pods' alone: the node list adds none.
    assert_eq!(with_nodes["jobs_total"], alone["jobs_total"]);
    assert_eq!(with_nodes["gpu_hours_total"], alone["gpu_hours_total"]);
    assert_ne!(alone["clusters"][0]["usd_per_gpu_hour"], cluster["usd_per_gpu_hour"]);
    // The board says what of its saving rests on those assumed prices.
    let report = gpuplan_in(
        home.path(),
        &[
            "report",
            "--logs",
            pods.to_str().expect("utf-8"),
            nodes.to_str().expect("utf-8"),
            "--format",
            "json",
        ],
    );
    assert_eq!(report.code, 0, "{}", report.stderr);
    let report: serde_json::Value = serde_json::from_str(&report.stdout).expect("JSON");
    assert_eq!(
        report["waterfall"]["assumed_prices"]["clusters"],
        serde_json::json!(["openb_pod_list_default"])
    );
    // The node list is an input; the replay runs on the fleet it gives (a pool of an
    // accelerator no offer prices is its peak at today's price, never a pool of nothing); the
    // G2 GPUs at the fallback rate are a driver of the range, on today's side.
    let inputs = report["inputs"].as_array().expect("inputs");
    assert!(inputs.iter().any(|i| i["format"] == "node-list"), "{inputs:?}");
    let steps = report["waterfall"]["steps"].as_array().expect("steps");
    assert!(
        steps[3]["usd_per_month"].as_f64().is_some(),
        "the replay ran: {}",
        steps[3]
    );
    let drivers = report["waterfall"]["drivers"].as_array().expect("drivers");
    let unstated = drivers
        .iter()
        .find(|d| d["driver"] == "unstated_prices")
        .expect("the unstated prices' driver");
    assert!(
        unstated["basis"].as_str().is_some_and(|b| b.contains("G2")),
        "{unstated}"
    );
    assert!(unstated["spread"]["low"].as_f64().unwrap_or(1.0) < 0.5, "{unstated}");
}
