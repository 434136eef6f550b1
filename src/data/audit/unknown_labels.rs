//! Label values the log uses that `[labels]` does not know (their `label_code` is
//! `UNKNOWN_LABEL_BASE` and up, their text in `classify::label_names`). Their jobs are
//! classified by the rules like unlabeled ones; the audit lists each value with its jobs and
//! GPU-hours in the window, so a trace's own vocabulary is never dropped without a word.

use polars::prelude::*;

use super::classify::label_names::name_of;
use super::classify::{JOB_KEY, LABEL_CODE, UNKNOWN_LABEL_BASE};
use crate::data::canonical::{self as c, MS_PER_HOUR};
use crate::data::error::DataError;
use crate::model::fleet::{UnknownLabel, Window, merge_unknown_labels};

fn err(e: PolarsError) -> DataError {
    DataError::Frame(e)
}

/// The unknown labels of `runs` (with their classification features), largest GPU-hours first.
pub fn unknown_labels(runs: &DataFrame, window: &Window) -> Result<Vec<UnknownLabel>, DataError> {
    let codes = runs.column(LABEL_CODE).map_err(err)?;
    if codes.null_count() == runs.height()
        || codes
            .as_materialized_series()
            .max::<u32>()
            .map_err(err)?
            .is_none_or(|max| max < UNKNOWN_LABEL_BASE)
    {
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
            col(LABEL_CODE)
                .gt_eq(lit(UNKNOWN_LABEL_BASE))
                .and(start.lt(lit(window.end_ms)))
                .and(end.gt(lit(window.start_ms))),
        )
        .group_by([col(LABEL_CODE)])
        .agg([
            col(JOB_KEY).n_unique().cast(DataType::UInt64).alias("jobs"),
            ((clipped_end - clipped_start).cast(DataType::Float64) * col(c::GPUS) / lit(MS_PER_HOUR))
                .sum()
                .alias("gpu_hours"),
        ])
        .collect()
        .map_err(err)?;
    let label = grouped.column(LABEL_CODE).map_err(err)?.u32().map_err(err)?.clone();
    let jobs = grouped.column("jobs").map_err(err)?.u64().map_err(err)?.clone();
    let hours = grouped.column("gpu_hours").map_err(err)?.f64().map_err(err)?.clone();
    let found = (0..grouped.height()).filter_map(|row| {
        Some(UnknownLabel {
            label: name_of(label.get(row)? - UNKNOWN_LABEL_BASE),
            jobs: jobs.get(row).unwrap_or(0),
            gpu_hours: hours.get(row).unwrap_or(0.0).max(0.0),
        })
    });
    Ok(merge_unknown_labels(found))
}
