//! Contract-term matching of an audited fleet: each class's hourly demand from the audit of the
//! plan's logs, matched against the catalog's offers (DOMAIN.md sections 2, 3.4 and 7).

use serde::Serialize;

use super::catalog::Catalog;
use super::contracts::{CapabilityRequirement, MatchRequest, MixRow, PureTermCost, match_class};
use super::fleet::AuditReport;
use super::plan::Plan;
use super::workload::WorkloadClass;

/// The accelerator demand is priced on when the plan names no cluster.
const DEFAULT_ACCELERATOR: &str = "h100-sxm";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassContracts {
    pub class: WorkloadClass,
    pub accelerator: String,
    pub peak_gpus: f64,
    pub demand_gpu_hours: f64,
    pub best_mix: Vec<MixRow>,
    pub cost_usd_per_month: f64,
    pub unused_committed_gpu_hours: f64,
    pub pure_terms: Vec<PureTermCost>,
    /// Offers left out because the class cannot run on them (memory, interconnect).
    pub excluded_offers: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractsReport {
    pub window_days: f64,
    pub classes: Vec<ClassContracts>,
    /// Problems that kept a class from being matched, e.g. no offer prices its accelerator.
    pub unmatched: Vec<String>,
    /// What the audited clusters cost today, consolidated.
    pub consolidated_usd_per_month: f64,
    /// The workload-matched plan: the sum of each class's best mix.
    pub matched_usd_per_month: f64,
    pub saving_usd_per_month: f64,
    pub saving_usd_per_year: f64,
}

/// The class's GPUs in use in each hour, summed over the clusters.
pub fn class_demand(audit: &AuditReport, class: WorkloadClass) -> Vec<f64> {
    let hours = audit
        .clusters
        .iter()
        .map(|c| c.hourly.busy_gpus.len())
        .max()
        .unwrap_or(0);
    let mut demand = vec![0.0; hours];
    for cluster in &audit.clusters {
        let series = match class {
            WorkloadClass::Training => &cluster.hourly.training_gpus,
            WorkloadClass::Inference => &cluster.hourly.inference_gpus,
            WorkloadClass::Burst => &cluster.hourly.burst_gpus,
        };
        for (slot, gpus) in demand.iter_mut().zip(series) {
            *slot += gpus;
        }
    }
    demand
}

/// Matches each class of the audit to the cheapest mix of terms. Training needs >= 80 GB and
/// NVLink/InfiniBand; burst survives spot preemption; inference and training do not.
pub fn contracts_report(plan: &Plan, catalog: &Catalog, audit: &AuditReport) -> Option<ContractsReport> {
    let offers = &catalog.contracts.as_ref()?.offers;
    let accelerator = plan
        .clusters
        .first()
        .map_or(DEFAULT_ACCELERATOR, |c| c.accelerator.as_str());
    let accelerator = catalog.accelerator(accelerator).map_or(accelerator, |a| a.id.as_str());
    let memory = |id: &str| catalog.accelerator(id).map(|a| a.memory_gb);
    let mut classes = Vec::new();
    let mut unmatched = Vec::new();
    for class in WorkloadClass::ALL {
        let demand = class_demand(audit, class);
        if demand.iter().all(|&g| g <= 0.0) {
            continue;
        }
        let request = MatchRequest {
            hourly_gpus: &demand,
            accelerator_id: accelerator,
            tolerates_preemption: class == WorkloadClass::Burst,
            requirement: if class == WorkloadClass::Training {
                CapabilityRequirement::TRAINING
            } else {
                CapabilityRequirement::NONE
            },
            hours_per_month: plan.hours_per_month,
            consolidated_usd: None,
        };
        match match_class(&request, offers, memory) {
            Ok(result) => classes.push(ClassContracts {
                class,
                accelerator: accelerator.to_string(),
                peak_gpus: result.peak_gpus,
                demand_gpu_hours: result.demand_gpu_hours,
                best_mix: result.best_mix,
                cost_usd_per_month: result.cost_usd_per_month,
                unused_committed_gpu_hours: result.unused_committed_gpu_hours,
                pure_terms: result.pure_terms,
                excluded_offers: result.excluded_offer_ids,
            }),
            Err(e) => unmatched.push(format!("{}: {e}", class.label())),
        }
    }
    let consolidated: f64 = audit.clusters.iter().map(|c| c.monthly_cost_usd).sum();
    let matched: f64 = classes.iter().map(|c| c.cost_usd_per_month).sum();
    Some(ContractsReport {
        window_days: audit.window.days,
        classes,
        unmatched,
        consolidated_usd_per_month: consolidated,
        matched_usd_per_month: matched,
        saving_usd_per_month: consolidated - matched,
        saving_usd_per_year: (consolidated - matched) * 12.0,
    })
}
