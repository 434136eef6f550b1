//! Delimited text read in pieces of whole records (the file is never held or mapped whole), each
//! piece parsed by Polars as text columns; and whole records parsed again to read chosen rows back.

use std::io::{BufRead, BufReader};
use std::path::Path;

use polars::prelude::*;

use super::err;
use super::scan::headerless_names;
use crate::data::error::DataError;
use crate::data::places::ROW;
use crate::data::readers::detect::split_header;
use crate::data::readers::mapping::Mapping;

/// The column names of a delimited file as its reader named them.
pub(crate) fn column_names(path: &Path, delimiter: u8, mapping: &Mapping) -> Result<Vec<String>, DataError> {
    let names = if mapping.has_header {
        let file = std::fs::File::open(path).map_err(|e| DataError::cannot_open(path, e))?;
        let mut header = Vec::new();
        BufReader::new(file)
            .read_until(b'\n', &mut header)
            .map_err(|e| DataError::cannot_read(path, e))?;
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
) -> Result<DataFrame, DataError> {
    parse_chunk(bytes, names, None, delimiter, mapping, 0)
}

/// Bytes of delimited text parsed at a time: large enough for Polars' parser to use both
/// cores, small enough that the file is never held whole.
pub(super) const CHUNK_BYTES: usize = 32 << 20;

/// The end of the last complete record in `buf`: its last newline outside quotes.
pub(super) fn last_record_end(buf: &[u8]) -> Option<usize> {
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
pub(super) struct RecordChunks {
    path: std::path::PathBuf,
    file: std::fs::File,
    carry: Vec<u8>,
    eof: bool,
    chunk_bytes: usize,
}

impl RecordChunks {
    pub(super) fn open(path: &Path, chunk_bytes: usize) -> Result<RecordChunks, DataError> {
        let file = std::fs::File::open(path).map_err(|e| DataError::cannot_open(path, e))?;
        Ok(RecordChunks {
            path: path.to_path_buf(),
            file,
            carry: Vec::new(),
            eof: false,
            chunk_bytes,
        })
    }

    pub(super) fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, DataError> {
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
                    Err(e) => return Err(DataError::cannot_read(&self.path, e)),
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
pub(super) fn parse_chunk(
    bytes: Vec<u8>,
    names: &[String],
    wanted: Option<&Arc<[PlSmallStr]>>,
    delimiter: u8,
    mapping: &Mapping,
    first_row: IdxSize,
) -> Result<DataFrame, DataError> {
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
pub(super) struct DelimitedFile {
    pub(super) chunks: RecordChunks,
    pub(super) names: Vec<String>,
    pub(super) first: DataFrame,
    pub(super) first_bytes: u64,
    /// Bytes before the first record (the header line).
    pub(super) first_offset: u64,
}

pub(super) fn open_delimited(
    path: &Path,
    delimiter: u8,
    mapping: &Mapping,
    chunk_bytes: usize,
) -> Result<DelimitedFile, DataError> {
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
