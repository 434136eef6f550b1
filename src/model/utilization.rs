//! Where each cluster's utilization comes from, and what measured utilization does to the
//! audit: a cluster measured by DCGM (Prometheus or exported samples) has its utilization and
//! stranded spend taken from the hardware, with the job log's own figures kept beside them.
//!
//! The job log knows which minutes ran no training; DCGM knows how busy the GPUs were in each
//! hour. The measured utilization in non-training time weighs each measured hour by its
//! non-training minutes: `Σ_h ntm_h · u_h / Σ_h ntm_h`. Hours without samples do not count.

use serde::Serialize;

use super::catalog::Term;
use super::fleet::{AuditReport, ClusterAudit, SpendParts};

/// Which figure a cluster's utilization and stranded spend stand on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UtilizationSource {
    /// DCGM samples of the cluster's GPUs (Prometheus or an exported file).
    Measured,
    /// The job log's own utilization column.
    JobLog,
    /// Neither: allocation counted as use, so idle allocated GPUs read as busy.
    Allocation,
}

impl UtilizationSource {
    pub fn label(self) -> &'static str {
        match self {
            UtilizationSource::Measured => "measured (DCGM)",
            UtilizationSource::JobLog => "job log",
            UtilizationSource::Allocation => "allocation (no utilization)",
        }
    }
}

/// One cluster's utilization as DCGM measured it: hourly means aligned with the audit window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterMeasurement {
    pub cluster: String,
    /// The DCGM field the figures come from, e.g. `DCGM_FI_PROF_GR_ENGINE_ACTIVE`.
    pub metric: String,
    /// Where the samples came from: `prometheus http://…` or the file they were read from.
    pub origin: String,
    /// GPU series seen (the most in any hour).
    pub gpu_series: u64,
    /// Hosts seen, when the origin names them (0 when it aggregated them away).
    pub hosts: u64,
    /// The mean over the cluster's GPU series in each hour of the window; null without samples.
    pub hourly_util_frac: Vec<Option<f64>>,
}

impl ClusterMeasurement {
    /// The mean of the hours that have samples.
    pub fn mean_util_frac(&self) -> Option<f64> {
        let (sum, hours) = self
            .hourly_util_frac
            .iter()
            .flatten()
            .fold((0.0, 0usize), |(s, n), u| (s + u, n + 1));
        (hours > 0).then(|| sum / hours as f64)
    }

    pub fn hours_measured(&self) -> usize {
        self.hourly_util_frac.iter().flatten().count()
    }
}

/// What the audit shows of a measured cluster, beside the log's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredCluster {
    pub metric: String,
    pub origin: String,
    pub gpu_series: u64,
    pub hosts: u64,
    pub hours_measured: usize,
    pub mean_util_frac: f64,
    pub non_training_util_frac: f64,
    pub hourly_util_frac: Vec<Option<f64>>,
}

/// The job log's own figures for a cluster, kept when measurement replaces them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogFigures {
    pub utilization_frac: f64,
    pub non_training_utilization_frac: f64,
    pub non_training_idle_usd_per_month: f64,
}

/// The measured utilization over non-training time: each measured hour weighed by its
/// non-training minutes. None when no measured hour had any.
pub fn non_training_util_frac(hourly_util_frac: &[Option<f64>], non_training_minutes: &[u32]) -> Option<f64> {
    let (weighted, minutes) = hourly_util_frac
        .iter()
        .zip(non_training_minutes)
        .filter_map(|(u, &m)| u.map(|u| (u, f64::from(m))))
        .fold((0.0, 0.0), |(w, n), (u, m)| (w + u * m, n + m));
    (minutes > 0.0).then(|| weighted / minutes)
}

/// Puts each measurement on its cluster: utilization, non-training utilization and stranded
/// spend from the hardware, the log's figures kept under `log`. Measurements of clusters the
/// audit does not have are returned, for the caller to report.
pub fn apply_measurements(
    report: &mut AuditReport,
    measurements: &[ClusterMeasurement],
    min_utilization_frac: f64,
) -> Vec<String> {
    let mut unmatched = Vec::new();
    for measurement in measurements {
        let Some(cluster) = report.clusters.iter_mut().find(|c| c.name == measurement.cluster) else {
            unmatched.push(measurement.cluster.clone());
            continue;
        };
        apply_to_cluster(cluster, measurement, min_utilization_frac);
    }
    unmatched
}

fn apply_to_cluster(cluster: &mut ClusterAudit, measurement: &ClusterMeasurement, min_utilization_frac: f64) {
    let Some(mean_util_frac) = measurement.mean_util_frac() else {
        return;
    };
    let non_training = non_training_util_frac(&measurement.hourly_util_frac, &cluster.hourly.non_training_minutes)
        .unwrap_or(mean_util_frac);
    let log = LogFigures {
        utilization_frac: cluster.utilization_frac,
        non_training_utilization_frac: cluster.non_training_utilization_frac,
        non_training_idle_usd_per_month: cluster.non_training_idle_usd_per_month,
    };
    cluster.utilization_frac = mean_util_frac;
    cluster.non_training_utilization_frac = non_training;
    cluster.non_training_idle_usd_per_month =
        cluster.monthly_cost_usd * cluster.non_training_time_frac * (1.0 - non_training.clamp(0.0, 1.0));
    cluster.utilization_source = UtilizationSource::Measured;
    cluster.spend_parts = SpendParts::of(
        cluster.monthly_cost_usd,
        cluster.allocation_frac,
        mean_util_frac,
        UtilizationSource::Measured,
    );
    cluster.flags = cluster_flags(&FlagInputs {
        runs_all_classes: cluster.all_classes(),
        has_gpus: cluster.gpu_hours > 0.0,
        utilization_frac: mean_util_frac,
        source: UtilizationSource::Measured,
        min_utilization_frac,
        term: cluster.term,
    });
    cluster.log = Some(log);
    cluster.measured = Some(MeasuredCluster {
        metric: measurement.metric.clone(),
        origin: measurement.origin.clone(),
        gpu_series: measurement.gpu_series,
        hosts: measurement.hosts,
        hours_measured: measurement.hours_measured(),
        mean_util_frac,
        non_training_util_frac: non_training,
        hourly_util_frac: measurement.hourly_util_frac.clone(),
    });
}

/// The cluster's flags: all three classes on one cluster, utilization below the threshold, and
/// where allocation stood in for utilization.
/// What a cluster's flags read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlagInputs {
    pub runs_all_classes: bool,
    pub has_gpus: bool,
    pub utilization_frac: f64,
    pub source: UtilizationSource,
    pub min_utilization_frac: f64,
    /// The plan's term for the cluster; None when the plan does not list it.
    pub term: Option<Term>,
}

pub fn cluster_flags(inputs: &FlagInputs) -> Vec<String> {
    let FlagInputs {
        runs_all_classes,
        has_gpus,
        utilization_frac,
        source,
        min_utilization_frac,
        term,
    } = *inputs;
    let mut flags = Vec::new();
    if runs_all_classes {
        flags.push("runs all three classes: separate them".to_string());
    }
    // Seed 001's flag is about commitments: a cluster that held no GPU, or one bought by the
    // hour already, has none to shorten.
    let committed = term.map(|t| !matches!(t, Term::OnDemand | Term::Spot));
    if has_gpus && utilization_frac < min_utilization_frac && committed != Some(false) {
        let measure = match source {
            UtilizationSource::Allocation => "allocation, the log has no utilization",
            UtilizationSource::JobLog => "busy time, from the job log's utilization",
            UtilizationSource::Measured => "busy time, measured by DCGM",
        };
        let advice = match committed {
            Some(_) => "candidate for a shorter commitment",
            None => "if it is committed (the plan does not list it), a candidate for a shorter commitment",
        };
        flags.push(format!(
            "below {:.0} % utilization ({measure}): {advice}",
            min_utilization_frac * 100.0
        ));
    }
    if source == UtilizationSource::Allocation {
        flags.push("no utilization in the log: allocation counted as use".to_string());
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_training_hours_weigh_the_measured_mean() {
        // Hour 0: all 60 minutes non-training at 10 %; hour 1: 30 minutes at 50 %;
        // hour 2: unmeasured; hour 3: training all hour at 90 % (no weight).
        let hourly = [Some(0.1), Some(0.5), None, Some(0.9)];
        let minutes = [60, 30, 60, 0];
        let got = non_training_util_frac(&hourly, &minutes).expect("measured");
        assert!((got - (0.1 * 60.0 + 0.5 * 30.0) / 90.0).abs() < 1e-12);
        assert_eq!(non_training_util_frac(&[None, Some(0.9)], &[60, 0]), None);
    }

    #[test]
    fn flags_follow_the_source_and_the_commitment() {
        let inputs = FlagInputs {
            runs_all_classes: false,
            has_gpus: true,
            utilization_frac: 0.3,
            source: UtilizationSource::Allocation,
            min_utilization_frac: 0.4,
            term: Some(Term::OneYear),
        };
        let flags = cluster_flags(&inputs);
        assert_eq!(flags.len(), 2);
        assert!(flags[0].contains("(allocation, the log has no utilization): candidate for a shorter commitment"));
        assert!(flags[1].contains("allocation counted as use"));
        let busy = FlagInputs {
            source: UtilizationSource::Measured,
            ..inputs
        };
        assert!(cluster_flags(&busy)[0].contains("busy time, measured by DCGM"));
        // On demand or spot, there is no commitment to shorten.
        for term in [Term::OnDemand, Term::Spot] {
            assert!(
                cluster_flags(&FlagInputs {
                    term: Some(term),
                    ..busy
                })
                .is_empty()
            );
        }
        assert!(
            cluster_flags(&FlagInputs {
                term: Some(Term::Monthly),
                ..busy
            })[0]
                .contains("shorter")
        );
        // Not in the plan: the term is unknown, and the flag says so.
        assert!(cluster_flags(&FlagInputs { term: None, ..busy })[0].contains("if it is committed"));
        let all = FlagInputs {
            runs_all_classes: true,
            utilization_frac: 0.5,
            ..busy
        };
        assert_eq!(
            cluster_flags(&all),
            vec!["runs all three classes: separate them".to_string()]
        );
        assert!(
            cluster_flags(&FlagInputs {
                has_gpus: false,
                ..busy
            })
            .is_empty()
        );
    }
}
