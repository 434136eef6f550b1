//! What gpuplan pulls from Prometheus for an audit: each cluster's hourly DCGM utilization
//! (grouped by the cluster label on the server, or by host and mapped here), and for a
//! Kubernetes fleet its pods as a job log.

use std::collections::BTreeMap;

use super::client::{PrometheusClient, PrometheusError};
use crate::data::audit::host_map::{HostMap, unmapped_note};
use crate::data::canonical::JobRun;
use crate::data::prometheus::cluster_hours::{ClusterHours, GroupHours, accumulate, measurements};
use crate::data::prometheus::pods::{
    PodUtilization, add_pod_utilization, owner_query, owners, pod_labels_query, pod_runs, pod_utilization_queries,
    requests_query, with_label_kinds,
};
use crate::data::prometheus::query::{
    Grouping, HOST_LABELS, MAX_POINTS_PER_QUERY, StepGrid, UTILIZATION_METRICS, utilization_queries,
};
use crate::data::prometheus::response::Matrix;
use crate::model::fleet::{AuditReport, Window, iso_utc};
use crate::model::plan::PrometheusSource;
use crate::model::utilization::{ClusterMeasurement, UtilizationSource};
use crate::shared::format::count_of;

/// Queries done and to do, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PullProgress {
    pub done: u64,
    pub total: u64,
}

/// Each cluster's measured utilization, and what the pull noticed.
#[derive(Debug, Clone, PartialEq)]
pub struct UtilizationPull {
    pub measurements: Vec<ClusterMeasurement>,
    pub notes: Vec<String>,
    pub queries: u64,
    pub bytes_received: u64,
    /// What the server warned of in any answer (a partial response, a store that did not
    /// answer), each once.
    pub warnings: Vec<String>,
    /// Cluster → steps left out because its sum or its count lacked them.
    pub unpaired_steps: BTreeMap<String, u64>,
    /// Cluster → steps whose every value was NaN or infinite.
    pub non_finite_steps: BTreeMap<String, u64>,
    /// Cluster → steps with a sum over a count of 0 (no GPU series counted).
    pub empty_count_steps: BTreeMap<String, u64>,
}

/// What a pass over the metrics gave: groups, and what was left out or said on the way.
struct Pulled {
    groups: MetricGroups,
    /// Points of series without the group's label.
    unlabelled: u64,
    non_finite: u64,
    warnings: Vec<String>,
    infos: Vec<String>,
}

/// Adds remarks not yet seen, keeping their order.
fn add_new(into: &mut Vec<String>, remarks: &[String]) {
    for remark in remarks {
        if !into.contains(remark) {
            into.push(remark.clone());
        }
    }
}

struct Tally<'a> {
    done: u64,
    total: u64,
    report: &'a mut dyn FnMut(PullProgress),
}

impl Tally<'_> {
    fn tick(&mut self) {
        self.done += 1;
        self.total = self.total.max(self.done);
        (self.report)(PullProgress {
            done: self.done,
            total: self.total,
        });
    }
}

/// Per metric (in `UTILIZATION_METRICS` order), each group's hours.
type MetricGroups = [BTreeMap<String, GroupHours>; 2];

/// Sums and counts per group, per metric, over every chunk of the window; with the points of
/// series that had no group key, the points that were NaN or infinite, and what the server said.
fn pull_groups(
    client: &PrometheusClient,
    grid: &StepGrid,
    grouping: &Grouping,
    tally: &mut Tally<'_>,
) -> Result<Pulled, PrometheusError> {
    let label = match grouping {
        Grouping::Cluster(label) => Some(label.as_str()),
        Grouping::Host { .. } => None,
    };
    let mut pulled = Pulled {
        groups: [BTreeMap::new(), BTreeMap::new()],
        unlabelled: 0,
        non_finite: 0,
        warnings: Vec::new(),
        infos: Vec::new(),
    };
    for (m, metric) in UTILIZATION_METRICS.iter().enumerate() {
        let [sum_query, count_query] = utilization_queries(metric.name, grouping, grid.step_ms);
        for (first, last) in grid.chunks(MAX_POINTS_PER_QUERY) {
            let sums = client.query_range(&sum_query, first, last, grid.step_ms)?;
            tally.tick();
            let counts = client.query_range(&count_query, first, last, grid.step_ms)?;
            tally.tick();
            pulled.non_finite += sums.non_finite_points + counts.non_finite_points;
            pulled.unlabelled += accumulate(grid, label, &sums, &counts, &mut pulled.groups[m]);
            for answer in [&sums, &counts] {
                add_new(&mut pulled.warnings, &answer.warnings);
                add_new(&mut pulled.infos, &answer.infos);
            }
        }
    }
    Ok(pulled)
}

/// "partial response: …; …": the server's warnings, for a message.
pub fn warned(warnings: &[String]) -> String {
    warnings.join("; ")
}

/// Each cluster's hourly utilization over the window. Series carrying the cluster label are
/// grouped by it on the server; series without it, when a host map is known, by host, mapped
/// here. Each cluster takes the engine-active ratio when it has one, else GPU_UTIL.
pub fn pull_cluster_utilization(
    client: &PrometheusClient,
    source: &PrometheusSource,
    window: &Window,
    hosts: &HostMap,
    report: &mut dyn FnMut(PullProgress),
) -> Result<UtilizationPull, PrometheusError> {
    let grid = StepGrid::over(window, source.step_seconds);
    let per_pass = 2 * UTILIZATION_METRICS.len() as u64 * grid.chunks(MAX_POINTS_PER_QUERY).len() as u64;
    let mut tally = Tally {
        done: 0,
        total: per_pass,
        report,
    };
    let mut notes = Vec::new();
    let label = &source.cluster_label;
    let labelled = pull_groups(client, &grid, &Grouping::Cluster(label.clone()), &mut tally)?;
    let (unlabelled, mut non_finite) = (labelled.unlabelled, labelled.non_finite);
    let (mut warnings, mut infos) = (labelled.warnings, labelled.infos);
    let mut hours = [ClusterHours::default(), ClusterHours::default()];
    for (m, groups) in labelled.groups.iter().enumerate() {
        hours[m].add(groups, None);
    }
    let any_labelled = hours.iter().any(|h| !h.clusters.is_empty());
    if unlabelled > 0 && hosts.is_empty() {
        if !any_labelled {
            let labels = client
                .label_names(UTILIZATION_METRICS[0].name, window.start_ms, window.end_ms)
                .or_else(|_| client.label_names(UTILIZATION_METRICS[1].name, window.start_ms, window.end_ms))
                .unwrap_or_default();
            return Err(client_error(
                client,
                format!(
                    "the DCGM series carry no '{label}' label: set [prometheus] cluster_label (or \
                     --prometheus-cluster-label) to the label naming the cluster (the series have: {}), or map \
                     hosts to clusters with a [hosts] table",
                    if labels.is_empty() {
                        "none listed".to_string()
                    } else {
                        labels.join(", ")
                    }
                ),
            ));
        }
        notes.push(format!(
            "{} of series without a '{label}' label left out (map their hosts with a [hosts] table)",
            count_of(unlabelled, "point", "points")
        ));
    } else if unlabelled > 0 {
        tally.total += per_pass;
        let by_host = Grouping::Host { without: label.clone() };
        let by_host = pull_groups(client, &grid, &by_host, &mut tally)?;
        non_finite += by_host.non_finite;
        add_new(&mut warnings, &by_host.warnings);
        add_new(&mut infos, &by_host.infos);
        let cluster_of = |host: &str| hosts.cluster_of(host);
        for (m, groups) in by_host.groups.iter().enumerate() {
            hours[m].add(groups, Some(&cluster_of));
        }
        notes.push(format!(
            "series without a '{label}' label: hosts ({}) mapped to clusters by {}",
            HOST_LABELS.join(", "),
            hosts.describe()
        ));
    }
    if hours.iter().all(|h| h.clusters.is_empty()) && unlabelled == 0 {
        let mut message = format!(
            "no {} or {} samples between {} and {}",
            UTILIZATION_METRICS[0].name, UTILIZATION_METRICS[1].name, window.start, window.end
        );
        let total = |kind: fn(&ClusterHours) -> &BTreeMap<String, u64>| -> u64 {
            hours.iter().flat_map(|h| kind(h).values()).sum()
        };
        let mut left_out = Vec::new();
        let gaps = total(|h| &h.unpaired_steps);
        if gaps > 0 {
            left_out.push(format!(
                "{} had a sum without a count or the reverse",
                count_of(gaps, "step", "steps")
            ));
        }
        let non_finite_steps = total(|h| &h.non_finite_steps);
        if non_finite_steps > 0 {
            left_out.push(format!(
                "the server answered {}, every value NaN or infinite",
                count_of(non_finite_steps, "step", "steps")
            ));
        }
        let empty = total(|h| &h.empty_count_steps);
        if empty > 0 {
            left_out.push(format!(
                "{} had a sum over a count of 0 (no GPU series counted)",
                count_of(empty, "step", "steps")
            ));
        }
        if !left_out.is_empty() {
            message.push_str(&format!(" that could be used: {}", left_out.join("; ")));
        }
        if !warnings.is_empty() {
            message.push_str(&format!("; the server warned: {}", warned(&warnings)));
        }
        return Err(client_error(client, message));
    }
    for warning in &warnings {
        notes.push(format!(
            "the server warned (a partial response leaves out the series it could not reach): {warning}"
        ));
    }
    for info in &infos {
        notes.push(format!("the server noted: {info}"));
    }
    if non_finite > 0 {
        notes.push(format!(
            "{} NaN or infinite left out",
            count_of(non_finite, "point that was", "points that were")
        ));
    }
    let origin = format!("prometheus {}", client.shown_url());
    let preferred = measurements(&hours[0], UTILIZATION_METRICS[0], &origin);
    let fallback = measurements(&hours[1], UTILIZATION_METRICS[1], &origin);
    let mut measured = preferred.clusters;
    for cluster in fallback.clusters {
        if !measured.iter().any(|m| m.cluster == cluster.cluster) {
            notes.push(format!(
                "{}: {} (no {} samples)",
                cluster.cluster, UTILIZATION_METRICS[1].name, UTILIZATION_METRICS[0].name
            ));
            measured.push(cluster);
        }
    }
    measured.sort_by(|a, b| a.cluster.cmp(&b.cluster));
    let unpaired_steps = left_out_by_cluster(&hours, &measured, |h| &h.unpaired_steps);
    let non_finite_steps = left_out_by_cluster(&hours, &measured, |h| &h.non_finite_steps);
    let empty_count_steps = left_out_by_cluster(&hours, &measured, |h| &h.empty_count_steps);
    for (cluster, steps) in &empty_count_steps {
        notes.push(format!(
            "{cluster}: {} left out where the sum had values and the count was 0 (no GPU series counted: \
             there is no mean to take)",
            count_of(*steps, "step", "steps")
        ));
    }
    for (cluster, steps) in &unpaired_steps {
        notes.push(format!(
            "{cluster}: {} left out where the server answered the sum and not the count, or the reverse \
             (one without the other would skew the hour's mean)",
            count_of(*steps, "step", "steps")
        ));
    }
    let mut unmapped: Vec<String> = hours.iter().flat_map(|h| h.unmapped_hosts.iter().cloned()).collect();
    unmapped.sort();
    unmapped.dedup();
    if !unmapped.is_empty() {
        notes.push(unmapped_note(&unmapped));
    }
    let out_of_range = preferred.out_of_range_hours + fallback.out_of_range_hours;
    if out_of_range > 0 {
        notes.push(format!(
            "{} with a mean outside 0–100 % left out",
            count_of(out_of_range, "cluster-hour", "cluster-hours")
        ));
    }
    Ok(UtilizationPull {
        measurements: measured,
        notes,
        queries: client.requests(),
        bytes_received: client.bytes_received(),
        warnings,
        unpaired_steps,
        non_finite_steps,
        empty_count_steps,
    })
}

/// Each cluster's steps left out (of one `kind`) in the metric it was measured by; for a cluster
/// measured by neither, those of the first metric that had any.
fn left_out_by_cluster(
    hours: &[ClusterHours; 2],
    measured: &[ClusterMeasurement],
    kind: fn(&ClusterHours) -> &BTreeMap<String, u64>,
) -> BTreeMap<String, u64> {
    let mut gaps = BTreeMap::new();
    for (m, metric_hours) in hours.iter().enumerate() {
        for (cluster, &steps) in kind(metric_hours) {
            let metric_used = measured
                .iter()
                .find(|c| &c.cluster == cluster)
                .map(|c| c.metric.as_str());
            let counts = match metric_used {
                Some(name) => name == UTILIZATION_METRICS[m].name,
                None => !gaps.contains_key(cluster),
            };
            if counts {
                gaps.insert(cluster.clone(), steps);
            }
        }
    }
    gaps
}

/// Why a cluster of the audit has no measured hour although Prometheus was asked: its
/// utilization is the job log's, and this says so on the cluster and in the notes.
pub fn explain_unmeasured(report: &mut AuditReport, pull: &UtilizationPull) {
    let mut notes = Vec::new();
    for cluster in report.clusters.iter_mut().filter(|c| c.measured.is_none()) {
        let gaps = pull.unpaired_steps.get(&cluster.name).copied().unwrap_or(0);
        let non_finite = pull.non_finite_steps.get(&cluster.name).copied().unwrap_or(0);
        let empty = pull.empty_count_steps.get(&cluster.name).copied().unwrap_or(0);
        let mut why = match pull.measurements.iter().find(|m| m.cluster == cluster.name) {
            Some(_) => "its series gave no hour with a usable mean".to_string(),
            None if gaps > 0 => format!(
                "no step had both its sum and its count ({} had one without the other)",
                count_of(gaps, "step", "steps")
            ),
            None if non_finite > 0 => format!(
                "Prometheus returned its series, but every value was NaN or infinite ({})",
                count_of(non_finite, "step", "steps")
            ),
            None if empty > 0 => format!(
                "its sums came over a count of 0 GPU series ({}): there is no mean to take",
                count_of(empty, "step", "steps")
            ),
            None => "Prometheus returned no series for it".to_string(),
        };
        if !pull.warnings.is_empty() {
            why.push_str(&format!(
                "; the server's answer was partial or flagged, it warned: {}",
                warned(&pull.warnings)
            ));
        }
        let stands = match cluster.utilization_source {
            UtilizationSource::Allocation => "allocation stands in for its utilization (the log has none)",
            _ => "the job log's utilization stands",
        };
        notes.push(format!("{}: not measured, {stands}: {why}", cluster.name));
        cluster.unmeasured = Some(why);
    }
    report.measurement_notes.extend(notes);
}

fn client_error(client: &PrometheusClient, message: String) -> PrometheusError {
    PrometheusError {
        url: client.shown_url().to_string(),
        message,
    }
}

/// Pods are followed to the minute.
pub const POD_STEP_MS: i64 = 60_000;

/// A Kubernetes fleet's pods that requested GPUs over the window, as job runs.
pub struct PodPull {
    pub runs: Vec<JobRun>,
    pub notes: Vec<String>,
}

/// kube-state-metrics' GPU requests over the window as a job log: one job per pod, named by its
/// owner, queued by its namespace, its utilization from DCGM's per-pod labels where present.
pub fn pull_pods(
    client: &PrometheusClient,
    source: &PrometheusSource,
    window: &Window,
    report: &mut dyn FnMut(PullProgress),
) -> Result<PodPull, PrometheusError> {
    let first_eval = window.start_ms + POD_STEP_MS;
    let total_points = ((window.end_ms - window.start_ms) / POD_STEP_MS).max(1);
    let mut chunks = Vec::new();
    let mut k = 0;
    while k < total_points {
        let last = (k + MAX_POINTS_PER_QUERY).min(total_points) - 1;
        chunks.push((first_eval + k * POD_STEP_MS, first_eval + last * POD_STEP_MS));
        k = last + 1;
    }
    let mut tally = Tally {
        done: 0,
        total: chunks.len() as u64 * 7,
        report,
    };
    let requests = requests_query(&source.cluster_label, POD_STEP_MS);
    let mut request_answers: Vec<Matrix> = Vec::new();
    let mut owner_answers: Vec<Matrix> = Vec::new();
    let mut label_answers: Vec<Matrix> = Vec::new();
    let mut utilization: BTreeMap<(String, String), PodUtilization> = BTreeMap::new();
    let mut metric_used = None;
    let mut warnings = Vec::new();
    for &(first, last) in &chunks {
        request_answers.push(client.query_range(&requests, first, last, POD_STEP_MS)?);
        tally.tick();
        let span = last - first + POD_STEP_MS;
        owner_answers.push(client.query_range(&owner_query(span), last, last, POD_STEP_MS)?);
        tally.tick();
        let labels = pod_labels_query(&source.cluster_label, span);
        label_answers.push(client.query_range(&labels, last, last, POD_STEP_MS)?);
        tally.tick();
        for metric in UTILIZATION_METRICS {
            if metric_used.is_some_and(|m: &str| m != metric.name) {
                continue;
            }
            let queries = pod_utilization_queries(metric.name, span);
            let mut answers: [Matrix; 4] = Default::default();
            for (answer, query) in answers.iter_mut().zip(&queries) {
                *answer = client.query_range(query, last, last, POD_STEP_MS)?;
                add_new(&mut warnings, &answer.warnings);
            }
            tally.tick();
            if answers.iter().any(|a| !a.series.is_empty()) {
                metric_used = Some(metric.name);
                add_pod_utilization(&answers, metric.scale_to_frac, &mut utilization);
                break;
            }
        }
    }
    for answer in request_answers.iter().chain(&owner_answers).chain(&label_answers) {
        add_new(&mut warnings, &answer.warnings);
    }
    let owners = with_label_kinds(owners(&owner_answers), &label_answers);
    let runs = pod_runs(
        &request_answers,
        POD_STEP_MS,
        &source.cluster_label,
        "kubernetes",
        &owners,
        &utilization,
    );
    if runs.is_empty() {
        return Err(client_error(
            client,
            format!(
                "no pod requested GPUs between {} and {} (kube_pod_container_resource_requests{{resource=\"nvidia_com_gpu\"}} from kube-state-metrics)",
                iso_utc(window.start_ms),
                iso_utc(window.end_ms)
            ),
        ));
    }
    let mut notes = vec![format!(
        "{} pods from kube-state-metrics, followed to the minute",
        runs.iter()
            .map(|r| r.job_id.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    )];
    match metric_used {
        Some(metric) => notes.push(format!("pod utilization from {metric} by pod label")),
        None => notes.push("no DCGM series carries pod labels: pods' utilization unknown".to_string()),
    }
    for warning in &warnings {
        notes.push(format!(
            "the server warned (pods it could not reach are missing): {warning}"
        ));
    }
    Ok(PodPull { runs, notes })
}
