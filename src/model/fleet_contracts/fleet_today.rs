//! What each audited cluster is and pays today: its accelerator, term, deployment and price,
//! from the plan's `[[clusters]]` or, for a cluster the plan does not list, the fallback rate.

use serde::Serialize;

use crate::model::catalog::{Catalog, Term};
use crate::model::contracts::TermKind;
use crate::model::deployment::Deployment;
use crate::model::fleet::{AuditReport, ClusterAudit};
use crate::model::plan::Plan;
use crate::model::workload::WorkloadClass;

/// The accelerator a cluster the plan does not list is taken to be: the seeds' reference GPU.
pub const UNLISTED_ACCELERATOR: &str = "h100-sxm";

/// One audited cluster as it is bought today.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterToday {
    pub name: String,
    /// The catalog's id when the catalog knows the accelerator, else the plan's spelling.
    pub accelerator: String,
    pub term: TermKind,
    pub deployment: Deployment,
    pub capacity_gpus: f64,
    /// The most GPUs that ran on it at once, as audited.
    pub peak_concurrent_gpus: f64,
    pub usd_per_gpu_hour: f64,
    pub price_source: String,
    /// The plan's own note of where the cluster's price comes from, when it gives one.
    pub plan_price_source: Option<String>,
    /// False when the plan does not list the cluster: accelerator, term and price are assumed.
    pub in_plan: bool,
    /// Not in the plan, and priced at the list price of the accelerator its log's GPU type
    /// names (rather than at the fallback rate, as an H100).
    pub list_priced: bool,
    /// When its commitment ends (the plan's `commitment_ends`), if the plan says.
    pub commitment_ends: Option<String>,
    /// Its cost today split over the classes (`WorkloadClass as usize`) by their GPU-hours on it.
    pub today_by_class_usd_per_month: [f64; 3],
    /// It cut to its p95 concurrent GPUs, at the same price and term.
    pub right_sized_usd_per_month: f64,
    /// Where today's cost comes from: capacity × price, or the bill's effective cost.
    pub today_source: TodaySource,
    /// The models its runs ran on, each as the catalog accelerator that stands for it (an
    /// H100, as it is priced, for one the catalog does not know) with its share of the
    /// cluster's GPU-hours: demand is carried to another accelerator model by model.
    #[serde(skip)]
    pub models: Vec<ModelShare>,
    /// Its models whose price nobody stated: at the fallback rate (the catalog cannot price
    /// them), or at the likely price of a range the plan's `[prices]` gives. Their cost is a
    /// driver of the board's range (`saving_range::UNSTATED_PRICES`).
    #[serde(skip)]
    pub unstated_models: Vec<UnstatedModel>,
}

/// A model whose price nobody stated as one figure.
#[derive(Debug, Clone, PartialEq)]
pub struct UnstatedModel {
    pub model: String,
    pub gpus: f64,
    /// What it is charged today per GPU-hour.
    pub usd_per_gpu_hour: f64,
    /// The plan's range (low, high); None at the fallback rate (then the catalog's span).
    pub range: Option<(f64, f64)>,
}

/// One model's share of a cluster's runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelShare {
    /// The catalog accelerator standing for the model.
    pub accelerator: String,
    /// False when the catalog does not know the model and `accelerator` is the stand-in.
    pub known: bool,
    pub gpu_hours_frac: f64,
}

/// A cluster's models as shares of its GPU-hours (of its GPUs when it ran nothing); one model,
/// the cluster's own accelerator, where the plan lists it or it holds one.
fn model_shares(cluster: &ClusterAudit, accelerator: &str) -> Vec<ModelShare> {
    let whole = || {
        vec![ModelShare {
            accelerator: accelerator.to_string(),
            known: true,
            gpu_hours_frac: 1.0,
        }]
    };
    // A plan's cluster of one model is its accelerator; one listing its models is carried by them.
    if cluster.models.len() < 2 {
        return whole();
    }
    let hours: f64 = cluster.models.iter().map(|m| m.gpu_hours).sum();
    let gpus: f64 = cluster.models.iter().map(|m| m.gpus).sum();
    if hours <= 0.0 && gpus <= 0.0 {
        return whole();
    }
    cluster
        .models
        .iter()
        .map(|m| ModelShare {
            accelerator: m.priced_as.clone().unwrap_or_else(|| UNLISTED_ACCELERATOR.to_string()),
            known: m.priced_as.is_some(),
            gpu_hours_frac: if hours > 0.0 {
                m.gpu_hours / hours
            } else {
                m.gpus / gpus
            },
        })
        .collect()
}

impl ClusterToday {
    /// Its price is an assumption: the plan does not list it, or lists it with a price marked
    /// "ASSUMED" (as `plan new --logs` writes it, to confirm).
    pub fn price_assumed(&self) -> bool {
        !self.in_plan
            || self
                .plan_price_source
                .as_deref()
                .is_some_and(crate::model::audit_settings::is_assumed_price)
    }

    /// What its models priced by nobody as one figure cost a month (none once a bill gives its cost).
    pub fn unstated_usd_per_month(&self, hours_per_month: f64) -> f64 {
        if !self.price_assumed() || self.today_source != TodaySource::CapacityTimesPrice {
            return 0.0;
        }
        self.unstated_models
            .iter()
            .map(|m| m.gpus * m.usd_per_gpu_hour)
            .sum::<f64>()
            * hours_per_month
    }

    /// The list price over the share of the hardware its deployment delivers.
    pub fn effective_usd_per_gpu_hour(&self) -> f64 {
        self.usd_per_gpu_hour / self.deployment.delivered_capability_frac()
    }
}

/// The contract kind of a plan's term.
pub fn term_kind(term: Term) -> TermKind {
    match term {
        Term::Spot => TermKind::Spot,
        Term::OnDemand => TermKind::OnDemand,
        Term::Monthly => TermKind::Monthly,
        Term::OneYear => TermKind::OneYear,
        Term::ThreeYear => TermKind::BuildToOrder,
    }
}

/// Every audited cluster with what it is bought as. A cluster the plan does not list is bought
/// on demand on VMs, as the accelerator its log's GPU type names at that one's list price, or
/// else as an H100 at the audit's fallback rate (the rate the seed quotes for that).
pub fn clusters_today(plan: &Plan, catalog: &Catalog, audit: &AuditReport) -> Vec<ClusterToday> {
    let fleet = fleet_class_hours(audit);
    audit
        .clusters
        .iter()
        .map(|cluster| {
            let shares = class_shares(cluster, fleet);
            let planned = plan.clusters.iter().find(|c| c.name == cluster.name);
            // Not in the plan: the accelerator the log's GPU type named, else an H100.
            let named = planned.map_or(cluster.priced_as.as_deref().unwrap_or(UNLISTED_ACCELERATOR), |c| {
                c.accelerator.as_str()
            });
            let accelerator = catalog.accelerator(named).map_or(named, |a| a.id.as_str());
            ClusterToday {
                name: cluster.name.clone(),
                accelerator: accelerator.to_string(),
                term: planned.map_or(TermKind::OnDemand, |c| term_kind(c.term)),
                deployment: planned.map_or(Deployment::Vm, |c| c.deployment),
                capacity_gpus: cluster.capacity_gpus,
                peak_concurrent_gpus: cluster.peak_concurrent_gpus,
                usd_per_gpu_hour: cluster.usd_per_gpu_hour,
                price_source: cluster.price_source.clone(),
                plan_price_source: planned.and_then(|c| c.price_source.clone()),
                in_plan: planned.is_some(),
                list_priced: planned.is_none() && cluster.priced_as.is_some(),
                commitment_ends: planned.and_then(|c| c.commitment_ends.clone()),
                today_by_class_usd_per_month: shares.map(|share| cluster.monthly_cost_usd * share),
                right_sized_usd_per_month: right_sized_cluster_usd_per_month(cluster),
                today_source: TodaySource::CapacityTimesPrice,
                models: model_shares(cluster, accelerator),
                unstated_models: cluster
                    .models
                    .iter()
                    .filter(|m| m.at_fallback_rate || m.usd_per_gpu_hour_range.is_some())
                    .map(|m| UnstatedModel {
                        model: m.model.clone(),
                        gpus: m.gpus,
                        usd_per_gpu_hour: m.usd_per_gpu_hour,
                        range: m.usd_per_gpu_hour_range.map(|[low, high]| (low, high)),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The class's GPUs in use on one cluster in each hour of the window.
pub fn cluster_class_series(cluster: &ClusterAudit, class: WorkloadClass) -> &[f64] {
    match class {
        WorkloadClass::Training => &cluster.hourly.training_gpus,
        WorkloadClass::Inference => &cluster.hourly.inference_gpus,
        WorkloadClass::Burst => &cluster.hourly.burst_gpus,
    }
}

/// The class's running jobs on one cluster, one whole GPU each, in each hour of the window.
pub fn cluster_class_floor(cluster: &ClusterAudit, class: WorkloadClass) -> &[f64] {
    match class {
        WorkloadClass::Training => &cluster.hourly.training_gpu_floor,
        WorkloadClass::Inference => &cluster.hourly.inference_gpu_floor,
        WorkloadClass::Burst => &cluster.hourly.burst_gpu_floor,
    }
}

/// One whole GPU in delivered capability, at bare metal's share.
const WHOLE_GPU_DELIVERED: f64 = crate::model::deployment::Deployment::BareMetal.delivered_capability_frac();

/// The class's demand carried to another accelerator, in delivered capability: Σ over clusters
/// of delivered share × GPUs × `factor`. A batch job of fixed work finishes sooner on a faster
/// GPU, so its GPU-hours shrink with the speed-up; an inference server holds its GPUs for as
/// long as it serves, so for inference each hour keeps at least the running jobs' whole-GPU
/// floor: a one-GPU server moved to a GPU twice as fast still holds a whole GPU (the sum of
/// floors bounds the sum of each job's need from below). A whole GPU is counted at bare
/// metal's delivered share: exactly one GPU on a bare-metal offer, a quarter more on a VM's,
/// never less than one on either.
pub fn carried_class_demand(
    audit: &AuditReport,
    class: WorkloadClass,
    delivered: impl Fn(usize) -> f64,
    factor: impl Fn(usize) -> f64,
) -> Vec<f64> {
    let floored = class == WorkloadClass::Inference;
    sum_class_series(audit, class, |index, gpus, whole| {
        let carried = delivered(index) * gpus * factor(index);
        if floored {
            carried.max(whole * WHOLE_GPU_DELIVERED)
        } else {
            carried
        }
    })
}

/// Σ over clusters, hour by hour, of `hour(cluster index, the class's GPUs, its whole-GPU floor)`.
fn sum_class_series(audit: &AuditReport, class: WorkloadClass, hour: impl Fn(usize, f64, f64) -> f64) -> Vec<f64> {
    let mut demand = vec![0.0; window_points(audit)];
    for (index, cluster) in audit.clusters.iter().enumerate() {
        let floor = cluster_class_floor(cluster, class);
        for (k, (slot, &gpus)) in demand.iter_mut().zip(cluster_class_series(cluster, class)).enumerate() {
            *slot += hour(index, gpus, floor.get(k).copied().unwrap_or(0.0));
        }
    }
    demand
}

/// Hours each point of the audit's series stands for (1 but for very long windows).
pub fn hours_per_point(audit: &AuditReport) -> f64 {
    f64::from(audit.window.resolution.hours_per_point)
}

/// Points in the audit's series: the longest cluster's.
pub fn window_points(audit: &AuditReport) -> usize {
    audit
        .clusters
        .iter()
        .map(|c| c.hourly.busy_gpus.len())
        .max()
        .unwrap_or(0)
}

/// Σ over clusters of the class's hourly GPUs, each weighted by `weight(cluster index)`:
/// delivered capability, or capability in another accelerator's GPUs.
pub fn weighted_class_demand(audit: &AuditReport, class: WorkloadClass, weight: impl Fn(usize) -> f64) -> Vec<f64> {
    sum_class_series(audit, class, |index, gpus, _| gpus * weight(index))
}

fn fleet_class_hours(audit: &AuditReport) -> [f64; 3] {
    WorkloadClass::ALL.map(|class| audit.classes.get(class).gpu_hours)
}

/// Each class's share of a cluster's GPU-hours; the fleet's shares for a cluster that ran
/// nothing (so its cost is not lost), equal shares for a fleet that ran nothing.
fn class_shares(cluster: &ClusterAudit, fleet: [f64; 3]) -> [f64; 3] {
    let hours = WorkloadClass::ALL.map(|class| cluster.classes.get(class).gpu_hours);
    let total: f64 = hours.iter().sum();
    let fleet_total: f64 = fleet.iter().sum();
    if total > 0.0 {
        hours.map(|h| h / total)
    } else if fleet_total > 0.0 {
        fleet.map(|h| h / fleet_total)
    } else {
        [1.0 / 3.0; 3]
    }
}

/// What the fleet costs a month, today and right-sized, in all and per class
/// (`WorkloadClass as usize`), summed from its clusters' rows: the board's steps 1 and 2 and
/// what the attribution of the saving starts from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FleetTotals {
    pub today_usd_per_month: f64,
    pub right_sized_usd_per_month: f64,
    pub today_by_class_usd_per_month: [f64; 3],
    pub right_sized_by_class_usd_per_month: [f64; 3],
}

/// Each cluster's cost today and right-sized (its p95 in whole GPUs, never above its
/// capacity, same price and term), the right-sized cost split over the classes as today's is.
pub fn fleet_totals(fleet: &[ClusterToday]) -> FleetTotals {
    let mut totals = FleetTotals {
        today_usd_per_month: 0.0,
        right_sized_usd_per_month: 0.0,
        today_by_class_usd_per_month: [0.0; 3],
        right_sized_by_class_usd_per_month: [0.0; 3],
    };
    for cluster in fleet {
        let today: f64 = cluster.today_by_class_usd_per_month.iter().sum();
        totals.today_usd_per_month += today;
        totals.right_sized_usd_per_month += cluster.right_sized_usd_per_month;
        for k in 0..3 {
            totals.today_by_class_usd_per_month[k] += cluster.today_by_class_usd_per_month[k];
            if today > 0.0 {
                totals.right_sized_by_class_usd_per_month[k] +=
                    cluster.right_sized_usd_per_month * cluster.today_by_class_usd_per_month[k] / today;
            }
        }
    }
    totals
}

fn right_sized_cluster_usd_per_month(c: &ClusterAudit) -> f64 {
    if c.capacity_gpus <= 0.0 {
        return 0.0;
    }
    let kept = c.p95_concurrent_gpus.ceil().min(c.capacity_gpus);
    c.monthly_cost_usd * kept / c.capacity_gpus
}

/// Where a cluster's cost today comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TodaySource {
    /// Its capacity at its price (the plan's, or a list price), hours per month.
    CapacityTimesPrice,
    /// The bill's effective cost of the cluster per month (FOCUS `EffectiveCost`).
    Bill,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_plan_term_has_a_contract_kind() {
        assert_eq!(term_kind(Term::ThreeYear), TermKind::BuildToOrder);
        assert_eq!(term_kind(Term::OneYear), TermKind::OneYear);
        assert_eq!(term_kind(Term::Spot), TermKind::Spot);
    }
}
