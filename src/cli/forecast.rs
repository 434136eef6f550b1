//! `gpuplan forecast` and `gpuplan backtest`: the logs' demand forecast per class, fleet-wide
//! and per cluster, and its score on the logs' own last days. Both through the pipeline.

use std::path::PathBuf;

use super::Failure;
use super::audit::{AuditArgs, print_on_audit};
use crate::config::atomic::write_atomically;
use crate::config::diagnostic::Diagnostic;
use crate::model::catalog::Catalog;
use crate::model::fleet::iso_utc;
use crate::model::forecast::{BacktestOrigins, DemandSeries, ForecastScope, MAX_BACKTEST_ORIGINS};
use crate::present::forecast::{backtest_document, forecast_document};

pub fn run_forecast(catalog: &Catalog, args: AuditArgs, horizon_days: Option<u32>) -> Result<(), Failure> {
    print_on_audit(
        catalog,
        &args,
        |pipeline, plan| pipeline.forecast(plan, horizon_days, ForecastScope::FleetAndClusters),
        forecast_document,
    )
}

/// What `gpuplan backtest` asks beside the logs.
#[derive(Debug, Clone)]
pub struct BacktestArgs {
    pub holdout_days: u32,
    /// None: as many as fit, at most `MAX_BACKTEST_ORIGINS`.
    pub origins: Option<usize>,
    /// Days between origins; None: up to a week each.
    pub origin_step_days: Option<u32>,
    pub series_csv: Option<PathBuf>,
}

pub fn run_backtest(catalog: &Catalog, args: AuditArgs, backtest: BacktestArgs) -> Result<(), Failure> {
    let mut scored: Option<[DemandSeries; 3]> = None;
    let origins = BacktestOrigins {
        wanted: backtest.origins.unwrap_or(MAX_BACKTEST_ORIGINS),
        step_days: backtest.origin_step_days,
    };
    print_on_audit(
        catalog,
        &args,
        |pipeline, plan| {
            let report = pipeline.backtest(plan, backtest.holdout_days, origins)?;
            if backtest.series_csv.is_some() {
                scored = pipeline.fleet_demand().ok();
            }
            Ok(report)
        },
        backtest_document,
    )?;
    match (&backtest.series_csv, scored) {
        (Some(path), Some(series)) => write_series_csv(path, &series),
        _ => Ok(()),
    }
}

/// The fleet's demand per class as CSV, one row per point: its start (UTC) and the GPUs of each
/// class.
fn write_series_csv(path: &std::path::Path, series: &[DemandSeries; 3]) -> Result<(), Failure> {
    let points = series.iter().map(|s| s.gpus.len()).max().unwrap_or(0);
    let point_ms = i64::from(series[0].hours_per_point.max(1)) * 3_600_000;
    let mut csv = String::from("time,training,inference,burst\n");
    for t in 0..points {
        let at = |s: &DemandSeries| s.gpus.get(t).copied().unwrap_or(0.0);
        csv.push_str(&format!(
            "{},{},{},{}\n",
            iso_utc(series[0].start_ms + t as i64 * point_ms),
            at(&series[0]),
            at(&series[1]),
            at(&series[2])
        ));
    }
    write_atomically(path, csv.as_bytes())
        .map_err(|e| Diagnostic::file(&path.display().to_string(), format!("cannot write the series: {e}")).into())
}
