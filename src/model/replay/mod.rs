//! Job replay: jobs are replayed through pools of GPUs under gang scheduling (FIFO with optional
//! EASY backfill, inference first, burst preemption, overflow to rented capacity), reporting queue
//! waits, utilization, stranded and overflow GPU-hours and cost. Used to test whether a proposed
//! split of the fleet into training, inference and burst pools carries the load that "today's"
//! clusters carried.
//!
//! Event driven: memory grows with the number of jobs (and those running or waiting), never with
//! the length of the time window. Pure: no I/O, no threads, no printing.

mod engine;
mod erlang;
mod metrics;
mod outcome;
mod queue;
mod report;
mod validate;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_theory;

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::model::workload::WorkloadClass;

pub use erlang::{erlang_c_mean_wait, erlang_c_wait_probability};
pub use outcome::{
    ClassOutcome, JobRun, NeverStarted, PoolOutcome, QueueSeries, ReplayOutcome, TopologyTotals, WaitSummary,
};

/// Buckets in every queue-length series: fixed, so a ten-year window costs what a week does.
pub const QUEUE_SERIES_BUCKETS: usize = 240;

/// Waiting jobs (after the head) considered per backfill pass. Bounds a pass to O(K log n) so a
/// queue of a million jobs cannot make the replay quadratic; a job deeper than this waits for a
/// later pass (after the queue ahead of it has moved).
pub const BACKFILL_SCAN_DEPTH: usize = 256;

/// Hours in the month that monthly costs are scaled to.
pub use crate::model::plan::HOURS_PER_MONTH;

/// One job to replay. `duration_ms` is the sum of its runs' durations (the caller adds them up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayJob {
    /// Index into the caller's job list, echoed in `never_started`.
    pub id: u64,
    pub submit_ms: i64,
    pub gpus: u32,
    pub duration_ms: i64,
    pub class: WorkloadClass,
    /// Index of the pool (cluster) the job ran on today; used by `Routing::Home`.
    pub home: u32,
    /// True when the log had no submit column and the first start stands in for the submit.
    pub submit_is_start: bool,
}

/// Rented capacity behind a pool, paid per GPU-hour used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overflow {
    pub usd_per_gpu_hour: f64,
    /// "on-demand" or "spot"; shown, not interpreted.
    pub label: String,
}

/// A pool of fungible GPUs (no placement inside a pool).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pool {
    pub name: String,
    pub gpus: u32,
    /// Committed price: paid for every GPU-hour of the window, used or not.
    pub usd_per_gpu_hour: f64,
    pub overflow: Option<Overflow>,
}

/// Which pool a job goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// Pool index = the job's `home` (today: each job on the cluster it ran on).
    Home,
    /// Pool index per class.
    ByClass {
        training: usize,
        inference: usize,
        burst: usize,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    pub pools: Vec<Pool>,
    pub routing: Routing,
}

/// How each pool schedules.
///
/// Backfill is EASY with each job's logged duration as its runtime estimate: the log's durations
/// are known, so the head's reservation is exact and backfill never delays it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReplayPolicy {
    /// EASY backfill: a later job may start early only if it does not delay the head's reservation.
    pub backfill: bool,
    /// Inference jobs queue in their own queue, served before burst and training in the pool.
    pub inference_first: bool,
    /// Preempt running burst jobs (newest started first) to start the inference job at the head
    /// of the inference queue now. Requires `inference_first` (else the preempted burst job could
    /// be ahead of the inference job it made room for).
    pub preempt_burst_for_inference: bool,
    /// A preempted burst job loses `elapsed mod interval` of work and is requeued (at its original
    /// place by submit order) with its remaining work plus that loss. Must be > 0 when preempting.
    pub checkpoint_interval_ms: i64,
    /// Inference starts that waited longer than this are counted against the SLO.
    pub inference_start_slo_ms: i64,
    /// In a pool with overflow, a job still waiting this long after it was queued leaves the
    /// queue and runs on overflow (its wait is this threshold). None: overflow only for jobs
    /// larger than the pool.
    pub overflow_after_wait_ms: Option<i64>,
}

/// The window `[start_ms, end_ms)` that cost and utilization are measured over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayWindow {
    pub start_ms: i64,
    pub end_ms: i64,
}

impl ReplayWindow {
    pub fn len_ms(self) -> i64 {
        self.end_ms.saturating_sub(self.start_ms)
    }

    pub fn hours(self) -> f64 {
        self.len_ms() as f64 / MS_PER_HOUR
    }

    /// Milliseconds of `[from_ms, to_ms)` inside the window.
    pub fn overlap_ms(self, from_ms: i64, to_ms: i64) -> i64 {
        (to_ms.min(self.end_ms) - from_ms.max(self.start_ms)).max(0)
    }
}

pub(crate) const MS_PER_HOUR: f64 = 3_600_000.0;

/// Largest |time| or duration accepted (about 285,000 years): sums of these cannot overflow i64.
pub const MAX_ABS_TIME_MS: i64 = 1 << 53;

/// Why a replay could not run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum ReplayError {
    /// The window must have `end_ms > start_ms`.
    EmptyWindow {
        start_ms: i64,
        end_ms: i64,
    },
    NoPools,
    /// A committed or overflow price is negative or not finite.
    InvalidPrice {
        pool: String,
    },
    /// `Routing::ByClass` names a pool index that does not exist.
    RoutingOutOfRange {
        class: WorkloadClass,
        pool_index: usize,
    },
    /// `Routing::Home` and a job's `home` is not a pool index.
    HomeOutOfRange {
        job_id: u64,
        home: u32,
    },
    ZeroGpuJob {
        job_id: u64,
    },
    /// A negative duration, or a time or duration beyond `MAX_ABS_TIME_MS`.
    InvalidJobTime {
        job_id: u64,
    },
    /// A pool with no GPUs and no overflow receives jobs.
    ZeroGpuPool {
        pool: String,
    },
    InvalidPolicy {
        reason: &'static str,
    },
    /// More jobs than fit a u32 index.
    TooManyJobs {
        count: usize,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::EmptyWindow { start_ms, end_ms } => {
                write!(
                    f,
                    "the replay window must end after it starts (start {start_ms} ms, end {end_ms} ms)"
                )
            }
            ReplayError::NoPools => f.write_str("the topology has no pools"),
            ReplayError::InvalidPrice { pool } => {
                write!(f, "pool {pool}: prices must be finite and not negative")
            }
            ReplayError::RoutingOutOfRange { class, pool_index } => {
                write!(
                    f,
                    "routing sends {} jobs to pool {pool_index}, which does not exist",
                    class.label()
                )
            }
            ReplayError::HomeOutOfRange { job_id, home } => {
                write!(
                    f,
                    "job {job_id} ran on cluster {home}, which is not a pool of this topology"
                )
            }
            ReplayError::ZeroGpuJob { job_id } => write!(f, "job {job_id} asks for zero GPUs"),
            ReplayError::InvalidJobTime { job_id } => {
                write!(f, "job {job_id} has a negative duration or a time out of range")
            }
            ReplayError::ZeroGpuPool { pool } => {
                write!(f, "pool {pool} has no GPUs and no overflow but jobs are routed to it")
            }
            ReplayError::InvalidPolicy { reason } => write!(f, "invalid replay policy: {reason}"),
            ReplayError::TooManyJobs { count } => write!(f, "{count} jobs is more than the replay can index"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Replays `jobs` through `topology` under `policy` and summarizes over `window`.
///
/// Every job given is simulated (the caller chooses which to pass), and jobs still running or
/// waiting when the input ends run to completion; only GPU time inside the window counts toward
/// utilization and monthly cost. Jobs need not be sorted (ties in submit time keep input order).
pub fn replay(
    jobs: &[ReplayJob],
    topology: &Topology,
    policy: &ReplayPolicy,
    window: ReplayWindow,
) -> Result<ReplayOutcome, ReplayError> {
    replay_traced(jobs, topology, policy, window, false).map(|(outcome, _)| outcome)
}

/// `replay`, and with `trace` every run segment (in the order they ended) for listing or a chart
/// of a small replay: memory grows with the runs, so leave it off for a fleet's history.
pub fn replay_traced(
    jobs: &[ReplayJob],
    topology: &Topology,
    policy: &ReplayPolicy,
    window: ReplayWindow,
    trace: bool,
) -> Result<(ReplayOutcome, Vec<JobRun>), ReplayError> {
    let checked = validate::check(jobs, topology, policy, window)?;
    let mut state = engine::run(jobs, topology, policy, window, &checked, trace);
    let runs = state.runs.take().unwrap_or_default();
    Ok((report::build(state, topology, window), runs))
}

/// Pool index each class is routed to, or the job's home.
pub(crate) fn pool_of(routing: Routing, job: &ReplayJob) -> usize {
    match routing {
        Routing::Home => job.home as usize,
        Routing::ByClass {
            training,
            inference,
            burst,
        } => match job.class {
            WorkloadClass::Training => training,
            WorkloadClass::Inference => inference,
            WorkloadClass::Burst => burst,
        },
    }
}

/// Dense index of a class (for per-class arrays).
pub(crate) fn class_index(class: WorkloadClass) -> usize {
    match class {
        WorkloadClass::Training => 0,
        WorkloadClass::Inference => 1,
        WorkloadClass::Burst => 2,
    }
}
