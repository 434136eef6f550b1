//! The audit's one pass over the runs (docs/economics.md, "The audit"): each run clipped to the
//! observation window, summed per cluster and class, and laid on its cluster's occupancy (minute
//! by minute, or in the coarser steps of a long window's `Resolution`); and each job's cluster
//! and GPU-hours, to rank the largest.
//!
//! Large logs are cut in two halves of rows, one per thread; the halves' totals merge by
//! cluster name in a fixed order, so the same log always gives the same sums.

use std::collections::HashMap;

use polars::prelude::*;

use super::classify::JobClasses;
use super::classify::features::{GPU_TYPE_CODE, gpu_type_code_expr};
use super::classify::vocabulary::GPU_TYPES;
use crate::data::canonical::{self as c, MS_PER_HOUR};
use crate::data::error::DataError;
use crate::model::fleet::Window;
use crate::model::resolution::Resolution;
pub use types::{MAX_TYPES_PER_CLUSTER, OTHER_TYPES, TypeTotals};

/// Below this many runs one thread does it all.
const PARALLEL_MIN_RUNS: usize = 1 << 16;

/// Marks a cluster index of the second half's own numbering in `job_cluster`.
const SECOND_HALF: u32 = 1 << 31;

/// The occupancy of one cluster, step by step of the window's resolution, built from
/// difference arrays: a run adds its GPUs to every step it touches, in proportion to the share
/// of the step it covers. A step's seven changes (busy GPUs per class, utilized GPUs, each
/// class's floor of one whole GPU per running job) sit together, so a run touches one or two
/// cache lines rather than fourteen.
pub struct Occupancy {
    changes: Vec<[f64; CHANNELS]>,
}

/// Busy GPUs of the three classes, utilized GPUs, the three classes' whole-GPU floors.
pub const CHANNELS: usize = 7;
pub const UTILIZED: usize = 3;
pub const FLOOR: usize = 4;

/// GPUs below which a step's level is rounding left by runs that ended, not a run.
pub(super) const RESIDUE_GPUS: f64 = 1e-6;

/// One run's part of the window, relative to the window's start.
struct RunSpan {
    from_ms: i64,
    to_ms: i64,
    class: usize,
    gpus: f64,
    /// GPUs busy times their utilization (the GPUs when the log gives none).
    utilized_gpus: f64,
    /// The whole GPUs the run needs at least, on any accelerator: one, or its share of one for
    /// a run on part of a GPU (a MIG slice, a shared GPU).
    gpu_floor: f64,
}

/// Milliseconds of step `step` inside a window of `window_ms` cut into `steps` steps of
/// `step_ms`: every step whole but the last, which ends with the window (at least 1 ms, so a
/// window of one instant divides by something).
pub fn step_length_ms(step: usize, steps: usize, step_ms: i64, window_ms: i64) -> i64 {
    if step + 1 < steps {
        step_ms
    } else {
        (window_ms - step as i64 * step_ms).clamp(1, step_ms)
    }
}

/// The steps a run over the window's milliseconds `from_ms..to_ms` covers, as up to three
/// ranges `first..end` with the share of each step the run holds: its first step's share, the
/// whole steps after it, its last step's share. The window's last step may be cut short by the
/// window's end (`window_ms`); its share is of what is left of it, so a window shorter than one
/// step is measured exactly and no step holds more GPUs than ran at once.
fn span_parts(
    from_ms: i64,
    to_ms: i64,
    steps: usize,
    resolution: Resolution,
    window_ms: i64,
) -> [Option<(usize, usize, f64)>; 3] {
    let step_ms = resolution.step_ms();
    let first = ((from_ms / step_ms) as usize).min(steps);
    let end = (((to_ms + step_ms - 1) / step_ms) as usize).min(steps);
    if first >= steps || to_ms <= from_ms {
        return [None; 3];
    }
    let length_of = |step: usize| step_length_ms(step, steps, step_ms, window_ms) as f64;
    let share = |step: usize, from: i64, to: i64| ((to - from).max(0) as f64 / length_of(step)).min(1.0);
    if end <= first + 1 {
        return [Some((first, first + 1, share(first, from_ms, to_ms))), None, None];
    }
    let first_step_end = (first as i64 + 1) * step_ms;
    let last_step_start = (end as i64 - 1) * step_ms;
    let head = share(first, from_ms, first_step_end);
    let tail = share(end - 1, last_step_start, to_ms);
    [
        Some((first, first + 1, head)),
        (end - 1 > first + 1).then_some((first + 1, end - 1, 1.0)),
        Some((end - 1, end, tail)),
    ]
}

/// Mean GPUs in each step of the window.
pub struct StepSeries {
    /// Busy GPUs of each class (`WorkloadClass as usize`).
    pub busy_by_class: [Vec<f64>; 3],
    /// GPUs busy times their utilization (busy when the log has none).
    pub utilized: Vec<f64>,
    /// Each class's running jobs, one whole GPU each (a share for a job on part of one).
    pub floor_by_class: [Vec<f64>; 3],
}

impl Occupancy {
    fn new(steps: usize) -> Occupancy {
        Occupancy {
            changes: vec![[0.0; CHANNELS]; steps + 1],
        }
    }

    /// Adds a run covering the window's milliseconds `from_ms..to_ms` (relative to its start).
    /// Each step holds the mean GPUs over its length inside the window (`span_parts`).
    fn add_span(&mut self, span: RunSpan, resolution: Resolution, window_ms: i64) {
        let RunSpan {
            from_ms,
            to_ms,
            class,
            gpus,
            utilized_gpus,
            gpu_floor,
        } = span;
        let steps = self.changes.len() - 1;
        for (first, end, part) in span_parts(from_ms, to_ms, steps, resolution, window_ms)
            .into_iter()
            .flatten()
        {
            self.add(first, end, class, [gpus * part, utilized_gpus * part, gpu_floor * part]);
        }
    }

    /// Adds `[busy, utilized, floor]` GPUs of `class` over the steps `first_step..end_step`.
    fn add(&mut self, first_step: usize, end_step: usize, class: usize, [gpus, utilized_gpus, floor]: [f64; 3]) {
        let first = &mut self.changes[first_step];
        first[class] += gpus;
        first[UTILIZED] += utilized_gpus;
        first[FLOOR + class] += floor;
        let end = &mut self.changes[end_step];
        end[class] -= gpus;
        end[UTILIZED] -= utilized_gpus;
        end[FLOOR + class] -= floor;
    }

    /// Adds changes summed elsewhere (a warehouse's) at `step`, in `CHANNELS` order: busy GPUs
    /// of the three classes, utilized GPUs, the three classes' floors. A step past the window's
    /// end is refused.
    pub fn add_changes(&mut self, step: usize, changes: [f64; CHANNELS]) -> bool {
        let Some(slot) = self.changes.get_mut(step) else {
            return false;
        };
        for (total, change) in slot.iter_mut().zip(changes) {
            *total += change;
        }
        true
    }

    fn merge(&mut self, other: &Occupancy) {
        for (mine, theirs) in self.changes.iter_mut().zip(&other.changes) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
    }

    /// Sums the changes into GPUs per step.
    pub fn integrate(self) -> StepSeries {
        let steps = self.changes.len() - 1;
        let mut series: [Vec<f64>; CHANNELS] = std::array::from_fn(|_| Vec::with_capacity(steps));
        let mut level = [0.0; CHANNELS];
        for change in &self.changes[..steps] {
            for k in 0..CHANNELS {
                level[k] += change[k];
                // Shares of steps leave rounding dust where runs end: a level within a
                // millionth of a GPU of nothing is nothing (so a step is never "training" on dust).
                if level[k] < RESIDUE_GPUS {
                    level[k] = 0.0;
                }
                // Rounded to a billionth of a GPU: the series carries no float noise into reports.
                series[k].push((level[k] * 1e9).round() / 1e9);
            }
        }
        let [
            training,
            inference,
            burst,
            utilized,
            training_floor,
            inference_floor,
            burst_floor,
        ] = series;
        StepSeries {
            busy_by_class: [training, inference, burst],
            utilized,
            floor_by_class: [training_floor, inference_floor, burst_floor],
        }
    }
}

/// One cluster's sums, per class (`WorkloadClass as usize`).
pub struct ClusterAccumulator {
    pub name: String,
    pub occupancy: Occupancy,
    pub gpu_hours: [f64; 3],
    pub util_gpu_hours: [f64; 3],
    pub util_weight: [f64; 3],
    pub jobs: [u64; 3],
    /// The most GPUs one run held, per class: the largest gang the class must run.
    pub largest_run_gpus: [f64; 3],
    pub runs: u64,
    /// The runs of each GPU type the rows name (`vocabulary::GPU_TYPES`), for logs naming types.
    pub types: Vec<TypeTotals>,
}

impl ClusterAccumulator {
    pub fn new(name: &str, steps: usize) -> ClusterAccumulator {
        ClusterAccumulator {
            name: name.to_string(),
            occupancy: Occupancy::new(steps),
            gpu_hours: [0.0; 3],
            util_gpu_hours: [0.0; 3],
            util_weight: [0.0; 3],
            jobs: [0; 3],
            largest_run_gpus: [0.0; 3],
            runs: 0,
            types: Vec::new(),
        }
    }

    fn merge(&mut self, other: &ClusterAccumulator) {
        self.occupancy.merge(&other.occupancy);
        for k in 0..3 {
            self.gpu_hours[k] += other.gpu_hours[k];
            self.util_gpu_hours[k] += other.util_gpu_hours[k];
            self.util_weight[k] += other.util_weight[k];
            self.jobs[k] += other.jobs[k];
            self.largest_run_gpus[k] = self.largest_run_gpus[k].max(other.largest_run_gpus[k]);
        }
        self.runs += other.runs;
        for theirs in &other.types {
            self.type_totals(theirs.code).merge(theirs);
        }
    }

    /// The runs of one GPU type (a cluster has a handful: a linear search). Past
    /// `MAX_TYPES_PER_CLUSTER` types on one cluster the rest share one entry, named as such, so a
    /// log naming thousands of types holds a bounded number of step arrays.
    pub fn type_totals(&mut self, code: u32) -> &mut TypeTotals {
        let code = if self.types.len() >= MAX_TYPES_PER_CLUSTER && !self.types.iter().any(|t| t.code == code) {
            GPU_TYPES.intern(OTHER_TYPES)
        } else {
            code
        };
        let index = match self.types.iter().position(|t| t.code == code) {
            Some(index) => index,
            None => {
                let steps = self.occupancy.changes.len() - 1;
                self.types.push(TypeTotals::new(code, steps));
                self.types.len() - 1
            }
        };
        &mut self.types[index]
    }

    /// The GPU type holding most of the cluster's GPU-hours, by its number.
    pub fn main_gpu_type(&self) -> Option<u32> {
        self.types
            .iter()
            .max_by(|a, b| a.gpu_hours.total_cmp(&b.gpu_hours).then(b.code.cmp(&a.code)))
            .map(|t| t.code)
    }
}

/// What the runs in the window add up to.
pub struct RunTotals {
    /// Every cluster with a run in the window, in the order first seen.
    pub clusters: Vec<ClusterAccumulator>,
    /// GPU-hours by the index of the rule that classed the run's job.
    pub rule_gpu_hours: Vec<f64>,
    /// GPU-hours by the code of the job's label `[labels]` does not know.
    pub unknown_label_gpu_hours: HashMap<u32, f64>,
    /// For each job: its cluster's index in `clusters` + 1, or 0 when no run touches the window.
    pub job_cluster: Vec<u32>,
    /// For each job: its GPU-hours in the window, to rank jobs (a job's runs in the first half
    /// of the rows summed in order, then those in the second: the same log, the same sums).
    pub job_window_gpu_hours: Vec<f64>,
}

/// The run columns the pass reads, over one range of rows.
struct RunSlice {
    first_row: usize,
    cluster: StringChunked,
    start: Int64Chunked,
    end: Int64Chunked,
    gpus: Float64Chunked,
    util: Float64Chunked,
    /// The GPU type's number, when the runs carry one.
    gpu_type: Option<UInt32Chunked>,
}

/// What every thread reads.
struct Shared<'a> {
    jobs: &'a JobClasses,
    window: &'a Window,
    steps: usize,
    rule_count: usize,
}

/// One thread's per-job cells: its own from job `first_job` on, and notes for earlier jobs
/// (another thread's), applied after both finish.
struct JobCells<'a> {
    first_job: usize,
    cluster: &'a mut [u32],
    gpu_hours: &'a mut [f64],
    earlier: HashMap<u32, (u32, f64)>,
}

impl JobCells<'_> {
    fn record(&mut self, job: usize, cluster: u32, gpu_hours: f64) {
        if job >= self.first_job {
            let own = job - self.first_job;
            self.cluster[own] = cluster;
            self.gpu_hours[own] += gpu_hours;
        } else {
            self.earlier.entry(job as u32).or_insert((cluster, 0.0)).1 += gpu_hours;
        }
    }
}

/// One range's sums, clusters numbered in the order the range first saw them.
struct Partial {
    clusters: Vec<ClusterAccumulator>,
    rule_gpu_hours: Vec<f64>,
    unknown_label_gpu_hours: HashMap<u32, f64>,
    earlier_jobs: HashMap<u32, (u32, f64)>,
}

/// Sums the runs of `runs` (canonical columns; jobs and classes from `classify_jobs`) that
/// touch the window; `rule_count` is the number of rule indices (`no_rule_index + 1`).
pub fn run_totals(
    runs: &DataFrame,
    jobs: &JobClasses,
    rule_count: usize,
    window: &Window,
) -> Result<RunTotals, DataError> {
    let err = DataError::Frame;
    let height = runs.height();
    let gpu_types = gpu_type_codes(runs)?;
    let slice = |first_row: usize, len: usize| -> Result<RunSlice, DataError> {
        let column = |name: &str| runs.column(name).map_err(err).map(|c| c.slice(first_row as i64, len));
        Ok(RunSlice {
            first_row,
            cluster: column(c::CLUSTER)?.str().map_err(err)?.clone(),
            start: c::int64_column(runs, c::START)?.slice(first_row as i64, len),
            end: c::int64_column(runs, c::END)?.slice(first_row as i64, len),
            gpus: column(c::GPUS)?.f64().map_err(err)?.clone(),
            util: column(c::GPU_UTIL_FRAC)?.f64().map_err(err)?.clone(),
            gpu_type: gpu_types.as_ref().map(|codes| codes.slice(first_row as i64, len)),
        })
    };
    let job_count = jobs.class.len();
    let mut job_cluster = vec![0u32; job_count];
    let mut job_window_gpu_hours = vec![0.0f64; job_count];
    let shared = Shared {
        jobs,
        window,
        steps: window_steps(window),
        rule_count,
    };
    let cells = |first_job: usize, cluster, gpu_hours| JobCells {
        first_job,
        cluster,
        gpu_hours,
        earlier: HashMap::new(),
    };
    let (mut totals, second) = if height < PARALLEL_MIN_RUNS {
        let mut all = cells(0, &mut job_cluster, &mut job_window_gpu_hours);
        (accumulate(&slice(0, height)?, 0, &shared, &mut all), None)
    } else {
        let middle = height / 2;
        let (first, second) = (slice(0, middle)?, slice(middle, height - middle)?);
        // Every job of the first half's runs is numbered below `split`; the second half owns
        // the jobs from there on and notes its runs of earlier jobs.
        let split = jobs.job_of_run[..middle]
            .iter()
            .max()
            .map_or(0, |&job| job as usize + 1);
        let (first_clusters, second_clusters) = job_cluster.split_at_mut(split);
        let (first_hours, second_hours) = job_window_gpu_hours.split_at_mut(split);
        let (mut first_cells, mut second_cells) = (
            cells(0, first_clusters, first_hours),
            cells(split, second_clusters, second_hours),
        );
        std::thread::scope(|scope| {
            let second = scope.spawn(|| accumulate(&second, SECOND_HALF, &shared, &mut second_cells));
            let first = accumulate(&first, 0, &shared, &mut first_cells);
            second
                .join()
                .map(|second| (first, Some(second)))
                .map_err(|_| DataError::ThreadFailed {
                    thread: "audit's second thread",
                })
        })?
    };
    // The second half's clusters, numbered as the first half's (new ones appended).
    let mut renumbered = Vec::new();
    if let Some(second) = second {
        for (&job, &(cluster, gpu_hours)) in &second.earlier_jobs {
            let job = job as usize;
            if job_cluster[job] == 0 {
                job_cluster[job] = cluster;
            }
            job_window_gpu_hours[job] += gpu_hours;
        }
        for (total, other) in totals.rule_gpu_hours.iter_mut().zip(&second.rule_gpu_hours) {
            *total += other;
        }
        for (code, hours) in second.unknown_label_gpu_hours {
            *totals.unknown_label_gpu_hours.entry(code).or_default() += hours;
        }
        for cluster in second.clusters {
            match totals.clusters.iter().position(|mine| mine.name == cluster.name) {
                Some(index) => {
                    totals.clusters[index].merge(&cluster);
                    renumbered.push(index as u32);
                }
                None => {
                    renumbered.push(totals.clusters.len() as u32);
                    totals.clusters.push(cluster);
                }
            }
        }
    }
    for cluster in &mut job_cluster {
        if *cluster & SECOND_HALF != 0 {
            *cluster = renumbered[((*cluster & !SECOND_HALF) - 1) as usize] + 1;
        }
    }
    Ok(RunTotals {
        clusters: totals.clusters,
        rule_gpu_hours: totals.rule_gpu_hours,
        unknown_label_gpu_hours: totals.unknown_label_gpu_hours,
        job_cluster,
        job_window_gpu_hours,
    })
}

/// The runs' GPU types by number: an audit's `GPU_TYPE_CODE`, or the full frame's `GPU_TYPE`
/// numbered here; None when the runs name none.
fn gpu_type_codes(runs: &DataFrame) -> Result<Option<UInt32Chunked>, DataError> {
    if let Ok(codes) = runs.column(GPU_TYPE_CODE) {
        return Ok(Some(codes.u32().map_err(DataError::Frame)?.rechunk().into_owned()));
    }
    match runs.column(c::GPU_TYPE) {
        Ok(types) if types.null_count() < types.len() => {
            let codes = runs
                .clone()
                .lazy()
                .select([gpu_type_code_expr()])
                .collect()
                .map_err(DataError::Frame)?;
            Ok(Some(
                codes
                    .column(GPU_TYPE_CODE)
                    .map_err(DataError::Frame)?
                    .u32()
                    .map_err(DataError::Frame)?
                    .rechunk()
                    .into_owned(),
            ))
        }
        _ => Ok(None),
    }
}

/// The window's occupancy steps (a partial last step counts), at least one.
pub fn window_steps(window: &Window) -> usize {
    window.resolution.steps(window.end_ms - window.start_ms)
}

/// Sums one range of runs; `tag` marks the cluster indices it writes into `job_cluster`.
fn accumulate(runs: &RunSlice, tag: u32, shared: &Shared, job_cells: &mut JobCells) -> Partial {
    let (window, steps, jobs) = (shared.window, shared.steps, shared.jobs);
    let mut partial = Partial {
        clusters: Vec::new(),
        rule_gpu_hours: vec![0.0; shared.rule_count],
        unknown_label_gpu_hours: HashMap::new(),
        earlier_jobs: HashMap::new(),
    };
    let mut cluster_index: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
    let rows = runs
        .cluster
        .iter()
        .zip(runs.start.iter())
        .zip(runs.end.iter())
        .zip(runs.gpus.iter())
        .zip(runs.util.iter());
    for (offset, ((((cluster, start), end), gpus), util)) in rows.enumerate() {
        let (Some(cluster), Some(start)) = (cluster, start) else {
            continue;
        };
        let end = end.unwrap_or(window.end_ms);
        // Runs that touch the window, edges included: a job started at the log's last instant counts.
        if start > window.end_ms || end < window.start_ms {
            continue;
        }
        let (s, e) = (
            start.clamp(window.start_ms, window.end_ms),
            end.clamp(window.start_ms, window.end_ms),
        );
        let index = *cluster_index.entry(cluster).or_insert_with(|| {
            partial.clusters.push(ClusterAccumulator::new(cluster, steps));
            partial.clusters.len() - 1
        });
        let job = jobs.job_of_run[runs.first_row + offset] as usize;
        let class = jobs.class[job] as usize;
        let gpus = gpus.unwrap_or(0.0);
        let gpu_hours = gpus * (e - s) as f64 / MS_PER_HOUR;
        let acc = &mut partial.clusters[index];
        acc.runs += 1;
        if let Some(code) = runs.gpu_type.as_ref().and_then(|codes| codes.get(offset)) {
            let (from_ms, to_ms) = (s - window.start_ms, e - window.start_ms);
            let spans = span_parts(
                from_ms,
                to_ms,
                steps,
                window.resolution,
                window.end_ms - window.start_ms,
            );
            let of_type = acc.type_totals(code);
            of_type.gpu_hours += gpu_hours;
            if gpus.is_finite() {
                of_type.largest_run_gpus = of_type.largest_run_gpus.max(gpus);
            }
            for (first, end, part) in spans.into_iter().flatten() {
                of_type.add_busy(first, end, gpus * part);
            }
        }
        acc.gpu_hours[class] += gpu_hours;
        if gpus.is_finite() {
            acc.largest_run_gpus[class] = acc.largest_run_gpus[class].max(gpus);
        }
        if let Some(util) = util {
            acc.util_gpu_hours[class] += util * gpu_hours;
            acc.util_weight[class] += gpu_hours;
        }
        acc.occupancy.add_span(
            RunSpan {
                from_ms: s - window.start_ms,
                to_ms: e - window.start_ms,
                class,
                gpus,
                utilized_gpus: gpus * util.unwrap_or(1.0),
                gpu_floor: gpus.clamp(0.0, 1.0),
            },
            window.resolution,
            window.end_ms - window.start_ms,
        );
        job_cells.record(job, (index as u32 + 1) | tag, gpu_hours);
        partial.rule_gpu_hours[jobs.rule[job] as usize] += gpu_hours;
        // Most logs have no unknown label: no lookup per run for them.
        if !jobs.unknown_label.is_empty()
            && let Some(&code) = jobs.unknown_label.get(&(job as u32))
        {
            *partial.unknown_label_gpu_hours.entry(code).or_default() += gpu_hours;
        }
    }
    partial.earlier_jobs = std::mem::take(&mut job_cells.earlier);
    partial
}

mod types;

#[cfg(test)]
mod tests;
