//! A cluster as the GPU models it holds (docs/auditing.md, "Mixed fleets"): each model its own
//! capacity, price, GPU-hours and peak. A cluster the plan does not list is sized and priced
//! model by model, from its node list where one is given, else from the models its runs name,
//! each at its own catalog list price (or the fallback rate, named, where the catalog has none).
//!
//! A run's model is the one its row names. Runs naming none go to the cluster's only model, or,
//! where it has several, are spread over them in proportion to the GPU-hours of the runs that
//! do name one, or to their GPUs where none does: the share is said, never hidden.

use serde::Serialize;

use super::audit_settings::{AuditSettings, PlannedModel, UnlistedPrice};
use super::node_inventory::NodeInventory;
use crate::shared::format::{gpu_count, thousands, usd};

/// The model line of a cluster whose runs and node list name no model.
pub const UNNAMED_MODEL: &str = "(not named)";
/// The line of GPUs that ran at once beyond what a cluster's node list holds.
pub const BEYOND_NODE_LIST: &str = "(beyond the node list)";

/// One model of a cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelLine {
    /// The model as the log, the node list or the plan writes it.
    pub model: String,
    /// The catalog accelerator it is priced as; None for a price the plan's `[prices]` gives
    /// and at the fallback rate.
    pub priced_as: Option<String>,
    /// Priced at the fallback rate: neither the catalog nor the plan prices it.
    pub at_fallback_rate: bool,
    /// The plan's `[prices]` range of its price (low, high), when it gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usd_per_gpu_hour_range: Option<[f64; 2]>,
    /// Its capacity in GPUs.
    pub gpus: f64,
    pub usd_per_gpu_hour: f64,
    pub price_source: String,
    /// GPU-hours run on it in the window (runs naming no model: their share).
    pub gpu_hours: f64,
    /// The most GPUs that ran on it at once (a step's mean, as the cluster's peak).
    pub peak_gpus: f64,
}

/// One GPU type's runs on a cluster, as the audit summed them.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedRuns {
    pub model: String,
    pub gpu_hours: f64,
    pub largest_run_gpus: f64,
    /// Busy GPUs in each step of the window.
    pub busy: Vec<f64>,
}

/// What the cluster's runs add up to, whatever their model.
pub struct ClusterRuns<'a> {
    /// Busy GPUs in each step of the window, every run.
    pub busy: &'a [f64],
    pub gpu_hours: f64,
    pub largest_run_gpus: f64,
    /// The runs of each model their rows name.
    pub typed: &'a [TypedRuns],
}

/// A cluster sized and priced model by model.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterModels {
    pub lines: Vec<ModelLine>,
    /// Runs naming no model spread over several models: what was spread and how.
    pub spread: Option<String>,
}

impl ClusterModels {
    pub fn capacity_gpus(&self) -> f64 {
        self.lines.iter().map(|l| l.gpus).sum()
    }

    /// GPU-weighted over the models.
    pub fn usd_per_gpu_hour(&self) -> f64 {
        let gpus = self.capacity_gpus();
        if gpus > 0.0 {
            self.lines.iter().map(|l| l.gpus * l.usd_per_gpu_hour).sum::<f64>() / gpus
        } else {
            self.lines.first().map_or(0.0, |l| l.usd_per_gpu_hour)
        }
    }

    /// The catalog accelerator of the most GPUs the catalog prices.
    pub fn priced_as(&self) -> Option<String> {
        self.lines
            .iter()
            .filter(|l| l.priced_as.is_some())
            .fold(None::<&ModelLine>, |best, l| match best {
                Some(b) if b.gpus >= l.gpus => Some(b),
                _ => Some(l),
            })
            .and_then(|l| l.priced_as.clone())
    }

    /// Where the cluster's price comes from: its one model's source, or each model's GPUs and
    /// price (`node list` names its file and nodes before them).
    pub fn price_source(&self, node_list: Option<&NodeInventory>) -> String {
        let parts: Vec<String> = self
            .lines
            .iter()
            .map(|l| {
                let price = match l.at_fallback_rate {
                    false => usd(l.usd_per_gpu_hour),
                    true if l.model == BEYOND_NODE_LIST => format!("the fallback {}", usd(l.usd_per_gpu_hour)),
                    true => format!("the fallback {} (not in the catalog)", usd(l.usd_per_gpu_hour)),
                };
                match l.model.as_str() {
                    BEYOND_NODE_LIST => format!("{} more that ran at once at {price}", gpu_count(l.gpus)),
                    model => format!("{} {model} at {price}", gpu_count(l.gpus)),
                }
            })
            .collect();
        match (node_list, self.lines.as_slice()) {
            (Some(list), _) => format!(
                "node list {} ({} nodes): {}; list prices, assumed",
                list.source,
                thousands(list.nodes as f64),
                parts.join(", ")
            ),
            (None, [one]) => one.price_source.clone(),
            (None, _) => format!("by model: {}; list prices, assumed", parts.join(", ")),
        }
    }
}

/// A cluster the plan sizes model by model (`[[clusters.models]]`: model, GPUs, price per
/// GPU-hour): each at the plan's price, its runs by the model they name, the others spread by
/// GPUs.
pub fn planned_models(runs: &ClusterRuns<'_>, models: &[PlannedModel], settings: &AuditSettings) -> ClusterModels {
    let sized = models
        .iter()
        .map(|m| {
            let catalog = settings.unlisted_price(Some(&m.model));
            let price = UnlistedPrice {
                usd_per_gpu_hour: m.usd_per_gpu_hour,
                source: "plan".to_string(),
                accelerator: catalog.accelerator,
                // The plan keeps the fallback rate `plan new` wrote, marked as an assumption:
                // still a price nobody stated.
                fallback: m.assumed && catalog.fallback,
                range: None,
            };
            (m.model.clone(), m.gpus, price)
        })
        .collect();
    sized_models(runs, sized, settings, "the plan's models")
}

/// Models whose GPUs are given (a node list, the plan), each at its price: the runs naming one
/// are its own, the others (naming none, or a model not given) spread over all by GPUs.
fn sized_models(
    runs: &ClusterRuns<'_>,
    sized: Vec<(String, f64, UnlistedPrice)>,
    settings: &AuditSettings,
    spread_over: &str,
) -> ClusterModels {
    let steps = runs.busy.len();
    let typed_hours: f64 = runs.typed.iter().map(|t| t.gpu_hours).sum();
    let unnamed_hours = (runs.gpu_hours - typed_hours).max(0.0);
    let typed_busy = |t: &TypedRuns, m: usize| t.busy.get(m).copied().unwrap_or(0.0);
    let unnamed_busy: Vec<f64> = (0..steps)
        .map(|m| (runs.busy[m] - runs.typed.iter().map(|t| typed_busy(t, m)).sum::<f64>()).max(0.0))
        .collect();
    let capacity: f64 = sized.iter().map(|(_, g, _)| g).sum();
    let matched = |model: &str| -> Vec<&TypedRuns> {
        runs.typed
            .iter()
            .filter(|t| same_model(settings, &t.model, model))
            .collect()
    };
    let unmatched: Vec<&TypedRuns> = runs
        .typed
        .iter()
        .filter(|t| {
            !sized
                .iter()
                .any(|(m, _, _)| m != BEYOND_NODE_LIST && same_model(settings, &t.model, m))
        })
        .collect();
    let spread_hours = unnamed_hours + unmatched.iter().map(|t| t.gpu_hours).sum::<f64>();
    let spread_busy = |m: usize| unnamed_busy[m] + unmatched.iter().map(|t| typed_busy(t, m)).sum::<f64>();
    let count = sized.len();
    // Runs naming no model go where the runs that name one went (by their GPU-hours), and by
    // the models' GPUs where none names one: the same rule as a cluster sized from its runs.
    let own_hours = |model: &str| -> f64 {
        if model == BEYOND_NODE_LIST {
            0.0
        } else {
            matched(model).iter().map(|t| t.gpu_hours).sum()
        }
    };
    let named_hours: f64 = sized.iter().map(|(m, _, _)| own_hours(m)).sum();
    let lines = sized
        .into_iter()
        .map(|(model, gpus, price)| {
            let share = match (named_hours > 0.0, capacity > 0.0) {
                (true, _) => own_hours(&model) / named_hours,
                (false, true) => gpus / capacity,
                (false, false) => 0.0,
            };
            let own = if model == BEYOND_NODE_LIST {
                Vec::new()
            } else {
                matched(&model)
            };
            let hours = own.iter().map(|t| t.gpu_hours).sum::<f64>() + spread_hours * share;
            let busy = |m: usize| own.iter().map(|t| typed_busy(t, m)).sum::<f64>() + spread_busy(m) * share;
            ModelLine {
                priced_as: price.accelerator,
                at_fallback_rate: price.fallback,
                usd_per_gpu_hour_range: price.range.map(|(low, high)| [low, high]),
                usd_per_gpu_hour: price.usd_per_gpu_hour,
                price_source: price.source,
                gpus,
                gpu_hours: hours,
                peak_gpus: (0..steps).map(busy).fold(0.0, f64::max),
                model,
            }
        })
        .collect();
    let spread = (spread_hours > 0.0 && count > 1).then(|| {
        let by = if named_hours > 0.0 {
            "by the GPU-hours of the runs naming one"
        } else {
            "by their GPUs"
        };
        format!(
            "{} GPU-h of runs naming no model spread over {spread_over} {by}",
            thousands(spread_hours)
        )
    });
    ClusterModels { lines, spread }
}

/// Capacity where nothing states it: the most GPUs held at once, never below the largest run,
/// in whole GPUs (a fleet buys whole GPUs; shares of GPUs add up to a fraction of one). A
/// millionth above a whole GPU is rounding, not another GPU.
pub fn whole_gpus(peak_gpus: f64, largest_run_gpus: f64) -> f64 {
    (peak_gpus.max(largest_run_gpus) - 1e-6).ceil().max(0.0)
}

/// The node list's model a log's GPU type names: the same text, or the same catalog accelerator.
fn same_model(settings: &AuditSettings, a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim()) || {
        let (pa, pb) = (settings.unlisted_price(Some(a)), settings.unlisted_price(Some(b)));
        pa.accelerator.is_some() && pa.accelerator == pb.accelerator
    }
}

/// The cluster's models, each sized and priced: from `node_list` where given (its GPUs by
/// model), else from the models the runs name, each sized to the most GPUs it held at once
/// (never below its largest run) in whole GPUs.
pub fn cluster_models(
    runs: &ClusterRuns<'_>,
    node_list: Option<&NodeInventory>,
    settings: &AuditSettings,
) -> ClusterModels {
    let steps = runs.busy.len();
    let typed_hours: f64 = runs.typed.iter().map(|t| t.gpu_hours).sum();
    let unnamed_hours = (runs.gpu_hours - typed_hours).max(0.0);
    // Busy GPUs of the runs that name no model, step by step.
    let unnamed_busy: Vec<f64> = (0..steps)
        .map(|m| {
            (runs.busy[m]
                - runs
                    .typed
                    .iter()
                    .map(|t| t.busy.get(m).copied().unwrap_or(0.0))
                    .sum::<f64>())
            .max(0.0)
        })
        .collect();
    let price_of = |model: &str| settings.unlisted_price((model != UNNAMED_MODEL).then_some(model));
    let line = |model: &str, price: UnlistedPrice, gpus: f64, gpu_hours: f64, busy: &dyn Fn(usize) -> f64| ModelLine {
        model: model.to_string(),
        priced_as: price.accelerator,
        at_fallback_rate: price.fallback,
        usd_per_gpu_hour_range: price.range.map(|(low, high)| [low, high]),
        gpus,
        usd_per_gpu_hour: price.usd_per_gpu_hour,
        price_source: price.source,
        gpu_hours,
        peak_gpus: (0..steps).map(busy).fold(0.0, f64::max),
    };
    let typed_busy = |t: &TypedRuns, m: usize| t.busy.get(m).copied().unwrap_or(0.0);
    let whole = whole_gpus;
    if let Some(list) = node_list {
        // What ran at once beyond what the list holds is capacity too, said and priced as
        // the model the runs name most (else the fallback): never a cluster smaller than its peak.
        let needed = whole(runs.busy.iter().copied().fold(0.0, f64::max), runs.largest_run_gpus);
        let most_named = runs
            .typed
            .iter()
            .max_by(|a, b| a.gpu_hours.total_cmp(&b.gpu_hours))
            .map_or(UNNAMED_MODEL, |t| t.model.as_str());
        let mut sized: Vec<(String, f64, UnlistedPrice)> = list
            .gpus_by_model
            .iter()
            .map(|(model, gpus)| (model.clone(), *gpus, price_of(model)))
            .collect();
        let beyond = needed - list.gpus();
        if beyond > 0.0 {
            sized.push((BEYOND_NODE_LIST.to_string(), beyond, price_of(most_named)));
        }
        return sized_models(runs, sized, settings, "the node list's models");
    }
    match runs.typed {
        [] | [_] => {
            let model = runs.typed.first().map_or(UNNAMED_MODEL, |t| t.model.as_str());
            let mut one = line(model, price_of(model), 0.0, runs.gpu_hours, &|m| runs.busy[m]);
            one.gpus = whole(one.peak_gpus, runs.largest_run_gpus);
            ClusterModels {
                lines: vec![one],
                spread: None,
            }
        }
        several => {
            let lines = several
                .iter()
                .map(|t| {
                    let share = if typed_hours > 0.0 {
                        t.gpu_hours / typed_hours
                    } else {
                        0.0
                    };
                    let mut l = line(
                        &t.model,
                        price_of(&t.model),
                        0.0,
                        t.gpu_hours + unnamed_hours * share,
                        &|m| typed_busy(t, m) + unnamed_busy[m] * share,
                    );
                    l.gpus = whole(l.peak_gpus, t.largest_run_gpus);
                    l
                })
                .collect();
            let spread = (unnamed_hours > 0.0).then(|| {
                format!(
                    "{} GPU-h of runs naming no model spread over the models the others name, by their GPU-hours",
                    thousands(unnamed_hours)
                )
            });
            ClusterModels { lines, spread }
        }
    }
}

#[cfg(test)]
mod tests;
