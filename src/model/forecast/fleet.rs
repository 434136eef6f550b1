//! The audit's hourly series forecast for the fleet and for each cluster, class by class, and
//! the backtest of the fleet's classes: what `gpuplan forecast`, `gpuplan backtest` and the
//! workbench's forecast view show.

use rayon::prelude::*;
use serde::Serialize;

use super::backtest::{check_holdout, check_origins};
use super::commitment_backtest::CommitmentBacktest;
use super::{
    BacktestError, BacktestOrigins, BacktestScore, ClassAssumptions, DemandSeries, IncompleteTail, PlannedRun,
    SeriesFit, SeriesForecast, backtest_series, fit_series_without_tail, incomplete_tail, shape_forecast,
};
use crate::model::catalog::Catalog;
use crate::model::fleet::{AuditReport, ClusterAudit, iso_utc};
use crate::model::plan::{GrowthPlan, Plan};
use crate::model::workload::WorkloadClass;

/// Which series a forecast covers: the report shows the fleet's; `gpuplan forecast` each
/// cluster's too (eight times the fitting on eight clusters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForecastScope {
    Fleet,
    FleetAndClusters,
}

/// The fits of every series: what the sliders reuse.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetFits {
    pub horizon_days: u32,
    pub history_hours: f64,
    /// Training, inference, burst, fleet-wide.
    pub fleet: [SeriesFit; 3],
    /// Each cluster's, when the scope asked for them.
    pub clusters: Option<Vec<(String, [SeriesFit; 3])>>,
    /// Each accelerator's (its clusters summed), when the scope asked for clusters and they run
    /// more than one accelerator.
    pub accelerators: Vec<AcceleratorFits>,
    /// The log's incomplete tail, found on the fleet's total: every series was fitted without
    /// it unless it says it was kept.
    pub incomplete_tail: Option<IncompleteTail>,
}

/// The fits of the clusters that run one accelerator, summed.
#[derive(Debug, Clone, PartialEq)]
pub struct AcceleratorFits {
    pub accelerator: String,
    pub clusters: Vec<String>,
    pub fits: [SeriesFit; 3],
}

impl FleetFits {
    /// Whether these fits hold what `scope` shows.
    pub fn cover(&self, scope: ForecastScope) -> bool {
        scope == ForecastScope::Fleet || self.clusters.is_some()
    }
}

fn class_series(cluster: &ClusterAudit, class: WorkloadClass) -> DemandSeries {
    let hourly = &cluster.hourly;
    let gpus = match class {
        WorkloadClass::Training => &hourly.training_gpus,
        WorkloadClass::Inference => &hourly.inference_gpus,
        WorkloadClass::Burst => &hourly.burst_gpus,
    };
    DemandSeries {
        start_ms: hourly.start_ms,
        hours_per_point: hourly.hours_per_point,
        gpus: gpus.clone(),
    }
}

/// Each class's series summed over the clusters: training, inference, burst.
pub fn fleet_demand(audit: &AuditReport) -> [DemandSeries; 3] {
    series_of(audit).0
}

/// Each class's series: fleet-wide (the clusters' sum) and per cluster.
fn series_of(audit: &AuditReport) -> ([DemandSeries; 3], Vec<(String, [DemandSeries; 3])>) {
    let clusters: Vec<(String, [DemandSeries; 3])> = audit
        .clusters
        .iter()
        .map(|c| (c.name.clone(), WorkloadClass::ALL.map(|class| class_series(c, class))))
        .collect();
    let empty = || DemandSeries {
        start_ms: audit.window.start_ms,
        hours_per_point: clusters.first().map_or(1, |(_, s)| s[0].hours_per_point),
        gpus: Vec::new(),
    };
    let mut fleet = [empty(), empty(), empty()];
    for (_, series) in &clusters {
        for (sum, s) in fleet.iter_mut().zip(series) {
            sum.add(s);
        }
    }
    (fleet, clusters)
}

/// The clusters' series summed per accelerator, `accelerator_of[i]` naming cluster i's; empty
/// when they all run one (the fleet says it all) or the names do not cover the clusters.
fn accelerator_groups(
    clusters: &[(String, [DemandSeries; 3])],
    accelerator_of: &[String],
) -> Vec<(String, Vec<String>, [DemandSeries; 3])> {
    if accelerator_of.len() != clusters.len() {
        return Vec::new();
    }
    let mut groups: Vec<(String, Vec<String>, [DemandSeries; 3])> = Vec::new();
    for ((name, series), accelerator) in clusters.iter().zip(accelerator_of) {
        match groups.iter_mut().find(|(a, _, _)| a == accelerator) {
            Some((_, names, sum)) => {
                names.push(name.clone());
                for (total, s) in sum.iter_mut().zip(series) {
                    total.add(s);
                }
            }
            None => groups.push((accelerator.clone(), vec![name.clone()], series.clone())),
        }
    }
    if groups.len() < 2 {
        return Vec::new();
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    groups
}

/// The fleet's incomplete tail, found on its demand with every class summed.
pub fn fleet_tail(fleet: &[DemandSeries; 3], keep: bool) -> Option<IncompleteTail> {
    let mut total = fleet[0].clone();
    total.add(&fleet[1]);
    total.add(&fleet[2]);
    incomplete_tail(&total, keep)
}

/// Fits every class of the fleet, and with `FleetAndClusters` of each cluster and of each
/// accelerator (`accelerator_of[i]` runs cluster i), over `horizon_days` (on both cores); an
/// incomplete tail is left out of every fit unless `keep_tail`.
pub fn fit_fleet(
    audit: &AuditReport,
    horizon_days: u32,
    scope: ForecastScope,
    accelerator_of: &[String],
    keep_tail: bool,
) -> FleetFits {
    let (fleet, clusters) = series_of(audit);
    let tail = fleet_tail(&fleet, keep_tail);
    let left_out = tail.as_ref().filter(|t| !t.kept).map_or(0, |t| t.points);
    let fit_three = |three: &[DemandSeries; 3]| {
        three
            .each_ref()
            .map(|s| fit_series_without_tail(s, horizon_days, left_out))
    };
    let with_clusters = scope == ForecastScope::FleetAndClusters;
    let groups = if with_clusters {
        accelerator_groups(&clusters, accelerator_of)
    } else {
        Vec::new()
    };
    let (fleet_fits, (cluster_fits, accelerators)) = rayon::join(
        || fit_three(&fleet),
        || {
            rayon::join(
                || {
                    with_clusters.then(|| {
                        clusters
                            .par_iter()
                            .map(|(name, three)| (name.clone(), fit_three(three)))
                            .collect()
                    })
                },
                || {
                    groups
                        .par_iter()
                        .map(|(accelerator, names, three)| AcceleratorFits {
                            accelerator: accelerator.clone(),
                            clusters: names.clone(),
                            fits: fit_three(three),
                        })
                        .collect()
                },
            )
        },
    );
    FleetFits {
        horizon_days,
        history_hours: audit.window.days * 24.0,
        fleet: fleet_fits,
        clusters: cluster_fits,
        accelerators,
        incomplete_tail: tail,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassForecast {
    pub class: WorkloadClass,
    #[serde(flatten)]
    pub forecast: SeriesForecast,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterForecast {
    pub name: String,
    pub classes: Vec<ClassForecast>,
}

/// The clusters that run one accelerator, forecast as one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcceleratorForecast {
    pub accelerator: String,
    pub clusters: Vec<String>,
    pub classes: Vec<ClassForecast>,
}

/// A planned run as the output shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedShown {
    pub name: String,
    pub class: WorkloadClass,
    pub gpus: f64,
    pub start: String,
    pub end: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForecastReport {
    pub horizon_days: u32,
    /// The first forecast instant: the audit window's end.
    pub horizon_start: String,
    pub history_days: f64,
    /// The fleet's classes; planned runs count here, not per cluster (they have no cluster yet).
    pub classes: Vec<ClassForecast>,
    /// Empty unless the scope was `FleetAndClusters`.
    pub clusters: Vec<ClusterForecast>,
    /// Per accelerator, where the clusters run more than one; empty otherwise and unless the
    /// scope was `FleetAndClusters`.
    pub accelerators: Vec<AcceleratorForecast>,
    pub planned: Vec<PlannedShown>,
    /// The log's last days left out of the fit as an incomplete export (null when none).
    pub incomplete_tail: Option<IncompleteTail>,
}

/// The fits of `scope` shaped by `plan`: its `[forecast]` growth and its planned runs (the
/// `[training]` run on the catalog's accelerator). What `gpuplan forecast`, the report and the
/// workbench's growth sliders all show, so they cannot disagree.
pub fn forecast_for_plan(fits: &FleetFits, scope: ForecastScope, plan: &Plan, catalog: &Catalog) -> ForecastReport {
    shape_fleet(fits, scope, &PlanAssumptions::of(plan, catalog, fits))
}

/// All a forecast reads of the plan: the growth factors and the planned runs. Equal
/// assumptions shape kept fits the same, so an edit elsewhere in the plan needs no reshape.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanAssumptions {
    pub growth: GrowthPlan,
    pub planned: Vec<PlannedRun>,
}

impl PlanAssumptions {
    pub fn of(plan: &Plan, catalog: &Catalog, fits: &FleetFits) -> PlanAssumptions {
        PlanAssumptions {
            growth: plan.forecast.as_ref().map(|f| f.growth).unwrap_or_default(),
            planned: super::planned_runs(plan, catalog, fits.fleet[0].horizon_start_ms),
        }
    }
}

/// The fits of `scope` shaped by the plan's growth and planned runs.
pub fn shape_fleet(fits: &FleetFits, scope: ForecastScope, assumptions: &PlanAssumptions) -> ForecastReport {
    let PlanAssumptions { growth, planned } = assumptions;
    let classes_of = |three: &[SeriesFit; 3], planned: &[PlannedRun]| -> Vec<ClassForecast> {
        WorkloadClass::ALL
            .into_iter()
            .zip(three)
            .map(|(class, fit)| ClassForecast {
                class,
                forecast: shape_forecast(
                    fit,
                    class,
                    ClassAssumptions {
                        growth_per_year: growth.get(class),
                        planned,
                    },
                ),
            })
            .collect()
    };
    ForecastReport {
        horizon_days: fits.horizon_days,
        horizon_start: iso_utc(fits.fleet[0].horizon_start_ms),
        history_days: fits.history_hours / 24.0,
        classes: classes_of(&fits.fleet, planned),
        clusters: fits
            .clusters
            .iter()
            .flatten()
            .filter(|_| scope == ForecastScope::FleetAndClusters)
            .map(|(name, three)| ClusterForecast {
                name: name.clone(),
                classes: classes_of(three, &[]),
            })
            .collect(),
        accelerators: fits
            .accelerators
            .iter()
            .filter(|_| scope == ForecastScope::FleetAndClusters)
            .map(|group| AcceleratorForecast {
                accelerator: group.accelerator.clone(),
                clusters: group.clusters.clone(),
                classes: classes_of(&group.fits, &[]),
            })
            .collect(),
        planned: planned
            .iter()
            .map(|run| PlannedShown {
                name: run.name.clone(),
                class: run.class,
                gpus: run.gpus,
                start: iso_utc(run.start_ms),
                end: iso_utc(run.end_ms),
            })
            .collect(),
        incomplete_tail: fits.incomplete_tail.clone(),
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassBacktest {
    pub class: WorkloadClass,
    #[serde(flatten)]
    pub score: BacktestScore,
    /// The commitment layers sized at each cut-off, priced on the held-out days (fleet classes
    /// with a contract match only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment: Option<CommitmentBacktest>,
    /// Why a fleet class's commitments were not scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment_not_scored: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterBacktest {
    pub name: String,
    pub classes: Vec<ClassBacktest>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BacktestReport {
    pub holdout_days: u32,
    /// Origins asked for (the default: as many as fit, at most 8); each series says how many fit.
    pub origins_asked: usize,
    /// Days between origins where asked (`--origin-step-days`); absent: up to a week each.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin_step_days: Option<u32>,
    pub history_days: f64,
    /// The fleet's classes; a class with no demand is left out (nothing to score).
    pub classes: Vec<ClassBacktest>,
    pub clusters: Vec<ClusterBacktest>,
}

/// Scores the fleet's and each cluster's classes on `holdout_days` after each of up to
/// `origins` cut-offs.
pub fn backtest_fleet(
    audit: &AuditReport,
    holdout_days: u32,
    origins: BacktestOrigins,
) -> Result<BacktestReport, BacktestError> {
    let (fleet, clusters) = series_of(audit);
    let score = |three: &[DemandSeries; 3]| -> Result<Vec<ClassBacktest>, BacktestError> {
        let scored: Vec<_> = WorkloadClass::ALL
            .into_par_iter()
            .zip(three.par_iter())
            .filter(|(_, s)| s.gpus.iter().any(|&g| g > 0.0))
            .map(|(class, s)| {
                backtest_series(s, holdout_days, origins).map(|score| ClassBacktest {
                    class,
                    score,
                    commitment: None,
                    commitment_not_scored: None,
                })
            })
            .collect();
        scored.into_iter().collect()
    };
    // The window's length decides first: a fleet with no demand still gets the reason.
    let points = fleet.iter().map(|s| s.gpus.len()).max().unwrap_or(0);
    check_holdout(points, fleet[0].points_per_day(), holdout_days)?;
    check_origins(points, fleet[0].points_per_day(), holdout_days, origins)?;
    let classes = score(&fleet)?;
    let clusters = clusters
        .iter()
        .map(|(name, three)| {
            Ok(ClusterBacktest {
                name: name.clone(),
                classes: score(three)?,
            })
        })
        .collect::<Result<_, BacktestError>>()?;
    Ok(BacktestReport {
        holdout_days,
        origins_asked: origins.wanted,
        origin_step_days: origins.step_days,
        history_days: audit.window.days,
        classes,
        clusters,
    })
}
