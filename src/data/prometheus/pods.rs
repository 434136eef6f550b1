//! A Kubernetes fleet's job log from kube-state-metrics: each pod that requested GPUs
//! (`kube_pod_container_resource_requests{resource="nvidia_com_gpu"}`, summed over its
//! containers) is a job; each unbroken stretch of its series is a run, to the query's step.
//! The pod's owner (`kube_pod_owner`) names it, so the rules see `llm-serve` rather than
//! `llm-serve-7d9f8-x2x9q`; its namespace is its queue; DCGM's per-pod utilization, where the
//! exporter maps pods, is its utilization.

use std::collections::BTreeMap;

use super::response::Matrix;
use crate::data::canonical::JobRun;

/// GPUs requested per pod and cluster, at every step. `last_over_time` over one step (less a
/// millisecond) sees a pod only in steps where it was scraped, not for the five minutes of
/// look-back after it went away.
pub fn requests_query(cluster_label: &str, step_ms: i64) -> String {
    format!(
        "sum by ({cluster_label}, namespace, pod) (last_over_time(kube_pod_container_resource_requests{{resource=\"nvidia_com_gpu\"}}[{}ms]))",
        step_ms - 1
    )
}

/// Each pod's owner, once over `range_ms`.
pub fn owner_query(range_ms: i64) -> String {
    format!("max by (namespace, pod, owner_kind, owner_name) (last_over_time(kube_pod_owner[{range_ms}ms]))")
}

/// Per-pod utilization: dcgm-exporter labels a GPU with the pod using it, as `pod`/`namespace`
/// or, scraped through a ServiceMonitor, `exported_pod`/`exported_namespace`.
pub fn pod_utilization_queries(metric: &str, range_ms: i64) -> [String; 4] {
    let query = |agg: &str, ns: &str, pod: &str| {
        format!("{agg} by ({ns}, {pod}) (avg_over_time({metric}{{{pod}!=\"\"}}[{range_ms}ms]))")
    };
    [
        query("sum", "namespace", "pod"),
        query("count", "namespace", "pod"),
        query("sum", "exported_namespace", "exported_pod"),
        query("count", "exported_namespace", "exported_pod"),
    ]
}

/// (namespace, pod) of a series, either spelling.
pub fn pod_key(labels: &BTreeMap<String, String>) -> Option<(String, String)> {
    let get = |k: &str| labels.get(k).filter(|v| !v.is_empty()).cloned();
    get("pod")
        .zip(get("namespace"))
        .or_else(|| get("exported_pod").zip(get("exported_namespace")))
        .map(|(pod, ns)| (ns, pod))
}

/// Each pod's owner name from `owner_query` answers.
pub fn owners(matrices: &[Matrix]) -> BTreeMap<(String, String), String> {
    let mut owners = BTreeMap::new();
    for series in matrices.iter().flat_map(|m| &m.series) {
        let (Some(key), Some(owner)) = (
            pod_key(&series.labels),
            series
                .labels
                .get("owner_name")
                .filter(|o| !o.is_empty() && *o != "<none>"),
        ) else {
            continue;
        };
        owners.insert(key, owner.clone());
    }
    owners
}

/// Running sums of a pod's utilization over the chunks: Σ sum, Σ count.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PodUtilization {
    pub sum: f64,
    pub count: f64,
}

/// Adds one chunk's per-pod sums and counts (of `pod_utilization_queries`, in their order).
pub fn add_pod_utilization(
    answers: &[Matrix; 4],
    scale_to_frac: f64,
    into: &mut BTreeMap<(String, String), PodUtilization>,
) {
    for (sums, counts) in [(&answers[0], &answers[1]), (&answers[2], &answers[3])] {
        for (matrix, is_count) in [(sums, false), (counts, true)] {
            for series in &matrix.series {
                let Some(key) = pod_key(&series.labels) else { continue };
                let entry = into.entry(key).or_default();
                for &(_, value) in &series.points {
                    if is_count {
                        entry.count += value;
                    } else {
                        entry.sum += value * scale_to_frac;
                    }
                }
            }
        }
    }
}

/// Pods' runs from the requests answers of consecutive chunks. A gap of more than one and a
/// half steps between points ends a run; a point at `t` stands for the step that ends at `t`,
/// so a run spans from one step before its first point to its last.
pub fn pod_runs(
    chunks: &[Matrix],
    step_ms: i64,
    cluster_label: &str,
    default_cluster: &str,
    owners: &BTreeMap<(String, String), String>,
    utilization: &BTreeMap<(String, String), PodUtilization>,
) -> Vec<JobRun> {
    // (cluster, namespace, pod) → points over all chunks.
    let mut points: BTreeMap<(String, String, String), Vec<(i64, f64)>> = BTreeMap::new();
    for series in chunks.iter().flat_map(|m| &m.series) {
        let Some((ns, pod)) = pod_key(&series.labels) else {
            continue;
        };
        let cluster = series
            .labels
            .get(cluster_label)
            .filter(|c| !c.is_empty())
            .cloned()
            .unwrap_or_else(|| default_cluster.to_string());
        points
            .entry((cluster, ns, pod))
            .or_default()
            .extend(series.points.iter().filter(|p| p.1 > 0.0));
    }
    let mut runs = Vec::new();
    for ((cluster, ns, pod), mut pts) in points {
        pts.sort_by_key(|p| p.0);
        pts.dedup_by_key(|p| p.0);
        let key = (ns.clone(), pod.clone());
        let util = utilization
            .get(&key)
            .filter(|u| u.count > 0.0)
            .map(|u| (u.sum / u.count).clamp(0.0, 1.0));
        let name = owners.get(&key).cloned().unwrap_or_else(|| pod.clone());
        let mut start = 0;
        for i in 1..=pts.len() {
            let broken = i == pts.len() || pts[i].0 - pts[i - 1].0 > step_ms + step_ms / 2;
            if !broken {
                continue;
            }
            let run = &pts[start..i];
            let gpus = run.iter().map(|p| p.1).fold(0.0, f64::max);
            runs.push(JobRun {
                job_id: format!("{ns}/{pod}"),
                cluster: cluster.clone(),
                name: Some(name.clone()),
                user: None,
                queue: Some(ns.clone()),
                state: None,
                start_ms: run[0].0 - step_ms,
                end_ms: Some(run[run.len() - 1].0),
                gpus,
                gpu_type: None,
                gpu_util_frac: util,
                label: None,
                source_line: 0,
                // When the pod was created is not asked for yet: its first minute stands in.
                submit_ms: None,
            });
            start = i;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::prometheus::response::Series;

    fn series(labels: &[(&str, &str)], points: &[(i64, f64)]) -> Series {
        Series::of(labels, points)
    }

    #[test]
    fn a_pod_is_a_job_and_a_gap_splits_its_runs() {
        let m = 60_000;
        let chunk1 = Matrix {
            series: vec![
                series(
                    &[
                        ("cluster", "k8s-a"),
                        ("namespace", "serving"),
                        ("pod", "llm-serve-7d9f8-x2x9q"),
                    ],
                    &[(m, 2.0), (2 * m, 2.0), (3 * m, 2.0)],
                ),
                series(&[("namespace", "ml"), ("pod", "sweep-1")], &[(m, 1.0)]),
            ],
            ..Matrix::default()
        };
        let chunk2 = Matrix {
            series: vec![series(
                &[
                    ("cluster", "k8s-a"),
                    ("namespace", "serving"),
                    ("pod", "llm-serve-7d9f8-x2x9q"),
                ],
                &[(4 * m, 2.0), (10 * m, 4.0)],
            )],
            ..Matrix::default()
        };
        let owners = owners(&[Matrix {
            series: vec![series(
                &[
                    ("namespace", "serving"),
                    ("pod", "llm-serve-7d9f8-x2x9q"),
                    ("owner_name", "llm-serve-7d9f8"),
                ],
                &[(10 * m, 1.0)],
            )],
            ..Matrix::default()
        }]);
        let mut util = BTreeMap::new();
        add_pod_utilization(
            &[
                Matrix {
                    series: vec![series(
                        &[("namespace", "serving"), ("pod", "llm-serve-7d9f8-x2x9q")],
                        &[(m, 1.2)],
                    )],
                    ..Matrix::default()
                },
                Matrix {
                    series: vec![series(
                        &[("namespace", "serving"), ("pod", "llm-serve-7d9f8-x2x9q")],
                        &[(m, 2.0)],
                    )],
                    ..Matrix::default()
                },
                Matrix::default(),
                Matrix::default(),
            ],
            1.0,
            &mut util,
        );
        let runs = pod_runs(&[chunk1, chunk2], m, "cluster", "kubernetes", &owners, &util);
        assert_eq!(runs.len(), 3);
        let serve: Vec<_> = runs
            .iter()
            .filter(|r| r.job_id == "serving/llm-serve-7d9f8-x2x9q")
            .collect();
        assert_eq!(serve.len(), 2);
        assert_eq!(
            (serve[0].start_ms, serve[0].end_ms, serve[0].gpus),
            (0, Some(4 * m), 2.0)
        );
        assert_eq!(
            (serve[1].start_ms, serve[1].end_ms, serve[1].gpus),
            (9 * m, Some(10 * m), 4.0)
        );
        assert_eq!(serve[0].name.as_deref(), Some("llm-serve-7d9f8"));
        assert_eq!(serve[0].gpu_util_frac, Some(0.6));
        let sweep = runs.iter().find(|r| r.job_id == "ml/sweep-1").expect("sweep");
        assert_eq!(
            (sweep.cluster.as_str(), sweep.queue.as_deref()),
            ("kubernetes", Some("ml"))
        );
        assert_eq!(sweep.gpu_util_frac, None);
    }

    #[test]
    fn exported_pod_labels_count_as_the_pod() {
        let labels: BTreeMap<String, String> = [("exported_pod", "p"), ("exported_namespace", "n"), ("pod", "")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(pod_key(&labels), Some(("n".to_string(), "p".to_string())));
        assert!(pod_utilization_queries("M", 1000)[2].starts_with("sum by (exported_namespace, exported_pod)"));
    }
}
