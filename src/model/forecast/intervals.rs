//! Prediction intervals from the cross-validation's own errors (normalized conformal prediction,
//! Lei et al. 2018, by horizon step): how far off the chosen method was at each lead on the
//! series' own history is what its intervals say about the horizon. A model's own variance
//! leaves out the error of the seasons and trend it estimated, and grows too slowly at long
//! leads; its errors on the series itself do not.
//!
//! Errors are taken relative to a scale that follows the forecast, one for each side: below the
//! forecast, the forecast itself (an hour with no demand is always 100 % below any forecast, so
//! a lumpy series' idle hours land at the bottom of its interval whatever level it is forecast
//! at; a forecast under a tenth of the history's mean counts as that tenth); above it, the
//! forecast or the history's mean, whichever is larger (a gang that starts while the forecast
//! says idle is as large as the gangs were, not as large as the forecast).
//! Two parts, each estimated from what it has enough of:
//! - the scale at each lead: the relative errors' mean absolute size on each day of lead,
//!   smoothed as a line fitted over the scored days (growing no less than not at all; a trend's
//!   error grows in proportion to the lead), which also carries it past them, though never more
//!   slowly there than a random walk's error (as the square root of the lead) from the last
//!   scored day: no origin saw those leads;
//! - the shape: every relative error divided by its lead's scale, pooled over all leads and
//!   origins with its mirror; its quantiles (split-conformal ranks) are the bounds in units of
//!   scale (the side scales keep the skew of demand that jumps up further than it can fall).
//!
//! Errors that persist from one hour to the next (a level or trend misjudged is one per origin)
//! make the pool hold fewer independent errors than points: the split-conformal ranks are
//! corrected for that many (Bartlett's effective count, at least one per origin), which is the
//! whole of the small-sample allowance. A few origins of persistent errors move the 80 % bounds
//! to the pool's outermost errors; widening those again by Student's t over the origins, as
//! this did before, counted the same few draws twice: on Alibaba's DLRM trace the 95 % band held
//! 99.4 % of the held-out hours over 8 origins, and the 80 % band 88.6 % (now 98.2 % and 85.7 %;
//! docs/forecast.md, "Intervals").

use super::fit::quantile;
use crate::model::line_fit::LineFit;

/// Quantiles of the errors (actual − forecast) at one lead: the 95 % and 80 % bounds' offsets.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ErrorBounds {
    pub lo95: f64,
    pub lo80: f64,
    pub hi80: f64,
    pub hi95: f64,
}

/// Below the forecast, a forecast under this share of the history's mean counts as that much.
const LOWER_FLOOR_FRAC_OF_MEAN: f64 = 0.1;

/// The scales an error is taken relative to, below and above a forecast.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SideScales {
    below_floor_gpus: f64,
    above_floor_gpus: f64,
}

impl SideScales {
    fn of(history_mean_gpus: f64) -> SideScales {
        let mean = history_mean_gpus.max(1e-9);
        SideScales {
            below_floor_gpus: LOWER_FLOOR_FRAC_OF_MEAN * mean,
            above_floor_gpus: mean,
        }
    }

    fn below(self, forecast_gpus: f64) -> f64 {
        forecast_gpus.max(self.below_floor_gpus)
    }

    fn above(self, forecast_gpus: f64) -> f64 {
        forecast_gpus.max(self.above_floor_gpus)
    }

    /// An error in units of its side's scale.
    fn relative(self, forecast_gpus: f64, error_gpus: f64) -> f64 {
        if error_gpus < 0.0 {
            error_gpus / self.below(forecast_gpus)
        } else {
            error_gpus / self.above(forecast_gpus)
        }
    }
}

/// How the errors' scale grows with the day of lead.
#[derive(Debug, Clone, Copy, PartialEq)]
enum LeadScale {
    /// `first_day + per_day × d`: fitted over three or more scored days. A trend's error grows in
    /// proportion to the lead; noise adds the same at every lead.
    Linear { first_day: f64, per_day: f64 },
    /// `first_day × √(d + 1)`, a random walk's growth, when too few days were scored to fit one.
    SquareRoot { first_day: f64 },
}

impl LeadScale {
    /// Least squares over the scored days' mean absolute errors: the growth per day no less than
    /// none, the first day's scale no less than a quarter of their mean.
    fn fit(day_mae: &[f64]) -> LeadScale {
        let finite: Vec<f64> = day_mae.iter().copied().filter(|m| m.is_finite()).collect();
        let my = finite.iter().sum::<f64>() / finite.len().max(1) as f64;
        if finite.len() < 3 {
            return LeadScale::SquareRoot { first_day: my };
        }
        let (first_day, per_day) = line_fit(day_mae).unwrap_or((my, 0.0));
        let per_day = per_day.max(0.0);
        // A growth clamped to none leaves the mean as the level.
        let first_day = if per_day == 0.0 { my } else { first_day };
        let points: Vec<(f64, f64)> = day_mae
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_finite())
            .map(|(d, m)| (d as f64, *m))
            .collect();
        let floor = 0.25 * my;
        if first_day >= floor {
            return LeadScale::Linear { first_day, per_day };
        }
        // Through the floor: the slope that fits best from there.
        let sdd: f64 = points.iter().map(|p| p.0 * p.0).sum();
        let per_day = (points.iter().map(|p| p.0 * (p.1 - floor)).sum::<f64>() / sdd.max(1e-12)).max(0.0);
        LeadScale::Linear {
            first_day: floor,
            per_day,
        }
    }

    /// The scale on day of lead `d` (0: the first day).
    fn at(self, d: usize) -> f64 {
        match self {
            LeadScale::Linear { first_day, per_day } => first_day + per_day * d as f64,
            LeadScale::SquareRoot { first_day } => first_day * ((d + 1) as f64).sqrt(),
        }
    }
}

/// Error bounds for every lead.
#[derive(Debug, Clone, PartialEq)]
pub struct LeadErrors {
    points_per_day: usize,
    sides: SideScales,
    scale: LeadScale,
    /// Days of lead the cross-validation scored.
    scored_days: usize,
    /// The bounds in units of scale.
    shape: ErrorBounds,
}

impl LeadErrors {
    /// From the forecasts and errors (actual − forecast) per origin per lead (each origin as
    /// long as the scored window), for a history whose mean is `history_mean_gpus`.
    pub fn from_residuals(
        forecasts: &[Vec<f64>],
        errors: &[Vec<f64>],
        history_mean_gpus: f64,
        points_per_day: usize,
    ) -> LeadErrors {
        let day = points_per_day.max(1);
        let sides = SideScales::of(history_mean_gpus);
        let relative: Vec<Vec<f64>> = forecasts
            .iter()
            .zip(errors)
            .map(|(f, e)| f.iter().zip(e).map(|(f, e)| sides.relative(*f, *e)).collect())
            .collect();
        let residuals = relative.as_slice();
        let window = residuals.iter().map(Vec::len).min().unwrap_or(0);
        let days = window.div_ceil(day);
        let day_mae: Vec<f64> = (0..days)
            .map(|d| {
                let errors: Vec<f64> = residuals
                    .iter()
                    .flat_map(|r| r[d * day..((d + 1) * day).min(window)].iter())
                    .filter(|e| e.is_finite())
                    .map(|e| e.abs())
                    .collect();
                errors.iter().sum::<f64>() / errors.len().max(1) as f64
            })
            .collect();
        // A day's own errors are a few origins' worth: the scale is a line fitted over them all.
        let scale = LeadScale::fit(&day_mae);
        let standardized: Vec<f64> = residuals
            .iter()
            .flat_map(|r| {
                r[..window]
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.is_finite())
                    .map(|(t, e)| {
                        let s = scale.at(t / day);
                        if s > 1e-12 { e / s } else { 0.0 }
                    })
            })
            .collect();
        let independent = independent_errors(residuals, window);
        LeadErrors {
            points_per_day: day,
            sides,
            scale,
            scored_days: days,
            // Errors an hour apart move together (a level off is off for a while): the pool holds
            // fewer independent errors than points, and its ranks are corrected for that many,
            // the only allowance for a small sample.
            // Its sides are pooled (each error and its mirror): a few origins whose levels all
            // ran high say nothing about which way the next one will be off.
            shape: bounds_of(standardized.iter().flat_map(|e| [*e, -*e]).collect(), 2 * independent),
        }
    }

    /// The bounds, in GPUs, around a forecast of `forecast_gpus` at `lead` points ahead (0:
    /// the first point).
    pub fn at(&self, lead: usize, forecast_gpus: f64) -> ErrorBounds {
        let d = lead / self.points_per_day;
        // Past the scored days nothing says how the errors grow: at least as a random walk's,
        // from the last scored day's.
        let lead_scale = match self.scored_days {
            scored if d >= scored && scored > 0 => {
                let last = self.scale.at(scored - 1);
                self.scale.at(d).max(last * ((d + 1) as f64 / scored as f64).sqrt())
            }
            _ => self.scale.at(d),
        };
        // Each bound on the side it falls (a skewed pool can put both 80 % bounds above).
        let gpus = |u: f64| {
            let side = if u < 0.0 {
                self.sides.below(forecast_gpus)
            } else {
                self.sides.above(forecast_gpus)
            };
            u * lead_scale * side
        };
        ErrorBounds {
            lo95: gpus(self.shape.lo95),
            lo80: gpus(self.shape.lo80),
            hi80: gpus(self.shape.hi80),
            hi95: gpus(self.shape.hi95),
        }
    }
}

/// About how many independent errors the origins' `window` points hold: Bartlett's effective
/// count for errors that follow each other with lag-one correlation rho, n (1 − rho) / (1 + rho),
/// and at least one per origin.
fn independent_errors(residuals: &[Vec<f64>], window: usize) -> usize {
    let n: usize = residuals.len() * window;
    let mean = residuals.iter().flat_map(|r| r[..window].iter()).sum::<f64>() / n.max(1) as f64;
    let (mut lagged, mut squared) = (0.0, 0.0);
    for r in residuals {
        for t in 0..window {
            let e = r[t] - mean;
            squared += e * e;
            if t + 1 < window {
                lagged += e * (r[t + 1] - mean);
            }
        }
    }
    let rho = if squared > 0.0 {
        (lagged / squared).clamp(0.0, 0.999)
    } else {
        0.0
    };
    let effective = n as f64 * (1.0 - rho) / (1.0 + rho);
    (effective.round() as usize).clamp(residuals.len().max(1), n.max(1))
}

/// The bounds of a pool of errors holding about `independent` independent ones: the pool's
/// quantile (interpolated) at each level moved out as split-conformal ranks move it, p to
/// (k + 1) p / k (k = independent), but never past halfway to the pool's end. Uncapped, a
/// few origins of persistent errors took the 80 % and the 95 % bound alike to the pool's
/// outermost error (k ≤ 9 moves 0.90 past 1), and the two bands were one; capped, the 80 %
/// bound stays inside the 95 %, and both inside the pool.
fn bounds_of(mut pool: Vec<f64>, independent: usize) -> ErrorBounds {
    if pool.is_empty() {
        return ErrorBounds::default();
    }
    pool.sort_by(f64::total_cmp);
    let m = pool.len();
    let k = independent.clamp(1, m) as f64;
    let at_share = |share: f64| quantile(&pool, share);
    // The two-sided level p's upper share, moved out; the lower is its mirror.
    let moved = |p: f64| (p * (k + 1.0) / k).min((1.0 + p) / 2.0);
    let upper = |p: f64| at_share(moved(p));
    let lower = |p: f64| at_share(1.0 - moved(p));
    ErrorBounds {
        lo95: lower(0.975),
        lo80: lower(0.90),
        hi80: upper(0.90),
        hi95: upper(0.975),
    }
}

/// The least-squares line `(value at 0, growth per step)` through values at steps 0, 1, 2, …;
/// a single finite value stands as a level; none without one.
fn line_fit(values: &[f64]) -> Option<(f64, f64)> {
    let points = values.iter().enumerate().map(|(d, v)| (d as f64, *v));
    if let Some(fit) = LineFit::of(points) {
        return Some((fit.intercept, fit.slope));
    }
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    (!finite.is_empty()).then(|| (finite.iter().sum::<f64>() / finite.len() as f64, 0.0))
}

#[cfg(test)]
mod tests {
    use super::bounds_of;

    #[test]
    fn few_independent_errors_keep_the_80_band_inside_the_95() {
        // 1,344 pooled errors (4 origins of a week, hourly, with mirrors) counted as 8
        // independent: the ranks alone moved both upper bounds to the largest error.
        let pool: Vec<f64> = (0..1344).map(|i| (f64::from(i) - 671.5) / 100.0).collect();
        let b = bounds_of(pool.clone(), 8);
        assert!(
            b.lo95 < b.lo80 && b.lo80 < 0.0 && 0.0 < b.hi80 && b.hi80 < b.hi95,
            "{b:?}"
        );
        assert!(b.hi95 < 6.715, "inside the pool: {b:?}");
        // Many independent errors: the quantiles themselves, moved a little (the upper 10 % of
        // a pool mirrored about zero starts at 80 % of its largest error).
        let many = bounds_of(pool, 1344);
        assert!((many.hi80 - 0.8 * 6.715).abs() < 0.05, "{many:?}");
        assert!(many.hi80 < b.hi80);
    }
}
