//! What can go wrong between gpuplan and a warehouse, each with what to do about it.

use std::path::PathBuf;

use crate::shared::format::thousands;

/// A warehouse audit's failure.
#[derive(Debug, Clone, thiserror::Error)]
pub enum WarehouseError {
    #[error("the ADBC driver `{driver}` could not be loaded ({reason}).\n{install}")]
    DriverMissing {
        driver: String,
        reason: String,
        install: String,
    },
    #[error("the warehouse (driver {driver}, uri {uri}) refused the connection: {message}")]
    Connect {
        driver: String,
        uri: String,
        message: String,
    },
    #[error("the warehouse could not run the audit's {part} query: {message}\n(see the SQL with --explain-sql)")]
    Query { part: &'static str, message: String },
    #[error("the warehouse's answer to the {part} query has no column `{column}` of a usable type (got {found})")]
    Answer {
        part: &'static str,
        column: String,
        found: String,
    },
    #[error(
        "unknown warehouse driver `{0}`: give duckdb, flightsql, postgresql, bigquery, snowflake, or the path of an ADBC driver library"
    )]
    UnknownDriver(String),
    #[error("unknown SQL dialect `{0}`: give duckdb, postgres, bigquery, snowflake, spark or sail")]
    UnknownDialect(String),
    #[error(
        "the driver `{driver}` needs `dialect` set in [warehouse] (duckdb, postgres, bigquery, snowflake, spark or sail)"
    )]
    NoDialect { driver: String },
    #[error("[warehouse.options] {key}: the environment variable {variable} is not set")]
    OptionVariable { key: String, variable: String },
    #[error("the warehouse source {from} has no column `{column}` for {field} (its columns: {columns})")]
    MappedColumnMissing {
        from: String,
        field: String,
        column: String,
        columns: String,
    },
    #[error(
        "the warehouse source {from} has no start-time column; name one in the mapping's [columns] start (its columns: {columns})"
    )]
    NoStartColumn { from: String, columns: String },
    #[error(
        "the warehouse source {from} has no GPU-count column; name one in the mapping's [columns] gpus (its columns: {columns})"
    )]
    NoGpuColumn { from: String, columns: String },
    #[error("column `{column}` ({field}): {what} is not read over SQL; {instead}")]
    Unsupported {
        column: String,
        field: String,
        what: String,
        instead: String,
    },
    #[error(
        "[warehouse] passes = {passes}: the {dialect} dialect cannot split an audit into passes (it needs temporary tables); leave passes out, or give 1"
    )]
    PassesUnsupported { dialect: &'static str, passes: u32 },
    /// `jobs`: the audit's count, or None when the rows came past `max` as they streamed.
    #[error(
        "a replay holds every job in memory: the window holds {} jobs, past the {} a warehouse's replay brings back; replay a shorter window (--since, --until or --days)",
        .jobs.map_or_else(|| format!("more than {}", thousands(*.max as f64)), |jobs| thousands(jobs as f64)),
        thousands(*.max as f64)
    )]
    TooManyJobsToReplay { jobs: Option<u64>, max: u64 },
    #[error("the warehouse source {from} holds no run with a start time{set_aside}")]
    NoRuns {
        from: String,
        /// Why the rows went, where some were set aside (`answers::set_aside_text`).
        set_aside: String,
    },
    #[error("the mapping {path}: {message}")]
    Mapping { path: PathBuf, message: String },
    #[error(transparent)]
    Data(#[from] crate::data::error::DataError),
}
