//! A plan's `[forecast]`: what the planner knows that the logs do not. The horizon, a yearly
//! growth factor per class (it replaces the fitted trend), and known future runs.
//!
//! ```toml
//! [forecast]
//! horizon_months = 12            # 1 to 36
//! training_start = "2027-03-01"  # when the plan's [training] run starts (default: the horizon's start)
//! keep_incomplete_tail = true     # the log's low last days are real demand, not an unfinished export
//! [forecast.growth]
//! inference = 3.0                # three times today's inference demand a year on
//! [[forecast.planned]]
//! name = "vision fine-tune"
//! class = "training"
//! gpus = 256
//! start = "2027-01-15"
//! days = 21
//! ```

use serde::{Deserialize, Serialize};

use crate::model::workload::WorkloadClass;

pub const DEFAULT_HORIZON_MONTHS: u32 = 12;
pub const MAX_HORIZON_MONTHS: u32 = 36;
/// The growth sliders' and the file's bounds: a tenth to ten times a year.
pub const GROWTH_RANGE: (f64, f64) = (0.1, 10.0);
/// A planned run's largest size and longest length, in the file and in the workbench.
pub const MAX_PLANNED_GPUS: f64 = 10_000_000.0;
pub const MAX_PLANNED_DAYS: f64 = 3650.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForecastPlan {
    #[serde(default = "default_horizon_months")]
    pub horizon_months: u32,
    #[serde(default, skip_serializing_if = "GrowthPlan::is_empty")]
    pub growth: GrowthPlan,
    /// Whether the plan's `[training]` run counts as planned demand.
    #[serde(default = "yes")]
    pub training_run: bool,
    /// `YYYY-MM-DD`: when the `[training]` run starts; the horizon's first day when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_start: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub planned: Vec<PlannedDemand>,
    /// Fit the log's incomplete tail too (model::forecast::tail): its low last days are demand
    /// that really fell, not jobs still running when it was written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_incomplete_tail: bool,
}

impl Default for ForecastPlan {
    fn default() -> Self {
        ForecastPlan {
            horizon_months: DEFAULT_HORIZON_MONTHS,
            growth: GrowthPlan::default(),
            training_run: true,
            training_start: None,
            planned: Vec::new(),
            keep_incomplete_tail: false,
        }
    }
}

fn default_horizon_months() -> u32 {
    DEFAULT_HORIZON_MONTHS
}

fn yes() -> bool {
    true
}

/// Yearly growth factors per class; absent, the fitted trend stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrowthPlan {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<f64>,
}

impl GrowthPlan {
    pub fn is_empty(&self) -> bool {
        self.training.is_none() && self.inference.is_none() && self.burst.is_none()
    }

    pub fn get(&self, class: WorkloadClass) -> Option<f64> {
        match class {
            WorkloadClass::Training => self.training,
            WorkloadClass::Inference => self.inference,
            WorkloadClass::Burst => self.burst,
        }
    }

    pub fn set(&mut self, class: WorkloadClass, factor: Option<f64>) {
        let slot = match class {
            WorkloadClass::Training => &mut self.training,
            WorkloadClass::Inference => &mut self.inference,
            WorkloadClass::Burst => &mut self.burst,
        };
        *slot = factor;
    }
}

/// Known future demand: a run the logs cannot show yet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedDemand {
    pub name: String,
    pub class: WorkloadClass,
    pub gpus: f64,
    /// `YYYY-MM-DD`, UTC.
    pub start: String,
    pub days: f64,
}

impl ForecastPlan {
    /// The horizon in days (a month is a twelfth of 365 days), before any command-line override.
    pub fn horizon_days(&self) -> u32 {
        (f64::from(self.horizon_months) * 365.0 / 12.0).round() as u32
    }

    /// What is wrong with these settings, as (key under `forecast.`, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut problems = Vec::new();
        if !(1..=MAX_HORIZON_MONTHS).contains(&self.horizon_months) {
            problems.push((
                "horizon_months".to_string(),
                format!("expected 1 to {MAX_HORIZON_MONTHS} months"),
            ));
        }
        for class in WorkloadClass::ALL {
            if let Some(g) = self.growth.get(class)
                && !(g.is_finite() && (GROWTH_RANGE.0..=GROWTH_RANGE.1).contains(&g))
            {
                problems.push((
                    format!("growth.{}", class.label()),
                    format!(
                        "expected a yearly factor from {} to {} (1.0 = flat, 3.0 = three times a year on)",
                        GROWTH_RANGE.0, GROWTH_RANGE.1
                    ),
                ));
            }
        }
        if let Some(start) = &self.training_start
            && parse_day_ms(start).is_none()
        {
            problems.push((
                "training_start".to_string(),
                format!("'{start}' is not a date: expected YYYY-MM-DD"),
            ));
        }
        for (i, run) in self.planned.iter().enumerate() {
            let key = |field: &str| format!("planned[{i}].{field}");
            if run.name.trim().is_empty() {
                problems.push((key("name"), "a planned run needs a name".to_string()));
            }
            if !(run.gpus.is_finite() && run.gpus > 0.0 && run.gpus <= MAX_PLANNED_GPUS) {
                problems.push((key("gpus"), "expected GPUs above 0 (at most 10,000,000)".to_string()));
            }
            if !(run.days.is_finite() && run.days > 0.0 && run.days <= MAX_PLANNED_DAYS) {
                problems.push((key("days"), "expected days above 0 (at most 3,650)".to_string()));
            }
            if parse_day_ms(&run.start).is_none() {
                problems.push((
                    key("start"),
                    format!("'{}' is not a date: expected YYYY-MM-DD", run.start),
                ));
            }
        }
        problems
    }
}

/// Midnight UTC of a `YYYY-MM-DD` day, in milliseconds.
pub fn parse_day_ms(text: &str) -> Option<i64> {
    let day = chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()?;
    Some(day.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis())
}

/// The `YYYY-MM-DD` of an instant, UTC: `parse_day_ms`'s inverse for midnights.
pub fn day_text(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).map_or_else(|| ms.to_string(), |t| t.format("%Y-%m-%d").to_string())
}

impl super::Plan {
    /// The forecast horizon the plan asks for, in days (the default without a `[forecast]`).
    pub fn forecast_horizon_days(&self) -> u32 {
        self.forecast
            .as_ref()
            .map_or_else(|| ForecastPlan::default().horizon_days(), ForecastPlan::horizon_days)
    }

    /// Whether the forecast keeps the log's incomplete tail (`keep_incomplete_tail`).
    pub fn keeps_incomplete_tail(&self) -> bool {
        self.forecast.as_ref().is_some_and(|f| f.keep_incomplete_tail)
    }
}
