//! A cluster as its node list gives it: GPUs by model, which `model::cluster_models` sizes
//! and prices model by model.

use super::cluster_models::BEYOND_NODE_LIST;
use super::fleet::ClusterAudit;
use crate::shared::format::{thousands, usd};

/// A cluster's machines as a node list gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeInventory {
    /// The cluster the list names; None: the logs' one cluster the plan does not list.
    pub cluster: Option<String>,
    /// The node list, as messages name it.
    pub source: String,
    /// GPUs by model as the list writes them, most GPUs first.
    pub gpus_by_model: Vec<(String, f64)>,
    /// Distinct nodes (a node listed twice counts once).
    pub nodes: u64,
    /// Nodes listed more than once, each repeat named (its GPUs counted once).
    pub duplicate_nodes: Vec<String>,
}

impl NodeInventory {
    pub fn gpus(&self) -> f64 {
        self.gpus_by_model.iter().map(|(_, g)| g).sum()
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

/// What the node lists say against the audit they were read beside, per list file: a node
/// listed twice, a cluster no log holds or the plan already sizes, a list naming no cluster
/// beside several unlisted ones, a list holding fewer GPUs than ran at once. Never silent: each
/// is a warning of the list's entry in `inputs[]` and on the workbench's banner.
pub fn node_list_warnings(
    inventories: &[NodeInventory],
    clusters: &[ClusterAudit],
    planned: &dyn Fn(&str) -> bool,
) -> Vec<(String, Vec<String>)> {
    let mut by_file: Vec<(String, Vec<String>)> = Vec::new();
    let unlisted: Vec<&str> = clusters
        .iter()
        .map(|c| c.name.as_str())
        .filter(|name| !planned(name))
        .collect();
    for inventory in inventories {
        let mut warnings = Vec::new();
        if let Some(first) = inventory.duplicate_nodes.first() {
            let more = inventory.duplicate_nodes.len() - 1;
            warnings.push(format!(
                "lists node {first}{} more than once: each node's GPUs are counted once",
                if more > 0 {
                    format!(" (and {more} more)")
                } else {
                    String::new()
                }
            ));
        }
        let served = match inventory.cluster.as_deref() {
            Some(cluster) if !clusters.iter().any(|c| c.name == cluster) => {
                warnings.push(format!(
                    "names cluster {cluster}, which no log holds: its {} GPUs size and price nothing",
                    thousands(inventory.gpus())
                ));
                None
            }
            Some(cluster) if planned(cluster) => {
                warnings.push(format!(
                    "names cluster {cluster}, which the plan sizes and prices: the plan's figures stand, not the list's"
                ));
                None
            }
            Some(cluster) => Some(cluster),
            None => match unlisted.as_slice() {
                [one] => Some(*one),
                [] => {
                    warnings.push(
                        "names no cluster and the plan lists every cluster of the logs: it sizes and prices nothing"
                            .to_string(),
                    );
                    None
                }
                several => {
                    warnings.push(format!(
                        "names no cluster (no cluster column) beside {} clusters the plan does not list ({}):                          it sizes and prices none of them; give it a cluster column",
                        several.len(),
                        several.join(", ")
                    ));
                    None
                }
            },
        };
        let short = served
            .and_then(|name| clusters.iter().find(|c| c.name == name))
            .and_then(|c| Some((c, c.models.iter().find(|m| m.model == BEYOND_NODE_LIST)?)));
        if let Some((cluster, beyond)) = short {
            warnings.push(format!(
                "holds {} GPUs, fewer than the {} that ran at once on {}: the {} past it are counted as \"{BEYOND_NODE_LIST}\" at {}/GPU-h",
                thousands(inventory.gpus()),
                thousands(cluster.capacity_gpus),
                cluster.name,
                thousands(beyond.gpus),
                usd(beyond.usd_per_gpu_hour)
            ));
        }
        match by_file.iter_mut().find(|(file, _)| *file == inventory.source) {
            Some((_, all)) => all.extend(warnings),
            None => by_file.push((inventory.source.clone(), warnings)),
        }
    }
    by_file
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_naming_no_cluster_serves_the_logs_one_unlisted_cluster() {
        let inventory = NodeInventory {
            cluster: None,
            source: "nodes.csv".into(),
            gpus_by_model: vec![("T4".into(), 8.0), ("G2".into(), 2.0)],
            nodes: 3,
            duplicate_nodes: Vec::new(),
        };
        assert_eq!(inventory.gpus(), 10.0);
        assert!(inventory_for(std::slice::from_ref(&inventory), "any", true).is_some());
        assert!(inventory_for(std::slice::from_ref(&inventory), "any", false).is_none());
    }
}
