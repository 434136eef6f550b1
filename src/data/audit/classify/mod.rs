//! Classifying jobs in two steps, so that ten million runs classify in seconds:
//!
//! 1. `features::with_run_features` (row by row, while a log streams in): a 64-bit job key
//!    (cluster, job_id), a 64-bit key of the name's stem (digits and hex ids removed), the rules
//!    whose name and queue patterns match as bits, and the class the run's label stands for.
//! 2. `classify_jobs` (two passes in Rust over the runs grouped by job): job-level values (run
//!    hours summed over attempts, most GPUs, utilization, any attempt's name matching), stem
//!    statistics for sweeps and services, then the ordered rules of
//!    `catalogs/classification.toml`. An explicit label wins; every job keeps the index of the
//!    rule that decided it.
//!
//! Keys are hashes: two (cluster, job_id) pairs colliding in 64 bits would be counted as one
//! job; at ten million jobs the chance is about one in three hundred thousand.

pub mod features;
pub mod grouping;
pub mod placement;
#[cfg(test)]
mod tests;
pub mod vocabulary;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};

use polars::prelude::*;

pub use self::features::{JOB_KEY, LABEL_CODE, MAX_RULES, NAME_BITS, QUEUE_BITS, STEM_KEY, UNKNOWN_LABEL_BASE};
use self::grouping::{JobRuns, JobSpan};
use crate::data::canonical::{self as c, MS_PER_HOUR};
use crate::data::error::DataError;
use crate::model::workload::{ClassRule, ClassificationRules, LABEL_RULE, WorkloadClass};

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

fn err(e: PolarsError) -> DataError {
    DataError::Frame(e)
}

/// Stem keys are already hashes: the map uses them as they are.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

type StemMap = HashMap<u64, StemStats, BuildHasherDefault<KeyHasher>>;

/// What one job's runs say about it, built while walking its runs.
#[derive(Debug, Clone, Copy)]
struct JobFacts {
    run_hours: f64,
    /// False for a job that never started and gives no time limit: rules on run hours do not
    /// apply to it.
    hours_known: bool,
    gpus: f64,
    util_gpu_hours: f64,
    util_weight: f64,
    name_matches: u64,
    queue_matches: u64,
    /// The class code of its label, when `[labels]` knows it.
    label: Option<u32>,
    /// Its label's code when `[labels]` does not know it (`UNKNOWN_LABEL_BASE` and up).
    unknown_label: Option<u32>,
    stem: Option<u64>,
    first_ms: i64,
    last_ms: i64,
}

impl JobFacts {
    fn new() -> JobFacts {
        JobFacts {
            run_hours: 0.0,
            hours_known: true,
            gpus: 0.0,
            util_gpu_hours: 0.0,
            util_weight: 0.0,
            name_matches: 0,
            queue_matches: 0,
            label: None,
            unknown_label: None,
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

impl StemStats {
    fn merge(&mut self, other: &StemStats) {
        self.jobs += other.jobs;
        self.run_hours += other.run_hours;
        self.first_ms = self.first_ms.min(other.first_ms);
        self.last_ms = self.last_ms.max(other.last_ms);
    }
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
    /// Job index → its label's code, for the jobs whose label `[labels]` does not know (the
    /// audit lists such labels; `label_names` holds their text). Empty for most logs, so ten
    /// million jobs cost nothing here.
    pub unknown_label: HashMap<u32, u32>,
}

fn class_of_code(code: u32) -> Option<WorkloadClass> {
    WorkloadClass::ALL.into_iter().find(|c| *c as u32 == code)
}

fn rule_holds(i: usize, rule: &ClassRule, job: &JobFacts, stems: &StemMap) -> bool {
    let bit = 1u64 << i;
    let within = |value: Option<f64>, min: Option<f64>, max: Option<f64>| match value {
        Some(v) => min.is_none_or(|m| v >= m) && max.is_none_or(|m| v <= m),
        None => min.is_none() && max.is_none(),
    };
    let util = (job.util_weight > 0.0).then(|| job.util_gpu_hours / job.util_weight);
    let stem = job.stem.and_then(|s| stems.get(&s));
    (rule.name_patterns.is_empty() || job.name_matches & bit != 0)
        && (!rule.tests_placement() || job.queue_matches & bit != 0)
        && within(job.hours_known.then_some(job.run_hours), rule.min_hours, rule.max_hours)
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

/// One column's values and validity, read by row without a chunk search.
struct Values<'a, P: PolarsNumericType> {
    values: &'a [P::Native],
    /// The validity bitmap's bytes and bit offset, when the column has nulls.
    validity: Option<(&'a [u8], usize)>,
}

impl<'a, P: PolarsNumericType> Values<'a, P> {
    fn of(column: &'a ChunkedArray<P>) -> Result<Values<'a, P>, DataError> {
        let mut chunks = column.downcast_iter();
        match (chunks.next(), chunks.next()) {
            (Some(array), None) => Ok(Values {
                values: array.values().as_slice(),
                validity: array.validity().filter(|bitmap| bitmap.unset_bits() > 0).map(|bitmap| {
                    let (bytes, offset, _) = bitmap.as_slice();
                    (bytes, offset)
                }),
            }),
            (None, _) => Ok(Values {
                values: &[],
                validity: None,
            }),
            _ => Err(DataError::NotOneChunk),
        }
    }

    #[inline]
    fn get(&self, row: usize) -> Option<P::Native> {
        match self.validity {
            Some((bytes, offset)) if bytes[(offset + row) / 8] & (1 << ((offset + row) % 8)) == 0 => None,
            _ => Some(self.values[row]),
        }
    }
}

/// The columns a classification reads, each as one chunk.
struct RunColumns {
    keys: UInt64Chunked,
    stems: UInt64Chunked,
    labels: UInt32Chunked,
    starts: Int64Chunked,
    ends: Int64Chunked,
    gpus: Float64Chunked,
    utils: Float64Chunked,
    name_bits: UInt64Chunked,
    queue_bits: UInt64Chunked,
}

impl RunColumns {
    fn of(runs: &DataFrame) -> Result<RunColumns, DataError> {
        let one_chunk = |name: &str| -> Result<Series, DataError> {
            Ok(runs.column(name).map_err(err)?.as_materialized_series().rechunk())
        };
        Ok(RunColumns {
            keys: one_chunk(JOB_KEY)?.u64().map_err(err)?.clone(),
            stems: one_chunk(STEM_KEY)?.u64().map_err(err)?.clone(),
            labels: one_chunk(LABEL_CODE)?.u32().map_err(err)?.clone(),
            starts: c::int64_column(runs, c::START)?.rechunk().into_owned(),
            ends: c::int64_column(runs, c::END)?.rechunk().into_owned(),
            gpus: one_chunk(c::GPUS)?.f64().map_err(err)?.clone(),
            utils: one_chunk(c::GPU_UTIL_FRAC)?.f64().map_err(err)?.clone(),
            name_bits: one_chunk(NAME_BITS)?.u64().map_err(err)?.clone(),
            queue_bits: one_chunk(QUEUE_BITS)?.u64().map_err(err)?.clone(),
        })
    }

    fn view(&self) -> Result<RunView<'_>, DataError> {
        Ok(RunView {
            stems: Values::of(&self.stems)?,
            labels: Values::of(&self.labels)?,
            starts: Values::of(&self.starts)?,
            ends: Values::of(&self.ends)?,
            gpus: Values::of(&self.gpus)?,
            utils: Values::of(&self.utils)?,
            name_bits: Values::of(&self.name_bits)?,
            queue_bits: Values::of(&self.queue_bits)?,
        })
    }
}

/// The classification columns read by row.
struct RunView<'a> {
    stems: Values<'a, UInt64Type>,
    labels: Values<'a, UInt32Type>,
    starts: Values<'a, Int64Type>,
    ends: Values<'a, Int64Type>,
    gpus: Values<'a, Float64Type>,
    utils: Values<'a, Float64Type>,
    name_bits: Values<'a, UInt64Type>,
    queue_bits: Values<'a, UInt64Type>,
}

/// The runs by job, read through the view; open runs count up to `observation_end_ms`.
struct JobWalk<'a> {
    view: RunView<'a>,
    jobs: JobRuns,
    observation_end_ms: i64,
}

impl JobWalk<'_> {
    /// Walks the jobs of `spans`, calling `visit` with each job's facts and its rows.
    fn each_job(&self, spans: &[JobSpan], mut visit: impl FnMut(&JobFacts, &[u32])) {
        let (view, observation_end_ms) = (&self.view, self.observation_end_ms);
        for span in spans {
            let rows = self.jobs.rows_of(span);
            let mut job = JobFacts::new();
            for &row in rows {
                let row = row as usize;
                let start = view.starts.get(row).unwrap_or(observation_end_ms);
                let finish = view.ends.get(row).unwrap_or(observation_end_ms).max(start);
                let hours = (finish - start) as f64 / MS_PER_HOUR;
                let gpus = view.gpus.get(row).unwrap_or(0.0);
                job.run_hours += hours;
                job.gpus = job.gpus.max(gpus);
                if let Some(util) = view.utils.get(row) {
                    job.util_gpu_hours += util * gpus * hours;
                    job.util_weight += gpus * hours;
                }
                job.name_matches |= view.name_bits.get(row).unwrap_or(0);
                job.queue_matches |= view.queue_bits.get(row).unwrap_or(0);
                match view.labels.get(row) {
                    Some(code) if code >= UNKNOWN_LABEL_BASE => job.unknown_label = job.unknown_label.max(Some(code)),
                    known => job.label = job.label.max(known),
                }
                job.stem = match (job.stem, view.stems.get(row)) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                job.first_ms = job.first_ms.min(start);
                job.last_ms = job.last_ms.max(finish);
            }
            visit(&job, rows);
        }
    }
}

/// The first pass: every stem's jobs, run hours and time span.
fn stem_stats(walk: &JobWalk, spans: &[JobSpan]) -> StemMap {
    let mut stems = StemMap::default();
    walk.each_job(spans, |job, _| {
        if let Some(stem) = job.stem {
            stems
                .entry(stem)
                .or_insert(StemStats {
                    jobs: 0.0,
                    run_hours: 0.0,
                    first_ms: i64::MAX,
                    last_ms: i64::MIN,
                })
                .merge(&StemStats {
                    jobs: 1.0,
                    run_hours: job.run_hours,
                    first_ms: job.first_ms,
                    last_ms: job.last_ms,
                });
        }
    });
    stems
}

/// The second pass over a range of jobs numbered from `first_job`: each job's class and rule,
/// and each of its runs pointed at it.
fn classify_range(
    walk: &JobWalk,
    spans: &[JobSpan],
    first_job: u32,
    stems: &StemMap,
    rules: &ClassificationRules,
    job_of_run: &[AtomicU32],
) -> JobClasses {
    let mut classes = JobClasses {
        job_of_run: Vec::new(),
        class: Vec::new(),
        rule: Vec::new(),
        rule_class: Vec::new(),
        label_class: Vec::new(),
        unknown_label: HashMap::new(),
    };
    walk.each_job(spans, |job, rows| {
        let index = first_job + classes.class.len() as u32;
        for &row in rows {
            job_of_run[row as usize].store(index, Ordering::Relaxed);
        }
        let decision = decide(job, stems, rules);
        classes.class.push(decision.class);
        classes.rule.push(decision.rule);
        classes.rule_class.push(decision.rule_class);
        classes.label_class.push(decision.label_class);
        // A job whose runs also carry a known label was decided by it, not by the rules.
        if let (Some(code), None) = (job.unknown_label, decision.label_class) {
            classes.unknown_label.insert(index, code);
        }
    });
    classes
}

/// One job's class, the rule that decided it, the rules' class and its label's class.
struct Decision {
    class: WorkloadClass,
    rule: u32,
    rule_class: Option<WorkloadClass>,
    label_class: Option<WorkloadClass>,
}

/// The label wins; else the first rule that holds; else training.
fn decide(job: &JobFacts, stems: &StemMap, rules: &ClassificationRules) -> Decision {
    let matched = rules
        .rules
        .iter()
        .enumerate()
        .find(|(i, rule)| rule_holds(*i, rule, job, stems));
    let rule_class = matched.map(|(_, rule)| rule.class);
    let label_class = job.label.and_then(class_of_code);
    Decision {
        class: label_class.or(rule_class).unwrap_or(WorkloadClass::Training),
        rule: match (label_class, matched) {
            (Some(_), _) => label_rule_index(rules),
            (None, Some((i, _))) => i as u32,
            (None, None) => no_rule_index(rules),
        },
        rule_class,
        label_class,
    }
}

/// The started jobs' name stems (jobs, run hours, time span), for classifying jobs that
/// never started by the same rules.
pub struct Stems(StemMap);

/// Classifies jobs that never started (one per row of a frame with the classification
/// features, `GPUS`, `TIME_LIMIT_HOURS` and `SUBMIT`) by the rules the started jobs went
/// through: a label wins; names, queues and GPUs count as for a run; the time limit stands for
/// the run hours, and without one no rule on run hours applies; the repeats and overlap of a
/// stem are those of the started jobs.
pub fn classify_pending(
    pending: &DataFrame,
    rules: &ClassificationRules,
    stems: &Stems,
) -> Result<Vec<WorkloadClass>, DataError> {
    let one = |name: &str| -> Result<Series, DataError> {
        Ok(pending.column(name).map_err(err)?.as_materialized_series().rechunk())
    };
    let (stem_keys, labels, name_bits, queue_bits) =
        (one(STEM_KEY)?, one(LABEL_CODE)?, one(NAME_BITS)?, one(QUEUE_BITS)?);
    let (gpus, limits) = (one(c::GPUS)?, one(c::TIME_LIMIT_HOURS)?);
    let submits = c::int64_column(pending, c::SUBMIT)?;
    let (stem_keys, labels, name_bits, queue_bits, gpus, limits) = (
        stem_keys.u64().map_err(err)?,
        labels.u32().map_err(err)?,
        name_bits.u64().map_err(err)?,
        queue_bits.u64().map_err(err)?,
        gpus.f64().map_err(err)?,
        limits.f64().map_err(err)?,
    );
    Ok((0..pending.height())
        .map(|row| {
            let at = submits.get(row).unwrap_or(0);
            let limit = limits.get(row);
            let job = JobFacts {
                run_hours: limit.unwrap_or(0.0),
                hours_known: limit.is_some(),
                gpus: gpus.get(row).unwrap_or(0.0),
                name_matches: name_bits.get(row).unwrap_or(0),
                queue_matches: queue_bits.get(row).unwrap_or(0),
                // An unknown label's code names no class (`class_of_code`): the rules decide.
                label: labels.get(row),
                stem: stem_keys.get(row),
                first_ms: at,
                last_ms: at,
                ..JobFacts::new()
            };
            decide(&job, &stems.0, rules).class
        })
        .collect())
}

/// Classifies the jobs of runs that carry `with_run_features`'s columns; jobs are numbered in
/// the order they first appear. Runs still open (no end) count up to `observation_end_ms`. Two
/// passes over the runs grouped by job: the first gathers the stems' statistics, the second
/// applies the rules, so no job's facts are kept.
pub fn classify_jobs(
    runs: &DataFrame,
    rules: &ClassificationRules,
    observation_end_ms: i64,
) -> Result<JobClasses, DataError> {
    classify_jobs_with_stems(runs, rules, observation_end_ms).map(|(classes, _)| classes)
}

/// As `classify_jobs`, with the stems' statistics, for `classify_pending`.
pub fn classify_jobs_with_stems(
    runs: &DataFrame,
    rules: &ClassificationRules,
    observation_end_ms: i64,
) -> Result<(JobClasses, Stems), DataError> {
    if rules.rules.len() > MAX_RULES {
        return Err(DataError::TooManyRules {
            rules: rules.rules.len(),
            max: MAX_RULES,
        });
    }
    // One chunk per column: the passes read rows in job order, straight from the values.
    let columns = RunColumns::of(runs)?;
    let keys = Values::of(&columns.keys)?;
    let walk = JobWalk {
        view: columns.view()?,
        jobs: JobRuns::of(runs.height(), |row| keys.get(row).unwrap_or(0)),
        observation_end_ms,
    };

    // Both passes are bound by memory latency: each half of the jobs goes to a thread.
    let (left, right) = walk.jobs.spans.split_at(walk.jobs.spans.len() / 2);
    let stems = std::thread::scope(|scope| {
        let right_stems = scope.spawn(|| stem_stats(&walk, right));
        let mut stems = stem_stats(&walk, left);
        for (stem, other) in right_stems.join().map_err(|_| DataError::ThreadFailed {
            thread: "classification thread",
        })? {
            stems.entry(stem).and_modify(|s| s.merge(&other)).or_insert(other);
        }
        Ok::<_, DataError>(stems)
    })?;

    let job_of_run: Vec<AtomicU32> = (0..runs.height()).map(|_| AtomicU32::new(0)).collect();
    let left_jobs = left.len() as u32;
    let (mut classes, right_classes) = std::thread::scope(|scope| {
        let right_classes = scope.spawn(|| classify_range(&walk, right, left_jobs, &stems, rules, &job_of_run));
        let left_classes = classify_range(&walk, left, 0, &stems, rules, &job_of_run);
        right_classes
            .join()
            .map(|right| (left_classes, right))
            .map_err(|_| DataError::ThreadFailed {
                thread: "classification thread",
            })
    })?;
    classes.class.extend(right_classes.class);
    classes.rule.extend(right_classes.rule);
    classes.rule_class.extend(right_classes.rule_class);
    classes.label_class.extend(right_classes.label_class);
    classes.unknown_label.extend(right_classes.unknown_label);
    classes.job_of_run = job_of_run.into_iter().map(AtomicU32::into_inner).collect();
    Ok((classes, Stems(stems)))
}
