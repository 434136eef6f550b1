//! The plan's `[forecast]` values the Forecast pane edits: the horizon, each class's yearly
//! growth, whether the `[training]` run counts and when it starts, and each planned run's
//! GPUs, start and length. Dates are edited as days since 1970-01-01, so a step is a day.

use super::error::InputError;
use crate::model::plan::{
    DEFAULT_HORIZON_MONTHS, ForecastPlan, GROWTH_RANGE, MAX_HORIZON_MONTHS, MAX_PLANNED_DAYS, MAX_PLANNED_GPUS, Plan,
    PlannedDemand, day_text, parse_day_ms,
};
use crate::model::workload::WorkloadClass;
use crate::shared::format::thousands;

const MS_PER_DAY: f64 = 86_400_000.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForecastField {
    /// `horizon_months`.
    HorizonMonths,
    /// A class's yearly growth factor (`[forecast.growth]`); absent, the fitted trend stands.
    Growth(WorkloadClass),
    /// Whether the `[training]` run counts as planned demand: 1 or 0.
    TrainingRun,
    /// `training_start`, in days since 1970-01-01; absent, the horizon's first day.
    TrainingStart,
    PlannedGpus(usize),
    PlannedStart(usize),
    PlannedDays(usize),
}

/// The day number of a `YYYY-MM-DD` date.
fn day_of(text: &str) -> Option<f64> {
    parse_day_ms(text).map(|ms| (ms as f64 / MS_PER_DAY).round())
}

/// The first whole day at or after an instant, as a day number.
pub fn day_after(ms: i64) -> f64 {
    (ms as f64 / MS_PER_DAY).ceil()
}

/// The `YYYY-MM-DD` of a day number.
pub fn date_of_day(day: f64) -> String {
    day_text((day.round() * MS_PER_DAY) as i64)
}

fn planned(plan: &Plan, i: usize) -> Option<&PlannedDemand> {
    plan.forecast.as_ref()?.planned.get(i)
}

/// The plan's `[forecast]`, added when an edit needs it. An added table leaves the `[training]`
/// run out, as a plan without the table does, so one slider step changes one thing.
fn forecast_of(plan: &mut Plan) -> &mut ForecastPlan {
    plan.forecast.get_or_insert_with(|| ForecastPlan {
        training_run: false,
        ..ForecastPlan::default()
    })
}

impl ForecastField {
    pub fn key_path(self) -> String {
        match self {
            ForecastField::HorizonMonths => "forecast.horizon_months".to_string(),
            ForecastField::Growth(class) => format!("forecast.growth.{}", class.label()),
            ForecastField::TrainingRun => "forecast.training_run".to_string(),
            ForecastField::TrainingStart => "forecast.training_start".to_string(),
            ForecastField::PlannedGpus(i) => format!("forecast.planned[{i}].gpus"),
            ForecastField::PlannedStart(i) => format!("forecast.planned[{i}].start"),
            ForecastField::PlannedDays(i) => format!("forecast.planned[{i}].days"),
        }
    }

    pub fn label(self, plan: &Plan) -> String {
        let run = |i: usize| planned(plan, i).map_or("?", |r| r.name.as_str()).to_string();
        match self {
            ForecastField::HorizonMonths => "forecast horizon, months".to_string(),
            ForecastField::Growth(class) => format!(
                "yearly growth of {} demand (3 = three times a year on; empty: the fitted trend)",
                class.label()
            ),
            ForecastField::TrainingRun => "count the [training] run as planned demand (yes or no)".to_string(),
            ForecastField::TrainingStart => "start of the [training] run (YYYY-MM-DD; empty: today)".to_string(),
            ForecastField::PlannedGpus(i) => format!("GPUs of '{}'", run(i)),
            ForecastField::PlannedStart(i) => format!("start of '{}' (YYYY-MM-DD)", run(i)),
            ForecastField::PlannedDays(i) => format!("days of '{}'", run(i)),
        }
    }

    pub fn get(self, plan: &Plan) -> Option<f64> {
        let forecast = plan.forecast.as_ref();
        match self {
            ForecastField::HorizonMonths => {
                Some(f64::from(forecast.map_or(DEFAULT_HORIZON_MONTHS, |f| f.horizon_months)))
            }
            ForecastField::Growth(class) => forecast?.growth.get(class),
            // Without a [forecast] table no run is planned.
            ForecastField::TrainingRun => Some(if forecast.is_some_and(|f| f.training_run) {
                1.0
            } else {
                0.0
            }),
            ForecastField::TrainingStart => forecast?.training_start.as_deref().and_then(day_of),
            ForecastField::PlannedGpus(i) => planned(plan, i).map(|r| r.gpus),
            ForecastField::PlannedStart(i) => planned(plan, i).and_then(|r| day_of(&r.start)),
            ForecastField::PlannedDays(i) => planned(plan, i).map(|r| r.days),
        }
    }

    /// Sets a value already within bounds; false when the field no longer exists.
    pub fn set(self, plan: &mut Plan, value: f64) -> bool {
        if let ForecastField::PlannedGpus(i) | ForecastField::PlannedStart(i) | ForecastField::PlannedDays(i) = self {
            let Some(run) = plan.forecast.as_mut().and_then(|f| f.planned.get_mut(i)) else {
                return false;
            };
            match self {
                ForecastField::PlannedGpus(_) => run.gpus = value.round(),
                ForecastField::PlannedStart(_) => run.start = date_of_day(value),
                _ => run.days = (value * 1e6).round() / 1e6,
            }
            return true;
        }
        let forecast = forecast_of(plan);
        match self {
            ForecastField::HorizonMonths => forecast.horizon_months = value.round() as u32,
            ForecastField::Growth(class) => forecast.growth.set(class, Some((value * 1e6).round() / 1e6)),
            ForecastField::TrainingRun => forecast.training_run = value >= 0.5,
            ForecastField::TrainingStart => forecast.training_start = Some(date_of_day(value)),
            _ => return false,
        }
        true
    }

    /// Whether typing `text` asks for the value to go (the fitted trend, the horizon's start).
    pub fn clears(self, text: &str) -> bool {
        let text = text.trim().to_ascii_lowercase();
        match self {
            ForecastField::Growth(_) => text.is_empty() || text == "fitted",
            ForecastField::TrainingStart => text.is_empty() || text == "today",
            _ => false,
        }
    }

    /// Removes an optional value; false when there was none.
    pub fn clear(self, plan: &mut Plan) -> bool {
        let Some(forecast) = plan.forecast.as_mut() else {
            return false;
        };
        match self {
            ForecastField::Growth(class) if forecast.growth.get(class).is_some() => {
                forecast.growth.set(class, None);
                true
            }
            ForecastField::TrainingStart if forecast.training_start.is_some() => {
                forecast.training_start = None;
                true
            }
            _ => false,
        }
    }

    pub fn bounds(self) -> (f64, f64) {
        match self {
            ForecastField::HorizonMonths => (1.0, f64::from(MAX_HORIZON_MONTHS)),
            ForecastField::Growth(_) => GROWTH_RANGE,
            ForecastField::TrainingRun => (0.0, 1.0),
            // 1970 to 2999.
            ForecastField::TrainingStart | ForecastField::PlannedStart(_) => (0.0, 376_199.0),
            ForecastField::PlannedGpus(_) => (1.0, MAX_PLANNED_GPUS),
            ForecastField::PlannedDays(_) => (1.0 / 24.0, MAX_PLANNED_DAYS),
        }
    }

    /// (fine, coarse) steps, added.
    pub fn steps(self) -> (f64, f64) {
        match self {
            ForecastField::HorizonMonths => (1.0, 12.0),
            ForecastField::Growth(_) => (0.1, 1.0),
            ForecastField::TrainingRun => (1.0, 1.0),
            ForecastField::TrainingStart | ForecastField::PlannedStart(_) => (1.0, 7.0),
            // A node of eight, or eight nodes.
            ForecastField::PlannedGpus(_) => (8.0, 64.0),
            ForecastField::PlannedDays(_) => (1.0, 7.0),
        }
    }

    /// The value as the entry dialog offers it: it reads back as the same value.
    pub fn editable_text(self, value: f64) -> String {
        match self {
            ForecastField::TrainingStart | ForecastField::PlannedStart(_) => date_of_day(value),
            ForecastField::TrainingRun => if value >= 0.5 { "yes" } else { "no" }.to_string(),
            _ => format!("{value}"),
        }
    }

    pub fn show(self, value: f64) -> String {
        match self {
            ForecastField::HorizonMonths => format!("{value:.0} months"),
            ForecastField::Growth(_) => format!("×{value:.2}/yr"),
            ForecastField::TrainingRun => if value >= 0.5 { "counted" } else { "not counted" }.to_string(),
            ForecastField::TrainingStart | ForecastField::PlannedStart(_) => date_of_day(value),
            ForecastField::PlannedGpus(_) => format!("{} GPUs", thousands(value)),
            ForecastField::PlannedDays(_) => format!("{} days", (value * 10.0).round() / 10.0),
        }
    }

    /// Reads dates and yes/no; None for the fields typed as plain numbers.
    pub fn parse_special(self, text: &str) -> Option<Result<f64, InputError>> {
        let trimmed = text.trim();
        match self {
            ForecastField::TrainingStart | ForecastField::PlannedStart(_) => {
                Some(day_of(trimmed).ok_or_else(|| InputError::NotADate {
                    text: trimmed.to_string(),
                }))
            }
            ForecastField::TrainingRun => Some(match trimmed.to_ascii_lowercase().as_str() {
                "yes" | "y" | "on" | "true" | "1" => Ok(1.0),
                "no" | "n" | "off" | "false" | "0" => Ok(0.0),
                _ => Err(InputError::NotYesOrNo {
                    text: trimmed.to_string(),
                }),
            }),
            // `×3`, `3x`: the way people write a factor.
            ForecastField::Growth(_) => {
                let number = trimmed
                    .trim_start_matches(['×', 'x', 'X'])
                    .trim_end_matches(['×', 'x', 'X']);
                Some(number.trim().parse::<f64>().map_err(|_| InputError::NotANumber {
                    text: trimmed.to_string(),
                }))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::catalog::builtin;
    use crate::config::plan_file::default_plan;

    fn plan() -> Plan {
        default_plan(&builtin().catalog).expect("the built-in plan")
    }

    #[test]
    fn a_growth_edit_adds_the_table_without_counting_the_training_run() {
        let mut plan = plan();
        assert!(plan.forecast.is_none());
        let field = ForecastField::Growth(WorkloadClass::Inference);
        assert_eq!(field.get(&plan), None);
        assert!(field.set(&mut plan, 3.0));
        assert_eq!(field.get(&plan), Some(3.0));
        assert_eq!(ForecastField::TrainingRun.get(&plan), Some(0.0));
        assert!(field.clear(&mut plan));
        assert_eq!(field.get(&plan), None);
        assert!(!field.clear(&mut plan), "nothing left to clear");
    }

    #[test]
    fn dates_step_by_the_day_and_read_back() {
        let mut plan = plan();
        let start = ForecastField::TrainingStart;
        let day = start.parse_special("2027-03-01").expect("a date").expect("reads");
        assert!(start.set(&mut plan, day + 1.0));
        assert_eq!(
            plan.forecast.as_ref().and_then(|f| f.training_start.clone()).as_deref(),
            Some("2027-03-02")
        );
        assert_eq!(start.editable_text(day), "2027-03-01");
        assert!(start.parse_special("March").expect("a date field").is_err());
        assert!(start.clears(" ") && start.clears("today") && !start.clears("2027-01-01"));
    }

    #[test]
    fn planned_runs_are_edited_in_place_and_missing_ones_refuse() {
        let mut plan = plan();
        assert!(!ForecastField::PlannedGpus(0).set(&mut plan, 64.0));
        plan.forecast = Some(ForecastPlan {
            planned: vec![PlannedDemand {
                name: "vision".into(),
                class: WorkloadClass::Training,
                gpus: 256.0,
                start: "2027-01-15".into(),
                days: 21.0,
            }],
            ..ForecastPlan::default()
        });
        assert!(ForecastField::PlannedGpus(0).set(&mut plan, 263.6));
        assert!(ForecastField::PlannedDays(0).set(&mut plan, 28.0));
        let run = &plan.forecast.as_ref().expect("table").planned[0];
        assert_eq!((run.gpus, run.days), (264.0, 28.0));
        assert_eq!(ForecastField::TrainingRun.parse_special("no"), Some(Ok(0.0)));
        assert_eq!(
            ForecastField::Growth(WorkloadClass::Burst).parse_special("×1.5"),
            Some(Ok(1.5))
        );
    }
}
