//! Philly-style JSON (Microsoft's `cluster_job_log`): a JSON array of jobs, each
//! `{id, num_gpus, attempts: [{start_time, end_time}], vc?, user?, status?, submitted_time?, runtime?}`.
//!
//! Readings:
//! - One run per attempt, all with the job's id, so a restarted job is one job with several
//!   runs. The cluster is the job's `vc` (virtual cluster) when given, else the caller's default.
//! - `source_line` is the line where the job's object starts, for every one of its attempts.
//! - Times like `2017-10-07 01:12:09` are read as UTC (the trace gives no zone; a constant
//!   shift changes no duration). `T`-separated times, RFC 3339 with an offset and epoch seconds
//!   are read too. A null, missing or `None` `end_time` is a censored run (no end).
//! - A job without attempts never ran: with a `submitted_time` it is pending demand
//!   (`PhillyLog::pending`: its GPUs, waiting from its submit; the trace gives no time limit),
//!   otherwise skipped. Both are counted in `PhillyLog::jobs_without_attempts`; neither is a
//!   rejected row.
//! - A bad job (not an object, no id, negative or missing `num_gpus`, invalid JSON) is one
//!   quarantined row; a bad attempt (unparseable or missing start, unparseable end, end before
//!   start) is one quarantined row and the job's other attempts load.
//! - A file of one job object per line (JSON lines) is read the same way. A file cut short
//!   loads every complete job and quarantines the cut one.
//!
//! GPU-hours: the tool counts attempts ([`gpu_hours_attempts`], 772,361 on the shared trace):
//! GPUs are held while an attempt runs and released between attempts. [`gpu_hours_span`]
//! charges each job from its first start to its last end (776,342 on the same trace), the
//! reading that treats a job's GPUs as reserved across its retries.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, NaiveDateTime};
use serde_json::{Map, Value};

use super::reject::{Quarantine, RejectReason, RejectedRow};
use crate::data::canonical::MAX_JOB_GPUS;
use crate::data::canonical::{JobRun, PendingRun};

/// Everything read from one Philly file, with what was set aside and why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PhillyLog {
    pub runs: Vec<JobRun>,
    pub quarantine: Quarantine,
    /// Job objects found in the file, good or bad.
    pub jobs_read: u64,
    /// Jobs with no attempts (never started): not runs, not rejects.
    pub jobs_without_attempts: u64,
    /// Those of them with a submit time: pending demand.
    pub pending: Vec<PendingRun>,
}

impl PhillyLog {
    pub fn into_parts(self) -> (Vec<JobRun>, Quarantine) {
        (self.runs, self.quarantine)
    }
}

/// True when the file's first bytes look like a Philly job list: JSON (an array or an object)
/// naming `attempts` and `num_gpus` or `start_time`.
pub fn looks_like_philly(prefix: &str) -> bool {
    let trimmed = prefix.trim_start_matches('\u{feff}').trim_start();
    (trimmed.starts_with('[') || trimmed.starts_with('{'))
        && trimmed.contains("\"attempts\"")
        && (trimmed.contains("\"num_gpus\"") || trimmed.contains("\"start_time\""))
}

/// Reads a Philly job list into runs (one per attempt) and a quarantine.
pub fn read_philly(path: &Path, text: &str, cluster_default: &str) -> Result<(Vec<JobRun>, Quarantine), String> {
    read_philly_detailed(path, text, cluster_default).map(PhillyLog::into_parts)
}

/// As [`read_philly`], with the count of jobs read and of jobs that never ran.
pub fn read_philly_detailed(path: &Path, text: &str, cluster_default: &str) -> Result<PhillyLog, String> {
    let file = path.display().to_string();
    let elements = split_top_level(text).map_err(|why| format!("{file}: not a Philly job list: {why}"))?;
    let mut log = PhillyLog::default();
    for element in elements {
        log.jobs_read += 1;
        let reject = |line: u64, reason: RejectReason, detail: String| RejectedRow {
            file: file.clone(),
            line,
            reason,
            detail,
        };
        let Some(source) = element.text.filter(|_| !element.truncated) else {
            log.quarantine.add(reject(
                element.line,
                RejectReason::MalformedRow,
                "the file ends inside this job (truncated?)".into(),
            ));
            continue;
        };
        let value: Value = match serde_json::from_str(source) {
            Ok(value) => value,
            Err(e) => {
                let line = element.line + (e.line() as u64).saturating_sub(1);
                log.quarantine.add(reject(
                    line,
                    RejectReason::MalformedRow,
                    format!("invalid JSON: {}", json_message(&e)),
                ));
                continue;
            }
        };
        let job = match job_fields(&value, cluster_default) {
            Ok(job) => job,
            Err((reason, detail)) => {
                log.quarantine.add(reject(element.line, reason, detail));
                continue;
            }
        };
        let attempts = match value.get("attempts") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(attempts)) => attempts.as_slice(),
            Some(other) => {
                let detail = format!("job {}: attempts is not a list: {}", job.id, short(other));
                log.quarantine
                    .add(reject(element.line, RejectReason::MalformedRow, detail));
                continue;
            }
        };
        if attempts.is_empty() {
            log.jobs_without_attempts += 1;
            if job.submitted_ms.is_some() {
                log.pending.push(PendingRun {
                    job_id: job.id.clone(),
                    cluster: job.cluster.clone(),
                    name: job.name.clone(),
                    user: job.user.clone(),
                    queue: None,
                    state: job.status.clone(),
                    label: None,
                    gpus: job.gpus,
                    submit_ms: job.submitted_ms,
                    end_ms: None,
                    time_limit_ms: None,
                    source_line: element.line,
                });
            }
        }
        for (index, attempt) in attempts.iter().enumerate() {
            match attempt_times(attempt) {
                Ok((start_ms, end_ms)) => log.runs.push(JobRun {
                    job_id: job.id.clone(),
                    cluster: job.cluster.clone(),
                    name: job.name.clone(),
                    user: job.user.clone(),
                    queue: None,
                    state: job.status.clone(),
                    start_ms,
                    end_ms,
                    gpus: job.gpus,
                    gpu_type: job.gpu_type.clone(),
                    gpu_util_frac: None,
                    label: None,
                    source_line: element.line,
                    submit_ms: job.submitted_ms,
                }),
                Err((reason, detail)) => {
                    let detail = format!("job {} attempt {}: {detail}", job.id, index + 1);
                    log.quarantine.add(reject(element.line, reason, detail));
                }
            }
        }
    }
    Ok(log)
}

/// GPU-hours as the runs were logged: Σ gpus × (end − start) over runs with an end.
/// Censored runs (no end) count nothing here; the audit clips them to its window.
pub fn gpu_hours_attempts(runs: &[JobRun]) -> f64 {
    runs.iter()
        .filter_map(|r| r.end_ms.map(|end| r.gpus * (end - r.start_ms) as f64 / 3_600_000.0))
        .sum()
}

/// GPU-hours when each job (cluster, job id) is charged from its first start to its last end,
/// gaps between attempts included, at the job's largest GPU count. Runs without an end are
/// left out.
pub fn gpu_hours_span(runs: &[JobRun]) -> f64 {
    let mut index: HashMap<(&str, &str), usize> = HashMap::new();
    let mut spans: Vec<(i64, i64, f64)> = Vec::new();
    for run in runs {
        let Some(end) = run.end_ms else { continue };
        let key = (run.cluster.as_str(), run.job_id.as_str());
        match index.get(&key) {
            Some(&i) => {
                let span = &mut spans[i];
                span.0 = span.0.min(run.start_ms);
                span.1 = span.1.max(end);
                span.2 = span.2.max(run.gpus);
            }
            None => {
                index.insert(key, spans.len());
                spans.push((run.start_ms, end, run.gpus));
            }
        }
    }
    spans
        .iter()
        .map(|(start, end, gpus)| gpus * (end - start) as f64 / 3_600_000.0)
        .sum()
}

/// One top-level JSON value: where it starts and its text (`None` if it could not be sliced).
struct Element<'a> {
    line: u64,
    text: Option<&'a str>,
    truncated: bool,
}

/// Splits a JSON array (or a run of values, as in JSON lines) into its elements without
/// parsing them, keeping the line each one starts on. Brackets inside strings are skipped.
fn split_top_level(text: &str) -> Result<Vec<Element<'_>>, String> {
    let bytes = text.as_bytes();
    let mut pos = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let mut line: u64 = 1;
    let mut counted_to = 0;
    let mut line_at = |pos: usize| -> u64 {
        line += bytes[counted_to..pos].iter().filter(|&&b| b == b'\n').count() as u64;
        counted_to = pos;
        line
    };
    let skip_blank = |pos: &mut usize| {
        while *pos < bytes.len() && bytes[*pos].is_ascii_whitespace() {
            *pos += 1;
        }
    };
    skip_blank(&mut pos);
    let in_array = match bytes.get(pos) {
        None => return Err("the file is empty".into()),
        Some(b'[') => {
            pos += 1;
            true
        }
        Some(b'{') => false,
        Some(_) => return Err("expected a JSON array of jobs ('[') or one job object per line ('{')".into()),
    };
    let mut elements = Vec::new();
    loop {
        skip_blank(&mut pos);
        match bytes.get(pos) {
            None => break,
            Some(b']') if in_array => break,
            // Separators, and the stray comma of a trailing `,]`.
            Some(b',') => {
                pos += 1;
                continue;
            }
            Some(_) => {}
        }
        let start = pos;
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        let mut complete = false;
        while pos < bytes.len() {
            let b = bytes[pos];
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
                pos += 1;
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        pos += 1;
                        complete = true;
                        break;
                    }
                }
                // A bare value (number, literal) ends at the next separator.
                b',' | b']' | b'}' if depth == 0 => {
                    complete = true;
                    break;
                }
                _ if depth == 0 && b.is_ascii_whitespace() => {
                    complete = true;
                    break;
                }
                _ => {}
            }
            pos += 1;
        }
        let truncated = !complete && (depth > 0 || in_string);
        elements.push(Element {
            line: line_at(start),
            text: text.get(start..pos),
            truncated,
        });
        if pos == start {
            // A stray closing bracket at the top level: step over it so the scan always advances.
            pos += 1;
        }
    }
    Ok(elements)
}

struct JobFields {
    id: String,
    cluster: String,
    name: Option<String>,
    user: Option<String>,
    status: Option<String>,
    gpus: f64,
    gpu_type: Option<String>,
    /// `submitted_time`, when the job has a readable one.
    submitted_ms: Option<i64>,
}

type Reject = (RejectReason, String);

fn job_fields(value: &Value, cluster_default: &str) -> Result<JobFields, Reject> {
    let Value::Object(job) = value else {
        return Err((
            RejectReason::MalformedRow,
            format!("expected a job object, found {}", short(value)),
        ));
    };
    let id = ["id", "job_id", "jobid"]
        .iter()
        .find_map(|key| match job.get(*key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
        .ok_or((RejectReason::MissingJobId, "no id".to_string()))?;
    let gpus = match job.get("num_gpus") {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    let gpus = match gpus {
        Some(n) if n.is_finite() && (0.0..=MAX_JOB_GPUS).contains(&n) => n,
        Some(n) if n < 0.0 => return Err((RejectReason::NegativeGpus, format!("job {id}: num_gpus {n}"))),
        _ => {
            let raw = job.get("num_gpus").map_or_else(|| "missing".to_string(), short);
            return Err((RejectReason::UnparseableNumber, format!("job {id}: num_gpus {raw}")));
        }
    };
    Ok(JobFields {
        cluster: text_of(job, "vc").unwrap_or_else(|| cluster_default.to_string()),
        name: text_of(job, "name"),
        user: text_of(job, "user"),
        status: text_of(job, "status"),
        gpu_type: text_of(job, "gpu_type"),
        // A submit time that cannot be read costs the replay its wait, not the job.
        submitted_ms: philly_time(job.get("submitted_time")).ok().flatten(),
        gpus,
        id,
    })
}

fn text_of(job: &Map<String, Value>, key: &str) -> Option<String> {
    match job.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

fn attempt_times(attempt: &Value) -> Result<(i64, Option<i64>), Reject> {
    let Value::Object(attempt) = attempt else {
        return Err((
            RejectReason::MalformedRow,
            format!("expected an object, found {}", short(attempt)),
        ));
    };
    let start = attempt.get("start_time");
    let start_ms = match philly_time(start) {
        Ok(Some(ms)) => ms,
        Ok(None) => return Err((RejectReason::UnparseableTime, "no start_time".into())),
        Err(()) => {
            return Err((
                RejectReason::UnparseableTime,
                format!("start_time {}", start.map_or_else(|| "missing".into(), short)),
            ));
        }
    };
    let end = attempt.get("end_time");
    let end_ms = philly_time(end).map_err(|()| {
        (
            RejectReason::UnparseableTime,
            format!("end_time {}", end.map_or_else(|| "missing".into(), short)),
        )
    })?;
    if let Some(end_ms) = end_ms
        && end_ms < start_ms
    {
        return Err((
            RejectReason::EndBeforeStart,
            format!(
                "start_time {} is after end_time {}",
                short(start.unwrap_or(&Value::Null)),
                short(end.unwrap_or(&Value::Null))
            ),
        ));
    }
    Ok((start_ms, end_ms))
}

/// A Philly time as UTC milliseconds; `Ok(None)` for a missing or null-like value.
fn philly_time(value: Option<&Value>) -> Result<Option<i64>, ()> {
    let s = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => {
            let secs = n.as_f64().filter(|s| s.is_finite()).ok_or(())?;
            return Ok(Some((secs * 1000.0).round() as i64));
        }
        Some(Value::String(s)) => s.trim(),
        Some(_) => return Err(()),
    };
    if s.is_empty() || ["none", "null", "na", "n/a"].iter().any(|m| s.eq_ignore_ascii_case(m)) {
        return Ok(None);
    }
    for format in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, format) {
            return Ok(Some(t.and_utc().timestamp_millis()));
        }
    }
    DateTime::parse_from_rfc3339(s)
        .map(|t| Some(t.timestamp_millis()))
        .map_err(|_| ())
}

/// serde_json's message without its position (which is relative to the job, not the file).
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}

/// A value as it appears in the file, cut to a readable length.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
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
            let err = read_philly(Path::new("trace.json"), text, "c").expect_err("not readable");
            assert!(err.contains("trace.json") && err.contains(why), "{err}");
        }
        let (runs, quarantine) = read_philly(Path::new("trace.json"), "[]", "c").expect("empty list");
        assert!(runs.is_empty() && quarantine.total() == 0);
    }

    #[test]
    fn detects_philly_prefixes() {
        let shared = "[\n    {\n        \"id\": \"application_1\",\n        \"num_gpus\": 8,\n        \"attempts\": [";
        assert!(looks_like_philly(shared));
        assert!(!looks_like_philly("[{\"id\": 1, \"gpus\": 2}]"));
        assert!(!looks_like_philly("JobID|attempts"));
    }
}
