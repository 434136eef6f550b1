//! Server-side sums and counts into each cluster's hourly utilization
//! (`model::utilization::ClusterMeasurement`).
//!
//! A point of `sum by (g)` over `count by (g)` is the mean over g's GPU series of their means
//! over one step. An hour's mean is Σ sum / Σ count over the hour's points, and hosts combine
//! into their cluster the same way, so every GPU series weighs alike.

use std::collections::{BTreeMap, HashSet};

use super::query::{HOST_LABELS, StepGrid, UtilizationMetric};
use super::response::Matrix;
use crate::model::utilization::ClusterMeasurement;

/// One group's (a cluster's or a host's) sums and counts per audit hour.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupHours {
    pub sum: Vec<f64>,
    pub count: Vec<f64>,
    /// The most series any one point counted.
    pub max_series: f64,
}

impl GroupHours {
    fn new(hours: usize) -> GroupHours {
        GroupHours {
            sum: vec![0.0; hours],
            count: vec![0.0; hours],
            max_series: 0.0,
        }
    }

    pub fn has_points(&self) -> bool {
        self.count.iter().any(|&c| c > 0.0)
    }
}

/// The group a series belongs to: its cluster label, or its host.
pub fn group_key(labels: &BTreeMap<String, String>, cluster_label: Option<&str>) -> Option<String> {
    match cluster_label {
        Some(label) => labels.get(label).filter(|v| !v.is_empty()).cloned(),
        None => HOST_LABELS
            .iter()
            .find_map(|l| labels.get(*l).filter(|v| !v.is_empty()))
            .cloned(),
    }
}

/// Adds one chunk's sums and counts to the groups. A count whose sum was NaN or infinite (left
/// out of the answer) is left out too, so the hour is not read as idle. Series with no key (the
/// label missing) are counted in the returned number of points left out.
pub fn accumulate(
    grid: &StepGrid,
    cluster_label: Option<&str>,
    sums: &Matrix,
    counts: &Matrix,
    groups: &mut BTreeMap<String, GroupHours>,
) -> u64 {
    let mut unlabelled_points = 0;
    let mut summed: HashSet<(String, i64)> = HashSet::new();
    for series in &sums.series {
        let Some(key) = group_key(&series.labels, cluster_label) else {
            unlabelled_points += series.points.len() as u64;
            continue;
        };
        let group = groups.entry(key.clone()).or_insert_with(|| GroupHours::new(grid.hours));
        for &(t_ms, value) in &series.points {
            let Some(hour) = grid.hour_of(t_ms) else { continue };
            group.sum[hour] += value;
            summed.insert((key.clone(), t_ms));
        }
    }
    for series in &counts.series {
        let Some(key) = group_key(&series.labels, cluster_label) else {
            continue;
        };
        let Some(group) = groups.get_mut(&key) else { continue };
        for &(t_ms, value) in &series.points {
            let Some(hour) = grid.hour_of(t_ms) else { continue };
            if summed.contains(&(key.clone(), t_ms)) {
                group.count[hour] += value;
                group.max_series = group.max_series.max(value);
            }
        }
    }
    unlabelled_points
}

/// Places a host in its cluster (None: no cluster claims it).
pub type HostToCluster<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Clusters' sums and counts, gathered from groups that are clusters or hosts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClusterHours {
    /// Cluster → its hours, and the hosts counted in it (0 when grouped by cluster).
    pub clusters: BTreeMap<String, (GroupHours, u64)>,
    /// Hosts no cluster claims.
    pub unmapped_hosts: Vec<String>,
}

impl ClusterHours {
    /// Adds groups: each a cluster (`cluster_of` = None) or a host that `cluster_of` places.
    pub fn add(&mut self, groups: &BTreeMap<String, GroupHours>, cluster_of: Option<HostToCluster<'_>>) {
        for (key, hours) in groups.iter().filter(|(_, h)| h.has_points()) {
            let cluster = match cluster_of {
                None => key.clone(),
                Some(map) => match map(key) {
                    Some(cluster) => cluster,
                    None => {
                        self.unmapped_hosts.push(key.clone());
                        continue;
                    }
                },
            };
            let (acc, hosts) = self
                .clusters
                .entry(cluster)
                .or_insert_with(|| (GroupHours::new(hours.sum.len()), 0));
            for h in 0..hours.sum.len().min(acc.sum.len()) {
                acc.sum[h] += hours.sum[h];
                acc.count[h] += hours.count[h];
            }
            acc.max_series += hours.max_series;
            *hosts += u64::from(cluster_of.is_some());
        }
    }
}

/// What measuring gave: the clusters, and the hours that could not count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placed {
    pub clusters: Vec<ClusterMeasurement>,
    /// Hourly means outside 0–1 (after the metric's scale) by more than 1 %, left out.
    pub out_of_range_hours: u64,
}

/// Each cluster's hourly mean: Σ sum / Σ count, in the metric's scale.
pub fn measurements(hours: &ClusterHours, metric: UtilizationMetric, origin: &str) -> Placed {
    let mut placed = Placed::default();
    for (cluster, (acc, hosts)) in &hours.clusters {
        let hourly_util_frac = acc
            .sum
            .iter()
            .zip(&acc.count)
            .map(|(&sum, &count)| {
                if count <= 0.0 {
                    return None;
                }
                let frac = sum / count * metric.scale_to_frac;
                if !(-0.01..=1.01).contains(&frac) {
                    placed.out_of_range_hours += 1;
                    return None;
                }
                Some(frac.clamp(0.0, 1.0))
            })
            .collect();
        placed.clusters.push(ClusterMeasurement {
            cluster: cluster.clone(),
            metric: metric.name.to_string(),
            origin: origin.to_string(),
            gpu_series: acc.max_series.round() as u64,
            hosts: *hosts,
            hourly_util_frac,
        });
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::prometheus::query::UTILIZATION_METRICS;
    use crate::data::prometheus::response::Series;
    use crate::model::fleet::Window;

    fn series(labels: &[(&str, &str)], points: &[(i64, f64)]) -> Series {
        Series::of(labels, points)
    }

    #[test]
    fn hosts_combine_into_their_cluster_weighted_by_series() {
        let h = 3_600_000;
        let grid = StepGrid::over(&Window::from_ms(0, 2 * h), 3600);
        // Host a: 2 GPUs at 50 % and 100 % in hour 0 (sum 1.5, count 2); host b: 1 GPU at 0 %.
        let sums = Matrix {
            series: vec![
                series(&[("Hostname", "a")], &[(h, 1.5), (2 * h, 1.0)]),
                series(&[("hostname", "b")], &[(h, 0.0)]),
                series(&[], &[(h, 0.3)]),
            ],
            ..Matrix::default()
        };
        let counts = Matrix {
            series: vec![
                series(&[("Hostname", "a")], &[(h, 2.0), (2 * h, 2.0)]),
                series(&[("hostname", "b")], &[(h, 1.0)]),
                series(&[], &[(h, 1.0)]),
            ],
            ..Matrix::default()
        };
        let mut groups = BTreeMap::new();
        assert_eq!(accumulate(&grid, None, &sums, &counts, &mut groups), 1);
        let to_cluster = |host: &str| (host != "b").then(|| "gpu-a".to_string());
        let mut hours = ClusterHours::default();
        hours.add(&groups, Some(&to_cluster));
        assert_eq!(hours.unmapped_hosts, vec!["b".to_string()]);
        let to_cluster = |_: &str| Some("gpu-a".to_string());
        let mut hours = ClusterHours::default();
        hours.add(&groups, Some(&to_cluster));
        let placed = measurements(&hours, UTILIZATION_METRICS[0], "prometheus");
        assert_eq!(placed.clusters.len(), 1);
        let c = &placed.clusters[0];
        assert_eq!(c.hourly_util_frac, vec![Some(0.5), Some(0.5)]);
        assert_eq!((c.gpu_series, c.hosts), (3, 2));
    }

    #[test]
    fn a_count_without_its_sum_leaves_the_hour_unmeasured() {
        let h = 3_600_000;
        let grid = StepGrid::over(&Window::from_ms(0, 2 * h), 3600);
        // The server's sum was NaN in hour 1 (left out of the answer); its count was not.
        let sums = Matrix {
            series: vec![series(&[("cluster", "x")], &[(h, 0.5)])],
            ..Matrix::default()
        };
        let counts = Matrix {
            series: vec![series(&[("cluster", "x")], &[(h, 1.0), (2 * h, 1.0)])],
            ..Matrix::default()
        };
        let mut groups = BTreeMap::new();
        accumulate(&grid, Some("cluster"), &sums, &counts, &mut groups);
        let mut hours = ClusterHours::default();
        hours.add(&groups, None);
        let placed = measurements(&hours, UTILIZATION_METRICS[0], "prometheus");
        assert_eq!(placed.clusters[0].hourly_util_frac, vec![Some(0.5), None]);
    }

    #[test]
    fn percent_metrics_scale_and_impossible_means_are_left_out() {
        let h = 3_600_000;
        let grid = StepGrid::over(&Window::from_ms(0, 2 * h), 3600);
        let sums = Matrix {
            series: vec![series(&[("cluster", "x")], &[(h, 150.0), (2 * h, 900.0)])],
            ..Matrix::default()
        };
        let counts = Matrix {
            series: vec![series(&[("cluster", "x")], &[(h, 2.0), (2 * h, 2.0)])],
            ..Matrix::default()
        };
        let mut groups = BTreeMap::new();
        accumulate(&grid, Some("cluster"), &sums, &counts, &mut groups);
        let mut hours = ClusterHours::default();
        hours.add(&groups, None);
        let placed = measurements(&hours, UTILIZATION_METRICS[1], "prometheus");
        assert_eq!(placed.clusters[0].hourly_util_frac, vec![Some(0.75), None]);
        assert_eq!(placed.out_of_range_hours, 1);
    }
}
