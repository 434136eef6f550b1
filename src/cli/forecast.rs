//! `gpuplan forecast` and `gpuplan backtest`: the logs' demand forecast per class, fleet-wide
//! and per cluster, and its score on the logs' own last days. Both through the pipeline.

use super::Failure;
use super::audit::{AuditArgs, print_on_audit};
use crate::model::catalog::Catalog;
use crate::model::forecast::ForecastScope;
use crate::present::forecast::{backtest_document, forecast_document};

pub fn run_forecast(catalog: &Catalog, args: AuditArgs, horizon_days: Option<u32>) -> Result<(), Failure> {
    print_on_audit(
        catalog,
        &args,
        |pipeline, plan| pipeline.forecast(plan, horizon_days, ForecastScope::FleetAndClusters),
        forecast_document,
    )
}

pub fn run_backtest(catalog: &Catalog, args: AuditArgs, holdout_days: u32) -> Result<(), Failure> {
    print_on_audit(
        catalog,
        &args,
        |pipeline, plan| pipeline.backtest(plan, holdout_days),
        backtest_document,
    )
}
