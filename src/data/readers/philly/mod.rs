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

pub mod format;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, NaiveDateTime};
use serde_json::{Map, Value};

use super::reject::{Quarantine, RejectReason, RejectedRow};
use crate::data::canonical::MAX_JOB_GPUS;
use crate::data::canonical::{JobRun, PendingRun};
use crate::data::error::DataError;

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

/// Reads a Philly job list into runs (one per attempt) and a quarantine.
pub fn read_philly(path: &Path, text: &str, cluster_default: &str) -> Result<(Vec<JobRun>, Quarantine), DataError> {
    read_philly_detailed(path, text, cluster_default).map(PhillyLog::into_parts)
}

/// As [`read_philly`], with the count of jobs read and of jobs that never ran.
pub fn read_philly_detailed(path: &Path, text: &str, cluster_default: &str) -> Result<PhillyLog, DataError> {
    let file = path.display().to_string();
    let elements = split_top_level(text).map_err(|why| why.not_format("Philly job list").in_file(&file))?;
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
                    qos: None,
                    owner_kind: None,
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
fn split_top_level(text: &str) -> Result<Vec<Element<'_>>, DataError> {
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
        None => return Err(DataError::Empty),
        Some(b'[') => {
            pos += 1;
            true
        }
        Some(b'{') => false,
        Some(_) => return Err(DataError::NoJsonJobs),
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
