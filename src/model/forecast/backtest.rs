//! A forecast scored on the user's own history at several cut-offs (origins): at each, fit on
//! what came before, forecast the held-out days, and compare with what happened, point by
//! point. One cut-off is one anecdote; the scores are averaged over the origins, with their
//! spread.
//!
//! - `mase`: the forecast's mean absolute error over the in-sample mean absolute error of the
//!   seasonal-naive forecast (the value one season earlier; weekly where the fitted history
//!   holds two weeks, else daily), Hyndman and Koehler's scale-free score: under 1 beats it.
//! - `seasonal_naive_mae_gpus`: the held-out error of repeating the history's last season, the
//!   forecast a spreadsheet would make; `beats_seasonal_naive` compares the two directly.
//! - `coverage_80`, `coverage_95`: the share of held-out points inside each interval, over
//!   every lead and in the first and the last held-out week.
//! - `interval_score_80_gpus`, `interval_score_95_gpus`: Winkler's interval score, the band's
//!   width plus 2/α times how far a point fell outside it (α = 0.2, 0.05), averaged over the
//!   points: a band too wide and a band too narrow both cost, so it ranks intervals as MAE
//!   ranks points (lower is better; statsforecast's and the M4 competition's measure).
//! - `methods`: every candidate fitted alone at the same origins, beside the one each origin's
//!   own cross-validation chose.

use rayon::prelude::*;
use serde::Serialize;

use super::methods::{CANDIDATES, ForecastMethod, Seasons, run};
use super::{DemandSeries, FanPoint, fit_fan};
use crate::model::fleet::iso_utc;

const MS_PER_HOUR: i64 = 3_600_000;
/// Default and most origins a backtest takes.
pub const MAX_BACKTEST_ORIGINS: usize = 8;
/// Origins step back at most a week, at least a day.
const MAX_STEP_DAYS: usize = 7;
/// Each origin keeps at least two weeks of history to fit where the log holds them.
const MIN_FIT_DAYS: usize = 14;

/// A score's mean over the origins and its range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    fn of(values: &[f64]) -> Spread {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if finite.is_empty() {
            return Spread {
                mean: f64::NAN,
                min: f64::NAN,
                max: f64::NAN,
            };
        }
        Spread {
            mean: finite.iter().sum::<f64>() / finite.len() as f64,
            min: finite.iter().copied().fold(f64::INFINITY, f64::min),
            max: finite.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// The share of points inside each interval over a stretch of leads.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Coverage {
    pub coverage_80: f64,
    pub coverage_95: f64,
}

/// One origin's score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OriginScore {
    /// The first held-out instant.
    pub cutoff: String,
    pub fitted_days: f64,
    pub method: ForecastMethod,
    pub mae_gpus: f64,
    pub seasonal_naive_mae_gpus: f64,
    pub coverage_80: f64,
    pub coverage_95: f64,
}

/// A single method fitted alone at every origin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodBacktest {
    pub method: ForecastMethod,
    pub mae_gpus: Spread,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BacktestScore {
    pub holdout_days: u32,
    pub origins: usize,
    /// The method the last origin's cross-validation chose (each origin's is in `per_origin`).
    pub method: ForecastMethod,
    /// Means over the origins of the held-out days' mean GPUs.
    pub actual_mean_gpus: f64,
    pub forecast_mean_gpus: f64,
    /// The mean absolute error per point, averaged over the origins.
    pub mae_gpus: f64,
    pub mae_spread_gpus: Spread,
    pub seasonal_naive_mae_gpus: f64,
    pub seasonal_naive_mae_spread_gpus: Spread,
    /// Points in the season the naive forecasts repeat (168 hourly points: weekly).
    pub season_points: usize,
    /// Averaged over the origins; None when the history is so flat that the naive forecast
    /// makes no error to scale by.
    pub mase: Option<f64>,
    pub beats_seasonal_naive: bool,
    pub coverage_80: f64,
    pub coverage_95: f64,
    /// Winkler's interval score of the 80 % and 95 % bands, in GPUs, over every held-out point.
    pub interval_score_80_gpus: f64,
    pub interval_score_95_gpus: f64,
    /// Over the first held-out week's points and over the last week's.
    pub first_week: Coverage,
    pub last_week: Coverage,
    /// Each candidate fitted alone at the same origins, best first.
    pub methods: Vec<MethodBacktest>,
    pub per_origin: Vec<OriginScore>,
}

/// Why a series cannot be backtested.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BacktestError {
    #[error(
        "{holdout_days} held-out days leave {left_points} points of history to fit; hold out fewer days or give a longer log"
    )]
    TooShort { holdout_days: u32, left_points: usize },
    #[error(
        "origins {step_days} days apart, each followed by {holdout_days} held-out days, fit once in {history_days} days of history; step fewer days, hold out fewer or give a longer log"
    )]
    StepTooLong {
        step_days: u32,
        holdout_days: u32,
        history_days: usize,
    },
}

impl BacktestError {
    /// The command-line option the error is about.
    pub fn flag(&self) -> &'static str {
        match self {
            BacktestError::TooShort { .. } => "--holdout-days",
            BacktestError::StepTooLong { .. } => "--origin-step-days",
        }
    }
}

/// Whether `points` of history (`ppd` a day) leave two days to fit after `holdout_days`.
pub fn check_holdout(points: usize, ppd: usize, holdout_days: u32) -> Result<(), BacktestError> {
    let holdout = holdout_days as usize * ppd;
    if holdout == 0 || points < holdout + 2 * ppd {
        return Err(BacktestError::TooShort {
            holdout_days,
            left_points: points.saturating_sub(holdout),
        });
    }
    Ok(())
}

/// Whether origins stepped as asked fit twice in `points` (`ppd` a day): a step asked for that
/// leaves one origin scores nothing a step could. Rolling origins always pass.
pub fn check_origins(
    points: usize,
    ppd: usize,
    holdout_days: u32,
    origins: BacktestOrigins,
) -> Result<(), BacktestError> {
    let Some(step_days) = origins.step_days.filter(|_| origins.wanted > 1) else {
        return Ok(());
    };
    if backtest_cutoffs(points, ppd, holdout_days as usize * ppd, origins).len() < 2 {
        return Err(BacktestError::StepTooLong {
            step_days,
            holdout_days,
            history_days: points / ppd.max(1),
        });
    }
    Ok(())
}

/// Where a backtest cuts: up to `wanted` origins, the last leaving exactly the held-out days
/// after it, the others `step_days` apart (None: a whole number of days, a week at most,
/// spread over the room there is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BacktestOrigins {
    pub wanted: usize,
    pub step_days: Option<u32>,
}

impl BacktestOrigins {
    /// Up to `wanted` origins stepping back up to a week each.
    pub fn rolling(wanted: usize) -> BacktestOrigins {
        BacktestOrigins {
            wanted,
            step_days: None,
        }
    }
}

/// The backtest's cut-offs (point indices, ascending) for `points` of history, `holdout`
/// points held out at each: the last leaves exactly the holdout after it; the others step back
/// `origins.step_days` each, else a whole number of days (a week at most, spread over the
/// room there is), each keeping two weeks to fit where the log holds them, two days at least.
/// At most `origins.wanted`.
pub fn backtest_cutoffs(points: usize, ppd: usize, holdout: usize, origins: BacktestOrigins) -> Vec<usize> {
    let day = ppd.max(1);
    let Some(last) = points.checked_sub(holdout).filter(|&l| l >= 2 * day) else {
        return Vec::new();
    };
    let min_fit = (MIN_FIT_DAYS * day).min(last).max(2 * day);
    let spare_days = (last - min_fit) / day;
    let wanted = origins.wanted.max(1);
    let step_days = match origins.step_days {
        Some(days) => (days as usize).max(1),
        None if wanted > 1 => (spare_days / (wanted - 1)).clamp(1, MAX_STEP_DAYS),
        None => 1,
    };
    let count = wanted.min(spare_days / step_days + 1);
    let mut cutoffs: Vec<usize> = (0..count).map(|i| last - i * step_days * day).collect();
    cutoffs.reverse();
    cutoffs
}

/// One origin's forecast and the naive benchmark's, scored.
struct OriginRun {
    cutoff: usize,
    method: ForecastMethod,
    fan: Vec<FanPoint>,
    naive: Vec<f64>,
    in_sample_naive_mae: f64,
    singles: Vec<(ForecastMethod, f64)>,
}

/// Fits `series` at the `origins` cut-offs, each without the `holdout_days` after it, and
/// scores the forecasts of those days.
pub fn backtest_series(
    series: &DemandSeries,
    holdout_days: u32,
    origins: BacktestOrigins,
) -> Result<BacktestScore, BacktestError> {
    let ppd = series.points_per_day();
    let holdout = holdout_days as usize * ppd;
    let n = series.gpus.len();
    check_holdout(n, ppd, holdout_days)?;
    let gpus: Vec<f64> = series
        .gpus
        .iter()
        .map(|g| if g.is_finite() { g.max(0.0) } else { 0.0 })
        .collect();
    let cutoffs = backtest_cutoffs(n, ppd, holdout, origins);
    let runs: Vec<OriginRun> = cutoffs
        .par_iter()
        .map(|&cut| {
            let train = &gpus[..cut];
            let actual = &gpus[cut..cut + holdout];
            let fitted = fit_fan(train, ppd, holdout);
            let season = naive_season(train.len(), ppd);
            let last_season = &train[train.len() - season..];
            let naive: Vec<f64> = (0..holdout).map(|i| last_season[i % season]).collect();
            let in_sample_naive_mae = train.windows(season + 1).map(|w| (w[season] - w[0]).abs()).sum::<f64>()
                / train.len().saturating_sub(season).max(1) as f64;
            let seasons = Seasons::for_history(train.len(), ppd);
            let singles = run(&CANDIDATES, train, &seasons, holdout)
                .into_iter()
                .filter_map(|(method, points)| Some((method, mae(&points.ok()?, actual))))
                .collect();
            OriginRun {
                cutoff: cut,
                method: fitted.method,
                fan: fitted.points,
                naive,
                in_sample_naive_mae,
                singles,
            }
        })
        .collect();
    let point_ms = i64::from(series.hours_per_point.max(1)) * MS_PER_HOUR;
    let actual_of = |r: &OriginRun| &gpus[r.cutoff..r.cutoff + holdout];
    let means: Vec<f64> = runs
        .iter()
        .map(|r| r.fan.iter().map(|f| f.mean).collect::<Vec<_>>())
        .map(|m| m.iter().sum::<f64>() / holdout as f64)
        .collect();
    let maes: Vec<f64> = runs
        .iter()
        .map(|r| mae(&r.fan.iter().map(|f| f.mean).collect::<Vec<_>>(), actual_of(r)))
        .collect();
    let naive_maes: Vec<f64> = runs.iter().map(|r| mae(&r.naive, actual_of(r))).collect();
    let mases: Vec<f64> = maes
        .iter()
        .zip(&runs)
        .filter(|(_, r)| r.in_sample_naive_mae > 1e-9)
        .map(|(m, r)| m / r.in_sample_naive_mae)
        .collect();
    let week = (7 * ppd).min(holdout);
    let coverage_over = |leads: std::ops::Range<usize>| -> Coverage {
        let (mut in80, mut in95, mut total) = (0usize, 0usize, 0usize);
        for r in &runs {
            for t in leads.clone() {
                let (f, a) = (r.fan[t], actual_of(r)[t]);
                in80 += usize::from(f.lo80 - 1e-9 <= a && a <= f.hi80 + 1e-9);
                in95 += usize::from(f.lo95 - 1e-9 <= a && a <= f.hi95 + 1e-9);
                total += 1;
            }
        }
        let share = |k: usize| k as f64 / total.max(1) as f64;
        Coverage {
            coverage_80: share(in80),
            coverage_95: share(in95),
        }
    };
    let all = coverage_over(0..holdout);
    let interval_score = |alpha: f64, lo: fn(&FanPoint) -> f64, hi: fn(&FanPoint) -> f64| -> f64 {
        let (mut sum, mut total) = (0.0, 0usize);
        for r in &runs {
            for (f, &a) in r.fan.iter().zip(actual_of(r)) {
                sum += winkler(lo(f), hi(f), a, alpha);
                total += 1;
            }
        }
        sum / total.max(1) as f64
    };
    let interval_score_80_gpus = interval_score(0.2, |f| f.lo80, |f| f.hi80);
    let interval_score_95_gpus = interval_score(0.05, |f| f.lo95, |f| f.hi95);
    let mut methods: Vec<MethodBacktest> = CANDIDATES
        .iter()
        .filter_map(|&method| {
            let per_origin: Option<Vec<f64>> = runs
                .iter()
                .map(|r| r.singles.iter().find(|(m, _)| *m == method).map(|(_, e)| *e))
                .collect();
            per_origin.map(|errors| MethodBacktest {
                method,
                mae_gpus: Spread::of(&errors),
            })
        })
        .collect();
    methods.sort_by(|a, b| a.mae_gpus.mean.total_cmp(&b.mae_gpus.mean));
    let mae_spread = Spread::of(&maes);
    let naive_spread = Spread::of(&naive_maes);
    let per_origin = runs
        .iter()
        .zip(maes.iter().zip(&naive_maes))
        .map(|(r, (&mae_gpus, &naive))| {
            let actual = actual_of(r);
            let inside = |lo: fn(&FanPoint) -> f64, hi: fn(&FanPoint) -> f64| {
                r.fan
                    .iter()
                    .zip(actual)
                    .filter(|(f, a)| lo(f) - 1e-9 <= **a && **a <= hi(f) + 1e-9)
                    .count() as f64
                    / holdout as f64
            };
            OriginScore {
                cutoff: iso_utc(series.start_ms + r.cutoff as i64 * point_ms),
                fitted_days: r.cutoff as f64 / ppd as f64,
                method: r.method,
                mae_gpus,
                seasonal_naive_mae_gpus: naive,
                coverage_80: inside(|f| f.lo80, |f| f.hi80),
                coverage_95: inside(|f| f.lo95, |f| f.hi95),
            }
        })
        .collect();
    let last = runs.last().ok_or(BacktestError::TooShort {
        holdout_days,
        left_points: n.saturating_sub(holdout),
    })?;
    Ok(BacktestScore {
        holdout_days,
        origins: runs.len(),
        method: last.method,
        actual_mean_gpus: Spread::of(
            &runs
                .iter()
                .map(|r| actual_of(r).iter().sum::<f64>() / holdout as f64)
                .collect::<Vec<_>>(),
        )
        .mean,
        forecast_mean_gpus: Spread::of(&means).mean,
        mae_gpus: mae_spread.mean,
        mae_spread_gpus: mae_spread,
        seasonal_naive_mae_gpus: naive_spread.mean,
        seasonal_naive_mae_spread_gpus: naive_spread,
        season_points: naive_season(last.cutoff, ppd),
        mase: (!mases.is_empty()).then(|| mases.iter().sum::<f64>() / mases.len() as f64),
        beats_seasonal_naive: mae_spread.mean < naive_spread.mean,
        coverage_80: all.coverage_80,
        coverage_95: all.coverage_95,
        interval_score_80_gpus,
        interval_score_95_gpus,
        first_week: coverage_over(0..week),
        last_week: coverage_over(holdout - week..holdout),
        methods,
        per_origin,
    })
}

/// Winkler's score of one point against its band at level 1 − `alpha`: the width, plus 2/α
/// times the distance outside.
pub fn winkler(lo: f64, hi: f64, actual: f64, alpha: f64) -> f64 {
    let outside = if actual < lo {
        lo - actual
    } else if actual > hi {
        actual - hi
    } else {
        0.0
    };
    (hi - lo) + 2.0 / alpha * outside
}

/// The season seasonal naive repeats: a week where the fitted history holds two, else a day.
pub fn naive_season(fitted_points: usize, ppd: usize) -> usize {
    let season = if fitted_points >= 14 * ppd { 7 * ppd } else { ppd.max(1) };
    season.min(fitted_points).max(1)
}

fn mae(forecast: &[f64], actual: &[f64]) -> f64 {
    forecast.iter().zip(actual).map(|(f, a)| (f - a).abs()).sum::<f64>() / actual.len().max(1) as f64
}
