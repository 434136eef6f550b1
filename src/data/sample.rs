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

use crate::model::monte_carlo::{SplitMix64, Xoshiro256StarStar};
use std::borrow::Borrow;
use std::collections::VecDeque;
use std::f64::consts::PI;
use std::io::{self, Write};
use std::sync::Arc;

use super::canonical::JobRun;

/// The CSV header [`write_csv`] writes.
pub const HEADER: &str = "job_id,cluster,name,user,queue,state,start,end,gpus,gpu_type,gpu_util_pct,label";

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

/// Writes the header and the rows as CSV.
pub fn write_csv(rows: &[SampleRow], out: &mut impl Write) -> io::Result<()> {
    write_csv_iter(rows, out).map(|_| ())
}

/// Writes the header and rows from any iterator (e.g. [`rows`]) as CSV, formatting into a
/// 64 KiB buffer of its own; returns the number of rows written.
pub fn write_csv_iter<I>(rows: I, out: &mut impl Write) -> io::Result<u64>
where
    I: IntoIterator,
    I::Item: Borrow<SampleRow>,
{
    const FLUSH_AT: usize = 64 * 1024;
    let mut buf = Vec::with_capacity(FLUSH_AT + 1024);
    buf.extend_from_slice(HEADER.as_bytes());
    buf.push(b'\n');
    let mut written = 0u64;
    for row in rows {
        push_csv_row(&mut buf, row.borrow());
        written += 1;
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    out.flush()?;
    Ok(written)
}

// ---------------------------------------------------------------------------------------------
// Constants and tables

const SECOND_MS: i64 = 1_000;
const MINUTE_MS: i64 = 60 * SECOND_MS;
const HOUR_MS: i64 = 60 * MINUTE_MS;
const DAY_MS: i64 = 24 * HOUR_MS;
/// Grid resolution for capacity: fine enough that a 30-minute eval wastes little.
const BUCKET_MS: i64 = 15 * MINUTE_MS;
/// Training and services start this long before the window, so day 0 is not an empty cluster.
const WARMUP_DAYS: i64 = 14;
const DEFECT_RATE: f64 = 0.0005;
const LABEL_RATE: f64 = 0.30;
const OPAQUE_NAME_RATE: f64 = 0.04;
const MIN_CAPACITY_GPUS: u32 = 64;
const MILLI_GPUS: f64 = 1000.0;

const TRAIN_SIZES: [u32; 7] = [8, 16, 32, 64, 128, 256, 512];
const TRAIN_SIZE_WEIGHTS: [u32; 7] = [5, 6, 6, 5, 3, 2, 1];
/// Attempts 1..=6; jobs of 256 GPUs or more get one more (more nodes, more interruptions).
const ATTEMPT_WEIGHTS: [u32; 6] = [35, 25, 18, 10, 7, 5];
const TRAIN_HOURS: (f64, f64) = (24.0, 336.0);

const SERVICE_GPUS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];
const SERVICE_GPU_WEIGHTS: [u32; 6] = [1, 3, 4, 3, 2, 1];
const REPLICA_LIFE_HOURS: (f64, f64) = (12.0, 168.0);
/// Daytime replicas run from local 07–10 h to 18–23 h: 12 h on average.
const PEAK_MEAN_HOURS: f64 = 12.0;
/// Weekends run about half the daytime replicas.
const PEAK_WEEK_FACTOR: f64 = 6.0 / 7.0;

const SWEEP_GPUS: [f64; 4] = [1.0, 2.0, 4.0, 8.0];
const SWEEP_GPU_WEIGHTS: [u32; 4] = [3, 4, 3, 1];
const EVAL_GPU_WEIGHTS: [u32; 4] = [4, 3, 2, 1];
const PREPROCESS_GPUS: [f64; 3] = [1.0, 2.0, 4.0];
const PREPROCESS_GPU_WEIGHTS: [u32; 3] = [4, 3, 1];

const RESEARCHERS: [&str; 16] = [
    "alice", "bob", "chen", "dana", "emil", "fatima", "gus", "hiro", "ines", "jon", "kofi", "lena", "mateo", "nadia",
    "omar", "priya",
];
const SERVICE_USERS: [&str; 4] = ["svc-serving", "svc-platform", "svc-search", "mlops"];
const SERVICE_APPS: [&str; 10] = [
    "chat-api",
    "embed",
    "rerank",
    "code-complete",
    "search-rag",
    "moderation",
    "translate",
    "summarize",
    "vision-caption",
    "asr",
];
const SMALL_MODELS: [&str; 5] = ["llama-8b", "mistral-7b", "qwen-7b", "gemma-9b", "phi-3b"];
const MEDIUM_MODELS: [&str; 4] = ["llama-13b", "qwen-14b", "mixtral-8x7b", "codegen-16b"];
const LARGE_MODELS: [&str; 4] = ["llama-70b", "qwen-72b", "moe-140b", "llama-405b"];
const MODEL_VARIANTS: [&str; 5] = ["", "-chat", "-code", "-v2", "-long-ctx"];
const EVAL_SUITES: [&str; 8] = [
    "mmlu",
    "gsm8k",
    "humaneval",
    "hellaswag",
    "truthfulqa",
    "mt-bench",
    "longbench",
    "arc",
];
const DATASETS: [&str; 7] = ["commoncrawl", "wiki", "code", "arxiv", "books", "web-zh", "laion"];
const REGIONS: [(&str, i64); 6] = [
    ("us-east", -5),
    ("eu-west", 1),
    ("us-west", -8),
    ("ap-south", 5),
    ("us-central", -6),
    ("eu-north", 2),
];
const GARBLED_TIMES: [&str; 3] = ["2024-13-45T25:61:00Z", "not-a-time", "0000-00-00T00:00:00Z"];

struct ProfileParams {
    profile: ClusterProfile,
    gpu_type: &'static str,
    short_type: &'static str,
    /// Capacity relative to the other profiles at the same row count.
    relative_capacity: f64,
    /// Allocated GPU-hours over capacity GPU-hours the sizing aims for.
    target_alloc_frac: f64,
    /// Shares of allocated GPU-hours: training, inference, burst.
    gpu_hour_shares: [f64; 3],
    /// Largest training job as a share of capacity.
    training_max_frac: f64,
    /// Training starts only while the whole cluster stays under this share of capacity,
    /// leaving room for short jobs (a partition limit on the training queues).
    training_limit_frac: f64,
    /// Days training arrivals are on, then off; `None` = always on.
    campaign_days: Option<((u32, u32), (u32, u32))>,
    idle_windows_per_90_days: f64,
    /// Multiplies burst batch sizes (bigger spikes on the underused cluster).
    batch_scale: f64,
}

const PROFILES: [ProfileParams; 4] = [
    ProfileParams {
        profile: ClusterProfile::Mixed,
        gpu_type: "h100-sxm",
        short_type: "h100",
        relative_capacity: 1.0,
        target_alloc_frac: 0.65,
        gpu_hour_shares: [0.50, 0.30, 0.20],
        training_max_frac: 0.5,
        training_limit_frac: 0.9,
        campaign_days: Some(((8, 20), (4, 12))),
        idle_windows_per_90_days: 1.0,
        batch_scale: 1.0,
    },
    ProfileParams {
        profile: ClusterProfile::Underused,
        gpu_type: "a100-80gb",
        short_type: "a100",
        relative_capacity: 0.6,
        target_alloc_frac: 0.22,
        gpu_hour_shares: [0.20, 0.25, 0.55],
        training_max_frac: 0.25,
        training_limit_frac: 0.5,
        campaign_days: Some(((4, 10), (10, 25))),
        idle_windows_per_90_days: 3.0,
        batch_scale: 2.0,
    },
    ProfileParams {
        profile: ClusterProfile::TrainingHeavy,
        gpu_type: "h200-sxm",
        short_type: "h200",
        relative_capacity: 1.5,
        target_alloc_frac: 0.92,
        gpu_hour_shares: [0.88, 0.02, 0.10],
        training_max_frac: 0.75,
        training_limit_frac: 0.9,
        campaign_days: None,
        idle_windows_per_90_days: 1.0,
        batch_scale: 1.0,
    },
    ProfileParams {
        profile: ClusterProfile::InferenceHeavy,
        gpu_type: "h100-sxm",
        short_type: "h100",
        relative_capacity: 0.8,
        target_alloc_frac: 0.55,
        gpu_hour_shares: [0.08, 0.72, 0.20],
        training_max_frac: 0.25,
        training_limit_frac: 0.9,
        campaign_days: Some(((3, 8), (8, 20))),
        idle_windows_per_90_days: 1.0,
        batch_scale: 0.5,
    },
];

// ---------------------------------------------------------------------------------------------
// Random numbers: the model's xoshiro256** (seeded through SplitMix64), stable across versions

#[derive(Debug, Clone)]
struct Rng {
    inner: Xoshiro256StarStar,
}

impl Rng {
    fn new(seed: u64) -> Self {
        Rng {
            inner: Xoshiro256StarStar::seed_from_u64(seed),
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in `lo..=hi`.
    fn int(&mut self, lo: u32, hi: u32) -> u32 {
        let span = u64::from(hi.saturating_sub(lo)) + 1;
        lo + ((u128::from(self.next_u64()) * u128::from(span)) >> 64) as u32
    }

    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo * (hi / lo).powf(self.unit())
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut target = self.int(0, total - 1);
        for (i, &w) in weights.iter().enumerate() {
            if target < w {
                return i;
            }
            target -= w;
        }
        weights.len() - 1
    }

    fn normal(&mut self) -> f64 {
        let u1 = self.unit().max(f64::MIN_POSITIVE);
        (-2.0 * u1.ln()).sqrt() * (2.0 * PI * self.unit()).cos()
    }

    fn poisson(&mut self, lambda: f64) -> u32 {
        if lambda <= 0.0 {
            return 0;
        }
        if lambda > 30.0 {
            return (lambda + lambda.sqrt() * self.normal()).round().max(0.0) as u32;
        }
        let limit = (-lambda).exp();
        let mut product = self.unit();
        let mut count = 0;
        while product > limit {
            product *= self.unit();
            count += 1;
        }
        count
    }

    fn hex6(&mut self) -> String {
        format!("{:06x}", self.next_u64() & 0xFF_FFFF)
    }
}

// ---------------------------------------------------------------------------------------------
// Capacity: a segment tree over time buckets with range add and "rightmost bucket above"

/// Milli-GPUs held per bucket. `max[node]` is the largest load in the node's range counting
/// the adds at the node and below (not its ancestors), so no lazy push-down is needed.
struct Occupancy {
    buckets: usize,
    leaves: usize,
    max: Vec<i64>,
    add: Vec<i64>,
}

impl Occupancy {
    fn new(buckets: usize) -> Self {
        let leaves = buckets.max(1).next_power_of_two();
        Occupancy {
            buckets,
            leaves,
            max: vec![0; 2 * leaves],
            add: vec![0; 2 * leaves],
        }
    }

    /// Adds `value` to the buckets `lo..hi`.
    fn add(&mut self, lo: usize, hi: usize, value: i64) {
        self.add_in(1, (0, self.leaves), (lo, hi), value);
    }

    fn add_in(&mut self, node: usize, (node_lo, node_hi): (usize, usize), (lo, hi): (usize, usize), value: i64) {
        if hi <= node_lo || node_hi <= lo {
            return;
        }
        if lo <= node_lo && node_hi <= hi {
            self.max[node] += value;
            self.add[node] += value;
            return;
        }
        let mid = (node_lo + node_hi) / 2;
        self.add_in(2 * node, (node_lo, mid), (lo, hi), value);
        self.add_in(2 * node + 1, (mid, node_hi), (lo, hi), value);
        self.max[node] = self.max[2 * node].max(self.max[2 * node + 1]) + self.add[node];
    }

    /// The last bucket in `lo..hi` whose load exceeds `threshold`.
    fn rightmost_above(&self, lo: usize, hi: usize, threshold: i64) -> Option<usize> {
        self.rightmost_in(1, (0, self.leaves), (lo, hi), threshold, 0)
    }

    /// `above`: the adds of the node's ancestors.
    fn rightmost_in(
        &self,
        node: usize,
        (node_lo, node_hi): (usize, usize),
        (lo, hi): (usize, usize),
        threshold: i64,
        above: i64,
    ) -> Option<usize> {
        if hi <= node_lo || node_hi <= lo || self.max[node] + above <= threshold {
            return None;
        }
        if node_hi - node_lo == 1 {
            return Some(node_lo);
        }
        let mid = (node_lo + node_hi) / 2;
        let above = above + self.add[node];
        self.rightmost_in(2 * node + 1, (mid, node_hi), (lo, hi), threshold, above)
            .or_else(|| self.rightmost_in(2 * node, (node_lo, mid), (lo, hi), threshold, above))
    }
}

// ---------------------------------------------------------------------------------------------
// Sizing: capacities and per-class plans from the requested rows

struct ClusterPlan {
    index: u32,
    info: SampleCluster,
    params: &'static ProfileParams,
    utc_offset_hours: i64,
    target_rows: u64,
    /// Planned allocated GPU-hours in the window: training, inference, burst.
    planned_gpu_hours: [f64; 3],
}

fn training_cap(params: &ProfileParams, capacity_gpus: f64) -> u32 {
    let cap = ((capacity_gpus * params.training_max_frac) / 8.0).floor() as u32 * 8;
    cap.clamp(8, 512)
}

fn attempts_mean(gpus: u32) -> f64 {
    let total: u32 = ATTEMPT_WEIGHTS.iter().sum();
    let mean = ATTEMPT_WEIGHTS
        .iter()
        .enumerate()
        .map(|(i, &w)| (i + 1) as f64 * f64::from(w))
        .sum::<f64>()
        / f64::from(total);
    if gpus >= 256 { mean + 1.0 } else { mean }
}

fn log_uniform_mean((lo, hi): (f64, f64)) -> f64 {
    (hi - lo) / (hi / lo).ln()
}

/// Mean GPU-hours and rows of one training job when jobs are capped at `cap` GPUs.
fn training_job_means(cap: u32) -> (f64, f64) {
    let total: u32 = TRAIN_SIZE_WEIGHTS.iter().sum();
    let (mut gpus, mut rows) = (0.0, 0.0);
    for (&size, &weight) in TRAIN_SIZES.iter().zip(&TRAIN_SIZE_WEIGHTS) {
        let share = f64::from(weight) / f64::from(total);
        let size = size.min(cap);
        gpus += share * f64::from(size);
        rows += share * attempts_mean(size);
    }
    (gpus * log_uniform_mean(TRAIN_HOURS), rows)
}

fn weighted_mean(values: &[f64], weights: &[u32]) -> f64 {
    let total: u32 = weights.iter().sum();
    values.iter().zip(weights).map(|(v, &w)| v * f64::from(w)).sum::<f64>() / f64::from(total)
}

/// Mean GPU-hours per burst row: sweeps ~70 % of rows, evals ~18 %, preprocessing ~12 %.
fn burst_gpu_hours_per_row() -> f64 {
    // Cancelled (early-stopped) and failed jobs run shorter.
    let sweep_hours = 4.0 * (0.88 + 0.08 * 0.45 + 0.04 * 0.275);
    let sweep = weighted_mean(&SWEEP_GPUS, &SWEEP_GPU_WEIGHTS) * sweep_hours;
    let eval = weighted_mean(&SWEEP_GPUS, &EVAL_GPU_WEIGHTS) * 1.75;
    let preprocess = weighted_mean(&PREPROCESS_GPUS, &PREPROCESS_GPU_WEIGHTS) * 3.5;
    0.70 * sweep + 0.18 * eval + 0.12 * preprocess
}

#[derive(Debug, Clone, Copy)]
struct ServiceShape {
    gpus: f64,
    base_lanes: u32,
    peak_lanes: u32,
}

impl ServiceShape {
    fn draw(rng: &mut Rng) -> Self {
        let gpus = SERVICE_GPUS[rng.weighted(&SERVICE_GPU_WEIGHTS)];
        let base_lanes = rng.int(1, 4);
        let peak_lanes = rng.int(0, 2 * base_lanes);
        ServiceShape {
            gpus,
            base_lanes,
            peak_lanes,
        }
    }

    fn mean_concurrent_gpus(&self) -> f64 {
        self.gpus
            * (f64::from(self.base_lanes) + f64::from(self.peak_lanes) * PEAK_MEAN_HOURS / 24.0 * PEAK_WEEK_FACTOR)
    }

    fn rows_per_day(&self) -> f64 {
        f64::from(self.base_lanes) * 24.0 / log_uniform_mean(REPLICA_LIFE_HOURS)
            + f64::from(self.peak_lanes) * PEAK_WEEK_FACTOR
    }

    fn shrink(&mut self) -> bool {
        if self.peak_lanes > 0 {
            self.peak_lanes -= 1;
        } else if self.base_lanes > 1 {
            self.base_lanes -= 1;
        } else if let Some(i) = SERVICE_GPUS.iter().rposition(|&g| g < self.gpus) {
            self.gpus = SERVICE_GPUS[i];
        } else {
            return false;
        }
        true
    }
}

/// Mean GPU-hours per inference row, estimated over many service shapes (fixed seed).
fn inference_gpu_hours_per_row() -> f64 {
    let mut rng = Rng::new(0x5EED_1F0E);
    let (mut gpu_hours, mut rows) = (0.0, 0.0);
    for _ in 0..4096 {
        let shape = ServiceShape::draw(&mut rng);
        gpu_hours += shape.mean_concurrent_gpus() * 24.0;
        rows += shape.rows_per_day();
    }
    gpu_hours / rows
}

/// Rows per capacity GPU-hour, per class, for a cluster of `capacity_gpus`.
fn rows_per_gpu_hour(params: &ProfileParams, capacity_gpus: f64, per_row: [f64; 2]) -> [f64; 3] {
    let (train_gpu_hours, train_rows) = training_job_means(training_cap(params, capacity_gpus));
    let gpu_hours_per_row = [train_gpu_hours / train_rows, per_row[0], per_row[1]];
    std::array::from_fn(|k| params.target_alloc_frac * params.gpu_hour_shares[k] / gpu_hours_per_row[k])
}

fn cluster_name(index: u32, clusters: u32, params: &ProfileParams) -> String {
    let (region, _) = REGIONS[index as usize % REGIONS.len()];
    if clusters as usize <= REGIONS.len() {
        format!("{region}-{}", params.short_type)
    } else {
        format!("{region}-{}-{}", params.short_type, index + 1)
    }
}

fn plan_clusters(spec: &SampleSpec) -> Vec<ClusterPlan> {
    if spec.clusters == 0 || spec.days == 0 {
        return Vec::new();
    }
    let hours = f64::from(spec.days) * 24.0;
    let per_row = [inference_gpu_hours_per_row(), burst_gpu_hours_per_row()];
    let params_of = |c: u32| &PROFILES[c as usize % PROFILES.len()];
    // Rows split so that capacities follow the profiles' relative sizes.
    let weights: Vec<f64> = (0..spec.clusters)
        .map(|c| {
            let params = params_of(c);
            let reference = 256.0 * params.relative_capacity;
            params.relative_capacity * rows_per_gpu_hour(params, reference, per_row).iter().sum::<f64>()
        })
        .collect();
    let weight_total: f64 = weights.iter().sum();
    let mut target_rows: Vec<u64> = weights
        .iter()
        .map(|w| (spec.jobs as f64 * w / weight_total).floor() as u64)
        .collect();
    let assigned: u64 = target_rows.iter().sum();
    let clusters = target_rows.len();
    for i in 0..(spec.jobs as u64).saturating_sub(assigned) {
        target_rows[i as usize % clusters] += 1;
    }

    (0..spec.clusters)
        .zip(target_rows)
        .map(|(c, rows)| {
            let params = params_of(c);
            // Fixed point: training jobs are capped by capacity, which depends on them.
            let mut capacity = 256.0 * params.relative_capacity;
            for _ in 0..8 {
                let rho: f64 = rows_per_gpu_hour(params, capacity.max(8.0), per_row).iter().sum();
                capacity = rows as f64 / (hours * rho);
            }
            let capacity_gpus = ((capacity / 8.0).ceil() as u32 * 8).max(MIN_CAPACITY_GPUS);
            let rho = rows_per_gpu_hour(params, f64::from(capacity_gpus), per_row);
            let rho_total: f64 = rho.iter().sum();
            let (train_gpu_hours, train_rows) = training_job_means(training_cap(params, f64::from(capacity_gpus)));
            let gpu_hours_per_row = [train_gpu_hours / train_rows, per_row[0], per_row[1]];
            let planned_gpu_hours = std::array::from_fn(|k| rows as f64 * rho[k] / rho_total * gpu_hours_per_row[k]);
            ClusterPlan {
                index: c,
                info: SampleCluster {
                    name: cluster_name(c, spec.clusters, params),
                    gpu_type: params.gpu_type,
                    capacity_gpus,
                    profile: params.profile,
                },
                params,
                utc_offset_hours: REGIONS[c as usize % REGIONS.len()].1,
                target_rows: rows,
                planned_gpu_hours,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Simulation of one cluster

struct Service {
    stem: String,
    shape: ServiceShape,
    queue: &'static str,
    user: &'static str,
    /// Mean utilization of the long-lived replicas, percent.
    base_util_pct: f64,
    /// When each long-lived lane starts its next replica.
    next_replica_ms: Vec<i64>,
    next_instance: u32,
}

/// What a row is about, before it is placed in time.
struct Job {
    name: String,
    user: &'static str,
    queue: &'static str,
    class: SampleClass,
    gpus: f64,
}

impl Job {
    fn burst(name: String, user: &'static str, queue: &'static str, gpus: f64) -> Self {
        Job {
            name,
            user,
            queue,
            class: SampleClass::Burst,
            gpus,
        }
    }
}

struct ClusterSim {
    name: Arc<str>,
    params: &'static ProfileParams,
    gpu_type: &'static str,
    capacity_milli: i64,
    /// `ProfileParams::training_limit_frac` of the capacity.
    training_limit_milli: i64,
    training_cap: u32,
    utc_offset_hours: i64,
    rng: Rng,
    grid: Occupancy,
    origin_ms: i64,
    window_start_ms: i64,
    end_ms: i64,
    job_id_base: u64,
    next_job: u64,
    services: Vec<Service>,
    /// Per day from `-WARMUP_DAYS`: may training jobs arrive.
    training_on: Vec<bool>,
    /// Per window day.
    idle: Vec<bool>,
    preprocess_spike: Vec<bool>,
    eval_weekdays: [i64; 2],
    training_jobs_per_day: f64,
    /// Per window day: rows the cluster should have written by that day's end.
    target_cumulative_rows: Vec<f64>,
    rows_written: u64,
    sweep_runs: u32,
    eval_step: u32,
}

/// Monday = 0.
fn weekday(ms: i64) -> i64 {
    (ms.div_euclid(DAY_MS) + 3).rem_euclid(7)
}

fn to_ms(hours: f64) -> i64 {
    ((hours * 3600.0).round() as i64).max(60) * SECOND_MS
}

fn round_tenth(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

impl ClusterSim {
    fn new(plan: &ClusterPlan, spec: &SampleSpec, end_ms: i64, job_id_base: u64) -> Self {
        let cluster_seed = spec.seed ^ u64::from(plan.index).wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut rng = Rng::new(SplitMix64::new(cluster_seed).next_u64());
        let days = i64::from(spec.days);
        let window_start_ms = end_ms - days * DAY_MS;
        let origin_ms = window_start_ms - WARMUP_DAYS * DAY_MS;
        let params = plan.params;
        let capacity_gpus = plan.info.capacity_gpus;
        let hours = days as f64 * 24.0;

        // Idle windows: little work; training stops arriving ten days before so few runs span them.
        let mut idle = vec![false; days as usize];
        let mut training_on = vec![true; (days + WARMUP_DAYS) as usize];
        if let Some(((on_lo, on_hi), (off_lo, off_hi))) = params.campaign_days {
            let mut day = 0usize;
            let mut on = rng.chance(0.6);
            while day < training_on.len() {
                let span = if on {
                    rng.int(on_lo, on_hi)
                } else {
                    rng.int(off_lo, off_hi)
                } as usize;
                for flag in training_on.iter_mut().skip(day).take(span) {
                    *flag = on;
                }
                day += span;
                on = !on;
            }
        }
        let windows = (params.idle_windows_per_90_days * days as f64 / 90.0).round() as u32;
        let windows = if days >= 10 { windows.max(1) } else { 0 };
        for _ in 0..windows {
            let length = rng.int(
                2,
                if params.profile == ClusterProfile::Underused {
                    6
                } else {
                    4
                },
            ) as i64;
            let start = i64::from(rng.int(3, (days - length - 1).max(3) as u32));
            for d in start..(start + length).min(days) {
                idle[d as usize] = true;
            }
            for d in (start - 10).max(-WARMUP_DAYS)..(start + length).min(days) {
                training_on[(d + WARMUP_DAYS) as usize] = false;
            }
        }
        if !training_on[WARMUP_DAYS as usize..].iter().any(|&on| on) {
            training_on.iter_mut().for_each(|on| *on = true);
        }
        let preprocess_spike = (0..days).map(|_| rng.chance(0.1)).collect();
        let eval_weekdays = rng.pick(&[[1, 4], [0, 3], [2, 4]]);

        // Services sized to the planned inference GPUs.
        let target_inference_gpus = plan.planned_gpu_hours[1] / hours;
        let mut services = Vec::new();
        let mut inference_gpus = 0.0;
        while (inference_gpus < target_inference_gpus || services.is_empty()) && services.len() < 20_000 {
            let mut shape = ServiceShape::draw(&mut rng);
            let remaining = (target_inference_gpus - inference_gpus).max(0.0);
            while shape.mean_concurrent_gpus() > remaining * 1.25 && shape.shrink() {}
            inference_gpus += shape.mean_concurrent_gpus();
            let i = services.len();
            let app = SERVICE_APPS[i % SERVICE_APPS.len()];
            let version = i / SERVICE_APPS.len();
            let stem = if version == 0 {
                format!("serve-{app}")
            } else {
                format!("serve-{app}-v{}", version + 1)
            };
            let next_replica_ms = (0..shape.base_lanes)
                .map(|_| origin_ms + to_ms(rng.between(0.0, 6.0)))
                .collect();
            services.push(Service {
                stem,
                shape,
                queue: if rng.chance(0.5) { "prod" } else { "serve" },
                user: rng.pick(&SERVICE_USERS),
                base_util_pct: rng.between(30.0, 45.0),
                next_replica_ms,
                next_instance: 1,
            });
        }

        // Training arrivals to match the planned training GPU-hours in the window.
        let training_cap = training_cap(params, f64::from(capacity_gpus));
        let (job_gpu_hours, job_rows) = training_job_means(training_cap);
        let on_days = training_on[WARMUP_DAYS as usize..]
            .iter()
            .filter(|&&on| on)
            .count()
            .max(1);
        let training_jobs_per_day = plan.planned_gpu_hours[0] / job_gpu_hours / on_days as f64;

        let mut sim = ClusterSim {
            name: Arc::from(plan.info.name.as_str()),
            params,
            gpu_type: params.gpu_type,
            capacity_milli: i64::from(capacity_gpus) * 1000,
            training_limit_milli: (f64::from(capacity_gpus) * params.training_limit_frac * MILLI_GPUS) as i64,
            training_cap,
            utc_offset_hours: plan.utc_offset_hours,
            rng,
            grid: Occupancy::new(((days + WARMUP_DAYS) * DAY_MS / BUCKET_MS) as usize),
            origin_ms,
            window_start_ms,
            end_ms,
            job_id_base,
            next_job: 0,
            services,
            training_on,
            idle,
            preprocess_spike,
            eval_weekdays,
            training_jobs_per_day,
            target_cumulative_rows: Vec::new(),
            rows_written: 0,
            sweep_runs: 0,
            eval_step: 1000,
        };

        // Row targets: training and inference at their expected pace, bursts on an activity
        // curve (weekends, idle days, eval and preprocessing days) making up the rest.
        let mut expected_steady = Vec::with_capacity(days as usize);
        let mut activity = Vec::with_capacity(days as usize);
        for d in 0..days {
            let day_start = window_start_ms + d * DAY_MS;
            let inference: f64 = sim
                .services
                .iter()
                .map(|s| {
                    f64::from(s.shape.base_lanes) * 24.0 / log_uniform_mean(REPLICA_LIFE_HOURS)
                        + f64::from(sim.peak_lanes_on(s.shape.peak_lanes, d, day_start))
                })
                .sum();
            let training = if sim.training_on[(d + WARMUP_DAYS) as usize] {
                training_jobs_per_day * job_rows
            } else {
                0.0
            };
            expected_steady.push(inference + training);
            let mut weight = if weekday(day_start) >= 5 { 0.35 } else { 1.0 };
            if sim.is_eval_day(day_start) {
                weight *= 1.6;
            }
            if sim.preprocess_spike[d as usize] {
                weight *= 1.8;
            }
            if sim.idle[d as usize] {
                weight = 0.03;
            }
            activity.push(weight);
        }
        let steady_total: f64 = expected_steady.iter().sum();
        let burst_rows = (plan.target_rows as f64 - steady_total).max(0.0);
        let activity_total: f64 = activity.iter().sum::<f64>().max(f64::MIN_POSITIVE);
        let (mut steady, mut active) = (0.0, 0.0);
        for (expected, weight) in expected_steady.iter().zip(&activity) {
            steady += expected;
            active += weight;
            sim.target_cumulative_rows
                .push(steady + burst_rows * active / activity_total);
        }
        if let Some(last) = sim.target_cumulative_rows.last_mut() {
            *last = plan.target_rows as f64;
        }
        sim
    }

    fn is_eval_day(&self, day_start: i64) -> bool {
        self.eval_weekdays.contains(&weekday(day_start))
    }

    fn peak_lanes_on(&self, lanes: u32, day: i64, day_start: i64) -> u32 {
        if day >= 0 && self.idle[day as usize] {
            lanes / 3
        } else if weekday(day_start) >= 5 {
            lanes.div_ceil(2)
        } else {
            lanes
        }
    }

    fn next_job_id(&mut self) -> u64 {
        self.next_job += 1;
        self.job_id_base + self.next_job
    }

    /// The instant in `[day_start, day_start + 1 day)` at the given local hour of day.
    fn at_local_hour(&self, day_start: i64, hour: f64) -> i64 {
        let midnight = day_start.div_euclid(DAY_MS) * DAY_MS;
        let t = midnight + to_ms(hour) - self.utc_offset_hours * HOUR_MS;
        day_start + (t - day_start).rem_euclid(DAY_MS)
    }

    fn local_hour(&self, ms: i64) -> f64 {
        (ms + self.utc_offset_hours * HOUR_MS).rem_euclid(DAY_MS) as f64 / HOUR_MS as f64
    }

    fn bucket_floor(&self, ms: i64) -> usize {
        ((ms - self.origin_ms).max(0) / BUCKET_MS) as usize
    }

    fn bucket_ceil(&self, ms: i64) -> usize {
        (((ms - self.origin_ms).max(0) + BUCKET_MS - 1) / BUCKET_MS) as usize
    }

    /// Reserves `gpus` for `duration_ms` at the first start from `desired_ms` on (within
    /// `max_wait_ms`) where the cluster's whole load stays under `limit_milli` (at most the
    /// capacity) for the whole run; `None` if it never does before the wait or the log runs out.
    fn place(
        &mut self,
        desired_ms: i64,
        duration_ms: i64,
        gpus: f64,
        max_wait_ms: i64,
        limit_milli: i64,
    ) -> Option<i64> {
        let milli = (gpus * MILLI_GPUS).round() as i64;
        let limit_milli = limit_milli.min(self.capacity_milli);
        if milli > limit_milli {
            return None;
        }
        let threshold = limit_milli - milli;
        let mut start = desired_ms.max(self.origin_ms);
        loop {
            if start >= self.end_ms || start > desired_ms + max_wait_ms {
                return None;
            }
            let lo = self.bucket_floor(start);
            let hi = self.bucket_ceil(start + duration_ms).min(self.grid.buckets).max(lo + 1);
            match self.grid.rightmost_above(lo, hi, threshold) {
                None => {
                    self.grid.add(lo, hi, milli);
                    return Some(start);
                }
                Some(full) => {
                    // Queue behind the last full bucket, a few seconds into the next one.
                    let jitter = i64::from(self.rng.int(0, 59)) * SECOND_MS;
                    start = self.origin_ms + (full as i64 + 1) * BUCKET_MS + jitter;
                }
            }
        }
    }

    /// Writes the row if it reaches into the window; breaks a few rows on purpose.
    fn push(&mut self, mut row: SampleRow, labeled: bool, out: &mut VecDeque<SampleRow>) {
        if row.end_ms.is_some_and(|end| end <= self.window_start_ms) {
            return;
        }
        if labeled {
            row.label = Some(row.class);
        }
        if self.rng.chance(DEFECT_RATE) {
            let defect = [
                Defect::UnparseableTime,
                Defect::NegativeGpus,
                Defect::EndBeforeStart,
                Defect::NanUtilization,
            ][self.rng.below(4)];
            match defect {
                Defect::UnparseableTime => {}
                Defect::NegativeGpus => row.gpus = -row.gpus,
                Defect::EndBeforeStart => row.end_ms = Some(row.start_ms - to_ms(self.rng.between(0.1, 6.0))),
                Defect::NanUtilization => row.gpu_util_pct = f64::NAN,
            }
            row.defect = Some(defect);
        }
        self.rows_written += 1;
        out.push_back(row);
    }

    /// A row of `job` run over `start_ms..end_ms` (censored past the log's end); the caller
    /// sets state and utilization.
    fn row(&self, job_id: u64, job: Job, start_ms: i64, end_ms: i64) -> SampleRow {
        SampleRow {
            job_id,
            cluster: Arc::clone(&self.name),
            name: job.name,
            user: job.user,
            queue: job.queue,
            state: "COMPLETED",
            start_ms,
            end_ms: (end_ms <= self.end_ms).then_some(end_ms),
            gpus: job.gpus,
            gpu_type: self.gpu_type,
            gpu_util_pct: 0.0,
            label: None,
            class: job.class,
            defect: None,
        }
    }

    fn simulate_day(&mut self, day: i64, out: &mut VecDeque<SampleRow>) {
        let day_start = self.window_start_ms + day * DAY_MS;
        self.run_services(day, day_start, out);
        if self.training_on[(day + WARMUP_DAYS) as usize] {
            let arrivals = self.rng.poisson(self.training_jobs_per_day);
            for _ in 0..arrivals {
                let submit = day_start + i64::from(self.rng.int(0, 86_399)) * SECOND_MS;
                self.training_job(submit, out);
            }
        }
        if day >= 0 {
            let target = self.target_cumulative_rows[day as usize].round() as i64;
            let quota = (target - self.rows_written as i64).max(0) as u64;
            self.burst_day(day, day_start, quota, out);
            if day as usize + 1 == self.target_cumulative_rows.len() {
                self.backfill(target.max(0) as u64, out);
            }
        }
    }

    /// Jobs dropped because the cluster was full are made up by sweeps submitted on days across
    /// the window where the queue had room (listed last, after the final day's rows).
    fn backfill(&mut self, target: u64, out: &mut VecDeque<SampleRow>) {
        let days = self.target_cumulative_rows.len() as u32;
        let budget = 64 + target.saturating_sub(self.rows_written);
        let mut cut_short = 0;
        while self.rows_written < target && cut_short < budget {
            let day = self.rng.int(0, days - 1);
            let day_start = self.window_start_ms + i64::from(day) * DAY_MS;
            let size = u64::from(self.rng.int(4, 16)).min(target - self.rows_written);
            if self.idle[day as usize] || self.sweep(day_start, size, out) < size {
                cut_short += 1;
            }
        }
    }

    fn run_services(&mut self, day: i64, day_start: i64, out: &mut VecDeque<SampleRow>) {
        let day_end = day_start + DAY_MS;
        for s in 0..self.services.len() {
            let shape = self.services[s].shape;
            for lane in 0..shape.base_lanes as usize {
                while self.services[s].next_replica_ms[lane] < day_end {
                    let desired = self.services[s].next_replica_ms[lane];
                    let life = to_ms(self.rng.log_uniform(REPLICA_LIFE_HOURS.0, REPLICA_LIFE_HOURS.1));
                    let Some(start) = self.place(desired, life, shape.gpus, HOUR_MS, self.capacity_milli) else {
                        self.services[s].next_replica_ms[lane] = desired + HOUR_MS;
                        continue;
                    };
                    // Rolling deploy: the next replica comes up before this one goes away.
                    self.services[s].next_replica_ms[lane] = start + life - to_ms(self.rng.between(0.03, 0.33));
                    let util = if life >= DAY_MS {
                        self.services[s].base_util_pct + self.rng.between(-4.0, 4.0)
                    } else {
                        self.diurnal_util_pct(start + life / 2)
                    };
                    self.service_row(s, start, life, util.clamp(20.0, 70.0), out);
                }
            }
            if day < 0 {
                continue;
            }
            for _ in 0..self.peak_lanes_on(shape.peak_lanes, day, day_start) {
                let hour = self.rng.between(7.0, 10.0);
                let desired = self.at_local_hour(day_start, hour);
                let hours = self.rng.between(18.0, 23.0) - self.local_hour(desired);
                let life = to_ms(hours);
                if let Some(start) = self.place(desired, life, shape.gpus, 30 * MINUTE_MS, self.capacity_milli) {
                    let util = self.rng.between(50.0, 70.0);
                    self.service_row(s, start, life, util, out);
                }
            }
        }
    }

    /// Load follows the users' day: lowest near 04:00 local, highest near 16:00.
    fn diurnal_util_pct(&mut self, ms: i64) -> f64 {
        let hour = self.local_hour(ms);
        let shape = 0.5 - 0.5 * (2.0 * PI * (hour - 4.0) / 24.0).cos();
        20.0 + 45.0 * shape + self.rng.between(-5.0, 5.0)
    }

    fn service_row(&mut self, s: usize, start: i64, life: i64, util_pct: f64, out: &mut VecDeque<SampleRow>) {
        let job_id = self.next_job_id();
        let service = &mut self.services[s];
        let name = format!("{}-{}", service.stem, service.next_instance);
        service.next_instance += 1;
        let job = Job {
            name,
            user: service.user,
            queue: service.queue,
            class: SampleClass::Inference,
            gpus: service.shape.gpus,
        };
        let mut row = self.row(job_id, job, start, start + life);
        row.state = match row.end_ms {
            None => "RUNNING",
            Some(_) => [("COMPLETED", 85), ("CANCELLED", 10), ("FAILED", 5)][self.rng.weighted(&[85, 10, 5])].0,
        };
        row.gpu_util_pct = round_tenth(util_pct);
        let labeled = self.rng.chance(LABEL_RATE);
        self.push(row, labeled, out);
    }

    fn training_job(&mut self, submit_ms: i64, out: &mut VecDeque<SampleRow>) {
        let gpus = TRAIN_SIZES[self.rng.weighted(&TRAIN_SIZE_WEIGHTS)].min(self.training_cap);
        let (name, queue) = if self.rng.chance(OPAQUE_NAME_RATE) {
            (format!("run-{}", self.rng.hex6()), "batch")
        } else {
            let (kinds, models): (&[&str], &[&str]) = match gpus {
                0..=32 => (&["sft", "dpo", "ft", "rlhf", "pretrain"], &SMALL_MODELS),
                33..=64 => (&["pretrain", "sft", "continued-pretrain"], &MEDIUM_MODELS),
                _ => (&["pretrain"], &LARGE_MODELS),
            };
            let name = format!(
                "{}-{}{}",
                self.rng.pick(kinds),
                self.rng.pick(models),
                self.rng.pick(&MODEL_VARIANTS)
            );
            (name, if self.rng.chance(0.7) { "train" } else { "batch" })
        };
        let user = self.rng.pick(&RESEARCHERS);
        let total_hours = self.rng.log_uniform(TRAIN_HOURS.0, TRAIN_HOURS.1);
        let attempts = self.rng.weighted(&ATTEMPT_WEIGHTS) + 1 + usize::from(gpus >= 256);
        let shares: Vec<f64> = (0..attempts).map(|_| self.rng.between(0.3, 1.3)).collect();
        let share_total: f64 = shares.iter().sum();
        let labeled = self.rng.chance(LABEL_RATE);
        let job_util = self.rng.between(70.0, 95.0);
        let final_state = [("COMPLETED", 80), ("FAILED", 10), ("CANCELLED", 6), ("TIMEOUT", 4)];
        let interrupted = [("PREEMPTED", 70), ("NODE_FAIL", 15), ("FAILED", 15)];
        let job_id = self.next_job_id();
        let mut desired = submit_ms;
        for (i, share) in shares.iter().enumerate() {
            let duration = to_ms(total_hours * share / share_total);
            let max_wait = if i == 0 { 3 * DAY_MS } else { 2 * DAY_MS };
            let Some(start) = self.place(desired, duration, f64::from(gpus), max_wait, self.training_limit_milli)
            else {
                break;
            };
            let job = Job {
                name: name.clone(),
                user,
                queue,
                class: SampleClass::Training,
                gpus: f64::from(gpus),
            };
            let mut row = self.row(job_id, job, start, start + duration);
            row.state = if row.end_ms.is_none() {
                "RUNNING"
            } else if i + 1 == attempts {
                final_state[self.rng.weighted(&[80, 10, 6, 4])].0
            } else {
                interrupted[self.rng.weighted(&[70, 15, 15])].0
            };
            row.gpu_util_pct = round_tenth((job_util + self.rng.between(-3.0, 3.0)).clamp(0.0, 100.0));
            let running = row.end_ms.is_none();
            self.push(row, labeled, out);
            if running {
                break;
            }
            desired = start + duration + to_ms(self.rng.log_uniform(1.0 / 6.0, 8.0));
        }
    }

    fn burst_day(&mut self, day: i64, day_start: i64, quota: u64, out: &mut VecDeque<SampleRow>) {
        if quota == 0 {
            return;
        }
        let idle = self.idle[day as usize];
        let mut evals = 0;
        let mut preprocess = 0;
        if !idle && self.is_eval_day(day_start) {
            evals = (quota as f64 * self.rng.between(0.45, 0.7)).round() as u64;
        }
        if !idle && self.preprocess_spike[day as usize] {
            preprocess = ((quota - evals) as f64 * self.rng.between(0.3, 0.6)).round() as u64;
        }
        let scale = self.params.batch_scale;
        let mut written = 0;
        // A batch cut short means the queue is full for the next day and a half: stop
        // submitting and leave the shortfall to the following days.
        let mut cut_short = 0;
        while written < evals && cut_short < 2 {
            let size = (f64::from(self.rng.int(6, 24)) * scale).round().max(1.0) as u64;
            let size = size.min(evals - written);
            let batch = self.eval_batch(day_start, size, out);
            written += batch;
            cut_short += u32::from(batch < size);
        }
        while written < evals + preprocess && cut_short < 2 {
            let size = (f64::from(self.rng.int(12, 60)) * scale).round().max(1.0) as u64;
            let size = size.min(evals + preprocess - written);
            let batch = self.preprocess_batch(day_start, size, out);
            written += batch;
            cut_short += u32::from(batch < size);
        }
        while written < quota && cut_short < 2 {
            let (size, batch) = if self.rng.chance(OPAQUE_NAME_RATE) {
                (1, self.opaque_job(day_start, out))
            } else {
                let size = (f64::from(self.rng.int(8, 40)) * scale).round().max(1.0) as u64;
                let size = size.min(quota - written);
                (size, self.sweep(day_start, size, out))
            };
            written += batch;
            cut_short += u32::from(batch < size);
        }
    }

    /// Places one burst job and writes it; 1 if written, 0 if the queue stayed full.
    fn burst_job(&mut self, job: Job, submit_ms: i64, hours: f64, util_pct: f64, out: &mut VecDeque<SampleRow>) -> u64 {
        // Early-stopped and crashed jobs run shorter.
        let (state, hours) = match self.rng.weighted(&[88, 6, 4, 2]) {
            0 => ("COMPLETED", hours),
            1 => ("CANCELLED", hours * self.rng.between(0.2, 0.7)),
            2 => ("FAILED", hours * self.rng.between(0.05, 0.5)),
            _ => ("TIMEOUT", hours),
        };
        let duration = to_ms(hours);
        let Some(start) = self.place(submit_ms, duration, job.gpus, 36 * HOUR_MS, self.capacity_milli) else {
            return 0;
        };
        let job_id = self.next_job_id();
        let mut row = self.row(job_id, job, start, start + duration);
        row.state = if row.end_ms.is_none() { "RUNNING" } else { state };
        row.gpu_util_pct = round_tenth(util_pct.clamp(0.0, 100.0));
        let labeled = self.rng.chance(LABEL_RATE);
        let before = self.rows_written;
        self.push(row, labeled, out);
        self.rows_written - before
    }

    /// Burst jobs stay small beside the cluster (at most 1/16 of it).
    fn burst_gpus(&mut self, values: &[f64], weights: &[u32]) -> f64 {
        let cap = (self.capacity_milli / 16_000).max(1) as f64;
        values[self.rng.weighted(weights)].min(cap)
    }

    /// Near-identical ~4 h jobs submitted together (`sweep-lr-<run>-<k>` or `hpo-...`).
    fn sweep(&mut self, day_start: i64, size: u64, out: &mut VecDeque<SampleRow>) -> u64 {
        self.sweep_runs += 1;
        let run = self.sweep_runs;
        let stem = if self.rng.chance(0.7) {
            format!("sweep-lr-{run}")
        } else {
            format!("hpo-{}-{run}", self.rng.pick(&SMALL_MODELS))
        };
        let queue = if stem.starts_with("sweep") || self.rng.chance(0.5) {
            "sweep"
        } else {
            "dev"
        };
        let user = self.rng.pick(&RESEARCHERS);
        let gpus = self.burst_gpus(&SWEEP_GPUS, &SWEEP_GPU_WEIGHTS);
        let hours = self.rng.between(3.5, 4.5);
        let util = self.rng.between(60.0, 90.0);
        let hour = if self.rng.chance(0.85) {
            self.rng.between(9.0, 21.0)
        } else {
            self.rng.between(0.0, 24.0)
        };
        let submit = self.at_local_hour(day_start, hour);
        let mut written = 0;
        for k in 0..size {
            let at = submit + i64::from(self.rng.int(0, 120)) * SECOND_MS;
            let job_hours = hours * self.rng.between(0.9, 1.1);
            let job_util = util + self.rng.between(-4.0, 4.0);
            let job = Job::burst(format!("{stem}-{k}"), user, queue, gpus);
            match self.burst_job(job, at, job_hours, job_util, out) {
                0 => break,
                n => written += n,
            }
        }
        written
    }

    /// Nightly evaluation of a checkpoint across suites (`eval-<suite>-step<n>-<k>`).
    fn eval_batch(&mut self, day_start: i64, size: u64, out: &mut VecDeque<SampleRow>) -> u64 {
        self.eval_step += 500;
        let step = self.eval_step;
        let user = if self.rng.chance(0.6) {
            "eval-bot"
        } else {
            self.rng.pick(&RESEARCHERS)
        };
        let hour = self.rng.between(0.5, 3.0);
        let submit = self.at_local_hour(day_start, hour);
        let mut written = 0;
        for k in 0..size {
            let suite = EVAL_SUITES[k as usize % EVAL_SUITES.len()];
            let gpus = self.burst_gpus(&SWEEP_GPUS, &EVAL_GPU_WEIGHTS);
            let hours = self.rng.between(0.5, 3.0);
            let util = self.rng.between(30.0, 70.0);
            let at = submit + i64::from(self.rng.int(0, 300)) * SECOND_MS;
            let job = Job::burst(format!("eval-{suite}-step{step}-{k}"), user, "eval", gpus);
            match self.burst_job(job, at, hours, util, out) {
                0 => break,
                n => written += n,
            }
        }
        written
    }

    /// A data-preparation spike: shards of one dataset (`preprocess-<dataset>-<shard>`).
    fn preprocess_batch(&mut self, day_start: i64, size: u64, out: &mut VecDeque<SampleRow>) -> u64 {
        let dataset = self.rng.pick(&DATASETS);
        let user = if self.rng.chance(0.5) {
            "data-eng"
        } else {
            self.rng.pick(&RESEARCHERS)
        };
        let submit = day_start + i64::from(self.rng.int(0, 86_399)) * SECOND_MS;
        let mut written = 0;
        for k in 0..size {
            let gpus = self.burst_gpus(&PREPROCESS_GPUS, &PREPROCESS_GPU_WEIGHTS);
            let hours = self.rng.between(1.0, 6.0);
            let util = self.rng.between(15.0, 50.0);
            let at = submit + i64::from(self.rng.int(0, 600)) * SECOND_MS;
            let job = Job::burst(format!("preprocess-{dataset}-{k:04}"), user, "dev", gpus);
            match self.burst_job(job, at, hours, util, out) {
                0 => break,
                n => written += n,
            }
        }
        written
    }

    /// A one-off job with a name that says nothing (`job-<hex>`), for the rules' other signals.
    fn opaque_job(&mut self, day_start: i64, out: &mut VecDeque<SampleRow>) -> u64 {
        let name = format!("job-{}", self.rng.hex6());
        let user = self.rng.pick(&RESEARCHERS);
        let submit = day_start + i64::from(self.rng.int(0, 86_399)) * SECOND_MS;
        let gpus = self.burst_gpus(&[1.0, 2.0], &[2, 1]);
        let hours = self.rng.between(0.5, 6.0);
        let util = self.rng.between(10.0, 80.0);
        self.burst_job(Job::burst(name, user, "dev", gpus), submit, hours, util, out)
    }
}

// ---------------------------------------------------------------------------------------------
// The lazy iterator

struct SampleRows {
    sims: Vec<ClusterSim>,
    days: i64,
    day: i64,
    cluster: usize,
    pending: VecDeque<SampleRow>,
    remaining: usize,
}

impl SampleRows {
    fn new(spec: &SampleSpec) -> Self {
        let end_ms = spec.end_ms.div_euclid(SECOND_MS) * SECOND_MS;
        let plans = plan_clusters(spec);
        // Job ids `<cluster + 1><zero-padded sequence>`, unique across clusters.
        let width = (spec.jobs.max(1).ilog10() + 2).max(6);
        let stride = 10u64.checked_pow(width);
        let sims = plans
            .iter()
            .map(|plan| {
                let base = stride
                    .and_then(|s| s.checked_mul(u64::from(plan.index) + 1))
                    .unwrap_or(0);
                ClusterSim::new(plan, spec, end_ms, base)
            })
            .collect();
        SampleRows {
            sims,
            days: i64::from(spec.days),
            day: -WARMUP_DAYS,
            cluster: 0,
            pending: VecDeque::new(),
            remaining: spec.jobs,
        }
    }
}

impl Iterator for SampleRows {
    type Item = SampleRow;

    fn next(&mut self) -> Option<SampleRow> {
        loop {
            if self.remaining == 0 {
                return None;
            }
            if let Some(row) = self.pending.pop_front() {
                self.remaining -= 1;
                return Some(row);
            }
            if self.day >= self.days || self.sims.is_empty() {
                return None;
            }
            self.sims[self.cluster].simulate_day(self.day, &mut self.pending);
            self.cluster += 1;
            if self.cluster == self.sims.len() {
                self.cluster = 0;
                self.day += 1;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// CSV formatting (by hand: this is the 10M-row path)

fn push_csv_row(buf: &mut Vec<u8>, row: &SampleRow) {
    push_u64(buf, row.job_id);
    buf.push(b',');
    // Names come from fixed tables: no commas or quotes, nothing to escape.
    buf.extend_from_slice(row.cluster.as_bytes());
    buf.push(b',');
    buf.extend_from_slice(row.name.as_bytes());
    buf.push(b',');
    buf.extend_from_slice(row.user.as_bytes());
    buf.push(b',');
    buf.extend_from_slice(row.queue.as_bytes());
    buf.push(b',');
    buf.extend_from_slice(row.state.as_bytes());
    buf.push(b',');
    if row.defect == Some(Defect::UnparseableTime) {
        let garbled = GARBLED_TIMES[(row.job_id % GARBLED_TIMES.len() as u64) as usize];
        buf.extend_from_slice(garbled.as_bytes());
    } else {
        push_time(buf, row.start_ms);
    }
    buf.push(b',');
    if let Some(end) = row.end_ms {
        push_time(buf, end);
    }
    buf.push(b',');
    push_number(buf, row.gpus);
    buf.push(b',');
    buf.extend_from_slice(row.gpu_type.as_bytes());
    buf.push(b',');
    push_tenths(buf, row.gpu_util_pct);
    buf.push(b',');
    if let Some(label) = row.label {
        buf.extend_from_slice(label.as_str().as_bytes());
    }
    buf.push(b'\n');
}

fn push_u64(buf: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

fn push_padded(buf: &mut Vec<u8>, value: u32, width: usize) {
    let mut digits = [b'0'; 10];
    let mut v = value;
    for i in (0..width).rev() {
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    buf.extend_from_slice(&digits[..width]);
}

/// Whole numbers without a decimal point, anything else in Rust's shortest form (0.25, 0.5).
fn push_number(buf: &mut Vec<u8>, value: f64) {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        if value < 0.0 {
            buf.push(b'-');
        }
        push_u64(buf, value.abs() as u64);
    } else {
        // Writing to a Vec cannot fail.
        let _ = write!(buf, "{value}");
    }
}

/// One decimal (`73.4`, `80.0`); `NaN` for a broken value.
fn push_tenths(buf: &mut Vec<u8>, value: f64) {
    if !value.is_finite() {
        buf.extend_from_slice(b"NaN");
        return;
    }
    let tenths = (value * 10.0).round() as i64;
    if tenths < 0 {
        buf.push(b'-');
    }
    push_u64(buf, tenths.unsigned_abs() / 10);
    buf.push(b'.');
    buf.push(b'0' + (tenths.unsigned_abs() % 10) as u8);
}

/// `YYYY-MM-DDTHH:MM:SSZ` (UTC); years outside 0–9999 fall back to Rust's formatting.
fn push_time(buf: &mut Vec<u8>, ms: i64) {
    let secs = ms.div_euclid(SECOND_MS);
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let second_of_day = secs.rem_euclid(86_400) as u32;
    if !(0..=9999).contains(&year) {
        let _ = write!(buf, "{year}-");
    } else {
        push_padded(buf, year as u32, 4);
        buf.push(b'-');
    }
    push_padded(buf, month, 2);
    buf.push(b'-');
    push_padded(buf, day, 2);
    buf.push(b'T');
    push_padded(buf, second_of_day / 3600, 2);
    buf.push(b':');
    push_padded(buf, second_of_day / 60 % 60, 2);
    buf.push(b':');
    push_padded(buf, second_of_day % 60, 2);
    buf.push(b'Z');
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use super::*;

    /// 2024-06-30T00:00:00Z
    const END_MS: i64 = 1_719_705_600_000;

    fn spec(jobs: usize, seed: u64) -> SampleSpec {
        SampleSpec {
            jobs,
            days: 90,
            clusters: 4,
            seed,
            end_ms: END_MS,
        }
    }

    fn csv(rows: &[SampleRow]) -> String {
        let mut out = Vec::new();
        write_csv(rows, &mut out).expect("writing to a Vec");
        String::from_utf8(out).expect("CSV is UTF-8")
    }

    fn gpu_hours(row: &SampleRow, end_ms: i64) -> f64 {
        row.gpus * (row.end_ms.unwrap_or(end_ms) - row.start_ms) as f64 / HOUR_MS as f64
    }

    #[test]
    fn same_seed_same_output_and_another_seed_differs() {
        let a = csv(&generate(&spec(5_000, 7)));
        let b = csv(&generate(&spec(5_000, 7)));
        let c = csv(&generate(&spec(5_000, 8)));
        assert_eq!(a, b);
        assert_ne!(a, c);
        let lazy: Vec<SampleRow> = rows(&spec(5_000, 7)).collect();
        assert_eq!(csv(&lazy), a);
    }

    #[test]
    fn writes_the_requested_number_of_rows() {
        for (jobs, clusters) in [(20_000, 4), (3_000, 1), (12_345, 6)] {
            let spec = SampleSpec {
                jobs,
                days: 90,
                clusters,
                seed: 1,
                end_ms: END_MS,
            };
            assert_eq!(generate(&spec).len(), jobs, "{jobs} jobs on {clusters} clusters");
        }
    }

    #[test]
    fn every_class_is_present_with_plausible_shares() {
        let rows = generate(&spec(20_000, 3));
        let mut count = [0usize; 3];
        let mut hours = [0.0f64; 3];
        for row in rows.iter().filter(|r| r.defect.is_none()) {
            count[row.class as usize] += 1;
            hours[row.class as usize] += gpu_hours(row, END_MS);
        }
        let n = count.iter().sum::<usize>() as f64;
        let h: f64 = hours.iter().sum();
        let row_share = count.map(|c| c as f64 / n);
        let hour_share = hours.map(|x| x / h);
        // Bursts are most of the rows, training most of the GPU-hours.
        assert!((0.005..0.10).contains(&row_share[0]), "training rows {row_share:?}");
        assert!((0.05..0.40).contains(&row_share[1]), "inference rows {row_share:?}");
        assert!(row_share[2] > 0.5, "burst rows {row_share:?}");
        assert!(
            (0.35..0.85).contains(&hour_share[0]),
            "training GPU-hours {hour_share:?}"
        );
        assert!(
            (0.08..0.50).contains(&hour_share[1]),
            "inference GPU-hours {hour_share:?}"
        );
        assert!((0.05..0.40).contains(&hour_share[2]), "burst GPU-hours {hour_share:?}");
        // Every cluster runs all three classes (the training-heavy one only a little inference).
        let plans = clusters(&spec(20_000, 3));
        for cluster in &plans {
            let classes: Vec<SampleClass> = SampleClass::ALL
                .into_iter()
                .filter(|class| rows.iter().any(|r| *r.cluster == cluster.name && r.class == *class))
                .collect();
            assert_eq!(classes.len(), 3, "{} runs {classes:?}", cluster.name);
        }
        // Names follow the workloads.
        assert!(rows.iter().any(|r| r.name.starts_with("pretrain-")));
        assert!(rows.iter().any(|r| r.name.starts_with("sft-")));
        assert!(rows.iter().any(|r| r.name.starts_with("serve-chat-api-")));
        assert!(rows.iter().any(|r| r.name.starts_with("sweep-lr-")));
        assert!(rows.iter().any(|r| r.name.starts_with("eval-")));
        assert!(rows.iter().any(|r| r.name.starts_with("preprocess-")));
        assert!(rows.iter().any(|r| r.name.starts_with("hpo-")));
    }

    #[test]
    fn bad_rows_are_few_but_present_in_every_kind() {
        let rows = generate(&spec(100_000, 11));
        let mut kinds: BTreeMap<Defect, usize> = BTreeMap::new();
        for defect in rows.iter().filter_map(|r| r.defect) {
            *kinds.entry(defect).or_default() += 1;
        }
        let bad: usize = kinds.values().sum();
        let share = bad as f64 / rows.len() as f64;
        assert!((0.0001..0.002).contains(&share), "{bad} bad rows of {}", rows.len());
        assert_eq!(kinds.len(), 4, "{kinds:?}");
        let text = csv(&rows);
        assert!(text.contains(",NaN,"));
        assert!(GARBLED_TIMES.iter().any(|g| text.contains(g)));
        for row in rows.iter().filter(|r| r.defect == Some(Defect::EndBeforeStart)) {
            assert!(row.end_ms.is_some_and(|end| end < row.start_ms));
        }
        for row in rows.iter().filter(|r| r.defect == Some(Defect::NegativeGpus)) {
            assert!(row.gpus < 0.0);
        }
    }

    #[test]
    fn no_instant_holds_more_gpus_than_the_cluster_has() {
        for spec in [
            spec(20_000, 5),
            SampleSpec {
                jobs: 30_000,
                days: 30,
                clusters: 3,
                seed: 9,
                end_ms: END_MS,
            },
        ] {
            let capacity: HashMap<String, u32> =
                clusters(&spec).into_iter().map(|c| (c.name, c.capacity_gpus)).collect();
            let rows = generate(&spec);
            let mut events: HashMap<&str, Vec<(i64, i64)>> = HashMap::new();
            for row in rows.iter().filter(|r| r.defect.is_none()) {
                let milli = (row.gpus * 1000.0).round() as i64;
                let list = events.entry(&*row.cluster).or_default();
                list.push((row.start_ms, milli));
                list.push((row.end_ms.unwrap_or(spec.end_ms), -milli));
            }
            for (cluster, mut list) in events {
                // Ends before starts at the same instant: a run holds [start, end).
                list.sort_by_key(|&(t, delta)| (t, delta));
                let (mut held, mut peak) = (0i64, 0i64);
                for (_, delta) in list {
                    held += delta;
                    peak = peak.max(held);
                }
                let cap = i64::from(capacity[cluster]) * 1000;
                assert!(peak <= cap, "{cluster}: {peak} milli-GPUs held, capacity {cap}");
                assert!(
                    peak * 10 >= cap * 5,
                    "{cluster}: peak {peak} of {cap}: capacity far too large"
                );
            }
        }
    }

    #[test]
    fn one_cluster_averages_below_forty_percent_and_the_mixed_one_above() {
        let spec = spec(20_000, 21);
        let rows = generate(&spec);
        let window_start = spec.end_ms - i64::from(spec.days) * DAY_MS;
        for cluster in clusters(&spec) {
            let mut held_ms = 0.0;
            let mut events = Vec::new();
            for row in rows.iter().filter(|r| r.defect.is_none() && *r.cluster == cluster.name) {
                let start = row.start_ms.max(window_start);
                let end = row.end_ms.unwrap_or(spec.end_ms);
                held_ms += row.gpus * (end - start).max(0) as f64;
                let milli = (row.gpus * 1000.0).round() as i64;
                events.push((start, milli));
                events.push((end, -milli));
            }
            events.sort_unstable();
            let (mut held, mut peak) = (0i64, 0i64);
            for (_, delta) in events {
                held += delta;
                peak = peak.max(held);
            }
            let window_ms = (spec.end_ms - window_start) as f64;
            let of_capacity = held_ms / (f64::from(cluster.capacity_gpus) * window_ms);
            let of_peak = held_ms / (peak as f64 / 1000.0 * window_ms);
            match cluster.profile {
                ClusterProfile::Underused => {
                    assert!(of_capacity < 0.40, "{}: {of_capacity:.2} of capacity", cluster.name);
                    assert!(of_peak < 0.40, "{}: {of_peak:.2} of peak", cluster.name);
                }
                ClusterProfile::Mixed | ClusterProfile::TrainingHeavy => {
                    assert!(of_capacity > 0.45, "{}: {of_capacity:.2} of capacity", cluster.name)
                }
                ClusterProfile::InferenceHeavy => {
                    assert!(of_capacity > 0.30, "{}: {of_capacity:.2} of capacity", cluster.name)
                }
            }
        }
    }

    /// GPUs held by `class` rows in each hour of the window, per cluster.
    fn hourly_gpus(rows: &[SampleRow], spec: &SampleSpec, cluster: &str, class: SampleClass) -> Vec<f64> {
        let window_start = spec.end_ms - i64::from(spec.days) * DAY_MS;
        let hours = spec.days as usize * 24;
        let mut held = vec![0.0; hours];
        for row in rows
            .iter()
            .filter(|r| r.defect.is_none() && *r.cluster == *cluster && r.class == class)
        {
            let first = ((row.start_ms - window_start).max(0) / HOUR_MS) as usize;
            let last = ((row.end_ms.unwrap_or(spec.end_ms) - window_start + HOUR_MS - 1) / HOUR_MS).max(0) as usize;
            for hour in held.iter_mut().take(last.min(hours)).skip(first) {
                *hour += row.gpus;
            }
        }
        held
    }

    #[test]
    fn the_mixed_cluster_has_time_without_training() {
        // Stranded spend is measured in non-training periods: there must be some, not all.
        let spec = spec(20_000, 12);
        let rows = generate(&spec);
        let mixed = clusters(&spec)
            .into_iter()
            .find(|c| c.profile == ClusterProfile::Mixed)
            .expect("a mixed cluster");
        let training = hourly_gpus(&rows, &spec, &mixed.name, SampleClass::Training);
        let idle_share = training.iter().filter(|&&g| g == 0.0).count() as f64 / training.len() as f64;
        assert!(
            (0.05..0.85).contains(&idle_share),
            "no training in {idle_share:.2} of the hours"
        );
        let inference = hourly_gpus(&rows, &spec, &mixed.name, SampleClass::Inference);
        assert!(inference.iter().skip(24).all(|&g| g > 0.0), "services run all the time");
    }

    #[test]
    fn inference_follows_the_users_day() {
        let spec = spec(20_000, 13);
        let rows = generate(&spec);
        for cluster in clusters(&spec)
            .iter()
            .filter(|c| c.profile == ClusterProfile::InferenceHeavy)
        {
            let held = hourly_gpus(&rows, &spec, &cluster.name, SampleClass::Inference);
            let mut by_hour = [0.0; 24];
            for (hour, gpus) in held.iter().enumerate() {
                by_hour[hour % 24] += gpus;
            }
            let most = by_hour.iter().copied().fold(f64::MIN, f64::max);
            let least = by_hour.iter().copied().fold(f64::MAX, f64::min);
            assert!(
                most > 1.3 * least,
                "{}: busiest hour {most:.0}, quietest {least:.0}",
                cluster.name
            );
        }
    }

    #[test]
    fn every_cluster_has_quiet_days() {
        let spec = spec(20_000, 14);
        let rows = generate(&spec);
        let window_start = spec.end_ms - i64::from(spec.days) * DAY_MS;
        for cluster in clusters(&spec) {
            let mut starts = vec![0usize; spec.days as usize];
            for row in rows
                .iter()
                .filter(|r| *r.cluster == cluster.name && r.class == SampleClass::Burst)
            {
                if let Ok(day) = usize::try_from((row.start_ms - window_start).div_euclid(DAY_MS)) {
                    starts[day.min(spec.days as usize - 1)] += 1;
                }
            }
            let mut sorted = starts.clone();
            sorted.sort_unstable();
            let median = sorted[sorted.len() / 2];
            let quiet = starts.iter().filter(|&&n| n * 10 <= median).count();
            assert!(
                quiet >= 2,
                "{}: {quiet} quiet days, median {median} burst jobs a day",
                cluster.name
            );
        }
    }

    #[test]
    fn training_jobs_restart_after_preemption() {
        let rows = generate(&spec(20_000, 4));
        let mut jobs: BTreeMap<u64, Vec<&SampleRow>> = BTreeMap::new();
        for row in rows
            .iter()
            .filter(|r| r.class == SampleClass::Training && r.defect.is_none())
        {
            jobs.entry(row.job_id).or_default().push(row);
        }
        let multi: Vec<&Vec<&SampleRow>> = jobs.values().filter(|a| a.len() > 1).collect();
        assert!(
            multi.len() * 4 >= jobs.len(),
            "{} of {} jobs restarted",
            multi.len(),
            jobs.len()
        );
        for attempts in &multi {
            for pair in attempts.windows(2) {
                let end = pair[0].end_ms.expect("an attempt followed by another has ended");
                assert!(pair[1].start_ms > end, "attempts of {} overlap", pair[0].job_id);
                assert!(["PREEMPTED", "NODE_FAIL", "FAILED"].contains(&pair[0].state));
                assert_eq!(pair[0].name, pair[1].name);
                assert_eq!(pair[0].label, pair[1].label);
            }
        }
        assert!(multi.iter().any(|a| a.last().is_some_and(|r| r.state == "COMPLETED")));
        for row in jobs.values().flatten() {
            assert!((8.0..=512.0).contains(&row.gpus));
            assert!((67.0..=98.0).contains(&row.gpu_util_pct), "{}", row.gpu_util_pct);
        }
        let spans: Vec<f64> = jobs
            .values()
            .map(|a| {
                a.iter()
                    .map(|r| (r.end_ms.unwrap_or(END_MS) - r.start_ms) as f64)
                    .sum::<f64>()
                    / DAY_MS as f64
            })
            .collect();
        assert!(spans.iter().any(|&d| d > 5.0));
    }

    #[test]
    fn inference_services_have_overlapping_instances_and_follow_the_day() {
        let rows = generate(&spec(20_000, 6));
        let mut by_service: BTreeMap<String, Vec<&SampleRow>> = BTreeMap::new();
        for row in rows
            .iter()
            .filter(|r| r.class == SampleClass::Inference && r.defect.is_none())
        {
            let stem = row.name.rsplit_once('-').map_or(row.name.as_str(), |(stem, _)| stem);
            by_service
                .entry(format!("{}/{stem}", row.cluster))
                .or_default()
                .push(row);
        }
        assert!(by_service.len() >= 4);
        // One replica comes up while another of the same service still runs.
        let overlapping = by_service.values().filter(|instances| {
            instances.iter().any(|a| {
                instances
                    .iter()
                    .any(|b| b.start_ms > a.start_ms && b.start_ms < a.end_ms.unwrap_or(END_MS))
            })
        });
        assert!(overlapping.count() * 10 >= by_service.len() * 9);
        let all: Vec<&&SampleRow> = by_service.values().flatten().collect();
        assert!(all.iter().all(|r| (20.0..=70.0).contains(&r.gpu_util_pct)));
        assert!(all.iter().any(|r| r.gpus < 1.0), "some replicas share a GPU");
        assert!(all.iter().all(|r| ["serve", "prod"].contains(&r.queue)));
    }

    #[test]
    fn bursts_are_short_and_evals_come_twice_a_week() {
        let spec = spec(20_000, 8);
        let rows = generate(&spec);
        let burst: Vec<&SampleRow> = rows
            .iter()
            .filter(|r| r.class == SampleClass::Burst && r.defect.is_none() && r.end_ms.is_some())
            .collect();
        let sweep_hours: Vec<f64> = burst
            .iter()
            .filter(|r| r.name.starts_with("sweep-lr-") && r.state == "COMPLETED")
            .map(|r| (r.end_ms.unwrap_or(0) - r.start_ms) as f64 / HOUR_MS as f64)
            .collect();
        let mean = sweep_hours.iter().sum::<f64>() / sweep_hours.len() as f64;
        assert!((3.5..4.5).contains(&mean), "sweeps last {mean:.2} h");
        assert!(burst.iter().all(|r| (1.0..=8.0).contains(&r.gpus)));
        assert!(burst.iter().all(|r| ["dev", "sweep", "eval"].contains(&r.queue)));
        // Evals come in nightly batches twice a week: count the days batches start on.
        let weeks = f64::from(spec.days) / 7.0;
        let mut first_start: BTreeMap<(&str, &str), i64> = BTreeMap::new();
        for row in burst.iter().filter(|r| r.queue == "eval") {
            let step = row.name.split('-').find(|part| part.starts_with("step")).unwrap_or("");
            let start = first_start.entry((&*row.cluster, step)).or_insert(row.start_ms);
            *start = (*start).min(row.start_ms);
        }
        let mut eval_days: BTreeMap<&str, std::collections::BTreeSet<i64>> = BTreeMap::new();
        for ((cluster, _), start) in first_start {
            eval_days.entry(cluster).or_default().insert(start.div_euclid(DAY_MS));
        }
        assert_eq!(eval_days.len(), 4);
        for (cluster, days) in eval_days {
            let per_week = days.len() as f64 / weeks;
            assert!(
                (1.2..=2.6).contains(&per_week),
                "{cluster}: evals on {per_week:.1} days a week"
            );
        }
    }

    #[test]
    fn csv_has_the_header_and_formats() {
        let rows = generate(&spec(20_000, 2));
        let text = csv(&rows);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(HEADER));
        let is_time = |s: &str| {
            let b = s.as_bytes();
            b.len() == 20
                && b.iter().enumerate().all(|(i, c)| match i {
                    4 | 7 => *c == b'-',
                    10 => *c == b'T',
                    13 | 16 => *c == b':',
                    19 => *c == b'Z',
                    _ => c.is_ascii_digit(),
                })
        };
        let (mut labeled, mut censored, mut fractional, mut count) = (0, 0, 0, 0);
        for (line, row) in lines.zip(&rows) {
            count += 1;
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), 12, "{line}");
            assert_eq!(fields[0], row.job_id.to_string());
            if row.defect.is_none() {
                assert!(is_time(fields[6]), "{line}");
                assert!(fields[7].is_empty() || is_time(fields[7]), "{line}");
                let gpus: f64 = fields[8].parse().expect("gpus is a number");
                assert!(gpus > 0.0, "{line}");
                let util: f64 = fields[10].parse().expect("utilization is a number");
                assert!((0.0..=100.0).contains(&util), "{line}");
            }
            if fields[7].is_empty() {
                censored += 1;
                assert_eq!(fields[5], "RUNNING", "{line}");
            }
            if fields[8].contains('.') {
                fractional += 1;
            }
            match fields[11] {
                "" => {}
                "training" | "inference" | "burst" => labeled += 1,
                other => panic!("label {other}"),
            }
        }
        assert_eq!(count, rows.len());
        let share = f64::from(labeled) / count as f64;
        assert!((0.25..0.35).contains(&share), "labels on {share:.3} of rows");
        assert!(censored > 0 && fractional > 0);
        // Times survive the round trip to the second.
        let first = &rows[0];
        assert!(text.contains(&format_time(first.start_ms)));
    }

    fn format_time(ms: i64) -> String {
        let mut buf = Vec::new();
        push_time(&mut buf, ms);
        String::from_utf8(buf).expect("ASCII")
    }

    #[test]
    fn times_format_as_utc() {
        assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(1_700_000_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(format_time(1_709_208_000_999), "2024-02-29T12:00:00Z");
        assert_eq!(format_time(-1_000), "1969-12-31T23:59:59Z");
        assert_eq!(weekday(1_709_208_000_000), 3, "2024-02-29 was a Thursday");
    }

    #[test]
    fn numbers_format_plainly() {
        let mut buf = Vec::new();
        for value in [8.0, 0.5, 0.25, -4.0] {
            push_number(&mut buf, value);
            buf.push(b' ');
        }
        for value in [73.44, 80.0, 0.05, f64::NAN] {
            push_tenths(&mut buf, value);
            buf.push(b' ');
        }
        assert_eq!(
            String::from_utf8(buf).expect("ASCII"),
            "8 0.5 0.25 -4 73.4 80.0 0.1 NaN "
        );
    }

    #[test]
    fn rows_become_a_canonical_frame() {
        let rows = generate(&spec(2_000, 1));
        let runs: Vec<JobRun> = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.to_job_run(i as u64 + 2))
            .collect();
        let frame = super::super::canonical::frame_from_runs(&runs).expect("frame");
        assert_eq!(frame.height(), runs.len());
        assert!(
            runs.iter()
                .all(|r| r.gpu_util_frac.is_none_or(|u| u.is_nan() || (0.0..=1.0).contains(&u)))
        );
    }

    #[test]
    fn degenerate_specs_give_nothing_or_few_rows() {
        assert!(
            generate(&SampleSpec {
                jobs: 100,
                days: 0,
                clusters: 2,
                seed: 1,
                end_ms: END_MS
            })
            .is_empty()
        );
        assert!(
            generate(&SampleSpec {
                jobs: 100,
                days: 30,
                clusters: 0,
                seed: 1,
                end_ms: END_MS
            })
            .is_empty()
        );
        assert!(
            generate(&SampleSpec {
                jobs: 0,
                days: 30,
                clusters: 2,
                seed: 1,
                end_ms: END_MS
            })
            .is_empty()
        );
        let tiny = generate(&SampleSpec {
            jobs: 50,
            days: 3,
            clusters: 2,
            seed: 1,
            end_ms: END_MS + 123,
        });
        assert!(tiny.len() <= 50);
    }

    #[test]
    fn a_hundred_thousand_rows_generate() {
        let spec = spec(100_000, 42);
        let mut out = Vec::new();
        let written = write_csv_iter(rows(&spec), &mut out).expect("writing to a Vec");
        assert_eq!(written, 100_000);
    }

    /// `cargo test --release --lib data::sample::tests::measure -- --ignored --nocapture`
    #[test]
    #[ignore = "measurement, not a check"]
    fn measure_rows_per_second() {
        let spec = SampleSpec {
            jobs: 1_000_000,
            days: 90,
            clusters: 4,
            seed: 1,
            end_ms: END_MS,
        };
        let started = std::time::Instant::now();
        let mut sink = io::sink();
        let written = write_csv_iter(rows(&spec), &mut sink).expect("sink");
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{written} rows in {seconds:.2} s: {:.0} rows/s",
            written as f64 / seconds
        );
        for cluster in clusters(&spec) {
            println!("{cluster:?}");
        }
    }
}
