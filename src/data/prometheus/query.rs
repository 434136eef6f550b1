//! The PromQL gpuplan sends, and the grid of evaluation instants that lines its answers up
//! with the audit's hours.
//!
//! The aggregation runs on the server: per step, `avg_over_time` reduces each GPU series to its
//! mean over the step, and `sum`/`count by (label)` reduce the series to one pair per cluster
//! (or host). What comes back grows with clusters × steps, never with samples.

use crate::model::fleet::Window;

/// Prometheus refuses a range query of more than 11,000 points per series; stay under it.
pub const MAX_POINTS_PER_QUERY: i64 = 10_000;
const MS_PER_HOUR: i64 = 3_600_000;

/// dcgm-exporter's utilization fields, best first: the graphics engine's active ratio (0–1,
/// reported per MIG instance too), then the classic percentage (absent on MIG).
pub const UTILIZATION_METRICS: [UtilizationMetric; 2] = [
    UtilizationMetric {
        name: "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        scale_to_frac: 1.0,
    },
    UtilizationMetric {
        name: "DCGM_FI_DEV_GPU_UTIL",
        scale_to_frac: 0.01,
    },
];

/// dcgm-exporter names the host `Hostname` in released versions and `hostname` in newer ones;
/// `instance` (address:port of the scrape) when neither is there.
pub const HOST_LABELS: [&str; 3] = ["Hostname", "hostname", "instance"];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UtilizationMetric {
    pub name: &'static str,
    /// What turns a value into a fraction 0–1.
    pub scale_to_frac: f64,
}

/// What a series is grouped by on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grouping {
    /// A label naming the cluster (an external label, OpenCost's `cluster_id`...).
    Cluster(String),
    /// The host labels of the series without the cluster label (named here), for hosts mapped
    /// to clusters here.
    Host { without: String },
}

impl Grouping {
    fn by(&self) -> String {
        match self {
            Grouping::Cluster(label) => label.clone(),
            Grouping::Host { .. } => HOST_LABELS.join(", "),
        }
    }
}

/// `sum` and `count` over the group of each series' mean over one step: the step's mean over
/// series is sum/count, and hours combine exactly by adding both.
pub fn utilization_queries(metric: &str, grouping: &Grouping, step_ms: i64) -> [String; 2] {
    let over = range_selector(step_ms);
    let by = grouping.by();
    // `label=""` selects the series that lack the label: hosts already counted under a
    // cluster label are not counted again.
    let selector = match grouping {
        Grouping::Cluster(_) => metric.to_string(),
        Grouping::Host { without } => format!("{metric}{{{without}=\"\"}}"),
    };
    [
        format!("sum by ({by}) (avg_over_time({selector}[{over}]))"),
        format!("count by ({by}) (avg_over_time({selector}[{over}]))"),
    ]
}

/// One step less a millisecond: Prometheus 2 selects `[t − range, t]` with both ends, so a
/// sample on the step's boundary would otherwise count in two steps.
pub fn range_selector(step_ms: i64) -> String {
    format!("{}ms", step_ms - 1)
}

/// Evaluation instants `start + k·step`, k = 1..=points: the point at `start + k·step` covers
/// the step that ends there, so point k belongs to the audit's hour `(k − 1) / steps_per_hour`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepGrid {
    pub start_ms: i64,
    pub step_ms: i64,
    pub points: i64,
    /// Series points of the audit (hours, but for windows too long to follow hour by hour:
    /// `Resolution`).
    pub hours: usize,
    /// Hours in one series point.
    pub hours_per_point: i64,
}

impl StepGrid {
    /// The grid over the window's hours (a last partial hour counts whole, as in the audit).
    pub fn over(window: &Window, step_seconds: u32) -> StepGrid {
        let step_ms = i64::from(step_seconds.clamp(1, 3600)) * 1000;
        let span_ms = (window.end_ms - window.start_ms).max(1);
        let hours = ((span_ms + MS_PER_HOUR - 1) / MS_PER_HOUR).max(1);
        let hours_per_point = i64::from(window.resolution.hours_per_point.max(1));
        StepGrid {
            start_ms: window.start_ms,
            step_ms,
            points: hours * (MS_PER_HOUR / step_ms),
            hours: usize::try_from((hours + hours_per_point - 1) / hours_per_point).unwrap_or(usize::MAX),
            hours_per_point,
        }
    }

    /// Runs of evaluation instants, each at most `max_points` long: (first, last), inclusive.
    pub fn chunks(&self, max_points: i64) -> Vec<(i64, i64)> {
        let max_points = max_points.max(1);
        let mut chunks = Vec::new();
        let mut first = 1;
        while first <= self.points {
            let last = (first + max_points - 1).min(self.points);
            chunks.push((
                self.start_ms + first * self.step_ms,
                self.start_ms + last * self.step_ms,
            ));
            first = last + 1;
        }
        chunks
    }

    /// The audit's series point (hour) a point evaluated at `t_ms` belongs to.
    pub fn hour_of(&self, t_ms: i64) -> Option<usize> {
        let k = (t_ms - self.start_ms) as f64 / self.step_ms as f64;
        let k = k.round() as i64;
        if k < 1 || k > self.points {
            return None;
        }
        usize::try_from((k - 1) * self.step_ms / MS_PER_HOUR / self.hours_per_point).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_aggregate_on_the_server() {
        let [sum, count] = utilization_queries(
            "DCGM_FI_DEV_GPU_UTIL",
            &Grouping::Cluster("cluster_id".into()),
            3_600_000,
        );
        assert_eq!(
            sum,
            "sum by (cluster_id) (avg_over_time(DCGM_FI_DEV_GPU_UTIL[3599999ms]))"
        );
        assert_eq!(
            count,
            "count by (cluster_id) (avg_over_time(DCGM_FI_DEV_GPU_UTIL[3599999ms]))"
        );
        let [sum, _] = utilization_queries(
            "M",
            &Grouping::Host {
                without: "cluster".into(),
            },
            300_000,
        );
        assert_eq!(
            sum,
            "sum by (Hostname, hostname, instance) (avg_over_time(M{cluster=\"\"}[299999ms]))"
        );
    }

    #[test]
    fn long_windows_split_under_the_point_limit() {
        // 500 days at one-minute steps: 720,000 points in 72 queries of 10,000.
        let window = Window::from_ms(0, 500 * 24 * MS_PER_HOUR);
        let grid = StepGrid::over(&window, 60);
        assert_eq!(grid.points, 720_000);
        let chunks = grid.chunks(MAX_POINTS_PER_QUERY);
        assert_eq!(chunks.len(), 72);
        assert_eq!(chunks[0], (60_000, 600_000_000));
        assert_eq!(chunks[1].0, chunks[0].1 + 60_000);
        assert_eq!(chunks.last().map(|c| c.1), Some(500 * 24 * MS_PER_HOUR));
        let points: i64 = chunks.iter().map(|(a, b)| (b - a) / 60_000 + 1).sum();
        assert_eq!(points, grid.points);
    }

    #[test]
    fn points_fall_in_the_hour_they_close() {
        let window = Window::from_ms(1_000, 1_000 + 2 * MS_PER_HOUR + 1);
        let grid = StepGrid::over(&window, 900);
        assert_eq!((grid.hours, grid.points), (3, 12));
        assert_eq!(grid.hour_of(1_000), None);
        assert_eq!(grid.hour_of(1_000 + 900_000), Some(0));
        assert_eq!(grid.hour_of(1_000 + MS_PER_HOUR), Some(0));
        assert_eq!(grid.hour_of(1_000 + MS_PER_HOUR + 900_000), Some(1));
        assert_eq!(grid.hour_of(1_000 + 3 * MS_PER_HOUR), Some(2));
        assert_eq!(grid.hour_of(1_000 + 3 * MS_PER_HOUR + 900_000), None);
    }
}
