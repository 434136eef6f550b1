use std::collections::HashSet;

use super::*;
use crate::data::canonical::frame_from_runs;

const FIXTURE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/philly/jobs_bad_rows.json"
));

fn read(text: &str) -> PhillyLog {
    read_philly_detailed(Path::new("jobs.json"), text, "philly").expect("readable")
}

fn ms(text: &str) -> i64 {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .expect("test time")
        .and_utc()
        .timestamp_millis()
}

#[test]
fn shared_trace_counts_jobs_and_gpu_hours_both_ways() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/philly/jobs.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("note: {} is absent; skipping the shared-trace test", path.display());
        return;
    };
    let log = read_philly_detailed(&path, &text, "philly").expect("the shared trace reads");
    let ids: HashSet<&str> = log.runs.iter().map(|r| r.job_id.as_str()).collect();
    assert_eq!(ids.len(), 3034);
    assert_eq!(log.jobs_read, 3034);
    assert_eq!(log.runs.len(), 4490);
    assert_eq!(log.quarantine.total(), 0);
    let summed = gpu_hours_attempts(&log.runs);
    let span = gpu_hours_span(&log.runs);
    assert!((summed - 772_361.0).abs() <= 1.0, "attempts summed: {summed}");
    assert!((span - 776_342.0).abs() <= 1.0, "span: {span}");
    // The first job's object opens on line 2, the second's on line 18 (the file is pretty-printed).
    assert_eq!(log.runs[0].source_line, 2);
    assert_eq!(log.runs[0].job_id, "application_1506638472019_14199");
    assert_eq!(log.runs[1].source_line, 2);
    assert_eq!(log.runs[2].source_line, 18);
    assert_eq!(log.runs[0].start_ms, ms("2017-10-07 01:12:09"));
    assert_eq!(log.runs[0].end_ms, Some(ms("2017-10-07 01:13:23")));
    let last_line = text.lines().count() as u64;
    assert!(log.runs.iter().all(|r| r.source_line >= 2 && r.source_line < last_line));
    assert_eq!(frame_from_runs(&log.runs).expect("frame").height(), 4490);
}

#[test]
fn fixture_loads_good_attempts_and_quarantines_bad_ones_with_lines() {
    let log = read(FIXTURE);
    assert_eq!(log.jobs_read, 7);
    assert_eq!(log.jobs_without_attempts, 1);
    let ids: Vec<&str> = log.runs.iter().map(|r| r.job_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "application_1_0001",
            "application_1_0001",
            "application_1_0002",
            "application_1_0004",
            "application_1_0007"
        ]
    );
    // A null end_time is a censored run.
    assert_eq!(log.runs[1].end_ms, None);
    assert_eq!(log.runs[1].start_ms, ms("2017-10-03 09:00:00"));
    assert_eq!(log.runs[2].cluster, "vc-research");
    assert_eq!(log.runs[2].user.as_deref(), Some("u042"));
    assert_eq!(log.runs[2].state.as_deref(), Some("Pass"));
    assert_eq!(log.runs[0].cluster, "philly");
    let lines: Vec<u64> = log.runs.iter().map(|r| r.source_line).collect();
    assert_eq!(lines, [2, 2, 12, 32, 53]);
    // A missing end_time is censored too.
    assert_eq!(log.runs[4].end_ms, None);

    let q = &log.quarantine;
    assert_eq!(q.counts[&RejectReason::UnparseableTime], 1);
    assert_eq!(q.counts[&RejectReason::NegativeGpus], 1);
    assert_eq!(q.counts[&RejectReason::MissingJobId], 1);
    assert_eq!(q.counts[&RejectReason::EndBeforeStart], 1);
    assert_eq!(q.total(), 4);
    let found = |reason: RejectReason| q.samples.iter().find(|s| s.reason == reason).expect("sample");
    assert_eq!(found(RejectReason::NegativeGpus).line, 24);
    let bad_time = found(RejectReason::UnparseableTime);
    assert_eq!(bad_time.line, 12);
    assert!(
        bad_time.detail.contains("attempt 2") && bad_time.detail.contains("2017-10-35"),
        "{}",
        bad_time.detail
    );
    assert_eq!(found(RejectReason::MissingJobId).line, 41);
    assert_eq!(found(RejectReason::EndBeforeStart).line, 32);
}

#[test]
fn json_lines_and_trailing_commas_read_too() {
    let text = "{\"id\": \"a\", \"num_gpus\": 1, \"attempts\": [{\"start_time\": \"2017-10-01 00:00:00\", \"end_time\": \"2017-10-01 01:00:00\"}]}\n\
                {\"id\": \"b\", \"num_gpus\": 2, \"attempts\": [{\"start_time\": \"2017-10-01T00:00:00\", \"end_time\": \"None\"}]}\n";
    let log = read(text);
    assert_eq!(log.runs.len(), 2);
    assert_eq!(log.runs[1].source_line, 2);
    assert_eq!(log.runs[1].end_ms, None);
    let with_comma = "[\n{\"id\": 7, \"num_gpus\": \"4\", \"attempts\": [{\"start_time\": \"2017-10-01 00:00:00\", \"end_time\": \"2017-10-01 02:00:00\"}]},\n]";
    let log = read(with_comma);
    assert_eq!(log.runs.len(), 1);
    assert_eq!(log.runs[0].job_id, "7");
    assert_eq!(gpu_hours_attempts(&log.runs), 8.0);
}

#[test]
fn braces_inside_strings_do_not_split_jobs() {
    let text = "[{\"id\": \"x}{\\\"]\", \"num_gpus\": 1, \"attempts\": [{\"start_time\": \"2017-10-01 00:00:00\", \"end_time\": null}]}]";
    let log = read(text);
    assert_eq!(log.runs.len(), 1);
    assert_eq!(log.runs[0].job_id, "x}{\"]");
}

#[test]
fn truncated_and_invalid_jobs_are_quarantined_and_the_rest_loads() {
    let text = "[\n{\"id\": \"a\", \"num_gpus\": 1, \"attempts\": []},\n{\"id\": \"b\", \"num_gpus\": ,\n \"attempts\": []},\n{\"id\": \"c\", \"num_gpus\": 1, \"attempts\": [{\"start_time\": \"2017-10-01 00:";
    let log = read(text);
    assert_eq!(log.jobs_read, 3);
    assert_eq!(log.jobs_without_attempts, 1);
    assert_eq!(log.quarantine.counts[&RejectReason::MalformedRow], 2);
    let lines: Vec<u64> = log.quarantine.samples.iter().map(|s| s.line).collect();
    assert_eq!(lines, [3, 5]);
    assert!(log.quarantine.samples[1].detail.contains("truncated"));
}

#[test]
fn a_job_without_attempts_but_submitted_is_pending_demand() {
    let text = "[\n{\"id\": \"p\", \"vc\": \"vc1\", \"user\": \"u1\", \"num_gpus\": 8, \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": []},\n\
                {\"id\": \"q\", \"num_gpus\": 2, \"attempts\": []}\n]";
    let log = read(text);
    assert!(log.runs.is_empty());
    assert_eq!(log.quarantine.total(), 0);
    assert_eq!(log.jobs_without_attempts, 2);
    assert_eq!(log.pending.len(), 1, "the job with no submit time is skipped as before");
    let job = &log.pending[0];
    assert_eq!((job.job_id.as_str(), job.cluster.as_str(), job.gpus), ("p", "vc1", 8.0));
    assert_eq!(job.submit_ms, Some(ms("2017-10-01 00:00:00")));
    assert_eq!(job.source_line, 2);
}

#[test]
fn span_counts_gaps_between_attempts() {
    let run = |start: &str, end: &str| JobRun {
        job_id: "j".into(),
        cluster: "c".into(),
        start_ms: ms(start),
        end_ms: Some(ms(end)),
        gpus: 2.0,
        ..JobRun::default()
    };
    let runs = [
        run("2017-10-01 00:00:00", "2017-10-01 01:00:00"),
        run("2017-10-01 02:00:00", "2017-10-01 03:00:00"),
    ];
    assert_eq!(gpu_hours_attempts(&runs), 4.0);
    assert_eq!(gpu_hours_span(&runs), 6.0);
}

#[test]
fn unreadable_files_give_one_clear_error() {
    for (text, why) in [
        ("", "empty"),
        ("  \n", "empty"),
        ("id,num_gpus\n", "expected a JSON array"),
    ] {
        let err = read_philly(Path::new("trace.json"), text, "c")
            .expect_err("not readable")
            .to_string();
        assert!(err.contains("trace.json") && err.contains(why), "{err}");
    }
    let (runs, quarantine) = read_philly(Path::new("trace.json"), "[]", "c").expect("empty list");
    assert!(runs.is_empty() && quarantine.total() == 0);
}

#[test]
fn detects_philly_prefixes() {
    let shared = "[\n    {\n        \"id\": \"application_1\",\n        \"num_gpus\": 8,\n        \"attempts\": [";
    let detected =
        |name: &str, text: &str| crate::data::readers::detect::detect_format(Path::new(name), text.as_bytes()).ok();
    use crate::data::readers::formats::LogFormat;
    assert_eq!(detected("trace.json", shared), Some(LogFormat::Philly));
    assert_eq!(
        detected("trace.json", "[{\"id\": 1, \"gpus\": 2}]"),
        Some(LogFormat::JsonArray)
    );
    assert_ne!(detected("trace.json", "JobID|attempts\n"), Some(LogFormat::Philly));
}
