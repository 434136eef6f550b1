//! What a file and its mapping say before any row is parsed: a header file beside a headerless
//! export, an encoding that is not UTF-8, a column that takes the row number's name, and the
//! mapping completed from the header and checked against it.

use std::path::Path;

use polars::prelude::*;

use super::scan::headerless_names;
use crate::data::error::DataError;
use crate::data::places::ROW;
use crate::data::readers::detect::LogFormat;
use crate::data::readers::mapping::{Mapping, holds_only_numbers};
use crate::data::readers::public_traces::{Recognised, recognise};

/// Headerless exports ship their column names beside them (`table.csv` + `table.header`): the
/// mapping reads them from there, and the user is told.
pub(super) fn header_file_beside(path: &Path, format: LogFormat, mapping: &mut Mapping) -> Option<String> {
    let header_file = path.with_extension("header");
    if matches!(format, LogFormat::Csv { .. })
        && mapping.has_header
        && mapping.column_names.is_empty()
        && header_file.is_file()
    {
        mapping.has_header = false;
        mapping.header_file = header_file.file_name().map(|n| n.to_string_lossy().into_owned());
        return Some(format!("no header row: column names from {}", header_file.display()));
    }
    None
}

/// A public trace's table known by its header or its first row (`public_traces`): the mapping
/// filled to read it as published, and a note saying so; a table with no GPU counts refused
/// with the one to audit instead. `head` is the file's first bytes.
pub(super) fn recognise_public_trace(
    path: &Path,
    head: &[u8],
    delimiter: u8,
    mapping: &mut Mapping,
) -> Result<Option<String>, DataError> {
    let text = String::from_utf8_lossy(head);
    let first_line = text
        .lines()
        .next()
        .unwrap_or("")
        .trim_start_matches('\u{feff}')
        .trim_end_matches('\r');
    let header_file_names = match (&mapping.header_file, mapping.has_header) {
        (Some(_), false) => Some(headerless_names(path, mapping)?),
        _ => None,
    };
    Ok(
        match recognise(path, header_file_names.as_deref(), first_line, delimiter, mapping) {
            None => None,
            Some(Recognised::Read { note }) => Some(note),
            Some(Recognised::NoGpus {
                trace,
                table,
                audit_instead,
            }) => {
                return Err(DataError::PublicTableWithoutGpus {
                    trace,
                    table,
                    audit_instead,
                });
            }
        },
    )
}

/// A warning when delimited text is not UTF-8 (it is read with replacement characters), from
/// its first bytes `head`.
pub(super) fn utf8_warning(head: &[u8]) -> Option<String> {
    let offset = match std::str::from_utf8(head) {
        Ok(_) => return None,
        // A multi-byte character cut by the sniff window is not an encoding problem.
        Err(e) if e.error_len().is_none() => return None,
        Err(e) => e.valid_up_to(),
    };
    Some(format!(
        "not UTF-8 (first bad byte at offset {offset}): read with replacement characters; convert with iconv -f LATIN1 -t UTF-8"
    ))
}

/// The file's column names: the schema's, without the row number of ours.
pub(super) fn header_of(schema: &Schema) -> Vec<String> {
    schema
        .iter_names()
        .filter(|n| n.as_str() != ROW)
        .map(|n| n.to_string())
        .collect()
}

/// The row number is a column of ours: a file's own column of that name would make two.
pub(super) fn refuse_row_column(first: &DataFrame) -> Result<(), DataError> {
    if first.get_column_names().iter().filter(|n| n.as_str() == ROW).count() > 1 {
        return Err(DataError::RowColumn);
    }
    Ok(())
}

/// Completes the mapping from the file's header and checks it: every mapped column exists, a
/// start time and a GPU count are mapped; without a job id every row is its own job, and without
/// a cluster the file's name stands for it.
pub(super) fn complete_mapping(
    path: &Path,
    schema: &Schema,
    mapping: &mut Mapping,
    warnings: &mut Vec<String>,
) -> Result<(), DataError> {
    let header = header_of(schema);
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
            return Err(DataError::MappedColumnMissing {
                place: Box::new(mapping.place(&key)),
                column: source,
                header,
            });
        }
    }
    if !mapping.columns.contains_key("start") {
        return Err(DataError::NoStartColumn { header });
    }
    if !mapping.columns.contains_key("gpus") && !mapping.constants.contains_key("gpus") {
        return Err(DataError::NoGpuColumn { header });
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
    Ok(())
}

/// A column guessed as the queue whose values are all numbers is not a queue name: AcmeTrace's
/// and Helios's `queue` hold the seconds each job waited. It is read as the wait instead (the
/// submit time is then start − wait when the log has none), and the warning says so. `first` is
/// the file's first piece.
pub(super) fn numeric_queue_as_wait(first: &DataFrame, mapping: &mut Mapping) -> Option<String> {
    let source = mapping.columns.get("queue")?.clone();
    let values = first.column(source.as_str()).ok()?.str().ok()?;
    holds_only_numbers(values.iter().flatten()).then(|| {
        mapping.columns.remove("queue");
        mapping.reasons.insert(
            "queue".into(),
            format!("`{source}` holds numbers, not queue names: read as the wait"),
        );
        let use_of_it = if mapping.columns.contains_key("wait") {
            "not read (the mapping names another wait column)"
        } else {
            mapping.columns.insert("wait".into(), source.clone());
            mapping.reasons.insert(
                "wait".into(),
                format!("`{source}` holds only numbers: the seconds each job waited, not queue names"),
            );
            if mapping.columns.contains_key("submit") {
                "read as each job's wait in seconds, checked against its submit and start times"
            } else {
                "read as each job's wait in seconds: submitted = started − wait"
            }
        };
        format!(
            "column `{source}` holds numbers, not queue names (AcmeTrace and Helios write the seconds a job waited there): \
             {use_of_it}; name it in a mapping's [columns] queue to read it as names anyway"
        )
    })
}
