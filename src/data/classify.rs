//! Classifying jobs: runs grouped into jobs, name stems for sweeps and services, then the
//! ordered rules of `catalogs/classification.toml` as one Polars expression. An explicit
//! label wins; every job carries the name of the rule that decided it.

use polars::prelude::*;

use super::canonical as c;
use crate::model::workload::{ClassRule, ClassificationRules, LABEL_RULE, WorkloadClass};

pub const CLASS: &str = "class";
pub const RULE: &str = "rule";
/// The class the rules alone give (ignoring labels), to measure agreement with labels.
pub const RULE_CLASS: &str = "rule_class";
pub const LABEL_CLASS: &str = "label_class";
pub const RUN_HOURS: &str = "run_hours";
pub const GPU_HOURS: &str = "gpu_hours";
pub const FIRST_START: &str = "first_start";
pub const LAST_END: &str = "last_end";
pub const STEM: &str = "stem";
pub const RUNS_OF_JOB: &str = "runs_of_job";
const STEM_JOBS: &str = "stem_jobs";
const STEM_OVERLAP: &str = "stem_overlap";
const MS_PER_HOUR: f64 = 3_600_000.0;

fn regex_escape(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    for ch in pattern.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(ch) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// Case-insensitive "contains any of" as a regex over a text column.
fn contains_any(column: &str, patterns: &[String]) -> Expr {
    let alternatives: Vec<String> = patterns.iter().map(|p| regex_escape(&p.to_lowercase())).collect();
    col(column)
        .str()
        .contains(lit(format!("(?i)({})", alternatives.join("|"))), false)
        .fill_null(lit(false))
}

fn rule_condition(rule: &ClassRule) -> Expr {
    let mut condition = lit(true);
    let mut and = |e: Expr| condition = condition.clone().and(e);
    if !rule.name_patterns.is_empty() {
        and(contains_any("__job_name", &rule.name_patterns));
    }
    if !rule.queue_patterns.is_empty() {
        and(contains_any("__job_queue", &rule.queue_patterns));
    }
    let bound = |column: &str, min: Option<f64>, max: Option<f64>| {
        let mut e = lit(true);
        if let Some(min) = min {
            e = e.and(col(column).gt_eq(lit(min)).fill_null(lit(false)));
        }
        if let Some(max) = max {
            e = e.and(col(column).lt_eq(lit(max)).fill_null(lit(false)));
        }
        e
    };
    and(bound(RUN_HOURS, rule.min_hours, rule.max_hours));
    and(bound("__job_gpus", rule.min_gpus, rule.max_gpus));
    and(bound("__job_util", rule.min_util, rule.max_util));
    if let Some(min) = rule.min_repeats {
        and(col(STEM_JOBS).gt_eq(lit(min)).fill_null(lit(false)));
    }
    if let Some(min) = rule.min_overlap {
        and(col(STEM_OVERLAP).gt_eq(lit(min)).fill_null(lit(false)));
    }
    condition
}

/// `first matching rule → its value`, else null.
fn first_match(rules: &[ClassRule], value: impl Fn(&ClassRule) -> String) -> Expr {
    let mut chain: Option<Then> = None;
    let mut otherwise: Option<ChainedThen> = None;
    for rule in rules {
        let condition = rule_condition(rule);
        let v = lit(value(rule));
        otherwise = Some(match (otherwise.take(), chain.take()) {
            (None, None) => {
                chain = Some(when(condition).then(v));
                continue;
            }
            (None, Some(first)) => first.when(condition).then(v),
            (Some(more), _) => more.when(condition).then(v),
        });
    }
    match (otherwise, chain) {
        (Some(more), _) => more.otherwise(lit(NULL).cast(DataType::String)),
        (None, Some(first)) => first.otherwise(lit(NULL).cast(DataType::String)),
        (None, None) => lit(NULL).cast(DataType::String),
    }
}

/// The class a label stands for, or null.
fn label_class_of(rules: &ClassificationRules, label: Expr) -> Expr {
    let label = label.str().to_lowercase().str().strip_chars(lit(NULL));
    let mut expr = lit(NULL).cast(DataType::String);
    for class in WorkloadClass::ALL.into_iter().rev() {
        let values: Vec<String> = rules.labels.of(class).iter().map(|s| s.to_lowercase()).collect();
        let series = Series::new("labels".into(), values);
        expr = when(
            label
                .clone()
                .is_in(lit(series).implode(false), false)
                .fill_null(lit(false)),
        )
        .then(lit(class.label()))
        .otherwise(expr);
    }
    expr
}

/// The runs with their job's class and the rule that gave it, computed with window
/// expressions over (cluster, job_id): every run of a job gets the same class, and no job
/// table or join is built (this is what keeps a ten-million-row audit fast). Runs still open
/// (no end) count up to `observation_end_ms`.
///
/// Added columns: `class`, `rule`, `rule_class`, `label_class`, `runs_of_job` (the job's run
/// count, so Σ 1/runs_of_job counts jobs), `run_hours` and `gpu_hours` of the job.
pub fn classify_runs(runs: LazyFrame, rules: &ClassificationRules, observation_end_ms: i64) -> PolarsResult<LazyFrame> {
    let job = [col(c::CLUSTER), col(c::JOB_ID)];
    let end_filled =
        col(c::END).fill_null(lit(observation_end_ms).cast(DataType::Datetime(TimeUnit::Milliseconds, None)));
    let hours = (end_filled.clone().cast(DataType::Int64) - col(c::START).cast(DataType::Int64))
        .cast(DataType::Float64)
        / lit(MS_PER_HOUR);
    let util_weight = when(col(c::GPU_UTIL_FRAC).is_not_null())
        .then(col(c::GPUS) * col("__hours"))
        .otherwise(lit(0.0));
    let stem = [col(c::CLUSTER), col(STEM)];
    let rule_class = first_match(&rules.rules, |r| r.class.label().to_string());
    let rule_name = first_match(&rules.rules, |r| r.name.clone());
    Ok(runs
        .with_columns([hours.alias("__hours"), end_filled.alias("__end")])
        .with_columns([
            len().over(job.clone())?.alias(RUNS_OF_JOB),
            col("__hours").sum().over(job.clone())?.alias(RUN_HOURS),
            (col(c::GPUS) * col("__hours"))
                .sum()
                .over(job.clone())?
                .alias(GPU_HOURS),
            col(c::GPUS).max().over(job.clone())?.alias("__job_gpus"),
            ((col(c::GPU_UTIL_FRAC).fill_null(lit(0.0)) * util_weight.clone())
                .sum()
                .over(job.clone())?
                / util_weight.sum().over(job.clone())?)
            .alias("__job_util"),
            col(c::NAME).drop_nulls().first().over(job.clone())?.alias("__job_name"),
            col(c::QUEUE)
                .drop_nulls()
                .first()
                .over(job.clone())?
                .alias("__job_queue"),
            col(c::LABEL)
                .drop_nulls()
                .first()
                .over(job.clone())?
                .alias("__job_label"),
            col(c::START).min().over(job.clone())?.alias(FIRST_START),
            col("__end").max().over(job.clone())?.alias(LAST_END),
        ])
        .with_column(
            col("__job_name")
                .str()
                .to_lowercase()
                .str()
                .replace_all(lit("[0-9a-f]{6,}|[0-9]+"), lit("#"), false)
                .alias(STEM),
        )
        // Jobs without a name have no stem: they are not one app's instances or a sweep.
        .with_columns([
            when(col(STEM).is_not_null())
                .then(
                    (lit(1.0) / col(RUNS_OF_JOB).cast(DataType::Float64))
                        .sum()
                        .over(stem.clone())?
                        .round(0, RoundMode::HalfToEven),
                )
                .otherwise(lit(NULL).cast(DataType::Float64))
                .alias(STEM_JOBS),
            when(col(STEM).is_not_null())
                .then(
                    col("__hours").sum().over(stem.clone())?
                        / ((col(LAST_END).max().over(stem.clone())?.cast(DataType::Int64)
                            - col(FIRST_START).min().over(stem.clone())?.cast(DataType::Int64))
                        .cast(DataType::Float64)
                            / lit(MS_PER_HOUR)),
                )
                .otherwise(lit(NULL).cast(DataType::Float64))
                .alias(STEM_OVERLAP),
        ])
        // The rules read job-level values under the canonical names.
        .with_columns([
            label_class_of(rules, col("__job_label")).alias(LABEL_CLASS),
            rule_class.alias(RULE_CLASS),
            rule_name.alias("__rule_name"),
        ])
        .with_columns([
            coalesce(&[col(LABEL_CLASS), col(RULE_CLASS), lit(WorkloadClass::Training.label())]).alias(CLASS),
            when(col(LABEL_CLASS).is_not_null())
                .then(lit(LABEL_RULE))
                .otherwise(col("__rule_name").fill_null(lit("no rule matched (training by default)")))
                .alias(RULE),
        ])
        .drop(by_name(
            [
                "__hours",
                "__end",
                "__job_gpus",
                "__job_util",
                "__job_name",
                "__job_queue",
                "__job_label",
                "__rule_name",
                STEM_JOBS,
                STEM_OVERLAP,
            ],
            true,
            false,
        )))
}
