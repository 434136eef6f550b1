//! What an audit reads of a plan and the command line: the window, each cluster's price and
//! capacity, the month, the utilization threshold and the host patterns. Plain data, compared
//! whole: when it changes, the audit runs again (the pipeline and the workbench ask the same
//! question of the same value).

use crate::model::catalog::{Catalog, SEED_H100_USD_PER_GPU_HOUR, Term};
use crate::model::plan::Plan;

/// Which span of the log the audit looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowSpec {
    /// Days before the end; `None` with no `since` means the whole log.
    pub days: Option<f64>,
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
}

impl Default for WindowSpec {
    /// The last 90 days of the data.
    fn default() -> WindowSpec {
        WindowSpec {
            days: Some(90.0),
            since_ms: None,
            until_ms: None,
        }
    }
}

/// What a cluster costs and holds, from the plan or the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterPricing {
    pub name: String,
    pub capacity_gpus: Option<f64>,
    pub usd_per_gpu_hour: f64,
    pub source: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AuditSettings {
    pub window: WindowSpec,
    pub hours_per_month: f64,
    pub clusters: Vec<ClusterPricing>,
    /// Price for clusters the plan does not name.
    pub default_usd_per_gpu_hour: f64,
    pub default_price_source: String,
    /// Clusters averaging below this are candidates for a shorter commitment.
    pub min_utilization_frac: f64,
    /// Cluster → host patterns (the plan's and the mapping's `[hosts]`), for DCGM samples.
    pub host_patterns: std::collections::BTreeMap<String, Vec<String>>,
}

impl AuditSettings {
    /// The settings a plan implies: its clusters' capacity and price (or `cost_override`), its
    /// month and its utilization threshold; unlisted clusters at the seed's H100 rate.
    pub fn for_plan(
        catalog: &Catalog,
        plan: Option<&Plan>,
        window: WindowSpec,
        cost_override: Option<f64>,
    ) -> AuditSettings {
        let hours_per_month = plan.map_or(crate::model::plan::HOURS_PER_MONTH, |p| p.hours_per_month);
        let clusters = plan
            .map(|p| {
                p.clusters
                    .iter()
                    .map(|c| ClusterPricing {
                        name: c.name.clone(),
                        capacity_gpus: Some(f64::from(c.gpus)),
                        usd_per_gpu_hour: cost_override.unwrap_or(c.usd_per_gpu_hour),
                        source: "plan".to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let seed_rate = catalog
            .prices_for("h100-sxm", "seed-001", Term::OnDemand)
            .first()
            .map(|p| (p.usd_per_chip_hour(), format!("{}: {}", p.provider, p.source)));
        let (default_usd_per_gpu_hour, default_price_source) = match (cost_override, seed_rate) {
            (Some(rate), _) => (rate, "--cost-per-gpu-hour".to_string()),
            (None, Some(seed)) => seed,
            (None, None) => (SEED_H100_USD_PER_GPU_HOUR, "seed 001 H100 hyperscaler rate".to_string()),
        };
        let thresholds = match plan {
            Some(p) => catalog.thresholds.with_overrides(&p.thresholds),
            None => catalog.thresholds,
        };
        AuditSettings {
            window,
            hours_per_month,
            clusters,
            default_usd_per_gpu_hour,
            default_price_source,
            min_utilization_frac: thresholds.permanent_allocation_min_utilization_frac,
            host_patterns: plan.map(|p| p.hosts.clone()).unwrap_or_default(),
        }
    }
}
