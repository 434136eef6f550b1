//! Geometry shared by the text and SVG charts: axes with round ticks, and long hourly series
//! averaged into as many buckets as a chart has room for.

/// A linear axis from `min` to `max` with ticks every `step`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    pub min: f64,
    pub max: f64,
    pub step: f64,
}

impl Axis {
    /// The smallest axis on round steps (1, 2 or 5 × 10^k) that covers `low..=high` with
    /// about `ticks` intervals. Non-finite or empty ranges fall back to a unit range.
    pub fn covering(low: f64, high: f64, ticks: usize) -> Axis {
        let (low, high) = match (low.is_finite(), high.is_finite()) {
            (true, true) if high > low => (low, high),
            (true, true) => (low, low + 1.0),
            _ => (0.0, 1.0),
        };
        let raw_step = (high - low) / ticks.max(1) as f64;
        let magnitude = 10f64.powf(raw_step.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * magnitude)
            .find(|s| *s >= raw_step * (1.0 - 1e-9))
            .unwrap_or(10.0 * magnitude);
        let min = (low / step + 1e-9).floor() * step;
        let max = (high / step - 1e-9).ceil() * step;
        Axis { min, max, step }
    }

    /// An axis from exactly `low` to `high` (a time window), ticks on round steps inside it.
    pub fn spanning(low: f64, high: f64, ticks: usize) -> Axis {
        let round = Axis::covering(low, high, ticks);
        if low.is_finite() && high.is_finite() && high > low {
            Axis {
                min: low,
                max: high,
                step: round.step,
            }
        } else {
            round
        }
    }

    /// The multiples of `step` from `min` to `max`, both included.
    pub fn ticks(&self) -> Vec<f64> {
        let first = (self.min / self.step - 1e-9).ceil();
        let last = (self.max / self.step + 1e-9).floor();
        let count = (last - first).max(0.0).round() as usize;
        (0..=count).map(|i| (first + i as f64) * self.step).collect()
    }

    /// Where `value` sits on the axis, 0 at `min` and 1 at `max`.
    pub fn position(&self, value: f64) -> f64 {
        (value - self.min) / (self.max - self.min)
    }
}

/// Hourly values averaged into at most `buckets` points: (hour at the bucket's middle, mean).
/// Non-finite hours are left out of their bucket's mean.
pub fn bucket_means(hourly: &[f64], buckets: usize) -> Vec<(f64, f64)> {
    let size = hourly.len().div_ceil(buckets.max(1)).max(1);
    hourly
        .chunks(size)
        .enumerate()
        .filter_map(|(i, chunk)| {
            let finite: Vec<f64> = chunk.iter().copied().filter(|v| v.is_finite()).collect();
            if finite.is_empty() {
                return None;
            }
            let mean = finite.iter().sum::<f64>() / finite.len() as f64;
            Some(((i * size) as f64 + chunk.len() as f64 / 2.0, mean))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_land_on_round_steps_around_the_data() {
        let axis = Axis::covering(0.0, 9.7e6, 5);
        assert_eq!((axis.min, axis.max, axis.step), (0.0, 10e6, 2e6));
        let ticks = Axis::covering(0.1, 0.7, 6).ticks();
        assert_eq!(ticks.len(), 7);
        assert!(
            (ticks[0] - 0.1).abs() < 1e-12 && (ticks[6] - 0.7).abs() < 1e-12,
            "{ticks:?}"
        );
    }

    #[test]
    fn a_spanning_axis_keeps_its_ends_and_ticks_inside() {
        let days = Axis::spanning(0.0, 90.0, 6);
        assert_eq!((days.min, days.max), (0.0, 90.0));
        assert_eq!(days.ticks(), vec![0.0, 20.0, 40.0, 60.0, 80.0]);
    }

    #[test]
    fn degenerate_ranges_still_give_an_axis() {
        let flat = Axis::covering(5.0, 5.0, 4);
        assert!(flat.max > flat.min);
        let nan = Axis::covering(f64::NAN, 1.0, 4);
        assert_eq!((nan.min, nan.max), (0.0, 1.0));
    }

    #[test]
    fn buckets_average_and_centre_on_their_hours() {
        let hourly: Vec<f64> = (0..10).map(f64::from).collect();
        let means = bucket_means(&hourly, 5);
        assert_eq!(means, vec![(1.0, 0.5), (3.0, 2.5), (5.0, 4.5), (7.0, 6.5), (9.0, 8.5)]);
        assert_eq!(bucket_means(&[1.0, 2.0], 100), vec![(0.5, 1.0), (1.5, 2.0)]);
        assert!(bucket_means(&[], 10).is_empty());
    }
}
