//! The tabular formats' entries in `readers::formats`: Parquet, JSON arrays, JSON lines, TSV
//! and CSV, all read through a column mapping by `read_tabular`.

use std::path::Path;

use crate::data::error::DataError;
use crate::data::readers::formats::{FormatRead, LogFormat, LogReader, Probe, ReadInput, RunsRead, Yielded, Yields};
use crate::data::readers::json_depth::{MAX_JSON_DEPTH, check_json_depth};
use crate::data::readers::mapping::Mapping;

/// Parquet: a file starting with `PAR1`, or a folder of them (hive-partitioned).
pub struct Parquet;
/// A JSON array of job objects.
pub struct JsonArray;
/// One JSON job object per line.
pub struct Ndjson;
/// Tab-separated text.
pub struct Tsv;
/// Delimited text (`,` `|` `;` or the mapping's delimiter): any text no other format claims.
pub struct Csv;

impl LogReader for Parquet {
    fn name(&self) -> &'static str {
        "parquet"
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["pq"]
    }
    fn yields(&self) -> Yields {
        Yields::Runs
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::Parquet
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::Parquet
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        // Before any text test: a folder, or bytes that are not text.
        Ok((probe.path.is_dir() || probe.head.starts_with(b"PAR1")).then_some(LogFormat::Parquet))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        read_through_mapping(input)
    }
}

impl LogReader for JsonArray {
    fn name(&self) -> &'static str {
        "json"
    }
    fn yields(&self) -> Yields {
        Yields::Runs
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::JsonArray
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::JsonArray
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        Ok(probe.text()?.trimmed().starts_with('[').then_some(LogFormat::JsonArray))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        check_json_depth(input.path, MAX_JSON_DEPTH)?;
        read_through_mapping(input)
    }
}

impl LogReader for Ndjson {
    fn name(&self) -> &'static str {
        "ndjson"
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["jsonl"]
    }
    fn yields(&self) -> Yields {
        Yields::Runs
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::Ndjson
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::Ndjson
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        let text = probe.text()?;
        let is_ndjson = text.trimmed().starts_with('{') || text.extension == "ndjson" || text.extension == "jsonl";
        Ok(is_ndjson.then_some(LogFormat::Ndjson))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        check_json_depth(input.path, MAX_JSON_DEPTH)?;
        // The parser's own error names no line: find the first line that is not an object.
        read_through_mapping(input).map_err(|error| first_bad_json_line(input.path).unwrap_or(error))
    }
}

impl LogReader for Tsv {
    fn name(&self) -> &'static str {
        "tsv"
    }
    fn yields(&self) -> Yields {
        Yields::Runs
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::Csv { delimiter: b'\t' }
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::Csv { delimiter: b'\t' }
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        Ok((probe.text()?.delimiter == b'\t').then_some(LogFormat::Csv { delimiter: b'\t' }))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        read_through_mapping(input)
    }
}

impl LogReader for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }
    fn yields(&self) -> Yields {
        Yields::Runs
    }
    fn layout(&self, delimiter: Option<u8>) -> LogFormat {
        LogFormat::Csv {
            delimiter: delimiter.unwrap_or(b','),
        }
    }
    fn reads(&self, format: LogFormat) -> bool {
        matches!(format, LogFormat::Csv { delimiter } if delimiter != b'\t')
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        Ok(Some(LogFormat::Csv {
            delimiter: probe.text()?.delimiter,
        }))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        read_through_mapping(input)
    }
}

/// A tabular log read through the mapping (the default one when none is given).
fn read_through_mapping(input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
    let default_mapping = Mapping::default();
    let mapping = input.mapping.unwrap_or(&default_mapping);
    let read = super::read_tabular(input.path, input.format, mapping, input.detail)?;
    let pending = (read.pending.height() > 0).then_some(read.pending);
    Ok(FormatRead {
        rows: read.jobs.height(),
        yielded: Yielded::Runs(Box::new(RunsRead {
            jobs: read.jobs,
            pending,
            hosts: Default::default(),
            mapping: Some(read.mapping),
            pieces: read.pieces,
        })),
        quarantine: read.quarantine,
        warnings: read.warnings,
        notes: Vec::new(),
    })
}

/// The 1-based character column of the parser's 1-based byte column in `line`.
fn char_column(line: &str, byte_column: usize) -> usize {
    let mut end = byte_column.saturating_sub(1).min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].chars().count() + 1
}

/// Where a JSON-lines file stops being JSON: the parser's own error names no line.
fn first_bad_json_line(path: &Path) -> Option<DataError> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.ok()?;
        if line.trim().is_empty() {
            continue;
        }
        if let Err(e) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&line) {
            return Some(DataError::NotJsonObject {
                line: index + 1,
                column: char_column(&line, e.column()),
                source: e.into(),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_json_line_is_placed_by_character_not_byte() {
        // `é` and `東` take 2 and 3 bytes: the parser stops at the `2`, byte 26, character 23.
        let line = r#"{"name": "é東", "gpus" 2}"#;
        let error = serde_json::from_str::<serde_json::Value>(line).expect_err("no colon");
        assert_eq!(error.column(), 26);
        assert_eq!(char_column(line, error.column()), 23);
        assert_eq!(line.chars().nth(22), Some('2'));
        assert_eq!(char_column("", 1), 1);
        assert_eq!(char_column("é", 2), 1);
    }
}
