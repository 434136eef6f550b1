//! The forecast read as demand paths. Each point's fan (its 95 % and 80 % bounds and its
//! mean) is a quantile function: linear between the knots, the outer segments carried on past
//! them, never below zero GPUs. Paths move together: the path at level u is every point's
//! u-quantile, so a forecast that runs low runs low all term, as a wrong level or trend does.
//! The hours of a month at ten evenly spread levels stand for that month's demand.

use crate::model::forecast::FanPoint;

/// Levels each point is read at for a month's demand distribution: the middles of ten equal
/// slices of probability (0.05, 0.15, …, 0.95).
pub const PATH_LEVELS: usize = 10;

/// The level of the P10 and P90 paths.
pub const P10: f64 = 0.10;
pub const P90: f64 = 0.90;

/// Probability of each knot of a fan: lo95, lo80, mean, hi80, hi95.
const KNOT_PROBABILITIES: [f64; 5] = [0.025, 0.10, 0.50, 0.90, 0.975];

/// GPUs at probability `u` of one point's fan. The mean stands for the median.
pub fn quantile(point: &FanPoint, u: f64) -> f64 {
    let knots = [point.lo95, point.lo80, point.mean, point.hi80, point.hi95];
    let u = u.clamp(0.0, 1.0);
    let segment = KNOT_PROBABILITIES
        .windows(2)
        .position(|w| u <= w[1])
        .unwrap_or(KNOT_PROBABILITIES.len() - 2);
    let (p0, p1) = (KNOT_PROBABILITIES[segment], KNOT_PROBABILITIES[segment + 1]);
    let (q0, q1) = (knots[segment], knots[segment + 1]);
    let gpus = q0 + (q1 - q0) * (u - p0) / (p1 - p0);
    if gpus.is_finite() { gpus.max(0.0) } else { 0.0 }
}

/// The stratified levels a month's distribution is read at.
pub fn path_levels() -> [f64; PATH_LEVELS] {
    std::array::from_fn(|k| (k as f64 + 0.5) / PATH_LEVELS as f64)
}

/// Demand over a horizon, point by point, from its start.
#[derive(Debug, Clone, PartialEq)]
pub struct DemandPaths {
    pub points: Vec<FanPoint>,
    pub hours_per_point: f64,
    /// Points in a month (the plan's hours per month over the hours a point stands for).
    pub points_per_month: usize,
}

/// One month's hourly demand as a sorted sample: how often it passes a level.
#[derive(Debug, Clone, PartialEq)]
pub struct MonthDemand {
    /// Hours the month holds (the last may be short).
    pub hours: f64,
    sorted_gpus: Vec<f64>,
    /// `above[i]`: the sum of `sorted_gpus[i..]`.
    above: Vec<f64>,
}

impl MonthDemand {
    /// The share of the month's hours whose demand is above `gpus`.
    pub fn exceedance(&self, gpus: f64) -> f64 {
        if self.sorted_gpus.is_empty() {
            return 0.0;
        }
        let at_or_below = self.sorted_gpus.partition_point(|&v| v <= gpus);
        (self.sorted_gpus.len() - at_or_below) as f64 / self.sorted_gpus.len() as f64
    }

    /// Expected GPU-hours of demand above `gpus` over the month: E[(D − gpus)+] · hours.
    pub fn excess_gpu_hours(&self, gpus: f64) -> f64 {
        let n = self.sorted_gpus.len();
        if n == 0 {
            return 0.0;
        }
        let first_above = self.sorted_gpus.partition_point(|&v| v <= gpus);
        let excess = self.above[first_above] - (n - first_above) as f64 * gpus;
        excess.max(0.0) / n as f64 * self.hours
    }

    pub fn new(hours: f64, gpus: Vec<f64>) -> MonthDemand {
        // Demand is never below zero (and a NaN counts as none): a non-negative float's bits
        // sort as its value does, and integers sort several times faster than a float compare.
        let mut bits: Vec<u64> = gpus
            .into_iter()
            .map(|g| if g > 0.0 { g.to_bits() } else { 0 })
            .collect();
        bits.sort_unstable();
        let gpus: Vec<f64> = bits.into_iter().map(f64::from_bits).collect();
        let mut above = vec![0.0; gpus.len() + 1];
        for i in (0..gpus.len()).rev() {
            above[i] = above[i + 1] + gpus[i];
        }
        MonthDemand {
            hours,
            sorted_gpus: gpus,
            above,
        }
    }

    pub fn highest_gpus(&self) -> f64 {
        self.sorted_gpus.last().copied().unwrap_or(0.0)
    }
}

impl DemandPaths {
    /// Known demand (what happened): every level reads the same value.
    pub fn known(gpus: &[f64], hours_per_point: f64, points_per_month: usize) -> DemandPaths {
        DemandPaths {
            points: gpus.iter().map(|&g| FanPoint::flat(clean(g))).collect(),
            hours_per_point,
            points_per_month: points_per_month.max(1),
        }
    }

    /// Seasonal naive's forecast over this horizon, as known demand: `season` (the history's
    /// last) repeated point by point, scaled by `scale`; none where there is no season.
    pub fn season_repeated(&self, season: &[f64], scale: f64) -> DemandPaths {
        let repeated: Vec<f64> = if season.is_empty() {
            vec![0.0; self.points.len()]
        } else {
            (0..self.points.len())
                .map(|i| season[i % season.len()] * scale)
                .collect()
        };
        DemandPaths::known(&repeated, self.hours_per_point, self.points_per_month)
    }

    pub fn months(&self) -> usize {
        self.points.len().div_ceil(self.points_per_month.max(1))
    }

    pub fn month_points(&self, month: usize) -> std::ops::Range<usize> {
        let start = (month * self.points_per_month).min(self.points.len());
        start..(start + self.points_per_month).min(self.points.len())
    }

    /// The path at level `u`, taken as certain.
    pub fn level_path(&self, u: f64) -> DemandPaths {
        let path: Vec<f64> = (0..self.points.len()).map(|t| self.at(t, u)).collect();
        DemandPaths::known(&path, self.hours_per_point, self.points_per_month)
    }

    /// GPUs of the path at level `u` at point `t`.
    pub fn at(&self, t: usize, u: f64) -> f64 {
        quantile(&self.points[t], u)
    }

    /// Each month's demand at the stratified levels, sorted.
    pub fn month_demands(&self) -> Vec<MonthDemand> {
        let levels = path_levels();
        let flat = self.points.iter().all(|p| p.lo95 == p.hi95);
        (0..self.months())
            .map(|month| {
                let range = self.month_points(month);
                let hours = range.len() as f64 * self.hours_per_point;
                let gpus: Vec<f64> = if flat {
                    self.points[range].iter().map(|p| clean(p.mean)).collect()
                } else {
                    self.points[range]
                        .iter()
                        .flat_map(|p| levels.iter().map(move |&u| quantile(p, u)))
                        .collect()
                };
                MonthDemand::new(hours, gpus)
            })
            .collect()
    }
}

fn clean(gpus: f64) -> f64 {
    if gpus.is_finite() { gpus.max(0.0) } else { 0.0 }
}
