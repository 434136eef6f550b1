//! A forecast scored on the user's own history: fit on all but the last days, forecast them,
//! and compare with what happened, point by point.
//!
//! - `mase`: the forecast's mean absolute error over the in-sample mean absolute error of the
//!   seasonal-naive forecast (the value one season earlier; weekly where the fitted history
//!   holds two weeks, else daily), Hyndman and Koehler's scale-free score: under 1 beats it.
//! - `seasonal_naive_mae`: the held-out error of repeating the history's last season, the
//!   forecast a spreadsheet would make; `beats_seasonal_naive` compares the two directly.
//! - `coverage_80`, `coverage_95`: the share of held-out points inside each interval.

use serde::Serialize;

use super::{DemandSeries, ForecastMethod, fit_fan};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BacktestScore {
    pub holdout_days: u32,
    pub method: ForecastMethod,
    pub actual_mean_gpus: f64,
    pub forecast_mean_gpus: f64,
    pub mae_gpus: f64,
    pub seasonal_naive_mae_gpus: f64,
    /// Points in the season the naive forecasts repeat (168 hourly points: weekly).
    pub season_points: usize,
    /// None when the history is so flat that the naive forecast makes no error to scale by.
    pub mase: Option<f64>,
    pub beats_seasonal_naive: bool,
    pub coverage_80: f64,
    pub coverage_95: f64,
}

/// A class's commitment layers sized at the cut-off and priced on the held-out days, beside
/// the cheapest layering knowing those days (hindsight) and today's matcher on the history
/// alone (flat): what `model::commitment_layers::score_commitments` gives. Kept here, with the
/// backtest it joins, so the forecast needs nothing of the commitments.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitmentScore {
    /// The accelerator the class's layers were bought on.
    pub accelerator: String,
    pub chosen_cost_usd: f64,
    pub hindsight_cost_usd: f64,
    pub flat_cost_usd: f64,
    /// (chosen − hindsight) / hindsight.
    pub regret_frac: f64,
    /// (flat − hindsight) / hindsight.
    pub flat_regret_frac: f64,
}

/// Why a series cannot be backtested.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BacktestError {
    #[error(
        "{holdout_days} held-out days leave {left_points} points of history to fit; hold out fewer days or give a longer log"
    )]
    TooShort { holdout_days: u32, left_points: usize },
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

/// Fits `series` without its last `holdout_days` and scores the forecast of those days.
pub fn backtest_series(series: &DemandSeries, holdout_days: u32) -> Result<BacktestScore, BacktestError> {
    let ppd = series.points_per_day();
    let holdout = holdout_days as usize * ppd;
    let n = series.gpus.len();
    check_holdout(n, ppd, holdout_days)?;
    let (train, actual) = series.gpus.split_at(n - holdout);
    let fitted = fit_fan(train, ppd, holdout);
    let season = if train.len() >= 14 * ppd { 7 * ppd } else { ppd.max(1) };
    let season = season.min(train.len());
    let mean = |v: &mut dyn Iterator<Item = f64>, len: usize| v.sum::<f64>() / len.max(1) as f64;
    let mae = mean(
        &mut fitted.points.iter().zip(actual).map(|(f, a)| (f.mean - a).abs()),
        holdout,
    );
    let last_season = &train[train.len() - season..];
    let naive_mae = mean(
        &mut actual
            .iter()
            .enumerate()
            .map(|(i, a)| (last_season[i % season] - a).abs()),
        holdout,
    );
    let in_sample_naive = mean(
        &mut train.windows(season + 1).map(|w| (w[season] - w[0]).abs()),
        train.len().saturating_sub(season),
    );
    let inside = |lo: fn(&super::FanPoint) -> f64, hi: fn(&super::FanPoint) -> f64| {
        let hits = fitted
            .points
            .iter()
            .zip(actual)
            .filter(|(f, a)| lo(f) - 1e-9 <= **a && **a <= hi(f) + 1e-9)
            .count();
        hits as f64 / holdout as f64
    };
    Ok(BacktestScore {
        holdout_days,
        method: fitted.method,
        actual_mean_gpus: mean(&mut actual.iter().copied(), holdout),
        forecast_mean_gpus: mean(&mut fitted.points.iter().map(|f| f.mean), holdout),
        mae_gpus: mae,
        seasonal_naive_mae_gpus: naive_mae,
        season_points: season,
        mase: (in_sample_naive > 1e-9).then(|| mae / in_sample_naive),
        beats_seasonal_naive: mae < naive_mae,
        coverage_80: inside(|f| f.lo80, |f| f.hi80),
        coverage_95: inside(|f| f.lo95, |f| f.hi95),
    })
}
