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
//! Readings, each pinned by a test in `tests`:
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

mod budget;
mod columns;
pub mod format;
mod merge;
mod rows;
#[cfg(test)]
mod tests;
mod values;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use self::budget::ExpansionBudget;
use self::columns::{Columns, split_row};
use self::rows::{ParsedRow, Row, array_tasks, parse_row};
pub(crate) use self::values::parse_elapsed_ms;
use super::hostlist::{HostlistError, expand_hostlist};
use super::reject::{Quarantine, RejectReason, RejectedRow};
use crate::data::canonical::{JobRun, PendingRun};
use crate::data::error::DataError;

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
    /// Host lists that could not be expanded, hosts seen in two clusters, and what the file's
    /// expansion budget left out, with their lines.
    pub host_problems: Vec<String>,
}

impl SacctLog {
    pub fn into_parts(self) -> (Vec<JobRun>, Quarantine) {
        (self.runs, self.quarantine)
    }
}

/// Reads a sacct export into runs and a quarantine. See the module notes for the readings.
pub fn read_sacct(path: &Path, text: &str, cluster_default: &str) -> Result<(Vec<JobRun>, Quarantine), DataError> {
    read_sacct_detailed(path, text, cluster_default).map(SacctLog::into_parts)
}

/// As [`read_sacct`], with the counts of skipped and folded rows.
pub fn read_sacct_detailed(path: &Path, text: &str, cluster_default: &str) -> Result<SacctLog, DataError> {
    let file = path.display().to_string();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i as u64 + 1, l));
    let Some((header_no, header_line)) = lines.by_ref().find(|(_, l)| !l.trim().is_empty()) else {
        return Err(DataError::Empty.in_file(file));
    };
    // `sacct -p` ends every line with a `|`; `-P` does not.
    let trailing_pipe = header_line.trim_end().ends_with('|');
    let header_fields = split_row(header_line, trailing_pipe);
    let columns = Columns::from_header(&header_fields)
        .map_err(|why| why.not_format("sacct -P export").in_file_at(&file, header_no))?;

    let mut log = SacctLog::default();
    let mut budget = ExpansionBudget::new();
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
            Ok(Row::Pending(job)) => log.pending.extend(array_tasks(job, &mut budget)),
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
    if let Some(note) = budget.tasks_note(&file) {
        log.host_problems.push(note);
    }
    budget.allow_hosts_for_rows(parsed.len());
    let mut lists_seen: HashSet<(String, String)> = HashSet::new();
    for row in parsed {
        note_hosts(&mut log, &row, &file, &mut budget, &mut lists_seen);
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

impl SacctLog {
    /// Moves the jobs whose allocation names no GPU (CPU jobs) out of the runs into the
    /// quarantine, counted apart: a GPU audit never sees them as jobs of 0 GPUs.
    pub fn set_cpu_jobs_apart(&mut self, file: &str) {
        let (runs, cpu_only): (Vec<JobRun>, Vec<JobRun>) = std::mem::take(&mut self.runs)
            .into_iter()
            .partition(|run| run.gpus > 0.0);
        self.runs = runs;
        for run in cpu_only {
            self.quarantine.add(RejectedRow {
                file: file.to_string(),
                line: run.source_line,
                reason: RejectReason::CpuOnly,
                detail: format!("job {}: AllocTRES names no gres/gpu", run.job_id),
            });
        }
    }
}

/// Most hosts one `NodeList` may name: larger than any real allocation, small enough that a
/// hostile `n[0-99999999]` is refused before it is expanded.
const MAX_HOSTS_PER_JOB: usize = 100_000;
/// Problems listed per file; the rest are counted.
const MAX_HOST_PROBLEMS: usize = 20;

/// The row's hosts, assigned to its cluster (the first cluster seen on a host keeps it), while
/// the file's budget lasts. A list already seen for the cluster adds nothing and is not
/// expanded again.
fn note_hosts(
    log: &mut SacctLog,
    row: &ParsedRow,
    file: &str,
    budget: &mut ExpansionBudget,
    lists_seen: &mut HashSet<(String, String)>,
) {
    let Some(list) = row.node_list.as_deref() else { return };
    let problem = |log: &mut SacctLog, text: String| {
        if log.host_problems.len() < MAX_HOST_PROBLEMS {
            log.host_problems
                .push(format!("{file}:{}: {text}", row.run.source_line));
        }
    };
    if budget.hosts_left == 0 || !lists_seen.insert((row.run.cluster.clone(), list.to_string())) {
        return;
    }
    match expand_hostlist(list, MAX_HOSTS_PER_JOB.min(budget.hosts_left)) {
        Err(HostlistError::TooManyHosts { .. }) if budget.hosts_left < MAX_HOSTS_PER_JOB => {
            budget.hosts_left = 0;
            problem(log, ExpansionBudget::hosts_note());
        }
        Ok(hosts) => {
            budget.hosts_left -= hosts.len();
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
