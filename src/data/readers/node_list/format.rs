//! A node list as an entry of `readers::formats`: read beside the job logs (the pipeline takes
//! it apart before the logs are read), it yields the nodes, not runs.

use super::{Node, node_columns, read_node_list};
use crate::data::error::DataError;
use crate::data::readers::formats::{FormatRead, LogFormat, LogReader, Probe, ReadInput, Yielded, Yields, read_text};
use crate::data::readers::reject::Quarantine;

/// Nodes with a GPU count and model: openb's `openb_node_list_*.csv`, a `kubectl get nodes`
/// export with `nvidia.com/gpu.product`, a Slurm node table.
pub struct NodeList;

impl LogReader for NodeList {
    fn name(&self) -> &'static str {
        "node-list"
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["nodes"]
    }
    fn yields(&self) -> Yields {
        Yields::Nodes
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::NodeList
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::NodeList
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        let text = probe.text()?;
        Ok(node_columns(&text.header).map(|_| LogFormat::NodeList))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        let text = read_text(input.path)?;
        let delimiter = super::super::detect::sniff_delimiter(text.lines().next().unwrap_or(""));
        let nodes: Vec<Node> = read_node_list(input.path, &text, delimiter)?;
        Ok(FormatRead {
            rows: nodes.len(),
            yielded: Yielded::Nodes(nodes),
            quarantine: Quarantine::default(),
            warnings: Vec::new(),
            notes: Vec::new(),
        })
    }
}
