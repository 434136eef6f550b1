//! The audit and its passes: the job log's figures per cluster and class over a window.
//!
//! This module is the audit of docs/economics.md ("The audit"): its settings, its window, and per
//! cluster and class the jobs, GPU-hours, utilization over time, peak and p95 concurrency, and the
//! stranded spend (paid for, idle). GPU-hours count what ran: each run (attempt) is clipped to the
//! observation window and summed, so the gaps between a job's attempts, when it held no GPUs, cost
//! nothing. Its passes:
//! - `classify`: each job's class (per-run features while the log streams in, then per job);
//! - `run_totals`: the one pass over the runs (GPU-hours, utilization, occupancy);
//! - `top_jobs` and `job_details`: the largest jobs, and their text read back from the logs;
//! - `unknown_labels`: label values `[labels]` does not know, with their jobs and GPU-hours;
//! - `measured` and `host_map`: DCGM utilization samples and the clusters their hosts belong to;
//!   `node_clock`: nvidia-smi recordings' local times moved to UTC first;
//! - `oversized`: runs asking more GPUs than their cluster holds, kept out of the figures;
//! - `replay_jobs`: the audit's jobs as replay input;
//! - `fleet_source` and `partitioned`: logs kept ready to audit again, and datasets too large to
//!   hold, audited one cluster at a time.

mod assemble;
pub mod classify;
pub mod fleet_source;
pub mod host_map;
pub mod job_details;
pub mod measured;
pub mod node_clock;
pub mod oversized;
pub mod partitioned;
pub mod replay_jobs;
pub mod run_totals;
pub mod top_jobs;
pub mod unknown_labels;

use polars::prelude::*;

use super::canonical::{self as c, MS_PER_HOUR};

pub use self::assemble::{AuditTotals, assemble};
use self::classify::features::with_run_features;
use self::classify::{JOB_KEY, classify_jobs_with_stems, classify_pending, no_rule_index};
use self::job_details::RunOrigins;
use self::run_totals::{RunTotals, run_totals};
use self::top_jobs::{TopJobInputs, top_jobs};
use super::readers::load::LoadedLogs;
use super::readers::reject::Quarantine;
use crate::data::error::DataError;
pub use crate::model::audit_settings::{AuditSettings, ClusterPricing, WindowSpec};
pub use crate::model::fleet::{
    AuditReport, ClassBreakdown, ClassSummary, ClusterAudit, HourlySeries, JobLine, LabelAgreement, PendingDemand,
    RejectReason, RejectedRow, RuleUse, SpendParts, Window,
};
use crate::model::workload::{ClassificationRules, WorkloadClass};

fn err(e: PolarsError) -> DataError {
    DataError::Frame(e)
}

/// The instants the runs cover: the earliest start, the latest end and the latest start
/// (a run still running has no end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataSpan {
    pub min_start_ms: Option<i64>,
    pub max_end_ms: Option<i64>,
    pub max_start_ms: Option<i64>,
}

impl DataSpan {
    /// The span of both: for logs read in parts.
    pub fn union(self, other: DataSpan) -> DataSpan {
        let pick = |a: Option<i64>, b: Option<i64>, f: fn(i64, i64) -> i64| match (a, b) {
            (Some(a), Some(b)) => Some(f(a, b)),
            (a, b) => a.or(b),
        };
        DataSpan {
            min_start_ms: pick(self.min_start_ms, other.min_start_ms, i64::min),
            max_end_ms: pick(self.max_end_ms, other.max_end_ms, i64::max),
            max_start_ms: pick(self.max_start_ms, other.max_start_ms, i64::max),
        }
    }
}

pub fn data_span(runs: &DataFrame) -> Result<DataSpan, DataError> {
    let bounds = runs
        .clone()
        .lazy()
        .select([
            col(c::START).cast(DataType::Int64).min().alias("min_start"),
            col(c::END).cast(DataType::Int64).max().alias("max_end"),
            col(c::START).cast(DataType::Int64).max().alias("max_start"),
        ])
        .collect()
        .map_err(err)?;
    let get = |name: &str| -> Result<Option<i64>, DataError> {
        Ok(bounds.column(name).map_err(err)?.i64().map_err(err)?.get(0))
    };
    Ok(DataSpan {
        min_start_ms: get("min_start")?,
        max_end_ms: get("max_end")?,
        max_start_ms: get("max_start")?,
    })
}

/// The observation window the spec asks for, against the data's own span.
pub fn window_for(span: DataSpan, spec: WindowSpec) -> Result<Window, DataError> {
    let data_end = match (span.max_end_ms, span.max_start_ms) {
        (Some(end), Some(start)) => end.max(start),
        (None, Some(start)) => start,
        _ => return Err(DataError::NoUsableRows),
    };
    let data_start = span.min_start_ms.unwrap_or(data_end);
    let end_ms = spec.until_ms.unwrap_or(data_end);
    let start_ms = match (spec.since_ms, spec.days) {
        (Some(since), _) => since,
        (None, Some(days)) => (end_ms - (days * 24.0 * MS_PER_HOUR) as i64).max(data_start.min(end_ms)),
        (None, None) => data_start,
    };
    if end_ms <= start_ms {
        return Err(DataError::EmptyWindow { start_ms, end_ms });
    }
    Ok(Window::from_ms(start_ms, end_ms))
}

/// Resolves the observation window against the data's own span.
fn resolve_window(runs: &DataFrame, spec: WindowSpec) -> Result<Window, DataError> {
    window_for(data_span(runs)?, spec)
}

/// The runs with their classification features: computed here unless the reader did.
fn with_features(runs: &DataFrame, rules: &ClassificationRules) -> Result<DataFrame, DataError> {
    if runs.column(JOB_KEY).is_ok() {
        return Ok(runs.clone());
    }
    with_run_features(runs.clone().lazy(), rules)?.collect().map_err(err)
}

/// What an audit reads: the runs, the rows set aside, the jobs that never started and where
/// the runs came from (to name the largest jobs).
#[derive(Clone, Copy)]
pub struct AuditInput<'a> {
    pub runs: &'a DataFrame,
    pub quarantine: &'a Quarantine,
    /// Jobs that never started (`load::pending_frame`); an empty frame when there are none.
    pub pending: &'a DataFrame,
    pub origins: Option<&'a RunOrigins>,
}

impl<'a> AuditInput<'a> {
    pub fn of(logs: &'a LoadedLogs) -> AuditInput<'a> {
        AuditInput {
            runs: &logs.jobs,
            quarantine: &logs.quarantine,
            pending: &logs.pending,
            origins: Some(&logs.origins),
        }
    }
}

/// The audit of runs alone: no pending jobs, top jobs named only from the frame's columns.
pub fn audit(
    runs: &DataFrame,
    quarantine: &Quarantine,
    rules: &ClassificationRules,
    settings: &AuditSettings,
) -> Result<AuditReport, DataError> {
    let none = DataFrame::empty();
    audit_input(
        AuditInput {
            runs,
            quarantine,
            pending: &none,
            origins: None,
        },
        rules,
        settings,
    )
}

/// The audit of logs as `load_logs` read them.
pub fn audit_loaded(
    logs: &LoadedLogs,
    rules: &ClassificationRules,
    settings: &AuditSettings,
) -> Result<AuditReport, DataError> {
    audit_input(AuditInput::of(logs), rules, settings)
}

/// Each never-started job in the window, counted for its cluster and class (`classes`, one per
/// row). A job is in the window when it was submitted before the window's end (or says not
/// when) and had not left the queue before its start. Its GPU-hours: time limit × GPUs, else
/// its wait in the window (from its submit, or the window's start, to its cancellation, or the
/// window's end) × GPUs, else none.
fn pending_by_cluster(
    pending: &DataFrame,
    classes: &[WorkloadClass],
    window: &Window,
) -> Result<std::collections::BTreeMap<String, PendingDemand>, DataError> {
    let mut out: std::collections::BTreeMap<String, PendingDemand> = Default::default();
    if pending.height() == 0 {
        return Ok(out);
    }
    let clusters = pending.column(c::CLUSTER).map_err(err)?.str().map_err(err)?.clone();
    let gpus = pending.column(c::GPUS).map_err(err)?.f64().map_err(err)?.clone();
    let limits = pending
        .column(c::TIME_LIMIT_HOURS)
        .map_err(err)?
        .f64()
        .map_err(err)?
        .clone();
    let submits = c::int64_column(pending, c::SUBMIT)?;
    let ends = c::int64_column(pending, c::END)?;
    for (row, &class) in classes.iter().enumerate() {
        let (submit, end) = (submits.get(row), ends.get(row));
        if submit.is_some_and(|s| s >= window.end_ms) || end.is_some_and(|e| e <= window.start_ms) {
            continue;
        }
        let wait_hours = submit.map(|s| {
            let from = s.max(window.start_ms);
            let to = end.unwrap_or(window.end_ms).min(window.end_ms);
            (to - from).max(0) as f64 / MS_PER_HOUR
        });
        let cluster = clusters.get(row).unwrap_or("").to_string();
        out.entry(cluster).or_default().get_mut(class).add_job(
            gpus.get(row).unwrap_or(0.0),
            limits.get(row),
            wait_hours,
        );
    }
    Ok(out)
}

pub fn audit_input(
    input: AuditInput<'_>,
    rules: &ClassificationRules,
    settings: &AuditSettings,
) -> Result<AuditReport, DataError> {
    audit_input_classified(input, rules, settings).map(|(report, _)| report)
}

/// As `audit_input`, with each job's class as the audit decided it (in the runs' order, under the
/// window's end): the replay's jobs take them instead of classifying ten million runs again.
pub fn audit_input_classified(
    input: AuditInput<'_>,
    rules: &ClassificationRules,
    settings: &AuditSettings,
) -> Result<(AuditReport, self::classify::JobClasses), DataError> {
    let AuditInput {
        runs,
        quarantine,
        pending,
        origins,
    } = input;
    let window = resolve_window(runs, settings.window)?;
    let runs = with_features(runs, rules)?;
    let (jobs, stems) = classify_jobs_with_stems(&runs, rules, window.end_ms)?;
    let pending_of = if pending.height() > 0 {
        let pending = with_features(pending, rules)?;
        pending_by_cluster(&pending, &classify_pending(&pending, rules, &stems)?, &window)?
    } else {
        Default::default()
    };
    let rule_count = no_rule_index(rules) as usize + 1;
    let RunTotals {
        clusters: mut accumulators,
        rule_gpu_hours,
        unknown_label_gpu_hours,
        job_cluster,
        job_window_gpu_hours,
    } = run_totals(&runs, &jobs, rule_count, &window)?;

    let mut rule_jobs = vec![0u64; rule_count];
    let mut matrix = [[0u64; 3]; 3];
    let mut unknown_label_jobs: std::collections::HashMap<u32, u64> = Default::default();
    for (job, &cluster) in job_cluster.iter().enumerate() {
        if cluster == 0 {
            continue;
        }
        let class = jobs.class[job] as usize;
        accumulators[cluster as usize - 1].jobs[class] += 1;
        rule_jobs[jobs.rule[job] as usize] += 1;
        if let Some(label) = jobs.label_class[job] {
            // No rule matched: training by default.
            matrix[label as usize][jobs.rule_class[job].unwrap_or(WorkloadClass::Training) as usize] += 1;
        }
        if !jobs.unknown_label.is_empty()
            && let Some(&code) = jobs.unknown_label.get(&(job as u32))
        {
            *unknown_label_jobs.entry(code).or_default() += 1;
        }
    }

    let top_jobs = top_jobs(&TopJobInputs {
        runs: &runs,
        jobs: &jobs,
        job_cluster: &job_cluster,
        job_window_gpu_hours: &job_window_gpu_hours,
        cluster_names: &accumulators.iter().map(|a| a.name.clone()).collect::<Vec<_>>(),
        rules,
        window: &window,
        origins,
    })?;
    let totals = AuditTotals {
        window,
        clusters: accumulators,
        rule_jobs,
        rule_gpu_hours,
        label_matrix: matrix,
        unknown_labels: self::unknown_labels::named(&unknown_label_jobs, &unknown_label_gpu_hours),
        top_jobs,
        pending: pending_of,
        quarantine: quarantine.clone(),
    };
    let report = assemble(totals, rules, settings);
    Ok((report, jobs))
}
