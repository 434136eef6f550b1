//! Label values the log uses that `[labels]` does not know. Their jobs are classified by the
//! rules like unlabeled ones; the audit lists each value with its jobs and GPU-hours in the
//! window, so a trace's own vocabulary is never dropped without a word.

use polars::prelude::*;

use super::classify::JOB_KEY;
use super::classify::features::UNKNOWN_LABEL;
use crate::data::canonical::{self as c, MS_PER_HOUR};
use crate::data::error::DataError;
use crate::model::fleet::{UnknownLabel, Window, merge_unknown_labels};

fn err(e: PolarsError) -> DataError {
    DataError::Frame(e)
}

const LABEL_KEY: &str = "__label_key";

/// The unknown labels of `runs` (with their classification features), largest GPU-hours first.
pub fn unknown_labels(runs: &DataFrame, window: &Window) -> Result<Vec<UnknownLabel>, DataError> {
    if runs.column(UNKNOWN_LABEL).map_err(err)?.null_count() == runs.height() {
        return Ok(Vec::new());
    }
    let start = col(c::START).cast(DataType::Int64);
    let end = col(c::END).cast(DataType::Int64).fill_null(lit(window.end_ms));
    let clipped_start = when(start.clone().lt(lit(window.start_ms)))
        .then(lit(window.start_ms))
        .otherwise(start.clone());
    let clipped_end = when(end.clone().gt(lit(window.end_ms)))
        .then(lit(window.end_ms))
        .otherwise(end.clone());
    let grouped = runs
        .clone()
        .lazy()
        .filter(
            col(UNKNOWN_LABEL)
                .is_not_null()
                .and(start.lt(lit(window.end_ms)))
                .and(end.gt(lit(window.start_ms))),
        )
        .with_column(col(UNKNOWN_LABEL).str().to_lowercase().alias(LABEL_KEY))
        .group_by([col(LABEL_KEY)])
        .agg([
            col(UNKNOWN_LABEL).first().alias(UNKNOWN_LABEL),
            col(JOB_KEY).n_unique().cast(DataType::UInt64).alias("jobs"),
            ((clipped_end - clipped_start).cast(DataType::Float64) * col(c::GPUS) / lit(MS_PER_HOUR))
                .sum()
                .alias("gpu_hours"),
        ])
        .collect()
        .map_err(err)?;
    let label = grouped.column(UNKNOWN_LABEL).map_err(err)?.str().map_err(err)?.clone();
    let jobs = grouped.column("jobs").map_err(err)?.u64().map_err(err)?.clone();
    let hours = grouped.column("gpu_hours").map_err(err)?.f64().map_err(err)?.clone();
    let found = (0..grouped.height()).filter_map(|row| {
        Some(UnknownLabel {
            label: label.get(row)?.to_string(),
            jobs: jobs.get(row).unwrap_or(0),
            gpu_hours: hours.get(row).unwrap_or(0.0).max(0.0),
        })
    });
    Ok(merge_unknown_labels(found))
}
