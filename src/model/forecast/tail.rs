//! An export's incomplete tail (docs/forecast.md, "Incomplete tails"): a log written while jobs
//! still ran holds only the jobs that had ended, so its last days fall far below the fleet's
//! own level where the file ends (Philly's last twelve days: 0 to 100 GPUs against a level of
//! about 300). Read as demand, that tail is demand vanishing; the forecast is fitted on the
//! complete part instead, and every output says which days were left out. A plan whose demand
//! really fell keeps them (`[forecast] keep_incomplete_tail = true`).

use serde::Serialize;

use super::DemandSeries;
use super::fit::quantile;
use crate::model::fleet::iso_utc;

/// Days before the last week whose median is the fleet's level.
const LEVEL_DAYS: usize = 28;
/// The last week, left out of the level (it may be the tail itself).
const RECENT_DAYS: usize = 7;
/// A history shorter than this has no level to fall from.
const MIN_HISTORY_DAYS: usize = 14;
/// A day in the tail runs below this share of the level.
const TAIL_DAY_BELOW_FRAC: f64 = 0.5;
/// The file's last day runs below this share, and the tail's mean below the next.
const LAST_DAY_BELOW_FRAC: f64 = 0.2;
const TAIL_MEAN_BELOW_FRAC: f64 = 0.3;
/// The tail is at most a month, and at most a quarter of the history.
const MAX_TAIL_DAYS: usize = 30;
const MAX_TAIL_SHARE: f64 = 0.25;

/// The last days of a log that fall far below its own level where the file ends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncompleteTail {
    /// The tail's first instant (UTC).
    pub from: String,
    pub days: f64,
    /// The tail's mean GPUs over the level before it.
    pub level_frac: f64,
    pub reason: String,
    /// Whether the forecast kept the tail (the plan says demand really fell).
    pub kept: bool,
    /// Points of the series in the tail.
    #[serde(skip)]
    pub points: usize,
}

impl IncompleteTail {
    /// One line for the board, the audit and the forecast.
    pub fn said(&self) -> String {
        format!(
            "the log's last {:.0} days from {} run at {:.0} % of its level: {}; {}",
            self.days,
            &self.from[..self.from.len().min(10)],
            self.level_frac * 100.0,
            self.reason,
            if self.kept {
                "kept in the forecast, as the plan says (keep_incomplete_tail)"
            } else {
                "the forecast is fitted without them (keep_incomplete_tail = true in [forecast] keeps them)"
            }
        )
    }
}

/// The incomplete tail of `total` (the fleet's demand, every class summed), if it has one:
/// a run of days below half the level reaching the file's end, whose last day is below a
/// fifth of it and whose mean is below three tenths. The level is the median day of the four
/// weeks before the last one, so a single busy or idle day moves it little.
pub fn incomplete_tail(total: &DemandSeries, keep: bool) -> Option<IncompleteTail> {
    let per_day = total.points_per_day();
    let days: Vec<f64> = total
        .gpus
        .chunks(per_day)
        .map(|day| day.iter().filter(|g| g.is_finite()).sum::<f64>() / day.len() as f64)
        .collect();
    let n = days.len();
    if n < MIN_HISTORY_DAYS {
        return None;
    }
    let before = n - RECENT_DAYS;
    let mut level_days = days[before.saturating_sub(LEVEL_DAYS)..before].to_vec();
    level_days.sort_by(f64::total_cmp);
    let level = quantile(&level_days, 0.5);
    if !(level > 0.0 && level.is_finite()) {
        return None;
    }
    let longest = MAX_TAIL_DAYS.min((n as f64 * MAX_TAIL_SHARE) as usize);
    let tail_days = days
        .iter()
        .rev()
        .take_while(|d| **d < TAIL_DAY_BELOW_FRAC * level)
        .count()
        .min(longest);
    if tail_days == 0 || days[n - 1] >= LAST_DAY_BELOW_FRAC * level {
        return None;
    }
    let tail_mean = days[n - tail_days..].iter().sum::<f64>() / tail_days as f64;
    if tail_mean >= TAIL_MEAN_BELOW_FRAC * level {
        return None;
    }
    let first_point = (n - tail_days) * per_day;
    let points = total.gpus.len() - first_point;
    let hours = i64::from(total.hours_per_point.max(1));
    Some(IncompleteTail {
        from: iso_utc(total.start_ms + first_point as i64 * hours * 3_600_000),
        days: points as f64 * hours as f64 / 24.0,
        level_frac: tail_mean / level,
        reason: format!(
            "{:.0} GPUs a day on average against {:.0} in the four weeks before, ending in a day of {:.0}: \
             most often jobs still running when the log was written, not yet in it",
            tail_mean,
            level,
            days[n - 1]
        ),
        kept: keep,
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn daily(days: &[f64]) -> DemandSeries {
        DemandSeries {
            start_ms: 1_700_000_000_000 / 86_400_000 * 86_400_000,
            hours_per_point: 24,
            gpus: days.to_vec(),
        }
    }

    #[test]
    fn an_export_s_empty_tail_is_found_and_dated() {
        // Philly's shape: a level near 300, then twelve days at 0-100 GPUs.
        let mut days = vec![300.0; 78];
        days.extend([99.9, 96.6, 91.4, 0.1, 0.0, 0.0, 0.0, 0.0, 37.2, 89.7, 78.7, 40.5]);
        let tail = incomplete_tail(&daily(&days), false).expect("a tail");
        assert_eq!(tail.points, 12);
        assert!((tail.days - 12.0).abs() < 1e-9);
        assert!(tail.level_frac < 0.2, "{tail:?}");
        assert!(tail.said().contains("fitted without them"), "{}", tail.said());
    }

    #[test]
    fn a_steady_log_a_mid_history_dip_and_a_mild_fall_have_no_tail() {
        assert_eq!(incomplete_tail(&daily(&[300.0; 90]), false), None);
        let mut dip = vec![300.0; 90];
        dip[60..70].fill(0.0);
        assert_eq!(incomplete_tail(&daily(&dip), false), None);
        // The sample's last day at 246 of a level near 400: a quiet day, not a tail.
        let mut quiet = vec![400.0; 90];
        quiet[89] = 246.0;
        assert_eq!(incomplete_tail(&daily(&quiet), false), None);
        assert_eq!(incomplete_tail(&daily(&[300.0, 0.0, 0.0]), false), None, "too short");
    }

    #[test]
    fn the_tail_is_at_most_a_quarter_of_the_history() {
        let mut days = vec![300.0; 40];
        days.extend([0.0; 20]);
        let tail = incomplete_tail(&daily(&days), true).expect("a tail");
        assert_eq!(tail.points, 15);
        assert!(tail.kept && tail.said().contains("kept in the forecast"));
    }
}
