//! DCGM utilization samples summed over the audit's window (`model::fleet::MeasuredUtilization`):
//! each series' mean (a GPU, or a host exported whole), their mean, each host's, and the mean
//! of each hour's samples. Samples carry hosts, not clusters, so the figures are the fleet's
//! and its hosts', beside the job log's per-cluster figures. A row may stand for several
//! samples (nvidia-smi recordings are folded a minute a row): every mean weighs a row by its
//! `samples`, so a folded row counts as the samples it holds.

use polars::prelude::*;

use super::host_map::HostMap;
use crate::data::canonical::MS_PER_MINUTE;
use crate::data::error::DataError;
use crate::data::readers::dcgm::{GPU, HOST, METRIC, SAMPLES, TIME, UTIL_FRAC};
use crate::model::fleet::{HostUtilization, MeasuredUtilization, Window};
use crate::model::utilization::ClusterMeasurement;

/// An hour in the samples' integer milliseconds.
const HOUR_MS: i64 = 60 * MS_PER_MINUTE;
const SERIES_MEAN: &str = "series_mean";
const HOUR: &str = "hour";
const WEIGHT: &str = "__samples";

/// The mean of `util_frac` over the rows, each weighed by the samples it stands for.
fn weighted_mean() -> Expr {
    (col(UTIL_FRAC) * col(WEIGHT)).sum() / col(WEIGHT).sum()
}

fn err(e: PolarsError) -> DataError {
    crate::data::error::dcgm_samples(e)
}

/// The samples with a value inside `window`, times as integer milliseconds, each row's weight
/// as `WEIGHT`.
fn in_window(samples: &DataFrame, window: &Window) -> LazyFrame {
    samples
        .clone()
        .lazy()
        .with_columns([
            col(TIME).cast(DataType::Int64).alias(TIME),
            col(SAMPLES).cast(DataType::Float64).alias(WEIGHT),
        ])
        .filter(
            col(TIME)
                .gt_eq(lit(window.start_ms))
                .and(col(TIME).lt_eq(lit(window.end_ms)))
                .and(col(UTIL_FRAC).is_not_null()),
        )
}

/// The window's series points (hours, or `Resolution::hours_per_point` hours for a very long
/// window), and each sample's point from the window's start as the column `HOUR`; a sample at
/// the window's last instant belongs to the last point.
fn hour_of_sample(window: &Window) -> (usize, Expr) {
    let point_ms = HOUR_MS * i64::from(window.resolution.hours_per_point.max(1));
    let hours = ((window.end_ms - window.start_ms) as f64 / point_ms as f64)
        .ceil()
        .max(1.0) as usize;
    let last_hour = hours as i64 - 1;
    let hour = (col(TIME) - lit(window.start_ms)) / lit(point_ms);
    let expr = when(hour.clone().gt(lit(last_hour)))
        .then(lit(last_hour))
        .otherwise(hour)
        .alias(HOUR);
    (hours, expr)
}

/// The samples' utilization over `window`; None when no sample with a value falls in it.
/// Hosts averaging below `threshold_frac` are listed, lowest first.
pub fn measured_utilization(
    samples: &DataFrame,
    window: &Window,
    threshold_frac: f64,
) -> Result<Option<MeasuredUtilization>, DataError> {
    let in_window = in_window(samples, window)
        .select([col(TIME), col(HOST), col(GPU), col(UTIL_FRAC), col(WEIGHT)])
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
        .map_err(err)? as u64;
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
    let (hours, hour) = hour_of_sample(window);
    let hourly = in_window
        .lazy()
        .with_column(hour)
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
    let (hours, hour) = hour_of_sample(window);
    let per_series_hour = in_window(samples, window)
        .join(
            host_clusters.lazy(),
            [col(HOST)],
            [col(HOST)],
            JoinArgs::new(JoinType::Inner),
        )
        .with_column(hour)
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
        ]
        .expect("frame");
        frame
            .lazy()
            .with_column(col(TIME).cast(DataType::Datetime(TimeUnit::Milliseconds, None)))
            .collect()
            .expect("times")
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
}
