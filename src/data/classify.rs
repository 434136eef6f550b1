//! Classifying jobs in two steps, so that ten million runs classify in seconds:
//!
//! 1. `run_features`: per run, from its own columns, a 64-bit job key (cluster, job_id), a
//!    64-bit key of the name's stem (digits and hex ids removed), one boolean per rule
//!    pattern, and the class its label stands for. Cheap, row by row: the audit computes them
//!    while a log streams in, so names and ids are never held for every row.
//! 2. `classify_runs`: job-level values as window expressions over the job key (run hours,
//!    GPUs, utilization, any attempt's name matching), stem statistics for sweeps and
//!    services, then the ordered rules of `catalogs/classification.toml` as one expression.
//!    An explicit label wins; every run carries the index of the rule that decided its job.
//!
//! Keys are hashes: two (cluster, job_id) pairs colliding in 64 bits would be counted as one
//! job; at ten million jobs the chance is about one in three hundred thousand.

use polars::prelude::*;

use super::canonical as c;
use crate::model::workload::{ClassRule, ClassificationRules, LABEL_RULE, WorkloadClass};

pub const JOB_KEY: &str = "job_key";
pub const STEM_KEY: &str = "stem_key";
/// The class of the run's label (`WorkloadClass as u32`), null when unlabeled or unknown.
pub const LABEL_CODE: &str = "label_code";
/// The job's class, `WorkloadClass as u32`.
pub const CLASS_CODE: &str = "class_code";
/// The class the rules alone give the job, to compare with labels; null when no rule matched.
pub const RULE_CLASS_CODE: &str = "rule_class_code";
/// Index of the deciding rule in the rule list; see `rule_name`.
pub const RULE_INDEX: &str = "rule_index";
/// The job's number of runs: Σ 1/runs_of_job over runs counts jobs.
pub const RUNS_OF_JOB: &str = "runs_of_job";
pub const RUN_HOURS: &str = "run_hours";
const MS_PER_HOUR: f64 = 3_600_000.0;
const JOB_LABEL: &str = "__job_label";
const JOB_STEM: &str = "__job_stem";
const STEM_JOBS: &str = "__stem_jobs";
const STEM_OVERLAP: &str = "__stem_overlap";

fn name_flag(i: usize) -> String {
    format!("__name_rule_{i}")
}

fn queue_flag(i: usize) -> String {
    format!("__queue_rule_{i}")
}

/// The name of the rule at `index` (the label pseudo-rule and "no rule" follow the list).
pub fn rule_name(rules: &ClassificationRules, index: u32) -> String {
    let index = index as usize;
    match index.cmp(&rules.rules.len()) {
        std::cmp::Ordering::Less => rules.rules[index].name.clone(),
        std::cmp::Ordering::Equal => LABEL_RULE.to_string(),
        std::cmp::Ordering::Greater => "no rule matched (training by default)".to_string(),
    }
}

fn label_rule_index(rules: &ClassificationRules) -> u32 {
    rules.rules.len() as u32
}

fn no_rule_index(rules: &ClassificationRules) -> u32 {
    rules.rules.len() as u32 + 1
}

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

/// Case-insensitive "contains any of" over a text column; false when the text is missing.
fn contains_any(column: &str, patterns: &[String]) -> Expr {
    let alternatives: Vec<String> = patterns.iter().map(|p| regex_escape(&p.to_lowercase())).collect();
    col(column)
        .str()
        .contains(lit(format!("(?i)({})", alternatives.join("|"))), false)
        .fill_null(lit(false))
}

fn hash(expr: Expr, seed: u64) -> Expr {
    expr.hash(seed, seed.rotate_left(17), seed.rotate_left(31), seed.rotate_left(47))
}

/// The class a label stands for, as a code, or null.
fn label_code(rules: &ClassificationRules) -> Expr {
    let label = col(c::LABEL).str().to_lowercase().str().strip_chars(lit(NULL));
    let mut expr = lit(NULL).cast(DataType::UInt32);
    for class in WorkloadClass::ALL.into_iter().rev() {
        let values: Vec<String> = rules.labels.of(class).iter().map(|s| s.to_lowercase()).collect();
        let series = Series::new("labels".into(), values);
        expr = when(
            label
                .clone()
                .is_in(lit(series).implode(false), false)
                .fill_null(lit(false)),
        )
        .then(lit(class as u32))
        .otherwise(expr);
    }
    expr
}

/// Per-run features from the canonical columns (see the module comment).
pub fn run_features(rules: &ClassificationRules) -> Vec<Expr> {
    let cluster = hash(col(c::CLUSTER), 0x9e37_79b9_7f4a_7c15);
    let stem = col(c::NAME)
        .str()
        .to_lowercase()
        .str()
        .replace_all(lit("[0-9a-f]{6,}|[0-9]+"), lit("#"), false);
    let mut features = vec![
        cluster
            .clone()
            .xor(hash(col(c::JOB_ID), 0xc2b2_ae3d_27d4_eb4f))
            .alias(JOB_KEY),
        when(col(c::NAME).is_not_null())
            .then(cluster.xor(hash(stem, 0x1656_67b1_9e37_79f9)))
            .otherwise(lit(NULL).cast(DataType::UInt64))
            .alias(STEM_KEY),
        label_code(rules).alias(LABEL_CODE),
    ];
    for (i, rule) in rules.rules.iter().enumerate() {
        if !rule.name_patterns.is_empty() {
            features.push(contains_any(c::NAME, &rule.name_patterns).alias(name_flag(i)));
        }
        if !rule.queue_patterns.is_empty() {
            features.push(contains_any(c::QUEUE, &rule.queue_patterns).alias(queue_flag(i)));
        }
    }
    features
}

/// The columns `run_features` adds.
pub fn feature_columns(rules: &ClassificationRules) -> Vec<String> {
    let mut names = vec![JOB_KEY.to_string(), STEM_KEY.to_string(), LABEL_CODE.to_string()];
    for (i, rule) in rules.rules.iter().enumerate() {
        if !rule.name_patterns.is_empty() {
            names.push(name_flag(i));
        }
        if !rule.queue_patterns.is_empty() {
            names.push(queue_flag(i));
        }
    }
    names
}

/// True when every condition of `rule` holds for the job (job-level columns).
fn rule_condition(i: usize, rule: &ClassRule) -> Expr {
    let mut condition = lit(true);
    let mut and = |e: Expr| condition = condition.clone().and(e);
    if !rule.name_patterns.is_empty() {
        and(col(name_flag(i)));
    }
    if !rule.queue_patterns.is_empty() {
        and(col(queue_flag(i)));
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
        and(col(STEM_JOBS).gt_eq(lit(f64::from(min))).fill_null(lit(false)));
    }
    if let Some(min) = rule.min_overlap {
        and(col(STEM_OVERLAP).gt_eq(lit(min)).fill_null(lit(false)));
    }
    condition
}

/// `first rule whose condition holds → value(index, rule)`, else null.
fn first_match(rules: &[ClassRule], value: impl Fn(usize, &ClassRule) -> Expr) -> Expr {
    rules
        .iter()
        .enumerate()
        .rev()
        .fold(lit(NULL).cast(DataType::UInt32), |otherwise, (i, rule)| {
            when(rule_condition(i, rule)).then(value(i, rule)).otherwise(otherwise)
        })
}

/// Runs with `run_features` in, their job's class out (see the module comment). Runs still
/// open (no end) count up to `observation_end_ms`.
pub fn classify_runs(runs: LazyFrame, rules: &ClassificationRules, observation_end_ms: i64) -> PolarsResult<LazyFrame> {
    let job = [col(JOB_KEY)];
    let stem = [col(JOB_STEM)];
    let end_filled =
        col(c::END).fill_null(lit(observation_end_ms).cast(DataType::Datetime(TimeUnit::Milliseconds, None)));
    let hours = (end_filled.clone().cast(DataType::Int64) - col(c::START).cast(DataType::Int64))
        .cast(DataType::Float64)
        / lit(MS_PER_HOUR);
    let util_weight = when(col(c::GPU_UTIL_FRAC).is_not_null())
        .then(col(c::GPUS) * col("__hours"))
        .otherwise(lit(0.0));

    let mut job_level = vec![
        len().over(job.clone())?.alias(RUNS_OF_JOB),
        col("__hours").sum().over(job.clone())?.alias(RUN_HOURS),
        col(c::GPUS).max().over(job.clone())?.alias("__job_gpus"),
        ((col(c::GPU_UTIL_FRAC).fill_null(lit(0.0)) * util_weight.clone())
            .sum()
            .over(job.clone())?
            / util_weight.sum().over(job.clone())?)
        .alias("__job_util"),
        col(LABEL_CODE).max().over(job.clone())?.alias(JOB_LABEL),
        col(STEM_KEY).min().over(job.clone())?.alias(JOB_STEM),
        col(c::START)
            .cast(DataType::Int64)
            .min()
            .over(job.clone())?
            .alias("__job_first"),
        col("__end")
            .cast(DataType::Int64)
            .max()
            .over(job.clone())?
            .alias("__job_last"),
    ];
    // A job matches a pattern when any of its attempts' names (or queues) does.
    for (i, rule) in rules.rules.iter().enumerate() {
        if !rule.name_patterns.is_empty() {
            job_level.push(
                col(name_flag(i))
                    .cast(DataType::UInt32)
                    .max()
                    .over(job.clone())?
                    .cast(DataType::Boolean)
                    .alias(name_flag(i)),
            );
        }
        if !rule.queue_patterns.is_empty() {
            job_level.push(
                col(queue_flag(i))
                    .cast(DataType::UInt32)
                    .max()
                    .over(job.clone())?
                    .cast(DataType::Boolean)
                    .alias(queue_flag(i)),
            );
        }
    }
    // Jobs without a name have no stem: they are not one app's instances or a sweep.
    let stem_level = vec![
        when(col(JOB_STEM).is_not_null())
            .then(
                (lit(1.0) / col(RUNS_OF_JOB).cast(DataType::Float64))
                    .sum()
                    .over(stem.clone())?
                    .round(0, RoundMode::HalfToEven),
            )
            .otherwise(lit(NULL).cast(DataType::Float64))
            .alias(STEM_JOBS),
        when(col(JOB_STEM).is_not_null())
            .then(
                col("__hours").sum().over(stem.clone())?
                    / ((col("__job_last").max().over(stem.clone())? - col("__job_first").min().over(stem.clone())?)
                        .cast(DataType::Float64)
                        / lit(MS_PER_HOUR)),
            )
            .otherwise(lit(NULL).cast(DataType::Float64))
            .alias(STEM_OVERLAP),
    ];
    let rule_class = first_match(&rules.rules, |_, r| lit(r.class as u32));
    let rule_index = first_match(&rules.rules, |i, _| lit(i as u32));
    let mut helpers: Vec<String> = vec![
        "__hours",
        "__end",
        "__job_gpus",
        "__job_util",
        JOB_LABEL,
        JOB_STEM,
        "__job_first",
        "__job_last",
        STEM_JOBS,
        STEM_OVERLAP,
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    helpers.extend(feature_columns(rules).into_iter().filter(|n| n.starts_with("__")));
    Ok(runs
        .with_columns([hours.alias("__hours"), end_filled.alias("__end")])
        .with_columns(job_level)
        .with_columns(stem_level)
        .with_columns([rule_class.alias(RULE_CLASS_CODE), rule_index.alias("__rule_index")])
        .with_columns([
            coalesce(&[
                col(JOB_LABEL),
                col(RULE_CLASS_CODE),
                lit(WorkloadClass::Training as u32),
            ])
            .alias(CLASS_CODE),
            when(col(JOB_LABEL).is_not_null())
                .then(lit(label_rule_index(rules)))
                .otherwise(col("__rule_index").fill_null(lit(no_rule_index(rules))))
                .alias(RULE_INDEX),
            col(JOB_LABEL).alias(LABEL_CODE),
        ])
        .drop(by_name(
            helpers.iter().map(String::as_str).chain(["__rule_index"]),
            true,
            false,
        )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::canonical::{JobRun, frame_from_runs};
    use crate::model::workload::LabelSynonyms;

    fn rules() -> ClassificationRules {
        let rule = |name: &str, class, name_patterns: &[&str]| ClassRule {
            name: name.into(),
            class,
            name_patterns: name_patterns.iter().map(|s| s.to_string()).collect(),
            queue_patterns: Vec::new(),
            min_hours: None,
            max_hours: None,
            min_gpus: None,
            max_gpus: None,
            min_util: None,
            max_util: None,
            min_repeats: None,
            min_overlap: None,
        };
        let mut sweep = rule("repeated", WorkloadClass::Burst, &[]);
        sweep.min_repeats = Some(3);
        ClassificationRules {
            schema_version: 1,
            labels: LabelSynonyms {
                training: vec!["train".into()],
                inference: vec!["serve".into()],
                burst: vec!["burst".into()],
            },
            rules: vec![
                rule("serving", WorkloadClass::Inference, &["serve"]),
                sweep,
                rule("default", WorkloadClass::Training, &[]),
            ],
        }
    }

    fn run(job: &str, name: Option<&str>, label: Option<&str>) -> JobRun {
        JobRun {
            job_id: job.into(),
            cluster: "c".into(),
            name: name.map(str::to_string),
            label: label.map(str::to_string),
            start_ms: 0,
            end_ms: Some(3_600_000),
            gpus: 1.0,
            ..JobRun::default()
        }
    }

    fn classes(runs: &[JobRun]) -> Vec<(u32, String)> {
        let rules = rules();
        let frame = frame_from_runs(runs).expect("frame");
        let out = classify_runs(frame.lazy().with_columns(run_features(&rules)), &rules, 3_600_000)
            .expect("plan")
            .collect()
            .expect("classified");
        let codes = out.column(CLASS_CODE).expect("class").u32().expect("u32").clone();
        let index = out.column(RULE_INDEX).expect("rule").u32().expect("u32").clone();
        codes
            .into_no_null_iter()
            .zip(index.into_no_null_iter())
            .map(|(c, i)| (c, rule_name(&rules, i)))
            .collect()
    }

    #[test]
    fn labels_win_then_rules_in_order() {
        let got = classes(&[
            run("a", Some("serve-api"), None),
            run("b", Some("serve-api"), Some("TRAIN")),
            run("c", Some("x"), None),
        ]);
        assert_eq!(got[0], (WorkloadClass::Inference as u32, "serving".into()));
        assert_eq!(got[1], (WorkloadClass::Training as u32, LABEL_RULE.into()));
        assert_eq!(got[2], (WorkloadClass::Training as u32, "default".into()));
    }

    #[test]
    fn repeated_stems_are_sweeps_but_unnamed_jobs_are_not() {
        let sweep: Vec<JobRun> = (0..3)
            .map(|i| run(&format!("s{i}"), Some(&format!("lr-sweep-{i}")), None))
            .collect();
        assert!(
            classes(&sweep)
                .iter()
                .all(|(c, r)| *c == WorkloadClass::Burst as u32 && r == "repeated")
        );
        let unnamed: Vec<JobRun> = (0..5).map(|i| run(&format!("u{i}"), None, None)).collect();
        assert!(
            classes(&unnamed)
                .iter()
                .all(|(c, _)| *c == WorkloadClass::Training as u32)
        );
    }

    #[test]
    fn attempts_of_one_job_share_its_class() {
        let mut first = run("j", Some("serve-x"), None);
        first.end_ms = Some(1_800_000);
        let mut retry = run("j", None, None);
        retry.start_ms = 1_800_000;
        let got = classes(&[first, retry]);
        assert_eq!(got[0], got[1]);
        assert_eq!(got[0].0, WorkloadClass::Inference as u32);
    }
}
