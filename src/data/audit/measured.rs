//! DCGM utilization samples summed over the audit's window (`model::fleet::MeasuredUtilization`):
//! each series' mean (a GPU, or a host exported whole), their mean, each host's, and the mean
//! of each hour's samples. Samples carry hosts, not clusters, so the figures are the fleet's
//! and its hosts', beside the job log's per-cluster figures. A row may stand for several
//! samples (nvidia-smi recordings are folded a minute a row): every mean weighs a row by the
//! samples it holds inside the window (and inside the hour), each sample standing for the time
//! it covers (`cover_from_ms`, `cover_to_ms`): a minute the window or an hour cuts counts for
//! the part of its samples' span inside, not as a whole minute. Within a minute the samples are
//! taken as evenly spread.

use polars::prelude::*;

use super::host_map::HostMap;
use crate::data::canonical::MS_PER_MINUTE;
use crate::data::error::DataError;
use crate::data::readers::dcgm::{COVER_FROM_MS, COVER_TO_MS, GPU, HOST, METRIC, SAMPLES, TIME, UTIL_FRAC};
use crate::model::fleet::{HostUtilization, MeasuredUtilization, Window};
use crate::model::utilization::ClusterMeasurement;

/// An hour in the samples' integer milliseconds.
const HOUR_MS: i64 = 60 * MS_PER_MINUTE;
const SERIES_MEAN: &str = "series_mean";
const HOUR: &str = "hour";
const LAST_HOUR: &str = "__last_hour";
const WEIGHT: &str = "__samples";

/// The mean of `util_frac` over the rows, each weighed by the samples it stands for.
fn weighted_mean() -> Expr {
    (col(UTIL_FRAC) * col(WEIGHT)).sum() / col(WEIGHT).sum()
}

fn err(e: PolarsError) -> DataError {
    crate::data::error::dcgm_samples(e)
}

/// The start and end of the span a row covers, as integer milliseconds.
const COVER_START: &str = "__cover_start";
const COVER_END: &str = "__cover_end";

fn smaller(a: Expr, b: Expr) -> Expr {
    when(a.clone().lt(b.clone())).then(a).otherwise(b)
}

fn larger(a: Expr, b: Expr) -> Expr {
    when(a.clone().gt(b.clone())).then(a).otherwise(b)
}

/// The samples a row stands for inside `[from, to]`: its `samples` times the share of its
/// covered span inside (a folded minute cut by the window or an hour counts the part of it
/// its samples covered there); a row that covers one instant counts whole when the instant is
/// inside.
fn samples_within(from: Expr, to: Expr) -> Expr {
    let span_ms = col(COVER_END) - col(COVER_START);
    let overlap_ms = smaller(col(COVER_END), to.clone()) - larger(col(COVER_START), from.clone());
    let samples = col(SAMPLES).cast(DataType::Float64);
    when(span_ms.clone().gt(lit(0i64)))
        .then(samples.clone() * larger(overlap_ms, lit(0i64)).cast(DataType::Float64) / span_ms.cast(DataType::Float64))
        .otherwise(
            when(col(COVER_START).gt_eq(from).and(col(COVER_START).lt_eq(to)))
                .then(samples)
                .otherwise(lit(0.0)),
        )
}

/// The rows with a value whose covered span meets `window`, times as integer milliseconds,
/// each placed in the window's point (`HOUR`) with its weight there (`WEIGHT`, in samples):
/// a row whose span crosses from one point into the next is there twice, once in each with
/// the part of its span there, so each sample weighs by the time it covers inside the window
/// and inside the hour. Rows that weigh nothing are left out. Also returns the points' count.
fn weighted_rows(samples: &DataFrame, window: &Window) -> Result<(usize, LazyFrame), DataError> {
    let (hours, point_ms) = points_of(window);
    let last_hour = hours as i64 - 1;
    let hour_of = |at: Expr| smaller((at - lit(window.start_ms)) / lit(point_ms), lit(last_hour));
    let hour_start = |hour: Expr| lit(window.start_ms) + hour * lit(point_ms);
    let hour_end = |hour: Expr| smaller(hour_start(hour) + lit(point_ms), lit(window.end_ms));
    let rows = samples
        .clone()
        .lazy()
        .with_column(col(TIME).cast(DataType::Int64).alias(TIME))
        .with_columns([
            (col(TIME) + col(COVER_FROM_MS).cast(DataType::Int64)).alias(COVER_START),
            (col(TIME) + col(COVER_TO_MS).cast(DataType::Int64)).alias(COVER_END),
        ])
        .filter(
            col(COVER_END)
                .gt_eq(lit(window.start_ms))
                .and(col(COVER_START).lt_eq(lit(window.end_ms)))
                .and(col(UTIL_FRAC).is_not_null()),
        )
        .with_columns([
            hour_of(larger(col(COVER_START), lit(window.start_ms))).alias(HOUR),
            hour_of(smaller(col(COVER_END), lit(window.end_ms))).alias(LAST_HOUR),
        ]);
    let weighed =
        |rows: LazyFrame| rows.with_column(samples_within(hour_start(col(HOUR)), hour_end(col(HOUR))).alias(WEIGHT));
    let first = weighed(rows.clone());
    let second = weighed(
        rows.filter(col(LAST_HOUR).neq(col(HOUR)))
            .with_column(col(LAST_HOUR).alias(HOUR)),
    );
    let both = concat([first, second], UnionArgs::default()).map_err(err)?;
    Ok((hours, both.filter(col(WEIGHT).gt(lit(0.0)))))
}

/// The window's series points (hours, or `Resolution::hours_per_point` hours for a very long
/// window) and each point's length; a sample at the window's last instant belongs to the last
/// point.
fn points_of(window: &Window) -> (usize, i64) {
    let point_ms = HOUR_MS * i64::from(window.resolution.hours_per_point.max(1));
    let hours = ((window.end_ms - window.start_ms) as f64 / point_ms as f64)
        .ceil()
        .max(1.0) as usize;
    (hours, point_ms)
}

/// The samples' utilization over `window`; None when no sample with a value falls in it.
/// Hosts averaging below `threshold_frac` are listed, lowest first.
pub fn measured_utilization(
    samples: &DataFrame,
    window: &Window,
    threshold_frac: f64,
) -> Result<Option<MeasuredUtilization>, DataError> {
    let (hours, rows) = weighted_rows(samples, window)?;
    let in_window = rows
        .select([col(TIME), col(HOST), col(GPU), col(UTIL_FRAC), col(WEIGHT), col(HOUR)])
        .collect()
        .map_err(err)?;
    if in_window.height() == 0 {
        return Ok(None);
    }
    let samples = in_window
        .column(WEIGHT)
        .map_err(err)?
        .as_materialized_series()
        .sum::<f64>()
        .map_err(err)?
        .round() as u64;
    let series = in_window
        .clone()
        .lazy()
        .group_by([col(HOST), col(GPU)])
        .agg([weighted_mean().alias(SERIES_MEAN)])
        .collect()
        .map_err(err)?;
    let hosts = series
        .clone()
        .lazy()
        .group_by([col(HOST)])
        .agg([col(SERIES_MEAN).mean().alias(UTIL_FRAC), col(GPU).count().alias(GPU)])
        .sort_by_exprs(
            [col(UTIL_FRAC), col(HOST)],
            SortMultipleOptions::default().with_order_descending_multi([false, false]),
        )
        .collect()
        .map_err(err)?;
    let hourly = in_window
        .lazy()
        .group_by([col(HOUR)])
        .agg([weighted_mean().alias(UTIL_FRAC)])
        .collect()
        .map_err(err)?;

    let mut hourly_util_frac = vec![None; hours];
    let hour_index = hourly.column(HOUR).map_err(err)?.i64().map_err(err)?;
    let hour_mean = hourly.column(UTIL_FRAC).map_err(err)?.f64().map_err(err)?;
    for (hour, mean) in hour_index.iter().zip(hour_mean.iter()) {
        if let (Some(hour), Some(mean)) = (hour, mean)
            && let Some(slot) = usize::try_from(hour).ok().and_then(|h| hourly_util_frac.get_mut(h))
        {
            *slot = Some(mean);
        }
    }
    let series_means = series.column(SERIES_MEAN).map_err(err)?.f64().map_err(err)?;
    let mean_util_frac = series_means.mean().unwrap_or(0.0);
    let host_names = hosts.column(HOST).map_err(err)?.str().map_err(err)?;
    let host_means = hosts.column(UTIL_FRAC).map_err(err)?.f64().map_err(err)?;
    let host_series = hosts.column(GPU).map_err(err)?.cast(&DataType::UInt64).map_err(err)?;
    let host_series = host_series.u64().map_err(err)?;
    let hosts_below_threshold = host_names
        .iter()
        .zip(host_means.iter())
        .zip(host_series.iter())
        .filter_map(|((host, mean), series)| match (host, mean) {
            (Some(host), Some(mean)) if mean < threshold_frac => Some(HostUtilization {
                host: host.to_string(),
                gpu_series: series.unwrap_or(0),
                mean_util_frac: mean,
            }),
            _ => None,
        })
        .collect();
    Ok(Some(MeasuredUtilization {
        samples,
        hosts: hosts.height() as u64,
        gpu_series: series.height() as u64,
        mean_util_frac,
        hourly_util_frac,
        threshold_frac,
        hosts_below_threshold,
    }))
}

const CLUSTER: &str = "cluster";

/// DCGM samples per cluster, through the host map: each hour's mean over the cluster's GPU
/// series of their means in that hour (as the Prometheus pull computes it). Also returns the
/// hosts no cluster claims.
pub fn measured_by_cluster(
    samples: &DataFrame,
    window: &Window,
    hosts: &HostMap,
    origin: &str,
) -> Result<(Vec<ClusterMeasurement>, Vec<String>), DataError> {
    let host_names = samples.column(HOST).map_err(err)?.unique().map_err(err)?;
    let host_names = host_names.str().map_err(err)?;
    let mut mapped_hosts = Vec::new();
    let mut clusters = Vec::new();
    let mut unmapped = Vec::new();
    for host in host_names.iter().flatten() {
        match hosts.cluster_of(host) {
            Some(cluster) => {
                mapped_hosts.push(host.to_string());
                clusters.push(cluster);
            }
            None => unmapped.push(host.to_string()),
        }
    }
    unmapped.sort();
    if mapped_hosts.is_empty() {
        return Ok((Vec::new(), unmapped));
    }
    let host_clusters = df![HOST => mapped_hosts, CLUSTER => clusters].map_err(err)?;
    let (hours, rows) = weighted_rows(samples, window)?;
    let per_series_hour = rows
        .join(
            host_clusters.lazy(),
            [col(HOST)],
            [col(HOST)],
            JoinArgs::new(JoinType::Inner),
        )
        .group_by([col(CLUSTER), col(HOST), col(GPU), col(HOUR)])
        .agg([weighted_mean().alias(UTIL_FRAC), col(METRIC).first()])
        .collect()
        .map_err(err)?;
    // Rows are series × hours: small beside the samples; summed here in plain Rust.
    let cluster_col = per_series_hour.column(CLUSTER).map_err(err)?.str().map_err(err)?;
    let host_col = per_series_hour.column(HOST).map_err(err)?.str().map_err(err)?;
    let gpu_col = per_series_hour.column(GPU).map_err(err)?.str().map_err(err)?;
    let hour_col = per_series_hour.column(HOUR).map_err(err)?.i64().map_err(err)?;
    let mean_col = per_series_hour.column(UTIL_FRAC).map_err(err)?.f64().map_err(err)?;
    let metric_col = per_series_hour.column(METRIC).map_err(err)?.str().map_err(err)?;
    struct Acc {
        sum: Vec<f64>,
        count: Vec<u32>,
        series: std::collections::BTreeSet<(String, String)>,
        hosts: std::collections::BTreeSet<String>,
        metrics: std::collections::BTreeMap<String, std::collections::BTreeSet<(String, String)>>,
    }
    let mut by_cluster: std::collections::BTreeMap<String, Acc> = std::collections::BTreeMap::new();
    for row in 0..per_series_hour.height() {
        let (Some(cluster), Some(host), Some(gpu), Some(hour), Some(mean)) = (
            cluster_col.get(row),
            host_col.get(row),
            gpu_col.get(row),
            hour_col.get(row),
            mean_col.get(row),
        ) else {
            continue;
        };
        let Some(hour) = usize::try_from(hour).ok().filter(|&h| h < hours) else {
            continue;
        };
        let acc = by_cluster.entry(cluster.to_string()).or_insert_with(|| Acc {
            sum: vec![0.0; hours],
            count: vec![0; hours],
            series: Default::default(),
            hosts: Default::default(),
            metrics: Default::default(),
        });
        acc.sum[hour] += mean;
        acc.count[hour] += 1;
        acc.series.insert((host.to_string(), gpu.to_string()));
        acc.hosts.insert(host.to_string());
        acc.metrics
            .entry(metric_col.get(row).unwrap_or("utilization").to_string())
            .or_default()
            .insert((host.to_string(), gpu.to_string()));
    }
    let measurements = by_cluster
        .into_iter()
        .map(|(cluster, acc)| ClusterMeasurement {
            cluster,
            metric: metrics_text(&acc.metrics),
            origin: origin.to_string(),
            gpu_series: acc.series.len() as u64,
            hosts: acc.hosts.len() as u64,
            hourly_util_frac: acc
                .sum
                .iter()
                .zip(&acc.count)
                .map(|(&sum, &n)| (n > 0).then(|| sum / f64::from(n)))
                .collect(),
        })
        .collect();
    Ok((measurements, unmapped))
}

/// The measure a cluster's series were read by: its name when there is one, else each with its
/// count of GPU series (`DCGM_FI_PROF_GR_ENGINE_ACTIVE on 6 GPU series, DCGM_FI_DEV_GPU_UTIL on 2`).
fn metrics_text(metrics: &std::collections::BTreeMap<String, std::collections::BTreeSet<(String, String)>>) -> String {
    match metrics.len() {
        1 => metrics.keys().next().cloned().unwrap_or_default(),
        _ => {
            let mut by_count: Vec<(&String, usize)> = metrics.iter().map(|(m, s)| (m, s.len())).collect();
            by_count.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            by_count
                .into_iter()
                .map(|(metric, series)| {
                    format!(
                        "{metric} on {}",
                        crate::shared::format::count_of(series as u64, "GPU series", "GPU series")
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(rows: &[(i64, &str, Option<f64>)]) -> DataFrame {
        let frame = df![
            TIME => rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            HOST => rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            GPU => rows.iter().map(|_| "0").collect::<Vec<_>>(),
            UTIL_FRAC => rows.iter().map(|r| r.2).collect::<Vec<_>>(),
            SAMPLES => rows.iter().map(|_| 1u32).collect::<Vec<_>>(),
            METRIC => rows.iter().map(|_| "DCGM_FI_DEV_GPU_UTIL").collect::<Vec<_>>(),
            COVER_FROM_MS => rows.iter().map(|_| 0i32).collect::<Vec<_>>(),
            COVER_TO_MS => rows.iter().map(|_| 0i32).collect::<Vec<_>>(),
        ]
        .expect("frame");
        timed(frame)
    }

    #[test]
    fn no_sample_with_a_value_in_the_window_measures_nothing() {
        let frame = samples(&[
            (0, "a", Some(0.5)),
            (5 * HOUR_MS, "a", None),
            (9 * HOUR_MS, "b", Some(1.0)),
        ]);
        let none = measured_utilization(&frame, &Window::from_ms(HOUR_MS, 6 * HOUR_MS), 0.4).expect("measured");
        assert_eq!(none, None);
        let some = measured_utilization(&frame, &Window::from_ms(0, 9 * HOUR_MS), 0.4)
            .expect("measured")
            .expect("samples in the window");
        assert_eq!((some.samples, some.hosts, some.gpu_series), (2, 2, 2));
        assert_eq!(some.hourly_util_frac.len(), 9);
        assert_eq!(some.hourly_util_frac[0], Some(0.5));
        // The sample at the window's last instant counts in the last hour.
        assert_eq!(some.hourly_util_frac[8], Some(1.0));
        assert!(some.hosts_below_threshold.is_empty());
    }

    /// `frame` with its `TIME` column as instants.
    fn timed(frame: DataFrame) -> DataFrame {
        frame
            .lazy()
            .with_column(col(TIME).cast(DataType::Datetime(TimeUnit::Milliseconds, None)))
            .collect()
            .expect("times")
    }

    /// A folded minute of 120 samples at 80 % whose span [T - 30 s, T + 30 s] crosses the hour
    /// at T, and one sample at 20 % early in the first hour.
    fn minute_across_the_hour() -> DataFrame {
        let frame = df![
            TIME => [HOUR_MS - 30_000, 10 * MS_PER_MINUTE],
            HOST => ["a", "a"],
            GPU => ["0", "0"],
            UTIL_FRAC => [0.8, 0.2],
            SAMPLES => [120u32, 1],
            METRIC => ["gract", "gract"],
            COVER_FROM_MS => [0i32, 0],
            COVER_TO_MS => [60_000i32, 0],
        ]
        .expect("frame");
        timed(frame)
    }

    #[test]
    fn a_folded_minute_weighs_by_the_part_of_its_span_in_each_hour_and_in_the_window() {
        let frame = minute_across_the_hour();
        let both_hours = measured_utilization(&frame, &Window::from_ms(0, 2 * HOUR_MS), 0.4)
            .expect("measured")
            .expect("samples");
        // Half the minute's samples fall in each hour: 60 at 80 % and one at 20 % in the first.
        let first = (60.0 * 0.8 + 0.2) / 61.0;
        assert!((both_hours.hourly_util_frac[0].expect("first hour") - first).abs() < 1e-12);
        assert!((both_hours.hourly_util_frac[1].expect("second hour") - 0.8).abs() < 1e-12);
        assert_eq!(both_hours.samples, 121);
        // A window ending 15 s into the minute holds a quarter of it: 30 samples, not 120.
        let cut = measured_utilization(&frame, &Window::from_ms(0, HOUR_MS - 15_000), 0.4)
            .expect("measured")
            .expect("samples");
        assert_eq!(cut.samples, 31);
        assert!((cut.mean_util_frac - (30.0 * 0.8 + 0.2) / 31.0).abs() < 1e-12);
    }
}
