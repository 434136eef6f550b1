//! Opening a tabular log: a lazy scan of a file, a folder or a glob (CSV, Parquet, NDJSON, JSON
//! arrays), the column names of a headerless file, and where its rows' line numbers start.

use std::path::Path;

use polars::prelude::*;

use super::err;
use crate::data::error::DataError;
use crate::data::places::ROW;
use crate::data::readers::detect::{LogFormat, sniff_delimiter, split_header};
use crate::data::readers::mapping::Mapping;

fn path_string(path: &Path) -> Result<String, DataError> {
    path.to_str().map(str::to_string).ok_or_else(|| DataError::PathNotUtf8 {
        path: path.to_path_buf(),
    })
}

/// Column names of a headerless file: the mapping's list, or its `.header` file.
pub fn headerless_names(path: &Path, mapping: &Mapping) -> Result<Vec<String>, DataError> {
    if !mapping.column_names.is_empty() {
        return Ok(mapping.column_names.clone());
    }
    let header_path = match &mapping.header_file {
        Some(file) => path.parent().unwrap_or(Path::new(".")).join(file),
        None => path.with_extension("header"),
    };
    let text = std::fs::read_to_string(&header_path).map_err(|e| DataError::HeaderFile {
        path: header_path.clone(),
        source: e.into(),
    })?;
    let line = text.lines().next().unwrap_or("");
    Ok(split_header(line, sniff_delimiter(line)))
}

/// A lazy scan of the file, every CSV column read as text (types come from the mapping, so
/// columns empty for the first thousand rows cannot be mistyped), with a row index.
pub(crate) fn scan(path: &Path, format: LogFormat, mapping: &Mapping) -> Result<LazyFrame, DataError> {
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
            let file = std::fs::File::open(path).map_err(|e| DataError::cannot_open(path, e))?;
            let frame = JsonReader::new(file).infer_schema_len(None).finish().map_err(err)?;
            frame.lazy().with_row_index(ROW, None).pipe(Ok)
        }
        other => Err(DataError::NotTabular { format: other.name() }),
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
