//! The audit's figures assembled from its totals: per cluster the capacity, utilization,
//! concurrency, stranded spend and flags, per class the summaries, and the rules, labels and
//! pending demand. The in-process audit (`audit_input`) and the warehouse's
//! (`data::warehouse`) both end here, so one set of totals gives one report whichever engine
//! summed them.

use std::collections::BTreeMap;

use super::classify::vocabulary::GPU_TYPES;
use super::classify::{label_rule_index, rule_name};
use super::run_totals::{ClusterAccumulator, step_length_ms, window_steps};
use super::{
    AuditReport, AuditSettings, ClassBreakdown, ClassSummary, ClusterAudit, HourlySeries, JobLine, LabelAgreement,
    PendingDemand, RuleUse, SpendParts, Window,
};
use crate::data::canonical::MS_PER_HOUR;
use crate::data::readers::reject::Quarantine;
use crate::model::cluster_models::{
    ClusterModels, ClusterRuns, ModelLine, TypedRuns, UNNAMED_MODEL, cluster_models, planned_models, whole_gpus,
};
use crate::model::fleet::UnknownLabel;
use crate::model::node_inventory::inventory_for;
use crate::model::utilization::{FlagInputs, UtilizationSource, cluster_flags};
use crate::model::workload::{ClassificationRules, WorkloadClass};

/// What an audit sums before its figures are worked out: per cluster its runs' totals and
/// occupancy changes, per rule its jobs and GPU-hours, the labels against the rules, the
/// largest jobs, the jobs that never started and the rows set aside.
pub struct AuditTotals {
    pub window: Window,
    /// Every cluster with a run in the window; each one's `jobs` counts the jobs with a run in it.
    pub clusters: Vec<ClusterAccumulator>,
    /// Jobs and GPU-hours by the index of the rule that decided them (`no_rule_index + 1` long).
    pub rule_jobs: Vec<u64>,
    pub rule_gpu_hours: Vec<f64>,
    /// Jobs by their label's class (row) and the rules' class (column; training when none held).
    pub label_matrix: [[u64; 3]; 3],
    pub unknown_labels: Vec<UnknownLabel>,
    pub top_jobs: Vec<JobLine>,
    /// Jobs that never started, by cluster.
    pub pending: BTreeMap<String, PendingDemand>,
    pub quarantine: Quarantine,
}

/// The audit's report from its totals.
pub fn assemble(totals: AuditTotals, rules: &ClassificationRules, settings: &AuditSettings) -> AuditReport {
    let AuditTotals {
        window,
        clusters: mut accumulators,
        rule_jobs,
        rule_gpu_hours,
        label_matrix: matrix,
        unknown_labels,
        top_jobs,
        pending: mut pending_of,
        quarantine,
    } = totals;
    let rule_count = rule_jobs.len();
    let steps = window_steps(&window);
    let mut pending_total = PendingDemand::default();
    for demand in pending_of.values() {
        pending_total.merge(demand);
    }
    accumulators.sort_by(|a, b| a.name.cmp(&b.name));
    let runs_total: u64 = accumulators.iter().map(|a| a.runs).sum();
    let mut all = ClassSums::default();
    let window_hours = (window.end_ms - window.start_ms) as f64 / MS_PER_HOUR;
    let mut clusters = Vec::new();
    // A node list that names no cluster is the logs' one cluster the plan does not list.
    let unlisted = accumulators
        .iter()
        .filter(|a| !settings.clusters.iter().any(|p| p.name == a.name))
        .count();
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
        let mut cluster = cluster_audit(acc, breakdown, steps, window_hours, &window, (settings, unlisted == 1));
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
    AuditReport {
        window,
        jobs_total,
        runs_total,
        rows_rejected_total: quarantine.total(),
        rows_rejected: quarantine.counts,
        rejected_samples: quarantine.samples,
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
    }
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

/// One cluster's line of the audit: capacity, utilization, concurrency, stranded spend, flags.
fn cluster_audit(
    acc: ClusterAccumulator,
    breakdown: ClassBreakdown,
    steps: usize,
    window_hours: f64,
    window: &Window,
    (settings, only_unlisted): (&AuditSettings, bool),
) -> ClusterAudit {
    let main_gpu_type = acc.main_gpu_type();
    let typed: Vec<TypedRuns> = acc
        .types
        .iter()
        .map(|t| TypedRuns {
            model: GPU_TYPES.name_of(t.code),
            gpu_hours: t.gpu_hours,
            largest_run_gpus: t.largest_run_gpus,
            busy: t.busy_steps(),
        })
        .collect();
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
    let gpu_type = main_gpu_type.map(|code| GPU_TYPES.name_of(code));
    let pricing = settings.clusters.iter().find(|p| p.name == name);
    let largest_run = [&breakdown.training, &breakdown.inference, &breakdown.burst]
        .iter()
        .map(|c| c.largest_run_gpus)
        .fold(0.0, f64::max);
    let runs = ClusterRuns {
        busy: &busy,
        gpu_hours: gpu_hours.iter().sum(),
        largest_run_gpus: largest_run,
        typed: &typed,
    };
    let (models, capacity, capacity_source, usd_per_gpu_hour, price_source, priced_as) = match pricing {
        // The plan sizes and prices it model by model.
        Some(p) if !p.models.is_empty() => {
            let models = planned_models(&runs, &p.models, settings);
            let (capacity, price) = (models.capacity_gpus(), models.usd_per_gpu_hour());
            (models, capacity, "plan", price, p.source.clone(), None)
        }
        // The plan sizes and prices it: one line, the plan's.
        Some(p) => {
            let capacity = p.capacity_gpus.unwrap_or_else(|| whole_gpus(peak, largest_run));
            let line = ModelLine {
                model: gpu_type.clone().unwrap_or_else(|| UNNAMED_MODEL.to_string()),
                priced_as: None,
                at_fallback_rate: false,
                usd_per_gpu_hour_range: None,
                gpus: capacity,
                usd_per_gpu_hour: p.usd_per_gpu_hour,
                price_source: p.source.clone(),
                gpu_hours: runs.gpu_hours,
                peak_gpus: peak,
            };
            let source = if p.capacity_gpus.is_some() {
                "plan"
            } else {
                "observed peak"
            };
            let models = ClusterModels {
                lines: vec![line],
                spread: None,
            };
            (models, capacity, source, p.usd_per_gpu_hour, p.source.clone(), None)
        }
        // Not in the plan: model by model, from its node list where one names it.
        None => {
            let node_list = inventory_for(&settings.node_inventories, &name, only_unlisted);
            let models = cluster_models(&runs, node_list, settings);
            let source = if node_list.is_some() {
                "node list"
            } else {
                "observed peak"
            };
            let (capacity, price, price_source, priced_as) = (
                models.capacity_gpus(),
                models.usd_per_gpu_hour(),
                models.price_source(node_list),
                models.priced_as(),
            );
            (models, capacity, source, price, price_source, priced_as)
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
    let non_training_idle = monthly_cost_usd * non_training_time_frac * (1.0 - non_training_utilization_frac);
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
        models: models.lines,
        models_spread: models.spread,
        monthly_cost_usd,
        non_training_idle_usd_per_month: non_training_idle,
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
        unmeasured: None,
        log: None,
        pending: PendingDemand::default(),
    }
}
