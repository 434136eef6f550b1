//! Classifying jobs in two steps, so that ten million runs classify in seconds:
//!
//! 1. `with_run_features` (Polars, row by row): a 64-bit job key (cluster, job_id), a 64-bit key of
//!    the name's stem (digits and hex ids removed), one boolean per rule pattern, and the class
//!    the run's label stands for. The audit computes them while a log streams in, so names and
//!    ids are never held for every row.
//! 2. `classify_jobs` (one pass in Rust over the runs sorted by job key): job-level values (run
//!    hours summed over attempts, most GPUs, utilization, any attempt's name matching), stem
//!    statistics for sweeps and services, then the ordered rules of
//!    `catalogs/classification.toml`. An explicit label wins; every job keeps the index of the
//!    rule that decided it.
//!
//! Keys are hashes: two (cluster, job_id) pairs colliding in 64 bits would be counted as one
//! job; at ten million jobs the chance is about one in three hundred thousand.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

use polars::prelude::*;

use super::canonical as c;
use crate::model::workload::{ClassRule, ClassificationRules, LABEL_RULE, WorkloadClass};

pub const JOB_KEY: &str = "job_key";
pub const STEM_KEY: &str = "stem_key";
/// The class of the run's label (`WorkloadClass as u32`), null when unlabeled or unknown.
pub const LABEL_CODE: &str = "label_code";
const MS_PER_HOUR: f64 = 3_600_000.0;
/// Rule patterns are carried as bits of a 128-bit mask.
pub const MAX_RULES: usize = 128;

fn name_flag(i: usize) -> String {
    format!("name_rule_{i}")
}

fn queue_flag(i: usize) -> String {
    format!("queue_rule_{i}")
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

/// The pseudo-rule index of jobs decided by their label.
pub fn label_rule_index(rules: &ClassificationRules) -> u32 {
    rules.rules.len() as u32
}

/// The pseudo-rule index of jobs no rule matched (training by default).
pub fn no_rule_index(rules: &ClassificationRules) -> u32 {
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
        .contains(lit(alternatives.join("|")), false)
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
/// Adds the per-run classification features (see the module comment) to canonical runs.
/// Names and queues are lowercased once, then each rule's patterns run as a case-sensitive
/// alternation of literals, which the regex engine searches for all at once.
pub fn with_run_features(runs: LazyFrame, rules: &ClassificationRules) -> LazyFrame {
    let cluster = hash(col(c::CLUSTER), 0x9e37_79b9_7f4a_7c15);
    let stem = col(LOWER_NAME)
        .str()
        .replace_all(lit("[0-9a-f]{6,}|[0-9]+"), lit("#"), false);
    let mut features = vec![
        cluster
            .clone()
            .xor(hash(col(c::JOB_ID), 0xc2b2_ae3d_27d4_eb4f))
            .alias(JOB_KEY),
        when(col(LOWER_NAME).is_not_null())
            .then(cluster.xor(hash(stem, 0x1656_67b1_9e37_79f9)))
            .otherwise(lit(NULL).cast(DataType::UInt64))
            .alias(STEM_KEY),
        label_code(rules).alias(LABEL_CODE),
    ];
    for (i, rule) in rules.rules.iter().enumerate() {
        if !rule.name_patterns.is_empty() {
            features.push(contains_any(LOWER_NAME, &rule.name_patterns).alias(name_flag(i)));
        }
        if !rule.queue_patterns.is_empty() {
            features.push(contains_any(LOWER_QUEUE, &rule.queue_patterns).alias(queue_flag(i)));
        }
    }
    runs.with_columns([
        col(c::NAME).str().to_lowercase().alias(LOWER_NAME),
        col(c::QUEUE).str().to_lowercase().alias(LOWER_QUEUE),
    ])
    .with_columns(features)
    .drop(by_name([LOWER_NAME, LOWER_QUEUE], true, false))
}

const LOWER_NAME: &str = "__lower_name";
const LOWER_QUEUE: &str = "__lower_queue";

/// The columns `with_run_features` adds.
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

fn err(e: PolarsError) -> String {
    e.to_string()
}

/// What one job's runs say about it, built while walking its runs.
#[derive(Debug, Clone, Copy)]
struct JobFacts {
    run_hours: f64,
    gpus: f64,
    util_gpu_hours: f64,
    util_weight: f64,
    name_matches: u128,
    queue_matches: u128,
    label: Option<u32>,
    stem: Option<u64>,
    first_ms: i64,
    last_ms: i64,
}

impl JobFacts {
    fn new() -> JobFacts {
        JobFacts {
            run_hours: 0.0,
            gpus: 0.0,
            util_gpu_hours: 0.0,
            util_weight: 0.0,
            name_matches: 0,
            queue_matches: 0,
            label: None,
            stem: None,
            first_ms: i64::MAX,
            last_ms: i64::MIN,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct StemStats {
    jobs: f64,
    run_hours: f64,
    first_ms: i64,
    last_ms: i64,
}

/// Every run's job and every job's class.
#[derive(Debug, Clone, PartialEq)]
pub struct JobClasses {
    /// For each run (in the frame's order), the index of its job.
    pub job_of_run: Vec<u32>,
    /// For each job: its class, the rule that decided it (see `rule_name`), the class the rules
    /// alone give (to compare with labels) and its label's class.
    pub class: Vec<WorkloadClass>,
    pub rule: Vec<u32>,
    pub rule_class: Vec<Option<WorkloadClass>>,
    pub label_class: Vec<Option<WorkloadClass>>,
}

fn class_of_code(code: u32) -> Option<WorkloadClass> {
    WorkloadClass::ALL.into_iter().find(|c| *c as u32 == code)
}

fn rule_holds(i: usize, rule: &ClassRule, job: &JobFacts, stems: &HashMap<u64, StemStats>) -> bool {
    let bit = 1u128 << i;
    let within = |value: Option<f64>, min: Option<f64>, max: Option<f64>| match value {
        Some(v) => min.is_none_or(|m| v >= m) && max.is_none_or(|m| v <= m),
        None => min.is_none() && max.is_none(),
    };
    let util = (job.util_weight > 0.0).then(|| job.util_gpu_hours / job.util_weight);
    let stem = job.stem.and_then(|s| stems.get(&s));
    (rule.name_patterns.is_empty() || job.name_matches & bit != 0)
        && (rule.queue_patterns.is_empty() || job.queue_matches & bit != 0)
        && within(Some(job.run_hours), rule.min_hours, rule.max_hours)
        && within(Some(job.gpus), rule.min_gpus, rule.max_gpus)
        && within(util, rule.min_util, rule.max_util)
        && rule
            .min_repeats
            .is_none_or(|min| stem.is_some_and(|s| s.jobs >= f64::from(min)))
        && rule.min_overlap.is_none_or(|min| {
            stem.is_some_and(|s| {
                s.last_ms > s.first_ms && s.run_hours / ((s.last_ms - s.first_ms) as f64 / MS_PER_HOUR) >= min
            })
        })
}

/// Bits of the rules whose pattern column is true on each row.
fn pattern_bits(runs: &DataFrame, rules: &ClassificationRules, name: bool) -> Result<Vec<u128>, String> {
    let mut bits = vec![0u128; runs.height()];
    for (i, rule) in rules.rules.iter().enumerate() {
        let patterns = if name {
            &rule.name_patterns
        } else {
            &rule.queue_patterns
        };
        if patterns.is_empty() {
            continue;
        }
        let column = if name { name_flag(i) } else { queue_flag(i) };
        let flags = runs.column(&column).map_err(err)?.bool().map_err(err)?.clone();
        for (slot, flag) in bits.iter_mut().zip(flags.iter()) {
            if flag == Some(true) {
                *slot |= 1u128 << i;
            }
        }
    }
    Ok(bits)
}

/// The columns a classification reads, taken out of the frame once.
struct RunColumns {
    keys: UInt64Chunked,
    stems: UInt64Chunked,
    labels: UInt32Chunked,
    starts: Int64Chunked,
    ends: Int64Chunked,
    gpus: Float64Chunked,
    utils: Float64Chunked,
    name_bits: Vec<u128>,
    queue_bits: Vec<u128>,
}

impl RunColumns {
    fn of(runs: &DataFrame, rules: &ClassificationRules) -> Result<RunColumns, String> {
        Ok(RunColumns {
            keys: runs.column(JOB_KEY).map_err(err)?.u64().map_err(err)?.clone(),
            stems: runs.column(STEM_KEY).map_err(err)?.u64().map_err(err)?.clone(),
            labels: runs.column(LABEL_CODE).map_err(err)?.u32().map_err(err)?.clone(),
            starts: c::int64_column(runs, c::START)?,
            ends: c::int64_column(runs, c::END)?,
            gpus: runs.column(c::GPUS).map_err(err)?.f64().map_err(err)?.clone(),
            utils: runs.column(c::GPU_UTIL_FRAC).map_err(err)?.f64().map_err(err)?.clone(),
            name_bits: pattern_bits(runs, rules, true)?,
            queue_bits: pattern_bits(runs, rules, false)?,
        })
    }

    /// Walks the jobs in key order, calling `visit` with each job's facts and its rows.
    fn each_job(&self, order: &JobOrder, observation_end_ms: i64, mut visit: impl FnMut(&JobFacts, &JobOrder)) {
        let mut begin = 0;
        while begin < order.len() {
            let key = order[begin].0;
            let end = begin + order[begin..].iter().take_while(|(k, _)| *k == key).count();
            let mut job = JobFacts::new();
            for &(_, row) in &order[begin..end] {
                let row = row as usize;
                let start = self.starts.get(row).unwrap_or(observation_end_ms);
                let finish = self.ends.get(row).unwrap_or(observation_end_ms).max(start);
                let hours = (finish - start) as f64 / MS_PER_HOUR;
                let gpus = self.gpus.get(row).unwrap_or(0.0);
                job.run_hours += hours;
                job.gpus = job.gpus.max(gpus);
                if let Some(util) = self.utils.get(row) {
                    job.util_gpu_hours += util * gpus * hours;
                    job.util_weight += gpus * hours;
                }
                job.name_matches |= self.name_bits[row];
                job.queue_matches |= self.queue_bits[row];
                job.label = job.label.max(self.labels.get(row));
                job.stem = match (job.stem, self.stems.get(row)) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                job.first_ms = job.first_ms.min(start);
                job.last_ms = job.last_ms.max(finish);
            }
            visit(&job, &order[begin..end]);
            begin = end;
        }
    }
}

/// (job key, row) pairs sorted by key: the runs of each job side by side.
type JobOrder = [(u64, u32)];

/// Splits the job-ordered runs near the middle, never inside a job.
fn split_at_job_boundary(order: &JobOrder) -> (&JobOrder, &JobOrder) {
    let mut middle = order.len() / 2;
    while middle > 0 && middle < order.len() && order[middle].0 == order[middle - 1].0 {
        middle += 1;
    }
    order.split_at(middle)
}

fn count_jobs(order: &JobOrder) -> u32 {
    order.windows(2).filter(|pair| pair[0].0 != pair[1].0).count() as u32 + u32::from(!order.is_empty())
}

/// The first pass: every stem's jobs, run hours and time span.
fn stem_stats(columns: &RunColumns, order: &JobOrder, observation_end_ms: i64) -> HashMap<u64, StemStats> {
    let mut stems: HashMap<u64, StemStats> = HashMap::new();
    columns.each_job(order, observation_end_ms, |job, _| {
        if let Some(stem) = job.stem {
            let s = stems.entry(stem).or_insert(StemStats {
                jobs: 0.0,
                run_hours: 0.0,
                first_ms: i64::MAX,
                last_ms: i64::MIN,
            });
            s.jobs += 1.0;
            s.run_hours += job.run_hours;
            s.first_ms = s.first_ms.min(job.first_ms);
            s.last_ms = s.last_ms.max(job.last_ms);
        }
    });
    stems
}

/// The second pass over a range of jobs numbered from `first_job`: each job's class and rule,
/// and each of its runs pointed at it.
fn classify_range(
    columns: &RunColumns,
    order: &JobOrder,
    first_job: u32,
    stems: &HashMap<u64, StemStats>,
    rules: &ClassificationRules,
    observation_end_ms: i64,
    job_of_run: &[AtomicU32],
) -> JobClasses {
    let mut classes = JobClasses {
        job_of_run: Vec::new(),
        class: Vec::new(),
        rule: Vec::new(),
        rule_class: Vec::new(),
        label_class: Vec::new(),
    };
    columns.each_job(order, observation_end_ms, |job, rows| {
        let index = first_job + classes.class.len() as u32;
        for &(_, row) in rows {
            job_of_run[row as usize].store(index, Ordering::Relaxed);
        }
        let matched = rules
            .rules
            .iter()
            .enumerate()
            .find(|(i, rule)| rule_holds(*i, rule, job, stems));
        let rule_class = matched.map(|(_, rule)| rule.class);
        let label_class = job.label.and_then(class_of_code);
        classes
            .class
            .push(label_class.or(rule_class).unwrap_or(WorkloadClass::Training));
        classes.rule.push(match (label_class, matched) {
            (Some(_), _) => label_rule_index(rules),
            (None, Some((i, _))) => i as u32,
            (None, None) => no_rule_index(rules),
        });
        classes.rule_class.push(rule_class);
        classes.label_class.push(label_class);
    });
    classes
}

/// Classifies the jobs of runs that carry `with_run_features`'s columns. Runs still open (no end) count up
/// to `observation_end_ms`. Two passes over the runs sorted by job key: the first gathers the
/// stems' statistics, the second applies the rules, so no job's facts are kept.
pub fn classify_jobs(
    runs: &DataFrame,
    rules: &ClassificationRules,
    observation_end_ms: i64,
) -> Result<JobClasses, String> {
    if rules.rules.len() > MAX_RULES {
        return Err(format!(
            "{} classification rules: at most {MAX_RULES} are supported",
            rules.rules.len()
        ));
    }
    // One chunk per column: the second pass reads rows in job order, and finding a row in a
    // many-chunk column (as a streaming read leaves it) costs a search per access.
    let mut runs = runs.clone();
    runs.rechunk_mut();
    let runs = &runs;
    let columns = RunColumns::of(runs, rules)?;
    let mut order: Vec<(u64, u32)> = columns
        .keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.unwrap_or(0), i as u32))
        .collect();
    order.sort_unstable();

    // Both passes walk the runs in job order, bound by memory latency: the two halves of the
    // order (split at a job boundary) go to two threads.
    let (left, right) = split_at_job_boundary(&order);
    let stems = std::thread::scope(|scope| {
        let right_stems = scope.spawn(|| stem_stats(&columns, right, observation_end_ms));
        let mut stems = stem_stats(&columns, left, observation_end_ms);
        for (stem, other) in right_stems
            .join()
            .map_err(|_| "the classification thread failed".to_string())?
        {
            stems
                .entry(stem)
                .and_modify(|s| {
                    s.jobs += other.jobs;
                    s.run_hours += other.run_hours;
                    s.first_ms = s.first_ms.min(other.first_ms);
                    s.last_ms = s.last_ms.max(other.last_ms);
                })
                .or_insert(other);
        }
        Ok::<_, String>(stems)
    })?;

    let job_of_run: Vec<AtomicU32> = (0..runs.height()).map(|_| AtomicU32::new(0)).collect();
    let left_jobs = count_jobs(left);
    let (mut classes, right_classes) = std::thread::scope(|scope| {
        let right_classes = scope.spawn(|| {
            classify_range(
                &columns,
                right,
                left_jobs,
                &stems,
                rules,
                observation_end_ms,
                &job_of_run,
            )
        });
        let left_classes = classify_range(&columns, left, 0, &stems, rules, observation_end_ms, &job_of_run);
        right_classes
            .join()
            .map(|right| (left_classes, right))
            .map_err(|_| "the classification thread failed".to_string())
    })?;
    classes.class.extend(right_classes.class);
    classes.rule.extend(right_classes.rule);
    classes.rule_class.extend(right_classes.rule_class);
    classes.label_class.extend(right_classes.label_class);
    classes.job_of_run = job_of_run.into_iter().map(AtomicU32::into_inner).collect();
    Ok(classes)
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
        let mut service = rule("overlapping", WorkloadClass::Inference, &[]);
        service.min_overlap = Some(2.5);
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
                service,
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

    /// (class, rule name) of each run's job.
    fn classes(runs: &[JobRun]) -> Vec<(WorkloadClass, String)> {
        let rules = rules();
        let frame = with_run_features(frame_from_runs(runs).expect("frame").lazy(), &rules)
            .collect()
            .expect("features");
        let jobs = classify_jobs(&frame, &rules, 3_600_000).expect("classified");
        jobs.job_of_run
            .iter()
            .map(|&j| (jobs.class[j as usize], rule_name(&rules, jobs.rule[j as usize])))
            .collect()
    }

    #[test]
    fn labels_win_then_rules_in_order() {
        let got = classes(&[
            run("a", Some("serve-api"), None),
            run("b", Some("serve-api"), Some("TRAIN")),
            run("c", Some("x"), None),
        ]);
        assert_eq!(got[0], (WorkloadClass::Inference, "serving".into()));
        assert_eq!(got[1], (WorkloadClass::Training, LABEL_RULE.into()));
        assert_eq!(got[2], (WorkloadClass::Training, "default".into()));
    }

    #[test]
    fn repeated_stems_are_sweeps_but_unnamed_jobs_are_not() {
        let sweep: Vec<JobRun> = (0..3)
            .map(|i| run(&format!("s{i}"), Some(&format!("lr-sweep-{i}")), None))
            .collect();
        assert!(
            classes(&sweep)
                .iter()
                .all(|(c, r)| *c == WorkloadClass::Burst && r == "repeated")
        );
        let unnamed: Vec<JobRun> = (0..5).map(|i| run(&format!("u{i}"), None, None)).collect();
        assert!(classes(&unnamed).iter().all(|(c, _)| *c == WorkloadClass::Training));
    }

    #[test]
    fn instances_of_one_app_living_together_are_a_service() {
        // Two stems of the same size: one app's instances overlapping, the other one after another.
        let mut runs = Vec::new();
        for i in 0..2 {
            runs.push(run(&format!("a{i}"), Some(&format!("app-{i}")), None));
        }
        for i in 0..2 {
            let mut r = run(&format!("b{i}"), Some(&format!("batch-{i}")), None);
            r.start_ms = i * 3_600_000;
            r.end_ms = Some((i + 1) * 3_600_000);
            runs.push(r);
        }
        let mut overlapping: Vec<JobRun> = (0..3)
            .map(|i| run(&format!("o{i}"), Some(&format!("svc-{i}")), None))
            .collect();
        overlapping.extend(runs);
        let got = classes(&overlapping);
        // Three instances of svc over one hour overlap 3×: a service (but also three repeats of a
        // stem, and "repeated" comes first in the list: order decides).
        assert_eq!(got[0], (WorkloadClass::Burst, "repeated".into()));
        assert_eq!(got[3].1, "default");
        assert_eq!(got[5].1, "default");
    }

    #[test]
    fn attempts_of_one_job_share_its_class() {
        let mut first = run("j", Some("serve-x"), None);
        first.end_ms = Some(1_800_000);
        let mut retry = run("j", None, None);
        retry.start_ms = 1_800_000;
        let got = classes(&[first, retry]);
        assert_eq!(got[0], got[1]);
        assert_eq!(got[0].0, WorkloadClass::Inference);
    }
}
