//! `gpuplan replay`: the logs' jobs replayed through today's clusters and through the proposed
//! split (training, inference and burst pools), side by side: waits, SLO misses, utilization,
//! stranded and overflow GPU-hours, cost.

use super::audit::{AuditArgs, audit_logs};
use super::{Failure, Format, load_plan, pipeline_failure};
use crate::model::catalog::Catalog;
use crate::pipeline::Pipeline;
use crate::present::document::{render_markdown, render_text};
use crate::present::replay::document;

pub fn run(catalog: &Catalog, args: AuditArgs) -> Result<(), Failure> {
    let (plan, _) = load_plan(catalog, args.plan.as_deref())?;
    let mut pipeline = Pipeline::new(catalog.clone());
    audit_logs(&mut pipeline, Some(&plan), &args)?;
    let contracts = pipeline.contracts(&plan);
    let report = pipeline.replay(&plan, contracts.as_ref()).map_err(pipeline_failure)?;
    let out = match args.format {
        Format::Json => serde_json::to_string_pretty(report).unwrap_or_default() + "\n",
        Format::Table => render_text(&document(report)),
        Format::Markdown => render_markdown(&document(report)),
    };
    print!("{out}");
    Ok(())
}
