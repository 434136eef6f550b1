//! Slurm accounting logs: `sacct -P` (or `-p`) output into canonical job runs.
//!
//! The expected export is
//! `sacct -a -X -P --format=JobID,JobName,User,Partition,QOS,State,Submit,Start,End,ElapsedRaw,AllocTRES,NodeList`,
//! but any order or subset of columns with sacct's header names is read (case-insensitive):
//! `JobID` (or `JobIDRaw`) and `Start` are required; `JobName`, `User`, `Partition`, `QOS`,
//! `State`, `Submit`, `End`, `ElapsedRaw`, `Elapsed`, `Timelimit`, `TimelimitRaw`, `AllocTRES`,
//! `AllocGRES`, `ReqTRES`, `Cluster`, `NodeList` and `TRESUsageInAve` are used when present;
//! anything else (`Account`, `NNodes`, `AllocNodes`...) is ignored.
//!
//! Readings, each pinned by a test below:
//! - **Steps** (`123.batch`, `123.extern`, `123.0`, present when `-X` was left out) repeat their
//!   allocation: the allocation row is kept and its steps folded into it. A job seen only through
//!   its steps is counted once, from its first step row, under the allocation's id.
//! - **Arrays**: every task is its own job (`3001_7` keeps that id). A requeued job printed twice
//!   (`sacct -D`) with different starts is two runs of one job; the same row twice is kept once.
//! - **Not started**: `Start` = `Unknown`/`None`/empty. A `PENDING` (or requeued) job, or one
//!   with a `Submit` time (cancelled while it waited: its wait ends at `End`), is pending demand
//!   (`SacctLog::pending`): the GPUs it asked for (`AllocTRES`, else `ReqTRES`), its time limit
//!   (`TimelimitRaw` minutes, else `Timelimit` `[D-]HH:MM:SS`; `UNLIMITED` is none). A pending
//!   array row (`3001_[9-12]`, `%N` throttles ignored) is one pending job per task. Any other
//!   row without a start is skipped, counted in `SacctLog::not_started`. Neither is a rejected row.
//! - **Censored end**: `End` = `Unknown`/`None`/empty gives no end, unless the job is over (its
//!   state is not RUNNING, PENDING, SUSPENDED, REQUEUED, CONFIGURING or RESIZING) and an elapsed
//!   time is known, in which case end = start + elapsed (`ElapsedRaw` seconds, else `Elapsed` as
//!   `[D-]HH:MM:SS`, `MM:SS` or `MM:SS.mmm`).
//! - **State** keeps its first word, so `CANCELLED by 1234` is `CANCELLED`.
//! - **GPUs** come from `AllocTRES` (else `AllocGRES`, else `ReqTRES` when nothing was allocated
//!   on record): the untyped `gres/gpu=N` when present, otherwise the sum of the typed
//!   `gres/gpu:TYPE=N` entries, so a typed duplicate beside the untyped count is counted once.
//!   `gres/gpumem` and `gres/gpuutil` are not GPU counts. The type comes from the typed entries
//!   (several types are joined with `+`). A job without GPUs is kept with 0 GPUs.
//! - **Queue** is `Partition/QOS` (`gpu/high`), the partition alone when QOS is empty, or the QOS
//!   alone when the partition is empty.
//! - **Times** are read as UTC. Slurm prints the cluster's local time without an offset; a
//!   cluster off UTC shifts every job by the same amount, which leaves durations and GPU-hours
//!   unchanged. RFC 3339 times with an offset and epoch seconds (`SLURM_TIME_FORMAT=%s`) are
//!   read too.
//! - A line with the wrong number of fields is quarantined as a malformed row with its line
//!   number (a `|` inside a job name breaks `-P` output this way). A repeated header line
//!   (concatenated exports) is skipped.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, NaiveDateTime};

use super::hostlist::expand_hostlist;
use super::reject::{Quarantine, RejectReason, RejectedRow};
use crate::data::canonical::MAX_JOB_GPUS;
use crate::data::canonical::{JobRun, PendingRun};

/// Everything read from one sacct export, with what was set aside and why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SacctLog {
    pub runs: Vec<JobRun>,
    pub quarantine: Quarantine,
    /// Jobs that never started and are pending demand (see the module notes): not runs, not rejects.
    pub pending: Vec<PendingRun>,
    /// Rows of other jobs that never started (no submit time, not pending): skipped.
    pub not_started: u64,
    /// Step rows folded into their allocation (or into the first step that stood in for it).
    pub step_rows_folded: u64,
    /// Exact repeats of an allocation row already read (same cluster, job id and start).
    pub duplicate_rows: u64,
    /// Hosts named by `NodeList`, each with the cluster of the first job seen on it: how DCGM's
    /// hosts map to the log's clusters.
    pub hosts: BTreeMap<String, String>,
    /// Host lists that could not be expanded, or hosts seen in two clusters, with their lines.
    pub host_problems: Vec<String>,
}

impl SacctLog {
    pub fn into_parts(self) -> (Vec<JobRun>, Quarantine) {
        (self.runs, self.quarantine)
    }
}

/// True when the first line is a `sacct -P`/`-p` header: pipe-separated with a `JobID` column
/// and at least one of sacct's time or state columns.
pub fn looks_like_sacct(first_line: &str) -> bool {
    let line = first_line.trim_start_matches('\u{feff}').trim();
    if !line.contains('|') {
        return false;
    }
    let fields: Vec<Option<Field>> = line.split('|').map(field_of).collect();
    let has_id = fields.iter().any(|f| matches!(f, Some(Field::JobId | Field::JobIdRaw)));
    let has_slurm_column = fields.iter().any(|f| {
        matches!(
            f,
            Some(Field::State | Field::Start | Field::End | Field::Elapsed | Field::ElapsedRaw)
        )
    });
    has_id && has_slurm_column
}

/// Reads a sacct export into runs and a quarantine. See the module notes for the readings.
pub fn read_sacct(path: &Path, text: &str, cluster_default: &str) -> Result<(Vec<JobRun>, Quarantine), String> {
    read_sacct_detailed(path, text, cluster_default).map(SacctLog::into_parts)
}

/// As [`read_sacct`], with the counts of skipped and folded rows.
pub fn read_sacct_detailed(path: &Path, text: &str, cluster_default: &str) -> Result<SacctLog, String> {
    let file = path.display().to_string();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i as u64 + 1, l));
    let Some((_, header_line)) = lines.by_ref().find(|(_, l)| !l.trim().is_empty()) else {
        return Err(format!("{file}: the file is empty"));
    };
    // `sacct -p` ends every line with a `|`; `-P` does not.
    let trailing_pipe = header_line.trim_end().ends_with('|');
    let header_fields = split_row(header_line, trailing_pipe);
    let columns =
        Columns::from_header(&header_fields).map_err(|why| format!("{file}: not a sacct -P export: {why}"))?;

    let mut log = SacctLog::default();
    let mut parsed: Vec<ParsedRow> = Vec::new();
    // Jobs that have an allocation row, whatever became of it: their steps are never counted.
    let mut allocations: HashSet<(String, String)> = HashSet::new();
    for (line_no, line) in lines {
        if line.trim().is_empty() || line == header_line {
            continue;
        }
        let fields = split_row(line, trailing_pipe);
        if fields.len() != columns.count {
            log.quarantine.add(RejectedRow {
                file: file.clone(),
                line: line_no,
                reason: RejectReason::MalformedRow,
                detail: format!("expected {} |-separated fields, found {}", columns.count, fields.len()),
            });
            continue;
        }
        match parse_row(&columns, &fields, cluster_default, line_no, &mut allocations) {
            Ok(Row::Run(row)) => parsed.push(row),
            Ok(Row::Pending(job)) => log.pending.extend(array_tasks(job)),
            Ok(Row::NotStarted) => log.not_started += 1,
            Err((reason, detail)) => log.quarantine.add(RejectedRow {
                file: file.clone(),
                line: line_no,
                reason,
                detail,
            }),
        }
    }

    let mut seen_runs: HashSet<(String, String, i64)> = HashSet::new();
    let mut stood_in: HashSet<(String, String)> = HashSet::new();
    // GPU utilization lives on step rows (`TRESUsageInAve`): each job's steps' mean.
    let mut step_util: HashMap<(String, String), (f64, u32)> = HashMap::new();
    for row in parsed {
        note_hosts(&mut log, &row, &file);
        let job = (row.run.cluster.clone(), row.alloc_id.clone());
        if row.is_step {
            if let Some(util) = row.run.gpu_util_frac {
                let entry = step_util.entry(job.clone()).or_insert((0.0, 0));
                *entry = (entry.0 + util, entry.1 + 1);
            }
            if allocations.contains(&job) || !stood_in.insert(job) {
                log.step_rows_folded += 1;
                continue;
            }
        } else if !seen_runs.insert((job.0, job.1, row.run.start_ms)) {
            log.duplicate_rows += 1;
            continue;
        }
        log.runs.push(row.run);
    }
    for run in log.runs.iter_mut().filter(|r| r.gpu_util_frac.is_none()) {
        if let Some(&(sum, n)) = step_util.get(&(run.cluster.clone(), run.job_id.clone())) {
            run.gpu_util_frac = Some(sum / f64::from(n));
        }
    }
    Ok(log)
}

/// Most hosts one `NodeList` may name: larger than any real allocation, small enough that a
/// hostile `n[0-99999999]` is refused before it is expanded.
const MAX_HOSTS_PER_JOB: usize = 100_000;
/// Problems listed per file; the rest are counted.
const MAX_HOST_PROBLEMS: usize = 20;

/// The row's hosts, assigned to its cluster (the first cluster seen on a host keeps it).
fn note_hosts(log: &mut SacctLog, row: &ParsedRow, file: &str) {
    let Some(list) = row.node_list.as_deref() else { return };
    let problem = |log: &mut SacctLog, text: String| {
        if log.host_problems.len() < MAX_HOST_PROBLEMS {
            log.host_problems
                .push(format!("{file}:{}: {text}", row.run.source_line));
        }
    };
    match expand_hostlist(list, MAX_HOSTS_PER_JOB) {
        Ok(hosts) => {
            for host in hosts {
                let host = host.to_ascii_lowercase();
                match log.hosts.get(&host) {
                    Some(cluster) if *cluster != row.run.cluster => {
                        let text = format!(
                            "host {host} ran jobs of clusters {cluster} and {}: its GPUs count for {cluster}",
                            row.run.cluster
                        );
                        problem(log, text);
                    }
                    Some(_) => {}
                    None => {
                        log.hosts.insert(host, row.run.cluster.clone());
                    }
                }
            }
        }
        Err(e) => problem(log, format!("column NodeList \"{list}\": {e}")),
    }
}

/// A job's GPU utilization from `TRESUsageInAve`'s `gres/gpuutil` (percent). Slurm sums the
/// percentage over a step's GPUs, so a value above 100 is divided by the GPU count.
fn gpu_util_of(tres: Option<&str>, gpus: f64) -> Option<f64> {
    let value: f64 = split_outside_parens(tres?)
        .into_iter()
        .find_map(|item| item.trim().strip_prefix("gres/gpuutil="))?
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    let per_gpu = if value > 100.0 && gpus > 1.0 {
        value / gpus
    } else {
        value
    };
    Some((per_gpu / 100.0).clamp(0.0, 1.0))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    JobId,
    JobIdRaw,
    JobName,
    User,
    Partition,
    Qos,
    State,
    Start,
    End,
    ElapsedRaw,
    Elapsed,
    AllocTres,
    AllocGres,
    ReqTres,
    Cluster,
    NodeList,
    TresUsageInAve,
    Submit,
    Timelimit,
    TimelimitRaw,
}

fn field_of(header: &str) -> Option<Field> {
    Some(match header.trim().to_ascii_lowercase().as_str() {
        "jobid" => Field::JobId,
        "jobidraw" => Field::JobIdRaw,
        "jobname" => Field::JobName,
        "user" => Field::User,
        "partition" => Field::Partition,
        "qos" => Field::Qos,
        "state" => Field::State,
        "start" => Field::Start,
        "end" => Field::End,
        "elapsedraw" => Field::ElapsedRaw,
        "elapsed" => Field::Elapsed,
        "alloctres" => Field::AllocTres,
        "allocgres" => Field::AllocGres,
        "reqtres" => Field::ReqTres,
        "cluster" => Field::Cluster,
        "nodelist" => Field::NodeList,
        "tresusageinave" => Field::TresUsageInAve,
        "submit" => Field::Submit,
        "timelimit" => Field::Timelimit,
        "timelimitraw" => Field::TimelimitRaw,
        _ => return None,
    })
}

/// Positions of the columns this reader uses; the first of a repeated name wins.
#[derive(Debug, Default)]
struct Columns {
    count: usize,
    job_id: usize,
    job_name: Option<usize>,
    user: Option<usize>,
    partition: Option<usize>,
    qos: Option<usize>,
    state: Option<usize>,
    start: usize,
    end: Option<usize>,
    elapsed_raw: Option<usize>,
    elapsed: Option<usize>,
    alloc_tres: Option<usize>,
    alloc_gres: Option<usize>,
    req_tres: Option<usize>,
    cluster: Option<usize>,
    node_list: Option<usize>,
    tres_usage_in_ave: Option<usize>,
    submit: Option<usize>,
    time_limit: Option<usize>,
    time_limit_raw: Option<usize>,
}

impl Columns {
    fn from_header(names: &[&str]) -> Result<Columns, String> {
        let find = |wanted: Field| names.iter().position(|n| field_of(n) == Some(wanted));
        let job_id = find(Field::JobId)
            .or_else(|| find(Field::JobIdRaw))
            .ok_or_else(|| format!("no JobID column in the header \"{}\"", names.join("|")))?;
        let start =
            find(Field::Start).ok_or_else(|| format!("no Start column in the header \"{}\"", names.join("|")))?;
        Ok(Columns {
            count: names.len(),
            job_id,
            job_name: find(Field::JobName),
            user: find(Field::User),
            partition: find(Field::Partition),
            qos: find(Field::Qos),
            state: find(Field::State),
            start,
            end: find(Field::End),
            elapsed_raw: find(Field::ElapsedRaw),
            elapsed: find(Field::Elapsed),
            alloc_tres: find(Field::AllocTres),
            alloc_gres: find(Field::AllocGres),
            req_tres: find(Field::ReqTres),
            cluster: find(Field::Cluster),
            node_list: find(Field::NodeList),
            tres_usage_in_ave: find(Field::TresUsageInAve),
            submit: find(Field::Submit),
            time_limit: find(Field::Timelimit),
            time_limit_raw: find(Field::TimelimitRaw),
        })
    }
}

fn split_row(line: &str, trailing_pipe: bool) -> Vec<&str> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let line = if trailing_pipe {
        line.strip_suffix('|').unwrap_or(line)
    } else {
        line
    };
    line.split('|').collect()
}

struct ParsedRow {
    alloc_id: String,
    is_step: bool,
    run: JobRun,
    node_list: Option<String>,
}

type Reject = (RejectReason, String);

/// What one row of a sacct export is.
enum Row {
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
    let get = |index: Option<usize>| {
        index
            .and_then(|i| fields.get(i))
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    };
    if let Some(minutes) = get(columns.time_limit_raw).and_then(|raw| raw.parse::<i64>().ok()) {
        return (minutes >= 0).then(|| minutes.saturating_mul(60_000));
    }
    get(columns.time_limit).and_then(|raw| parse_elapsed_ms(raw).ok().flatten())
}

/// Most tasks one pending array row may stand for.
const MAX_ARRAY_TASKS: usize = 100_000;

/// A pending array row (`3001_[9-12]`, `3001_[1-100%10]`) as one pending job per task; any
/// other row as itself.
fn array_tasks(job: PendingRun) -> Vec<PendingRun> {
    let Some((base, rest)) = job.job_id.split_once("_[") else {
        return vec![job];
    };
    let Some(inner) = rest.strip_suffix(']') else {
        return vec![job];
    };
    let indices = inner.split('%').next().unwrap_or(inner);
    match expand_hostlist(&format!("[{indices}]"), MAX_ARRAY_TASKS) {
        Ok(tasks) if !tasks.is_empty() => tasks
            .into_iter()
            .map(|task| PendingRun {
                job_id: format!("{base}_{task}"),
                ..job.clone()
            })
            .collect(),
        _ => vec![job],
    }
}

/// A row as a run, a pending job, or a job that never started.
fn parse_row(
    columns: &Columns,
    fields: &[&str],
    cluster_default: &str,
    line_no: u64,
    allocations: &mut HashSet<(String, String)>,
) -> Result<Row, Reject> {
    let get = |index: Option<usize>| {
        index
            .and_then(|i| fields.get(i))
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    };
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
    let get = |index: Option<usize>| {
        index
            .and_then(|i| fields.get(i))
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    };
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

enum SlurmTime {
    At(i64),
    Unknown,
    Invalid,
}

fn parse_slurm_time(raw: &str) -> SlurmTime {
    let s = raw.trim();
    if s.is_empty() || ["unknown", "none", "n/a"].iter().any(|m| s.eq_ignore_ascii_case(m)) {
        return SlurmTime::Unknown;
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return match s.parse::<i64>().ok().and_then(|secs| secs.checked_mul(1000)) {
            Some(ms) => SlurmTime::At(ms),
            None => SlurmTime::Invalid,
        };
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, format) {
            return SlurmTime::At(t.and_utc().timestamp_millis());
        }
    }
    match DateTime::parse_from_rfc3339(s) {
        Ok(t) => SlurmTime::At(t.timestamp_millis()),
        Err(_) => SlurmTime::Invalid,
    }
}

/// The run's length from `ElapsedRaw` (seconds) or else `Elapsed`; `None` when neither says.
fn elapsed_ms(columns: &Columns, fields: &[&str]) -> Result<Option<i64>, Reject> {
    let get = |index: Option<usize>| {
        index
            .and_then(|i| fields.get(i))
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    };
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

/// Slurm's `[D-]HH:MM:SS`, `HH:MM:SS`, `MM:SS` or `MM:SS.mmm`, in milliseconds.
/// `UNLIMITED`, `INVALID` and `Partition_Limit` say nothing about a duration: `None`.
pub(crate) fn parse_elapsed_ms(raw: &str) -> Result<Option<i64>, ()> {
    let s = raw.trim();
    if ["unlimited", "invalid", "partition_limit", "unknown"]
        .iter()
        .any(|m| s.eq_ignore_ascii_case(m))
    {
        return Ok(None);
    }
    let number = |part: &str| -> Result<i64, ()> {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(());
        }
        part.parse::<u32>().map(i64::from).map_err(|_| ())
    };
    let (days, clock) = match s.split_once('-') {
        Some((d, rest)) => (number(d)?, rest),
        None => (0, s),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    let (hours, minutes, seconds) = match parts.as_slice() {
        [h, m, sec] => (number(h)?, number(m)?, *sec),
        [m, sec] => (0, number(m)?, *sec),
        _ => return Err(()),
    };
    let (whole, millis) = match seconds.split_once('.') {
        Some((w, frac)) => {
            let frac_digits: String = frac.chars().chain("000".chars()).take(3).collect();
            (number(w)?, number(&frac_digits)?)
        }
        None => (number(seconds)?, 0),
    };
    Ok(Some(
        (((days * 24 + hours) * 60 + minutes) * 60 + whole) * 1000 + millis,
    ))
}

#[derive(Debug, Default, PartialEq)]
struct Gpus {
    count: f64,
    gpu_type: Option<String>,
}

/// GPUs from `AllocTRES`, else `AllocGRES`, else `ReqTRES`: the first column that is present
/// and not empty decides, even when it names no GPU (a CPU job).
fn gpus_of(columns: &Columns, fields: &[&str]) -> Result<Gpus, Reject> {
    let get = |index: Option<usize>| {
        index
            .and_then(|i| fields.get(i))
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    };
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

fn gpu_count(raw: &str) -> Result<f64, Reject> {
    match raw.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && (0.0..=MAX_JOB_GPUS).contains(&n) => Ok(n),
        Ok(n) if n < 0.0 => Err((RejectReason::NegativeGpus, format!("GPU count {raw}"))),
        _ => Err((RejectReason::UnparseableNumber, format!("GPU count \"{raw}\""))),
    }
}

/// `billing=8,cpu=8,gres/gpu=4,gres/gpu:h100=4,mem=96G,node=1` → 4 GPUs of type h100.
fn gpus_from_tres(raw: &str) -> Result<Gpus, Reject> {
    let mut untyped: Option<f64> = None;
    let mut typed_total = 0.0;
    let mut types: Vec<String> = Vec::new();
    for entry in raw.split(',') {
        let Some((key, value)) = entry.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        if key == "gres/gpu" {
            untyped = Some(untyped.unwrap_or(0.0) + gpu_count(value)?);
        } else if let Some(gpu_type) = key.strip_prefix("gres/gpu:") {
            typed_total += gpu_count(value)?;
            if !gpu_type.is_empty() && !types.iter().any(|t| t == gpu_type) {
                types.push(gpu_type.to_string());
            }
        }
    }
    Ok(Gpus {
        count: untyped.unwrap_or(typed_total),
        gpu_type: join_types(types),
    })
}

/// `gpu:a100:8`, `gpu:8`, `gpu:a100:4(IDX:0-3)`, `gpu:2(IDX:0,2),mps:100` → GPUs and type.
fn gpus_from_gres(raw: &str) -> Result<Gpus, Reject> {
    let mut count = 0.0;
    let mut types: Vec<String> = Vec::new();
    for item in split_outside_parens(raw) {
        let spec = item.split('(').next().unwrap_or("").trim();
        let mut parts = spec.split(':');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        if name != "gpu" && name != "gres/gpu" {
            continue;
        }
        let rest: Vec<&str> = parts.collect();
        let (gpu_type, n) = match rest.as_slice() {
            [] => (None, 1.0),
            [one] if one.trim().parse::<f64>().is_ok() => (None, gpu_count(one)?),
            [one] => (Some(*one), 1.0),
            [gpu_type, n, ..] => (Some(*gpu_type), gpu_count(n)?),
        };
        count += n;
        if let Some(t) = gpu_type.map(str::trim).filter(|t| !t.is_empty())
            && !types.iter().any(|seen| seen == t)
        {
            types.push(t.to_string());
        }
    }
    Ok(Gpus {
        count,
        gpu_type: join_types(types),
    })
}

fn join_types(mut types: Vec<String>) -> Option<String> {
    types.sort();
    (!types.is_empty()).then(|| types.join("+"))
}

fn split_outside_parens(raw: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut from = 0;
    for (i, c) in raw.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(&raw[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(&raw[from..]);
    items
}

#[cfg(test)]
mod tests {
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
        let empty = read_sacct(Path::new("jobs.txt"), "\n\n", "c").expect_err("empty");
        assert!(empty.contains("jobs.txt") && empty.contains("empty"), "{empty}");
        let no_id = read_sacct(Path::new("jobs.txt"), "Name|Start\nx|y\n", "c").expect_err("no JobID");
        assert!(no_id.contains("jobs.txt") && no_id.contains("JobID"), "{no_id}");
        let header_only = read_sacct(Path::new("jobs.txt"), "JobID|Start\n", "c").expect("header only");
        assert!(header_only.0.is_empty());
    }

    #[test]
    fn detects_sacct_headers() {
        assert!(looks_like_sacct(
            "JobID|JobName|User|Partition|QOS|State|Submit|Start|End|ElapsedRaw|AllocTRES|NodeList"
        ));
        assert!(looks_like_sacct("\u{feff}jobid|state|"));
        assert!(!looks_like_sacct("job_id,start,end"));
        assert!(!looks_like_sacct("JobID|Comment"));
    }
}
