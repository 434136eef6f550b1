//! The bill: FinOps FOCUS exports read (`data::focus`) and summed per cluster and SKU
//! (`model::bill`) over a window: the audit's when a log was audited, each cluster against the
//! audit's cost of it; else the bill's own billing period, compared with nothing. One assembly
//! for `gpuplan audit --bill`, with a log or without (docs/bill.md).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::error::PipelineError;
use crate::data::focus::{BillFile, read_focus};
use crate::model::bill::{BillMatcher, BillReport, BillWindow, bill_report};
use crate::model::fleet::AuditReport;
use crate::model::plan::{HOURS_PER_MONTH, Plan};

/// The bill as the audit shows it: the files read and what they sum to.
#[derive(Debug, Clone, Serialize)]
pub struct Bill {
    pub files: Vec<BillFile>,
    /// The `Tags` key that named clusters.
    pub tag_key: String,
    #[serde(flatten)]
    pub report: BillReport,
}

/// Reads the exports at `paths` and sums their lines. With `audit`, over its window, each
/// cluster against its cost per month in the audit (the plan's price × its capacity), a tag
/// naming a cluster the audit or the plan knows; without, over the bill's own billing period,
/// with nothing modelled and each tag naming a cluster of its own.
pub fn bill(paths: &[PathBuf], plan: Option<&Plan>, audit: Option<&AuditReport>) -> Result<Bill, PipelineError> {
    let modelled: BTreeMap<String, f64> = audit
        .map(|a| {
            a.clusters
                .iter()
                .map(|c| (c.name.clone(), c.monthly_cost_usd))
                .collect()
        })
        .unwrap_or_default();
    let known = modelled
        .keys()
        .cloned()
        .chain(plan.into_iter().flat_map(|p| p.clusters.iter().map(|c| c.name.clone())));
    let matcher = BillMatcher::new(plan.and_then(|p| p.bill.as_ref()), known).map_err(PipelineError::BillPlan)?;
    let matcher = if audit.is_some() {
        matcher
    } else {
        matcher.taking_any_tag()
    };
    let mut lines = Vec::new();
    let mut files = Vec::new();
    for path in paths {
        let read = read_focus(path, matcher.tag_key()).map_err(PipelineError::Bill)?;
        lines.extend(read.lines);
        files.push(read.file);
    }
    let window = match audit {
        Some(a) => BillWindow::audit(a.window.start_ms, a.window.end_ms),
        None => BillWindow::own(&lines)
            .ok_or_else(|| PipelineError::EmptyBill(files.iter().map(|f| f.path.clone()).collect()))?,
    };
    let hours_per_month = plan.map_or(HOURS_PER_MONTH, |p| p.hours_per_month);
    let report = bill_report(&lines, window, hours_per_month, |line| matcher.assign(line), &modelled);
    Ok(Bill {
        files,
        tag_key: matcher.tag_key().to_string(),
        report,
    })
}
