//! MSTL (Bandara, Hyndman and Bergmeir 2021): the daily and weekly shapes taken out of a series
//! by repeated STL, a trend model fitted on what is left (trend plus remainder), and the last
//! cycle of each season added back ahead. The decomposition is stlrs's (through augurs), with R's
//! and statsforecast's defaults (seasonal windows 11 and 15, two passes); it is done once per
//! history and shared by every trend model, since it does not depend on them.

use augurs::Predict;
use augurs::ets::model::{ErrorComponent, ModelType, SeasonalComponent, TrendComponent, Unfit};
use augurs::mstl::stlrs::MstlParams;

use super::MethodError;
use super::theta::{ThetaKind, fit_theta};

/// A history with its seasons taken out.
#[derive(Debug, Clone)]
pub struct Decomposition {
    periods: Vec<usize>,
    /// Each season's component, one per period, as long as the history.
    seasonal: Vec<Vec<f64>>,
    /// The history less its seasons: what the trend models fit.
    pub deseasonalized: Vec<f64>,
}

/// Decomposes `history` over `periods` (ascending, each at most half the history); with no
/// periods the history is its own deseasonalized series.
pub fn decompose(history: &[f64], periods: &[usize]) -> Result<Decomposition, MethodError> {
    if periods.is_empty() {
        return Ok(Decomposition {
            periods: Vec::new(),
            seasonal: Vec::new(),
            deseasonalized: history.to_vec(),
        });
    }
    let fit = MstlParams::new()
        .fit(history, periods)
        .map_err(|e| MethodError::Decomposition(e.to_string()))?;
    let deseasonalized = fit.trend().iter().zip(fit.remainder()).map(|(t, r)| t + r).collect();
    Ok(Decomposition {
        periods: periods.to_vec(),
        seasonal: fit.seasonal().to_vec(),
        deseasonalized,
    })
}

impl Decomposition {
    /// The seasons' sum over the next `horizon` points: each one's last cycle, repeated.
    pub fn seasons_ahead(&self, horizon: usize) -> Vec<f64> {
        let mut ahead = vec![0.0; horizon];
        for (&period, component) in self.periods.iter().zip(&self.seasonal) {
            let last_cycle = &component[component.len() - period..];
            for (h, value) in ahead.iter_mut().enumerate() {
                *value += last_cycle[h % period];
            }
        }
        ahead
    }
}

/// The trend models fitted on a deseasonalized series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrendModel {
    /// Simple exponential smoothing (ETS A,N,N): a level, no trend.
    EtsLevel,
    /// Holt's linear trend damped (ETS A,Ad,N): levels off ahead.
    EtsDamped,
    /// Holt's linear trend (ETS A,A,N): carried undamped.
    EtsTrend,
    /// The standard Theta method: exponential smoothing plus half the line's slope.
    Theta,
    /// The optimised Theta method: the share of the slope fitted too.
    ThetaOptimized,
}

/// Nelder-Mead steps an ETS fit may take (augurs', R's and statsforecast's default: 2,000).
/// Their stopping rule asks the simplex's likelihoods to agree within 1e-4, which a trend fit
/// on a thousand hourly points rarely meets, so it ran all 2,000 steps: three quarters of a
/// report's time. At 500, `report`, `forecast` and every chosen method and policy were
/// byte-for-byte the same on the sample, openb, DLRM 2025 and Philly, and backtest scores moved
/// in the seventh significant figure (docs/performance.md, "Where the forward half's time
/// went"); at 250 the reports moved.
const ETS_MAX_ITERATIONS: usize = 500;

/// `model` fitted on `deseasonalized`, its next `horizon` points.
pub fn trend_forecast(model: TrendModel, deseasonalized: &[f64], horizon: usize) -> Result<Vec<f64>, MethodError> {
    // One ETS form fitted by likelihood (augurs' port of R's ets), additive errors, no season.
    let ets = |trend: TrendComponent, damped: bool| -> Result<Vec<f64>, MethodError> {
        let ets_error = |e: augurs::ets::Error| MethodError::Ets(e.to_string());
        let form = ModelType {
            error: ErrorComponent::Additive,
            trend,
            season: SeasonalComponent::None,
        };
        let fitted = Unfit::new(form)
            .damped(damped)
            .nmse(1)
            .max_iterations(ETS_MAX_ITERATIONS)
            .fit(deseasonalized)
            .map_err(ets_error)?;
        Ok(fitted.predict(horizon, None).map_err(ets_error)?.point)
    };
    let points = match model {
        TrendModel::EtsLevel => ets(TrendComponent::None, false)?,
        TrendModel::EtsDamped => ets(TrendComponent::Additive, true)?,
        TrendModel::EtsTrend => ets(TrendComponent::Additive, false)?,
        TrendModel::Theta => fit_theta(deseasonalized, ThetaKind::Standard)
            .ok_or(MethodError::Theta)?
            .forecast(horizon),
        TrendModel::ThetaOptimized => fit_theta(deseasonalized, ThetaKind::Optimized)
            .ok_or(MethodError::Theta)?
            .forecast(horizon),
    };
    if points.len() != horizon || points.iter().any(|v| !v.is_finite()) {
        return Err(MethodError::NotFinite);
    }
    Ok(points)
}
