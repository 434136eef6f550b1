//! One demand series in, its fan over the horizon out: the method its own history chooses.
//!
//! - no demand (every point zero): zero, with zero-width intervals;
//! - a constant series: that constant;
//! - otherwise every candidate (`methods::CANDIDATES`: the level, seasonal naive by day and by
//!   week, drift, and MSTL with five trend models) is scored by rolling-origin
//!   cross-validation on the series itself; the lowest mean absolute error wins, or the mean of
//!   every candidate within a tenth of it, is fitted again on the whole history and runs over the horizon. Its
//!   intervals are its own cross-validation errors at each lead (`intervals`).
//! - a history too short to score any method on: the level, with the history's own quantiles
//!   as its intervals, and a note that says so.
//!
//! A forecast whose 95 % bound passes ten times the history's peak within the data's reach is
//! no forecast to plan on: the level stands in, and the note says why.

use serde::Serialize;

use super::FanPoint;
use super::cross_validation::{CandidateScore, CrossValidated, MAX_ORIGINS, cross_validate, plan_origins};
use super::intervals::LeadErrors;
pub use super::methods::ForecastMethod;
use super::methods::{Seasons, run};

/// What a series' cross-validation found, as the output shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Selection {
    /// The seasons the methods were fitted with ("daily, weekly").
    pub seasons: String,
    pub origins: usize,
    /// Days each origin was scored on.
    pub window_days: f64,
    /// The chosen method's mean absolute error per point over the origins, in GPUs.
    pub mae_gpus: f64,
    /// Seasonal naive's (a week repeated, else a day) on the same points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seasonal_naive_mae_gpus: Option<f64>,
    /// The combination's members, when it was chosen.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub combined: Vec<ForecastMethod>,
    /// Every candidate scored, best first.
    pub candidates: Vec<CandidateScore>,
}

impl Selection {
    fn of(cv: &CrossValidated, seasons: &Seasons) -> Selection {
        let day = seasons.points_per_day.max(1) as f64;
        Selection {
            seasons: seasons.label(),
            origins: cv.origins.cutoffs.len(),
            window_days: cv.origins.window as f64 / day,
            mae_gpus: cv.score_of(cv.chosen).map_or(f64::NAN, |s| s.mae_gpus),
            seasonal_naive_mae_gpus: cv.seasonal_naive().map(|s| s.mae_gpus),
            combined: if cv.chosen == ForecastMethod::Combination {
                cv.members.clone()
            } else {
                Vec::new()
            },
            candidates: cv.scores.clone(),
        }
    }

    /// The chosen method's error over seasonal naive's (under 1: it beat repeating the season).
    pub fn against_seasonal_naive(&self) -> Option<f64> {
        self.seasonal_naive_mae_gpus
            .filter(|naive| *naive > 1e-9)
            .map(|naive| self.mae_gpus / naive)
    }
}

#[cfg(test)]
#[test]
fn each_method_code_is_the_name_json_gives_it() {
    let mut methods = super::methods::CANDIDATES.to_vec();
    methods.extend([ForecastMethod::NoDemand, ForecastMethod::Combination]);
    for method in methods {
        assert_eq!(
            serde_json::to_value(method).ok(),
            Some(serde_json::json!(method.code()))
        );
    }
}

/// A series' fan over the horizon, one point per series point.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedFan {
    pub method: ForecastMethod,
    /// Why the level stands in, when it does for a reason the reader should know.
    pub note: Option<String>,
    pub points: Vec<FanPoint>,
    /// The cross-validation that chose the method, when the history allowed one.
    pub selection: Option<Selection>,
}

/// Forecasts `horizon` points after `history` (GPUs per point, `points_per_day` points a day).
pub fn fit_fan(history: &[f64], points_per_day: usize, horizon: usize) -> FittedFan {
    let clean: Vec<f64> = history
        .iter()
        .map(|g| if g.is_finite() { g.max(0.0) } else { 0.0 })
        .collect();
    let plain = |method, note: Option<String>, points| FittedFan {
        method,
        note,
        points,
        selection: None,
    };
    if clean.iter().all(|&g| g == 0.0) {
        return plain(ForecastMethod::NoDemand, None, vec![FanPoint::flat(0.0); horizon]);
    }
    if clean.iter().all(|&g| (g - clean[0]).abs() < 1e-9) {
        return plain(ForecastMethod::Level, None, vec![FanPoint::flat(clean[0]); horizon]);
    }
    let day = points_per_day.max(1);
    let seasons = Seasons::for_history(clean.len(), day);
    let level = |note: String| plain(ForecastMethod::Level, Some(note), empirical(&clean, horizon));
    let Some(origins) = plan_origins(clean.len(), day, horizon.max(day), MAX_ORIGINS) else {
        return level(format!(
            "{:.1} days of history are too few to score a method on (it takes 3); the level stands in",
            clean.len() as f64 / day as f64,
        ));
    };
    let Some(cv) = cross_validate(&clean, day, &origins) else {
        return level("no method could be fitted at every origin; the level stands in".to_string());
    };
    let selection = Selection::of(&cv, &seasons);
    let mut means = vec![0.0; horizon];
    for (method, points) in run(&cv.members, &clean, &seasons, horizon) {
        match points {
            Ok(points) => means.iter_mut().zip(points).for_each(|(sum, p)| *sum += p),
            Err(why) => {
                let mut fan = level(format!(
                    "{} failed on the whole history ({why}); the level stands in",
                    method.label()
                ));
                fan.selection = Some(selection);
                return fan;
            }
        }
    }
    let members = cv.members.len() as f64;
    let history_mean = clean.iter().sum::<f64>() / clean.len() as f64;
    let errors = LeadErrors::from_residuals(&cv.forecasts, &cv.residuals, history_mean, day);
    let points: Vec<FanPoint> = means
        .iter()
        .enumerate()
        .map(|(t, sum)| {
            let mean = sum / members;
            let bounds = errors.at(t, mean);
            FanPoint {
                mean,
                lo80: (mean + bounds.lo80).max(0.0),
                hi80: (mean + bounds.hi80).max(0.0),
                lo95: (mean + bounds.lo95).max(0.0),
                hi95: (mean + bounds.hi95).max(0.0),
            }
            .ordered()
        })
        .collect();
    // Within the data's reach, a bound ten times past anything seen is no forecast to plan on.
    let peak = clean.iter().copied().fold(0.0, f64::max).max(1.0);
    let reach = clean.len().min(horizon);
    if points[..reach].iter().any(|p| !p.is_finite() || p.hi95 > 10.0 * peak) {
        let mut fan = level(format!(
            "{}'s 95 % bound passed ten times the history's peak of {peak:.0} GPUs; the level stands in",
            cv.chosen.label()
        ));
        fan.selection = Some(selection);
        return fan;
    }
    FittedFan {
        method: cv.chosen,
        note: None,
        points,
        selection: Some(selection),
    }
}

/// The history's mean, and its quantiles as the intervals: what a stationary series does.
fn empirical(series: &[f64], horizon: usize) -> Vec<FanPoint> {
    let mut sorted = series.to_vec();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| quantile(&sorted, p);
    let mean = series.iter().sum::<f64>() / series.len().max(1) as f64;
    let point = FanPoint {
        mean,
        lo80: q(0.10).min(mean),
        hi80: q(0.90).max(mean),
        lo95: q(0.025).min(mean),
        hi95: q(0.975).max(mean),
    };
    vec![point.ordered(); horizon]
}

/// Linear-interpolated quantile of sorted values (0 for none).
pub(super) fn quantile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let rank = p.clamp(0.0, 1.0) * (n - 1) as f64;
            let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
            sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
        }
    }
}
