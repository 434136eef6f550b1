//! A Kubernetes fleet's job log from kube-state-metrics: each pod that requested GPUs
//! (`kube_pod_container_resource_requests{resource="nvidia_com_gpu"}`, summed over its
//! containers) is a job; each unbroken stretch of its series is a run, to the query's step.
//! The pod's owner (`kube_pod_owner`) names it, so the rules see `llm-serve` rather than
//! `llm-serve-7d9f8-x2x9q`, and gives its owner kind (a ReplicaSet serves, a PyTorchJob
//! trains), which the pod's labels (`kube_pod_labels`) may make more precise (a Notebook's
//! pod is owned by a StatefulSet); its namespace is its queue; DCGM's per-pod utilization, where the
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

/// The labels of the pods that requested GPUs, once over `range_ms`: kube-state-metrics
/// exports only the labels its `--metric-labels-allowlist` names, as `label_<name>`.
pub fn pod_labels_query(cluster_label: &str, range_ms: i64) -> String {
    format!(
        "last_over_time(kube_pod_labels[{range_ms}ms]) and on ({cluster_label}, namespace, pod) last_over_time(kube_pod_container_resource_requests{{resource=\"nvidia_com_gpu\"}}[{range_ms}ms])"
    )
}

/// A pod's owner: the name its runs are called by, and the kind of workload it belongs to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owner {
    pub name: Option<String>,
    pub kind: Option<String>,
}

/// Each pod's owner from `owner_query` answers.
pub fn owners(matrices: &[Matrix]) -> BTreeMap<(String, String), Owner> {
    let mut owners = BTreeMap::new();
    let value = |labels: &BTreeMap<String, String>, key: &str| {
        labels.get(key).filter(|v| !v.is_empty() && *v != "<none>").cloned()
    };
    for series in matrices.iter().flat_map(|m| &m.series) {
        let Some(key) = pod_key(&series.labels) else {
            continue;
        };
        let owner = Owner {
            name: value(&series.labels, "owner_name"),
            kind: value(&series.labels, "owner_kind"),
        };
        if owner != Owner::default() {
            owners.insert(key, owner);
        }
    }
    owners
}

/// Pod labels (as kube-state-metrics names them) that say more than the pod's direct owner:
/// a Kubeflow notebook's pod is owned by a StatefulSet, a KServe predictor's by a ReplicaSet,
/// a LeaderWorkerSet's by a StatefulSet.
const KIND_LABELS: [(&str, &str); 4] = [
    ("label_notebook_name", "Notebook"),
    ("label_serving_kserve_io_inferenceservice", "InferenceService"),
    ("label_leaderworkerset_sigs_k8s_io_name", "LeaderWorkerSet"),
    ("label_trainer_kubeflow_org_trainjob_name", "TrainJob"),
];

/// The workload kind a pod's labels name, if any: the labels above, or Kubeflow's training
/// operator's `training.kubeflow.org/operator-name` (`pytorchjob-controller` → `PyTorchJob`).
fn kind_of_labels(labels: &BTreeMap<String, String>) -> Option<String> {
    let present = |key: &str| labels.get(key).is_some_and(|v| !v.is_empty());
    if let Some((_, kind)) = KIND_LABELS.iter().find(|(key, _)| present(key)) {
        return Some(kind.to_string());
    }
    let operator = labels.get("label_training_kubeflow_org_operator_name")?;
    let kind = operator.strip_suffix("-controller").unwrap_or(operator);
    ["PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob"]
        .into_iter()
        .find(|k| k.eq_ignore_ascii_case(kind))
        .map(str::to_string)
}

/// Each pod's owner with the kind its labels name (`pod_labels_query` answers), which wins
/// over the direct owner's kind.
pub fn with_label_kinds(
    mut owners: BTreeMap<(String, String), Owner>,
    labels: &[Matrix],
) -> BTreeMap<(String, String), Owner> {
    for series in labels.iter().flat_map(|m| &m.series) {
        if let (Some(key), Some(kind)) = (pod_key(&series.labels), kind_of_labels(&series.labels)) {
            owners.entry(key).or_default().kind = Some(kind);
        }
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
    owners: &BTreeMap<(String, String), Owner>,
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
        let owner = owners.get(&key);
        let name = owner.and_then(|o| o.name.clone()).unwrap_or_else(|| pod.clone());
        let owner_kind = owner.and_then(|o| o.kind.clone());
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
                qos: None,
                owner_kind: owner_kind.clone(),
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
