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
//! - `replay_jobs`: the audit's jobs as replay input;
//! - `fleet_source` and `partitioned`: logs kept ready to audit again, and datasets too large to
//!   hold, audited one cluster at a time.

pub mod classify;
pub mod fleet_source;
pub mod host_map;
pub mod job_details;
pub mod measured;
pub mod node_clock;
pub mod partitioned;
pub mod replay_jobs;
pub mod run_totals;
pub mod top_jobs;
pub mod unknown_labels;

use polars::prelude::*;

use super::canonical::{self as c, MS_PER_HOUR};

use self::classify::features::with_run_features;
use self::classify::vocabulary::GPU_TYPES;
use self::classify::{JOB_KEY, classify_jobs_with_stems, classify_pending, label_rule_index, no_rule_index, rule_name};
use self::job_details::RunOrigins;
use self::run_totals::{ClusterAccumulator, RunTotals, run_totals, step_length_ms, window_steps};
use self::top_jobs::{TopJobInputs, top_jobs};
use super::readers::load::LoadedLogs;
use super::readers::reject::Quarantine;
use crate::data::error::DataError;
pub use crate::model::audit_settings::{AuditSettings, ClusterPricing, WindowSpec};
pub use crate::model::fleet::{
    AuditReport, ClassBreakdown, ClassSummary, ClusterAudit, HourlySeries, JobLine, LabelAgreement, PendingDemand,
    RejectReason, RejectedRow, RuleUse, SpendParts, Window,
};
use crate::model::utilization::{FlagInputs, UtilizationSource, cluster_flags};
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

/// The steps' mean in each series point (`steps_per_point` steps; the last may be short).
fn point_means(steps: &[f64], steps_per_point: usize) -> Vec<f64> {
    steps
        .chunks(steps_per_point)
        .map(|point| point.iter().sum::<f64>() / point.len() as f64)
        .collect()
}

fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Per-class sums of a cluster or the fleet (`WorkloadClass as usize`).
#[derive(Default)]
struct ClassSums {
    gpu_hours: [f64; 3],
    util_gpu_hours: [f64; 3],
    util_weight: [f64; 3],
    jobs: [u64; 3],
    largest_run_gpus: [f64; 3],
}

/// Each class's summary, with its share of the GPU-hours.
fn summaries(sums: ClassSums) -> ClassBreakdown {
    let ClassSums {
        gpu_hours,
        util_gpu_hours,
        util_weight,
        jobs,
        largest_run_gpus,
    } = sums;
    let all: f64 = gpu_hours.iter().sum();
    let summary = |k: usize| ClassSummary {
        jobs: jobs[k],
        largest_run_gpus: largest_run_gpus[k],
        gpu_hours: gpu_hours[k],
        gpu_hours_share: if all > 0.0 { gpu_hours[k] / all } else { 0.0 },
        mean_util_frac: (util_weight[k] > 0.0).then(|| util_gpu_hours[k] / util_weight[k]),
        util_weight_gpu_hours: util_weight[k],
    };
    ClassBreakdown {
        training: summary(0),
        inference: summary(1),
        burst: summary(2),
    }
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
    let mut pending_of = if pending.height() > 0 {
        let pending = with_features(pending, rules)?;
        pending_by_cluster(&pending, &classify_pending(&pending, rules, &stems)?, &window)?
    } else {
        Default::default()
    };
    let mut pending_total = PendingDemand::default();
    for demand in pending_of.values() {
        pending_total.merge(demand);
    }
    let steps = window_steps(&window);
    let rule_count = no_rule_index(rules) as usize + 1;
    let RunTotals {
        clusters: mut accumulators,
        rule_gpu_hours,
        unknown_label_gpu_hours,
        job_cluster,
        job_rank_gpu_hours,
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
        job_rank_gpu_hours: &job_rank_gpu_hours,
        cluster_names: &accumulators.iter().map(|a| a.name.clone()).collect::<Vec<_>>(),
        rules,
        window: &window,
        origins,
    })?;
    accumulators.sort_by(|a, b| a.name.cmp(&b.name));
    let runs_total: u64 = accumulators.iter().map(|a| a.runs).sum();
    let mut all = ClassSums::default();
    let window_hours = (window.end_ms - window.start_ms) as f64 / MS_PER_HOUR;
    let mut clusters = Vec::new();
    for acc in accumulators {
        for k in 0..3 {
            all.gpu_hours[k] += acc.gpu_hours[k];
            all.util_gpu_hours[k] += acc.util_gpu_hours[k];
            all.util_weight[k] += acc.util_weight[k];
            all.jobs[k] += acc.jobs[k];
            all.largest_run_gpus[k] = all.largest_run_gpus[k].max(acc.largest_run_gpus[k]);
        }
        let breakdown = summaries(ClassSums {
            gpu_hours: acc.gpu_hours,
            util_gpu_hours: acc.util_gpu_hours,
            util_weight: acc.util_weight,
            jobs: acc.jobs,
            largest_run_gpus: acc.largest_run_gpus,
        });
        let pending = pending_of.remove(&acc.name).unwrap_or_default();
        let mut cluster = cluster_audit(acc, breakdown, steps, window_hours, &window, settings);
        cluster.pending = pending;
        clusters.push(cluster);
    }
    let jobs_total: u64 = all.jobs.iter().sum();
    let gpu_hours_total: f64 = all.gpu_hours.iter().sum();
    let classes = summaries(all);
    let mut rule_uses: Vec<RuleUse> = (0..rule_count)
        .filter(|&i| rule_jobs[i] > 0)
        .map(|i| RuleUse {
            rule: rule_name(rules, i as u32),
            class: rules.rules.get(i).map_or_else(
                || {
                    if i as u32 == label_rule_index(rules) {
                        "labels".to_string()
                    } else {
                        WorkloadClass::Training.label().to_string()
                    }
                },
                |r| r.class.label().to_string(),
            ),
            jobs: rule_jobs[i],
            gpu_hours: rule_gpu_hours[i],
        })
        .collect();
    rule_uses.sort_by(|a, b| b.gpu_hours.total_cmp(&a.gpu_hours));
    let labeled: u64 = matrix.iter().flatten().sum();
    let label_agreement = (labeled > 0).then(|| LabelAgreement {
        labeled_jobs: labeled,
        agreement_frac: (0..3).map(|i| matrix[i][i]).sum::<u64>() as f64 / labeled as f64,
        matrix,
    });
    let unknown_labels = self::unknown_labels::named(&unknown_label_jobs, &unknown_label_gpu_hours);
    let report = AuditReport {
        window,
        jobs_total,
        runs_total,
        rows_rejected: quarantine.counts.clone(),
        rows_rejected_total: quarantine.total(),
        rejected_samples: quarantine.samples.clone(),
        gpu_hours_total,
        gpu_hours_counting: "each run (attempt) clipped to the window and summed: gaps between attempts hold no GPUs",
        classes,
        clusters,
        rules: rule_uses,
        label_agreement,
        unknown_labels,
        top_jobs,
        measured_utilization: None,
        measurement_notes: Vec::new(),
        pending: pending_total,
    };
    Ok((report, jobs))
}

/// One cluster's line of the audit: capacity, utilization, concurrency, stranded spend, flags.
fn cluster_audit(
    acc: ClusterAccumulator,
    breakdown: ClassBreakdown,
    steps: usize,
    window_hours: f64,
    window: &Window,
    settings: &AuditSettings,
) -> ClusterAudit {
    let main_gpu_type = acc.main_gpu_type();
    let ClusterAccumulator {
        name,
        occupancy,
        gpu_hours,
        util_weight,
        jobs,
        ..
    } = acc;
    let occ = occupancy.integrate();
    let resolution = window.resolution;
    let steps_per_point = resolution.steps_per_point();
    let step_minutes = resolution.step_minutes;
    let busy: Vec<f64> = (0..steps)
        .map(|m| occ.busy_by_class.iter().map(|s| s[m]).sum())
        .collect();
    let peak = busy.iter().copied().fold(0.0, f64::max);
    let pricing = settings.clusters.iter().find(|p| p.name == name);
    let (capacity, capacity_source) = match pricing.and_then(|p| p.capacity_gpus) {
        Some(capacity) => (capacity, "plan"),
        None => (peak, "observed peak"),
    };
    let gpu_type = main_gpu_type.map(|code| GPU_TYPES.name_of(code));
    let (usd_per_gpu_hour, price_source, priced_as) = match pricing {
        Some(p) => (p.usd_per_gpu_hour, p.source.clone(), None),
        None => {
            let unlisted = settings.unlisted_price(gpu_type.as_deref());
            (unlisted.usd_per_gpu_hour, unlisted.source, unlisted.accelerator)
        }
    };
    let gpu_hours: f64 = gpu_hours.iter().sum();
    let utilization_reported = util_weight.iter().sum::<f64>() > 0.0;
    // Each step weighs by its length inside the window (the last may be cut short).
    let window_ms = window.end_ms - window.start_ms;
    let step_hours: Vec<f64> = (0..steps)
        .map(|m| step_length_ms(m, steps, resolution.step_ms(), window_ms) as f64 / MS_PER_HOUR)
        .collect();
    let utilized_hours: f64 = occ.utilized.iter().zip(&step_hours).map(|(g, h)| g * h).sum();
    let capacity_hours = capacity * window_hours;
    // A share of what was paid for: never below nothing, never above all of it.
    // (`+ 0.0` turns the -0.0 an empty sum gives into 0.)
    let share = |x: f64, of: f64| if of > 0.0 { (x / of).clamp(0.0, 1.0) + 0.0 } else { 0.0 };
    let non_training: Vec<usize> = (0..steps).filter(|&m| occ.busy_by_class[0][m] <= 0.0).collect();
    let non_training_hours: f64 = non_training.iter().map(|&m| step_hours[m]).sum();
    let non_training_time_frac = share(non_training_hours, step_hours.iter().sum());
    let non_training_utilization_frac = if non_training.is_empty() || capacity <= 0.0 {
        0.0
    } else {
        share(
            non_training
                .iter()
                .map(|&m| occ.utilized[m] * step_hours[m])
                .sum::<f64>(),
            non_training_hours * capacity,
        )
    };
    let monthly_cost_usd = capacity * usd_per_gpu_hour * settings.hours_per_month;
    let stranded = monthly_cost_usd * non_training_time_frac * (1.0 - non_training_utilization_frac);
    let utilization_frac = share(utilized_hours, capacity_hours);
    let utilization_source = if utilization_reported {
        UtilizationSource::JobLog
    } else {
        UtilizationSource::Allocation
    };
    let term = pricing.map(|p| p.term);
    let flags = cluster_flags(&FlagInputs {
        runs_all_classes: jobs.iter().all(|&j| j > 0),
        has_gpus: gpu_hours > 0.0,
        utilization_frac,
        source: utilization_source,
        min_utilization_frac: settings.min_utilization_frac,
        term,
    });
    let allocation_frac = share(gpu_hours, capacity_hours);
    let spend_parts = SpendParts::of(monthly_cost_usd, allocation_frac, utilization_frac, utilization_source);
    let non_training_minutes = occ.busy_by_class[0]
        .chunks(steps_per_point)
        .map(|point| point.iter().filter(|&&busy| busy <= 0.0).count() as u32 * step_minutes)
        .collect();
    ClusterAudit {
        name,
        capacity_gpus: capacity,
        capacity_source: capacity_source.to_string(),
        jobs: jobs.iter().sum(),
        gpu_hours,
        allocation_frac,
        utilization_frac,
        utilization_reported,
        utilization_source,
        peak_concurrent_gpus: peak,
        p95_concurrent_gpus: percentile(&busy, 0.95),
        classes: breakdown,
        non_training_time_frac,
        non_training_utilization_frac,
        usd_per_gpu_hour,
        price_source,
        gpu_type,
        priced_as,
        term,
        monthly_cost_usd,
        stranded_usd_per_month: stranded,
        spend_parts,
        flags,
        hourly: HourlySeries {
            start_ms: window.start_ms,
            hours_per_point: resolution.hours_per_point,
            busy_gpus: point_means(&busy, steps_per_point),
            utilized_gpus: point_means(&occ.utilized, steps_per_point),
            training_gpus: point_means(&occ.busy_by_class[0], steps_per_point),
            inference_gpus: point_means(&occ.busy_by_class[1], steps_per_point),
            burst_gpus: point_means(&occ.busy_by_class[2], steps_per_point),
            training_gpu_floor: point_means(&occ.floor_by_class[0], steps_per_point),
            inference_gpu_floor: point_means(&occ.floor_by_class[1], steps_per_point),
            burst_gpu_floor: point_means(&occ.floor_by_class[2], steps_per_point),
            non_training_minutes,
        },
        measured: None,
        log: None,
        pending: PendingDemand::default(),
    }
}
