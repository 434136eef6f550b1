//! Delimited text, Parquet (a file, a folder or a glob, hive-partitioned) and JSON logs into
//! the canonical job frame, through a column mapping. Parsing is vectorized in Polars; rows
//! that do not parse are counted by reason and a few kept with their line for the user.
//!
//! A read, step by step (`read_tabular_in_pieces`):
//! 1. what the file and its mapping say before any row is parsed (`prepare`): a header file
//!    beside a headerless export, an encoding that is not UTF-8, a column named like the row
//!    number, the mapping completed from the header and checked;
//! 2. the query every row goes through (`query`, from the field expressions of `fields` and the
//!    time parsing of `times`), worked out on the first piece of delimited text or on the scan;
//! 3. the rows: delimited text in pieces on two threads (`delimited`, `pipeline`), anything else
//!    through one Polars scan (`scan`), each sorted into runs, rejects and jobs that never
//!    started (`split`);
//! 4. the utilization unit, when the mapping left it to the values.

mod delimited;
mod fields;
pub mod format;
mod pipeline;
mod prepare;
mod query;
mod scan;
mod split;
#[cfg(test)]
mod tests;
mod times;
mod waits;

use std::path::Path;

use polars::prelude::*;

use self::delimited::{CHUNK_BYTES, DelimitedFile, open_delimited};
pub(crate) use self::delimited::{column_names, parse_records};
pub(crate) use self::fields::text_exprs;
use self::pipeline::read_pieces;
use self::prepare::{
    complete_mapping, header_file_beside, header_of, numeric_queue_as_wait, recognise_public_trace, refuse_row_column,
    utf8_warning,
};
use self::query::RowQuery;
pub use self::scan::headerless_names;
pub(crate) use self::scan::{first_line_number, scan};
use self::split::{Split, quarantine_of, split_rows};
use super::detect::{LogFormat, sniff};
use super::mapping::{Mapping, UtilUnit};
use super::reject::Quarantine;
use crate::data::audit::classify::features::FEATURE_COLUMNS;
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::model::workload::ClassificationRules;

const REASON: &str = "__reject";
const END_PRESENT: &str = "__end_present";
const START_PRESENT: &str = "__start_present";
/// The `REASON` of a row that is no reject but a job that never started (no start, a submit
/// time): it goes to the pending frame.
const PENDING_CODE: u32 = 99;
const UTIL_PRESENT: &str = "__util_present";

/// How much of each run a reader keeps.
#[derive(Debug, Clone, Copy, Default)]
pub enum Detail<'a> {
    /// Every canonical column (the workbench's drill-down).
    #[default]
    Full,
    /// What an audit needs: cluster, times, GPUs, utilization and the classification features
    /// of `audit::classify::features`, computed while the log streams in. Names, ids, users and
    /// states are never held for every row, which keeps ten million rows well under 2 GiB.
    Audit(&'a ClassificationRules),
}

/// Canonical fields read only for `Detail::Full`: an audit holds them as nulls.
const DETAIL_ONLY_FIELDS: [&str; 2] = ["user", "state"];

/// The columns of `Detail::Audit`, after `with_run_features`.
pub fn audit_columns() -> Vec<Expr> {
    [c::CLUSTER, c::START, c::END, c::GPUS, c::GPU_UTIL_FRAC, c::SOURCE_LINE]
        .into_iter()
        .chain(FEATURE_COLUMNS)
        .map(col)
        .collect()
}

/// What reading one file gave.
#[derive(Debug, Clone)]
pub struct TabularRead {
    pub jobs: DataFrame,
    /// Jobs that never started (no start, a submit time): `canonical::PENDING_COLUMNS`, the
    /// classification features for an audit, every canonical text column otherwise.
    pub pending: DataFrame,
    pub quarantine: Quarantine,
    /// The mapping as applied, after completing it from the header.
    pub mapping: Mapping,
    pub warnings: Vec<String>,
    /// Where each piece of a delimited file begins, to read chosen records back.
    pub pieces: Vec<Piece>,
}

/// One piece of a delimited file as it was read: the byte its first record begins at and
/// that record's row index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Piece {
    pub byte_offset: u64,
    pub first_row: u64,
}

fn err(e: PolarsError) -> DataError {
    DataError::Frame(e)
}

/// Reads one tabular log into the canonical frame.
pub fn read_tabular(
    path: &Path,
    format: LogFormat,
    mapping: &Mapping,
    detail: Detail<'_>,
) -> Result<TabularRead, DataError> {
    if format == LogFormat::Parquet {
        // Polars' Parquet decoder panics on some damaged metadata, and aborts on a negative page
        // count (both found by fuzzing).
        return crate::data::readers::panic_guard::without_panics(|| {
            crate::data::readers::parquet_pages::refuse_before_decoding(path)?;
            read_tabular_in_pieces(path, format, mapping, detail, CHUNK_BYTES)
        })
        .unwrap_or_else(|why| Err(DataError::DamagedParquet(Box::new(why))));
    }
    read_tabular_in_pieces(path, format, mapping, detail, CHUNK_BYTES)
}

/// A log opened and its mapping completed as the audit reads it: what `mapping init` shows
/// and what `read_tabular` reads with.
struct Prepared {
    mapping: Mapping,
    warnings: Vec<String>,
    /// Delimited text's first piece and the rest to read, with its delimiter.
    delimited: Option<(DelimitedFile, u8)>,
    /// The first piece, or a scan of the whole file.
    lf: LazyFrame,
    schema: SchemaRef,
}

fn prepare(path: &Path, format: LogFormat, mapping: &Mapping, chunk_bytes: usize) -> Result<Prepared, DataError> {
    let mut mapping = mapping.clone();
    let mut warnings = Vec::new();
    warnings.extend(header_file_beside(path, format, &mut mapping));
    if let LogFormat::Csv { delimiter } = format {
        // The first bytes, read once: the trace they may be, their encoding.
        let head = sniff(path)?;
        warnings.extend(recognise_public_trace(path, &head, delimiter, &mut mapping)?);
        warnings.extend(utf8_warning(&head));
    }
    // Delimited text is read in pieces (the file is never held or mapped whole); the first
    // piece stands for the file when the mapping and time layouts are worked out.
    let delimited = match format {
        LogFormat::Csv { delimiter } => Some((open_delimited(path, delimiter, &mapping, chunk_bytes)?, delimiter)),
        _ => None,
    };
    if let Some((file, _)) = &delimited {
        refuse_row_column(&file.first)?;
    }
    let mut lf = match &delimited {
        Some((file, _)) => file.first.clone().lazy(),
        None => scan(path, format, &mapping)?,
    };
    let schema = lf.collect_schema().map_err(err)?;
    let queue_named = mapping.columns.contains_key("queue");
    complete_mapping(path, &schema, &mut mapping, &mut warnings)?;
    if let Some((file, _)) = &delimited {
        if !queue_named {
            warnings.extend(numeric_queue_as_wait(&file.first, &mut mapping));
        }
        warnings.extend(self::waits::wait_disagreement(&file.first, format, &mapping, &schema)?);
    }
    Ok(Prepared {
        mapping,
        warnings,
        delimited,
        lf,
        schema,
    })
}

/// How the audit would read a log: what `gpuplan mapping init` prints.
pub struct MappingAsRead {
    /// Completed from the header (numeric queues read as waits), each guess's reason in
    /// `reasons`.
    pub mapping: Mapping,
    /// The file's column names, from its header or wherever a headerless file's come from.
    pub header: Vec<String>,
    /// What reading it warns of.
    pub warnings: Vec<String>,
}

/// The mapping the audit would read `path` with, from `mapping` (the user's, or empty).
pub fn mapping_as_read(path: &Path, format: LogFormat, mapping: &Mapping) -> Result<MappingAsRead, DataError> {
    let prepared = prepare(path, format, mapping, CHUNK_BYTES)?;
    Ok(MappingAsRead {
        header: header_of(&prepared.schema),
        mapping: prepared.mapping,
        warnings: prepared.warnings,
    })
}

/// `read_tabular`, reading delimited text `chunk_bytes` at a time.
fn read_tabular_in_pieces(
    path: &Path,
    format: LogFormat,
    mapping: &Mapping,
    detail: Detail<'_>,
    chunk_bytes: usize,
) -> Result<TabularRead, DataError> {
    let Prepared {
        mut mapping,
        mut warnings,
        mut delimited,
        lf,
        schema,
    } = prepare(path, format, mapping, chunk_bytes)?;
    let query = RowQuery::new(format, &lf, &mapping, &schema, detail)?;
    let (split, pieces) = match delimited.take() {
        Some((file, delimiter)) => read_pieces(file, delimiter, &query, &mapping, detail)?,
        // The streaming engine reads in morsels; one query without sinks gives a single frame.
        None => {
            let frame = query.apply(lf).collect_with_engine(Engine::Streaming).map_err(err)?;
            (split_rows(frame.unwrap_single())?, Vec::new())
        }
    };
    let Split {
        mut jobs,
        rejected,
        pending,
    } = split;
    settle_util_unit(&mut jobs, &mut mapping.units.gpu_util)?;
    cap_util_at_full(&mut jobs)?;
    if jobs.height() == 0 && pending.height() == 0 {
        refuse_relative_times(&rejected, &mapping)?;
    }
    warnings.extend(no_gpu_warning(&jobs, &mapping)?);
    let quarantine = quarantine_of(&rejected, path, format)?;
    Ok(TabularRead {
        jobs,
        pending,
        quarantine,
        mapping,
        warnings,
        pieces,
    })
}

/// A warning when rows were read and none holds a GPU (a CPU partition's export, or the wrong
/// column taken as the GPU count), naming the column read as GPUs.
fn no_gpu_warning(jobs: &DataFrame, mapping: &Mapping) -> Result<Option<String>, DataError> {
    if jobs.height() == 0 {
        return Ok(None);
    }
    let most = jobs
        .column(c::GPUS)
        .map_err(err)?
        .as_materialized_series()
        .max::<f64>()
        .map_err(err)?
        .unwrap_or(0.0);
    if most > 0.0 {
        return Ok(None);
    }
    // The mapping names a GPU column or constant, or reading stopped (`complete_mapping`).
    let read_as = match mapping.columns.get("gpus") {
        Some(column) => format!("column `{column}`"),
        None => format!(
            "the constant {}",
            mapping.constants.get("gpus").map_or("", String::as_str)
        ),
    };
    Ok(Some(format!(
        "no row holds a GPU: {read_as}, read as the GPU count, is 0 on all {} rows (a CPU partition's export? \
         name the GPU column in a mapping's [columns] gpus)",
        jobs.height()
    )))
}

/// A utilization unit the mapping left to `auto`, settled from the values read: any above 1
/// means percentages (then divided by 100), else ratios; no values leave it open.
fn settle_util_unit(jobs: &mut DataFrame, unit: &mut UtilUnit) -> Result<(), DataError> {
    if *unit != UtilUnit::Auto {
        return Ok(());
    }
    let util = jobs
        .column(c::GPU_UTIL_FRAC)
        .map_err(err)?
        .as_materialized_series()
        .clone();
    let max = util.max::<f64>().map_err(err)?.unwrap_or(0.0);
    if max > 1.0 {
        jobs.with_column((util / 100.0).into_column()).map_err(err)?;
        *unit = UtilUnit::Percent;
    } else if util.null_count() < util.len() {
        *unit = UtilUnit::Ratio;
    }
    Ok(())
}

/// Utilization within the tolerance above 100 % (`JOB_UTIL_SLACK_FRAC`) read as 100 %: rows
/// beyond it were set aside, so no figure holds more than every GPU busy.
fn cap_util_at_full(jobs: &mut DataFrame) -> Result<(), DataError> {
    let util = jobs
        .column(c::GPU_UTIL_FRAC)
        .map_err(err)?
        .as_materialized_series()
        .clone();
    if util.max::<f64>().map_err(err)?.is_none_or(|max| max <= 1.0) {
        return Ok(());
    }
    let capped: Float64Chunked = util
        .f64()
        .map_err(err)?
        .iter()
        .map(|value| value.map(|v| v.min(1.0)))
        .collect();
    jobs.with_column(capped.with_name(c::GPU_UTIL_FRAC.into()).into_column())
        .map_err(err)?;
    Ok(())
}

/// Refuses a file none of whose rows could be used, most of them set aside for a time before
/// 2000 and none for a time after: its times are a trace's relative seconds, not dates (rows
/// with an empty time, as a trace writes for what ran before it began, do not change that), and
/// the message names the column and its first value.
fn refuse_relative_times(rejected: &DataFrame, mapping: &Mapping) -> Result<(), DataError> {
    if rejected.height() == 0 {
        return Ok(());
    }
    let time_code = crate::data::readers::reject::RejectReason::TimeOutOfRange as u32;
    let out_of_range = rejected
        .column(REASON)
        .map_err(err)?
        .as_materialized_series()
        .equal(time_code)
        .map_err(err)?;
    let dated = rejected.filter(&out_of_range).map_err(err)?;
    // Most of the file, not one stray row: a lone overflowing time that tipped the column to
    // milliseconds is a bad row, not a trace of relative seconds.
    if dated.height() * 2 <= rejected.height() {
        return Ok(());
    }
    let starts = c::int64_column(&dated, c::START)?;
    // Seconds from a trace's start read as dates land in 1970..2000; a year -9999 is no trace.
    if starts
        .iter()
        .any(|start| start.is_none_or(|ms| !(0..c::EARLIEST_TIME_MS).contains(&ms)))
    {
        return Ok(());
    }
    let first_ms = starts.get(0).unwrap_or(0);
    Err(DataError::TimesBefore2000 {
        column: mapping.columns.get("start").cloned().unwrap_or_else(|| "start".into()),
        first: format!("{} s", first_ms as f64 / 1000.0),
        first_ms,
    })
}
