//! A plan: one saved scenario. Plain data that round-trips through TOML; every field is
//! documented in docs/plan-files.md. Validation returns key paths, which the loader
//! turns into file:line:column.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::catalog::Term;
use super::deployment::Deployment;
use super::risk::RiskScenario;
use super::thresholds::ThresholdOverrides;
use super::transit::UserLatency;

mod cluster_cost;
mod commitments;
mod forecast;
mod hosts;
pub mod model_prices;
mod moving;
mod price;
mod slurm;
mod validate;
mod warehouse;

pub use cluster_cost::{ClusterCost, ClusterModelCost};
pub use commitments::CommitmentsPlan;
pub use forecast::{
    DEFAULT_HORIZON_MONTHS, ForecastPlan, GROWTH_RANGE, GrowthPlan, MAX_HORIZON_MONTHS, MAX_PLANNED_DAYS,
    MAX_PLANNED_GPUS, PlannedDemand, day_text, parse_day_ms,
};
pub use hosts::{
    HostEntry, host_patterns, host_utc_offsets_min, parse_utc_offset_min, utc_offset_problems, utc_offset_text,
};
pub use moving::{
    DEFAULT_DATA_MOVED_TB, DEFAULT_DUAL_RUNNING_MONTHS, DEFAULT_EGRESS_USD_PER_TB, DEFAULT_ENGINEERING_HOURS,
    DEFAULT_ENGINEERING_USD_PER_HOUR, DEFAULT_NEEDED_WITHIN_WEEKS, MovingPlan,
};
pub use price::{NoPrice, ResolvedPrice};
pub use slurm::{SlurmOverrides, SlurmSource};
pub use validate::PlanProblem;
pub use warehouse::{MAX_PASSES, MissingFlag, WarehouseOverrides, WarehouseSource};

pub const PLAN_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub schema_version: u32,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "default_hours_per_month")]
    pub hours_per_month: f64,
    pub training: TrainingPlan,
    #[serde(default)]
    pub accelerators: Vec<AcceleratorChoice>,
    pub inference: InferencePlan,
    pub reliability: ReliabilityPlan,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migration: Option<MigrationPlan>,
    pub board: BoardPlan,
    #[serde(default)]
    pub risks: Vec<RiskScenario>,
    #[serde(default)]
    pub monte_carlo: MonteCarloPlan,
    #[serde(default)]
    pub workload: super::recommend::WorkloadProfile,
    #[serde(default)]
    pub clusters: Vec<ClusterCost>,
    #[serde(default)]
    pub thresholds: ThresholdOverrides,
    #[serde(default)]
    pub logs: Vec<LogSource>,
    /// Where the fleet's DCGM metrics live: measured utilization per cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prometheus: Option<PrometheusSource>,
    /// What moving the fleet costs once: engineering, egress, dual running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moving: Option<MovingPlan>,
    /// Slurm's accounting, read through `sacct` when the plan names no log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm: Option<SlurmSource>,
    /// A database holding the runs (`[warehouse]`): the audit runs there as SQL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warehouse: Option<WarehouseSource>,
    /// Cluster name → host patterns (Slurm host lists or globs): which hosts' GPUs are whose;
    /// and the clock offset of nvidia-smi recordings made on them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hosts: BTreeMap<String, HostEntry>,
    /// The proposed split the replay tests: pool sizes and scheduling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplayPlan>,
    /// Which lines of a FOCUS cost export are whose cluster (`gpuplan audit --bill`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bill: Option<super::bill::BillPlan>,
    /// The demand forecast's horizon, growth and planned runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forecast: Option<ForecastPlan>,
    /// Yearly rental price changes overriding the catalog's (`[[price_change]]`).
    #[serde(default, rename = "price_change", skip_serializing_if = "Vec::is_empty")]
    pub price_changes: Vec<PlanPriceChange>,
    /// How far the commitment layers trust the price changes (`[commitments]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitments: Option<CommitmentsPlan>,
    /// GPU models the catalog cannot price or names otherwise: a price per GPU-hour, or the
    /// catalog accelerator each is (`[prices]`, `model_prices`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, model_prices::ModelPrice>,
}

/// A planner's own view of how a rental price moves a year on.
///
/// ```toml
/// [[price_change]]
/// accelerator = "h100-sxm"
/// term = "on-demand"        # or "spot"
/// change_per_year = -0.30   # 30 % cheaper a year on
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanPriceChange {
    pub accelerator: String,
    pub term: crate::model::catalog::Term,
    pub change_per_year: f64,
    /// One standard deviation of the change, if the planner doubts it (none: taken as stated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread_per_year: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The split a replay tests against today's clusters. Pool sizes left out come from the
/// contract matcher's committed base for the class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayPlan {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_gpus: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference_gpus: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_gpus: Option<f64>,
    /// An inference job that waits longer than this to start misses its SLO.
    #[serde(default = "default_inference_start_slo_minutes")]
    pub inference_start_slo_minutes: f64,
    /// A job still waiting this long runs on its pool's overflow (on-demand or spot), when the
    /// pool has one.
    #[serde(default = "default_overflow_after_wait_minutes")]
    pub overflow_after_wait_minutes: f64,
    /// EASY backfill for training and burst.
    #[serde(default = "yes")]
    pub backfill: bool,
    /// Inference preempts running burst jobs when it cannot start otherwise.
    #[serde(default = "yes")]
    pub preempt_burst: bool,
}

fn yes() -> bool {
    true
}

pub fn default_inference_start_slo_minutes() -> f64 {
    5.0
}

/// As long as inference may wait: a job the base cannot start within the SLO is better on
/// rented capacity than late.
pub fn default_overflow_after_wait_minutes() -> f64 {
    default_inference_start_slo_minutes()
}

impl Default for ReplayPlan {
    fn default() -> ReplayPlan {
        ReplayPlan {
            training_gpus: None,
            inference_gpus: None,
            burst_gpus: None,
            inference_start_slo_minutes: default_inference_start_slo_minutes(),
            overflow_after_wait_minutes: default_overflow_after_wait_minutes(),
            backfill: true,
            preempt_burst: true,
        }
    }
}

/// A Prometheus-compatible server (Prometheus, Thanos, Mimir, VictoriaMetrics) holding
/// dcgm-exporter's metrics, and kube-state-metrics' for a Kubernetes fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrometheusSource {
    /// The server's root, e.g. `http://prometheus.monitoring:9090`.
    pub url: String,
    /// The label naming a series' cluster: an external label (`cluster`), OpenCost's
    /// `cluster_id`, or whatever the fleet uses.
    #[serde(default = "default_cluster_label")]
    pub cluster_label: String,
    /// Resolution of the range queries, in seconds; divides an hour.
    #[serde(default = "default_step_seconds")]
    pub step_seconds: u32,
    /// Time allowed for one HTTP request, in seconds.
    #[serde(default = "default_timeout_seconds")]
    pub timeout_seconds: u32,
    /// The NAME of an environment variable holding a bearer token; never the token itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_env: Option<String>,
}

pub fn default_cluster_label() -> String {
    "cluster".to_string()
}

pub fn default_step_seconds() -> u32 {
    3600
}

pub fn default_timeout_seconds() -> u32 {
    30
}

/// Prometheus settings given beside a plan (the command line's flags): each one given wins over
/// the plan's `[prometheus]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PrometheusOverrides {
    pub url: Option<String>,
    pub cluster_label: Option<String>,
    pub step_seconds: Option<u32>,
    pub timeout_seconds: Option<u32>,
    pub token_env: Option<String>,
}

impl PrometheusOverrides {
    /// The server to use: these settings over the plan's table; None when neither names one.
    pub fn resolve(&self, plan: Option<&Plan>) -> Option<PrometheusSource> {
        let mut source = match (&self.url, plan.and_then(|p| p.prometheus.as_ref())) {
            (Some(url), Some(planned)) => PrometheusSource {
                url: url.clone(),
                ..planned.clone()
            },
            (Some(url), None) => PrometheusSource::at(url),
            (None, Some(planned)) => planned.clone(),
            (None, None) => return None,
        };
        if let Some(label) = &self.cluster_label {
            source.cluster_label = label.clone();
        }
        if let Some(step) = self.step_seconds {
            source.step_seconds = step;
        }
        if let Some(timeout) = self.timeout_seconds {
            source.timeout_seconds = timeout;
        }
        if let Some(var) = &self.token_env {
            source.token_env = Some(var.clone());
        }
        Some(source)
    }
}

impl PrometheusSource {
    /// The settings for a server named on the command line.
    pub fn at(url: &str) -> PrometheusSource {
        PrometheusSource {
            url: url.to_string(),
            cluster_label: default_cluster_label(),
            step_seconds: default_step_seconds(),
            timeout_seconds: default_timeout_seconds(),
            token_env: None,
        }
    }
}

/// Hours in a month unless the plan says otherwise: 365 × 24 / 12.
pub const HOURS_PER_MONTH: f64 = 730.0;

/// Hours in the 1-year term: twelve such months, 8,760.
pub const HOURS_PER_YEAR: f64 = 12.0 * HOURS_PER_MONTH;

fn default_hours_per_month() -> f64 {
    HOURS_PER_MONTH
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingPlan {
    pub model_params: f64,
    pub tokens: f64,
    #[serde(default)]
    pub activation_recomputation: bool,
    pub chips: u32,
    #[serde(default)]
    pub network_usd_per_chip_hour: f64,
    #[serde(default)]
    pub failure_overhead_frac: f64,
    pub mfu_points: Vec<f64>,
}

/// One accelerator under consideration, with its MFU slider and price choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceleratorChoice {
    pub id: String,
    /// The slider: the MFU the planner expects on this chip.
    pub mfu: f64,
    pub price_set: String,
    pub term: Term,
    /// Pick this provider within the price set; the cheapest one otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Overrides the catalog: a negotiated price per chip-hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_per_chip_hour: Option<f64>,
    /// MFU measured in a 5 %-scale bake-off, when one was run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bakeoff_mfu: Option<f64>,
    /// Uncertain MFU for the Monte Carlo: [low, most likely, high].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mfu_range: Option<[f64; 3]>,
    /// Uncertain price per chip-hour for the Monte Carlo: [low, most likely, high].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_range_usd_per_chip_hour: Option<[f64; 3]>,
}

/// The seeded Monte Carlo of total cost (risk rows, and MFU and price ranges).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonteCarloPlan {
    #[serde(default = "default_draws")]
    pub draws: u32,
    #[serde(default = "default_seed")]
    pub seed: u64,
}

impl Default for MonteCarloPlan {
    fn default() -> MonteCarloPlan {
        MonteCarloPlan {
            draws: default_draws(),
            seed: default_seed(),
        }
    }
}

fn default_draws() -> u32 {
    10_000
}

fn default_seed() -> u64 {
    1
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InferencePlan {
    pub accelerator: String,
    pub nodes: u32,
    pub node_usd_per_month: f64,
    pub sre_usd_per_month: f64,
    pub energy_usd_per_month: f64,
    pub throughput_tokens_per_hour: f64,
    pub mem_fragmentation_frac: f64,
    pub api_usd_per_1k_tokens: f64,
    /// Marginal cost of a token on our own cluster (the fixed cost is counted separately).
    pub internal_usd_per_1k_tokens: f64,
    /// Today's generated volume.
    pub tokens_per_month: f64,
    pub model_class: String,
    pub transit_ms: f64,
    pub requests_per_s: f64,
    pub deployment: Deployment,
    /// Precision of the served weights: whether the model fits a node of an accelerator.
    #[serde(default, skip_serializing_if = "WeightsPrecision::is_default")]
    pub precision: WeightsPrecision,
    /// Measured latency to where the users are (`[[inference.users]]`): when given, the
    /// user-weighted transit over the top 80 % of users replaces `transit_ms`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<UserLatency>,
    /// A CSV of such measurements (location, users_frac, round_trip_ms or one_way_ms, from),
    /// relative to the plan's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users_csv: Option<String>,
    /// The rows read from `users_csv` when the plan was loaded; never saved into the plan.
    #[serde(skip)]
    pub users_measured: Vec<UserLatency>,
    /// Measured decode throughput of the plan's model, tokens per second per GPU, by
    /// accelerator (a catalog id or a name it answers to): inference moves between two measured
    /// accelerators by their ratio instead of by memory bandwidth.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub measured_tokens_per_second: std::collections::BTreeMap<String, f64>,
}

impl InferencePlan {
    /// Every latency measurement: the plan's table, then the CSV's rows.
    pub fn user_latencies(&self) -> Vec<UserLatency> {
        self.users.iter().chain(&self.users_measured).cloned().collect()
    }
}

/// The number format of a served model's weights.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WeightsPrecision {
    #[default]
    Bf16,
    Fp8,
    Int8,
    Int4,
}

impl WeightsPrecision {
    pub fn bytes_per_param(self) -> f64 {
        match self {
            WeightsPrecision::Bf16 => 2.0,
            WeightsPrecision::Fp8 | WeightsPrecision::Int8 => 1.0,
            WeightsPrecision::Int4 => 0.5,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            WeightsPrecision::Bf16 => "bf16",
            WeightsPrecision::Fp8 => "fp8",
            WeightsPrecision::Int8 => "int8",
            WeightsPrecision::Int4 => "int4",
        }
    }

    fn is_default(&self) -> bool {
        *self == WeightsPrecision::Bf16
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReliabilityPlan {
    pub checkpoint_size_gb: f64,
    pub checkpoint_write_gb_per_s: f64,
    /// Measured checkpoint time; when absent it is size / write throughput.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_minutes: Option<f64>,
    pub checkpoint_interval_minutes: f64,
    /// Time to restore after an interruption; the checkpoint time when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore_minutes: Option<f64>,
    pub mtbi_hours: f64,
    /// Share of the training fleet on spot or preemptible capacity.
    pub spot_frac: f64,
    /// Measured network wait as a share of compute time.
    pub network_wait_frac: f64,
}

impl ReliabilityPlan {
    /// Spot hours bought per hour of work at interruptions every `mtbi_hours`, from the
    /// checkpoint figures (`checkpoint::spot_hours_per_work_hour`).
    pub fn spot_hours_per_work_hour(&self, mtbi_hours: f64) -> Option<f64> {
        super::checkpoint::spot_hours_per_work_hour(
            self.checkpoint_interval_minutes,
            mtbi_hours,
            self.effective_restore_minutes(),
        )
    }

    pub fn effective_checkpoint_minutes(&self) -> f64 {
        self.checkpoint_minutes.unwrap_or_else(|| {
            super::checkpoint::checkpoint_write_seconds(self.checkpoint_size_gb, self.checkpoint_write_gb_per_s) / 60.0
        })
    }

    pub fn effective_restore_minutes(&self) -> f64 {
        self.restore_minutes
            .unwrap_or_else(|| self.effective_checkpoint_minutes())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MigrationPlan {
    pub from: String,
    pub to: String,
    pub engineering_hours: f64,
    pub engineering_usd_per_hour: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardPlan {
    pub annual_gpu_spend_usd: f64,
    pub mfu_from_frac: f64,
    pub mfu_to_frac: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roi: Option<RoiInputs>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoiInputs {
    pub model_value_usd: f64,
    pub hardware_tco_usd: f64,
    pub migration_cost_usd: f64,
    pub lockin_capital_risk_usd: f64,
}

/// A job log the plan is audited against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSource {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The instant second 0 of the log's relative times stands for (RFC 3339), as
    /// `--time-origin` gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_origin: Option<String>,
}
