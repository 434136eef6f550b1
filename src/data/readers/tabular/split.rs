//! Rows sorted out after the query: the reason a row cannot be used (as a code in `REASON`), the
//! runs kept apart from rejected rows and jobs that never started, and the quarantine that counts
//! rejected rows by reason with a few shown by their line.

use std::io::{BufRead, BufReader};
use std::path::Path;

use polars::prelude::*;

use super::{END_PRESENT, PENDING_CODE, REASON, START_PRESENT, UTIL_PRESENT, err};
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::data::readers::detect::LogFormat;
use crate::data::readers::mapping::EmptyEnd;
use crate::data::readers::reject::{Quarantine, RejectReason, RejectedRow, SAMPLES_PER_REASON};

fn reason_code(reason: RejectReason) -> Expr {
    lit(reason as u32)
}

/// What a row's values may be and still be believed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Bounds {
    /// The largest utilization read, in the column's unit before an `auto` unit is settled:
    /// 105 for percentages or `auto` (any value above 1 means percentages), 1.05 for ratios.
    pub(super) util_max: f64,
    /// Times outside `EARLIEST_TIME_MS..=latest_ms` are set aside.
    pub(super) latest_ms: i64,
}

/// A time column (milliseconds) outside 2000-01-01..`latest_ms`; false when empty.
fn time_outside(column: &str, latest_ms: i64) -> Expr {
    let ms = col(column).cast(DataType::Int64);
    ms.clone()
        .lt(lit(c::EARLIEST_TIME_MS))
        .or(ms.gt(lit(latest_ms)))
        .fill_null(lit(false))
}

/// The first matching reason a row cannot be used, `PENDING_CODE` for a job that never
/// started, or null. With `has_submit`, a row whose start is empty (not unreadable) and whose
/// submit time reads is a job that never started; its empty end is no problem.
pub(super) fn reject_reason(empty_end: EmptyEnd, has_submit: bool, bounds: Bounds) -> Expr {
    let id = col(c::JOB_ID);
    let gpus = col(c::GPUS);
    let util = col(c::GPU_UTIL_FRAC);
    let never_started = if has_submit {
        col(c::START)
            .is_null()
            .and(col(START_PRESENT).not())
            .and(col(c::SUBMIT).is_not_null())
    } else {
        lit(false)
    };
    let end_unreadable = col(END_PRESENT).and(col(c::END).is_null());
    let end_missing = match empty_end {
        EmptyEnd::Censored => end_unreadable,
        EmptyEnd::Reject => end_unreadable.or(col(c::END).is_null().and(never_started.clone().not())),
    };
    when(id.clone().is_null().or(id.str().len_chars().eq(lit(0))))
        .then(reason_code(RejectReason::MissingJobId))
        .when(col(c::START).is_null().and(never_started.clone().not()).or(end_missing))
        .then(reason_code(RejectReason::UnparseableTime))
        .when(
            gpus.clone()
                .is_null()
                .or(gpus.clone().is_finite().not())
                .or(gpus.clone().gt(lit(c::MAX_JOB_GPUS)))
                .or(col(UTIL_PRESENT).and(util.clone().is_null().or(util.clone().is_finite().not()))),
        )
        .then(reason_code(RejectReason::UnparseableNumber))
        .when(gpus.clone().lt(lit(0.0)))
        .then(reason_code(RejectReason::NegativeGpus))
        .when(gpus.eq(lit(0.0)))
        .then(reason_code(RejectReason::CpuOnly))
        .when(
            col(c::START)
                .is_not_null()
                .and(col(c::END).is_not_null())
                .and(col(c::END).lt(col(c::START))),
        )
        .then(reason_code(RejectReason::EndBeforeStart))
        .when(time_outside(c::START, bounds.latest_ms).or(time_outside(c::END, bounds.latest_ms)))
        .then(reason_code(RejectReason::TimeOutOfRange))
        .when(
            util.clone()
                .lt(lit(0.0))
                .or(util.gt(lit(bounds.util_max)))
                .fill_null(lit(false)),
        )
        .then(reason_code(RejectReason::UtilizationOutOfRange))
        .when(never_started)
        .then(lit(PENDING_CODE))
        .otherwise(lit(NULL).cast(DataType::UInt32))
}

/// A frame's rows sorted out: runs, rejected rows (with their `REASON`), jobs that never
/// started (without it).
pub(super) struct Split {
    pub(super) jobs: DataFrame,
    pub(super) rejected: DataFrame,
    pub(super) pending: DataFrame,
}

impl Split {
    /// Adds a later piece's rows.
    pub(super) fn append(&mut self, piece: Split) -> Result<(), DataError> {
        self.jobs.vstack_mut_owned(piece.jobs).map_err(err)?;
        for (mine, theirs) in [(&mut self.rejected, piece.rejected), (&mut self.pending, piece.pending)] {
            if theirs.height() > 0 {
                *mine = if mine.height() > 0 {
                    mine.vstack(&theirs).map_err(err)?
                } else {
                    theirs
                };
            }
        }
        Ok(())
    }
}

/// Separates rejected rows and jobs that never started (few) from the runs without holding
/// two copies of the whole frame: columns are filtered one at a time. Runs keep no time limit.
pub(super) fn split_rows(frame: DataFrame) -> Result<Split, DataError> {
    let reason = frame.column(REASON).map_err(err)?.as_materialized_series().clone();
    let set_aside = reason.is_not_null();
    let for_jobs = |name: &str| name != REASON && name != c::TIME_LIMIT_HOURS;
    if !set_aside.any() {
        let jobs = frame.drop_many([REASON, c::TIME_LIMIT_HOURS]);
        return Ok(Split {
            jobs,
            rejected: DataFrame::empty(),
            pending: DataFrame::empty(),
        });
    }
    let pending_mask = reason
        .u32()
        .map_err(err)?
        .equal(PENDING_CODE)
        .fill_null_with_values(false)
        .map_err(err)?;
    let rejected_mask = &set_aside & &!&pending_mask;
    let rejected = frame.filter(&rejected_mask).map_err(err)?;
    let pending = frame.filter(&pending_mask).map_err(err)?.drop(REASON).map_err(err)?;
    let keep = !&set_aside;
    let height = keep.sum().unwrap_or(0) as usize;
    let mut kept = Vec::new();
    for column in frame.into_columns() {
        if for_jobs(column.name().as_str()) {
            kept.push(column.filter(&keep).map_err(err)?);
        }
    }
    Ok(Split {
        jobs: DataFrame::new(height, kept).map_err(err)?,
        rejected,
        pending,
    })
}

/// The text of the given 1-based lines of a text file, read up to the last one asked for.
fn read_lines(path: &Path, wanted: &[u64]) -> Vec<(u64, String)> {
    let Some(&last) = wanted.iter().max() else {
        return Vec::new();
    };
    let Ok(file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut buffer = Vec::new();
    let mut reader = BufReader::new(file);
    for number in 1..=last {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(_) if wanted.contains(&number) => {
                let text = String::from_utf8_lossy(&buffer).trim_end().to_string();
                let shown: String = text.chars().take(160).collect();
                out.push((
                    number,
                    if shown.len() < text.len() {
                        format!("{shown}…")
                    } else {
                        shown
                    },
                ));
            }
            Ok(_) => {}
        }
    }
    out
}

/// Counts rejected rows by reason and describes the first few of each with their line.
pub(super) fn quarantine_of(rejected: &DataFrame, path: &Path, format: LogFormat) -> Result<Quarantine, DataError> {
    let mut quarantine = Quarantine::default();
    if rejected.height() == 0 {
        return Ok(quarantine);
    }
    let codes = rejected.column(REASON).map_err(err)?.u32().map_err(err)?.clone();
    let lines = rejected
        .column(c::SOURCE_LINE)
        .map_err(err)?
        .u64()
        .map_err(err)?
        .clone();
    let mut counts: std::collections::BTreeMap<RejectReason, (u64, Vec<u64>)> = Default::default();
    for (code, line) in codes.iter().zip(lines.iter()) {
        let (Some(code), Some(line)) = (code, line) else {
            continue;
        };
        let Some(reason) = RejectReason::from_code(code) else {
            continue;
        };
        let entry = counts.entry(reason).or_default();
        entry.0 += 1;
        if entry.1.len() < SAMPLES_PER_REASON {
            entry.1.push(line);
        }
    }
    let text_lines = matches!(format, LogFormat::Csv { .. } | LogFormat::Ndjson);
    let wanted: Vec<u64> = counts.values().flat_map(|(_, lines)| lines.iter().copied()).collect();
    let raw = if text_lines {
        read_lines(path, &wanted)
    } else {
        Vec::new()
    };
    let file = path.display().to_string();
    for (reason, (count, sample_lines)) in counts {
        let samples = sample_lines
            .into_iter()
            .map(|line| RejectedRow {
                file: file.clone(),
                line,
                reason,
                detail: raw
                    .iter()
                    .find(|(n, _)| *n == line)
                    .map_or_else(|| format!("record {line}"), |(_, t)| t.clone()),
            })
            .collect();
        quarantine.add_many(reason, count, samples);
    }
    Ok(quarantine)
}
