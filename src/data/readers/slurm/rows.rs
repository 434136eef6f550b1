//! One sacct row: a run, a job that never started (pending demand or skipped), or why it is
//! rejected; its end, GPUs, queue and time limit read from the columns the header has.

use std::collections::HashSet;

use super::budget::ExpansionBudget;
use super::columns::Columns;
use super::values::{Gpus, SlurmTime, gpu_util_of, gpus_from_gres, gpus_from_tres, parse_elapsed_ms, parse_slurm_time};
use crate::data::canonical::{JobRun, PendingRun};
use crate::data::readers::hostlist::{HostlistError, expand_hostlist};
use crate::data::readers::reject::RejectReason;

pub(super) struct ParsedRow {
    pub(super) alloc_id: String,
    pub(super) is_step: bool,
    pub(super) run: JobRun,
    pub(super) node_list: Option<String>,
}

pub(super) type Reject = (RejectReason, String);

/// What one row of a sacct export is.
pub(super) enum Row {
    Run(ParsedRow),
    /// A job that never started and still asks (or asked, until cancelled) for GPUs.
    Pending(PendingRun),
    /// A job that never started and says neither when it was submitted nor that it waits.
    NotStarted,
}

/// States of a job waiting for its allocation.
fn is_waiting(state: &str) -> bool {
    state == "PENDING" || state.starts_with("REQUEUE")
}

/// The job's time limit: `TimelimitRaw` (minutes), else `Timelimit`; `None` when unlimited
/// or unreadable (a time limit only sizes pending demand, so a bad one costs no row).
fn time_limit_ms(columns: &Columns, fields: &[&str]) -> Option<i64> {
    let get = |index: Option<usize>| present(fields, index);
    if let Some(minutes) = get(columns.time_limit_raw).and_then(|raw| raw.parse::<i64>().ok()) {
        return (minutes >= 0).then(|| minutes.saturating_mul(60_000));
    }
    get(columns.time_limit).and_then(|raw| parse_elapsed_ms(raw).ok().flatten())
}

/// Most tasks one pending array row may stand for.
const MAX_ARRAY_TASKS: usize = 100_000;

/// A pending array row (`3001_[9-12]`, `3001_[1-100%10]`) as one pending job per task, while
/// the file's budget lasts; any other row as itself.
pub(super) fn array_tasks(job: PendingRun, budget: &mut ExpansionBudget) -> Vec<PendingRun> {
    let Some((base, rest)) = job.job_id.split_once("_[") else {
        return vec![job];
    };
    let Some(inner) = rest.strip_suffix(']') else {
        return vec![job];
    };
    let indices = inner.split('%').next().unwrap_or(inner);
    if budget.tasks_left == 0 {
        budget.tasks_cut_at.get_or_insert(job.source_line);
        return vec![job];
    }
    match expand_hostlist(&format!("[{indices}]"), MAX_ARRAY_TASKS.min(budget.tasks_left)) {
        Err(HostlistError::TooManyHosts { .. }) if budget.tasks_left < MAX_ARRAY_TASKS => {
            budget.tasks_left = 0;
            budget.tasks_cut_at.get_or_insert(job.source_line);
            vec![job]
        }
        Ok(tasks) if !tasks.is_empty() => {
            budget.tasks_left -= tasks.len();
            tasks
                .into_iter()
                .map(|task| PendingRun {
                    job_id: format!("{base}_{task}"),
                    ..job.clone()
                })
                .collect()
        }
        _ => vec![job],
    }
}

/// A row as a run, a pending job, or a job that never started.
pub(super) fn parse_row(
    columns: &Columns,
    fields: &[&str],
    cluster_default: &str,
    line_no: u64,
    allocations: &mut HashSet<(String, String)>,
) -> Result<Row, Reject> {
    let get = |index: Option<usize>| present(fields, index);
    let raw_id = get(Some(columns.job_id)).ok_or((RejectReason::MissingJobId, "column JobID is empty".to_string()))?;
    let (alloc_id, is_step) = match raw_id.split_once('.') {
        Some((alloc, _step)) => (alloc, true),
        None => (raw_id, false),
    };
    if alloc_id.is_empty() {
        return Err((RejectReason::MissingJobId, format!("column JobID: \"{raw_id}\"")));
    }
    let cluster = get(columns.cluster).unwrap_or(cluster_default).to_string();
    if !is_step {
        allocations.insert((cluster.clone(), alloc_id.to_string()));
    }

    let state = get(columns.state)
        .and_then(|s| s.split_whitespace().next())
        .map(|s| s.to_ascii_uppercase());
    let start_raw = get(Some(columns.start)).unwrap_or("");
    let start_ms = match parse_slurm_time(start_raw) {
        SlurmTime::At(ms) => ms,
        SlurmTime::Unknown => return never_started(columns, fields, cluster, alloc_id, is_step, state, line_no),
        SlurmTime::Invalid => {
            return Err((RejectReason::UnparseableTime, format!("column Start: \"{start_raw}\"")));
        }
    };
    let end_raw = get(columns.end).unwrap_or("");
    let end_ms = match parse_slurm_time(end_raw) {
        SlurmTime::At(ms) => Some(ms),
        SlurmTime::Invalid => return Err((RejectReason::UnparseableTime, format!("column End: \"{end_raw}\""))),
        SlurmTime::Unknown if state.as_deref().is_some_and(is_still_running) => None,
        SlurmTime::Unknown => elapsed_ms(columns, fields)?.map(|elapsed| start_ms.saturating_add(elapsed)),
    };
    if let Some(end) = end_ms
        && end < start_ms
    {
        return Err((
            RejectReason::EndBeforeStart,
            format!("Start \"{start_raw}\" is after End \"{end_raw}\""),
        ));
    }
    // A clock reset to 1970 or a year typed wrong must not move the window.
    let latest_ms = crate::data::canonical::latest_time_ms();
    if start_ms < crate::data::canonical::EARLIEST_TIME_MS || end_ms.unwrap_or(start_ms).max(start_ms) > latest_ms {
        return Err((
            RejectReason::TimeOutOfRange,
            format!("Start \"{start_raw}\", End \"{end_raw}\": outside 2000..now+1d"),
        ));
    }

    let gpus = gpus_of(columns, fields)?;
    let queue = queue_of(get(columns.partition), get(columns.qos));
    let run = JobRun {
        job_id: alloc_id.to_string(),
        cluster,
        name: get(columns.job_name).map(str::to_string),
        user: get(columns.user).map(str::to_string),
        queue,
        state,
        start_ms,
        end_ms,
        gpus: gpus.count,
        gpu_type: gpus.gpu_type,
        gpu_util_frac: gpu_util_of(get(columns.tres_usage_in_ave), gpus.count),
        label: None,
        source_line: line_no,
        qos: None,
        owner_kind: None,
        submit_ms: match get(columns.submit).map(parse_slurm_time) {
            Some(SlurmTime::At(ms)) if ms <= start_ms => Some(ms),
            _ => None,
        },
    };
    Ok(Row::Run(ParsedRow {
        alloc_id: alloc_id.to_string(),
        is_step,
        run,
        node_list: get(columns.node_list).map(str::to_string),
    }))
}

/// `Partition/QOS`, or whichever of the two is given.
fn queue_of(partition: Option<&str>, qos: Option<&str>) -> Option<String> {
    match (partition, qos) {
        (Some(p), Some(q)) => Some(format!("{p}/{q}")),
        (p, q) => p.or(q).map(str::to_string),
    }
}

/// A row without a start: pending demand when the job waits or says when it was submitted.
/// Step rows of a job that never started repeat it: skipped.
fn never_started(
    columns: &Columns,
    fields: &[&str],
    cluster: String,
    alloc_id: &str,
    is_step: bool,
    state: Option<String>,
    line_no: u64,
) -> Result<Row, Reject> {
    let get = |index: Option<usize>| present(fields, index);
    let submit_ms = match get(columns.submit).map(parse_slurm_time) {
        Some(SlurmTime::At(ms)) => Some(ms),
        _ => None,
    };
    let waiting = state.as_deref().is_some_and(is_waiting);
    if is_step || !(waiting || submit_ms.is_some()) {
        return Ok(Row::NotStarted);
    }
    let end_raw = get(columns.end).unwrap_or("");
    let end_ms = match parse_slurm_time(end_raw) {
        SlurmTime::At(ms) if !waiting => Some(ms),
        SlurmTime::Invalid => return Err((RejectReason::UnparseableTime, format!("column End: \"{end_raw}\""))),
        _ => None,
    };
    let queue = queue_of(get(columns.partition), get(columns.qos));
    Ok(Row::Pending(PendingRun {
        job_id: alloc_id.to_string(),
        cluster,
        name: get(columns.job_name).map(str::to_string),
        user: get(columns.user).map(str::to_string),
        queue,
        state,
        label: None,
        gpus: gpus_of(columns, fields)?.count,
        submit_ms,
        end_ms,
        time_limit_ms: time_limit_ms(columns, fields),
        source_line: line_no,
    }))
}

/// States whose `Elapsed` is time so far, not a duration: their end stays unknown.
fn is_still_running(state: &str) -> bool {
    matches!(
        state,
        "RUNNING" | "PENDING" | "SUSPENDED" | "REQUEUED" | "CONFIGURING" | "RESIZING"
    )
}

/// The run's length from `ElapsedRaw` (seconds) or else `Elapsed`; `None` when neither says.
fn elapsed_ms(columns: &Columns, fields: &[&str]) -> Result<Option<i64>, Reject> {
    let get = |index: Option<usize>| present(fields, index);
    if let Some(raw) = get(columns.elapsed_raw) {
        return match raw.parse::<i64>() {
            Ok(secs) if secs >= 0 => Ok(Some(secs.saturating_mul(1000))),
            _ => Err((RejectReason::UnparseableNumber, format!("column ElapsedRaw: \"{raw}\""))),
        };
    }
    match get(columns.elapsed) {
        Some(raw) => {
            parse_elapsed_ms(raw).map_err(|()| (RejectReason::UnparseableNumber, format!("column Elapsed: \"{raw}\"")))
        }
        None => Ok(None),
    }
}

/// GPUs from `AllocTRES`, else `AllocGRES`, else `ReqTRES`: the first column that is present
/// and not empty decides, even when it names no GPU (a CPU job).
fn gpus_of(columns: &Columns, fields: &[&str]) -> Result<Gpus, Reject> {
    let get = |index: Option<usize>| present(fields, index);
    if let Some(raw) = get(columns.alloc_tres) {
        return gpus_from_tres(raw).map_err(|detail| tres_reject("AllocTRES", raw, detail));
    }
    if let Some(raw) = get(columns.alloc_gres) {
        return gpus_from_gres(raw).map_err(|detail| tres_reject("AllocGRES", raw, detail));
    }
    if let Some(raw) = get(columns.req_tres) {
        return gpus_from_tres(raw).map_err(|detail| tres_reject("ReqTRES", raw, detail));
    }
    Ok(Gpus::default())
}

fn tres_reject(column: &str, raw: &str, (reason, why): Reject) -> Reject {
    (reason, format!("column {column}: {why} in \"{raw}\""))
}

/// The trimmed field at `index`, when the column exists and the field is not empty.
fn present<'a>(fields: &[&'a str], index: Option<usize>) -> Option<&'a str> {
    index
        .and_then(|i| fields.get(i))
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
}
