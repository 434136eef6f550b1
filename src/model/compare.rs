//! Plans side by side: which inputs differ, as key paths, and how every headline output moves
//! against the first plan. Plain data for `gpuplan diff` and the workbench's compare view.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::catalog::Catalog;
use super::checks::CheckStatus;
use super::evaluate::{Evaluation, MfuSource, evaluate};
use super::fleet::AuditReport;
use super::plan::Plan;
use super::saving_range::SavingRange;
use super::split::ReplayReport;
use super::waterfall::{StepKind, Waterfall};
use super::workload::WorkloadClass;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanComparison {
    /// The plans' labels in order; the first plan is the baseline of every delta.
    pub labels: Vec<String>,
    /// Each plan's `name`.
    pub names: Vec<String>,
    /// Inputs that are not the same in every plan, in key-path order.
    pub inputs: Vec<InputDifference>,
    /// Every headline output, moved or not.
    pub outputs: Vec<OutputComparison>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputDifference {
    /// Where the input sits in a plan file, e.g. `accelerators[0].mfu`.
    pub key_path: String,
    /// Each plan's value; null where the plan does not have the key.
    pub values: Vec<Option<Value>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputUnit {
    Usd,
    UsdPerYear,
    UsdPerMillionTokens,
    UsdPerBillionTokens,
    TokensPerMonth,
    Count,
    /// A share, 0–1.
    Fraction,
    GpuHours,
    /// A wait, in minutes.
    Minutes,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputComparison {
    /// Stable key, e.g. `training.slider_run_cost_usd.h100-sxm`.
    pub key: String,
    pub label: String,
    pub unit: OutputUnit,
    /// Each plan's value; null where the plan has none (no such accelerator, no break-even).
    pub values: Vec<Option<f64>>,
    /// Against the first plan's value, aligned with `values`: null for the first plan itself
    /// and wherever either value is missing.
    pub deltas: Vec<Option<Delta>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Delta {
    /// This plan's value minus the first plan's, in the output's unit.
    pub absolute: f64,
    /// The same relative to the first plan's value, in percent; null when that value is 0.
    pub relative_pct: Option<f64>,
}

/// Compares plans that have passed `Plan::problems`, each evaluated against `catalog`.
pub fn compare_plans(plans: &[(String, Plan)], catalog: &Catalog) -> PlanComparison {
    let evaluations: Vec<Evaluation> = plans.iter().map(|(_, plan)| evaluate(plan, catalog)).collect();
    PlanComparison {
        labels: plans.iter().map(|(label, _)| label.clone()).collect(),
        names: plans.iter().map(|(_, plan)| plan.name.clone()).collect(),
        inputs: input_differences(plans),
        outputs: headline_outputs(&evaluations),
    }
}

/// One step of a key path; indices order numerically, so `[2]` comes before `[10]`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Key(String),
    Index(usize),
}

fn key_path(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(key) if out.is_empty() => out.push_str(key),
            Step::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Every leaf of a plan as (path, value). Arrays of tables are indexed; arrays of numbers
/// (`mfu_points`, `mfu_range`) are one value.
fn leaves(value: &Value, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                path.push(Step::Key(key.clone()));
                leaves(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            for (i, child) in items.iter().enumerate() {
                path.push(Step::Index(i));
                leaves(child, path, out);
                path.pop();
            }
        }
        leaf => out.push((path.clone(), leaf.clone())),
    }
}

fn input_differences(plans: &[(String, Plan)]) -> Vec<InputDifference> {
    let mut table: BTreeMap<Vec<Step>, Vec<Option<Value>>> = BTreeMap::new();
    for (i, (_, plan)) in plans.iter().enumerate() {
        let mut found = Vec::new();
        // A plan always serializes; a failure would only hide its inputs from the comparison.
        if let Ok(value) = serde_json::to_value(plan) {
            leaves(&value, &mut Vec::new(), &mut found);
        }
        for (path, value) in found {
            table.entry(path).or_insert_with(|| vec![None; plans.len()])[i] = Some(value);
        }
    }
    table
        .into_iter()
        .filter(|(_, values)| values.iter().any(|v| v != &values[0]))
        .map(|(path, values)| InputDifference {
            key_path: key_path(&path),
            values,
        })
        .collect()
}

/// Each slider run's cost by accelerator; a second choice of the same accelerator is `id#2`.
fn slider_costs(e: &Evaluation) -> Vec<(String, f64)> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for run in e.training.runs.iter().filter(|r| r.mfu_source == MfuSource::Slider) {
        let earlier = seen.iter().filter(|&&a| a == run.accelerator).count();
        seen.push(&run.accelerator);
        let key = match earlier {
            0 => run.accelerator.clone(),
            n => format!("{}#{}", run.accelerator, n + 1),
        };
        out.push((key, run.cost_usd));
    }
    out
}

fn headline_outputs(evaluations: &[Evaluation]) -> Vec<OutputComparison> {
    let per_plan: Vec<Vec<(String, f64)>> = evaluations.iter().map(slider_costs).collect();
    let mut accelerators: Vec<&str> = Vec::new();
    for (key, _) in per_plan.iter().flatten() {
        if !accelerators.contains(&key.as_str()) {
            accelerators.push(key);
        }
    }
    let mut rows: Vec<OutputComparison> = accelerators
        .iter()
        .map(|&accelerator| {
            let values = per_plan
                .iter()
                .map(|costs| costs.iter().find(|(k, _)| k == accelerator).map(|(_, c)| *c))
                .collect();
            row(
                format!("training.slider_run_cost_usd.{accelerator}"),
                format!("training run on {accelerator} at its slider MFU"),
                OutputUnit::Usd,
                values,
            )
        })
        .collect();
    let each = |f: &dyn Fn(&Evaluation) -> Option<f64>| evaluations.iter().map(f).collect::<Vec<_>>();
    let count = |status: CheckStatus| each(&|e| Some(e.checks.iter().filter(|c| c.status == status).count() as f64));
    let monte_carlo =
        |pick: fn(&super::evaluate::MonteCarloReport) -> f64| each(&|e| e.risk.monte_carlo.as_ref().map(pick));
    let specs: Vec<(&str, &str, OutputUnit, Vec<Option<f64>>)> = vec![
        (
            "inference.etic_usd_per_million_tokens",
            "inference ETIC per million tokens",
            OutputUnit::UsdPerMillionTokens,
            each(&|e| Some(e.inference.etic_usd_per_million_tokens)),
        ),
        (
            "inference.cost_per_billion_tokens_usd",
            "inference cost per billion tokens",
            OutputUnit::UsdPerBillionTokens,
            each(&|e| e.inference.cost_per_billion_tokens_usd),
        ),
        (
            "inference.breakeven_tokens_per_month",
            "break-even volume against the API",
            OutputUnit::TokensPerMonth,
            each(&|e| e.inference.breakeven_tokens_per_month),
        ),
        (
            "risk.weighted_exposure_usd",
            "weighted risk exposure",
            OutputUnit::Usd,
            each(&|e| Some(e.risk.weighted_exposure_usd)),
        ),
        (
            "risk.monte_carlo.p50_usd",
            "total cost P50 (Monte Carlo)",
            OutputUnit::Usd,
            monte_carlo(|m| m.p50),
        ),
        (
            "risk.monte_carlo.p90_usd",
            "total cost P90 (Monte Carlo)",
            OutputUnit::Usd,
            monte_carlo(|m| m.p90),
        ),
        (
            "risk.monte_carlo.p99_usd",
            "total cost P99 (Monte Carlo)",
            OutputUnit::Usd,
            monte_carlo(|m| m.p99),
        ),
        (
            "board.mfu_gain_recovered_usd_per_year",
            "board MFU gain recovered",
            OutputUnit::UsdPerYear,
            each(&|e| Some(e.board.mfu_gain_recovered_usd_per_year)),
        ),
        (
            "checks.failing",
            "failing checks",
            OutputUnit::Count,
            count(CheckStatus::Fail),
        ),
        (
            "checks.warning",
            "warning checks",
            OutputUnit::Count,
            count(CheckStatus::Warn),
        ),
    ];
    rows.extend(
        specs
            .into_iter()
            .map(|(key, label, unit, values)| row(key.to_string(), label.to_string(), unit, values)),
    );
    rows
}

/// What each plan's split did to the same jobs (None where a plan could not be replayed): the
/// rows `gpuplan diff --logs` adds.
pub fn replay_outputs(reports: &[Option<&ReplayReport>]) -> Vec<OutputComparison> {
    let each = |f: &dyn Fn(&ReplayReport) -> Option<f64>| reports.iter().map(|r| r.and_then(f)).collect::<Vec<_>>();
    let class = |r: &ReplayReport, class: WorkloadClass| r.split.classes.iter().find(|c| c.class == class).cloned();
    let mut rows = vec![
        row(
            "replay.today.total_usd_per_month".into(),
            "replay: today's clusters per month".into(),
            OutputUnit::Usd,
            each(&|r| Some(r.today.totals.total_usd_per_month)),
        ),
        row(
            "replay.split.total_usd_per_month".into(),
            "replay: the split per month".into(),
            OutputUnit::Usd,
            each(&|r| Some(r.split.totals.total_usd_per_month)),
        ),
        row(
            "replay.split.allocated_frac".into(),
            "replay: the split's committed GPUs allocated".into(),
            OutputUnit::Fraction,
            each(&|r| r.split.totals.allocated_frac),
        ),
        row(
            "replay.split.never_allocated_gpu_hours".into(),
            "replay: the split's never-allocated GPU-hours".into(),
            OutputUnit::GpuHours,
            each(&|r| Some(r.split.totals.never_allocated_gpu_hours)),
        ),
        row(
            "replay.split.overflow_gpu_hours".into(),
            "replay: the split's overflow GPU-hours".into(),
            OutputUnit::GpuHours,
            each(&|r| Some(r.split.totals.overflow_gpu_hours)),
        ),
        row(
            "replay.split.inference_over_slo_frac".into(),
            "replay: inference starts over the SLO (split)".into(),
            OutputUnit::Fraction,
            each(&|r| class(r, WorkloadClass::Inference).and_then(|c| c.wait.over_slo_frac)),
        ),
    ];
    for c in WorkloadClass::ALL {
        rows.push(row(
            format!("replay.split.{}.p95_wait_minutes", c.label()),
            format!("replay: {} p95 wait (split)", c.label()),
            OutputUnit::Minutes,
            each(&|r| class(r, c).and_then(|o| o.wait.p95_ms).map(|ms| ms as f64 / 60_000.0)),
        ));
    }
    rows
}

/// What the audit of the logs says of the fleet under one plan (its clusters' capacities and
/// prices): the rows `fleet.*` of a comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FleetFigures {
    pub capacity_gpus: f64,
    pub paid_usd_per_month: f64,
    pub gpu_hours: f64,
}

impl FleetFigures {
    pub fn of(audit: &AuditReport) -> FleetFigures {
        FleetFigures {
            capacity_gpus: audit.clusters.iter().map(|c| c.capacity_gpus).sum(),
            paid_usd_per_month: audit.clusters.iter().map(|c| c.monthly_cost_usd).sum(),
            gpu_hours: audit.gpu_hours_total,
        }
    }
}

/// Each plan's audit of the same logs (None where a plan could not audit them): the fleet it
/// pays for, what that costs a month, and the GPU-hours run.
pub fn fleet_outputs(fleets: &[Option<FleetFigures>]) -> Vec<OutputComparison> {
    let each = |f: fn(&FleetFigures) -> f64| fleets.iter().map(|x| x.as_ref().map(f)).collect::<Vec<_>>();
    vec![
        row(
            "fleet.capacity_gpus".into(),
            "fleet: GPUs paid for (capacity)".into(),
            OutputUnit::Count,
            each(|f| f.capacity_gpus),
        ),
        row(
            "fleet.paid_usd_per_month".into(),
            "fleet: paid per month (capacity × price)".into(),
            OutputUnit::Usd,
            each(|f| f.paid_usd_per_month),
        ),
        row(
            "fleet.gpu_hours".into(),
            "fleet: GPU-hours run in the audit's window".into(),
            OutputUnit::GpuHours,
            each(|f| f.gpu_hours),
        ),
    ]
}

/// Each plan's board waterfall on the same logs (None where a plan could not be matched): one
/// row per step and the saving, for `gpuplan diff --logs`.
pub fn waterfall_outputs(waterfalls: &[Option<&Waterfall>]) -> Vec<OutputComparison> {
    let mut rows: Vec<OutputComparison> = StepKind::ALL
        .iter()
        .enumerate()
        .map(|(i, &step)| {
            row(
                format!("board.{}.usd_per_month", serde_step_key(step)),
                format!("board: {}. {} per month", i + 1, step.label()),
                OutputUnit::Usd,
                waterfalls
                    .iter()
                    .map(|w| w.and_then(|w| w.steps.iter().find(|s| s.step == step)?.usd_per_month))
                    .collect(),
            )
        })
        .collect();
    rows.push(row(
        "board.saving_usd_per_year".into(),
        "board: saving per year (step 1 − last step)".into(),
        OutputUnit::Usd,
        waterfalls.iter().map(|w| w.map(|w| w.saving_usd_per_year)).collect(),
    ));
    // The range shown beside the headline, drawn around it.
    let range = |pick: fn(&SavingRange) -> f64| -> Vec<Option<f64>> {
        waterfalls
            .iter()
            .map(|w| w.and_then(|w| w.range.as_ref()).map(pick))
            .collect()
    };
    rows.push(row(
        "board.range.p10_usd_per_year".into(),
        "board: saving P10 per year".into(),
        OutputUnit::Usd,
        range(|r| r.p10_usd_per_year),
    ));
    rows.push(row(
        "board.range.p90_usd_per_year".into(),
        "board: saving P90 per year".into(),
        OutputUnit::Usd,
        range(|r| r.p90_usd_per_year),
    ));
    rows
}

/// The step's key as JSON spells it.
fn serde_step_key(step: StepKind) -> String {
    serde_json::to_value(step)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn row(key: String, label: String, unit: OutputUnit, values: Vec<Option<f64>>) -> OutputComparison {
    let base = values.first().copied().flatten();
    let deltas = values
        .iter()
        .enumerate()
        .map(|(i, value)| match (i, base, *value) {
            (0, _, _) => None,
            (_, Some(base), Some(value)) => Some(Delta {
                absolute: value - base,
                relative_pct: (base != 0.0).then(|| (value - base) / base.abs() * 100.0),
            }),
            _ => None,
        })
        .collect();
    OutputComparison {
        key,
        label,
        unit,
        values,
        deltas,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::catalog::builtin;
    use crate::config::plan_file::default_plan;
    use crate::model::evaluate::training_run;

    fn output<'a>(c: &'a PlanComparison, key: &str) -> &'a OutputComparison {
        c.outputs.iter().find(|o| o.key == key).expect(key)
    }

    #[test]
    fn a_plan_against_itself_differs_in_nothing_and_moves_nothing() {
        let catalog = builtin().catalog;
        let plan = default_plan(&catalog).expect("default plan");
        let c = compare_plans(&[("a".into(), plan.clone()), ("b".into(), plan)], &catalog);
        assert!(c.inputs.is_empty(), "{:?}", c.inputs);
        for o in &c.outputs {
            assert_eq!(o.deltas[0], None);
            if let Some(delta) = o.deltas[1] {
                assert_eq!(delta.absolute, 0.0, "{}", o.key);
            }
        }
        assert_eq!(c.labels, vec!["a", "b"]);
    }

    #[test]
    fn a_slider_change_is_one_input_and_moves_that_accelerators_run_cost() {
        let catalog = builtin().catalog;
        let base = default_plan(&catalog).expect("default plan");
        let mut faster = base.clone();
        faster.accelerators[0].mfu = 0.5;
        let c = compare_plans(
            &[("base".into(), base.clone()), ("faster".into(), faster.clone())],
            &catalog,
        );
        assert_eq!(c.inputs.len(), 1, "{:?}", c.inputs);
        assert_eq!(c.inputs[0].key_path, "accelerators[0].mfu");
        assert_eq!(c.inputs[0].values, vec![Some(0.45.into()), Some(0.5.into())]);

        let cost = |plan: &Plan| {
            training_run(
                plan,
                &catalog,
                &plan.accelerators[0],
                plan.accelerators[0].mfu,
                MfuSource::Slider,
            )
            .expect("run")
            .cost_usd
        };
        let (before, after) = (cost(&base), cost(&faster));
        let h100 = output(&c, "training.slider_run_cost_usd.h100-sxm");
        let delta = h100.deltas[1].expect("delta");
        assert!((delta.absolute - (after - before)).abs() < 1e-6);
        // Cost is inverse in MFU: 0.45 / 0.5 - 1 = -10 %.
        assert!((delta.relative_pct.expect("pct") + 10.0).abs() < 1e-9);
        let tpu = output(&c, "training.slider_run_cost_usd.tpu-v5e");
        assert_eq!(tpu.deltas[1].map(|d| d.absolute), Some(0.0));
    }

    #[test]
    fn an_accelerator_only_one_plan_has_is_missing_in_the_other() {
        let catalog = builtin().catalog;
        let base = default_plan(&catalog).expect("default plan");
        let mut fewer = base.clone();
        fewer.accelerators.truncate(1);
        fewer.migration = None;
        let c = compare_plans(&[("fewer".into(), fewer), ("base".into(), base)], &catalog);
        let trn = output(&c, "training.slider_run_cost_usd.trainium2");
        assert_eq!(trn.values[0], None);
        assert!(trn.values[1].is_some());
        assert_eq!(trn.deltas[1], None);
        let paths: Vec<&str> = c.inputs.iter().map(|d| d.key_path.as_str()).collect();
        assert!(paths.contains(&"accelerators[2].id"), "{paths:?}");
        assert!(paths.contains(&"migration.to"), "{paths:?}");
        let id = c
            .inputs
            .iter()
            .find(|d| d.key_path == "accelerators[2].id")
            .expect("id");
        assert_eq!(id.values, vec![None, Some("trainium2".into())]);
    }

    #[test]
    fn key_paths_order_indices_as_numbers() {
        let mut paths = [
            vec![Step::Key("risks".into()), Step::Index(10)],
            vec![Step::Key("risks".into()), Step::Index(2)],
        ];
        paths.sort();
        assert_eq!(key_path(&paths[0]), "risks[2]");
        assert_eq!(key_path(&paths[1]), "risks[10]");
    }
}
