//! A cluster priced by what it runs on: a node list's GPUs by model give the cluster its
//! capacity and a price per GPU-hour weighted over its accelerators, each model at the
//! catalog's list price (or, where the catalog cannot price it, the stated fallback, named).

use super::audit_settings::AuditSettings;
use crate::shared::format::{gpu_count, thousands, usd};

/// A cluster's machines as a node list gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeInventory {
    /// The cluster the list names; None: the logs' one cluster the plan does not list.
    pub cluster: Option<String>,
    /// The node list, as messages name it.
    pub source: String,
    /// GPUs by model as the list writes them, most GPUs first.
    pub gpus_by_model: Vec<(String, f64)>,
    pub nodes: u64,
}

/// How an inventory prices its cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct InventoryPrice {
    pub capacity_gpus: f64,
    /// GPU-weighted over the models.
    pub usd_per_gpu_hour: f64,
    /// Each model's GPUs and price, and which the catalog could not price.
    pub source: String,
    /// The catalog accelerator of the most GPUs the catalog prices, if any.
    pub priced_as: Option<String>,
    /// The share of its GPUs priced at the fallback rate (models the catalog does not know).
    pub fallback_frac: f64,
}

impl NodeInventory {
    pub fn gpus(&self) -> f64 {
        self.gpus_by_model.iter().map(|(_, g)| g).sum()
    }

    /// Each model at its list price, or at the fallback rate where the catalog has none.
    pub fn price(&self, settings: &AuditSettings) -> InventoryPrice {
        let capacity_gpus = self.gpus();
        let mut cost = 0.0;
        let mut fallback_gpus = 0.0;
        let mut priced_as: Option<(String, f64)> = None;
        let mut parts = Vec::new();
        for (model, gpus) in &self.gpus_by_model {
            let price = settings.unlisted_price(Some(model));
            cost += gpus * price.usd_per_gpu_hour;
            match &price.accelerator {
                Some(accelerator) => {
                    if priced_as.as_ref().is_none_or(|(_, most)| gpus > most) {
                        priced_as = Some((accelerator.clone(), *gpus));
                    }
                    parts.push(format!(
                        "{} {model} at {}",
                        gpu_count(*gpus),
                        usd(price.usd_per_gpu_hour)
                    ));
                }
                None => {
                    fallback_gpus += gpus;
                    parts.push(format!(
                        "{} {model} at the fallback {} (not in the catalog)",
                        gpu_count(*gpus),
                        usd(price.usd_per_gpu_hour)
                    ));
                }
            }
        }
        let usd_per_gpu_hour = if capacity_gpus > 0.0 { cost / capacity_gpus } else { 0.0 };
        InventoryPrice {
            capacity_gpus,
            usd_per_gpu_hour,
            source: format!(
                "node list {} ({} nodes): {}; list prices, assumed",
                self.source,
                thousands(self.nodes as f64),
                parts.join(", ")
            ),
            priced_as: priced_as.map(|(a, _)| a),
            fallback_frac: if capacity_gpus > 0.0 {
                fallback_gpus / capacity_gpus
            } else {
                0.0
            },
        }
    }
}

/// The inventory of `cluster`: the one naming it, else (when `only_unlisted` holds: the logs
/// hold one cluster the plan does not list) one that names no cluster.
pub fn inventory_for<'a>(
    inventories: &'a [NodeInventory],
    cluster: &str,
    only_unlisted: bool,
) -> Option<&'a NodeInventory> {
    inventories
        .iter()
        .find(|i| i.cluster.as_deref() == Some(cluster))
        .or_else(|| {
            only_unlisted
                .then(|| inventories.iter().find(|i| i.cluster.is_none()))
                .flatten()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::audit_settings::WindowSpec;

    #[test]
    fn a_mix_is_priced_gpu_weighted_and_what_the_catalog_cannot_price_is_named() {
        let catalog = crate::config::catalog::builtin().catalog;
        let settings = AuditSettings::for_plan(&catalog, None, WindowSpec::default(), None);
        let inventory = NodeInventory {
            cluster: None,
            source: "nodes.csv".into(),
            gpus_by_model: vec![("T4".into(), 8.0), ("G2".into(), 2.0)],
            nodes: 3,
        };
        let price = inventory.price(&settings);
        let t4 = settings.unlisted_price(Some("T4")).usd_per_gpu_hour;
        let fallback = settings.default_usd_per_gpu_hour;
        assert!((price.usd_per_gpu_hour - (8.0 * t4 + 2.0 * fallback) / 10.0).abs() < 1e-12);
        assert_eq!(price.capacity_gpus, 10.0);
        assert_eq!(price.priced_as.as_deref(), Some("t4"));
        assert!((price.fallback_frac - 0.2).abs() < 1e-12);
        assert!(price.source.contains("2 G2 at the fallback"), "{}", price.source);
        assert!(inventory_for(std::slice::from_ref(&inventory), "any", true).is_some());
        assert!(inventory_for(std::slice::from_ref(&inventory), "any", false).is_none());
    }
}
