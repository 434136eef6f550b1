//! Server-side sums and counts into each cluster's hourly utilization
//! (`model::utilization::ClusterMeasurement`).
//!
//! A point of `sum by (g)` over `count by (g)` is the mean over g's GPU series of their means
//! over one step. An hour's mean is Σ sum / Σ count over the hour's points, and hosts combine
//! into their cluster the same way, so every GPU series weighs alike.
//!
//! Sum and count are two queries: a step only counts when both answered for it. A sum without
//! its count (or the reverse) would divide one step's sum by another's count, so it is left out
//! and counted as a gap, per group (docs/utilization.md, "Pulling from Prometheus").

use std::collections::{BTreeMap, BTreeSet};

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
    /// Steps with a sum and no count, or a count and no sum: left out.
    pub unpaired_steps: u64,
    /// Steps whose values were all NaN or infinite: left out.
    pub non_finite_steps: u64,
    /// Steps with a sum over a count of 0 (no GPU series counted): left out, never divided.
    pub empty_count_steps: u64,
}

impl GroupHours {
    fn new(hours: usize) -> GroupHours {
        GroupHours {
            sum: vec![0.0; hours],
            count: vec![0.0; hours],
            max_series: 0.0,
            unpaired_steps: 0,
            non_finite_steps: 0,
            empty_count_steps: 0,
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

/// One step of one group: its sum and its count as the two answers gave them.
#[derive(Default)]
struct Step {
    sum: Option<f64>,
    count: Option<f64>,
}

/// Adds one chunk's sums and counts to the groups, step by step: a step counts only when both
/// answers have it. One that only one answer has is a gap (`GroupHours::unpaired_steps`), unless
/// the other's value there was NaN or infinite (already counted as such). Series with no key (the
/// label missing) are counted in the returned number of points left out.
pub fn accumulate(
    grid: &StepGrid,
    cluster_label: Option<&str>,
    sums: &Matrix,
    counts: &Matrix,
    groups: &mut BTreeMap<String, GroupHours>,
) -> u64 {
    let mut unlabelled_points = 0;
    // Ordered, so that sums add up in the same order on every run.
    let mut steps: BTreeMap<(String, i64), Step> = BTreeMap::new();
    let mut non_finite: BTreeSet<(String, i64)> = BTreeSet::new();
    for (answer, is_sum) in [(sums, true), (counts, false)] {
        for series in &answer.series {
            let Some(key) = group_key(&series.labels, cluster_label) else {
                if is_sum {
                    unlabelled_points += series.points.len() as u64;
                }
                continue;
            };
            for &(t_ms, value) in &series.points {
                let step = steps.entry((key.clone(), t_ms)).or_default();
                let side = if is_sum { &mut step.sum } else { &mut step.count };
                *side = Some(side.unwrap_or(0.0) + value);
            }
            non_finite.extend(series.non_finite_ms.iter().map(|&t| (key.clone(), t)));
        }
    }
    for (key, t_ms) in &non_finite {
        if grid.hour_of(*t_ms).is_some() && !steps.contains_key(&(key.clone(), *t_ms)) {
            groups
                .entry(key.clone())
                .or_insert_with(|| GroupHours::new(grid.hours))
                .non_finite_steps += 1;
        }
    }
    for ((key, t_ms), step) in steps {
        let Some(hour) = grid.hour_of(t_ms) else { continue };
        let group = groups.entry(key.clone()).or_insert_with(|| GroupHours::new(grid.hours));
        match (step.sum, step.count) {
            // No GPU series counted: a sum over it is no mean (and added to the hour's other
            // steps it would inflate theirs).
            (Some(_), Some(count)) if count <= 0.0 => group.empty_count_steps += 1,
            (Some(sum), Some(count)) => {
                group.sum[hour] += sum;
                group.count[hour] += count;
                group.max_series = group.max_series.max(count);
            }
            _ if non_finite.contains(&(key, t_ms)) => group.non_finite_steps += 1,
            _ => group.unpaired_steps += 1,
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
    /// Cluster → steps left out because the sum or the count lacked them, clusters with no
    /// paired step included.
    pub unpaired_steps: BTreeMap<String, u64>,
    /// Cluster → steps whose values were all NaN or infinite.
    pub non_finite_steps: BTreeMap<String, u64>,
    /// Cluster → steps with a sum over a count of 0.
    pub empty_count_steps: BTreeMap<String, u64>,
    /// Hosts no cluster claims.
    pub unmapped_hosts: Vec<String>,
}

impl ClusterHours {
    /// Adds groups: each a cluster (`cluster_of` = None) or a host that `cluster_of` places.
    pub fn add(&mut self, groups: &BTreeMap<String, GroupHours>, cluster_of: Option<HostToCluster<'_>>) {
        for (key, hours) in groups {
            let cluster = match cluster_of {
                None => key.clone(),
                Some(map) => match map(key) {
                    Some(cluster) => cluster,
                    None => {
                        if hours.has_points() {
                            self.unmapped_hosts.push(key.clone());
                        }
                        continue;
                    }
                },
            };
            for (steps, by_cluster) in [
                (hours.unpaired_steps, &mut self.unpaired_steps),
                (hours.non_finite_steps, &mut self.non_finite_steps),
                (hours.empty_count_steps, &mut self.empty_count_steps),
            ] {
                if steps > 0 {
                    *by_cluster.entry(cluster.clone()).or_default() += steps;
                }
            }
            if !hours.has_points() {
                continue;
            }
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
        let mut nan_in_hour_1 = series(&[("cluster", "x")], &[(h, 0.5)]);
        nan_in_hour_1.non_finite_ms.push(2 * h);
        let sums = Matrix {
            series: vec![nan_in_hour_1],
            ..Matrix::default()
        };
        let counts = Matrix {
            series: vec![series(&[("cluster", "x")], &[(h, 1.0), (2 * h, 1.0)])],
            ..Matrix::default()
        };
        let mut groups = BTreeMap::new();
        accumulate(&grid, Some("cluster"), &sums, &counts, &mut groups);
        // Counted once, as NaN, not again as a gap.
        assert_eq!(groups["x"].unpaired_steps, 0);
        let mut hours = ClusterHours::default();
        hours.add(&groups, None);
        let placed = measurements(&hours, UTILIZATION_METRICS[0], "prometheus");
        assert_eq!(placed.clusters[0].hourly_util_frac, vec![Some(0.5), None]);
    }

    #[test]
    fn a_sum_without_its_count_is_a_gap_not_a_doubled_hour() {
        let h = 3_600_000;
        let q = h / 4;
        let grid = StepGrid::over(&Window::from_ms(0, h), 900);
        // Four quarter-hours at 40 % on 10 GPUs; the count answered only two of them. Dividing
        // the hour's four sums by two counts would read 80 %.
        let sums = Matrix {
            series: vec![series(
                &[("cluster", "ap-south")],
                &[(q, 4.0), (2 * q, 4.0), (3 * q, 4.0), (h, 4.0)],
            )],
            ..Matrix::default()
        };
        let counts = Matrix {
            series: vec![series(&[("cluster", "ap-south")], &[(q, 10.0), (3 * q, 10.0)])],
            ..Matrix::default()
        };
        let mut groups = BTreeMap::new();
        accumulate(&grid, Some("cluster"), &sums, &counts, &mut groups);
        assert_eq!(groups["ap-south"].unpaired_steps, 2);
        let mut hours = ClusterHours::default();
        hours.add(&groups, None);
        assert_eq!(hours.unpaired_steps["ap-south"], 2);
        let placed = measurements(&hours, UTILIZATION_METRICS[0], "prometheus");
        let u = placed.clusters[0].hourly_util_frac[0].expect("measured");
        assert!((u - 0.4).abs() < 1e-12, "{u}");
        // The reverse, a count without its sum, is a gap too; a cluster with no paired step is
        // not measured but its gaps are still counted.
        let sums = Matrix::default();
        let counts = Matrix {
            series: vec![series(&[("cluster", "eu")], &[(q, 10.0)])],
            ..Matrix::default()
        };
        let mut groups = BTreeMap::new();
        accumulate(&grid, Some("cluster"), &sums, &counts, &mut groups);
        let mut hours = ClusterHours::default();
        hours.add(&groups, None);
        assert!(hours.clusters.is_empty());
        assert_eq!(hours.unpaired_steps["eu"], 1);
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
