//! The data layer's one error: what went wrong reading, mapping or auditing logs, with the file,
//! line, column and mapping key it knows as fields. Each variant's text is the message the user
//! reads (a `LoadError` puts the log's path, and a line when there is one, before it; the CLI makes that a `Diagnostic`).

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use polars::prelude::{DataType, PolarsError};
use thiserror::Error;

use crate::data::places::{MappingPlace, ROW};
use crate::data::readers::hostlist::HostlistError;

#[derive(Debug, Clone, Error)]
pub enum DataError {
    // The frame engine.
    /// A Polars step failed.
    #[error("{0}")]
    Frame(#[from] PolarsError),
    /// A Polars step failed on data the message names (`DCGM samples`).
    #[error("{what}: {source}")]
    FrameOf { what: &'static str, source: PolarsError },
    /// The frame of samples read could not be built.
    #[error("could not build the frame: {0}")]
    FrameNotBuilt(PolarsError),
    /// A decoder we do not own panicked; its message.
    #[error("{message}")]
    Panicked { message: String },
    /// A worker thread of ours panicked (`classification thread`).
    #[error("the {thread} failed")]
    ThreadFailed { thread: &'static str },

    // Files.
    /// The file cannot be opened.
    #[error("cannot open: {source}")]
    CannotOpen { path: PathBuf, source: Arc<io::Error> },
    /// The file cannot be read (or, where today's message says so, opened).
    #[error("cannot read: {source}")]
    CannotRead { path: PathBuf, source: Arc<io::Error> },
    /// The file cannot be read, in the system's own words.
    #[error("{source}")]
    Io { path: PathBuf, source: Arc<io::Error> },
    /// The file is not UTF-8 text; the first bad byte.
    #[error("not UTF-8 text: invalid byte at offset {offset} (convert it with iconv -f LATIN1 -t UTF-8)")]
    NotUtf8 { path: PathBuf, offset: usize },
    /// Polars takes paths as text.
    #[error("the path is not valid UTF-8")]
    PathNotUtf8 { path: PathBuf },
    /// A headerless file's `.header` file cannot be read.
    #[error("headerless file: cannot read its header file {}: {source}", .path.display())]
    HeaderFile { path: PathBuf, source: Arc<io::Error> },
    /// An input glob that does not parse.
    #[error("bad pattern: {0}")]
    BadGlob(Arc<glob::PatternError>),
    /// An input glob that matches no file.
    #[error("no file matches")]
    NoFileMatches,
    /// An input that is not a regular file and cannot be read as a stream (readers/stream_input).
    #[error("{kind}, not a file: {detail}")]
    NotAFile { kind: &'static str, detail: String },
    /// A problem of one file (the reader names it, and the line when there is one, before the
    /// problem).
    #[error("{file}{}: {source}", .line.map(|l| format!(":{l}")).unwrap_or_default())]
    InFile {
        file: String,
        /// The line the problem is on, when it is one line (a header).
        line: Option<u64>,
        source: Box<DataError>,
    },

    // Places in a file.
    /// JSON nested deeper than any job log.
    #[error(
        "line {line}, column {column}: JSON nested deeper than {max_depth} levels; a job log's rows are flat objects"
    )]
    TooDeep { line: u64, column: u64, max_depth: usize },
    /// A JSON-lines row that is not one object: the file's line, and the column (in characters)
    /// where the parser stopped.
    #[error("line {line}, column {column}: expected one JSON object per line: {}", without_position(.source))]
    NotJsonObject {
        line: usize,
        column: usize,
        source: Arc<serde_json::Error>,
    },

    // Formats.
    /// A format name the user gave that names none.
    #[error(
        "unknown format '{name}'; expected one of: {}",
        crate::data::readers::formats::format_names()
    )]
    UnknownFormat { name: String },
    #[error("the file is empty")]
    Empty,
    #[error("UTF-16 text (it starts with a UTF-16 byte-order mark): save it as UTF-8")]
    Utf16,
    #[error("binary content (NUL bytes), not a text log; Parquet files start with PAR1")]
    Binary,
    /// Content that is not the format it was read as (`sacct -P export`).
    #[error("not a {format}: {why}")]
    NotFormat {
        format: &'static str,
        #[source]
        why: Box<DataError>,
    },
    /// A header without a column the format needs.
    #[error("no {column} column in the header \"{header}\"")]
    NoColumn { column: &'static str, header: String },
    /// A header without any of a role's names.
    #[error("no {role} column (one of {}) in \"{header}\"", .aliases.join(", "))]
    NoColumnOf {
        role: &'static str,
        aliases: &'static [&'static str],
        header: String,
    },
    /// A header line other than the format's.
    #[error("expected {expected}, found \"{found}\"")]
    UnexpectedHeader { expected: &'static str, found: String },
    /// A Philly file that starts with neither `[` nor `{`.
    #[error("expected a JSON array of jobs ('[') or one job object per line ('{{')")]
    NoJsonJobs,
    /// A DCGM wide export whose metric neither its name nor the user gives.
    #[error(
        "cannot tell which DCGM metric this wide export holds: name the file after it (DCGM_FI_DEV_GPU_UTIL.csv) or give the metric"
    )]
    UnknownDcgmMetric,
    /// An nvidia-smi recording whose host neither its lines, its file's name nor its folder's
    /// name gives.
    #[error(
        "cannot tell which host {file_name} was recorded on: name the file after the host (node17.csv, \
         node17.dmon.txt) or keep it in a folder named after it (node17/dmon.txt)"
    )]
    RecordingNamesNoHost { file_name: String },
    /// An nvidia-smi recording without a field the audit needs: what, the columns it has, and
    /// the command that records it.
    #[error("no {what} among its columns ({columns}): record with `{record}`")]
    RecordingWithout {
        what: &'static str,
        columns: String,
        record: &'static str,
    },
    /// `nvidia-smi --query-gpu ... --format=csv,noheader` with no field list beside it.
    #[error(
        "an nvidia-smi --query-gpu recording without its header (--format=csv,noheader): write the fields it was \
         recorded with, as given to --query-gpu, on one line of {} (e.g. timestamp,index,utilization.gpu), or \
         record without noheader",
        .header_file.display()
    )]
    HeaderlessQuery { header_file: PathBuf },
    /// `nvidia-smi dmon` recorded without dates (`-o T`) or times (no `-o`).
    #[error(
        "nvidia-smi dmon recorded {}: its samples cannot be placed in the audit's window; record with -o DT \
         (nvidia-smi dmon -o DT ...), which writes the date and time on every line",
        if *.time_of_day_only { "with -o T, the time of day without its date" } else { "without -o DT, with no time on its lines" }
    )]
    DmonWithoutTime { time_of_day_only: bool },
    /// A recording naming more GPUs than any fleet's one file of recordings would.
    #[error("more than {max} GPUs (host and GPU pairs) in one recording: not nvidia-smi's recording of nodes")]
    TooManyRecordedGpus { max: usize },
    /// A format read by its own reader reached the tabular one.
    #[error("the {format} reader is not tabular")]
    NotTabular { format: &'static str },
    /// A Parquet count no writer produces, which Polars would take for a size
    /// (`data::readers::parquet_pages`): `counted` is `values`, `nulls` or `rows`.
    #[error("row group {row_group}, column {column}: {} says it holds {count} {counted}", if *.in_page { "a data page" } else { "the column chunk" })]
    NegativeParquetCount {
        row_group: usize,
        column: String,
        in_page: bool,
        count: i64,
        counted: &'static str,
    },
    /// A folder given as a log with no `.parquet` file under it.
    #[error(
        "no .parquet file in this folder or its subfolders (a folder is read as Parquet partitions, e.g. cluster=NAME/part.parquet)"
    )]
    NoParquetInFolder,
    /// A Parquet file the decoder refused or panicked on.
    #[error("not a readable Parquet file (truncated or damaged?): {0}")]
    DamagedParquet(Box<DataError>),

    // The mapping.
    /// A column named `__row`, ours.
    #[error(
        "a column is named {:?}, a name gpuplan keeps for the row number: rename that column",
        ROW
    )]
    RowColumn,
    /// A mapped column the file does not have.
    #[error("{place} names \"{column}\", which is not a column of the file (it has: {})", .header.join(", "))]
    MappedColumnMissing {
        place: Box<MappingPlace>,
        column: String,
        header: Vec<String>,
    },
    #[error(
        "no start-time column found (columns: {}); write a mapping with [columns] start = \"...\" (gpuplan mapping init)",
        .header.join(", ")
    )]
    NoStartColumn { header: Vec<String> },
    #[error(
        "no GPU-count column found (columns: {}); map one, or set [constants] gpus = \"1\" if every job holds one GPU",
        .header.join(", ")
    )]
    NoGpuColumn { header: Vec<String> },
    #[error("this is table {table} of {trace}, which has no GPU counts: audit {audit_instead}")]
    PublicTableWithoutGpus {
        trace: &'static str,
        table: &'static str,
        audit_instead: &'static str,
    },
    #[error("units.time_origin = \"{value}\": {source} (expected RFC 3339, e.g. 2020-01-01T00:00:00Z)")]
    TimeOrigin { value: String, source: chrono::ParseError },
    #[error("units.time_zone = \"{zone}\": {source}")]
    TimeZone { zone: String, source: PolarsError },
    #[error("constants.{field} = \"{value}\": a time cannot be a constant")]
    TimeConstant { field: String, value: String },
    #[error("constants.{field} = \"{value}\" is not a number")]
    ConstantNotNumber { field: String, value: String },
    /// A log's column whose type cannot carry its field (a BOOLEAN GPU count, a list, a struct).
    #[error("column {column} ({field}) is of type {dtype}, which cannot carry {expected}: give the column as numbers")]
    LogColumnType {
        field: String,
        column: String,
        dtype: String,
        expected: &'static str,
    },
    /// A time column whose values no known layout reads; the first one.
    #[error(
        "column {column}: no known time layout reads values like \"{sample}\"; set [units] time to a strftime pattern"
    )]
    NoTimeLayout { column: String, sample: String },
    /// Every row's times fall before 2000: a trace's relative seconds read as dates.
    #[error(
        "column {column}: every dated row is before 2000 (the first, {first}, reads as {}): these look like seconds \
         from a trace's start, not dates; give the trace's start with --time-origin DATE (or as [units] \
         time_origin with time = \"offset-s\" in a mapping)",
        iso(.first_ms)
    )]
    TimesBefore2000 {
        column: String,
        first: String,
        first_ms: i64,
    },
    /// A strftime pattern that does not parse.
    #[error("time pattern \"{pattern}\": {source}")]
    TimePattern {
        pattern: String,
        source: chrono::ParseError,
    },

    // The audit.
    #[error("no usable rows: nothing to audit")]
    NoUsableRows,
    /// A gpuplan plan given where a job log goes.
    #[error("a gpuplan plan (TOML), not a job log: give it with --plan FILE, and the job logs as LOGS")]
    PlanGivenAsLog,
    /// No job log among the inputs: only node lists (or nothing) were given.
    #[error(
        "no job log among the inputs: a node list sizes and prices the clusters of the job logs read beside it and holds no jobs; give the job log with it"
    )]
    NoJobLog,
    /// Every row was set aside, by these reasons (with a hint where the reasons suggest one).
    #[error("no usable rows: every row was set aside ({reasons}){hint}")]
    EveryRowSetAside { reasons: String, hint: String },
    /// A node list that cannot be read, or one given where job runs were expected.
    #[error("node list: {detail}")]
    NodeList { detail: String },
    /// Every row read holds no GPU: a CPU cluster's log, not a fleet of nothing.
    #[error("no GPUs allocated in this log: all {rows} of its runs are CPU-only ({why}); nothing GPU-shaped to audit")]
    NoGpus { rows: u64, why: String },
    #[error("the observation window is empty: {} to {}", iso(.start_ms), iso(.end_ms))]
    EmptyWindow { start_ms: i64, end_ms: i64 },
    #[error("no partitions")]
    NoPartitions,
    #[error(
        "these are GPU utilization samples (DCGM exporter, nvidia-smi), not jobs: the audit needs a job log \
         (scheduler export, sacct -P, Philly JSON...); give the samples beside it and the audit reports the \
         utilization they measured"
    )]
    UtilizationOnly,
    #[error(
        "a replay holds every job in memory: give the partitions' files, or a cluster's folder, rather than a folder \
         partitioned by cluster"
    )]
    ReplayNeedsFiles,
    /// A warehouse audit's failure (`data::warehouse`).
    #[error(transparent)]
    Warehouse(Box<crate::data::warehouse::error::WarehouseError>),
    #[error("{rules} classification rules: at most {max} are supported")]
    TooManyRules { rules: usize, max: usize },
    #[error("classification patterns: {0}")]
    Patterns(aho_corasick::BuildError),
    #[error("internal: a classification column is not one chunk")]
    NotOneChunk,
    /// A `[hosts]` pattern that does not parse.
    #[error("{0}")]
    Hosts(#[from] HostlistError),

    // FOCUS values and columns.
    #[error(
        "'{}' is not a date-time: expected RFC 3339 (2024-03-01T00:00:00Z or +02:00) or YYYY-MM-DD HH:MM:SS (UTC)",
        shown(.text)
    )]
    NotDateTime { text: String },
    #[error(
        "'{}' is not a decimal number (write 1234.5: no currency sign, thousands separator or unit)",
        shown(.text)
    )]
    NotDecimal { text: String },
    #[error("'{}' is not one of the allowed values: {allowed}", shown(.text))]
    NotAllowed { text: String, allowed: String },
    #[error("'{}' is not a JSON object of tags: {source}", shown(.text))]
    NotTags {
        text: String,
        source: Arc<serde_json::Error>,
    },
    /// A header without the columns every FOCUS export has; what it has instead.
    #[error("{}", not_focus(.missing, .has))]
    NotFocus {
        missing: Vec<&'static str>,
        has: Vec<String>,
    },
    /// A column whose type does not fit its role.
    #[error("a column of {dtype}: expected {expected}")]
    ColumnType { dtype: DataType, expected: &'static str },
}

impl DataError {
    pub fn cannot_open(path: impl Into<PathBuf>, source: io::Error) -> DataError {
        DataError::CannotOpen {
            path: path.into(),
            source: Arc::new(source),
        }
    }

    pub fn cannot_read(path: impl Into<PathBuf>, source: io::Error) -> DataError {
        DataError::CannotRead {
            path: path.into(),
            source: Arc::new(source),
        }
    }

    /// This problem, of `file` (shown before it).
    pub fn in_file(self, file: impl Into<String>) -> DataError {
        DataError::InFile {
            file: file.into(),
            line: None,
            source: Box::new(self),
        }
    }

    /// This problem, of `line` (1-based) of `file`.
    pub fn in_file_at(self, file: impl Into<String>, line: u64) -> DataError {
        DataError::InFile {
            file: file.into(),
            line: Some(line),
            source: Box::new(self),
        }
    }

    /// This problem makes the content not a `format`.
    pub fn not_format(self, format: &'static str) -> DataError {
        DataError::NotFormat {
            format,
            why: Box::new(self),
        }
    }
}

/// A problem of DCGM samples in the frame engine.
pub fn dcgm_samples(source: PolarsError) -> DataError {
    DataError::FrameOf {
        what: "DCGM samples",
        source,
    }
}

/// A JSON parser's message without its ` at line L column C` (the line is the row's own, 1).
fn without_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    text.strip_suffix(&position).map_or(text.clone(), str::to_string)
}

/// A value shown in a message: at most 40 characters, control characters escaped.
pub fn shown(text: &str) -> String {
    let mut out: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    if text.chars().nth(40).is_some() {
        out.push('…');
    }
    out
}

fn iso(ms: &i64) -> String {
    crate::model::fleet::iso_utc(*ms)
}

fn not_focus(missing: &[&str], has: &[String]) -> String {
    format!(
        "not a FOCUS cost export: no {} column{}; the file has: {}",
        missing.join(", "),
        if missing.len() == 1 { "" } else { "s" },
        if has.is_empty() {
            "no columns".to_string()
        } else {
            has.join(", ")
        }
    )
}
