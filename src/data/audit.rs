//! The audit of DOMAIN.md section 3: per cluster and class, jobs, GPU-hours, utilization over
//! time, peak and p95 concurrency, and the stranded spend (paid for, idle).
//!
//! GPU-hours count what ran: each run (attempt) is clipped to the observation window and
//! summed, so the gaps between a job's attempts, when it held no GPUs, cost nothing.

use std::collections::BTreeMap;

use polars::prelude::*;
use serde::Serialize;

use super::canonical as c;
use super::classify::{self, CLASS_CODE, JOB_KEY, LABEL_CODE, RULE_CLASS_CODE, RULE_INDEX, run_features};
use super::reject::{Quarantine, RejectReason, RejectedRow};
use crate::model::workload::{ClassificationRules, WorkloadClass};

const MS_PER_MINUTE: i64 = 60_000;
const MS_PER_HOUR: f64 = 3_600_000.0;
const MINUTES_PER_HOUR: usize = 60;

/// Which span of the log the audit looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowSpec {
    /// Days before the end; `None` with no `since` means the whole log.
    pub days: Option<f64>,
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
}

impl Default for WindowSpec {
    /// The last 90 days of the data.
    fn default() -> WindowSpec {
        WindowSpec {
            days: Some(90.0),
            since_ms: None,
            until_ms: None,
        }
    }
}

/// What a cluster costs and holds, from the plan or the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterPricing {
    pub name: String,
    pub capacity_gpus: Option<f64>,
    pub usd_per_gpu_hour: f64,
    pub source: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AuditSettings {
    pub window: WindowSpec,
    pub hours_per_month: f64,
    pub clusters: Vec<ClusterPricing>,
    /// Price for clusters the plan does not name.
    pub default_usd_per_gpu_hour: f64,
    pub default_price_source: String,
    /// Clusters averaging below this are candidates for a shorter commitment.
    pub min_utilization_frac: f64,
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
    fn get_mut(&mut self, class: WorkloadClass) -> &mut ClassSummary {
        match class {
            WorkloadClass::Training => &mut self.training,
            WorkloadClass::Inference => &mut self.inference,
            WorkloadClass::Burst => &mut self.burst,
        }
    }

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
}

fn err(e: PolarsError) -> String {
    e.to_string()
}

fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map_or_else(|| ms.to_string(), |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// Resolves the observation window against the data's own span.
fn resolve_window(runs: &DataFrame, spec: WindowSpec) -> Result<Window, String> {
    let bounds = runs
        .clone()
        .lazy()
        .select([
            col(c::START).cast(DataType::Int64).min().alias("min_start"),
            col(c::END).cast(DataType::Int64).max().alias("max_end"),
            col(c::START).cast(DataType::Int64).max().alias("max_start"),
        ])
        .collect()
        .map_err(err)?;
    let get = |name: &str| -> Result<Option<i64>, String> {
        Ok(bounds.column(name).map_err(err)?.i64().map_err(err)?.get(0))
    };
    let data_end = match (get("max_end")?, get("max_start")?) {
        (Some(end), Some(start)) => end.max(start),
        (None, Some(start)) => start,
        _ => return Err("no usable rows: nothing to audit".to_string()),
    };
    let data_start = get("min_start")?.unwrap_or(data_end);
    let end_ms = spec.until_ms.unwrap_or(data_end);
    let start_ms = match (spec.since_ms, spec.days) {
        (Some(since), _) => since,
        (None, Some(days)) => (end_ms - (days * 24.0 * MS_PER_HOUR) as i64).max(data_start.min(end_ms)),
        (None, None) => data_start,
    };
    if end_ms <= start_ms {
        return Err(format!(
            "the observation window is empty: {} to {}",
            iso(start_ms),
            iso(end_ms)
        ));
    }
    Ok(Window {
        start: iso(start_ms),
        end: iso(end_ms),
        start_ms,
        end_ms,
        days: (end_ms - start_ms) as f64 / (24.0 * MS_PER_HOUR),
    })
}

/// The runs with their classification features: computed here unless the reader did.
fn with_features(runs: &DataFrame, rules: &ClassificationRules) -> LazyFrame {
    let lf = runs.clone().lazy();
    if runs.column(JOB_KEY).is_ok() {
        lf
    } else {
        lf.with_columns(run_features(rules))
    }
}

/// Classified runs that touch the window, clipped to it (`s`, `e` in ms), with the weight
/// 1 / (the job's runs in the window) so that summing weights counts jobs.
fn clipped_runs(runs: &DataFrame, rules: &ClassificationRules, window: &Window) -> Result<DataFrame, String> {
    let start = col(c::START)
        .cast(DataType::Int64)
        .clip(lit(window.start_ms), lit(window.end_ms));
    let end = col(c::END)
        .cast(DataType::Int64)
        .fill_null(lit(window.end_ms))
        .clip(lit(window.start_ms), lit(window.end_ms));
    classify::classify_runs(with_features(runs, rules), rules, window.end_ms)
        .map_err(err)?
        // Runs that touch the window, edges included: a job started at the log's last instant counts.
        .filter(
            col(c::START).cast(DataType::Int64).lt_eq(lit(window.end_ms)).and(
                col(c::END)
                    .cast(DataType::Int64)
                    .fill_null(lit(window.end_ms))
                    .gt_eq(lit(window.start_ms)),
            ),
        )
        .select([
            col(c::CLUSTER),
            col(CLASS_CODE),
            col(RULE_INDEX),
            col(LABEL_CODE),
            col(RULE_CLASS_CODE),
            start.alias("s"),
            end.alias("e"),
            col(c::GPUS),
            col(c::GPU_UTIL_FRAC),
            (lit(1.0) / len().over([col(JOB_KEY)]).map_err(err)?.cast(DataType::Float64)).alias(JOB_WEIGHT),
        ])
        .collect()
        .map_err(err)
}

const JOB_WEIGHT: &str = "__job_weight";

/// Per cluster and class: jobs, GPU-hours, and utilization-weighted GPU-hours.
struct ClassTotals {
    jobs: u64,
    gpu_hours: f64,
    util_gpu_hours: f64,
    util_weight: f64,
}

fn class_totals(clipped: &DataFrame, by_cluster: bool) -> Result<BTreeMap<(String, usize), ClassTotals>, String> {
    let hours = (col("e") - col("s")).cast(DataType::Float64) / lit(MS_PER_HOUR);
    let gpu_hours = col(c::GPUS) * hours;
    let weight = when(col(c::GPU_UTIL_FRAC).is_not_null())
        .then(gpu_hours.clone())
        .otherwise(lit(0.0));
    let keys = if by_cluster {
        vec![col(c::CLUSTER), col(CLASS_CODE)]
    } else {
        vec![col(CLASS_CODE)]
    };
    let grouped = clipped
        .clone()
        .lazy()
        .group_by(keys)
        .agg([
            col(JOB_WEIGHT).sum().alias("jobs"),
            gpu_hours.sum().alias("gpu_hours"),
            (col(c::GPU_UTIL_FRAC).fill_null(lit(0.0)) * weight.clone())
                .sum()
                .alias("util_gpu_hours"),
            weight.sum().alias("util_weight"),
        ])
        .collect()
        .map_err(err)?;
    let classes = grouped.column(CLASS_CODE).map_err(err)?.u32().map_err(err)?.clone();
    let clusters = if by_cluster {
        Some(grouped.column(c::CLUSTER).map_err(err)?.str().map_err(err)?.clone())
    } else {
        None
    };
    let floats = |name: &str| -> Result<Float64Chunked, String> {
        Ok(grouped.column(name).map_err(err)?.f64().map_err(err)?.clone())
    };
    let (jobs, gpu_hours, util_gpu_hours, util_weight) = (
        floats("jobs")?,
        floats("gpu_hours")?,
        floats("util_gpu_hours")?,
        floats("util_weight")?,
    );
    let mut out = BTreeMap::new();
    for i in 0..grouped.height() {
        let cluster = clusters.as_ref().and_then(|c| c.get(i)).unwrap_or("").to_string();
        out.insert(
            (cluster, classes.get(i).unwrap_or(0) as usize),
            ClassTotals {
                jobs: jobs.get(i).unwrap_or(0.0).round() as u64,
                gpu_hours: gpu_hours.get(i).unwrap_or(0.0),
                util_gpu_hours: util_gpu_hours.get(i).unwrap_or(0.0),
                util_weight: util_weight.get(i).unwrap_or(0.0),
            },
        );
    }
    Ok(out)
}

fn breakdown_of(totals: &BTreeMap<(String, usize), ClassTotals>, cluster: &str) -> ClassBreakdown {
    let mut breakdown = ClassBreakdown {
        training: Default::default(),
        inference: Default::default(),
        burst: Default::default(),
    };
    let all: f64 = WorkloadClass::ALL
        .iter()
        .filter_map(|k| totals.get(&(cluster.to_string(), *k as usize)))
        .map(|t| t.gpu_hours)
        .sum();
    for class in WorkloadClass::ALL {
        if let Some(t) = totals.get(&(cluster.to_string(), class as usize)) {
            *breakdown.get_mut(class) = ClassSummary {
                jobs: t.jobs,
                gpu_hours: t.gpu_hours,
                gpu_hours_share: if all > 0.0 { t.gpu_hours / all } else { 0.0 },
                mean_util_frac: (t.util_weight > 0.0).then(|| t.util_gpu_hours / t.util_weight),
            };
        }
    }
    breakdown
}

/// Minute-resolution occupancy of one cluster, built from difference arrays: a run adds its
/// GPUs to every minute it touches.
struct Occupancy {
    busy_by_class: [Vec<f64>; 3],
    utilized: Vec<f64>,
}

impl Occupancy {
    fn new(minutes: usize) -> Occupancy {
        Occupancy {
            busy_by_class: [vec![0.0; minutes + 1], vec![0.0; minutes + 1], vec![0.0; minutes + 1]],
            utilized: vec![0.0; minutes + 1],
        }
    }

    fn add(&mut self, first_minute: usize, end_minute: usize, class: usize, gpus: f64, utilized_gpus: f64) {
        self.busy_by_class[class][first_minute] += gpus;
        self.busy_by_class[class][end_minute] -= gpus;
        self.utilized[first_minute] += utilized_gpus;
        self.utilized[end_minute] -= utilized_gpus;
    }

    fn integrate(&mut self) {
        for series in self.busy_by_class.iter_mut().chain(std::iter::once(&mut self.utilized)) {
            let mut level = 0.0;
            for value in series.iter_mut() {
                level += *value;
                *value = level.max(0.0);
            }
            series.pop();
        }
    }
}

fn hourly_means(minutes: &[f64]) -> Vec<f64> {
    minutes
        .chunks(MINUTES_PER_HOUR)
        .map(|hour| hour.iter().sum::<f64>() / hour.len() as f64)
        .collect()
}

fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

pub fn audit(
    runs: &DataFrame,
    quarantine: &Quarantine,
    rules: &ClassificationRules,
    settings: &AuditSettings,
) -> Result<AuditReport, String> {
    let window = resolve_window(runs, settings.window)?;
    let clipped = clipped_runs(runs, rules, &window)?;
    let per_cluster = class_totals(&clipped, true)?;
    let overall = class_totals(&clipped, false)?;

    let minutes = ((window.end_ms - window.start_ms + MS_PER_MINUTE - 1) / MS_PER_MINUTE).max(1) as usize;
    let mut occupancy: Vec<(String, Occupancy, u64)> = Vec::new();
    let mut cluster_index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let cluster_col = clipped.column(c::CLUSTER).map_err(err)?.str().map_err(err)?.clone();
    let class_col = clipped.column(CLASS_CODE).map_err(err)?.u32().map_err(err)?.clone();
    let start_col = clipped.column("s").map_err(err)?.i64().map_err(err)?.clone();
    let end_col = clipped.column("e").map_err(err)?.i64().map_err(err)?.clone();
    let gpus_col = clipped.column(c::GPUS).map_err(err)?.f64().map_err(err)?.clone();
    let util_col = clipped
        .column(c::GPU_UTIL_FRAC)
        .map_err(err)?
        .f64()
        .map_err(err)?
        .clone();
    let rows = cluster_col
        .iter()
        .zip(class_col.iter())
        .zip(start_col.iter())
        .zip(end_col.iter())
        .zip(gpus_col.iter())
        .zip(util_col.iter());
    for (((((cluster, class), start), end), gpus), util) in rows {
        let (Some(cluster), Some(start), Some(end)) = (cluster, start, end) else {
            continue;
        };
        let index = match cluster_index.get(cluster) {
            Some(&i) => i,
            None => {
                cluster_index.insert(cluster.to_string(), occupancy.len());
                occupancy.push((cluster.to_string(), Occupancy::new(minutes), 0));
                occupancy.len() - 1
            }
        };
        let (_, occ, runs_seen) = &mut occupancy[index];
        *runs_seen += 1;
        let gpus = gpus.unwrap_or(0.0);
        let first = ((start - window.start_ms) / MS_PER_MINUTE) as usize;
        let last = ((end - window.start_ms + MS_PER_MINUTE - 1) / MS_PER_MINUTE) as usize;
        let class = class.unwrap_or(0) as usize;
        occ.add(
            first.min(minutes),
            last.min(minutes),
            class,
            gpus,
            gpus * util.unwrap_or(1.0),
        );
    }
    occupancy.sort_by(|a, b| a.0.cmp(&b.0));
    let runs_total: u64 = occupancy.iter().map(|(_, _, n)| n).sum();

    let mut clusters = Vec::new();
    let window_hours = (window.end_ms - window.start_ms) as f64 / MS_PER_HOUR;
    for (name, mut occ, _) in occupancy {
        occ.integrate();
        let breakdown = breakdown_of(&per_cluster, &name);
        let busy: Vec<f64> = (0..minutes)
            .map(|m| occ.busy_by_class.iter().map(|s| s[m]).sum())
            .collect();
        let peak = busy.iter().copied().fold(0.0, f64::max);
        let pricing = settings.clusters.iter().find(|p| p.name == name);
        let (capacity, capacity_source) = match pricing.and_then(|p| p.capacity_gpus) {
            Some(capacity) => (capacity, "plan"),
            None => (peak, "observed peak"),
        };
        let (usd_per_gpu_hour, price_source) = match pricing {
            Some(p) => (p.usd_per_gpu_hour, p.source.clone()),
            None => (settings.default_usd_per_gpu_hour, settings.default_price_source.clone()),
        };
        let gpu_hours: f64 = WorkloadClass::ALL.iter().map(|&k| breakdown.get(k).gpu_hours).sum();
        let jobs: u64 = WorkloadClass::ALL.iter().map(|&k| breakdown.get(k).jobs).sum();
        let utilization_reported = WorkloadClass::ALL
            .iter()
            .any(|&k| breakdown.get(k).mean_util_frac.is_some());
        let utilized_hours: f64 = occ.utilized.iter().sum::<f64>() / MINUTES_PER_HOUR as f64;
        let capacity_hours = capacity * window_hours;
        let share = |x: f64, of: f64| if of > 0.0 { x / of } else { 0.0 };
        let non_training: Vec<usize> = (0..minutes).filter(|&m| occ.busy_by_class[0][m] <= 0.0).collect();
        let non_training_time_frac = non_training.len() as f64 / minutes as f64;
        let non_training_utilization_frac = if non_training.is_empty() || capacity <= 0.0 {
            0.0
        } else {
            (non_training.iter().map(|&m| occ.utilized[m]).sum::<f64>() / (non_training.len() as f64 * capacity))
                .min(1.0)
        };
        let monthly_cost_usd = capacity * usd_per_gpu_hour * settings.hours_per_month;
        let stranded = monthly_cost_usd * non_training_time_frac * (1.0 - non_training_utilization_frac);
        let utilization_frac = share(utilized_hours, capacity_hours);
        let mut flags = Vec::new();
        if WorkloadClass::ALL.iter().all(|&k| breakdown.get(k).jobs > 0) {
            flags.push("runs all three classes: separate them".to_string());
        }
        if utilization_frac < settings.min_utilization_frac {
            flags.push(format!(
                "below {:.0} % utilization: candidate for a shorter commitment",
                settings.min_utilization_frac * 100.0
            ));
        }
        if !utilization_reported {
            flags.push("no utilization in the log: allocation counted as use".to_string());
        }
        clusters.push(ClusterAudit {
            name,
            capacity_gpus: capacity,
            capacity_source: capacity_source.to_string(),
            jobs,
            gpu_hours,
            allocation_frac: share(gpu_hours, capacity_hours),
            utilization_frac,
            utilization_reported,
            peak_concurrent_gpus: peak,
            p95_concurrent_gpus: percentile(&busy, 0.95),
            classes: breakdown,
            non_training_time_frac,
            non_training_utilization_frac,
            usd_per_gpu_hour,
            price_source,
            monthly_cost_usd,
            stranded_usd_per_month: stranded,
            flags,
            hourly: HourlySeries {
                start_ms: window.start_ms,
                busy_gpus: hourly_means(&busy),
                utilized_gpus: hourly_means(&occ.utilized),
                training_gpus: hourly_means(&occ.busy_by_class[0]),
                inference_gpus: hourly_means(&occ.busy_by_class[1]),
                burst_gpus: hourly_means(&occ.busy_by_class[2]),
            },
        });
    }
    let classes = breakdown_of(&overall, "");
    let gpu_hours_total: f64 = clusters.iter().map(|c| c.gpu_hours).sum();
    let jobs_total = clusters.iter().map(|c| c.jobs).sum();
    Ok(AuditReport {
        window,
        jobs_total,
        runs_total,
        rows_rejected: quarantine.counts.clone(),
        rows_rejected_total: quarantine.total(),
        rejected_samples: quarantine.samples.clone(),
        gpu_hours_total,
        gpu_hours_counting: "each run (attempt) clipped to the window and summed: gaps between attempts hold no GPUs",
        classes,
        clusters,
        rules: rule_uses(&clipped, rules)?,
        label_agreement: label_agreement(&clipped)?,
    })
}

fn rule_uses(clipped: &DataFrame, rules: &ClassificationRules) -> Result<Vec<RuleUse>, String> {
    let hours = (col("e") - col("s")).cast(DataType::Float64) / lit(MS_PER_HOUR);
    let grouped = clipped
        .clone()
        .lazy()
        .group_by([col(RULE_INDEX), col(CLASS_CODE)])
        .agg([
            col(JOB_WEIGHT).sum().alias("jobs"),
            (col(c::GPUS) * hours).sum().alias("gpu_hours"),
        ])
        .sort(
            ["gpu_hours"],
            SortMultipleOptions::default().with_order_descending(true),
        )
        .collect()
        .map_err(err)?;
    let indexes = grouped.column(RULE_INDEX).map_err(err)?.u32().map_err(err)?.clone();
    let classes = grouped.column(CLASS_CODE).map_err(err)?.u32().map_err(err)?.clone();
    let jobs = grouped.column("jobs").map_err(err)?.f64().map_err(err)?.clone();
    let hours = grouped.column("gpu_hours").map_err(err)?.f64().map_err(err)?.clone();
    Ok((0..grouped.height())
        .map(|i| RuleUse {
            rule: classify::rule_name(rules, indexes.get(i).unwrap_or(u32::MAX)),
            class: class_of_code(classes.get(i).unwrap_or(0)).label().to_string(),
            jobs: jobs.get(i).unwrap_or(0.0).round() as u64,
            gpu_hours: hours.get(i).unwrap_or(0.0),
        })
        .collect())
}

fn class_of_code(code: u32) -> WorkloadClass {
    WorkloadClass::ALL
        .into_iter()
        .find(|c| *c as u32 == code)
        .unwrap_or(WorkloadClass::Training)
}

fn label_agreement(clipped: &DataFrame) -> Result<Option<LabelAgreement>, String> {
    let grouped = clipped
        .clone()
        .lazy()
        .filter(col(LABEL_CODE).is_not_null())
        .group_by([col(LABEL_CODE), col(RULE_CLASS_CODE)])
        .agg([col(JOB_WEIGHT).sum().alias("jobs")])
        .collect()
        .map_err(err)?;
    let labels = grouped.column(LABEL_CODE).map_err(err)?.u32().map_err(err)?.clone();
    let rules = grouped
        .column(RULE_CLASS_CODE)
        .map_err(err)?
        .u32()
        .map_err(err)?
        .clone();
    let jobs = grouped.column("jobs").map_err(err)?.f64().map_err(err)?.clone();
    let mut matrix = [[0u64; 3]; 3];
    for i in 0..grouped.height() {
        let label = class_of_code(labels.get(i).unwrap_or(0)) as usize;
        // No rule matched: training by default.
        let rule = class_of_code(rules.get(i).unwrap_or(WorkloadClass::Training as u32)) as usize;
        matrix[label][rule] += jobs.get(i).unwrap_or(0.0).round() as u64;
    }
    let labeled: u64 = matrix.iter().flatten().sum();
    if labeled == 0 {
        return Ok(None);
    }
    let agreeing: u64 = (0..3).map(|i| matrix[i][i]).sum();
    Ok(Some(LabelAgreement {
        labeled_jobs: labeled,
        agreement_frac: agreeing as f64 / labeled as f64,
        matrix,
    }))
}
