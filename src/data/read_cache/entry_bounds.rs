//! The bounds a cached runs frame must keep: the ones the readers set a row aside for
//! (tabular `split`, Slurm's and Philly's values), checked again on the way back because a
//! cached row skips the readers. A frame outside them was changed on disk: it is damaged.

use polars::prelude::*;

use super::error::CacheError;
use crate::data::canonical as c;

/// GPUs a run holds: never fewer than none.
pub const MIN_GPUS: f64 = 0.0;
/// GPUs a run holds: the readers' own ceiling (a count above it is a unit mistake).
pub const MAX_GPUS: f64 = c::MAX_JOB_GPUS;
/// Mean utilization as a fraction: 0 % to 100 %.
pub const MIN_UTIL_FRAC: f64 = 0.0;
pub const MAX_UTIL_FRAC: f64 = 1.0;

fn out_of_bounds(frame: &str, column: &'static str, row: usize, value: String, bounds: &'static str) -> CacheError {
    CacheError::OutOfBounds {
        frame: frame.to_string(),
        column,
        row,
        value,
        bounds,
    }
}

fn polars(frame: &str) -> impl Fn(PolarsError) -> CacheError + '_ {
    move |source| CacheError::Parquet {
        frame: frame.to_string(),
        source,
    }
}

/// Every value of `column` (a number column; absent is fine) present, finite and in `range`,
/// or null where `nulls` allows.
fn check_numbers(
    frame_name: &str,
    frame: &DataFrame,
    column: &'static str,
    range: std::ops::RangeInclusive<f64>,
    bounds: &'static str,
    nulls: bool,
) -> Result<(), CacheError> {
    let Ok(values) = frame.column(column) else {
        return Ok(());
    };
    let values = values.f64().map_err(polars(frame_name))?;
    for (row, value) in values.iter().enumerate() {
        let fits = match value {
            None => nulls,
            Some(v) => v.is_finite() && range.contains(&v),
        };
        if !fits {
            let shown = value.map_or_else(|| "empty".to_string(), |v| v.to_string());
            return Err(out_of_bounds(frame_name, column, row, shown, bounds));
        }
    }
    Ok(())
}

/// A time column's milliseconds (absent: none).
fn millis(frame_name: &str, frame: &DataFrame, column: &str) -> Result<Option<Int64Chunked>, CacheError> {
    let Ok(values) = frame.column(column) else {
        return Ok(None);
    };
    let values = values.cast(&DataType::Int64).map_err(polars(frame_name))?;
    Ok(Some(values.i64().map_err(polars(frame_name))?.clone()))
}

/// The runs frame within the readers' bounds: GPUs present, finite, from `MIN_GPUS` to
/// `MAX_GPUS`; utilization, where known, finite and from 0 % to 100 %; no run ending before it
/// starts. The first value outside, otherwise.
pub fn check_runs(frame_name: &str, runs: &DataFrame) -> Result<(), CacheError> {
    check_numbers(
        frame_name,
        runs,
        c::GPUS,
        MIN_GPUS..=MAX_GPUS,
        "0 to 1,000,000 GPUs",
        false,
    )?;
    check_numbers(
        frame_name,
        runs,
        c::GPU_UTIL_FRAC,
        MIN_UTIL_FRAC..=MAX_UTIL_FRAC,
        "0 % to 100 % utilization",
        true,
    )?;
    if let (Some(start), Some(end)) = (millis(frame_name, runs, c::START)?, millis(frame_name, runs, c::END)?) {
        for (row, (start, end)) in start.iter().zip(end.iter()).enumerate() {
            if let (Some(start), Some(end)) = (start, end)
                && end < start
            {
                return Err(out_of_bounds(
                    frame_name,
                    c::END,
                    row,
                    format!("{end} ms"),
                    "an end at or after the start",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(gpus: &[f64], util: &[Option<f64>], start: &[i64], end: &[Option<i64>]) -> DataFrame {
        df!(
            c::GPUS => gpus,
            c::GPU_UTIL_FRAC => util,
            c::START => start,
            c::END => end,
        )
        .expect("frame")
    }

    #[test]
    fn runs_within_the_readers_bounds_pass() {
        let frame = runs(
            &[0.0, 8.0, MAX_GPUS],
            &[None, Some(0.0), Some(1.0)],
            &[0, 5, 9],
            &[None, Some(5), Some(10)],
        );
        assert!(check_runs("runs.parquet", &frame).is_ok());
    }

    #[test]
    fn each_bound_broken_is_found() {
        let bad = [
            runs(&[-1.0], &[None], &[0], &[None]),
            runs(&[MAX_GPUS + 1.0], &[None], &[0], &[None]),
            runs(&[f64::NAN], &[None], &[0], &[None]),
            runs(&[1.0], &[Some(50.0)], &[0], &[None]),
            runs(&[1.0], &[Some(f64::INFINITY)], &[0], &[None]),
            runs(&[1.0], &[None], &[10], &[Some(9)]),
        ];
        for frame in bad {
            let why = check_runs("runs.parquet", &frame).expect_err("out of bounds");
            assert!(why.to_string().starts_with("runs.parquet: "), "{why}");
        }
    }
}
