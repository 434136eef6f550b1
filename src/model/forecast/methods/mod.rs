//! The forecasters a series' own cross-validation chooses among, and how each is run. A new
//! method is a variant here, named once in `CANDIDATES`, and its arm in `run`.
//!
//! Every method forecasts GPUs directly (as statsforecast does), never below zero.

pub mod memo;
mod mstl;
mod simple;
#[cfg(test)]
mod tests;
mod theta;

use serde::Serialize;

pub use self::mstl::{Decomposition, TrendModel, decompose, trend_forecast};
pub use self::theta::{ThetaFit, ThetaKind, fit_theta};

/// How a series was forecast; the output names it per series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForecastMethod {
    /// Every point zero: zero ahead.
    NoDemand,
    /// The history's mean.
    Level,
    /// The history's last day repeated.
    SeasonalNaiveDay,
    /// The history's last week repeated.
    SeasonalNaiveWeek,
    /// The last point moved on by the history's average step.
    Drift,
    /// MSTL, then exponential smoothing of the level (no trend).
    MstlEts,
    /// MSTL, then Holt's damped trend.
    MstlEtsDamped,
    /// MSTL, then Holt's linear trend, undamped.
    MstlEtsTrend,
    /// MSTL, then the standard Theta method.
    MstlTheta,
    /// MSTL, then the optimised Theta method.
    MstlThetaOptimized,
    /// The mean of the best few candidates' forecasts.
    Combination,
}

/// The methods every series' cross-validation scores (the combination is built from them).
pub const CANDIDATES: [ForecastMethod; 9] = [
    ForecastMethod::Level,
    ForecastMethod::SeasonalNaiveDay,
    ForecastMethod::SeasonalNaiveWeek,
    ForecastMethod::Drift,
    ForecastMethod::MstlEts,
    ForecastMethod::MstlEtsDamped,
    ForecastMethod::MstlEtsTrend,
    ForecastMethod::MstlTheta,
    ForecastMethod::MstlThetaOptimized,
];

impl ForecastMethod {
    pub fn label(self) -> &'static str {
        match self {
            ForecastMethod::NoDemand => "no demand",
            ForecastMethod::Level => "level (the history's mean)",
            ForecastMethod::SeasonalNaiveDay => "seasonal naive (last day)",
            ForecastMethod::SeasonalNaiveWeek => "seasonal naive (last week)",
            ForecastMethod::Drift => "drift",
            ForecastMethod::MstlEts => "MSTL + ETS (level)",
            ForecastMethod::MstlEtsDamped => "MSTL + ETS (damped trend)",
            ForecastMethod::MstlEtsTrend => "MSTL + ETS (trend)",
            ForecastMethod::MstlTheta => "MSTL + Theta",
            ForecastMethod::MstlThetaOptimized => "MSTL + Theta (optimised)",
            ForecastMethod::Combination => "combination",
        }
    }

    /// At most 12 characters, for the workbench's narrow rows.
    pub fn short(self) -> &'static str {
        match self {
            ForecastMethod::NoDemand => "no demand",
            ForecastMethod::Level => "level",
            ForecastMethod::SeasonalNaiveDay => "naive day",
            ForecastMethod::SeasonalNaiveWeek => "naive week",
            ForecastMethod::Drift => "drift",
            ForecastMethod::MstlEts => "ets",
            ForecastMethod::MstlEtsDamped => "ets damped",
            ForecastMethod::MstlEtsTrend => "ets trend",
            ForecastMethod::MstlTheta => "theta",
            ForecastMethod::MstlThetaOptimized => "theta opt.",
            ForecastMethod::Combination => "combination",
        }
    }

    /// The label with the seasons an MSTL method was fitted with ("MSTL (daily, weekly) + Theta").
    pub fn label_with_seasons(self, seasons: &str) -> String {
        match self.label().strip_prefix("MSTL") {
            Some(rest) if self.trend_model().is_some() => format!("MSTL ({seasons}){rest}"),
            _ => self.label().to_string(),
        }
    }

    /// The name JSON gives the method, for narrow places.
    pub fn code(self) -> &'static str {
        match self {
            ForecastMethod::NoDemand => "no-demand",
            ForecastMethod::Level => "level",
            ForecastMethod::SeasonalNaiveDay => "seasonal-naive-day",
            ForecastMethod::SeasonalNaiveWeek => "seasonal-naive-week",
            ForecastMethod::Drift => "drift",
            ForecastMethod::MstlEts => "mstl-ets",
            ForecastMethod::MstlEtsDamped => "mstl-ets-damped",
            ForecastMethod::MstlEtsTrend => "mstl-ets-trend",
            ForecastMethod::MstlTheta => "mstl-theta",
            ForecastMethod::MstlThetaOptimized => "mstl-theta-optimized",
            ForecastMethod::Combination => "combination",
        }
    }

    /// The MSTL trend model this method fits, if it is one.
    fn trend_model(self) -> Option<TrendModel> {
        match self {
            ForecastMethod::MstlEts => Some(TrendModel::EtsLevel),
            ForecastMethod::MstlEtsDamped => Some(TrendModel::EtsDamped),
            ForecastMethod::MstlEtsTrend => Some(TrendModel::EtsTrend),
            ForecastMethod::MstlTheta => Some(TrendModel::Theta),
            ForecastMethod::MstlThetaOptimized => Some(TrendModel::ThetaOptimized),
            _ => None,
        }
    }

    /// Whether the method carries a trend in the data forward without damping it.
    pub fn carries_trend(self) -> bool {
        matches!(
            self,
            ForecastMethod::Drift
                | ForecastMethod::MstlEtsTrend
                | ForecastMethod::MstlTheta
                | ForecastMethod::MstlThetaOptimized
        )
    }
}

/// Why a method could not forecast a history.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MethodError {
    #[error("the seasonal decomposition failed: {0}")]
    Decomposition(String),
    #[error("the exponential-smoothing fit failed: {0}")]
    Ets(String),
    #[error("the Theta fit needs five finite points")]
    Theta,
    #[error("the fit gave non-finite values")]
    NotFinite,
    #[error("the history holds no week to repeat")]
    NoWeek,
    #[error("a combination is built from its members' forecasts, not fitted")]
    NotFitted,
}

/// The seasons a history is fitted with, in points, chosen by its length: a season is fitted
/// once the history holds two of it (daily from two days, weekly from two weeks), as
/// statsforecast's MSTL requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seasons {
    pub points_per_day: usize,
    /// Ascending; each at most half of the shortest history fitted.
    pub periods: Vec<usize>,
}

impl Seasons {
    pub fn for_history(points: usize, points_per_day: usize) -> Seasons {
        let day = points_per_day.max(1);
        let mut periods = Vec::new();
        if day > 1 && points >= 2 * day {
            periods.push(day);
        }
        if points >= 14 * day {
            periods.push(7 * day);
        }
        Seasons {
            points_per_day: day,
            periods,
        }
    }

    /// The week in points, when the series is fitted with one.
    pub fn week(&self) -> Option<usize> {
        self.periods.iter().copied().find(|&p| p == 7 * self.points_per_day)
    }

    /// "daily, weekly", as the output names the seasons.
    pub fn label(&self) -> String {
        let names: Vec<&str> = self
            .periods
            .iter()
            .map(|&p| if p == self.points_per_day { "daily" } else { "weekly" })
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    }
}

/// Each of `methods` fitted on `history` and run `horizon` points ahead, floored at zero; the
/// MSTL methods share one decomposition, and one kept from an earlier fit of the same history
/// (`memo`) is served instead of fitted. A method that cannot run says why.
pub fn run(
    methods: &[ForecastMethod],
    history: &[f64],
    seasons: &Seasons,
    horizon: usize,
) -> Vec<(ForecastMethod, Result<Vec<f64>, MethodError>)> {
    let keys: Vec<Option<memo::FitKey>> = methods
        .iter()
        .map(|&m| m.trend_model().map(|_| memo::fit_key(m, history, &seasons.periods)))
        .collect();
    let kept: Vec<Option<Vec<f64>>> = keys.iter().map(|k| k.and_then(|k| memo::kept(k, horizon))).collect();
    let needs_decomposition = keys
        .iter()
        .zip(&kept)
        .any(|(key, kept)| key.is_some() && kept.is_none());
    let decomposition = needs_decomposition.then(|| decompose(history, &seasons.periods));
    methods
        .iter()
        .zip(keys)
        .zip(kept)
        .map(|((&method, key), kept)| {
            let points = match (method, kept) {
                (_, Some(points)) => Ok(points),
                (ForecastMethod::NoDemand, None) => Ok(vec![0.0; horizon]),
                (ForecastMethod::Level, None) => Ok(simple::level(history, horizon)),
                (ForecastMethod::SeasonalNaiveDay, None) => {
                    Ok(simple::seasonal_naive(history, seasons.points_per_day, horizon))
                }
                (ForecastMethod::SeasonalNaiveWeek, None) => match seasons.week() {
                    Some(week) => Ok(simple::seasonal_naive(history, week, horizon)),
                    None => Err(MethodError::NoWeek),
                },
                (ForecastMethod::Drift, None) => Ok(simple::drift(history, horizon)),
                (ForecastMethod::Combination, None) => Err(MethodError::NotFitted),
                (trend, None) => match (trend.trend_model(), &decomposition) {
                    (Some(model), Some(Ok(parts))) => {
                        let fitted: Result<Vec<f64>, MethodError> =
                            trend_forecast(model, &parts.deseasonalized, horizon)
                                .map(|t| t.iter().zip(parts.seasons_ahead(horizon)).map(|(t, s)| t + s).collect());
                        if let (Ok(points), Some(key)) = (&fitted, key) {
                            memo::keep(key, points);
                        }
                        fitted
                    }
                    (_, Some(Err(e))) => Err(e.clone()),
                    _ => Err(MethodError::NotFitted),
                },
            };
            (method, points.map(|p| p.into_iter().map(|v| v.max(0.0)).collect()))
        })
        .collect()
}
