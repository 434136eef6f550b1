//! What an audit of job logs found, as plain data: per cluster and class, GPU-hours,
//! utilization over time, stranded spend, and the rows set aside. `data::audit` fills it from
//! the logs; the report, the contract matching and the workbench read it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::catalog::Term;
use super::resolution::Resolution;
use super::utilization::{LogFigures, MeasuredCluster, UtilizationSource};
use super::workload::WorkloadClass;

/// Why a row was set aside. The variants are the stable keys of `rows_rejected` in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectReason {
    MissingJobId,
    UnparseableTime,
    UnparseableNumber,
    NegativeGpus,
    EndBeforeStart,
    MalformedRow,
    /// A job log's utilization below 0 or above 100 % (past the reader's tolerance).
    UtilizationOutOfRange,
    /// A start or end before 2000-01-01 or more than a day after the run's clock.
    TimeOutOfRange,
    /// A row that holds no GPU (a CPU-only pod, task or job): counted apart, kept out of jobs,
    /// rules, peaks and every GPU figure.
    CpuOnly,
}

impl RejectReason {
    /// Every reason, in the order of their codes (`reason as u32`).
    /// New reasons go at the end: the codes are written into the warehouse's SQL.
    pub const ALL: [RejectReason; 9] = [
        RejectReason::MissingJobId,
        RejectReason::UnparseableTime,
        RejectReason::UnparseableNumber,
        RejectReason::NegativeGpus,
        RejectReason::EndBeforeStart,
        RejectReason::MalformedRow,
        RejectReason::UtilizationOutOfRange,
        RejectReason::TimeOutOfRange,
        RejectReason::CpuOnly,
    ];

    /// The reason whose code (`reason as u32`) a query carried.
    pub fn from_code(code: u32) -> Option<RejectReason> {
        RejectReason::ALL.into_iter().find(|r| *r as u32 == code)
    }

    pub fn label(self) -> &'static str {
        match self {
            RejectReason::MissingJobId => "missing job id",
            RejectReason::UnparseableTime => "unparseable time",
            RejectReason::UnparseableNumber => "unparseable, NaN, infinite or implausible number",
            RejectReason::NegativeGpus => "negative GPU count",
            RejectReason::EndBeforeStart => "end before start",
            RejectReason::MalformedRow => "malformed row",
            RejectReason::UtilizationOutOfRange => "utilization outside 0-100 %",
            RejectReason::TimeOutOfRange => "time outside 2000..now+1d",
            RejectReason::CpuOnly => "CPU-only (no GPU): not in GPU figures",
        }
    }
}

/// One set-aside row, with enough to find it in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// How finely the audit follows the window; left out of JSON at the finest.
    #[serde(skip_serializing_if = "Resolution::is_finest")]
    pub resolution: Resolution,
}

/// An instant (UTC milliseconds) as RFC 3339 text to the second.
pub fn iso_utc(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map_or_else(|| ms.to_string(), |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

impl Window {
    /// The window between two instants (UTC milliseconds), with their RFC 3339 text.
    pub fn from_ms(start_ms: i64, end_ms: i64) -> Window {
        Window {
            start: iso_utc(start_ms),
            end: iso_utc(end_ms),
            start_ms,
            end_ms,
            days: (end_ms - start_ms) as f64 / 86_400_000.0,
            resolution: Resolution::for_span_ms(end_ms - start_ms),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClassSummary {
    pub jobs: u64,
    /// The most GPUs one run of the class held in the window: its largest gang.
    pub largest_run_gpus: f64,
    pub gpu_hours: f64,
    pub gpu_hours_share: f64,
    /// GPU-hour-weighted mean utilization of the runs that report it.
    pub mean_util_frac: Option<f64>,
    /// The GPU-hours behind `mean_util_frac`, so audits of parts merge exactly.
    #[serde(skip)]
    pub util_weight_gpu_hours: f64,
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

/// Means of concurrent GPUs, one value per point of `hours_per_point` hours (one hour but for
/// windows too long to follow hour by hour: `Resolution`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HourlySeries {
    pub start_ms: i64,
    /// Left out of JSON when 1.
    #[serde(skip_serializing_if = "is_one")]
    pub hours_per_point: u32,
    pub busy_gpus: Vec<f64>,
    pub utilized_gpus: Vec<f64>,
    pub training_gpus: Vec<f64>,
    pub inference_gpus: Vec<f64>,
    pub burst_gpus: Vec<f64>,
    /// Each class's running jobs counted one whole GPU each (a share for a job on part of
    /// one): what the class holds at least on any accelerator, however fast.
    pub training_gpu_floor: Vec<f64>,
    pub inference_gpu_floor: Vec<f64>,
    pub burst_gpu_floor: Vec<f64>,
    /// Minutes of each point when no training ran: the weights of measured utilization.
    pub non_training_minutes: Vec<u32>,
}

fn is_one(value: &u32) -> bool {
    *value == 1
}

impl HourlySeries {
    /// The hours the series covers: its points × hours per point.
    pub fn hours(&self) -> f64 {
        self.busy_gpus.len() as f64 * f64::from(self.hours_per_point)
    }
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
    /// Which figure `utilization_frac` and the stranded spend stand on.
    pub utilization_source: UtilizationSource,
    pub peak_concurrent_gpus: f64,
    pub p95_concurrent_gpus: f64,
    pub classes: ClassBreakdown,
    /// Share of the window's minutes when no training ran on the cluster.
    pub non_training_time_frac: f64,
    /// Mean utilization of capacity during those minutes.
    pub non_training_utilization_frac: f64,
    pub usd_per_gpu_hour: f64,
    pub price_source: String,
    /// The GPU type holding most of the cluster's GPU-hours, as the log names it.
    pub gpu_type: Option<String>,
    /// The catalog's accelerator a cluster the plan does not list was priced as (from
    /// `gpu_type`); None for the plan's clusters and for those priced at the fallback rate.
    pub priced_as: Option<String>,
    /// The plan's term for the cluster; None when the plan does not list it.
    pub term: Option<Term>,
    /// The GPU models it holds, each with its own capacity, price, GPU-hours and peak; their
    /// capacities add up to `capacity_gpus` and their costs to `monthly_cost_usd`.
    pub models: Vec<super::cluster_models::ModelLine>,
    /// Runs naming no model spread over several models: what was spread and how.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub models_spread: Option<String>,
    pub monthly_cost_usd: f64,
    /// Seed 001's reading of idle spend, under its own name (it is not the stranded spend of
    /// `spend_parts`): monthly cost × non-training time share × (1 − mean utilization in
    /// non-training time).
    pub non_training_idle_usd_per_month: f64,
    /// The month's paid capacity in its three parts: never allocated, allocated but idle, busy.
    pub spend_parts: SpendParts,
    pub flags: Vec<String>,
    pub hourly: HourlySeries,
    /// DCGM's figures for the cluster, when its GPUs were measured.
    pub measured: Option<MeasuredCluster>,
    /// Why a source of measurements was asked and gave the cluster no measured hour (its
    /// figures are then the log's): "Prometheus returned no series for it", a partial response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<String>,
    /// The job log's own figures, kept beside the measured ones that replaced them.
    pub log: Option<LogFigures>,
    /// Jobs that asked for GPUs in the window and never started.
    pub pending: PendingDemand,
}

impl ClusterAudit {
    /// Whether training, inference and burst all ran on the cluster.
    pub fn all_classes(&self) -> bool {
        WorkloadClass::ALL.iter().all(|&c| self.classes.get(c).jobs > 0)
    }
}

/// A cluster's monthly cost split by what its GPUs did (docs/auditing.md, "Paid capacity"): no
/// job held them (`never_allocated`), a job held them and they sat idle (`allocated_idle`), or
/// they worked (`busy`). The three add up to the monthly cost. Where nothing measures
/// utilization (`busy_source` is allocation alone) what a job held cannot be split into idle and
/// busy: those two and the stranded spend are unknown (`None`, `null` in JSON), never 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SpendParts {
    pub never_allocated_usd_per_month: f64,
    /// Held by a job, idle and busy together: known wherever the log is.
    pub allocated_usd_per_month: f64,
    pub allocated_idle_usd_per_month: Option<f64>,
    pub busy_usd_per_month: Option<f64>,
    /// Stranded spend, paid for and not working: never allocated + allocated idle.
    pub stranded_usd_per_month: Option<f64>,
    /// What "busy" rests on: the job log's utilization, DCGM's measure, or allocation alone
    /// (then idle and busy are unknown).
    pub busy_source: UtilizationSource,
}

impl SpendParts {
    /// The split of `monthly_cost_usd` for allocation and busy shares of capacity (each
    /// clamped to 0–1, busy within allocation).
    pub fn of(
        monthly_cost_usd: f64,
        allocation_frac: f64,
        busy_frac: f64,
        busy_source: UtilizationSource,
    ) -> SpendParts {
        let allocated = allocation_frac.clamp(0.0, 1.0);
        let busy = busy_frac.clamp(0.0, allocated);
        let cost = monthly_cost_usd.max(0.0);
        let never_allocated = cost * (1.0 - allocated);
        let known = busy_source != UtilizationSource::Allocation;
        let allocated_idle = known.then_some(cost * (allocated - busy));
        SpendParts {
            never_allocated_usd_per_month: never_allocated,
            allocated_usd_per_month: cost * allocated,
            allocated_idle_usd_per_month: allocated_idle,
            busy_usd_per_month: known.then_some(cost * busy),
            stranded_usd_per_month: allocated_idle.map(|idle| never_allocated + idle),
            busy_source,
        }
    }
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

/// A label value the log uses that `[labels]` does not know: its jobs were classified by the
/// rules, and the user is shown how much that decides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnknownLabel {
    /// As the log writes it (the first spelling met), trimmed.
    pub label: String,
    /// Jobs with a run in the window carrying it.
    pub jobs: u64,
    /// Their runs' GPU-hours in the window.
    pub gpu_hours: f64,
}

/// Merges per-part lists (disjoint jobs) into one, largest GPU-hours first.
pub fn merge_unknown_labels(parts: impl IntoIterator<Item = UnknownLabel>) -> Vec<UnknownLabel> {
    let mut merged: Vec<UnknownLabel> = Vec::new();
    for part in parts {
        match merged.iter_mut().find(|m| m.label.eq_ignore_ascii_case(&part.label)) {
            Some(m) => {
                m.jobs += part.jobs;
                m.gpu_hours += part.gpu_hours;
            }
            None => merged.push(part),
        }
    }
    merged.sort_by(|a, b| b.gpu_hours.total_cmp(&a.gpu_hours).then_with(|| a.label.cmp(&b.label)));
    merged
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
    /// Label values `[labels]` does not know, largest GPU-hours first (their jobs went to the
    /// rules).
    pub unknown_labels: Vec<UnknownLabel>,
    /// The largest jobs of each cluster and class by GPU-hours in the window, to drill into.
    pub top_jobs: Vec<JobLine>,
    /// GPU utilization measured by DCGM samples read beside the job log, when there are any.
    pub measured_utilization: Option<MeasuredUtilization>,
    /// What matching measurements to clusters left out: hosts no cluster claims, measured
    /// clusters the log does not have, the metric each source fell back to.
    pub measurement_notes: Vec<String>,
    /// The fleet's jobs that never started, per class: the clusters' sum, plus those of
    /// clusters with no run in the window.
    pub pending: PendingDemand,
}

/// How the GPU-hours a class's never-started jobs asked for were counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PendingHoursBasis {
    /// No pending jobs.
    #[default]
    None,
    /// Every job's requested run length (its time limit) × its GPUs.
    TimeLimit,
    /// No job had a time limit: each job's wait in the window (from its submit, or the
    /// window's start, to its cancellation or the window's end) × its GPUs.
    WaitInWindow,
    /// Some jobs one way, some the other (the counts say how many).
    Mixed,
}

impl PendingHoursBasis {
    pub fn label(self) -> &'static str {
        match self {
            PendingHoursBasis::None => "-",
            PendingHoursBasis::TimeLimit => "time limit × GPUs",
            PendingHoursBasis::WaitInWindow => "wait in window × GPUs",
            PendingHoursBasis::Mixed => "time limit, else wait × GPUs",
        }
    }
}

/// One class's jobs that never started: how many, the GPUs and GPU-hours they asked for.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PendingClass {
    pub jobs: u64,
    /// GPUs requested, summed over the jobs.
    pub gpus: f64,
    /// GPU-hours requested, counted as `gpu_hours_basis` says. A lower bound when
    /// `jobs_without_hours` > 0 (jobs with neither a time limit nor a submit time add nothing).
    pub gpu_hours_requested: f64,
    pub gpu_hours_basis: PendingHoursBasis,
    /// Jobs whose GPU-hours are their time limit × GPUs.
    pub jobs_with_time_limit: u64,
    /// Jobs whose GPU-hours are their wait in the window × GPUs (no time limit known).
    pub jobs_by_wait: u64,
    /// Jobs with neither: counted as jobs and GPUs, with no GPU-hours.
    pub jobs_without_hours: u64,
}

impl PendingClass {
    /// One job's request: `time_limit_hours` when the log gives it, else `wait_hours`.
    pub fn add_job(&mut self, gpus: f64, time_limit_hours: Option<f64>, wait_hours: Option<f64>) {
        self.jobs += 1;
        self.gpus += gpus;
        match (time_limit_hours, wait_hours) {
            (Some(hours), _) => {
                self.jobs_with_time_limit += 1;
                self.gpu_hours_requested += gpus * hours;
            }
            (None, Some(hours)) => {
                self.jobs_by_wait += 1;
                self.gpu_hours_requested += gpus * hours;
            }
            (None, None) => self.jobs_without_hours += 1,
        }
        self.gpu_hours_basis = self.basis();
    }

    fn merge(&mut self, other: &PendingClass) {
        self.jobs += other.jobs;
        self.gpus += other.gpus;
        self.gpu_hours_requested += other.gpu_hours_requested;
        self.jobs_with_time_limit += other.jobs_with_time_limit;
        self.jobs_by_wait += other.jobs_by_wait;
        self.jobs_without_hours += other.jobs_without_hours;
        self.gpu_hours_basis = self.basis();
    }

    /// Sets `gpu_hours_basis` from the counts, for demand summed elsewhere (a warehouse).
    pub fn refresh_basis(&mut self) {
        self.gpu_hours_basis = self.basis();
    }

    fn basis(&self) -> PendingHoursBasis {
        match (self.jobs_with_time_limit > 0, self.jobs_by_wait > 0) {
            (true, false) => PendingHoursBasis::TimeLimit,
            (false, true) => PendingHoursBasis::WaitInWindow,
            (true, true) => PendingHoursBasis::Mixed,
            (false, false) => PendingHoursBasis::None,
        }
    }
}

/// Jobs that asked for GPUs and never started (Slurm `PENDING`, a pod never scheduled, a row
/// with a submit time and no start), per class: demand the clusters did not meet.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PendingDemand {
    pub training: PendingClass,
    pub inference: PendingClass,
    pub burst: PendingClass,
}

impl PendingDemand {
    pub fn get(&self, class: WorkloadClass) -> &PendingClass {
        match class {
            WorkloadClass::Training => &self.training,
            WorkloadClass::Inference => &self.inference,
            WorkloadClass::Burst => &self.burst,
        }
    }

    pub fn get_mut(&mut self, class: WorkloadClass) -> &mut PendingClass {
        match class {
            WorkloadClass::Training => &mut self.training,
            WorkloadClass::Inference => &mut self.inference,
            WorkloadClass::Burst => &mut self.burst,
        }
    }

    pub fn jobs(&self) -> u64 {
        WorkloadClass::ALL.iter().map(|&c| self.get(c).jobs).sum()
    }

    pub fn gpus(&self) -> f64 {
        WorkloadClass::ALL.iter().map(|&c| self.get(c).gpus).sum()
    }

    pub fn gpu_hours_requested(&self) -> f64 {
        WorkloadClass::ALL
            .iter()
            .map(|&c| self.get(c).gpu_hours_requested)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs() == 0
    }

    pub fn merge(&mut self, other: &PendingDemand) {
        for class in WorkloadClass::ALL {
            self.get_mut(class).merge(other.get(class));
        }
    }
}

/// The GPU-hours a class's never-started jobs asked for across the fleet (see
/// `PendingClass::gpu_hours_basis` for how): demand beside the GPU-hours that ran, to be
/// shown as such wherever it is added to them.
pub fn class_pending_gpu_hours(audit: &AuditReport, class: WorkloadClass) -> f64 {
    audit.pending.get(class).gpu_hours_requested
}

/// GPU utilization as DCGM measured it over the audit's window: what the hardware did, beside
/// what the job log reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredUtilization {
    /// Samples with a value in the window.
    pub samples: u64,
    pub hosts: u64,
    /// Sampled series: one per GPU, or one for a host exported as a whole.
    pub gpu_series: u64,
    /// Each series' mean sample, averaged over the series: a GPU sampled more often weighs the
    /// same as the others.
    pub mean_util_frac: f64,
    /// The mean of the samples in each hour of the window, from its start; null for an hour
    /// without samples.
    pub hourly_util_frac: Vec<Option<f64>>,
    /// The utilization threshold (the plan's, else the catalog's) the hosts are held to.
    pub threshold_frac: f64,
    /// Hosts whose series averaged below `threshold_frac`, lowest first.
    pub hosts_below_threshold: Vec<HostUtilization>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostUtilization {
    pub host: String,
    pub gpu_series: u64,
    pub mean_util_frac: f64,
}

/// One job as the audit saw it: where it ran, what it was classed as and by which rule, and
/// what the log says of it. The log's fields are None where the log has no such column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobLine {
    pub cluster: String,
    pub class: WorkloadClass,
    pub rule: String,
    pub job_id: Option<String>,
    pub name: Option<String>,
    pub user: Option<String>,
    pub queue: Option<String>,
    /// The state of the job's last run in the window.
    pub state: Option<String>,
    pub runs: u32,
    pub max_gpus: f64,
    pub gpu_hours: f64,
    /// GPU-hour-weighted mean utilization of its runs in the window that report one.
    pub mean_util_frac: Option<f64>,
    pub first_start_ms: i64,
    /// The log line of the job's first run in the window (1-based, in its own file).
    pub source_line: Option<u64>,
}

fn merge_classes(parts: &[&ClassBreakdown]) -> ClassBreakdown {
    let merged = |class: WorkloadClass| {
        let (mut jobs, mut gpu_hours, mut util_weight, mut util_sum) = (0u64, 0.0, 0.0, 0.0);
        let mut largest_run_gpus = 0.0_f64;
        for part in parts {
            let s = part.get(class);
            jobs += s.jobs;
            largest_run_gpus = largest_run_gpus.max(s.largest_run_gpus);
            gpu_hours += s.gpu_hours;
            util_weight += s.util_weight_gpu_hours;
            util_sum += s.mean_util_frac.unwrap_or(0.0) * s.util_weight_gpu_hours;
        }
        ClassSummary {
            jobs,
            largest_run_gpus,
            gpu_hours,
            gpu_hours_share: 0.0,
            mean_util_frac: (util_weight > 0.0).then(|| util_sum / util_weight),
            util_weight_gpu_hours: util_weight,
        }
    };
    let mut breakdown = ClassBreakdown {
        training: merged(WorkloadClass::Training),
        inference: merged(WorkloadClass::Inference),
        burst: merged(WorkloadClass::Burst),
    };
    let all = breakdown.training.gpu_hours + breakdown.inference.gpu_hours + breakdown.burst.gpu_hours;
    for s in [&mut breakdown.training, &mut breakdown.inference, &mut breakdown.burst] {
        s.gpu_hours_share = if all > 0.0 { s.gpu_hours / all } else { 0.0 };
    }
    breakdown
}

/// Audits of disjoint sets of clusters over the same window, as one: clusters side by side,
/// everything else summed. None when there is nothing to merge.
pub fn merge_audits(parts: Vec<AuditReport>) -> Option<AuditReport> {
    let first = parts.first()?;
    let window = first.window.clone();
    let gpu_hours_counting = first.gpu_hours_counting;
    let classes = merge_classes(&parts.iter().map(|p| &p.classes).collect::<Vec<_>>());
    let mut rows_rejected: BTreeMap<RejectReason, u64> = BTreeMap::new();
    let mut rules: Vec<RuleUse> = Vec::new();
    let mut matrix = [[0u64; 3]; 3];
    let mut unknown_labels = Vec::new();
    let mut merged = AuditReport {
        window,
        jobs_total: 0,
        runs_total: 0,
        rows_rejected: BTreeMap::new(),
        rows_rejected_total: 0,
        rejected_samples: Vec::new(),
        gpu_hours_total: 0.0,
        gpu_hours_counting,
        classes,
        clusters: Vec::new(),
        rules: Vec::new(),
        label_agreement: None,
        unknown_labels: Vec::new(),
        top_jobs: Vec::new(),
        // Partitions are job logs only: measured samples are attached to the merged audit.
        measured_utilization: None,
        measurement_notes: Vec::new(),
        pending: PendingDemand::default(),
    };
    for part in parts {
        merged.jobs_total += part.jobs_total;
        merged.runs_total += part.runs_total;
        merged.rows_rejected_total += part.rows_rejected_total;
        merged.gpu_hours_total += part.gpu_hours_total;
        merged.pending.merge(&part.pending);
        for (reason, count) in part.rows_rejected {
            *rows_rejected.entry(reason).or_insert(0) += count;
        }
        merged.rejected_samples.extend(part.rejected_samples);
        merged.clusters.extend(part.clusters);
        merged.top_jobs.extend(part.top_jobs);
        unknown_labels.extend(part.unknown_labels);
        for rule in part.rules {
            match rules.iter_mut().find(|r| r.rule == rule.rule) {
                Some(r) => {
                    r.jobs += rule.jobs;
                    r.gpu_hours += rule.gpu_hours;
                }
                None => rules.push(rule),
            }
        }
        if let Some(agreement) = part.label_agreement {
            for (row, counts) in agreement.matrix.iter().enumerate() {
                for (column, count) in counts.iter().enumerate() {
                    matrix[row][column] += count;
                }
            }
        }
    }
    merged.rows_rejected = rows_rejected;
    merged.clusters.sort_by(|a, b| a.name.cmp(&b.name));
    rules.sort_by(|a, b| b.gpu_hours.total_cmp(&a.gpu_hours));
    merged.rules = rules;
    merged.unknown_labels = merge_unknown_labels(unknown_labels);
    let labeled: u64 = matrix.iter().flatten().sum();
    merged.label_agreement = (labeled > 0).then(|| LabelAgreement {
        labeled_jobs: labeled,
        agreement_frac: (0..3).map(|i| matrix[i][i]).sum::<u64>() as f64 / labeled as f64,
        matrix,
    });
    Some(merged)
}

mod known_sum;
pub use known_sum::KnownSum;

#[cfg(test)]
mod tests;
