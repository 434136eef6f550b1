//! `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]`: one line per GPU per sample,
//! the fields the command named, in its order.

use std::io::BufRead;
use std::path::Path;

use super::text::{for_each_line, percent, timestamp_ms};
use super::{LineReading, Measure, MeasureValue, Parsed, Readings};
use crate::data::error::DataError;
use crate::data::readers::dcgm::ALL_GPUS;
use crate::data::readers::reject::{RejectReason, RejectedRow};

/// The `--query-gpu` field families nvidia-smi names with a dot (`utilization.gpu`,
/// `memory.used`, `clocks.current.sm`...): a header with one of them is nvidia-smi's.
const DOTTED_FAMILIES: [&str; 16] = [
    "utilization.",
    "memory.",
    "power.",
    "clocks.",
    "clocks_throttle_reasons.",
    "clocks_event_reasons.",
    "temperature.",
    "pci.",
    "fan.",
    "ecc.",
    "enforced.",
    "encoder.",
    "mig.",
    "retired_pages.",
    "inforom.",
    "accounting.",
];

/// Names of the GPU, in the order preferred: the index is what DCGM calls `gpu`.
const GPU_FIELDS: [&str; 5] = ["index", "uuid", "gpu_uuid", "pci.bus_id", "gpu_bus_id"];
/// Not nvidia-smi's: a host column a recording may have been given afterwards.
const HOST_FIELDS: [&str; 3] = ["host", "hostname", "node"];

/// A header field's name without its unit: `utilization.gpu [%]` → `utilization.gpu`.
fn field_name(field: &str) -> String {
    let field = field.trim();
    field
        .split_once(" [")
        .map_or(field, |(name, _)| name.trim_end())
        .to_ascii_lowercase()
}

fn is_field_name(name: &str) -> bool {
    name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
}

/// True for a `--query-gpu` CSV header: every field a field name (with its unit or not), one
/// of them in a family only nvidia-smi names.
pub fn looks_like_query_header(line: &str) -> bool {
    let names: Vec<String> = line.split(',').map(field_name).collect();
    names.iter().all(|n| is_field_name(n))
        && names
            .iter()
            .any(|n| DOTTED_FAMILIES.iter().any(|family| n.starts_with(family)))
}

/// True for the first line of a `--format=csv,noheader` recording: it starts with nvidia-smi's
/// timestamp (`2026/11/26 20:37:19.985, ...`).
pub fn looks_like_query_data_line(line: &str) -> bool {
    line.contains(',') && super::text::starts_like_timestamp(line)
}

/// Where the fields the audit reads sit.
#[derive(Debug, Clone)]
struct QueryColumns {
    count: usize,
    timestamp: usize,
    gpu: Option<usize>,
    host: Option<usize>,
    utilization: usize,
}

impl QueryColumns {
    fn find(header: &str) -> Result<QueryColumns, DataError> {
        let names: Vec<String> = header.split(',').map(field_name).collect();
        let position = |wanted: &str| names.iter().position(|n| n == wanted);
        let Some(timestamp) = position("timestamp") else {
            return Err(DataError::RecordingWithout {
                what: "timestamp field",
                columns: names.join(", "),
                record: "nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv -l 1",
            });
        };
        let Some(utilization) = position("utilization.gpu") else {
            return Err(DataError::RecordingWithout {
                what: "utilization.gpu field",
                columns: names.join(", "),
                record: "nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv -l 1",
            });
        };
        Ok(QueryColumns {
            count: names.len(),
            timestamp,
            gpu: GPU_FIELDS.iter().find_map(|f| position(f)),
            host: HOST_FIELDS.iter().find_map(|f| position(f)),
            utilization,
        })
    }
}

/// The file `path` names its fields in when it was recorded with `noheader`: `node17.header`
/// beside `node17.csv`.
pub fn header_file_of(path: &Path) -> std::path::PathBuf {
    path.with_extension("header")
}

/// Reads a `--query-gpu` CSV into `sink`. `host`: the recording's host, used where its lines
/// name none; `header_beside`: the field list of a `noheader` recording (its `.header` file).
pub fn read_query<R: BufRead, S: Readings>(
    path: &Path,
    reader: R,
    host: Result<&str, &DataError>,
    header_beside: Option<&str>,
    sink: &mut S,
) -> Result<Parsed, DataError> {
    let file = path.display().to_string();
    let mut parsed = Parsed::default();
    let mut columns: Option<(String, QueryColumns)> = match header_beside {
        Some(header) => Some((
            String::new(),
            QueryColumns::find(header.trim()).map_err(|e| e.in_file(&file))?,
        )),
        None => None,
    };
    let reject = |line: u64, reason: RejectReason, detail: String| RejectedRow {
        file: file.clone(),
        line,
        reason,
        detail,
    };
    let mut values: Vec<(Measure, MeasureValue)> = Vec::with_capacity(1);
    let set_aside = for_each_line(path, reader, |number, line| {
        if line.trim().is_empty() || columns.as_ref().is_some_and(|(header, _)| header == line) {
            return Ok(());
        }
        if line.as_bytes().first().is_some_and(u8::is_ascii_lowercase) && looks_like_query_header(line) {
            // A header, first or again where another recording was appended.
            let found = QueryColumns::find(line).map_err(|e| e.in_file_at(&file, number))?;
            columns = Some((line.to_string(), found));
            return Ok(());
        }
        let Some((_, layout)) = &columns else {
            return Err(match super::text::starts_like_timestamp(line) {
                true => DataError::HeaderlessQuery {
                    header_file: header_file_of(path),
                },
                false => DataError::UnexpectedHeader {
                    expected: "nvidia-smi --query-gpu's CSV header (timestamp, index, utilization.gpu [%], ...)",
                    found: crate::data::error::shown(line),
                },
            }
            .in_file_at(&file, number));
        };
        let (mut time, mut gpu, mut line_host, mut utilization) = (None, None, None, None);
        let mut count = 0;
        for (i, field) in line.split(',').enumerate() {
            count += 1;
            if i == layout.timestamp {
                time = Some(field);
            }
            if Some(i) == layout.gpu {
                gpu = Some(field.trim());
            }
            if Some(i) == layout.host {
                line_host = Some(field.trim());
            }
            if i == layout.utilization {
                utilization = Some(field);
            }
        }
        if count != layout.count {
            parsed.quarantine.add(reject(
                number,
                RejectReason::MalformedRow,
                format!(
                    "expected {} comma-separated fields as the header names, found {count}",
                    layout.count
                ),
            ));
            return Ok(());
        }
        let raw_time = time.unwrap_or("");
        let Some((time_ms, utc)) = timestamp_ms(raw_time) else {
            parsed.quarantine.add(reject(
                number,
                RejectReason::UnparseableTime,
                format!(
                    "column timestamp: \"{}\" (expected YYYY/MM/DD HH:MM:SS.mmm)",
                    crate::data::error::shown(raw_time.trim())
                ),
            ));
            return Ok(());
        };
        let host = match line_host.filter(|h| !h.is_empty()) {
            Some(h) => h,
            None => host.map_err(|e| e.clone())?,
        };
        let gpu = gpu.filter(|g| !g.is_empty() && !g.starts_with('[')).unwrap_or(ALL_GPUS);
        values.clear();
        values.push((Measure::UtilizationGpu, percent(utilization.unwrap_or(""))));
        parsed.data_lines += 1;
        sink.line(&LineReading {
            line: number,
            time_ms,
            utc,
            host,
            gpu,
            values: &values,
        });
        Ok(())
    })?;
    parsed.quarantine.merge(set_aside);
    if columns.is_none() {
        return Err(DataError::Empty.in_file(&file));
    }
    Ok(parsed)
}
