//! A node list: the machines a fleet runs on, each with its GPU count and model (Alibaba's
//! `openb_node_list_gpu_node.csv`: `sn, cpu_milli, memory_mib, gpu, model`; a `kubectl get
//! nodes -L nvidia.com/gpu.product,nvidia.com/gpu.count` export; a Slurm node table with a
//! `Gres`-derived count). Read beside the job logs, it gives each cluster its capacity and
//! accelerator mix, so the cluster is priced by what it runs on rather than by one fallback
//! rate. Recognised by its columns: a node's name, a GPU count and a GPU model.

pub mod format;

use std::path::Path;

use crate::data::error::DataError;

/// Columns naming the node, in the order they are looked for.
const NODE_COLUMNS: [&str; 5] = ["sn", "node", "node_name", "hostname", "name"];
/// Columns holding the node's GPU count.
const GPU_COLUMNS: [&str; 5] = ["gpu", "gpus", "gpu_count", "num_gpu", "nvidia.com/gpu.count"];
/// Columns naming the node's GPU model.
const MODEL_COLUMNS: [&str; 5] = [
    "model",
    "gpu_model",
    "gpu_type",
    "gpu.product",
    "nvidia.com/gpu.product",
];
/// Rows read at most: a fleet of a million nodes is past any real one.
const MAX_NODES: usize = 1_000_000;

/// One node of the list.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub name: String,
    /// The cluster the list names, when it has a `cluster` column.
    pub cluster: Option<String>,
    pub gpus: f64,
    /// The GPU model as the list writes it (`T4`, `V100M32`, `G2`).
    pub model: String,
}

/// The column positions of a node list's header; None when the header is not one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeColumns {
    node: usize,
    gpus: usize,
    model: usize,
    cluster: Option<usize>,
}

fn position(header: &[String], names: &[&str]) -> Option<usize> {
    names.iter().find_map(|name| {
        header
            .iter()
            .position(|h| h.trim().trim_matches('"').eq_ignore_ascii_case(name))
    })
}

/// The header's node, GPU-count and model columns, when it has all three and names no job
/// (a job log with a `gpu_model` column is not a node list).
pub fn node_columns(header: &[String]) -> Option<NodeColumns> {
    let names_a_job = ["job_id", "jobid", "start", "start_time", "creation_time", "pod_phase"]
        .iter()
        .any(|job| position(header, &[job]).is_some());
    if names_a_job {
        return None;
    }
    Some(NodeColumns {
        node: position(header, &NODE_COLUMNS)?,
        gpus: position(header, &GPU_COLUMNS)?,
        model: position(header, &MODEL_COLUMNS)?,
        cluster: position(header, &["cluster"]),
    })
}

/// The nodes of a node list with `delimiter`, each row checked: a GPU count that is not a
/// whole number from 0 to 1,024 is an error naming its line and column. Nodes with no GPU
/// (CPU nodes) are left out.
pub fn read_node_list(path: &Path, text: &str, delimiter: u8) -> Result<Vec<Node>, DataError> {
    use super::detect::split_header;
    let file = path.display().to_string();
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l.trim_end_matches('\r')));
    let Some((_, header_line)) = lines.by_ref().find(|(_, l)| !l.trim().is_empty()) else {
        return Err(DataError::Empty.in_file(file));
    };
    let header = split_header(header_line.trim_start_matches('\u{feff}'), delimiter);
    let columns = node_columns(&header).ok_or_else(|| {
        DataError::NodeList {
            detail: "expected a node column (sn, node, hostname), a GPU count (gpu, gpus) and a GPU model (model, gpu_model)"
                .to_string(),
        }
        .in_file(file.clone())
    })?;
    let mut nodes = Vec::new();
    for (line, text) in lines {
        if text.trim().is_empty() {
            continue;
        }
        let fields = split_header(text, delimiter);
        let field = |i: usize| fields.get(i).map(|f| f.trim().trim_matches('"')).unwrap_or("");
        let gpus_text = field(columns.gpus);
        let gpus = match gpus_text.parse::<f64>() {
            Ok(g) if g.is_finite() && (0.0..=1024.0).contains(&g) && g.fract() == 0.0 => g,
            _ => {
                return Err(DataError::NodeList {
                    detail: format!(
                        "column {} (column {}): \"{gpus_text}\" is not a GPU count (a whole number from 0 to 1,024)",
                        header[columns.gpus],
                        columns.gpus + 1
                    ),
                }
                .in_file_at(&file, line));
            }
        };
        if gpus == 0.0 {
            continue;
        }
        if nodes.len() == MAX_NODES {
            return Err(DataError::NodeList {
                detail: format!("more than {MAX_NODES} GPU nodes: not a node list gpuplan reads"),
            }
            .in_file_at(&file, line));
        }
        nodes.push(Node {
            name: field(columns.node).to_string(),
            cluster: columns.cluster.map(|c| field(c).to_string()).filter(|c| !c.is_empty()),
            gpus,
            model: field(columns.model).to_string(),
        });
    }
    Ok(nodes)
}

/// Which of `inputs` are node lists (by their first bytes, as every format is recognised);
/// a file that cannot be read is left to the logs' reader to report.
pub fn is_node_list(path: &Path) -> bool {
    use super::detect::{detect_format, sniff};
    use super::formats::LogFormat;
    !path.is_dir()
        && sniff(path)
            .and_then(|head| detect_format(path, &head))
            .is_ok_and(|format| format == LogFormat::NodeList)
}

/// The node lists' nodes grouped per cluster (a list with no `cluster` column is one
/// inventory with no cluster), each model's GPUs summed, most first.
pub fn inventories(
    paths: &[std::path::PathBuf],
) -> Result<Vec<crate::model::node_inventory::NodeInventory>, super::load::LoadError> {
    // A list rewritten while it is read is read again; one that keeps changing is refused,
    // never priced from a half-written copy.
    for _ in 0..2 {
        let stamps = crate::data::read_cache::InputStamps::of(paths);
        let read = inventories_once(paths)?;
        if stamps.changed_since().is_empty() {
            return Ok(read);
        }
    }
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Err(super::load::LoadError::new(
        shown.join(", ").as_str(),
        DataError::NodeList {
            detail: "changed while it was read, twice: read it again once it is written".to_string(),
        },
    ))
}

/// One cluster's nodes as a list gives them.
#[derive(Default)]
struct Listed {
    models: std::collections::BTreeMap<String, f64>,
    nodes: u64,
    names: std::collections::HashSet<String>,
    duplicates: Vec<String>,
}

fn inventories_once(
    paths: &[std::path::PathBuf],
) -> Result<Vec<crate::model::node_inventory::NodeInventory>, super::load::LoadError> {
    use crate::model::node_inventory::NodeInventory;
    use std::collections::BTreeMap;
    let mut out = Vec::new();
    for path in paths {
        let shown = path.display().to_string();
        let fail = |e: DataError| super::load::LoadError::new(shown.as_str(), e);
        let text = std::fs::read_to_string(path).map_err(|e| fail(DataError::cannot_read(path, e)))?;
        let delimiter = super::detect::sniff_delimiter(text.lines().next().unwrap_or(""));
        let nodes = read_node_list(path, &text, delimiter).map_err(fail)?;
        let mut by_cluster: BTreeMap<Option<String>, Listed> = BTreeMap::new();
        for node in nodes {
            let entry = by_cluster.entry(node.cluster).or_default();
            // A node listed twice is one machine: its GPUs are counted once, and it is named.
            if !entry.names.insert(node.name.clone()) {
                entry.duplicates.push(node.name);
                continue;
            }
            *entry.models.entry(node.model).or_default() += node.gpus;
            entry.nodes += 1;
        }
        for (cluster, listed) in by_cluster {
            let mut gpus_by_model: Vec<(String, f64)> = listed.models.into_iter().collect();
            gpus_by_model.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            out.push(NodeInventory {
                cluster,
                source: shown.clone(),
                gpus_by_model,
                nodes: listed.nodes,
                duplicate_nodes: listed.duplicates,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(text: &str) -> Vec<String> {
        text.split(',').map(str::to_string).collect()
    }

    #[test]
    fn openb_s_node_list_is_one_and_a_job_log_is_not() {
        assert!(node_columns(&header("sn,cpu_milli,memory_mib,gpu,model")).is_some());
        assert!(node_columns(&header("node,cluster,gpus,gpu_model")).is_some());
        assert!(node_columns(&header("job_id,node,gpus,gpu_model,start")).is_none());
        assert!(node_columns(&header("sn,cpu_milli,memory_mib")).is_none(), "no GPUs");
    }

    #[test]
    fn cpu_nodes_are_left_out_and_a_bad_count_names_its_line() {
        let text = "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,96000,393216,0,\nn2,96000,786432,8,V100M32\n";
        let nodes = read_node_list(Path::new("nodes.csv"), text, b',').expect("read");
        assert_eq!(nodes.len(), 2);
        assert_eq!((nodes[1].gpus, nodes[1].model.as_str()), (8.0, "V100M32"));
        let bad = read_node_list(Path::new("nodes.csv"), "sn,gpu,model\nn0,two,T4\n", b',').expect_err("bad");
        let message = bad.to_string();
        assert!(
            message.contains("nodes.csv") && message.contains("2") && message.contains("\"two\""),
            "{message}"
        );
    }
}
