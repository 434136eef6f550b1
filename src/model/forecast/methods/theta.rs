//! The Theta method (Assimakopoulos and Nikolopoulos 2000, the M3 competition's winner) in the
//! state-space form of Fiorucci et al. (2016), the form statsforecast fits: simple exponential
//! smoothing of the series plus a weight (1 − 1/theta) of the slope of its least-squares line,
//! so a linear trend in the data is carried undamped. The standard method fixes theta = 2
//! (half the slope; statsforecast's `Theta`); the optimised one fits theta too
//! (statsforecast's `OptimizedTheta`), so a trend the data holds throughout is carried whole.
//!
//! The one-step errors are affine in the initial level and in the trend weight, so for each
//! smoothing weight alpha the best initial level (and weight) is a least-squares solve; alpha
//! itself (0.1 to 0.99, statsforecast's bounds) is found on a grid refined by golden-section
//! search. The loss, as statsforecast's, is the sum of squared one-step errors from the fourth
//! point on.

/// theta = 2: the standard method's weight on the trend line, 1 − 1/theta.
const STANDARD_TREND_WEIGHT: f64 = 0.5;
/// theta at most this in the optimised method (statsforecast bounds it at 1e10).
const MAX_TREND_WEIGHT: f64 = 1.0 - 1e-10;

/// Which Theta method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThetaKind {
    /// theta = 2.
    Standard,
    /// theta fitted (at least 1).
    Optimized,
}
const ALPHA_MIN: f64 = 0.1;
const ALPHA_MAX: f64 = 0.99;
/// The loss counts one-step errors from this point on (the first few carry the start-up).
const BURN_IN: usize = 3;

/// A fitted standard Theta model: what its forecast needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThetaFit {
    pub alpha: f64,
    /// 1 − 1/theta: the share of the line's slope carried.
    pub trend_weight: f64,
    pub initial_level: f64,
    /// Intercept and slope of the least-squares line through the series (time 1..n).
    pub intercept: f64,
    pub slope: f64,
    /// The smoothed level after the last point.
    pub last_level: f64,
    pub points: usize,
}

/// Fits a Theta method; None under five points or for non-finite values.
pub fn fit_theta(y: &[f64], kind: ThetaKind) -> Option<ThetaFit> {
    let n = y.len();
    if n <= BURN_IN + 1 || y.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let (intercept, slope) = trend_line(y);
    let line = Line { intercept, slope };
    // A coarse grid first (the profile loss need not be unimodal), then golden section
    // around its best point.
    const GRID: usize = 24;
    let at = |i: usize| ALPHA_MIN + (ALPHA_MAX - ALPHA_MIN) * i as f64 / GRID as f64;
    let best = (0..=GRID)
        .map(|i| (i, profile_loss(y, line, at(i), kind).loss))
        .min_by(|a, b| a.1.total_cmp(&b.1))?
        .0;
    let (mut lo, mut hi) = (at(best.saturating_sub(1)), at((best + 1).min(GRID)));
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = hi - ratio * (hi - lo);
    let mut d = lo + ratio * (hi - lo);
    let (mut fc, mut fd) = (profile_loss(y, line, c, kind).loss, profile_loss(y, line, d, kind).loss);
    while hi - lo > 1e-7 {
        if fc <= fd {
            (hi, d, fd) = (d, c, fc);
            c = hi - ratio * (hi - lo);
            fc = profile_loss(y, line, c, kind).loss;
        } else {
            (lo, c, fc) = (c, d, fd);
            d = lo + ratio * (hi - lo);
            fd = profile_loss(y, line, d, kind).loss;
        }
    }
    let alpha = (lo + hi) / 2.0;
    let best = profile_loss(y, line, alpha, kind);
    if !best.loss.is_finite() {
        return None;
    }
    let initial_level = best.initial_level;
    let mut level = alpha * y[0] + (1.0 - alpha) * initial_level;
    for &value in &y[1..] {
        level = alpha * value + (1.0 - alpha) * level;
    }
    Some(ThetaFit {
        alpha,
        trend_weight: best.trend_weight,
        initial_level,
        intercept,
        slope,
        last_level: level,
        points: n,
    })
}

impl ThetaFit {
    /// The next `horizon` points.
    pub fn forecast(&self, horizon: usize) -> Vec<f64> {
        let keep = 1.0 - self.alpha;
        let mut level = self.last_level;
        // (1 − alpha)^i at the first forecast point, i = n.
        let mut decay = keep.powi(self.points as i32);
        (0..horizon)
            .map(|_| {
                let mu = level + self.trend_weight * drift(self.intercept, self.slope, self.alpha, decay);
                level = self.alpha * mu + keep * level;
                decay *= keep;
                mu
            })
            .collect()
    }
}

#[derive(Clone, Copy)]
struct Line {
    intercept: f64,
    slope: f64,
}

/// The least-squares line through (1, y1) .. (n, yn): intercept and slope.
fn trend_line(y: &[f64]) -> (f64, f64) {
    let n = y.len() as f64;
    let mean = y.iter().sum::<f64>() / n;
    let weighted = y.iter().enumerate().map(|(i, v)| v * (i + 1) as f64).sum::<f64>() / n;
    let slope = 6.0 * (2.0 * weighted - (n + 1.0) * mean) / (n * n - 1.0);
    (mean - (n + 1.0) * slope / 2.0, slope)
}

/// What the trend line adds to the smoothed level at point i, before its weight; `decay` =
/// (1 − alpha)^i.
fn drift(intercept: f64, slope: f64, alpha: f64, decay: f64) -> f64 {
    intercept * decay + slope * (1.0 - decay * (1.0 - alpha)) / alpha
}

/// The best fit at one alpha.
struct Profile {
    loss: f64,
    initial_level: f64,
    trend_weight: f64,
}

/// The loss at `alpha` with its best initial level (and, optimised, trend weight). Each
/// one-step error is r_i − s_i · l0 − w · g_i: the level after point i − 1 is a_(i−1) +
/// (1 − alpha)^i · l0, and the trend adds w · g_i.
fn profile_loss(y: &[f64], line: Line, alpha: f64, kind: ThetaKind) -> Profile {
    let keep = 1.0 - alpha;
    let mut a = alpha * y[0];
    // (1 − alpha)^i for the current i.
    let mut decay = keep;
    // Sums of products of r (the error with no level and no trend), s and g.
    let (mut rr, mut rs, mut rg, mut ss, mut sg, mut gg) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for (i, &value) in y.iter().enumerate().skip(1) {
        let g = drift(line.intercept, line.slope, alpha, decay);
        let r = value - a;
        if i >= BURN_IN {
            rr += r * r;
            rs += r * decay;
            rg += r * g;
            ss += decay * decay;
            sg += decay * g;
            gg += g * g;
        }
        a = alpha * value + keep * a;
        decay *= keep;
    }
    let loss_at = |l0: f64, w: f64| rr + l0 * l0 * ss + w * w * gg - 2.0 * l0 * rs - 2.0 * w * rg + 2.0 * l0 * w * sg;
    // The best level for a given weight; with the initial level out of reach of the errors,
    // statsforecast's start (half the first value) stands.
    let level_for = |w: f64| if ss > 1e-300 { (rs - w * sg) / ss } else { y[0] / 2.0 };
    let trend_weight = match kind {
        ThetaKind::Standard => STANDARD_TREND_WEIGHT,
        ThetaKind::Optimized => {
            // Both free: the 2 × 2 normal equations, then the weight kept within theta ≥ 1.
            let det = ss * gg - sg * sg;
            let w = if det.abs() > 1e-12 * (ss * gg).max(1e-300) {
                (ss * rg - sg * rs) / det
            } else if gg > 1e-300 {
                rg / gg
            } else {
                STANDARD_TREND_WEIGHT
            };
            w.clamp(0.0, MAX_TREND_WEIGHT)
        }
    };
    let initial_level = level_for(trend_weight);
    Profile {
        loss: loss_at(initial_level, trend_weight).max(0.0),
        initial_level,
        trend_weight,
    }
}
