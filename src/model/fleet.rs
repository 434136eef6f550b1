//! What an audit of job logs found, as plain data: per cluster and class, GPU-hours,
//! utilization over time, stranded spend, and the rows set aside. `data::audit` fills it from
//! the logs; the report, the contract matching and the workbench read it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::workload::WorkloadClass;

/// Why a row was set aside. The variants are the stable keys of `rows_rejected` in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectReason {
    MissingJobId,
    UnparseableTime,
    UnparseableNumber,
    NegativeGpus,
    EndBeforeStart,
    MalformedRow,
}

impl RejectReason {
    pub fn label(self) -> &'static str {
        match self {
            RejectReason::MissingJobId => "missing job id",
            RejectReason::UnparseableTime => "unparseable time",
            RejectReason::UnparseableNumber => "unparseable, NaN or infinite number",
            RejectReason::NegativeGpus => "negative GPU count",
            RejectReason::EndBeforeStart => "end before start",
            RejectReason::MalformedRow => "malformed row",
        }
    }
}

/// One set-aside row, with enough to find it in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RejectedRow {
    pub file: String,
    pub line: u64,
    pub reason: RejectReason,
    /// What was wrong, e.g. `column start: "2024-13-45"`.
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Window {
    pub start: String,
    pub end: String,
    pub start_ms: i64,
    pub end_ms: i64,
    pub days: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClassSummary {
    pub jobs: u64,
    pub gpu_hours: f64,
    pub gpu_hours_share: f64,
    /// GPU-hour-weighted mean utilization of the runs that report it.
    pub mean_util_frac: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassBreakdown {
    pub training: ClassSummary,
    pub inference: ClassSummary,
    pub burst: ClassSummary,
}

impl ClassBreakdown {
    pub fn get(&self, class: WorkloadClass) -> &ClassSummary {
        match class {
            WorkloadClass::Training => &self.training,
            WorkloadClass::Inference => &self.inference,
            WorkloadClass::Burst => &self.burst,
        }
    }
}

/// Hourly means of concurrent GPUs, one value per hour of the window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HourlySeries {
    pub start_ms: i64,
    pub busy_gpus: Vec<f64>,
    pub utilized_gpus: Vec<f64>,
    pub training_gpus: Vec<f64>,
    pub inference_gpus: Vec<f64>,
    pub burst_gpus: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterAudit {
    pub name: String,
    pub capacity_gpus: f64,
    /// "plan" when the plan gives the cluster's size, "observed peak" otherwise.
    pub capacity_source: String,
    pub jobs: u64,
    pub gpu_hours: f64,
    /// Allocated GPU-hours over capacity × window hours.
    pub allocation_frac: f64,
    /// Utilized GPU-hours (allocation × reported utilization) over capacity × window hours;
    /// the allocation when the log reports no utilization.
    pub utilization_frac: f64,
    pub utilization_reported: bool,
    pub peak_concurrent_gpus: f64,
    pub p95_concurrent_gpus: f64,
    pub classes: ClassBreakdown,
    /// Share of the window's minutes when no training ran on the cluster.
    pub non_training_time_frac: f64,
    /// Mean utilization of capacity during those minutes.
    pub non_training_utilization_frac: f64,
    pub usd_per_gpu_hour: f64,
    pub price_source: String,
    pub monthly_cost_usd: f64,
    /// monthly cost × non-training time share × (1 − mean utilization in non-training time).
    pub stranded_usd_per_month: f64,
    pub flags: Vec<String>,
    pub hourly: HourlySeries,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleUse {
    pub rule: String,
    pub class: String,
    pub jobs: u64,
    pub gpu_hours: f64,
}

/// Rules against labels on the jobs that carry one: rows are the label's class, columns the
/// rules' class, in the order training, inference, burst.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelAgreement {
    pub labeled_jobs: u64,
    pub agreement_frac: f64,
    pub matrix: [[u64; 3]; 3],
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    pub window: Window,
    pub jobs_total: u64,
    pub runs_total: u64,
    pub rows_rejected: BTreeMap<RejectReason, u64>,
    pub rows_rejected_total: u64,
    pub rejected_samples: Vec<RejectedRow>,
    pub gpu_hours_total: f64,
    pub gpu_hours_counting: &'static str,
    pub classes: ClassBreakdown,
    pub clusters: Vec<ClusterAudit>,
    pub rules: Vec<RuleUse>,
    pub label_agreement: Option<LabelAgreement>,
    /// The largest jobs of each cluster and class by GPU-hours in the window, to drill into.
    pub top_jobs: Vec<JobLine>,
}

/// One job as the audit saw it: where it ran, what it was classed as and by which rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobLine {
    pub cluster: String,
    pub class: WorkloadClass,
    pub rule: String,
    pub runs: u32,
    pub max_gpus: f64,
    pub gpu_hours: f64,
    pub first_start_ms: i64,
    /// The log line of the job's first run in the window (1-based, in its own file).
    pub source_line: Option<u64>,
}
