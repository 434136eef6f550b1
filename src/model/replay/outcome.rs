//! What a replay reports: per pool, per class within each pool, and per class across the topology.

use serde::Serialize;

use crate::model::workload::WorkloadClass;

/// Queue waits of started jobs: time from submit to first start (in the pool or on overflow).
/// None when no job started.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaitSummary {
    pub p50_ms: Option<i64>,
    pub p95_ms: Option<i64>,
    pub p99_ms: Option<i64>,
    pub max_ms: Option<i64>,
    pub mean_ms: Option<f64>,
    /// Share of started jobs that waited more than zero.
    pub waited_frac: Option<f64>,
    /// Inference only: share of starts that waited longer than the inference start SLO.
    pub over_slo_frac: Option<f64>,
}

/// Mean number of jobs waiting in each of `QUEUE_SERIES_BUCKETS` equal slices of the window
/// (bucket i covers `[start + span·i/N, start + span·(i+1)/N)`, integer division).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueueSeries {
    pub window_start_ms: i64,
    pub window_end_ms: i64,
    pub mean_waiting_jobs: Vec<f64>,
}

/// One class, in one pool or across the topology.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassOutcome {
    pub class: WorkloadClass,
    pub jobs: u64,
    /// Started in the pool or on overflow.
    pub jobs_started: u64,
    pub jobs_on_overflow: u64,
    pub jobs_never_started: u64,
    /// Jobs whose submit time is their logged first start (no submit column): their waits today
    /// were not observed.
    pub jobs_submit_is_start: u64,
    pub wait: WaitSummary,
    /// Most jobs of this class waiting at once.
    pub max_queue_len: u64,
    /// Time-weighted mean number waiting over the window (L_q).
    pub mean_waiting_jobs: f64,
    pub arrivals_in_window: u64,
    /// Arrivals in the window per hour of window (λ, for Little's law L_q = λ·W_q).
    pub arrivals_per_hour: f64,
    /// Exact GPU-milliseconds occupied in the pool (all time, including redone work).
    pub gpu_ms_run: u64,
    pub gpu_hours_run: f64,
    pub allocated_gpu_hours_in_window: f64,
    /// Exact GPU-milliseconds run on overflow (all time).
    pub overflow_gpu_ms: u64,
    pub overflow_gpu_hours: f64,
    pub overflow_gpu_hours_in_window: f64,
    /// All overflow GPU-hours at the overflow price.
    pub overflow_usd: f64,
    pub preemptions: u64,
    /// Work lost to preemption and run again.
    pub redone_gpu_hours: f64,
    pub queue_series: QueueSeries,
}

/// One pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolOutcome {
    pub name: String,
    pub gpus: u32,
    pub overflow_label: Option<String>,
    pub jobs: u64,
    pub jobs_started: u64,
    pub jobs_on_overflow: u64,
    pub jobs_never_started: u64,
    pub wait: WaitSummary,
    /// Most jobs (all classes) waiting at once.
    pub max_queue_len: u64,
    /// Time-weighted mean number waiting over the window (L_q).
    pub mean_waiting_jobs: f64,
    pub arrivals_in_window: u64,
    pub arrivals_per_hour: f64,
    pub gpu_ms_run: u64,
    pub gpu_hours_run: f64,
    pub allocated_gpu_hours_in_window: f64,
    /// gpus × window hours.
    pub committed_gpu_hours: f64,
    /// Allocated GPU-hours in the window / committed GPU-hours (jobs held them; the replay
    /// knows no utilization); None for a pool of zero GPUs.
    pub allocated_frac: Option<f64>,
    /// Committed GPU-hours in the window that ran nothing.
    pub never_allocated_gpu_hours: f64,
    pub overflow_gpu_ms: u64,
    pub overflow_gpu_hours: f64,
    pub overflow_gpu_hours_in_window: f64,
    pub overflow_usd: f64,
    /// gpus × committed price × 730 h.
    pub committed_usd_per_month: f64,
    /// Overflow GPU-hours in the window × overflow price, scaled from the window to 730 h.
    pub overflow_usd_per_month: f64,
    pub total_usd_per_month: f64,
    pub preemptions: u64,
    pub redone_gpu_hours: f64,
    /// Per class, in `WorkloadClass::ALL` order.
    pub classes: Vec<ClassOutcome>,
}

/// Sums over every pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopologyTotals {
    pub gpus: u64,
    pub jobs: u64,
    pub jobs_started: u64,
    pub jobs_on_overflow: u64,
    pub jobs_never_started: u64,
    pub gpu_ms_run: u64,
    pub gpu_hours_run: f64,
    pub allocated_gpu_hours_in_window: f64,
    pub committed_gpu_hours: f64,
    pub allocated_frac: Option<f64>,
    pub never_allocated_gpu_hours: f64,
    pub overflow_gpu_ms: u64,
    pub overflow_gpu_hours: f64,
    pub overflow_usd: f64,
    pub committed_usd_per_month: f64,
    pub overflow_usd_per_month: f64,
    pub total_usd_per_month: f64,
    pub preemptions: u64,
    pub redone_gpu_hours: f64,
}

/// A job that could never start: larger than its pool, and the pool has no overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NeverStarted {
    pub id: u64,
    pub class: WorkloadClass,
    pub gpus: u32,
    /// Pool index in the topology.
    pub pool: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayOutcome {
    pub window_start_ms: i64,
    pub window_end_ms: i64,
    pub window_hours: f64,
    pub pools: Vec<PoolOutcome>,
    /// Per class across the topology, in `WorkloadClass::ALL` order.
    pub classes: Vec<ClassOutcome>,
    pub totals: TopologyTotals,
    pub never_started: Vec<NeverStarted>,
}

/// One stretch of a job holding GPUs, listed only by `replay_traced`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct JobRun {
    pub id: u64,
    pub pool: usize,
    pub start_ms: i64,
    pub end_ms: i64,
    pub on_overflow: bool,
    /// Ended by preemption (the job was requeued).
    pub preempted: bool,
}
