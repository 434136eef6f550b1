//! What moving the fleet costs once (`[moving]`): the engineering, the egress of the data that
//! moves, the months both fleets run. Each key may be left out: its default is then an
//! assumption, and the output says so.

use serde::{Deserialize, Serialize};

/// Engineering hours to move the fleet's work: two engineers for three months.
pub const DEFAULT_ENGINEERING_HOURS: f64 = 1_000.0;
/// A loaded engineering hour.
pub const DEFAULT_ENGINEERING_USD_PER_HOUR: f64 = 150.0;
/// Checkpoints, datasets and images that move with the work.
pub const DEFAULT_DATA_MOVED_TB: f64 = 200.0;
/// Egress to the internet at the large clouds' first tiers ($0.09 per GB).
pub const DEFAULT_EGRESS_USD_PER_TB: f64 = 90.0;
/// Months each cluster runs beside its replacement.
pub const DEFAULT_DUAL_RUNNING_MONTHS: u32 = 1;

/// Weeks from adopting the plan to needing the new capacity: offers whose seller states a
/// longer lead time are left out.
pub const DEFAULT_NEEDED_WITHIN_WEEKS: f64 = 26.0;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovingPlan {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engineering_hours: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engineering_usd_per_hour: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_moved_tb: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress_usd_per_tb: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dual_running_months: Option<u32>,
    /// Weeks until the new capacity is needed; offers with a longer stated lead time are left
    /// out of the match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needed_within_weeks: Option<f64>,
}

impl MovingPlan {
    /// What is wrong with these settings, as (key, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut problems = Vec::new();
        let amounts = [
            ("engineering_hours", self.engineering_hours, 1e6),
            ("engineering_usd_per_hour", self.engineering_usd_per_hour, 10_000.0),
            ("data_moved_tb", self.data_moved_tb, 1e6),
            ("egress_usd_per_tb", self.egress_usd_per_tb, 10_000.0),
            ("needed_within_weeks", self.needed_within_weeks, 520.0),
        ];
        for (key, value, most) in amounts {
            if let Some(v) = value
                && !(v.is_finite() && (0.0..=most).contains(&v))
            {
                problems.push((key.to_string(), format!("{v} is not from 0 to {most}")));
            }
        }
        if let Some(months) = self.dual_running_months
            && months > 36
        {
            problems.push((
                "dual_running_months".to_string(),
                format!("{months} is more than 36 months"),
            ));
        }
        problems
    }
}
