//! One demand series in, its hourly fan out: the method that suits the series, fitted.
//!
//! - no demand (every point zero): zero, with zero-width intervals;
//! - level (under two days, or constant): the history's mean, intervals from its quantiles;
//! - lumpy (gangs and bursts that come and go: a fifth of the points or more idle, under 5 % of
//!   the busiest): the mean of the history, intervals from its quantiles, no seasonality. A
//!   seasonal model on such a series mistakes the gaps for a pattern and its log-scale intervals
//!   blow up; the history's own spread covers what the next months look like;
//! - mstl-daily (two days to two weeks) and mstl-weekly (two weeks and more): augurs' MSTL
//!   decomposition with an AutoETS trend, fitted on log(1 + GPUs), so the intervals are skewed
//!   upward as demand is and back-transform to at least -1 GPU, floored at zero (no actual
//!   demand lies below zero, so the floor changes no interval's coverage). The back-transformed
//!   point is the median; the mean adds half the log-scale variance (read off the 80 %
//!   interval), as a mean of demand must. The model's intervals leave out the error of the
//!   seasons it estimated, so each is widened by what a fit without the history's last week
//!   needed to hold that week (split-conformal calibration; never narrowed). A fit whose 95 %
//!   bound passes ten times the history's peak within the data's reach is refused, and the
//!   level stands in, saying why.

use augurs::ets::AutoETS;
use augurs::forecaster::transforms::Error as TransformError;
use augurs::forecaster::{Forecaster, Transformer};
use augurs::mstl::MSTLModel;
use serde::Serialize;

use super::FanPoint;

/// How a series was forecast; the output names it per series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForecastMethod {
    NoDemand,
    Level,
    Lumpy,
    MstlDaily,
    MstlWeekly,
}

impl ForecastMethod {
    pub fn label(self) -> &'static str {
        match self {
            ForecastMethod::NoDemand => "no demand",
            ForecastMethod::Level => "level",
            ForecastMethod::Lumpy => "lumpy (the history's spread)",
            ForecastMethod::MstlDaily => "MSTL (daily) + damped ETS",
            ForecastMethod::MstlWeekly => "MSTL (daily, weekly) + damped ETS",
        }
    }

    /// The name JSON gives the method, for narrow places.
    pub fn code(self) -> &'static str {
        match self {
            ForecastMethod::NoDemand => "no-demand",
            ForecastMethod::Level => "level",
            ForecastMethod::Lumpy => "lumpy",
            ForecastMethod::MstlDaily => "mstl-daily",
            ForecastMethod::MstlWeekly => "mstl-weekly",
        }
    }
}

#[cfg(test)]
#[test]
fn each_method_code_is_the_name_json_gives_it() {
    for method in [
        ForecastMethod::NoDemand,
        ForecastMethod::Level,
        ForecastMethod::Lumpy,
        ForecastMethod::MstlDaily,
        ForecastMethod::MstlWeekly,
    ] {
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
    /// Why a seasonal fit fell back to the level, when it did.
    pub note: Option<String>,
    pub points: Vec<FanPoint>,
}

/// A point under this share of the busiest point's GPUs is idle.
const IDLE_FRAC_OF_PEAK: f64 = 0.05;
/// A series idle this share of its points or more is lumpy.
const LUMPY_IDLE_SHARE: f64 = 0.2;
/// z of the 80 % interval's upper bound (the 90th percentile of a normal).
const Z80: f64 = 1.281_551_565_545;

/// Forecasts `horizon` points after `history` (GPUs per point, `points_per_day` points a day).
pub fn fit_fan(history: &[f64], points_per_day: usize, horizon: usize) -> FittedFan {
    let clean: Vec<f64> = history
        .iter()
        .map(|g| if g.is_finite() { g.max(0.0) } else { 0.0 })
        .collect();
    let fan = |method, points| FittedFan {
        method,
        note: None,
        points,
    };
    if clean.iter().all(|&g| g == 0.0) {
        return fan(ForecastMethod::NoDemand, vec![FanPoint::flat(0.0); horizon]);
    }
    let points_per_day = points_per_day.max(1);
    let constant = clean.iter().all(|&g| (g - clean[0]).abs() < 1e-9);
    if constant || clean.len() < 2 * points_per_day {
        return fan(ForecastMethod::Level, empirical(&clean, horizon));
    }
    if is_lumpy(&clean) {
        return fan(ForecastMethod::Lumpy, empirical(&clean, horizon));
    }
    let weekly = clean.len() >= 14 * points_per_day;
    let (method, periods) = match (weekly, points_per_day) {
        (true, d) if d > 1 => (ForecastMethod::MstlWeekly, vec![d, 7 * d]),
        (true, _) => (ForecastMethod::MstlWeekly, vec![7]),
        (false, d) if d > 1 => (ForecastMethod::MstlDaily, vec![d]),
        // Daily points under two weeks: no season to fit.
        (false, _) => return fan(ForecastMethod::Level, empirical(&clean, horizon)),
    };
    match seasonal(&clean, &periods, points_per_day, horizon) {
        Ok(points) => fan(method, points),
        Err(reason) => FittedFan {
            method: ForecastMethod::Level,
            note: Some(format!("the seasonal fit failed ({reason}); the level stands in")),
            points: empirical(&clean, horizon),
        },
    }
}

/// Idle a fifth of the time or more: gangs and bursts, not a seasonal load.
fn is_lumpy(series: &[f64]) -> bool {
    let peak = series.iter().copied().fold(0.0, f64::max);
    let idle = series.iter().filter(|&&g| g <= IDLE_FRAC_OF_PEAK * peak).count();
    idle as f64 >= LUMPY_IDLE_SHARE * series.len() as f64
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

/// log(1 + GPUs): demand is skewed and never negative; the inverse is at least -1 GPU.
#[derive(Debug, Clone, Copy, Default)]
struct Log1p;

impl Transformer for Log1p {
    fn fit(&mut self, _data: &[f64]) -> Result<(), TransformError> {
        Ok(())
    }

    fn transform(&self, data: &mut [f64]) -> Result<(), TransformError> {
        data.iter_mut().for_each(|x| *x = x.ln_1p());
        Ok(())
    }

    fn inverse_transform(&self, data: &mut [f64]) -> Result<(), TransformError> {
        data.iter_mut().for_each(|x| *x = x.exp_m1());
        Ok(())
    }
}

/// A fit's forecast in log(1 + GPUs): the median and each bound, point by point.
struct LogFan {
    median: Vec<f64>,
    lo80: Vec<f64>,
    hi80: Vec<f64>,
    lo95: Vec<f64>,
    hi95: Vec<f64>,
}

fn log_fan(series: &[f64], periods: &[usize], horizon: usize) -> Result<LogFan, String> {
    // One model: additive errors on the log scale (multiplicative on GPUs) and an additive,
    // damped trend, which levels off rather than compounding a quarter's slope over three
    // years (Gardner and McKenzie's robust default); the search over every ETS form cost three
    // times the fitting for trends no planner should extrapolate undamped.
    let trend = AutoETS::new(1, "AAN")
        .and_then(|ets| ets.damped(true))
        .map_err(|e| e.to_string())?
        .into_trend_model();
    let mut forecaster =
        Forecaster::new(MSTLModel::new(periods.to_vec(), trend)).with_transformers(vec![Log1p.boxed()]);
    forecaster.fit(series.to_vec()).map_err(|e| e.to_string())?;
    let at80 = forecaster.predict(horizon, 0.80).map_err(|e| e.to_string())?;
    let at95 = forecaster.predict(horizon, 0.95).map_err(|e| e.to_string())?;
    let (Some(i80), Some(i95)) = (at80.intervals, at95.intervals) else {
        return Err("no intervals".to_string());
    };
    let log = |v: Vec<f64>| -> Vec<f64> { v.into_iter().map(|x| x.max(-1.0 + 1e-12).ln_1p()).collect() };
    let fan = LogFan {
        median: log(at80.point),
        lo80: log(i80.lower),
        hi80: log(i80.upper),
        lo95: log(i95.lower),
        hi95: log(i95.upper),
    };
    if [&fan.median, &fan.lo80, &fan.hi80, &fan.lo95, &fan.hi95]
        .iter()
        .any(|v| v.len() != horizon || v.iter().any(|x| !x.is_finite()))
    {
        return Err("the fit gave non-finite values".to_string());
    }
    Ok(fan)
}

/// How much wider the intervals must be to hold what the history's last days did: the model's
/// intervals leave out the error of the seasons it estimated. Fit without the last week (a
/// quarter of the history at most), and compare the held-out points' log-scale errors with the
/// bounds' distances: the factors that make 80 % and 95 % of them fall inside, never below 1.
fn interval_widening(series: &[f64], periods: &[usize], points_per_day: usize) -> (f64, f64) {
    let held = (7 * points_per_day).min(series.len() / 4);
    let Some(longest) = periods.iter().copied().max() else {
        return (1.0, 1.0);
    };
    if held < points_per_day || series.len() - held < 2 * longest {
        return (1.0, 1.0);
    }
    let (fit_on, actual) = series.split_at(series.len() - held);
    let Ok(fan) = log_fan(fit_on, periods, held) else {
        return (1.0, 1.0);
    };
    let ratios = |lo: &[f64], hi: &[f64]| -> Vec<f64> {
        let mut r: Vec<f64> = actual
            .iter()
            .enumerate()
            .map(|(t, a)| {
                let error = a.ln_1p() - fan.median[t];
                let room = if error >= 0.0 {
                    hi[t] - fan.median[t]
                } else {
                    fan.median[t] - lo[t]
                };
                if room > 1e-12 {
                    error.abs() / room
                } else if error.abs() > 1e-12 {
                    f64::INFINITY
                } else {
                    0.0
                }
            })
            .collect();
        r.sort_by(f64::total_cmp);
        r
    };
    let k80 = quantile(&ratios(&fan.lo80, &fan.hi80), 0.80);
    let k95 = quantile(&ratios(&fan.lo95, &fan.hi95), 0.95);
    // A factor past 10 means the model's intervals were no guide: cap the widening there.
    let bounded = |k: f64| if k.is_finite() { k.clamp(1.0, 10.0) } else { 10.0 };
    (bounded(k80), bounded(k95))
}

fn seasonal(series: &[f64], periods: &[usize], points_per_day: usize, horizon: usize) -> Result<Vec<FanPoint>, String> {
    if horizon == 0 {
        return Ok(Vec::new());
    }
    let (k80, k95) = interval_widening(series, periods, points_per_day);
    let fan = log_fan(series, periods, horizon)?;
    let back = |x: f64| x.exp_m1().max(0.0);
    let points: Vec<FanPoint> = (0..horizon)
        .map(|t| {
            let m = fan.median[t];
            let widen = |bound: f64, k: f64| m + (bound - m) * k;
            let (lo80, hi80) = (widen(fan.lo80[t], k80), widen(fan.hi80[t], k80));
            // The spread the (widened) 80 % interval implies, for the mean of a log-normal.
            let spread = (hi80 - lo80) / (2.0 * Z80);
            FanPoint {
                mean: back(m + spread * spread / 2.0),
                lo80: back(lo80),
                hi80: back(hi80),
                lo95: back(widen(fan.lo95[t], k95)),
                hi95: back(widen(fan.hi95[t], k95)),
            }
            .ordered()
        })
        .collect();
    // Within the data's reach, a bound ten times past anything seen is no forecast to plan on.
    let peak = series.iter().copied().fold(0.0, f64::max).max(1.0);
    let reach = series.len().min(horizon);
    if points[..reach].iter().any(|p| !p.is_finite() || p.hi95 > 10.0 * peak) {
        return Err(format!(
            "its 95 % bound passed ten times the history's peak of {peak:.0} GPUs"
        ));
    }
    Ok(points)
}
