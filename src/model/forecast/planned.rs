//! Known future demand from the plan: its `[training]` run (the report's run of the first
//! accelerator at its MFU slider, seed 002's C_run) and its `[[forecast.planned]]` runs.

use serde::Serialize;

use crate::model::catalog::Catalog;
use crate::model::evaluate::{MfuSource, training_run};
use crate::model::plan::{Plan, parse_day_ms};
use crate::model::workload::WorkloadClass;

const MS_PER_DAY: f64 = 86_400_000.0;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedRun {
    pub name: String,
    pub class: WorkloadClass,
    pub gpus: f64,
    pub start_ms: i64,
    pub end_ms: i64,
}

impl PlannedRun {
    pub fn overlap_ms(&self, from_ms: i64, to_ms: i64) -> i64 {
        (self.end_ms.min(to_ms) - self.start_ms.max(from_ms)).max(0)
    }
}

/// The plan's planned runs; the `[training]` run starts at `horizon_start_ms` unless the plan
/// says when. A run whose date does not parse is left out (validation reports it).
pub fn planned_runs(plan: &Plan, catalog: &Catalog, horizon_start_ms: i64) -> Vec<PlannedRun> {
    let Some(forecast) = &plan.forecast else {
        return Vec::new();
    };
    let mut runs = Vec::new();
    if forecast.training_run
        && let Some(hours) = training_run_hours(plan, catalog)
    {
        let start_ms = forecast
            .training_start
            .as_deref()
            .and_then(parse_day_ms)
            .unwrap_or(horizon_start_ms);
        runs.push(PlannedRun {
            name: "[training] run".to_string(),
            class: WorkloadClass::Training,
            gpus: f64::from(plan.training.chips),
            start_ms,
            end_ms: start_ms.saturating_add((hours * 3_600_000.0) as i64),
        });
    }
    for run in &forecast.planned {
        let Some(start_ms) = parse_day_ms(&run.start) else {
            continue;
        };
        if !(run.gpus.is_finite() && run.gpus > 0.0 && run.days.is_finite() && run.days > 0.0) {
            continue;
        }
        runs.push(PlannedRun {
            name: run.name.clone(),
            class: run.class,
            gpus: run.gpus,
            start_ms,
            end_ms: start_ms.saturating_add((run.days * MS_PER_DAY) as i64),
        });
    }
    runs
}

/// The `[training]` run's wall hours on the plan's first accelerator at its MFU slider: the
/// report's own run (`evaluate::training_run`), so both say the same hours.
fn training_run_hours(plan: &Plan, catalog: &Catalog) -> Option<f64> {
    let choice = plan.accelerators.first()?;
    let run = training_run(plan, catalog, choice, choice.mfu, MfuSource::Slider)?;
    // Capped at the longest horizon, three years: past it the run adds nothing a forecast shows.
    (run.hours.is_finite() && run.hours > 0.0 && plan.training.chips > 0).then_some(run.hours.min(3.0 * 8760.0))
}
