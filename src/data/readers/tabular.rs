//! Delimited text, Parquet (a file, a folder or a glob, hive-partitioned) and JSON logs into
//! the canonical job frame, through a column mapping. Parsing is vectorized in Polars; rows
//! that do not parse are counted by reason and a few kept with their line for the user.

use std::io::{BufRead, BufReader};
use std::path::Path;

use polars::prelude::*;

use super::detect::{LogFormat, split_header};
use super::mapping::{EmptyEnd, Mapping, TimeFormat, UtilUnit};
use super::progress::READ_PROGRESS;
use super::reject::{Quarantine, RejectReason, RejectedRow, SAMPLES_PER_REASON};
use super::time::layout::{DetectedTime, TimePattern, ZONE_ABBREVIATIONS, detect_time, sample_has_zone_abbreviations};
use super::time::parse::read_times;
use crate::data::audit::classify::features::{FEATURE_COLUMNS, run_feature_exprs};
use crate::data::canonical::{self as c};
use crate::model::workload::ClassificationRules;

/// The row index column of a scan.
pub(crate) const ROW: &str = "__row";
const REASON: &str = "__reject";
const END_PRESENT: &str = "__end_present";
const START_PRESENT: &str = "__start_present";
/// The `REASON` of a row that is no reject but a job that never started (no start, a submit
/// time): it goes to the pending frame.
const PENDING_CODE: u32 = 99;
const UTIL_PRESENT: &str = "__util_present";
/// Values read to recognise a time column's layout.
const TIME_SAMPLE_ROWS: u32 = 500;

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
const DETAIL_ONLY_FIELDS: [&str; 3] = ["user", "state", "gpu_type"];

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub byte_offset: u64,
    pub first_row: u64,
}

fn err(e: PolarsError) -> String {
    e.to_string()
}

fn path_string(path: &Path) -> Result<String, String> {
    path.to_str()
        .map(str::to_string)
        .ok_or_else(|| "the path is not valid UTF-8".to_string())
}

/// Column names of a headerless file: the mapping's list, or its `.header` file.
pub fn headerless_names(path: &Path, mapping: &Mapping) -> Result<Vec<String>, String> {
    if !mapping.column_names.is_empty() {
        return Ok(mapping.column_names.clone());
    }
    let header_path = match &mapping.header_file {
        Some(file) => path.parent().unwrap_or(Path::new(".")).join(file),
        None => path.with_extension("header"),
    };
    let text = std::fs::read_to_string(&header_path).map_err(|e| {
        format!(
            "headerless file: cannot read its header file {}: {e}",
            header_path.display()
        )
    })?;
    let line = text.lines().next().unwrap_or("");
    Ok(split_header(line, super::detect::sniff_delimiter(line)))
}

/// A lazy scan of the file, every CSV column read as text (types come from the mapping, so
/// columns empty for the first thousand rows cannot be mistyped), with a row index.
pub(crate) fn scan(path: &Path, format: LogFormat, mapping: &Mapping) -> Result<LazyFrame, String> {
    let row_index = Some(RowIndex {
        name: ROW.into(),
        offset: 0,
    });
    let location = path_string(path)?;
    match format {
        LogFormat::Csv { delimiter } => {
            let nulls: Vec<PlSmallStr> = mapping.null_values.iter().map(|s| s.as_str().into()).collect();
            let mut reader = LazyCsvReader::new(PlRefPath::from(location.as_str()))
                .with_separator(delimiter)
                .with_has_header(mapping.has_header)
                .with_infer_schema_length(Some(0))
                .with_null_values(Some(NullValues::AllColumns(nulls)))
                .with_missing_is_null(true)
                .with_truncate_ragged_lines(true)
                .with_encoding(CsvEncoding::LossyUtf8)
                .with_row_index(row_index);
            if !mapping.has_header {
                let names = headerless_names(path, mapping)?;
                let schema = Schema::from_iter(names.iter().map(|n| Field::new(n.as_str().into(), DataType::String)));
                reader = reader.with_schema(Some(Arc::new(schema)));
            }
            reader.finish().map_err(err)
        }
        LogFormat::Parquet => {
            let args = ScanArgsParquet {
                row_index,
                hive_options: HiveOptions {
                    enabled: Some(true),
                    ..Default::default()
                },
                glob: true,
                ..Default::default()
            };
            let target = if path.is_dir() {
                format!("{}/**/*.parquet", location.trim_end_matches('/'))
            } else {
                location
            };
            LazyFrame::scan_parquet(PlRefPath::from(target.as_str()), args).map_err(err)
        }
        LogFormat::Ndjson => LazyJsonLineReader::new(PlRefPath::from(location.as_str()))
            .with_row_index(row_index)
            .with_infer_schema_length(None)
            .finish()
            .map_err(err),
        LogFormat::JsonArray => {
            let file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
            let frame = JsonReader::new(file).infer_schema_len(None).finish().map_err(err)?;
            frame.lazy().with_row_index(ROW, None).pipe(Ok)
        }
        other => Err(format!("the {} reader is not tabular", other.name())),
    }
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl<T> Pipe for T {}

/// 1-based line (or record) number of row index 0.
pub(crate) fn first_line_number(format: LogFormat, mapping: &Mapping) -> u64 {
    match format {
        LogFormat::Csv { .. } if mapping.has_header => 2,
        _ => 1,
    }
}

fn null_text() -> Expr {
    lit(NULL).cast(DataType::String)
}

fn text_field(field: &str, mapping: &Mapping) -> Expr {
    if let Some(value) = mapping.constants.get(field) {
        return lit(value.clone());
    }
    match mapping.columns.get(field) {
        Some(source) => col(source.as_str()).cast(DataType::String),
        None => null_text(),
    }
}

fn is_numeric(dtype: &DataType) -> bool {
    dtype.is_primitive_numeric() || matches!(dtype, DataType::Boolean)
}

/// A numeric field as f64: numbers cast, text parsed (non-strict: bad text becomes null and
/// is then quarantined because the raw value was present).
fn number_field(field: &str, mapping: &Mapping, schema: &Schema) -> Result<Expr, String> {
    if let Some(value) = mapping.constants.get(field) {
        let number: f64 = value
            .trim()
            .parse()
            .map_err(|_| format!("constants.{field} = \"{value}\" is not a number"))?;
        return Ok(lit(number));
    }
    Ok(match mapping.columns.get(field) {
        Some(source) => match schema.get(source.as_str()) {
            Some(dtype) if is_numeric(dtype) => col(source.as_str()).cast(DataType::Float64),
            _ => col(source.as_str()).cast(DataType::String).cast(DataType::Float64),
        },
        None => lit(NULL).cast(DataType::Float64),
    })
}

/// GPUs per unit of the `gpus` column when the log splits them (Kubernetes: num_gpu × gpu_milli).
fn gpu_multiplier(mapping: &Mapping, schema: &Schema) -> Expr {
    match &mapping.gpu_multiplier {
        Some(source) => match schema.get(source.as_str()) {
            Some(dtype) if is_numeric(dtype) => col(source.as_str()).cast(DataType::Float64),
            _ => col(source.as_str()).cast(DataType::String).cast(DataType::Float64),
        },
        None => lit(1.0),
    }
}

fn raw_present(field: &str, mapping: &Mapping) -> Expr {
    if mapping.constants.contains_key(field) {
        return lit(true);
    }
    match mapping.columns.get(field) {
        Some(source) => col(source.as_str()).is_not_null(),
        None => lit(false),
    }
}

const MS: DataType = DataType::Datetime(TimeUnit::Milliseconds, None);

fn epoch_expr(numbers: Expr, millis_per_unit: f64, origin_ms: i64) -> Expr {
    (numbers * lit(millis_per_unit) + lit(origin_ms as f64))
        .cast(DataType::Int64)
        .cast(MS)
}

fn parse_origin(origin: &str) -> Result<i64, String> {
    chrono::DateTime::parse_from_rfc3339(origin)
        .map(|t| t.timestamp_millis())
        .map_err(|e| format!("units.time_origin = \"{origin}\": {e} (expected RFC 3339, e.g. 2020-01-01T00:00:00Z)"))
}

/// The first non-empty values of a column, to recognise its layout. Reads a bounded head of
/// the file (so the scan stops early), growing it when the head holds no values: logs whose
/// first thousands of rows leave a column empty still get it recognised.
fn sample_values(lf: &LazyFrame, source: &str) -> Result<Vec<String>, String> {
    for head_rows in [2_000u32, 200_000, u32::MAX] {
        let head = if head_rows == u32::MAX {
            lf.clone()
        } else {
            lf.clone().limit(head_rows)
        };
        let sample = head
            .select([col(source).cast(DataType::String)])
            .drop_nulls(None)
            .limit(TIME_SAMPLE_ROWS)
            .collect()
            .map_err(err)?;
        let column = sample.column(source).map_err(err)?.str().map_err(err)?.clone();
        let values: Vec<String> = column.iter().flatten().map(str::to_string).collect();
        if !values.is_empty() {
            return Ok(values);
        }
    }
    Ok(Vec::new())
}

/// The expression turning `source` into UTC milliseconds, per the mapping's time unit.
fn time_field(field: &str, lf: &LazyFrame, mapping: &Mapping, schema: &Schema) -> Result<Expr, String> {
    let Some(source) = mapping.columns.get(field) else {
        if let Some(value) = mapping.constants.get(field) {
            return Err(format!("constants.{field} = \"{value}\": a time cannot be a constant"));
        }
        return Ok(lit(NULL).cast(MS));
    };
    let dtype = schema.get(source.as_str()).cloned().unwrap_or(DataType::String);
    let column = col(source.as_str());
    let origin_ms = match &mapping.units.time_origin {
        Some(origin) => parse_origin(origin)?,
        None => 0,
    };
    if let DataType::Datetime(_, tz) = &dtype {
        let utc = if tz.is_some() {
            column.dt().replace_time_zone(None, lit("raise"), NonExistent::Raise)
        } else {
            column
        };
        return Ok(utc.cast(MS));
    }
    if matches!(dtype, DataType::Date) {
        return Ok(column.cast(MS));
    }
    let numbers = || {
        if is_numeric(&dtype) {
            column.clone().cast(DataType::Float64)
        } else {
            column.clone().cast(DataType::String).cast(DataType::Float64)
        }
    };
    // The column's first values, read once: they name the layout and show zone abbreviations.
    let needs_sample = match &mapping.units.time {
        TimeFormat::Auto => true,
        TimeFormat::Pattern(pattern) => pattern.contains('z'),
        _ => false,
    };
    let sample = if needs_sample {
        sample_values(lf, source)?
    } else {
        Vec::new()
    };
    let refs: Vec<&str> = sample.iter().map(String::as_str).collect();
    let detected = match &mapping.units.time {
        TimeFormat::EpochS => DetectedTime::EpochSeconds,
        TimeFormat::EpochMs => DetectedTime::EpochMillis,
        TimeFormat::OffsetS => return Ok(epoch_expr(numbers(), 1e3, origin_ms)),
        TimeFormat::Pattern(pattern) => DetectedTime::Patterns(vec![TimePattern {
            pattern: pattern.clone(),
            aware: pattern.contains("%z") || pattern.contains("%:z"),
        }]),
        TimeFormat::Auto if is_numeric(&dtype) => detect_time(&refs).unwrap_or(DetectedTime::EpochSeconds),
        TimeFormat::Auto => match detect_time(&refs) {
            Some(found) => found,
            None if sample.is_empty() => return Ok(lit(NULL).cast(MS)),
            None => {
                return Err(format!(
                    "column {source}: no known time layout reads values like \"{}\"; set [units] time to a strftime pattern",
                    sample.first().map(String::as_str).unwrap_or("")
                ));
            }
        },
    };
    Ok(match detected {
        DetectedTime::EpochSeconds => epoch_expr(numbers(), 1e3, origin_ms),
        DetectedTime::EpochMillis => epoch_expr(numbers(), 1.0, origin_ms),
        DetectedTime::Patterns(patterns) => {
            let mut text = column.cast(DataType::String).str().strip_chars(lit(NULL));
            if patterns.iter().any(|p| p.aware) {
                // Zone abbreviations ("PST") become offsets the parser reads.
                if sample_has_zone_abbreviations(&refs) {
                    for (abbreviation, offset) in ZONE_ABBREVIATIONS {
                        text = text
                            .str()
                            .replace(lit(format!(" {abbreviation}$")), lit(format!(" {offset}")), false);
                    }
                }
            }
            let parsed: Vec<Expr> = patterns
                .iter()
                .map(|p| parse_with_pattern(text.clone(), p, mapping.units.time_zone.as_deref()))
                .collect::<Result<_, _>>()?;
            if parsed.len() == 1 {
                parsed.into_iter().next().unwrap_or_else(|| lit(NULL).cast(MS))
            } else {
                coalesce(&parsed)
            }
        }
    })
}

/// One strftime pattern applied to a text column, giving naive UTC milliseconds.
fn parse_with_pattern(text: Expr, pattern: &TimePattern, time_zone: Option<&str>) -> Result<Expr, String> {
    let read = read_times(text, pattern)?;
    if pattern.aware {
        return Ok(read);
    }
    Ok(match time_zone {
        None | Some("UTC") | Some("utc") => read,
        Some(zone) => {
            let zone = TimeZone::opt_try_new(Some(zone))
                .map_err(|e| format!("units.time_zone = \"{zone}\": {e}"))?
                .unwrap_or(TimeZone::UTC);
            read.dt()
                .replace_time_zone(Some(zone), lit("earliest"), NonExistent::Null)
                .dt()
                .convert_time_zone(TimeZone::UTC)
                .dt()
                .replace_time_zone(None, lit("raise"), NonExistent::Raise)
        }
    })
}

fn reason_code(reason: RejectReason) -> Expr {
    lit(reason as u32)
}

fn reason_from_code(code: u32) -> Option<RejectReason> {
    [
        RejectReason::MissingJobId,
        RejectReason::UnparseableTime,
        RejectReason::UnparseableNumber,
        RejectReason::NegativeGpus,
        RejectReason::EndBeforeStart,
        RejectReason::MalformedRow,
    ]
    .into_iter()
    .find(|r| *r as u32 == code)
}

/// The first matching reason a row cannot be used, `PENDING_CODE` for a job that never
/// started, or null. With `has_submit`, a row whose start is empty (not unreadable) and whose
/// submit time reads is a job that never started; its empty end is no problem.
fn reject_reason(empty_end: EmptyEnd, has_submit: bool) -> Expr {
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
                .or(col(UTIL_PRESENT).and(util.clone().is_null().or(util.is_finite().not()))),
        )
        .then(reason_code(RejectReason::UnparseableNumber))
        .when(gpus.lt(lit(0.0)))
        .then(reason_code(RejectReason::NegativeGpus))
        .when(
            col(c::START)
                .is_not_null()
                .and(col(c::END).is_not_null())
                .and(col(c::END).lt(col(c::START))),
        )
        .then(reason_code(RejectReason::EndBeforeStart))
        .when(never_started)
        .then(lit(PENDING_CODE))
        .otherwise(lit(NULL).cast(DataType::UInt32))
}

/// A time limit column as hours: bare numbers in the mapping's unit, Slurm's `[D-]HH:MM:SS`
/// as a duration; anything else (`UNLIMITED`, garbage) null: a time limit only sizes the
/// demand of jobs that never started, so a bad one costs no row.
fn time_limit_field(mapping: &Mapping, schema: &Schema) -> Expr {
    let Some(source) = mapping.columns.get("time_limit") else {
        return lit(NULL).cast(DataType::Float64);
    };
    let hours_per_unit = mapping.units.time_limit.hours_per_unit();
    if schema.get(source.as_str()).is_some_and(is_numeric) {
        return col(source.as_str()).cast(DataType::Float64) * lit(hours_per_unit);
    }
    col(source.as_str()).map(
        move |column| {
            let values = column.cast(&DataType::String)?;
            let hours: Float64Chunked = values
                .str()?
                .iter()
                .map(|v| {
                    let v = v?.trim();
                    match v.parse::<f64>() {
                        Ok(n) if n.is_finite() && n >= 0.0 => Some(n * hours_per_unit),
                        Ok(_) => None,
                        Err(_) => super::slurm::parse_elapsed_ms(v)
                            .ok()
                            .flatten()
                            .map(|ms| ms as f64 / c::MS_PER_HOUR),
                    }
                })
                .collect();
            Ok(hours.into_column())
        },
        |_, field| Ok(Field::new(field.name().clone(), DataType::Float64)),
    )
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

/// The job id (the mapped column, else `row-LINE`) and the source line of each row of a scan.
fn id_and_line(mapping: &Mapping, format: LogFormat) -> (Expr, Expr) {
    let line = (col(ROW).cast(DataType::UInt64) + lit(first_line_number(format, mapping))).alias(c::SOURCE_LINE);
    let job_id = if mapping.columns.contains_key("job_id") {
        text_field("job_id", mapping)
    } else {
        concat_str([lit("row-"), line.clone().cast(DataType::String)], "", false)
    };
    (job_id, line)
}

/// The text columns a reader in full detail gives (job id, cluster, name, user, queue, state)
/// and the source line, from a scan through an applied mapping: to read chosen rows back.
pub(crate) fn text_exprs(mapping: &Mapping, format: LogFormat) -> Vec<Expr> {
    let (job_id, line) = id_and_line(mapping, format);
    vec![
        job_id.alias(c::JOB_ID),
        text_field("cluster", mapping).alias(c::CLUSTER),
        text_field("name", mapping).alias(c::NAME),
        text_field("user", mapping).alias(c::USER),
        text_field("queue", mapping).alias(c::QUEUE),
        text_field("state", mapping).alias(c::STATE),
        line,
    ]
}

/// The column names of a delimited file as its reader named them.
pub(crate) fn column_names(path: &Path, delimiter: u8, mapping: &Mapping) -> Result<Vec<String>, String> {
    let names = if mapping.has_header {
        let file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
        let mut header = Vec::new();
        BufReader::new(file)
            .read_until(b'\n', &mut header)
            .map_err(|e| format!("cannot read: {e}"))?;
        let header = String::from_utf8_lossy(&header)
            .trim_start_matches('\u{feff}')
            .trim_end()
            .to_string();
        split_header(&header, delimiter)
    } else {
        headerless_names(path, mapping)?
    };
    Ok(unique_names(names))
}

/// Whole records of a delimited file (no header) as text columns.
pub(crate) fn parse_records(
    bytes: Vec<u8>,
    names: &[String],
    delimiter: u8,
    mapping: &Mapping,
) -> Result<DataFrame, String> {
    parse_chunk(bytes, names, None, delimiter, mapping, 0)
}

/// Reads one tabular log into the canonical frame.
/// Bytes of delimited text parsed at a time: large enough for Polars' parser to use both
/// cores, small enough that the file is never held whole.
const CHUNK_BYTES: usize = 32 << 20;

/// The end of the last complete record in `buf`: its last newline outside quotes.
fn last_record_end(buf: &[u8]) -> Option<usize> {
    if memchr::memchr(b'"', buf).is_none() {
        return memchr::memrchr(b'\n', buf);
    }
    let mut in_quotes = false;
    let mut last = None;
    for (i, &byte) in buf.iter().enumerate() {
        match byte {
            b'"' => in_quotes = !in_quotes,
            b'\n' if !in_quotes => last = Some(i),
            _ => {}
        }
    }
    last
}

/// A delimited text file as pieces of whole records, read in order.
struct RecordChunks {
    file: std::fs::File,
    carry: Vec<u8>,
    eof: bool,
    chunk_bytes: usize,
}

impl RecordChunks {
    fn open(path: &Path, chunk_bytes: usize) -> Result<RecordChunks, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
        Ok(RecordChunks {
            file,
            carry: Vec::new(),
            eof: false,
            chunk_bytes,
        })
    }

    fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, String> {
        use std::io::Read;
        loop {
            if self.eof {
                return Ok((!self.carry.is_empty()).then(|| std::mem::take(&mut self.carry)));
            }
            let mut buf = std::mem::take(&mut self.carry);
            let start = buf.len();
            buf.resize(start + self.chunk_bytes, 0);
            let mut filled = start;
            while filled < buf.len() {
                match self.file.read(&mut buf[filled..]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(format!("cannot read: {e}")),
                }
            }
            buf.truncate(filled);
            if filled < start + self.chunk_bytes {
                self.eof = true;
                self.carry = buf;
                continue;
            }
            match last_record_end(&buf) {
                Some(end) => {
                    self.carry = buf.split_off(end + 1);
                    return Ok(Some(buf));
                }
                // A record longer than a chunk: read on.
                None => self.carry = buf,
            }
        }
    }
}

/// Column names as Polars would give them: empty ones numbered, repeats marked.
fn unique_names(names: Vec<String>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for (i, name) in names.into_iter().enumerate() {
        let mut name = if name.is_empty() {
            format!("column_{}", i + 1)
        } else {
            name
        };
        let mut k = 0;
        while seen.contains(&name) {
            name = format!("{name}_duplicated_{k}");
            k += 1;
        }
        seen.push(name);
    }
    seen
}

/// One piece of a delimited text file as text columns, rows numbered from `first_row`; only
/// the `wanted` columns when given.
fn parse_chunk(
    bytes: Vec<u8>,
    names: &[String],
    wanted: Option<&Arc<[PlSmallStr]>>,
    delimiter: u8,
    mapping: &Mapping,
    first_row: IdxSize,
) -> Result<DataFrame, String> {
    let schema = Schema::from_iter(names.iter().map(|n| Field::new(n.as_str().into(), DataType::String)));
    let nulls: Vec<PlSmallStr> = mapping.null_values.iter().map(|s| s.as_str().into()).collect();
    CsvReadOptions::default()
        .with_has_header(false)
        // A header with no rows is an empty log, not an unreadable one.
        .with_raise_if_empty(false)
        .with_schema(Some(Arc::new(schema)))
        .with_columns(wanted.cloned())
        .with_row_index(Some(RowIndex {
            name: ROW.into(),
            offset: first_row,
        }))
        .map_parse_options(|options| {
            options
                .with_separator(delimiter)
                .with_null_values(Some(NullValues::AllColumns(nulls.clone())))
                .with_missing_is_null(true)
                .with_truncate_ragged_lines(true)
                .with_encoding(CsvEncoding::LossyUtf8)
        })
        .into_reader_with_file_handle(std::io::Cursor::new(bytes))
        .finish()
        .map_err(err)
}

/// A delimited text file opened for reading in pieces: its column names and first piece.
struct DelimitedFile {
    chunks: RecordChunks,
    names: Vec<String>,
    first: DataFrame,
    first_bytes: u64,
    /// Bytes before the first record (the header line).
    first_offset: u64,
}

fn open_delimited(path: &Path, delimiter: u8, mapping: &Mapping, chunk_bytes: usize) -> Result<DelimitedFile, String> {
    let mut chunks = RecordChunks::open(path, chunk_bytes)?;
    let mut first = chunks.next_chunk()?.unwrap_or_default();
    let mut first_offset = 0;
    let names = if mapping.has_header {
        let end = memchr::memchr(b'\n', &first).map_or(first.len(), |i| i + 1);
        first_offset = end as u64;
        let header = String::from_utf8_lossy(&first[..end])
            .trim_start_matches('\u{feff}')
            .trim_end()
            .to_string();
        first.drain(..end);
        split_header(&header, delimiter)
    } else {
        headerless_names(path, mapping)?
    };
    let names = unique_names(names);
    let first_bytes = first.len() as u64;
    let first = parse_chunk(first, &names, None, delimiter, mapping, 0)?;
    Ok(DelimitedFile {
        chunks,
        names,
        first,
        first_bytes,
        first_offset,
    })
}

pub fn read_tabular(
    path: &Path,
    format: LogFormat,
    mapping: &Mapping,
    detail: Detail<'_>,
) -> Result<TabularRead, String> {
    read_tabular_in_pieces(path, format, mapping, detail, CHUNK_BYTES)
}

/// `read_tabular`, reading delimited text `chunk_bytes` at a time.
fn read_tabular_in_pieces(
    path: &Path,
    format: LogFormat,
    mapping: &Mapping,
    detail: Detail<'_>,
    chunk_bytes: usize,
) -> Result<TabularRead, String> {
    let mut mapping = mapping.clone();
    let mut warnings = Vec::new();
    // Headerless exports ship their column names beside them (`table.csv` + `table.header`).
    let header_file = path.with_extension("header");
    if matches!(format, LogFormat::Csv { .. })
        && mapping.has_header
        && mapping.column_names.is_empty()
        && header_file.is_file()
    {
        mapping.has_header = false;
        mapping.header_file = header_file.file_name().map(|n| n.to_string_lossy().into_owned());
        warnings.push(format!("no header row: column names from {}", header_file.display()));
    }
    if matches!(format, LogFormat::Csv { .. })
        && let Ok(head) = super::detect::sniff(path)
    {
        let valid_up_to = match std::str::from_utf8(&head) {
            Ok(_) => None,
            // A multi-byte character cut by the sniff window is not an encoding problem.
            Err(e) if e.error_len().is_none() => None,
            Err(e) => Some(e.valid_up_to()),
        };
        if let Some(offset) = valid_up_to {
            warnings.push(format!(
                "not UTF-8 (first bad byte at offset {offset}): read with replacement characters; convert with iconv -f LATIN1 -t UTF-8"
            ));
        }
    }
    // Delimited text is read in pieces (the file is never held or mapped whole); the first
    // piece stands for the file when the mapping and time layouts are worked out.
    let mut delimited = match format {
        LogFormat::Csv { delimiter } => Some((open_delimited(path, delimiter, &mapping, chunk_bytes)?, delimiter)),
        _ => None,
    };
    // The row number is a column of ours: a file's own column of that name would make two.
    if let Some((file, _)) = &delimited
        && file
            .first
            .get_column_names()
            .iter()
            .filter(|n| n.as_str() == ROW)
            .count()
            > 1
    {
        return Err(format!(
            "a column is named {ROW:?}, a name gpuplan keeps for the row number: rename that column"
        ));
    }
    let mut lf = match &delimited {
        Some((file, _)) => file.first.clone().lazy(),
        None => scan(path, format, &mapping)?,
    };
    let schema = lf.collect_schema().map_err(err)?;
    let header: Vec<String> = schema
        .iter_names()
        .filter(|n| n.as_str() != ROW)
        .map(|n| n.to_string())
        .collect();
    mapping.complete_from_header(&header);
    let multiplier = mapping
        .gpu_multiplier
        .iter()
        .map(|m| ("gpu_multiplier".to_string(), m.clone()));
    for (field, source) in mapping.columns.clone().into_iter().chain(multiplier) {
        if schema.get(source.as_str()).is_none() {
            let key = if field == "gpu_multiplier" {
                field.clone()
            } else {
                format!("columns.{field}")
            };
            return Err(format!(
                "{} names \"{source}\", which is not a column of the file (it has: {})",
                mapping.place(&key),
                header.join(", ")
            ));
        }
    }
    if !mapping.columns.contains_key("start") {
        return Err(format!(
            "no start-time column found (columns: {}); write a mapping with [columns] start = \"...\" (gpuplan mapping init)",
            header.join(", ")
        ));
    }
    if !mapping.columns.contains_key("gpus") && !mapping.constants.contains_key("gpus") {
        return Err(format!(
            "no GPU-count column found (columns: {}); map one, or set [constants] gpus = \"1\" if every job holds one GPU",
            header.join(", ")
        ));
    }
    if !mapping.columns.contains_key("job_id") {
        warnings.push("no job-id column: every row is counted as its own job".to_string());
    }
    let default_cluster = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("cluster")
        .to_string();
    if !mapping.columns.contains_key("cluster") && !mapping.constants.contains_key("cluster") {
        mapping.constants.insert("cluster".into(), default_cluster);
    }
    let (job_id, line) = id_and_line(&mapping, format);
    let gpus_factor = mapping.units.gpus.to_gpus_factor();
    let util_divisor = if mapping.units.gpu_util == UtilUnit::Percent {
        100.0
    } else {
        1.0
    };
    let detail_field = |field: &str| {
        debug_assert!(DETAIL_ONLY_FIELDS.contains(&field));
        if matches!(detail, Detail::Full) {
            text_field(field, &mapping)
        } else {
            null_text()
        }
    };
    let has_submit = mapping.columns.contains_key("submit");
    let has_time_limit = mapping.columns.contains_key("time_limit");
    let mut columns = vec![
        job_id.alias(c::JOB_ID),
        text_field("cluster", &mapping).alias(c::CLUSTER),
        text_field("name", &mapping).alias(c::NAME),
        detail_field("user").alias(c::USER),
        text_field("queue", &mapping).alias(c::QUEUE),
        detail_field("state").alias(c::STATE),
        time_field("start", &lf, &mapping, &schema)?.alias(c::START),
        time_field("end", &lf, &mapping, &schema)?.alias(c::END),
        (number_field("gpus", &mapping, &schema)? * lit(gpus_factor) * gpu_multiplier(&mapping, &schema))
            .alias(c::GPUS),
        detail_field("gpu_type").alias(c::GPU_TYPE),
        (number_field("gpu_util", &mapping, &schema)? / lit(util_divisor)).alias(c::GPU_UTIL_FRAC),
        text_field("label", &mapping).alias(c::LABEL),
        line,
        raw_present("end", &mapping).alias(END_PRESENT),
        raw_present("gpu_util", &mapping).alias(UTIL_PRESENT),
        raw_present("start", &mapping).alias(START_PRESENT),
    ];
    // Submit and time-limit columns only for logs that have them: a null column in every
    // frame costs the 10M-row audit several percent.
    if has_submit {
        columns.push(time_field("submit", &lf, &mapping, &schema)?.alias(c::SUBMIT));
    }
    if has_time_limit {
        columns.push(time_limit_field(&mapping, &schema).alias(c::TIME_LIMIT_HOURS));
    }
    let features = match detail {
        Detail::Full => None,
        Detail::Audit(rules) => Some(run_feature_exprs(rules)?),
    };
    let finish = |lf: LazyFrame| -> LazyFrame {
        let mut query = lf.select(columns.clone());
        if has_submit {
            // A submit time after the start is not believed (as Slurm's reader does).
            let (submit, start) = (col(c::SUBMIT), col(c::START));
            query = query.with_column(
                when(start.clone().is_null().or(submit.clone().lt_eq(start)))
                    .then(submit)
                    .otherwise(lit(NULL).cast(MS))
                    .alias(c::SUBMIT),
            );
        }
        let query = query
            .with_column(reject_reason(mapping.units.empty_end, has_submit).alias(REASON))
            .drop(by_name([END_PRESENT, UTIL_PRESENT, START_PRESENT], true, false));
        match &features {
            None => query,
            Some(features) => {
                let mut compact = audit_columns();
                if has_submit {
                    compact.push(col(c::SUBMIT));
                }
                if has_time_limit {
                    compact.push(col(c::TIME_LIMIT_HOURS));
                }
                compact.push(col(REASON));
                query.with_columns(features.clone()).select(compact)
            }
        }
    };
    let mut pieces_read = Vec::new();
    let Split {
        mut jobs,
        rejected,
        pending,
    } = match delimited.take() {
        Some((file, delimiter)) => {
            let DelimitedFile {
                mut chunks,
                names,
                first,
                first_bytes,
                first_offset,
            } = file;
            READ_PROGRESS.add(first_bytes, first.height() as u64);
            let first_rows = first.height() as IdxSize;
            pieces_read.push(Piece {
                byte_offset: first_offset,
                first_row: 0,
            });
            let mut split = split_rows(finish(first.lazy()).collect().map_err(err)?)?;
            // Two stages at once: one thread reads and parses the next piece while this one
            // maps, validates and (for an audit) classifies the last, so both cores work.
            let (parsed, pieces) = crossbeam_channel::bounded::<Result<(DataFrame, u64, Piece), String>>(1);
            // Later pieces: only the columns the mapping reads for this detail (the first
            // piece chose them); an audit never reads users, states or GPU types.
            let read_by_detail = |field: &str| matches!(detail, Detail::Full) || !DETAIL_ONLY_FIELDS.contains(&field);
            let wanted: Arc<[PlSmallStr]> = names
                .iter()
                .filter(|name| {
                    let mapped = mapping
                        .columns
                        .iter()
                        .any(|(field, source)| source == *name && read_by_detail(field));
                    mapped || mapping.gpu_multiplier.as_ref() == Some(*name)
                })
                .map(|name| PlSmallStr::from(name.as_str()))
                .collect();
            let (names, wanted, mapping_ref) = (&names, &wanted, &mapping);
            let mut offset = first_offset + first_bytes;
            let pieces_read = &mut pieces_read;
            std::thread::scope(|scope| {
                scope.spawn(move || {
                    let mut rows = first_rows;
                    loop {
                        let piece = match chunks.next_chunk() {
                            Ok(None) => break,
                            Ok(Some(bytes)) => {
                                let piece_bytes = bytes.len() as u64;
                                parse_chunk(bytes, names, Some(wanted), delimiter, mapping_ref, rows).map(|piece| {
                                    let at = Piece {
                                        byte_offset: offset,
                                        first_row: u64::from(rows),
                                    };
                                    rows += piece.height() as IdxSize;
                                    offset += piece_bytes;
                                    (piece, piece_bytes, at)
                                })
                            }
                            Err(e) => Err(e),
                        };
                        let failed = piece.is_err();
                        // The receiver is gone when the other stage failed: stop reading.
                        if parsed.send(piece).is_err() || failed {
                            break;
                        }
                    }
                });
                for piece in pieces {
                    let (piece, piece_bytes, at) = piece?;
                    READ_PROGRESS.add(piece_bytes, piece.height() as u64);
                    pieces_read.push(at);
                    split.append(split_rows(finish(piece.lazy()).collect().map_err(err)?)?)?;
                }
                Ok::<_, String>(())
            })?;
            split
        }
        // The streaming engine reads in morsels; one query without sinks gives a single frame.
        None => split_rows(
            finish(lf)
                .collect_with_engine(Engine::Streaming)
                .map_err(err)?
                .unwrap_single(),
        )?,
    };
    if mapping.units.gpu_util == UtilUnit::Auto {
        let util = jobs
            .column(c::GPU_UTIL_FRAC)
            .map_err(err)?
            .as_materialized_series()
            .clone();
        let max = util.max::<f64>().map_err(err)?.unwrap_or(0.0);
        if max > 1.0 {
            jobs.with_column((util / 100.0).into_column()).map_err(err)?;
            mapping.units.gpu_util = UtilUnit::Percent;
        } else if util.null_count() < util.len() {
            mapping.units.gpu_util = UtilUnit::Ratio;
        }
    }
    let quarantine = quarantine_of(&rejected, path, format)?;
    Ok(TabularRead {
        jobs,
        pending,
        quarantine,
        mapping,
        warnings,
        pieces: pieces_read,
    })
}

/// A frame's rows sorted out: runs, rejected rows (with their `REASON`), jobs that never
/// started (without it).
struct Split {
    jobs: DataFrame,
    rejected: DataFrame,
    pending: DataFrame,
}

impl Split {
    /// Adds a later piece's rows.
    fn append(&mut self, piece: Split) -> Result<(), String> {
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
fn split_rows(frame: DataFrame) -> Result<Split, String> {
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

/// Counts rejected rows by reason and describes the first few of each with their line.
fn quarantine_of(rejected: &DataFrame, path: &Path, format: LogFormat) -> Result<Quarantine, String> {
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
        let Some(reason) = reason_from_code(code) else { continue };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by `cargo fuzz run logs`: a header naming `__row` made two columns of that name
    /// and Polars panicked building the schema.
    #[test]
    fn a_column_named_like_the_row_number_is_refused_not_a_panic() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.csv");
        std::fs::write(&path, "job_id,__row,gpus\n1,2,8\n").expect("write");
        let Err(refused) = crate::data::readers::load::load_logs(&[path], None, None, Detail::Full) else {
            panic!("a column named __row must be refused");
        };
        let why = refused.message;
        assert!(why.contains("\"__row\"") && why.contains("rename"), "{why}");
    }

    #[test]
    fn records_end_at_newlines_outside_quotes() {
        assert_eq!(last_record_end(b"a,b\nc,d\ne"), Some(7));
        assert_eq!(last_record_end(b"a,\"x\ny\"\nb,\"open\n"), Some(7));
        assert_eq!(last_record_end(b"no newline"), None);
    }

    fn pieces(text: &str, chunk_bytes: usize) -> Vec<String> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.csv");
        std::fs::write(&path, text).expect("write");
        let mut chunks = RecordChunks::open(&path, chunk_bytes).expect("open");
        let mut out = Vec::new();
        while let Some(piece) = chunks.next_chunk().expect("read") {
            out.push(String::from_utf8(piece).expect("utf-8"));
        }
        out
    }

    #[test]
    fn pieces_hold_whole_records_and_add_up_to_the_file() {
        let text = "id,name\n1,\"two\nlines\"\n2,plain\n3,\"a much longer name than one piece\"\n4,last";
        for chunk_bytes in [4, 7, 16, 1 << 20] {
            let got = pieces(text, chunk_bytes);
            assert_eq!(got.concat(), text, "piece size {chunk_bytes}");
            for piece in &got[..got.len() - 1] {
                assert!(piece.ends_with('\n'), "{piece:?} at piece size {chunk_bytes}");
                assert_eq!(piece.matches('"').count() % 2, 0, "{piece:?} cuts a quoted field");
            }
        }
    }

    #[test]
    fn a_file_read_in_small_pieces_parses_like_one_piece() {
        let mut text = String::from("job_id,name\n");
        for i in 0..50 {
            text.push_str(&format!("j{i},\"name, with comma\n and newline {i}\"\n"));
        }
        let names = vec!["job_id".to_string(), "name".to_string()];
        let mapping = Mapping::default();
        let parse = |chunk_bytes: usize| {
            let body = text
                .split_once('\n')
                .map(|(_, rest)| rest.to_string())
                .unwrap_or_default();
            let mut rows: IdxSize = 0;
            let mut frames = Vec::new();
            for piece in pieces(&body, chunk_bytes) {
                let frame = parse_chunk(piece.into_bytes(), &names, None, b',', &mapping, rows).expect("parse");
                rows += frame.height() as IdxSize;
                frames.push(frame);
            }
            let mut all = frames.remove(0);
            for frame in frames {
                all.vstack_mut_owned(frame).expect("stack");
            }
            all
        };
        let whole = parse(1 << 20);
        let small = parse(40);
        assert_eq!(whole.height(), 50);
        assert!(whole.equals_missing(&small));
    }

    #[test]
    fn an_audit_read_in_many_pieces_reads_like_one_piece() {
        // Bad rows spread over the pieces, a column the audit never reads, a quoted newline.
        let mut text = String::from("job_id,cluster,name,user,queue,start,end,gpus,gpu_util_pct\n");
        for i in 0..120 {
            let (start, end) = (
                format!("2026-03-01T{:02}:00:00Z", i % 24),
                format!("2026-03-02T{:02}:30:00Z", i % 24),
            );
            let gpus = if i % 17 == 0 {
                "-4".to_string()
            } else {
                (1 + i % 8).to_string()
            };
            let end = if i % 23 == 0 { "soon".to_string() } else { end };
            let name = if i % 11 == 0 {
                "\"sweep\nlr\"".to_string()
            } else {
                format!("train-{i}")
            };
            text.push_str(&format!(
                "{i},c{},{name},u{i},q,{start},{end},{gpus},{}\n",
                i % 3,
                i % 100
            ));
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.csv");
        std::fs::write(&path, &text).expect("write");
        let rules = crate::config::catalog::builtin()
            .catalog
            .classification
            .expect("built-in rules");
        let read = |chunk_bytes: usize| {
            let mapping = Mapping::default();
            read_tabular_in_pieces(
                &path,
                LogFormat::Csv { delimiter: b',' },
                &mapping,
                Detail::Audit(&rules),
                chunk_bytes,
            )
            .expect("read")
        };
        let whole = read(1 << 20);
        let pieces = read(300);
        assert_eq!(whole.jobs.height(), 120 - whole.quarantine.total() as usize);
        assert!(whole.quarantine.total() > 0);
        assert!(whole.jobs.equals_missing(&pieces.jobs));
        assert_eq!(whole.quarantine.counts, pieces.quarantine.counts);
        assert_eq!(whole.quarantine.samples, pieces.quarantine.samples);
    }
}
