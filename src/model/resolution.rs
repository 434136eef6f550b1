//! How finely an audit follows its window: the occupancy in steps of whole minutes, the series
//! in points of whole hours. Ordinary windows get one-minute steps and one-hour points; a
//! window too long for that gets coarser ones, so the audit's memory is bounded by the number
//! of steps, never by the span (docs/economics.md, "The audit": "Resolution").

use serde::Serialize;

/// The most occupancy steps per cluster: 2^18, 182 days of minutes (about 8 MB per cluster for
/// the difference array).
pub const MAX_OCCUPANCY_STEPS: u64 = 1 << 18;

/// The most series points per cluster: 2^15, 3.7 years of hours.
pub const MAX_SERIES_POINTS: u64 = 1 << 15;

const MS_PER_MINUTE: i64 = 60_000;
const MINUTES_PER_HOUR: u64 = 60;

/// Step lengths below an hour that divide it, so that whole steps make each hour.
const STEPS_WITHIN_AN_HOUR: [u64; 12] = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Resolution {
    /// Minutes in one occupancy step: peak and p95 concurrency are of steps' mean GPUs.
    pub step_minutes: u32,
    /// Hours in one point of the series; a whole number of steps.
    pub hours_per_point: u32,
}

impl Resolution {
    /// One-minute steps, one-hour points.
    pub const FINEST: Resolution = Resolution {
        step_minutes: 1,
        hours_per_point: 1,
    };

    /// The finest resolution within both limits for a window of `span_ms`.
    pub fn for_span_ms(span_ms: i64) -> Resolution {
        let minutes = (span_ms.max(1) as u64).div_ceil(MS_PER_MINUTE as u64);
        let least_step = minutes.div_ceil(MAX_OCCUPANCY_STEPS);
        let step_minutes = match STEPS_WITHIN_AN_HOUR.iter().find(|&&s| s >= least_step) {
            Some(&step) => step,
            None => least_step.div_ceil(MINUTES_PER_HOUR) * MINUTES_PER_HOUR,
        };
        let step_hours = step_minutes.div_ceil(MINUTES_PER_HOUR);
        let hours = minutes.div_ceil(MINUTES_PER_HOUR);
        let least_point_hours = hours.div_ceil(MAX_SERIES_POINTS).max(1);
        let hours_per_point = least_point_hours.div_ceil(step_hours) * step_hours;
        Resolution {
            step_minutes: u32::try_from(step_minutes).unwrap_or(u32::MAX),
            hours_per_point: u32::try_from(hours_per_point).unwrap_or(u32::MAX),
        }
    }

    /// Whether this is the finest resolution (what ordinary windows get).
    pub fn is_finest(&self) -> bool {
        *self == Resolution::FINEST
    }

    pub fn step_ms(&self) -> i64 {
        i64::from(self.step_minutes) * MS_PER_MINUTE
    }

    /// Steps covering `span_ms` (a partial last step counts), at least one.
    pub fn steps(&self, span_ms: i64) -> usize {
        (span_ms.max(1) as u64).div_ceil(self.step_ms() as u64).max(1) as usize
    }

    /// Occupancy steps in one series point.
    pub fn steps_per_point(&self) -> usize {
        (u64::from(self.hours_per_point) * MINUTES_PER_HOUR / u64::from(self.step_minutes)) as usize
    }

    /// Says what the audit followed, for a note: None at the finest resolution.
    pub fn note(&self, days: f64) -> Option<String> {
        if self.is_finest() {
            return None;
        }
        let step = if self.step_minutes < 60 {
            format!("{}-minute", self.step_minutes)
        } else {
            format!("{}-hour", self.step_minutes / 60)
        };
        Some(format!(
            "the window spans {} days, too long to follow minute by minute: concurrency is of {step} steps' \
             mean GPUs (peak and p95 are of those means) and each series point is {} hours",
            crate::shared::format::thousands(days.round()),
            self.hours_per_point
        ))
    }
}

impl Default for Resolution {
    fn default() -> Resolution {
        Resolution::FINEST
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY_MS: i64 = 86_400_000;
    const YEAR_MS: i64 = 365 * DAY_MS + DAY_MS / 4;

    #[test]
    fn ordinary_windows_are_followed_minute_by_minute() {
        for span in [1, 60_000, 90 * DAY_MS, 182 * DAY_MS] {
            assert!(Resolution::for_span_ms(span).is_finest(), "{span}");
        }
    }

    #[test]
    fn long_windows_take_whole_steps_of_an_hour_or_of_hours() {
        let year = Resolution::for_span_ms(YEAR_MS);
        assert_eq!((year.step_minutes, year.hours_per_point), (3, 1));
        let decade = Resolution::for_span_ms(10 * YEAR_MS);
        assert_eq!((decade.step_minutes, decade.hours_per_point), (30, 3));
        let ten_millennia = Resolution::for_span_ms(10_000 * YEAR_MS);
        assert_eq!(ten_millennia.step_minutes % 60, 0);
        assert_eq!(ten_millennia.hours_per_point % (ten_millennia.step_minutes / 60), 0);
    }

    #[test]
    fn steps_and_points_stay_within_their_limits_for_any_span() {
        for span in [
            183 * DAY_MS,
            2 * YEAR_MS,
            37 * YEAR_MS + 11,
            10_000 * YEAR_MS,
            i64::MAX / 2,
        ] {
            let r = Resolution::for_span_ms(span);
            assert!(r.steps(span) as u64 <= MAX_OCCUPANCY_STEPS, "{span}: {r:?}");
            let points = r.steps(span).div_ceil(r.steps_per_point()) as u64;
            assert!(points <= MAX_SERIES_POINTS, "{span}: {r:?}");
            assert_eq!(
                r.steps_per_point() as u64 * u64::from(r.step_minutes),
                u64::from(r.hours_per_point) * 60
            );
        }
    }
}
