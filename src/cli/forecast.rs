//! `gpuplan forecast` and `gpuplan backtest`: the logs' demand forecast per class, fleet-wide
//! and per cluster, and its score on the logs' own last days. Both through the pipeline.

use serde::Serialize;

use super::audit::{AuditArgs, audit_logs};
use super::{Failure, Format, load_plan, pipeline_failure};
use crate::model::catalog::Catalog;
use crate::model::forecast::ForecastScope;
use crate::pipeline::Pipeline;
use crate::pipeline::error::PipelineError;
use crate::present::document::{Document, render_markdown, render_text};
use crate::present::forecast::{backtest_document, forecast_document};

pub fn run_forecast(catalog: &Catalog, args: AuditArgs, horizon_days: Option<u32>) -> Result<(), Failure> {
    run_on_audit(
        catalog,
        &args,
        |pipeline, plan| pipeline.forecast(plan, horizon_days, ForecastScope::FleetAndClusters),
        forecast_document,
    )
}

pub fn run_backtest(catalog: &Catalog, args: AuditArgs, holdout_days: u32) -> Result<(), Failure> {
    run_on_audit(
        catalog,
        &args,
        |pipeline, _| pipeline.backtest(holdout_days),
        backtest_document,
    )
}

/// Audits the logs, computes `figure` on the audit and prints it in the asked format.
fn run_on_audit<T: Serialize>(
    catalog: &Catalog,
    args: &AuditArgs,
    figure: impl FnOnce(&mut Pipeline, &crate::model::plan::Plan) -> Result<T, PipelineError>,
    document: fn(&T) -> Document,
) -> Result<(), Failure> {
    let (plan, _) = load_plan(catalog, args.plan.as_deref())?;
    let mut pipeline = Pipeline::new(catalog.clone());
    audit_logs(&mut pipeline, Some(&plan), args)?;
    let report = figure(&mut pipeline, &plan).map_err(pipeline_failure)?;
    super::progress::print_timings(&pipeline);
    print!(
        "{}",
        match args.format {
            Format::Json => serde_json::to_string_pretty(&report).unwrap_or_default() + "\n",
            Format::Table => render_text(&document(&report)),
            Format::Markdown => render_markdown(&document(&report)),
        }
    );
    Ok(())
}
