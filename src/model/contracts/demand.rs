//! One class's demand series, cleaned and indexed for the matching search.

/// Base levels tried per term pair; more distinct demand levels are thinned to this many
/// quantiles, which keeps a year of noisy hourly data fast while the error stays below one
/// quantile step of the demand.
pub const MAX_BASE_LEVEL_CANDIDATES: usize = 200;

/// The demand, cleaned and indexed so a base level's idle and excess GPU-hours are two binary
/// searches instead of a pass over the series.
pub(super) struct DemandProfile {
    hourly: Vec<f64>,
    /// Hours each value of `hourly` stands for.
    hours_per_point: f64,
    sorted: Vec<f64>,
    /// prefix[i] = sum of the i smallest hours.
    prefix: Vec<f64>,
    pub(super) peak: f64,
}

impl DemandProfile {
    pub(super) fn new(raw: &[f64], hours_per_point: f64) -> Self {
        let hourly: Vec<f64> = raw
            .iter()
            .map(|&d| if d.is_finite() && d > 0.0 { d } else { 0.0 })
            .collect();
        let mut sorted = hourly.clone();
        sorted.sort_unstable_by(f64::total_cmp);
        let mut prefix = Vec::with_capacity(sorted.len() + 1);
        prefix.push(0.0);
        let mut running = 0.0;
        for &d in &sorted {
            running += d;
            prefix.push(running);
        }
        let peak = sorted.last().copied().unwrap_or(0.0);
        Self {
            hourly,
            hours_per_point,
            sorted,
            prefix,
            peak,
        }
    }

    pub(super) fn window_hours(&self) -> f64 {
        self.hourly.len() as f64 * self.hours_per_point
    }

    pub(super) fn total_gpu_hours(&self) -> f64 {
        self.prefix.last().copied().unwrap_or(0.0) * self.hours_per_point
    }

    /// Σ (d − level)+: demand above the base.
    pub(super) fn excess_gpu_hours(&self, level: f64) -> f64 {
        let below = self.sorted.partition_point(|&d| d <= level);
        let above_count = (self.sorted.len() - below) as f64;
        // Scaled term by term, so one-hour points give exactly the unscaled sums.
        (self.total_gpu_hours()
            - self.prefix[below] * self.hours_per_point
            - level * above_count * self.hours_per_point)
            .max(0.0)
    }

    /// Σ (level − d)+: committed GPU-hours left idle.
    pub(super) fn idle_gpu_hours(&self, level: f64) -> f64 {
        let below = self.sorted.partition_point(|&d| d < level);
        ((level * below as f64 - self.prefix[below]) * self.hours_per_point).max(0.0)
    }

    /// (peak, hours) of each consecutive block of about `block_hours` (whole points); the last
    /// block may be short and is prorated.
    pub(super) fn block_peaks(&self, block_hours: usize) -> Vec<(f64, f64)> {
        let points = (block_hours as f64 / self.hours_per_point).round().max(1.0) as usize;
        self.hourly
            .chunks(points)
            .map(|block| {
                (
                    block.iter().copied().fold(0.0, f64::max),
                    block.len() as f64 * self.hours_per_point,
                )
            })
            .collect()
    }

    /// Distinct positive demand levels, thinned to evenly spaced quantiles (peak kept).
    pub(super) fn base_levels(&self) -> Vec<f64> {
        let mut levels: Vec<f64> = self.sorted.iter().copied().filter(|&d| d > 0.0).collect();
        levels.dedup();
        if levels.len() <= MAX_BASE_LEVEL_CANDIDATES {
            return levels;
        }
        let last = levels.len() - 1;
        (0..MAX_BASE_LEVEL_CANDIDATES)
            .map(|i| levels[i * last / (MAX_BASE_LEVEL_CANDIDATES - 1)])
            .collect()
    }
}
