//! What an audit reads of a plan and the command line: the window, each cluster's price and
//! capacity, the month, the utilization threshold and the host patterns. Plain data, compared
//! whole: when it changes, the audit runs again (the pipeline and the workbench ask the same
//! question of the same value).

use crate::model::catalog::{Accelerator, Catalog, SEED_H100_USD_PER_GPU_HOUR, Term, accelerator_for_gpu_type};
use crate::model::plan::model_prices::{ModelPrice, price_of};
use crate::model::plan::{Plan, host_patterns, host_utc_offsets_min};
use crate::shared::format::usd as usd_text;

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
    /// The plan's term for the cluster: a commitment, or on-demand and spot (nothing to shorten).
    pub term: Term,
    /// The plan's `[[clusters.models]]`; empty for a cluster of one model.
    pub models: Vec<PlannedModel>,
}

/// One model of a plan's cluster: its GPUs and price, and whether the plan marks the price as
/// an assumption to confirm (`price_source` "ASSUMED…", as `plan new --logs` writes it).
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedModel {
    pub model: String,
    pub gpus: f64,
    pub usd_per_gpu_hour: f64,
    pub assumed: bool,
}

/// A catalog accelerator's on-demand list price, for a cluster the plan does not list whose
/// log names that accelerator.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPrice {
    pub accelerator: Accelerator,
    pub usd_per_gpu_hour: f64,
    /// The offer quoted: provider, date and source.
    pub source: String,
}

/// How a cluster the plan does not list is priced: the log's GPU type named what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct UnlistedPrice {
    pub usd_per_gpu_hour: f64,
    pub source: String,
    /// The catalog's accelerator the price is for, when the log's GPU type names one.
    pub accelerator: Option<String>,
    /// At the fallback rate: neither the catalog nor the plan's `[prices]` prices the model.
    pub fallback: bool,
    /// The plan's `[prices]` range for it (low, high), when it gives one.
    pub range: Option<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AuditSettings {
    pub window: WindowSpec,
    pub hours_per_month: f64,
    pub clusters: Vec<ClusterPricing>,
    /// Price for clusters the plan does not name.
    pub default_usd_per_gpu_hour: f64,
    pub default_price_source: String,
    /// The catalog's list prices, for clusters the plan does not list whose log names their
    /// GPU type (none under `--cost-per-gpu-hour`, which prices every unlisted cluster).
    pub list_prices: Vec<ListPrice>,
    /// Clusters averaging below this are candidates for a shorter commitment.
    pub min_utilization_frac: f64,
    /// Cluster → host patterns (the plan's and the mapping's `[hosts]`), for DCGM samples.
    pub host_patterns: std::collections::BTreeMap<String, Vec<String>>,
    /// Cluster → the offset from UTC, in minutes, of the clock its nodes' nvidia-smi recordings
    /// were written on (the plan's `[hosts]` entries that give one).
    pub host_utc_offsets_min: std::collections::BTreeMap<String, i32>,
    /// The offset of recordings whose cluster's entry gives none (`--input-tz`); UTC without.
    pub input_utc_offset_min: Option<i32>,
    /// Node lists read beside the logs: each cluster the plan does not list is priced by
    /// what its nodes run on (`model::node_inventory`).
    pub node_inventories: Vec<super::node_inventory::NodeInventory>,
    /// The plan's `[prices]`: a model's price, or the catalog accelerator it is.
    pub model_prices: std::collections::BTreeMap<String, ModelPrice>,
}

/// Every catalog accelerator with an on-demand market price, at its list price.
fn list_prices(catalog: &Catalog) -> Vec<ListPrice> {
    catalog
        .accelerators
        .iter()
        .filter_map(|a| {
            let price = catalog.list_price(&a.id)?;
            Some(ListPrice {
                accelerator: a.clone(),
                usd_per_gpu_hour: price.usd_per_chip_hour(),
                source: format!("{} list price, {} ({})", price.provider, price.as_of, price.source),
            })
        })
        .collect()
}

/// Whether a plan's `price_source` marks the price as an assumption to confirm (`plan new
/// --logs` writes "ASSUMED, to confirm: …"; the workbench drops the mark once the price is set).
pub fn is_assumed_price(source: &str) -> bool {
    source.trim_start().starts_with("ASSUMED")
}

/// An audit's price source as a plan writes it, marked as an assumption to confirm (what
/// `is_assumed_price` reads back).
pub fn assumed_price_source(source: &str) -> String {
    let source = source.strip_prefix("assumed: ").unwrap_or(source);
    format!("ASSUMED, to confirm: {source}")
}

impl AuditSettings {
    /// The price of a cluster the plan does not list, whose log's GPU type is `gpu_type`: the
    /// catalog's list price for the accelerator it names, flagged as an assumption; else the
    /// fallback rate, saying why.
    pub fn unlisted_price(&self, gpu_type: Option<&str>) -> UnlistedPrice {
        let fallback = |why: String| UnlistedPrice {
            usd_per_gpu_hour: self.default_usd_per_gpu_hour,
            source: format!("{}{why}", self.default_price_source),
            accelerator: None,
            fallback: true,
            range: None,
        };
        let Some(gpu_type) = gpu_type else {
            return fallback(String::new());
        };
        // The plan's word first: a price, or the catalog accelerator the name stands for.
        let named = match price_of(&self.model_prices, gpu_type) {
            Some((entry, ModelPrice::UsdPerGpuHour(usd))) => {
                return UnlistedPrice {
                    usd_per_gpu_hour: *usd,
                    source: format!("the plan's [prices] {entry} = {}", usd_text(*usd)),
                    accelerator: None,
                    fallback: false,
                    range: None,
                };
            }
            Some((entry, ModelPrice::Range([low, likely, high]))) => {
                return UnlistedPrice {
                    usd_per_gpu_hour: *likely,
                    source: format!(
                        "the plan's [prices] {entry}: {} likely, {} to {}",
                        usd_text(*likely),
                        usd_text(*low),
                        usd_text(*high)
                    ),
                    accelerator: None,
                    fallback: false,
                    range: Some((*low, *high)),
                };
            }
            Some((entry, ModelPrice::Accelerator(accelerator))) => Some((entry, accelerator.as_str())),
            None => None,
        };
        if let Some((entry, accelerator)) = named
            && let Some((price, _)) = accelerator_for_gpu_type(&self.list_prices, accelerator, |p| &p.accelerator)
        {
            return UnlistedPrice {
                usd_per_gpu_hour: price.usd_per_gpu_hour,
                source: format!("the plan's [prices] {entry} = \"{accelerator}\": the {}", price.source),
                accelerator: Some(price.accelerator.id.clone()),
                fallback: false,
                range: None,
            };
        }
        match accelerator_for_gpu_type(&self.list_prices, gpu_type, |p| &p.accelerator) {
            Some((price, exact)) => UnlistedPrice {
                usd_per_gpu_hour: price.usd_per_gpu_hour,
                source: format!(
                    "assumed: the log's GPU type {gpu_type}{} at the {}",
                    if exact {
                        String::new()
                    } else {
                        format!(" taken as the {}", price.accelerator.name)
                    },
                    price.source
                ),
                accelerator: Some(price.accelerator.id.clone()),
                fallback: false,
                range: None,
            },
            None if self.list_prices.is_empty() => fallback(String::new()),
            None => fallback(format!("; the log's GPU type {gpu_type} is not in the catalog")),
        }
    }

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
                        capacity_gpus: Some(c.gpus),
                        usd_per_gpu_hour: cost_override.unwrap_or(c.usd_per_gpu_hour),
                        source: "plan".to_string(),
                        term: c.term,
                        models: c
                            .models
                            .iter()
                            .map(|m| PlannedModel {
                                model: m.model.clone(),
                                gpus: m.gpus,
                                usd_per_gpu_hour: cost_override.unwrap_or(m.usd_per_gpu_hour),
                                assumed: cost_override.is_none()
                                    && m.price_source.as_deref().is_some_and(is_assumed_price),
                            })
                            .collect(),
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
            list_prices: match cost_override {
                Some(_) => Vec::new(),
                None => list_prices(catalog),
            },
            min_utilization_frac: thresholds.permanent_allocation_min_utilization_frac,
            host_patterns: plan.map(|p| host_patterns(&p.hosts)).unwrap_or_default(),
            host_utc_offsets_min: plan.map(|p| host_utc_offsets_min(&p.hosts)).unwrap_or_default(),
            input_utc_offset_min: None,
            node_inventories: Vec::new(),
            model_prices: plan.map(|p| p.prices.clone()).unwrap_or_default(),
        }
    }
}
