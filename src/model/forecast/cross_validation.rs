//! Rolling-origin cross-validation (Hyndman and Athanasopoulos, FPP3 5.10) on a series' own
//! history: at several cut-offs, every candidate is fitted on what came before and scored on
//! the stretch after, as far ahead as the plan asks and the data reaches. The method with the
//! lowest mean absolute error over the origins is chosen; where others come within a tenth of
//! it, the mean of them all is (the M4 competition's lesson: a few origins cannot tell near-ties
//! apart, and combinations are hard to beat). The chosen forecast's errors at each lead are
//! what its intervals are built from (`intervals`).

use rayon::prelude::*;
use serde::Serialize;

use super::methods::{CANDIDATES, ForecastMethod, Seasons, run};

/// At most this many origins. Each costs a fit of every candidate; on the project's series
/// (bench/forecast-vs-statsforecast.sh) eight chose no better than four, which spread over the
/// same stretch overlap less.
pub const MAX_ORIGINS: usize = 4;
/// Candidates within this share of the best cross-validated error are averaged.
const COMBINE_WITHIN_FRAC: f64 = 0.10;

/// Where a series is cut for scoring: each cut-off's history is the points before it, scored on
/// the `window` points after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origins {
    pub window: usize,
    /// Ascending point indices.
    pub cutoffs: Vec<usize>,
}

/// The origins for a `points`-long history forecast `horizon` points ahead: the scored stretch is
/// the horizon, at most a third of the history (whole days, one at least); every origin keeps at
/// least half the history (two days at least), so what is scored is fitted on a history like the
/// one the forecast will be; the last origin scores the history's last stretch, the others step
/// back a whole number of days each, spread over what is left. None when not even one origin
/// fits.
pub fn plan_origins(points: usize, points_per_day: usize, horizon: usize, max_origins: usize) -> Option<Origins> {
    let day = points_per_day.max(1);
    let min_history = (points / 2 / day * day).max(2 * day);
    let room = points.checked_sub(min_history)?;
    let third = points / 3 / day * day;
    let window = horizon.min(third.max(day)).min(room / day * day);
    if window < day || max_origins == 0 {
        return None;
    }
    let last = points - window;
    let spare_days = (last - min_history) / day;
    let count = max_origins.min(spare_days + 1);
    let step_days = if count > 1 { spare_days / (count - 1) } else { 0 };
    let mut cutoffs: Vec<usize> = (0..count).map(|i| last - i * step_days * day).collect();
    cutoffs.reverse();
    Some(Origins { window, cutoffs })
}

/// One candidate's cross-validated error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CandidateScore {
    pub method: ForecastMethod,
    /// Mean absolute error per point, averaged over the origins, in GPUs.
    pub mae_gpus: f64,
    /// Each origin's, oldest first.
    #[serde(skip)]
    pub origin_mae_gpus: Vec<f64>,
}

/// What cross-validation found for a series.
#[derive(Debug, Clone, PartialEq)]
pub struct CrossValidated {
    pub origins: Origins,
    /// The combination when chosen, then every candidate that ran at every origin, best first.
    pub scores: Vec<CandidateScore>,
    pub chosen: ForecastMethod,
    /// The methods whose forecasts are averaged: the combination's members, or the chosen alone.
    pub members: Vec<ForecastMethod>,
    /// The chosen method's forecasts and errors (actual − forecast), per origin, per lead.
    pub forecasts: Vec<Vec<f64>>,
    pub residuals: Vec<Vec<f64>>,
}

impl CrossValidated {
    pub fn score_of(&self, method: ForecastMethod) -> Option<&CandidateScore> {
        self.scores.iter().find(|s| s.method == method)
    }

    /// The seasonal-naive benchmark beside the chosen method: a week repeated where the series
    /// holds weeks, else a day.
    pub fn seasonal_naive(&self) -> Option<&CandidateScore> {
        self.score_of(ForecastMethod::SeasonalNaiveWeek)
            .or_else(|| self.score_of(ForecastMethod::SeasonalNaiveDay))
    }
}

/// Scores every candidate on `history` at `origins` (each fitted with the seasons its history
/// holds) and chooses; None when no candidate ran at every origin.
pub fn cross_validate(history: &[f64], points_per_day: usize, origins: &Origins) -> Option<CrossValidated> {
    let window = origins.window;
    // Per origin: each candidate's forecast of the window, where it ran.
    let forecasts: Vec<Vec<(ForecastMethod, Option<Vec<f64>>)>> = origins
        .cutoffs
        .par_iter()
        .map(|&cut| {
            let seasons = Seasons::for_history(cut, points_per_day);
            run(&CANDIDATES, &history[..cut], &seasons, window)
                .into_iter()
                .map(|(method, points)| (method, points.ok()))
                .collect()
        })
        .collect();
    let actuals: Vec<&[f64]> = origins.cutoffs.iter().map(|&c| &history[c..c + window]).collect();
    let mae = |forecast: &[f64], actual: &[f64]| {
        forecast.iter().zip(actual).map(|(f, a)| (a - f).abs()).sum::<f64>() / window as f64
    };
    // A candidate counts only where it ran at every origin, so every score covers the same points.
    let ran: Vec<(ForecastMethod, Vec<&[f64]>)> = CANDIDATES
        .iter()
        .filter_map(|&method| {
            let per_origin: Option<Vec<&[f64]>> = forecasts
                .iter()
                .map(|at| at.iter().find(|(m, _)| *m == method).and_then(|(_, p)| p.as_deref()))
                .collect();
            per_origin.map(|p| (method, p))
        })
        .collect();
    let score = |method: ForecastMethod, per_origin: &[&[f64]]| {
        let origin_mae_gpus: Vec<f64> = per_origin.iter().zip(&actuals).map(|(f, a)| mae(f, a)).collect();
        CandidateScore {
            method,
            mae_gpus: origin_mae_gpus.iter().sum::<f64>() / origin_mae_gpus.len().max(1) as f64,
            origin_mae_gpus,
        }
    };
    let mut scores: Vec<CandidateScore> = ran.iter().map(|(m, p)| score(*m, p)).collect();
    scores.sort_by(|a, b| a.mae_gpus.total_cmp(&b.mae_gpus));
    let mut combined_forecasts: Vec<Vec<f64>> = Vec::new();
    // Candidates this close to the best are ties within the noise of a few origins: their mean
    // is chosen (the M4 competition's lesson), scored on the same origins. A clear winner stands
    // alone.
    let best_mae = scores.first()?.mae_gpus;
    let members: Vec<ForecastMethod> = scores
        .iter()
        .filter(|s| s.mae_gpus <= best_mae * (1.0 + COMBINE_WITHIN_FRAC) + 1e-12)
        .map(|s| s.method)
        .collect();
    let chosen = if members.len() > 1 {
        let combined: Vec<Vec<f64>> = (0..origins.cutoffs.len())
            .map(|o| {
                let of = |m: &ForecastMethod| ran.iter().find(|(r, _)| r == m).map(|(_, p)| p[o]);
                let member_points: Vec<&[f64]> = members.iter().filter_map(of).collect();
                (0..window)
                    .map(|t| member_points.iter().map(|p| p[t]).sum::<f64>() / member_points.len() as f64)
                    .collect()
            })
            .collect();
        let combination = score(
            ForecastMethod::Combination,
            &combined.iter().map(Vec::as_slice).collect::<Vec<_>>(),
        );
        scores.insert(0, combination);
        combined_forecasts = combined;
        ForecastMethod::Combination
    } else {
        members[0]
    };
    let per_origin: Vec<&[f64]> = if chosen == ForecastMethod::Combination {
        combined_forecasts.iter().map(Vec::as_slice).collect()
    } else {
        ran.iter().find(|(m, _)| *m == chosen)?.1.clone()
    };
    let residuals = per_origin
        .iter()
        .zip(&actuals)
        .map(|(f, a)| a.iter().zip(f.iter()).map(|(a, f)| a - f).collect())
        .collect();
    Some(CrossValidated {
        origins: origins.clone(),
        chosen,
        members: if chosen == ForecastMethod::Combination {
            members
        } else {
            vec![chosen]
        },
        scores,
        forecasts: per_origin.iter().map(|f| f.to_vec()).collect(),
        residuals,
    })
}
