//! Demand forecasts: a series of concurrent GPUs in, its daily fan over the horizon out, with
//! the method used, how far the history carries it, and what the plan added. No I/O.
//!
//! Two steps, so a growth slider never refits: `fit_series` fits the history once (the slow
//! part, `fit`), and `shape_forecast` applies what the planner knows (a yearly growth factor
//! that replaces the fitted trend, planned runs) and sums the points into days.
//!
//! How far the data reaches: as many points ahead as the history holds. Beyond, the last
//! week the data supports repeats, its trend held, unless the plan gives a growth factor; each
//! day says which (`basis`).

mod backtest;
mod commitment_backtest;
mod cross_validation;
mod fit;
mod fleet;
mod intervals;
pub mod methods;
mod planned;
mod tail;
#[cfg(test)]
mod tests;

use serde::Serialize;

pub use self::backtest::{
    BacktestError, BacktestOrigins, BacktestScore, Coverage, MAX_BACKTEST_ORIGINS, MethodBacktest, OriginScore, Spread,
    backtest_cutoffs, backtest_series, check_origins, naive_season,
};
pub use self::commitment_backtest::{
    CandidateRegret, ChosenBy, CommitmentBacktest, CommitmentOrigin, PathRegret, Policy, PriceBetScore, RegretSpread,
    TermChoice, TermGpus,
};
pub use self::cross_validation::CandidateScore;
pub use self::fit::{FittedFan, ForecastMethod, Selection, fit_fan};
pub use self::fleet::{
    AcceleratorFits, AcceleratorForecast, BacktestReport, ClassBacktest, ClassForecast, ClusterBacktest,
    ClusterForecast, FleetFits, ForecastReport, ForecastScope, PlanAssumptions, PlannedShown, backtest_fleet,
    fit_fleet, fleet_demand, fleet_tail, forecast_for_plan, shape_fleet,
};
pub use self::planned::{PlannedRun, planned_runs};
pub use self::tail::{IncompleteTail, incomplete_tail};
use crate::model::plan::day_text;
use crate::model::workload::WorkloadClass;

const MS_PER_HOUR: i64 = 3_600_000;
const DAYS_PER_YEAR: f64 = 365.0;

/// Concurrent GPUs over time, one value per point of `hours_per_point` hours from `start_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct DemandSeries {
    pub start_ms: i64,
    pub hours_per_point: u32,
    pub gpus: Vec<f64>,
}

impl DemandSeries {
    /// Points a day; 1 when a point is a day or longer, or does not divide one.
    pub fn points_per_day(&self) -> usize {
        let hours = self.hours_per_point.max(1);
        if hours < 24 && 24 % hours == 0 {
            (24 / hours) as usize
        } else {
            1
        }
    }

    pub fn end_ms(&self) -> i64 {
        self.start_ms + self.gpus.len() as i64 * i64::from(self.hours_per_point.max(1)) * MS_PER_HOUR
    }

    /// Element-wise sum; the shorter series counts as zero past its end.
    pub fn add(&mut self, other: &DemandSeries) {
        if self.gpus.len() < other.gpus.len() {
            self.gpus.resize(other.gpus.len(), 0.0);
        }
        for (sum, g) in self.gpus.iter_mut().zip(&other.gpus) {
            *sum += g;
        }
    }
}

/// One point of a fan: the point forecast and its 80 % and 95 % intervals, in GPUs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct FanPoint {
    pub mean: f64,
    pub lo80: f64,
    pub hi80: f64,
    pub lo95: f64,
    pub hi95: f64,
}

impl FanPoint {
    pub fn flat(gpus: f64) -> FanPoint {
        FanPoint::default().map(|_| gpus)
    }

    /// lo95 <= lo80 <= mean <= hi80 <= hi95, whatever rounding did.
    pub fn ordered(self) -> FanPoint {
        let lo80 = self.lo80.min(self.mean);
        let hi80 = self.hi80.max(self.mean);
        FanPoint {
            mean: self.mean,
            lo80,
            hi80,
            lo95: self.lo95.min(lo80),
            hi95: self.hi95.max(hi80),
        }
    }

    pub fn is_finite(&self) -> bool {
        [self.mean, self.lo80, self.hi80, self.lo95, self.hi95]
            .iter()
            .all(|v| v.is_finite())
    }

    /// Each figure through `f`.
    fn map(self, f: impl Fn(f64) -> f64) -> FanPoint {
        FanPoint {
            mean: f(self.mean),
            lo80: f(self.lo80),
            hi80: f(self.hi80),
            lo95: f(self.lo95),
            hi95: f(self.hi95),
        }
    }

    fn scaled(self, factor: f64) -> FanPoint {
        self.map(|v| v * factor)
    }

    fn plus(self, gpus: f64) -> FanPoint {
        self.map(|v| v + gpus)
    }
}

/// A series fitted over a horizon: what a refit costs, kept so the sliders only rescale.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesFit {
    pub method: ForecastMethod,
    pub note: Option<String>,
    /// How the method was chosen, when the history allowed a cross-validation.
    pub selection: Option<Selection>,
    /// The first instant after the history: the horizon's start.
    pub horizon_start_ms: i64,
    pub hours_per_point: u32,
    pub points_per_day: usize,
    /// How many points past the horizon's start the data reaches: the history the fit saw,
    /// less an incomplete tail it was fitted without (the fan runs over the tail first).
    pub history_points: usize,
    pub history_mean_gpus: f64,
    /// The history's mean GPUs day by day (the chart draws it beside the fan).
    pub history_daily_gpus: Vec<f64>,
    /// The history's last season (a week where it holds two, else a day): what seasonal naive
    /// repeats.
    pub last_season_gpus: Vec<f64>,
    pub fan: Vec<FanPoint>,
}

/// Fits `series` and forecasts `horizon_days` days after it.
pub fn fit_series(series: &DemandSeries, horizon_days: u32) -> SeriesFit {
    fit_series_without_tail(series, horizon_days, 0)
}

/// Fits `series` without its last `tail_points` (an export's incomplete tail: model::forecast::
/// tail) and forecasts `horizon_days` days after the whole series: the fit runs over the tail
/// too and its fan starts where the series ends. The history shown is the whole series; its
/// mean and last season, what the forecast reads, are the complete part's.
pub fn fit_series_without_tail(series: &DemandSeries, horizon_days: u32, tail_points: usize) -> SeriesFit {
    let points_per_day = series.points_per_day();
    let all = series.gpus.len();
    let tail_points = if tail_points < all { tail_points } else { 0 };
    let complete = &series.gpus[..all - tail_points];
    let horizon = horizon_days as usize * points_per_day;
    let mut fitted = fit_fan(complete, points_per_day, horizon + tail_points);
    fitted.points.drain(..tail_points.min(fitted.points.len()));
    let n = complete.len();
    SeriesFit {
        method: fitted.method,
        note: fitted.note,
        selection: fitted.selection,
        horizon_start_ms: series.end_ms(),
        hours_per_point: series.hours_per_point.max(1),
        points_per_day,
        history_points: n.saturating_sub(tail_points),
        history_mean_gpus: complete.iter().sum::<f64>() / n.max(1) as f64,
        history_daily_gpus: series
            .gpus
            .chunks(points_per_day)
            .map(|day| day.iter().sum::<f64>() / day.len() as f64)
            .collect(),
        last_season_gpus: complete[n - naive_season(n, points_per_day).min(n)..].to_vec(),
        fan: fitted.points,
    }
}

/// Where a day's figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The fit, within as many days as the history holds.
    Data,
    /// Past the history's reach: the last supported week again, its trend held.
    Held,
    /// The plan's yearly growth factor over the fitted level and seasons.
    Growth,
}

/// One day of a forecast, in GPUs: the day's mean of the points' forecasts and bounds, the
/// busiest point's forecast, and the planned runs' GPUs already included in each.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DailyForecast {
    pub date: String,
    pub mean_gpus: f64,
    pub lo80: f64,
    pub hi80: f64,
    pub lo95: f64,
    pub hi95: f64,
    pub peak_gpus: f64,
    pub basis: Basis,
    /// GPUs of planned runs that day (the day's mean), included above.
    pub planned_gpus: f64,
}

/// A series' forecast as people see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeriesForecast {
    pub method: ForecastMethod,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The method's cross-validated error beside seasonal naive's, and every candidate's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_validation: Option<Selection>,
    pub history_mean_gpus: f64,
    pub history_daily_gpus: Vec<f64>,
    /// Days ahead the history carries the forecast; later days are the plan's.
    pub data_days: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth_per_year: Option<f64>,
    pub daily: Vec<DailyForecast>,
}

impl SeriesForecast {
    /// The day the history stops carrying the forecast, when that falls inside the horizon and
    /// no growth factor stands in for the whole of it (the charts draw a line there).
    pub fn data_reach_ends(&self) -> Option<u32> {
        ((self.data_days as usize) < self.daily.len() && self.growth_per_year.is_none()).then_some(self.data_days)
    }

    /// The highest figure a chart of this forecast draws: the history's busiest day or the
    /// fan's highest 95 % bound (0 for neither, and non-finite figures skipped).
    pub fn highest_gpus(&self) -> f64 {
        self.daily
            .iter()
            .map(|d| d.hi95)
            .chain(self.history_daily_gpus.iter().copied())
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max)
    }

    /// The yearly factor this forecast amounts to from its first week to its last (planned
    /// runs left out): what a growth slider starts from. None under two weeks or without demand.
    pub fn fitted_growth_per_year(&self) -> Option<f64> {
        let days = self.daily.len();
        if days < 14 {
            return None;
        }
        let week_mean = |days: &[DailyForecast]| days.iter().map(|d| d.mean_gpus - d.planned_gpus).sum::<f64>() / 7.0;
        let (first, last) = (week_mean(&self.daily[..7]), week_mean(&self.daily[days - 7..]));
        if !(first > 1e-9 && last > 1e-9) {
            return None;
        }
        let factor = (last / first).powf(DAYS_PER_YEAR / (days - 7) as f64);
        factor.is_finite().then_some(factor)
    }
}

/// What the planner adds to one class's fitted series.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClassAssumptions<'a> {
    /// Yearly factor (3.0: three times the demand a year on); replaces the fitted trend.
    pub growth_per_year: Option<f64>,
    pub planned: &'a [PlannedRun],
}

/// The fit shaped by the plan and summed into days: cheap, no refit.
pub fn shape_forecast(fit: &SeriesFit, class: WorkloadClass, assumptions: ClassAssumptions<'_>) -> SeriesForecast {
    let growth = assumptions.growth_per_year.filter(|g| g.is_finite() && *g > 0.0);
    let points = shaped_points(fit, growth, fit.fan.len());
    let ppd = fit.points_per_day.max(1);
    let point_ms = i64::from(fit.hours_per_point) * MS_PER_HOUR;
    let supported = fit.history_points.min(fit.fan.len());
    let planned: Vec<&PlannedRun> = assumptions.planned.iter().filter(|r| r.class == class).collect();
    let daily = points
        .chunks(ppd)
        .enumerate()
        .map(|(day, chunk)| {
            let first = day * ppd;
            let day_start_ms = fit.horizon_start_ms + first as i64 * point_ms;
            let day_end_ms = day_start_ms + chunk.len() as i64 * point_ms;
            let n = chunk.len() as f64;
            let mean_of = |f: fn(&FanPoint) -> f64| chunk.iter().map(f).sum::<f64>() / n;
            let planned_gpus: f64 = planned
                .iter()
                .map(|run| {
                    run.gpus * run.overlap_ms(day_start_ms, day_end_ms) as f64 / (day_end_ms - day_start_ms) as f64
                })
                .fold(0.0, |sum, gpus| sum + gpus);
            let planned_peak: f64 = planned
                .iter()
                .filter(|run| run.overlap_ms(day_start_ms, day_end_ms) > 0)
                .map(|run| run.gpus)
                .fold(0.0, |sum, gpus| sum + gpus);
            let basis = match (growth, first + chunk.len() <= supported) {
                (Some(_), _) => Basis::Growth,
                (None, true) => Basis::Data,
                (None, false) => Basis::Held,
            };
            let day_fan = FanPoint {
                mean: mean_of(|p| p.mean),
                lo80: mean_of(|p| p.lo80),
                hi80: mean_of(|p| p.hi80),
                lo95: mean_of(|p| p.lo95),
                hi95: mean_of(|p| p.hi95),
            }
            .ordered()
            .plus(planned_gpus);
            DailyForecast {
                // Named by its middle: a day from 23:50 holds the next date's hours.
                date: day_text(day_start_ms + (day_end_ms - day_start_ms) / 2),
                mean_gpus: day_fan.mean,
                lo80: day_fan.lo80,
                hi80: day_fan.hi80,
                lo95: day_fan.lo95,
                hi95: day_fan.hi95,
                peak_gpus: chunk.iter().map(|p| p.mean).fold(0.0, f64::max) + planned_peak,
                basis,
                planned_gpus,
            }
        })
        .collect();
    SeriesForecast {
        method: fit.method,
        note: fit.note.clone(),
        cross_validation: fit.selection.clone(),
        history_mean_gpus: fit.history_mean_gpus,
        history_daily_gpus: fit.history_daily_gpus.clone(),
        data_days: (supported / ppd) as u32,
        growth_per_year: growth,
        daily,
    }
}

/// The fit shaped by the plan point by point over `points` points from the horizon's start,
/// however far past the fitted horizon (the same rule carries on: the last supported week
/// again, or the plan's growth), planned runs included: what commitments are sized on.
pub fn horizon_points(
    fit: &SeriesFit,
    class: WorkloadClass,
    assumptions: ClassAssumptions<'_>,
    points: usize,
) -> Vec<FanPoint> {
    let growth = assumptions.growth_per_year.filter(|g| g.is_finite() && *g > 0.0);
    let mut shaped = shaped_points(fit, growth, points);
    let point_ms = i64::from(fit.hours_per_point) * MS_PER_HOUR;
    for run in assumptions.planned.iter().filter(|r| r.class == class) {
        let first = ((run.start_ms - fit.horizon_start_ms).max(0) / point_ms) as usize;
        for (t, point) in shaped.iter_mut().enumerate().skip(first) {
            let start_ms = fit.horizon_start_ms + t as i64 * point_ms;
            let overlap_ms = run.overlap_ms(start_ms, start_ms + point_ms);
            if overlap_ms <= 0 {
                if start_ms >= run.end_ms {
                    break;
                }
                continue;
            }
            *point = point.plus(run.gpus * overlap_ms as f64 / point_ms as f64);
        }
    }
    shaped
}

/// Each horizon point, `len` of them: the fit within the history's reach, its last week
/// repeated beyond; with growth, the fitted trend divided out and the plan's factor applied
/// instead.
fn shaped_points(fit: &SeriesFit, growth: Option<f64>, len: usize) -> Vec<FanPoint> {
    let fan = &fit.fan;
    let supported = fit.history_points.min(fan.len());
    if supported == 0 {
        // No history reaches the horizon: the fit's points stand (level or no demand).
        let last = fan.last().copied().unwrap_or_default();
        return (0..len).map(|t| fan.get(t).copied().unwrap_or(last)).collect();
    }
    let week = (7 * fit.points_per_day).clamp(1, supported);
    let source = |t: usize| {
        if t < supported {
            t
        } else {
            supported - week + (t - supported) % week
        }
    };
    // The fitted trend at a point: the week's mean around it over the first week's mean.
    let prefix: Vec<f64> = std::iter::once(0.0)
        .chain(fan[..supported].iter().scan(0.0, |sum, p| {
            *sum += p.mean;
            Some(*sum)
        }))
        .collect();
    let week_mean = |t: usize| {
        let from = t.saturating_sub(week / 2).min(supported - week);
        (prefix[from + week] - prefix[from]) / week as f64
    };
    let first_week = (prefix[week] - prefix[0]) / week as f64;
    let point_days = f64::from(fit.hours_per_point) / 24.0;
    (0..len)
        .map(|t| {
            let point = fan[source(t)];
            match growth {
                None => point,
                Some(g) => {
                    let trend = week_mean(source(t));
                    let detrended = if trend > 1e-9 && first_week > 1e-9 {
                        point.scaled(first_week / trend)
                    } else {
                        point
                    };
                    detrended.scaled(g.powf(t as f64 * point_days / DAYS_PER_YEAR))
                }
            }
        })
        .collect()
}
