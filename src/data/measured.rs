//! DCGM utilization samples summed over the audit's window (`model::fleet::MeasuredUtilization`):
//! each series' mean (a GPU, or a host exported whole), their mean, each host's, and the mean
//! of each hour's samples. Samples carry hosts, not clusters, so the figures are the fleet's
//! and its hosts', beside the job log's per-cluster figures.

use polars::prelude::*;

use super::canonical::MS_PER_MINUTE;
use super::dcgm::{GPU, HOST, TIME, UTIL_FRAC};
use crate::model::fleet::{HostUtilization, MeasuredUtilization, Window};

/// An hour in the samples' integer milliseconds.
const HOUR_MS: i64 = 60 * MS_PER_MINUTE;
const SERIES_MEAN: &str = "series_mean";
const HOUR: &str = "hour";

fn err(e: PolarsError) -> String {
    format!("DCGM samples: {e}")
}

/// The samples' utilization over `window`; None when no sample with a value falls in it.
/// Hosts averaging below `threshold_frac` are listed, lowest first.
pub fn measured_utilization(
    samples: &DataFrame,
    window: &Window,
    threshold_frac: f64,
) -> Result<Option<MeasuredUtilization>, String> {
    let in_window = samples
        .clone()
        .lazy()
        .with_column(col(TIME).cast(DataType::Int64).alias(TIME))
        .filter(
            col(TIME)
                .gt_eq(lit(window.start_ms))
                .and(col(TIME).lt_eq(lit(window.end_ms)))
                .and(col(UTIL_FRAC).is_not_null()),
        )
        .select([col(TIME), col(HOST), col(GPU), col(UTIL_FRAC)])
        .collect()
        .map_err(err)?;
    let samples = in_window.height() as u64;
    if samples == 0 {
        return Ok(None);
    }
    let series = in_window
        .clone()
        .lazy()
        .group_by([col(HOST), col(GPU)])
        .agg([col(UTIL_FRAC).mean().alias(SERIES_MEAN)])
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
    let hours = ((window.end_ms - window.start_ms) as f64 / HOUR_MS as f64)
        .ceil()
        .max(1.0) as usize;
    // A sample at the window's last instant belongs to the last hour.
    let last_hour = hours as i64 - 1;
    let hour = (col(TIME) - lit(window.start_ms)) / lit(HOUR_MS);
    let hourly = in_window
        .lazy()
        .with_column(
            when(hour.clone().gt(lit(last_hour)))
                .then(lit(last_hour))
                .otherwise(hour)
                .alias(HOUR),
        )
        .group_by([col(HOUR)])
        .agg([col(UTIL_FRAC).mean()])
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

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(rows: &[(i64, &str, Option<f64>)]) -> DataFrame {
        let frame = df![
            TIME => rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            HOST => rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            GPU => rows.iter().map(|_| "0").collect::<Vec<_>>(),
            UTIL_FRAC => rows.iter().map(|r| r.2).collect::<Vec<_>>(),
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
