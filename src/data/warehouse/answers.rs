//! The warehouse's answers read back: the span of the runs, and the totals' long table turned
//! into the `AuditTotals` the in-process audit also ends in. Arrow columns are read by name
//! (`answer_rows`), whatever integer, decimal or float type the engine chose for them.

use std::collections::BTreeMap;

use arrow_array::RecordBatch;

use super::answer_rows::Rows;
use super::error::WarehouseError;
use super::sql::parts;
use crate::data::audit::AuditTotals;
use crate::data::audit::classify::vocabulary::GPU_TYPES;
use crate::data::audit::classify::{no_rule_index, rule_name};
use crate::data::audit::replay_jobs::{FleetJobs, JobSums, in_submit_order, replay_job};
use crate::data::audit::run_totals::{CHANNELS, ClusterAccumulator, FLOOR, UTILIZED};
use crate::data::audit::top_jobs::largest_per_group;
use crate::data::readers::reject::{Quarantine, RejectReason, RejectedRow, SAMPLES_PER_REASON};
use crate::model::fleet::{JobLine, PendingDemand, UnknownLabel, Window, merge_unknown_labels};
use crate::model::replay::ReplayJob;
use crate::model::workload::{ClassificationRules, WorkloadClass};
use crate::shared::format::thousands;

/// The doubles' columns of the totals, by index.
const X_COLUMNS: [&str; 7] = ["x0", "x1", "x2", "x3", "x4", "x5", "x6"];

/// What the span query found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub min_start_ms: Option<i64>,
    pub max_end_ms: Option<i64>,
    pub max_start_ms: Option<i64>,
    pub runs: u64,
}

pub fn span(batches: &[RecordBatch]) -> Result<Span, WarehouseError> {
    if let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) {
        let rows = Rows::new("span", batch);
        return Ok(Span {
            min_start_ms: rows.i64("min_start_ms", 0)?,
            max_end_ms: rows.i64("max_end_ms", 0)?,
            max_start_ms: rows.i64("max_start_ms", 0)?,
            runs: rows.i64("runs", 0)?.unwrap_or(0).max(0) as u64,
        });
    }
    Ok(Span {
        min_start_ms: None,
        max_end_ms: None,
        max_start_ms: None,
        runs: 0,
    })
}

/// The rows set aside by reason, from `AuditSql::set_aside_query`, as the refusal of a source
/// with no run says them: `: every row was set aside (time outside 2000..now+1d: 2)`, and for
/// times before 2000 what they likely are. Empty when none was.
pub fn set_aside_text(batches: &[RecordBatch]) -> Result<String, WarehouseError> {
    let mut counts = Vec::new();
    for batch in batches {
        let rows = Rows::new("set aside", batch);
        for row in 0..batch.num_rows() {
            if let (Some(reason), Some(n)) = (rows.i64("reason", row)?.and_then(reason_of), rows.i64("n", row)?) {
                counts.push((reason, n.max(0) as u64));
            }
        }
    }
    if counts.is_empty() {
        return Ok(String::new());
    }
    counts.sort_by_key(|&(reason, n)| (std::cmp::Reverse(n), reason as u32));
    let listed: Vec<String> = (counts.iter())
        .map(|(reason, n)| format!("{}: {}", reason.label(), thousands(*n as f64)))
        .collect();
    let mut text = format!(": every row was set aside ({})", listed.join(", "));
    if counts.iter().any(|(reason, _)| *reason == RejectReason::TimeOutOfRange) {
        text.push_str(
            "; times before 2000 are most often seconds from a trace's start, not dates: give the trace's start with --time-origin DATE (or as [units] time_origin with time = \"offset-s\" in a mapping)",
        );
    }
    Ok(text)
}

/// The largest value of each probed column (`max_util`, `epoch_<column>`).
pub fn probe(batches: &[RecordBatch]) -> Result<Vec<(String, Option<f64>)>, WarehouseError> {
    let mut values = Vec::new();
    if let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) {
        let rows = Rows::new("probe", batch);
        for field in batch.schema().fields() {
            values.push((field.name().clone(), rows.f64(field.name(), 0)?));
        }
    }
    Ok(values)
}

fn class_of(code: Option<i64>) -> WorkloadClass {
    WorkloadClass::ALL
        .into_iter()
        .find(|c| Some(*c as i64) == code)
        .unwrap_or(WorkloadClass::Training)
}

fn reason_of(code: i64) -> Option<RejectReason> {
    u32::try_from(code).ok().and_then(RejectReason::from_code)
}

/// The accumulator of the cluster `name`, made on first sight.
fn cluster_of<'a>(
    clusters: &'a mut Vec<ClusterAccumulator>,
    index_of: &mut BTreeMap<String, usize>,
    name: &str,
    steps: usize,
) -> &'a mut ClusterAccumulator {
    let index = match index_of.get(name) {
        Some(&index) => index,
        None => {
            clusters.push(ClusterAccumulator::new(name, steps));
            index_of.insert(name.to_string(), clusters.len() - 1);
            clusters.len() - 1
        }
    };
    &mut clusters[index]
}

/// What a row set aside held, as written: its job and the values read from it.
fn sample_detail(rows: &Rows, row: usize) -> Result<String, WarehouseError> {
    let shown = |value: Option<String>| value.map_or_else(|| "empty".to_string(), |v| format!("{v:?}"));
    Ok(format!(
        "job {}: start {}, end {}, gpus {}, util {}",
        shown(rows.text("t0", row)?),
        shown(rows.text("t1", row)?),
        shown(rows.text("t2", row)?),
        shown(rows.text("t3", row)?),
        shown(rows.text("t4", row)?),
    ))
}

/// The totals' long table read batch by batch (from one statement, or from every pass of a
/// split audit) into the audit's totals over `window`: counts and sums add up, the largest
/// jobs and the samples set aside are kept to their number.
pub struct TotalsReader<'a> {
    window: Window,
    rules: &'a ClassificationRules,
    origin: String,
    steps: usize,
    rule_count: usize,
    clusters: Vec<ClusterAccumulator>,
    index_of: BTreeMap<String, usize>,
    rule_jobs: Vec<u64>,
    rule_gpu_hours: Vec<f64>,
    label_matrix: [[u64; 3]; 3],
    unknown: Vec<UnknownLabel>,
    top_jobs: Vec<JobLine>,
    pending: BTreeMap<String, PendingDemand>,
    quarantine: Quarantine,
    samples: Vec<RejectedRow>,
}

impl<'a> TotalsReader<'a> {
    /// `origin` names the source in rows set aside.
    pub fn new(window: Window, rules: &'a ClassificationRules, origin: &str) -> TotalsReader<'a> {
        let rule_count = no_rule_index(rules) as usize + 1;
        let steps = window.resolution.steps(window.end_ms - window.start_ms);
        TotalsReader {
            window,
            rules,
            origin: origin.to_string(),
            steps,
            rule_count,
            clusters: Vec::new(),
            index_of: BTreeMap::new(),
            rule_jobs: vec![0; rule_count],
            rule_gpu_hours: vec![0.0; rule_count],
            label_matrix: [[0; 3]; 3],
            unknown: Vec::new(),
            top_jobs: Vec::new(),
            pending: BTreeMap::new(),
            quarantine: Quarantine::default(),
            samples: Vec::new(),
        }
    }

    /// Adds one batch of the long table.
    pub fn add(&mut self, batch: &RecordBatch) -> Result<(), WarehouseError> {
        self.add_rows(batch)?;
        // Hundreds of passes each bring their own dozen a group: kept to the dozen as they
        // come (a job is in one pass only, so the dozen of the dozens is the whole's).
        if self.top_jobs.len() > TOP_JOBS_KEPT_AT_MOST {
            self.top_jobs = largest_per_group(std::mem::take(&mut self.top_jobs));
        }
        Ok(())
    }

    fn add_rows(&mut self, batch: &RecordBatch) -> Result<(), WarehouseError> {
        let rows = Rows::new("totals", batch);
        // Each column found once a batch: the occupancy's parts run to millions of rows.
        let [part, cluster, k1, k2, n1, n2] = ["part", "cluster", "k1", "k2", "n1", "n2"].map(|name| rows.index(name));
        let (part, cluster, k1, k2, n1, n2) = (part?, cluster?, k1?, k2?, n1?, n2?);
        let x_at = X_COLUMNS.map(|name| rows.index(name));
        let mut xs = [0; X_COLUMNS.len()];
        for (slot, found) in xs.iter_mut().zip(x_at) {
            *slot = found?;
        }
        for row in 0..batch.num_rows() {
            let part = rows.str_at(part, row)?.unwrap_or_default();
            let cluster = rows.str_at(cluster, row)?.unwrap_or_default();
            let (k1, k2) = (rows.i64_at(k1, row)?, rows.i64_at(k2, row)?);
            let (n1, n2) = (rows.i64_at(n1, row)?.unwrap_or(0).max(0), rows.i64_at(n2, row)?);
            let x = |k: usize| rows.f64_at(xs[k], row);
            match part {
                parts::CLASS => {
                    let class = class_of(k1) as usize;
                    let (gpu_hours, util_gpu_hours, util_weight, largest) = (x(0)?, x(1)?, x(2)?, x(3)?);
                    let acc = cluster_of(&mut self.clusters, &mut self.index_of, cluster, self.steps);
                    acc.runs += n1 as u64;
                    acc.gpu_hours[class] += gpu_hours.unwrap_or(0.0);
                    acc.util_gpu_hours[class] += util_gpu_hours.unwrap_or(0.0);
                    acc.util_weight[class] += util_weight.unwrap_or(0.0);
                    acc.largest_run_gpus[class] = acc.largest_run_gpus[class].max(largest.unwrap_or(0.0));
                }
                parts::CLASS_JOBS => {
                    cluster_of(&mut self.clusters, &mut self.index_of, cluster, self.steps).jobs
                        [class_of(k1) as usize] += n1 as u64
                }
                parts::GPU_TYPE => {
                    if let Some(gpu_type) = rows.text("t0", row)? {
                        let (hours, largest) = (x(0)?.unwrap_or(0.0), x(1)?.unwrap_or(0.0));
                        let of_type = cluster_of(&mut self.clusters, &mut self.index_of, cluster, self.steps)
                            .type_totals(GPU_TYPES.intern(&gpu_type));
                        of_type.gpu_hours += hours;
                        of_type.largest_run_gpus = of_type.largest_run_gpus.max(largest);
                    }
                }
                parts::RULE => {
                    let rule = k1
                        .and_then(|k| usize::try_from(k).ok())
                        .filter(|&k| k < self.rule_count);
                    if let Some(rule) = rule {
                        self.rule_jobs[rule] += n1 as u64;
                        self.rule_gpu_hours[rule] += x(0)?.unwrap_or(0.0);
                    }
                }
                parts::LABEL => {
                    self.label_matrix[class_of(k1) as usize][class_of(k2) as usize] += n1 as u64;
                }
                parts::UNKNOWN_LABEL => self.unknown.push(UnknownLabel {
                    label: rows.text("t0", row)?.unwrap_or_default(),
                    jobs: n1 as u64,
                    gpu_hours: x(0)?.unwrap_or(0.0).max(0.0),
                }),
                parts::TOP => {
                    let (util_gpu_hours, util_weight) = (x(2)?.unwrap_or(0.0), x(3)?.unwrap_or(0.0));
                    self.top_jobs.push(JobLine {
                        cluster: cluster.to_string(),
                        class: class_of(k1),
                        rule: rule_name(self.rules, k2.unwrap_or(0).clamp(0, u32::MAX as i64) as u32),
                        job_id: rows.text("t0", row)?,
                        name: rows.text("t1", row)?,
                        user: rows.text("t2", row)?,
                        queue: rows.text("t3", row)?,
                        state: rows.text("t4", row)?,
                        runs: u32::try_from(n1).unwrap_or(u32::MAX),
                        max_gpus: x(1)?.unwrap_or(0.0),
                        gpu_hours: x(0)?.unwrap_or(0.0),
                        mean_util_frac: (util_weight > 0.0).then(|| util_gpu_hours / util_weight),
                        first_start_ms: n2.unwrap_or(0),
                        source_line: None,
                    });
                }
                parts::STEP_SUMS => {
                    // k2 0: runs starting at `step` (their first step's shares, then the full
                    // steps from the next); 1: runs ending at `step` (their last step's shares,
                    // the full steps ending before it). The four points a run changes.
                    let step = k1.and_then(|k| usize::try_from(k).ok()).unwrap_or(usize::MAX);
                    // Busy GPUs go to the class's channel, utilized to the one channel, the
                    // floor to the class's floor (`run_totals::CHANNELS`).
                    let class = class_of(Some(n1)) as usize;
                    let channels = [class, UTILIZED, FLOOR + class];
                    let mut edge = [0.0; CHANNELS];
                    let mut middle = [0.0; CHANNELS];
                    for (k, &channel) in channels.iter().enumerate() {
                        edge[channel] = x(k)?.unwrap_or(0.0);
                        middle[channel] = x(k + 3)?.unwrap_or(0.0);
                    }
                    let diff = |a: &[f64; CHANNELS], b: &[f64; CHANNELS]| -> [f64; CHANNELS] {
                        std::array::from_fn(|k| a[k] - b[k])
                    };
                    let points = match k2 {
                        Some(0) => [(Some(step), edge), (step.checked_add(1), diff(&middle, &edge))],
                        _ => [
                            (step.checked_sub(1), diff(&edge, &middle)),
                            (Some(step), edge.map(|v| -v)),
                        ],
                    };
                    let accumulator = cluster_of(&mut self.clusters, &mut self.index_of, cluster, self.steps);
                    let gpu_type = rows.text("t0", row)?.map(|t| GPU_TYPES.intern(&t));
                    for (at, changes) in points {
                        let at = at.unwrap_or(usize::MAX);
                        let typed_ok = gpu_type
                            .is_none_or(|code| accumulator.type_totals(code).add_busy_change(at, changes[class]));
                        if !typed_ok || !accumulator.occupancy.add_changes(at, changes) {
                            return Err(WarehouseError::Answer {
                                part: "totals",
                                column: "k1".to_string(),
                                found: format!("step {at} past the window's {} steps", self.steps),
                            });
                        }
                    }
                }
                parts::PENDING => {
                    let class = self
                        .pending
                        .entry(cluster.to_string())
                        .or_default()
                        .get_mut(class_of(k1));
                    let with_limit = n2.unwrap_or(0).clamp(0, n1) as u64;
                    class.jobs += n1 as u64;
                    class.gpus += x(0)?.unwrap_or(0.0);
                    class.jobs_with_time_limit += with_limit;
                    class.jobs_by_wait += n1 as u64 - with_limit;
                    class.gpu_hours_requested += x(1)?.unwrap_or(0.0) + x(2)?.unwrap_or(0.0);
                    class.refresh_basis();
                }
                parts::REJECT => {
                    if let Some(reason) = k1.and_then(reason_of) {
                        self.quarantine.add_many(reason, n1 as u64, Vec::new());
                    }
                }
                parts::REJECT_SAMPLE => {
                    if let Some(reason) = k1.and_then(reason_of) {
                        self.samples.push(RejectedRow {
                            file: self.origin.clone(),
                            line: 0,
                            reason,
                            detail: sample_detail(&rows, row)?,
                        });
                    }
                }
                _ => {
                    return Err(WarehouseError::Answer {
                        part: "totals",
                        column: "part".to_string(),
                        found: format!("an self.unknown part {part:?}"),
                    });
                }
            }
        }
        Ok(())
    }

    /// The totals: each reason's first samples in job order, each class's largest jobs.
    pub fn finish(mut self) -> AuditTotals {
        let mut samples = std::mem::take(&mut self.samples);
        samples.sort_by(|a, b| (a.reason, &a.detail).cmp(&(b.reason, &b.detail)));
        for sample in samples {
            if self
                .quarantine
                .samples
                .iter()
                .filter(|s| s.reason == sample.reason)
                .count()
                < SAMPLES_PER_REASON
            {
                self.quarantine.samples.push(sample);
            }
        }
        let top_jobs = largest_per_group(std::mem::take(&mut self.top_jobs));
        AuditTotals {
            window: self.window,
            clusters: self.clusters,
            rule_jobs: self.rule_jobs,
            rule_gpu_hours: self.rule_gpu_hours,
            label_matrix: self.label_matrix,
            unknown_labels: merge_unknown_labels(self.unknown),
            top_jobs,
            pending: self.pending,
            quarantine: self.quarantine,
        }
    }
}

/// How many largest jobs the reader holds before it keeps each group's dozen.
const TOP_JOBS_KEPT_AT_MOST: usize = 4096;

/// The totals' long table (every batch of one statement) as the audit's totals over `window`.
pub fn totals(
    batches: &[RecordBatch],
    window: Window,
    rules: &ClassificationRules,
    origin: &str,
) -> Result<AuditTotals, WarehouseError> {
    let mut reader = TotalsReader::new(window, rules, origin);
    for batch in batches {
        reader.add(batch)?;
    }
    Ok(reader.finish())
}

/// The replay query's rows read batch by batch into the replay's jobs, numbered in the order
/// they came (by cluster and job id); jobs of clusters the audit does not list are left out.
/// A replay holds every job: past `max_jobs` the rows are refused, not held.
pub struct ReplayJobsReader<'a> {
    home_of: BTreeMap<&'a str, u32>,
    window: &'a Window,
    max_jobs: u64,
    jobs: Vec<ReplayJob>,
}

impl<'a> ReplayJobsReader<'a> {
    pub fn new(window: &'a Window, clusters: &'a [String], max_jobs: u64) -> ReplayJobsReader<'a> {
        let home_of = clusters
            .iter()
            .enumerate()
            .map(|(i, c)| (c.as_str(), i as u32))
            .collect();
        ReplayJobsReader {
            home_of,
            window,
            max_jobs,
            jobs: Vec::new(),
        }
    }

    pub fn add(&mut self, batch: &RecordBatch) -> Result<(), WarehouseError> {
        let rows = Rows::new("replay jobs", batch);
        for row in 0..batch.num_rows() {
            let cluster = rows.text("cluster", row)?.unwrap_or_default();
            let Some(&home) = self.home_of.get(cluster.as_str()) else {
                continue;
            };
            let (Some(first_start_ms), Some(gpu_ms), Some(max_gpus)) = (
                rows.i64("first_start_ms", row)?,
                rows.f64("gpu_ms", row)?,
                rows.f64("max_gpus", row)?,
            ) else {
                continue;
            };
            let id = self.jobs.len() as u64;
            if id >= self.max_jobs {
                return Err(WarehouseError::TooManyJobsToReplay {
                    jobs: None,
                    max: self.max_jobs,
                });
            }
            self.jobs.push(replay_job(
                id,
                JobSums {
                    first_start_ms,
                    submit_ms: rows.i64("submit_ms", row)?,
                    gpu_ms,
                    max_gpus,
                    class: class_of(rows.i64("class", row)?),
                    home,
                },
                self.window,
            ));
        }
        Ok(())
    }

    pub fn finish(self) -> FleetJobs {
        in_submit_order(self.jobs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::audit::top_jobs::TOP_JOBS_PER_CLASS;

    fn job(cluster: &str, class: WorkloadClass, id: &str, gpu_hours: f64, first_start_ms: i64) -> JobLine {
        JobLine {
            cluster: cluster.to_string(),
            class,
            rule: String::new(),
            job_id: Some(id.to_string()),
            name: None,
            user: None,
            queue: None,
            state: None,
            runs: 1,
            max_gpus: 1.0,
            gpu_hours,
            mean_util_frac: None,
            first_start_ms,
            source_line: None,
        }
    }

    #[test]
    fn the_passes_largest_jobs_are_cut_to_each_class_s_number_as_the_query_ranks_them() {
        // Two passes' twelve each in one class: the largest twelve stay, ties by job id.
        let mut jobs = Vec::new();
        for pass in 0..2 {
            for k in 0..TOP_JOBS_PER_CLASS {
                let hours = (k % 7) as f64;
                let id = format!("j{pass}-{k:02}");
                jobs.push(job("a", WorkloadClass::Training, &id, hours, 100 - k as i64));
            }
        }
        jobs.push(job("b", WorkloadClass::Inference, "alone", 1.0, 0));
        let kept = largest_per_group(jobs);
        let training: Vec<&JobLine> = kept.iter().filter(|j| j.cluster == "a").collect();
        assert_eq!(training.len(), TOP_JOBS_PER_CLASS);
        // A pass's hours: 6 and 5 once, 4 and 3 twice, 2, 1 and 0 below: the two passes' 6, 6,
        // 5, 5, 4 × 4 and 3 × 4 are the twelve.
        assert!(training.iter().all(|j| j.gpu_hours >= 3.0), "{training:?}");
        assert_eq!(training.iter().filter(|j| j.gpu_hours == 3.0).count(), 4);
        assert_eq!(training[0].gpu_hours, 6.0);
        // Equal hours come in the report's order: the earlier first start first.
        assert!(training[0].first_start_ms <= training[1].first_start_ms);
        assert_eq!(kept.iter().filter(|j| j.cluster == "b").count(), 1);
    }

    /// Kept to a dozen a group as the passes come (`TOP_JOBS_KEPT_AT_MOST`), the lists end as
    /// when every pass's are kept to the end: the dozen of the dozens is the whole's.
    #[test]
    fn cutting_the_largest_jobs_as_they_come_keeps_the_same_dozen() {
        let mut passes: Vec<Vec<JobLine>> = Vec::new();
        for pass in 0..40u32 {
            let lines = (0..300u32)
                .map(|k| {
                    let class = [WorkloadClass::Training, WorkloadClass::Burst][(k % 2) as usize];
                    // Hours repeat across passes: ties broken by id.
                    let hours = f64::from((k * 7919 + pass * 104_729) % 97);
                    job(
                        ["a", "b"][(k % 3 == 0) as usize],
                        class,
                        &format!("{pass}-{k}"),
                        hours,
                        0,
                    )
                })
                .collect();
            passes.push(lines);
        }
        let whole = largest_per_group(passes.concat());
        let mut as_they_come: Vec<JobLine> = Vec::new();
        for lines in passes {
            as_they_come.extend(lines);
            as_they_come = largest_per_group(as_they_come);
        }
        let ids = |lines: &[JobLine]| lines.iter().map(|j| j.job_id.clone()).collect::<Vec<_>>();
        assert_eq!(whole.len(), 4 * TOP_JOBS_PER_CLASS);
        assert_eq!(ids(&as_they_come), ids(&whole));
    }

    /// Three jobs: two on cluster a, one on a cluster the audit does not list.
    fn replay_batch() -> RecordBatch {
        use std::sync::Arc;

        use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray};
        let hour_ms = 3_600_000;
        RecordBatch::try_from_iter([
            (
                "cluster",
                Arc::new(StringArray::from(vec!["a", "elsewhere", "a"])) as ArrayRef,
            ),
            (
                "first_start_ms",
                Arc::new(Int64Array::from(vec![0, hour_ms, 2 * hour_ms])),
            ),
            ("submit_ms", Arc::new(Int64Array::from(vec![None, None, Some(hour_ms)]))),
            ("gpu_ms", Arc::new(Float64Array::from(vec![8.0 * hour_ms as f64; 3]))),
            ("max_gpus", Arc::new(Float64Array::from(vec![8.0; 3]))),
            ("class", Arc::new(Int64Array::from(vec![0, 1, 2]))),
        ])
        .expect("a replay batch")
    }

    #[test]
    fn the_replays_jobs_are_read_batch_by_batch_and_refused_past_the_bound() {
        let window = Window::from_ms(0, 24 * 3_600_000);
        let clusters = vec!["a".to_string()];
        let mut reader = ReplayJobsReader::new(&window, &clusters, 2);
        reader.add(&replay_batch()).expect("two of cluster a's jobs fit");
        let jobs = reader.finish().jobs;
        assert_eq!(jobs.len(), 2, "the unlisted cluster's job is left out");
        assert!(jobs.iter().all(|j| j.home == 0));
        // In submit order; a submit inside the window before the first start is the log's.
        let submits: Vec<(i64, bool)> = jobs.iter().map(|j| (j.submit_ms, j.submit_is_start)).collect();
        assert_eq!(submits, [(0, true), (3_600_000, false)]);
        // One more batch's job of cluster a is past the bound of two: refused, not held.
        let mut reader = ReplayJobsReader::new(&window, &clusters, 2);
        reader.add(&replay_batch()).expect("the first batch fits");
        let refused = reader.add(&replay_batch()).expect_err("past the bound");
        assert!(
            refused
                .to_string()
                .contains("more than 2 jobs, past the 2 a warehouse's replay brings back"),
            "{refused}"
        );
    }
}
