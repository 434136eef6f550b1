//! The generator's tables: the four cluster profiles, the sizes, lengths and weights each class
//! draws from, and the names, users and regions rows are made of.

use super::ClusterProfile;
use crate::data::canonical::MS_PER_MINUTE;

/// Grid resolution for capacity: fine enough that a 30-minute eval wastes little.
pub(super) const BUCKET_MS: i64 = 15 * MS_PER_MINUTE;
/// Training and services start this long before the window, so day 0 is not an empty cluster.
pub(super) const WARMUP_DAYS: i64 = 14;
pub(super) const DEFECT_RATE: f64 = 0.0005;
pub(super) const LABEL_RATE: f64 = 0.30;
pub(super) const OPAQUE_NAME_RATE: f64 = 0.04;
pub(super) const MIN_CAPACITY_GPUS: u32 = 64;
pub(super) const MILLI_GPUS: f64 = 1000.0;

pub(super) const TRAIN_SIZES: [u32; 7] = [8, 16, 32, 64, 128, 256, 512];
pub(super) const TRAIN_SIZE_WEIGHTS: [u32; 7] = [5, 6, 6, 5, 3, 2, 1];
/// Attempts 1..=6; jobs of 256 GPUs or more get one more (more nodes, more interruptions).
pub(super) const ATTEMPT_WEIGHTS: [u32; 6] = [35, 25, 18, 10, 7, 5];
pub(super) const TRAIN_HOURS: (f64, f64) = (24.0, 336.0);

pub(super) const SERVICE_GPUS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];
pub(super) const SERVICE_GPU_WEIGHTS: [u32; 6] = [1, 3, 4, 3, 2, 1];
pub(super) const REPLICA_LIFE_HOURS: (f64, f64) = (12.0, 168.0);
/// Daytime replicas run from local 07–10 h to 18–23 h: 12 h on average.
pub(super) const PEAK_MEAN_HOURS: f64 = 12.0;
/// Weekends run about half the daytime replicas.
pub(super) const PEAK_WEEK_FACTOR: f64 = 6.0 / 7.0;

pub(super) const SWEEP_GPUS: [f64; 4] = [1.0, 2.0, 4.0, 8.0];
pub(super) const SWEEP_GPU_WEIGHTS: [u32; 4] = [3, 4, 3, 1];
pub(super) const EVAL_GPU_WEIGHTS: [u32; 4] = [4, 3, 2, 1];
pub(super) const PREPROCESS_GPUS: [f64; 3] = [1.0, 2.0, 4.0];
pub(super) const PREPROCESS_GPU_WEIGHTS: [u32; 3] = [4, 3, 1];

pub(super) const RESEARCHERS: [&str; 16] = [
    "alice", "bob", "chen", "dana", "emil", "fatima", "gus", "hiro", "ines", "jon", "kofi", "lena", "mateo", "nadia",
    "omar", "priya",
];
pub(super) const SERVICE_USERS: [&str; 4] = ["svc-serving", "svc-platform", "svc-search", "mlops"];
pub(super) const SERVICE_APPS: [&str; 10] = [
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
pub(super) const SMALL_MODELS: [&str; 5] = ["llama-8b", "mistral-7b", "qwen-7b", "gemma-9b", "phi-3b"];
pub(super) const MEDIUM_MODELS: [&str; 4] = ["llama-13b", "qwen-14b", "mixtral-8x7b", "codegen-16b"];
pub(super) const LARGE_MODELS: [&str; 4] = ["llama-70b", "qwen-72b", "moe-140b", "llama-405b"];
pub(super) const MODEL_VARIANTS: [&str; 5] = ["", "-chat", "-code", "-v2", "-long-ctx"];
pub(super) const EVAL_SUITES: [&str; 8] = [
    "mmlu",
    "gsm8k",
    "humaneval",
    "hellaswag",
    "truthfulqa",
    "mt-bench",
    "longbench",
    "arc",
];
pub(super) const DATASETS: [&str; 7] = ["commoncrawl", "wiki", "code", "arxiv", "books", "web-zh", "laion"];
pub(super) const REGIONS: [(&str, i64); 6] = [
    ("us-east", -5),
    ("eu-west", 1),
    ("us-west", -8),
    ("ap-south", 5),
    ("us-central", -6),
    ("eu-north", 2),
];
pub(super) struct ProfileParams {
    pub(super) profile: ClusterProfile,
    pub(super) gpu_type: &'static str,
    pub(super) short_type: &'static str,
    /// Capacity relative to the other profiles at the same row count.
    pub(super) relative_capacity: f64,
    /// Allocated GPU-hours over capacity GPU-hours the sizing aims for.
    pub(super) target_alloc_frac: f64,
    /// Shares of allocated GPU-hours: training, inference, burst.
    pub(super) gpu_hour_shares: [f64; 3],
    /// Largest training job as a share of capacity.
    pub(super) training_max_frac: f64,
    /// Training starts only while the whole cluster stays under this share of capacity,
    /// leaving room for short jobs (a partition limit on the training queues).
    pub(super) training_limit_frac: f64,
    /// Days training arrivals are on, then off; `None` = always on.
    pub(super) campaign_days: Option<((u32, u32), (u32, u32))>,
    pub(super) idle_windows_per_90_days: f64,
    /// Multiplies burst batch sizes (bigger spikes on the underused cluster).
    pub(super) batch_scale: f64,
}

pub(super) const PROFILES: [ProfileParams; 4] = [
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
