use chrono::NaiveDateTime;

use super::values::{Gpus, gpus_from_gres, gpus_from_tres};
use super::*;
use crate::data::canonical::frame_from_runs;

const FIXTURE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/slurm/sacct_steps_arrays.txt"
));

fn read(text: &str) -> SacctLog {
    read_sacct_detailed(Path::new("sacct.txt"), text, "default").expect("readable")
}

fn ms(iso: &str) -> i64 {
    NaiveDateTime::parse_from_str(iso, "%Y-%m-%dT%H:%M:%S")
        .expect("test time")
        .and_utc()
        .timestamp_millis()
}

fn run<'a>(log: &'a SacctLog, job_id: &str) -> &'a JobRun {
    log.runs.iter().find(|r| r.job_id == job_id).expect("job present")
}

#[test]
fn fixture_counts_gpus_once_per_job() {
    let log = read(FIXTURE);
    let ids: Vec<&str> = log.runs.iter().map(|r| r.job_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "1001", "1002", "1003", "1004", "1005", "3001_7", "3001_8", "1006", "1009", "1010"
        ]
    );
    let total_gpus: f64 = log.runs.iter().map(|r| r.gpus).sum();
    assert_eq!(total_gpus, 8.0 + 16.0 + 4.0 + 0.0 + 8.0 + 1.0 + 1.0 + 2.0 + 2.0 + 8.0);
    // The pending array 3001_[9-12] (four tasks) and 1008 are pending demand, with no GPUs on record.
    assert_eq!(log.not_started, 0);
    assert_eq!(log.pending.len(), 5);
    assert!(log.pending.iter().all(|j| j.gpus == 0.0));
    assert_eq!(log.step_rows_folded, 12);
    assert_eq!(log.quarantine.total(), 1);
    assert_eq!(run(&log, "1001").gpu_type.as_deref(), Some("h100"));
    assert_eq!(run(&log, "1002").gpu_type.as_deref(), Some("a100"));
    assert_eq!(run(&log, "1002").state.as_deref(), Some("CANCELLED"));
    assert_eq!(run(&log, "1002").queue.as_deref(), Some("gpu/normal"));
    assert_eq!(run(&log, "1003").end_ms, None);
    assert_eq!(run(&log, "1005").end_ms, Some(ms("2024-03-03T12:01:00")));
    assert_eq!(run(&log, "1006").source_line, 20);
    assert_eq!(run(&log, "1009").gpus, 2.0);
    let frame = frame_from_runs(&log.runs).expect("frame");
    assert_eq!(frame.height(), 10);
}

#[test]
fn malformed_line_is_quarantined_with_its_line_number() {
    let log = read(FIXTURE);
    assert_eq!(log.quarantine.counts[&RejectReason::MalformedRow], 1);
    let sample = &log.quarantine.samples[0];
    assert_eq!(sample.line, 22);
    assert_eq!(sample.file, "sacct.txt");
    assert!(sample.detail.contains("expected 12"), "{}", sample.detail);
}

#[test]
fn node_lists_map_hosts_to_their_cluster_and_bad_lists_name_their_line() {
    let text = "JobID|Cluster|Start|End|AllocTRES|NodeList\n\
                1|east|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=16|gpu[001-002]\n\
                2|west|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=8|a[1-2]-b[3-4],GPU001\n\
                3|west|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=8|gpu[7-\n\
                4|west|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=0|None assigned\n";
    let log = read(text);
    assert_eq!(log.runs.len(), 4, "a bad host list costs the mapping, not the job");
    let hosts: Vec<(&str, &str)> = log.hosts.iter().map(|(h, c)| (h.as_str(), c.as_str())).collect();
    assert_eq!(
        hosts,
        [
            ("a1-b3", "west"),
            ("a1-b4", "west"),
            ("a2-b3", "west"),
            ("a2-b4", "west"),
            ("gpu001", "east"),
            ("gpu002", "east")
        ]
    );
    assert_eq!(log.host_problems.len(), 2, "{:?}", log.host_problems);
    assert!(
        log.host_problems[0].starts_with("sacct.txt:3: host gpu001 ran jobs of clusters east and west"),
        "{:?}",
        log.host_problems
    );
    assert!(
        log.host_problems[1].starts_with("sacct.txt:4: column NodeList \"gpu[7-\": unclosed '['"),
        "{:?}",
        log.host_problems
    );
}

#[test]
fn submit_times_are_kept_when_they_precede_the_start() {
    let text = "JobID|Submit|Start|End|AllocTRES\n\
                1|2024-03-01T09:30:00|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=1\n\
                2|Unknown|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=1\n\
                3|2024-03-01T10:30:00|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=1\n";
    let log = read(text);
    assert_eq!(run(&log, "1").submit_ms, Some(ms("2024-03-01T09:30:00")));
    assert_eq!(run(&log, "2").submit_ms, None);
    assert_eq!(
        run(&log, "3").submit_ms,
        None,
        "a submit after the start is not believed"
    );
}

#[test]
fn gpu_utilization_comes_from_the_steps_tres_usage() {
    let text = "JobID|Start|End|AllocTRES|TRESUsageInAve\n\
                10|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=4|\n\
                10.batch|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=4|cpu=00:01:00,gres/gpumem=30G,gres/gpuutil=240\n\
                10.0|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=4|gres/gpuutil=320,gres/gpumem=40G\n\
                11|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=1|gres/gpuutil=45\n\
                12|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=1|cpu=00:01:00\n";
    let log = read(text);
    // 240 and 320 over 4 GPUs: 60 % and 80 %, the steps' mean 70 %.
    let util = |id: &str| run(&log, id).gpu_util_frac;
    assert!((util("10").expect("measured") - 0.7).abs() < 1e-12);
    assert_eq!(util("11"), Some(0.45));
    assert_eq!(util("12"), None);
}

#[test]
fn steps_fold_into_their_allocation() {
    let text = "JobID|State|Start|End|AllocTRES\n\
                123|COMPLETED|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=4\n\
                123.batch|COMPLETED|2024-03-01T10:00:00|2024-03-01T11:00:00|cpu=8,gres/gpu=4\n\
                123.extern|COMPLETED|2024-03-01T10:00:00|2024-03-01T11:00:00|cpu=8,gres/gpu=4\n\
                123.0|COMPLETED|2024-03-01T10:00:05|2024-03-01T10:59:00|cpu=8,gres/gpu=4\n";
    let log = read(text);
    assert_eq!(log.runs.len(), 1);
    assert_eq!(log.runs[0].source_line, 2);
    assert_eq!(log.step_rows_folded, 3);
}

#[test]
fn a_job_seen_only_through_steps_counts_once_from_its_first_step() {
    let text = "JobID|State|Start|End|AllocTRES\n\
                77.batch|COMPLETED|2024-03-01T10:00:00|2024-03-01T11:00:00|cpu=8,gres/gpu=2\n\
                77.0|COMPLETED|2024-03-01T10:00:05|2024-03-01T10:59:00|cpu=8,gres/gpu=2\n";
    let log = read(text);
    assert_eq!(log.runs.len(), 1);
    assert_eq!(log.runs[0].job_id, "77");
    assert_eq!(log.runs[0].source_line, 2);
    assert_eq!(log.runs[0].gpus, 2.0);
}

#[test]
fn array_tasks_are_distinct_jobs() {
    let text = "JobID|State|Start|End|AllocTRES\n\
                3001_7|COMPLETED|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=1\n\
                3001_7.batch|COMPLETED|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=1\n\
                3001_8|COMPLETED|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=1\n\
                3001_[9-12]|PENDING|Unknown|Unknown|\n";
    let log = read(text);
    let ids: Vec<&str> = log.runs.iter().map(|r| r.job_id.as_str()).collect();
    assert_eq!(ids, ["3001_7", "3001_8"]);
    let pending: Vec<&str> = log.pending.iter().map(|j| j.job_id.as_str()).collect();
    assert_eq!(pending, ["3001_9", "3001_10", "3001_11", "3001_12"]);
    assert_eq!(log.not_started, 0);
}

#[test]
fn unknown_end_is_censored_while_running_and_derived_from_elapsed_when_over() {
    let text = "JobID|State|Start|End|ElapsedRaw\n\
                1|RUNNING|2024-03-01T10:00:00|Unknown|3600\n\
                2|NODE_FAIL|2024-03-01T10:00:00|Unknown|3600\n\
                3|FAILED|2024-03-01T10:00:00|None|\n";
    let log = read(text);
    assert_eq!(run(&log, "1").end_ms, None);
    assert_eq!(run(&log, "2").end_ms, Some(ms("2024-03-01T11:00:00")));
    assert_eq!(run(&log, "3").end_ms, None);
}

#[test]
fn pending_jobs_are_pending_demand_not_rejected() {
    let text = "JobID|State|Start|End\n5|PENDING|Unknown|Unknown\n6|CANCELLED by 0|None|2024-03-01T10:00:00\n";
    let log = read(text);
    assert!(log.runs.is_empty());
    assert_eq!(log.pending.len(), 1, "the pending job waits");
    assert_eq!(log.pending[0].job_id, "5");
    assert_eq!(log.not_started, 1, "cancelled, with no submit time: skipped as before");
    assert_eq!(log.quarantine.total(), 0);
}

#[test]
fn pending_rows_keep_their_request_time_limit_and_submit() {
    let text = "JobID|JobName|User|Partition|State|Submit|Start|End|Timelimit|ReqTRES|AllocTRES\n\
                7|train-big|ana|gpu|PENDING|2024-03-01T09:00:00|Unknown|Unknown|1-00:00:00|cpu=8,gres/gpu=8|\n\
                8|serve-x|bo|gpu|PENDING|2024-03-01T09:30:00|None|Unknown|UNLIMITED|gres/gpu=2|\n\
                9|sweep-1|cy|gpu|CANCELLED by 4|2024-03-01T08:00:00|None|2024-03-01T08:45:00|02:00:00|gres/gpu=1|\n\
                9.batch|batch||gpu|CANCELLED|2024-03-01T08:00:00|None|2024-03-01T08:45:00||gres/gpu=1|\n";
    let log = read(text);
    assert!(log.runs.is_empty());
    assert_eq!(log.quarantine.total(), 0);
    assert_eq!(log.pending.len(), 3, "the step row repeats its job");
    let (a, b, c) = (&log.pending[0], &log.pending[1], &log.pending[2]);
    assert_eq!((a.gpus, a.time_limit_ms), (8.0, Some(24 * 3_600_000)));
    assert_eq!(a.submit_ms, Some(ms("2024-03-01T09:00:00")));
    assert_eq!(
        (a.name.as_deref(), a.user.as_deref(), a.queue.as_deref()),
        (Some("train-big"), Some("ana"), Some("gpu"))
    );
    assert_eq!((b.gpus, b.time_limit_ms, b.end_ms), (2.0, None, None));
    assert_eq!(c.end_ms, Some(ms("2024-03-01T08:45:00")), "cancelled while waiting");
    assert_eq!(c.time_limit_ms, Some(2 * 3_600_000));
    assert_eq!(c.source_line, 4);
}

#[test]
fn cancelled_by_user_keeps_the_state_word() {
    let text = "JobID|State|Start|End\n5|CANCELLED by 1234|2024-03-01T10:00:00|2024-03-01T10:30:00\n";
    assert_eq!(read(text).runs[0].state.as_deref(), Some("CANCELLED"));
}

#[test]
fn elapsed_formats() {
    assert_eq!(
        parse_elapsed_ms("22-08:05:48"),
        Ok(Some(((22 * 24 + 8) * 3600 + 5 * 60 + 48) * 1000))
    );
    assert_eq!(parse_elapsed_ms("08:05:48"), Ok(Some((8 * 3600 + 5 * 60 + 48) * 1000)));
    assert_eq!(parse_elapsed_ms("05:48.123"), Ok(Some((5 * 60 + 48) * 1000 + 123)));
    assert_eq!(parse_elapsed_ms("05:48.5"), Ok(Some((5 * 60 + 48) * 1000 + 500)));
    assert_eq!(parse_elapsed_ms("UNLIMITED"), Ok(None));
    assert_eq!(parse_elapsed_ms("8h"), Err(()));
    assert_eq!(parse_elapsed_ms("-1:00"), Err(()));
}

#[test]
fn elapsed_column_fills_an_unknown_end_in_any_column_order() {
    let text = "Elapsed|End|Start|State|JobID|Partition\n\
                22-08:05:48|Unknown|2024-03-01T00:00:00|TIMEOUT|9|gpu\n";
    let log = read(text);
    let r = &log.runs[0];
    assert_eq!(r.end_ms, Some(ms("2024-03-23T08:05:48")));
    assert_eq!(r.queue.as_deref(), Some("gpu"));
    assert_eq!(r.cluster, "default");
}

#[test]
fn tres_counts_typed_duplicates_once() {
    let untyped_and_typed = gpus_from_tres("billing=8,cpu=8,gres/gpu=4,gres/gpu:h100=4,mem=96G,node=1");
    assert_eq!(
        untyped_and_typed,
        Ok(Gpus {
            count: 4.0,
            gpu_type: Some("h100".into())
        })
    );
    let typed_only = gpus_from_tres("cpu=16,gres/gpu:a100=2,gres/gpu:v100=1,node=1");
    assert_eq!(
        typed_only,
        Ok(Gpus {
            count: 3.0,
            gpu_type: Some("a100+v100".into())
        })
    );
    let not_counts = gpus_from_tres("cpu=8,gres/gpu=2,gres/gpumem=160G,gres/gpuutil=87,node=1");
    assert_eq!(
        not_counts,
        Ok(Gpus {
            count: 2.0,
            gpu_type: None
        })
    );
    assert_eq!(gpus_from_tres("billing=4,cpu=4,mem=16G,node=1"), Ok(Gpus::default()));
    assert_eq!(
        gpus_from_tres("gres/gpu=-2").map_err(|e| e.0),
        Err(RejectReason::NegativeGpus)
    );
    assert_eq!(
        gpus_from_tres("gres/gpu=x").map_err(|e| e.0),
        Err(RejectReason::UnparseableNumber)
    );
}

#[test]
fn gres_strings() {
    assert_eq!(
        gpus_from_gres("gpu:a100:8"),
        Ok(Gpus {
            count: 8.0,
            gpu_type: Some("a100".into())
        })
    );
    assert_eq!(
        gpus_from_gres("gpu:8"),
        Ok(Gpus {
            count: 8.0,
            gpu_type: None
        })
    );
    assert_eq!(
        gpus_from_gres("gpu:2(IDX:0,2),mps:100"),
        Ok(Gpus {
            count: 2.0,
            gpu_type: None
        })
    );
    assert_eq!(
        gpus_from_gres("gpu:tesla:4(IDX:0-3)"),
        Ok(Gpus {
            count: 4.0,
            gpu_type: Some("tesla".into())
        })
    );
    assert_eq!(gpus_from_gres("mps:100"), Ok(Gpus::default()));
}

#[test]
fn alloc_gres_is_used_without_alloc_tres_and_cpu_jobs_keep_zero_gpus() {
    let text = "JobID|Start|End|AllocGRES\n\
                1|2024-03-01T10:00:00|2024-03-01T11:00:00|gpu:a100:8\n\
                2|2024-03-01T10:00:00|2024-03-01T11:00:00|\n";
    let log = read(text);
    assert_eq!(run(&log, "1").gpus, 8.0);
    assert_eq!(run(&log, "1").gpu_type.as_deref(), Some("a100"));
    assert_eq!(run(&log, "2").gpus, 0.0);
}

#[test]
fn queue_joins_partition_and_qos() {
    let text = "JobID|Partition|QOS|Start|End\n\
                1|gpu|high|2024-03-01T10:00:00|2024-03-01T11:00:00\n\
                2||high|2024-03-01T10:00:00|2024-03-01T11:00:00\n\
                3|gpu||2024-03-01T10:00:00|2024-03-01T11:00:00\n\
                4|||2024-03-01T10:00:00|2024-03-01T11:00:00\n";
    let log = read(text);
    let queues: Vec<Option<&str>> = log.runs.iter().map(|r| r.queue.as_deref()).collect();
    assert_eq!(queues, [Some("gpu/high"), Some("high"), Some("gpu"), None]);
}

#[test]
fn bad_times_and_reversed_runs_are_quarantined() {
    let text = "JobID|Start|End\n\
                1|2024-02-30T10:00:00|2024-03-01T11:00:00\n\
                2|2024-03-01T12:00:00|2024-03-01T11:00:00\n\
                |2024-03-01T10:00:00|2024-03-01T11:00:00\n\
                4|2024-03-01T10:00:00|2024-03-01T11:00:00\n";
    let log = read(text);
    assert_eq!(log.runs.len(), 1);
    assert_eq!(log.quarantine.counts[&RejectReason::UnparseableTime], 1);
    assert_eq!(log.quarantine.counts[&RejectReason::EndBeforeStart], 1);
    assert_eq!(log.quarantine.counts[&RejectReason::MissingJobId], 1);
    let lines: Vec<u64> = log.quarantine.samples.iter().map(|s| s.line).collect();
    assert_eq!(lines, [2, 3, 4]);
}

#[test]
fn times_are_read_as_utc_and_epoch_and_offsets_are_accepted() {
    let text = "JobID|Start|End\n\
                1|2024-03-01T10:00:00|2024-03-01T12:00:00+02:00\n\
                2|1709287200|1709290800\n";
    let log = read(text);
    assert_eq!(run(&log, "1").start_ms, ms("2024-03-01T10:00:00"));
    assert_eq!(run(&log, "1").end_ms, Some(ms("2024-03-01T10:00:00")));
    assert_eq!(run(&log, "2").start_ms, ms("2024-03-01T10:00:00"));
}

#[test]
fn parsable_with_trailing_pipes_cluster_column_and_repeated_headers() {
    let text = "JobID|Cluster|Start|End|\n\
                1|alpha|2024-03-01T10:00:00|2024-03-01T11:00:00|\n\
                JobID|Cluster|Start|End|\n\
                1|beta|2024-03-01T10:00:00|2024-03-01T11:00:00|\n\
                1|beta|2024-03-01T10:00:00|2024-03-01T11:00:00|\n";
    let log = read(text);
    let clusters: Vec<&str> = log.runs.iter().map(|r| r.cluster.as_str()).collect();
    assert_eq!(clusters, ["alpha", "beta"]);
    assert_eq!(log.duplicate_rows, 1);
    assert_eq!(log.quarantine.total(), 0);
}

#[test]
fn unreadable_files_give_one_clear_error() {
    let empty = read_sacct(Path::new("jobs.txt"), "\n\n", "c")
        .expect_err("empty")
        .to_string();
    assert!(empty.contains("jobs.txt") && empty.contains("empty"), "{empty}");
    let no_id = read_sacct(Path::new("jobs.txt"), "Name|Start\nx|y\n", "c")
        .expect_err("no JobID")
        .to_string();
    assert!(no_id.contains("jobs.txt") && no_id.contains("JobID"), "{no_id}");
    let header_only = read_sacct(Path::new("jobs.txt"), "JobID|Start\n", "c").expect("header only");
    assert!(header_only.0.is_empty());
}

#[test]
fn detects_sacct_headers() {
    use crate::data::readers::formats::LogFormat;
    let detected = |text: &str| {
        crate::data::readers::detect::detect_format(Path::new("jobs.txt"), format!("{text}\n").as_bytes()).ok()
    };
    assert_eq!(
        detected("JobID|JobName|User|Partition|QOS|State|Submit|Start|End|ElapsedRaw|AllocTRES|NodeList"),
        Some(LogFormat::Sacct)
    );
    assert_eq!(detected("\u{feff}jobid|state|"), Some(LogFormat::Sacct));
    assert_eq!(detected("job_id,start,end"), Some(LogFormat::Csv { delimiter: b',' }));
    // Pipes and a job id are sacct's: the reader then names the columns it lacks.
    assert_eq!(detected("JobID|Comment"), Some(LogFormat::Sacct));
}

/// A small file of huge lists: 715 rows, each naming 99,999 hosts (found by fuzzing: it took
/// 47 s), and 845 pending arrays of 99,999 tasks each (20 GB before the budget).
#[test]
fn huge_host_lists_and_arrays_stay_within_the_files_budget() {
    let mut text = String::from("JobID|JobName|Cluster|State|Start|End|AllocTRES|NodeList\n");
    for i in 0..715 {
        text.push_str(&format!(
            "{i}|j|east|COMPLETED|2024-03-01T10:00:00|2024-03-01T12:00:00|gres/gpu=4|e-gpu[{:05}-99999]\n",
            i + 1
        ));
    }
    let log = read(&text);
    assert_eq!(log.runs.len(), 715);
    assert!(log.hosts.len() <= budget::HOSTS_PER_FILE + 715 * budget::HOSTS_PER_ROW_ALLOWANCE);
    assert!(
        log.hosts.len() >= 99_999,
        "the first lists are mapped: {}",
        log.hosts.len()
    );
    assert!(
        log.host_problems
            .iter()
            .any(|p| p.contains("hosts are not mapped to clusters")),
        "{:?}",
        log.host_problems
    );

    let mut text = String::from("JobID|JobName|Cluster|State|Submit|Start|End|ReqTRES\n");
    for i in 0..845 {
        text.push_str(&format!(
            "{i}_[1-99999]|j|east|PENDING|2024-03-01T10:00:00|Unknown|Unknown|gres/gpu=4\n"
        ));
    }
    let log = read(&text);
    assert!(
        log.pending.len() <= budget::ARRAY_TASKS_PER_FILE + 845,
        "{}",
        log.pending.len()
    );
    assert_eq!(
        log.pending.iter().filter(|p| p.job_id.starts_with("0_")).count(),
        99_999,
        "the first array is counted task by task"
    );
    let noted: Vec<&String> = log
        .host_problems
        .iter()
        .filter(|p| p.contains("pending job arrays"))
        .collect();
    assert_eq!(noted.len(), 1, "{:?}", log.host_problems);
    assert!(noted[0].starts_with("sacct.txt:4:"), "{}", noted[0]);
}

#[test]
fn a_host_list_seen_before_on_the_cluster_is_not_expanded_again() {
    let text = "JobID|Cluster|State|Start|End|AllocTRES|NodeList\n\
                1|east|COMPLETED|2024-03-01T10:00:00|2024-03-01T12:00:00|gres/gpu=4|gpu[1-2]\n\
                2|east|COMPLETED|2024-03-01T10:00:00|2024-03-01T12:00:00|gres/gpu=4|gpu[1-2]\n\
                3|west|COMPLETED|2024-03-01T10:00:00|2024-03-01T12:00:00|gres/gpu=4|gpu[1-2]\n";
    let log = read(text);
    assert_eq!(log.hosts.len(), 2);
    // The same list on another cluster is still looked at: its hosts are in two clusters.
    assert_eq!(log.host_problems.len(), 2, "{:?}", log.host_problems);
}

/// What a real Slurm 22.05 printed for gpuplan's own sacct call (`gpuplan audit --slurm`),
/// recorded by tests/integration/slurm_live.rs from the cluster it brings up.
const LIVE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/slurm/live-22.05.txt"
));

#[test]
fn a_live_sacct_recording_reads_as_what_was_submitted() {
    let log = read(LIVE);
    // Eight jobs, the requeued one twice, its `.batch`/`.extern` steps folded.
    let ids: Vec<&str> = log.runs.iter().map(|r| r.job_id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3", "5", "4_0", "4_1", "4_2", "5", "8"]);
    assert!(log.step_rows_folded >= 9, "{}", log.step_rows_folded);
    assert_eq!(log.quarantine.total(), 0, "{:?}", log.quarantine);
    // gres/gpu:a100=N beside gres/gpu=N is N GPUs of type a100.
    let gpus: Vec<f64> = log.runs.iter().map(|r| r.gpus).collect();
    assert_eq!(gpus, [4.0, 2.0, 1.0, 2.0, 1.0, 1.0, 1.0, 2.0, 1.0]);
    assert!(log.runs.iter().all(|r| r.gpu_type.as_deref() == Some("a100")));
    // Still running: no end. Requeued: two runs with their own starts. Cancelled: its first word.
    assert_eq!(run(&log, "1").end_ms, None);
    let requeued: Vec<&JobRun> = log.runs.iter().filter(|r| r.job_id == "5").collect();
    assert_eq!(requeued[0].state.as_deref(), Some("REQUEUED"));
    assert_eq!(requeued[1].state.as_deref(), Some("COMPLETED"));
    assert!(requeued[0].start_ms < requeued[1].start_ms);
    assert_eq!(run(&log, "8").state.as_deref(), Some("CANCELLED"));
    // The job too large to start: pending demand, eight GPUs asked (ReqTRES), an hour's limit.
    assert_eq!(log.pending.len(), 1);
    let pending = &log.pending[0];
    assert_eq!((pending.job_id.as_str(), pending.gpus), ("9", 8.0));
    assert_eq!(pending.time_limit_ms, Some(3_600_000));
    assert_eq!(log.hosts.len(), 1);
}

#[test]
fn pieces_of_one_window_keep_a_job_across_their_boundary_once() {
    // The same recording read as two pieces that both printed every job (a boundary inside
    // every run): one log, each run once, the pending job once, the repeats counted.
    let mut whole = read(LIVE);
    let repeats = whole.absorb(read(LIVE));
    assert_eq!(whole.runs.len(), 9);
    assert_eq!(whole.pending.len(), 1);
    assert_eq!(repeats, 10);
    // A job pending in one piece and started by the next is the run, not pending demand.
    let mut earlier = read(LIVE);
    let mut later = read(LIVE);
    let mut started = run(&later, "2").clone();
    started.job_id = "9".into();
    later.runs.push(started);
    earlier.absorb(later);
    assert!(earlier.pending.is_empty());
    assert_eq!(earlier.runs.iter().filter(|r| r.job_id == "9").count(), 1);
}

#[test]
fn a_heterogeneous_job_waiting_is_each_component_asking_its_own_gpus() {
    // Recorded from the test cluster: a two-component job (`#SBATCH hetjob`) that one node
    // cannot start. Each component (`1+0`, `1+1`) is its own allocation in Slurm's accounting,
    // with its own GPUs asked; `Partition_Limit` says no time limit of its own.
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/slurm/live-22.05-hetjob-pending.txt"
    ));
    let log = read(text);
    assert!(log.runs.is_empty());
    let asked: Vec<(&str, f64, Option<i64>)> = log
        .pending
        .iter()
        .map(|p| (p.job_id.as_str(), p.gpus, p.time_limit_ms))
        .collect();
    assert_eq!(asked, [("1+0", 2.0, None), ("1+1", 1.0, None)]);
    assert_eq!(log.quarantine.total(), 0);
}

#[test]
fn times_outside_2000_to_a_day_from_now_are_set_aside_not_audited() {
    let text = "JobID|State|Start|End|AllocTRES\n\
                1|COMPLETED|2024-03-01T10:00:00|2024-03-01T11:00:00|gres/gpu=8\n\
                2|COMPLETED|1970-01-01T00:00:00|2024-03-01T11:00:00|gres/gpu=8\n\
                3|COMPLETED|2024-03-01T10:00:00|2100-01-01T00:00:00|gres/gpu=8\n";
    let log = read(text);
    assert_eq!(log.runs.len(), 1);
    assert_eq!(log.quarantine.counts.get(&RejectReason::TimeOutOfRange), Some(&2));
}
