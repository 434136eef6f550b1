//! Deterministic generator of realistic GPU job logs, for the shipped sample, tests and the
//! 10M-row benchmark (`gpuplan sample`).
//!
//! Each cluster follows a profile (mixed, underused, training-heavy, inference-heavy, cycled in
//! that order) and is simulated day by day:
//! - **training**: multi-day, multi-node runs (8–512 GPUs, 1–14 days of compute) arriving in
//!   campaigns, split into attempts (rows sharing a `job_id`) ended by preemptions, node
//!   failures or crashes, each restarted after a gap;
//! - **inference**: services (`serve-<app>-<instance>`) made of long-lived replicas replaced by
//!   rolling deploys (overlapping lifetimes) plus daytime replicas that follow the users' hours;
//! - **burst**: sweeps of near-identical ~4 h jobs, nightly evals twice a week, preprocessing
//!   spikes; a few anonymous one-off jobs keep the rules honest;
//! - idle windows (days with little work), rows still running at the log's end (empty `end`),
//!   and about 0.05 % bad rows for the readers' quarantine.
//!
//! **Capacity is enforced**: every row is placed on a per-cluster occupancy grid of 15-minute
//! buckets (a job holds every bucket it touches), so at no instant do the rows of one cluster hold
//! more GPUs than `capacity_gpus`. A job that does not fit waits (its start moves later, as in a
//! queue: up to 36 h for bursts, 2–3 days for training attempts, 1 h for replicas) and is dropped
//! if it waits longer. Training starts only while the cluster stays under a ceiling (90 % of
//! capacity, 50 % on the underused profile), like a partition limit, so short jobs keep room.
//! Every cluster reaches its capacity at some instant, so peak concurrency equals capacity.
//! Capacities scale with the requested rows so that any `jobs` fits: 96–240 GPUs per cluster for
//! 20k jobs over 90 days on 4 clusters, 47k–117k for 10M; never below 64. [`clusters`] returns
//! them. Allocated GPU-hours over capacity come out near 60 % (mixed), 20 % (underused), 50–80 %
//! (training-heavy) and 55 % (inference-heavy).
//!
//! The output has exactly `jobs` rows: a shortfall from dropped jobs is carried to the next days
//! and, at the end, back-filled with sweeps on days that had room (listed after the final day's
//! rows). Only if the cluster never has room, or the services and training alone exceed `jobs`
//! (tiny requests), does it differ: then fewer rows, or the log is cut at `jobs`. Below ~5k rows
//! per cluster over 90 days capacities bottom out at 64 GPUs and the clusters sit mostly idle.
//! Rows come per cluster-day in arrival order, not sorted by time; the attempts of a training job
//! are consecutive. Rows started during a 14-day warm-up before the window appear when they are
//! still running inside it (their start precedes the window). Labels, when written, are always the
//! true class (no label noise); about 4 % of training and burst jobs carry names that say nothing
//! (`run-<hex>`, `job-<hex>`) so the rules must use duration, size and queue.
//!
//! The generator by file: `tables` (profiles, sizes, names), `sizing` (capacities and planned
//! GPU-hours per class), `cluster` (one cluster's calendar and the placing of rows on its
//! `occupancy` grid), one file per workload class (`training`, `inference`, `burst`), `stream`
//! (the lazy iterator), `csv` (the writer) and `rng` (the seeded random numbers).

mod burst;
mod cluster;
mod csv;
mod inference;
mod occupancy;
mod rng;
mod sizing;
mod stream;
mod tables;
#[cfg(test)]
mod tests;
mod training;

use std::sync::Arc;

use crate::data::canonical::JobRun;

pub use self::csv::{HEADER, write_csv, write_csv_iter};
use self::sizing::plan_clusters;
use self::stream::SampleRows;

/// The log's last instant: fixed so a seed always gives the same file (2026-09-30T00:00:00Z).
pub const SAMPLE_END_MS: i64 = 1_790_726_400_000;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleSpec {
    /// Rows wanted (each attempt of a job is a row).
    pub jobs: usize,
    /// Length of the log's window in days, ending at `end_ms`.
    pub days: u32,
    pub clusters: u32,
    pub seed: u64,
    /// The log's last instant, UTC milliseconds (floored to the second).
    pub end_ms: i64,
}

/// The true class of a generated row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SampleClass {
    Training,
    Inference,
    Burst,
}

impl SampleClass {
    pub const ALL: [SampleClass; 3] = [SampleClass::Training, SampleClass::Inference, SampleClass::Burst];

    /// The value written in the `label` column.
    pub fn as_str(self) -> &'static str {
        match self {
            SampleClass::Training => "training",
            SampleClass::Inference => "inference",
            SampleClass::Burst => "burst",
        }
    }
}

/// How a deliberately bad row is broken (what the reader must quarantine).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Defect {
    /// `start` is written as text no time parser accepts.
    UnparseableTime,
    /// `gpus` is negative.
    NegativeGpus,
    /// `end` precedes `start`.
    EndBeforeStart,
    /// `gpu_util_pct` is written as `NaN`.
    NanUtilization,
}

/// One generated row. `class` and `defect` are the truth behind the row, not written as columns.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRow {
    /// Unique across clusters; attempts of one job share it.
    pub job_id: u64,
    pub cluster: Arc<str>,
    pub name: String,
    pub user: &'static str,
    pub queue: &'static str,
    pub state: &'static str,
    pub start_ms: i64,
    /// `None` while the run is still going at the log's end (censored).
    pub end_ms: Option<i64>,
    /// GPUs held; fractional for inference replicas sharing a GPU.
    pub gpus: f64,
    pub gpu_type: &'static str,
    /// Mean GPU utilization over the run, 0–100, one decimal.
    pub gpu_util_pct: f64,
    /// The label column: the true class on about 30 % of rows (per job for training).
    pub label: Option<SampleClass>,
    pub class: SampleClass,
    pub defect: Option<Defect>,
}

impl SampleRow {
    /// The row as a reader would collect it before validation (`gpu_util_pct` becomes a
    /// fraction). `None` for a row whose start cannot be parsed; other defects carry through.
    pub fn to_job_run(&self, source_line: u64) -> Option<JobRun> {
        if self.defect == Some(Defect::UnparseableTime) {
            return None;
        }
        Some(JobRun {
            job_id: self.job_id.to_string(),
            cluster: self.cluster.to_string(),
            name: Some(self.name.clone()),
            user: Some(self.user.to_string()),
            queue: Some(self.queue.to_string()),
            state: Some(self.state.to_string()),
            start_ms: self.start_ms,
            end_ms: self.end_ms,
            gpus: self.gpus,
            gpu_type: Some(self.gpu_type.to_string()),
            gpu_util_frac: Some(self.gpu_util_pct / 100.0),
            label: self.label.map(|l| l.as_str().to_string()),
            source_line,
            qos: None,
            owner_kind: None,
            submit_ms: None,
        })
    }
}

/// What a cluster is for; decides its workload mix and utilization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClusterProfile {
    /// All three classes, training in campaigns with gaps between them; ~60 % allocated.
    Mixed,
    /// All three classes, mostly intermittent bursts; allocated well below 40 % of capacity.
    Underused,
    /// Training nearly all the time, bursts beside it; 50–80 % allocated.
    TrainingHeavy,
    /// Mostly inference services, some bursts, a little fine-tuning; ~55 % allocated.
    InferenceHeavy,
}

/// A generated cluster: the capacity its rows never exceed.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleCluster {
    pub name: String,
    /// Catalog accelerator id (`catalogs/accelerators.toml`).
    pub gpu_type: &'static str,
    pub capacity_gpus: u32,
    pub profile: ClusterProfile,
}

/// All rows at once. For large logs prefer [`rows`], which generates lazily.
pub fn generate(spec: &SampleSpec) -> Vec<SampleRow> {
    rows(spec).collect()
}

/// The rows, generated lazily one cluster-day at a time (memory: one cluster-day of rows plus
/// small per-cluster state), identical to [`generate`].
pub fn rows(spec: &SampleSpec) -> impl Iterator<Item = SampleRow> + use<> {
    SampleRows::new(spec)
}

/// The clusters a spec generates, with their enforced capacities.
pub fn clusters(spec: &SampleSpec) -> Vec<SampleCluster> {
    plan_clusters(spec).into_iter().map(|plan| plan.info).collect()
}
