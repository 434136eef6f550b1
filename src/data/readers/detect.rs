//! Which reader a log needs: from `--format`, the mapping, the file name and its first bytes.

use std::io::Read;
use std::path::Path;

use super::nvidia_smi;
use crate::data::error::DataError;

/// Every log layout gpuplan reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LogFormat {
    Csv {
        delimiter: u8,
    },
    Parquet,
    Ndjson,
    JsonArray,
    Sacct,
    Philly,
    DcgmLong,
    DcgmWide,
    /// `nvidia-smi --query-gpu=... --format=csv`.
    NvidiaSmi,
    /// `nvidia-smi dmon`.
    Dmon,
}

impl LogFormat {
    pub fn name(self) -> &'static str {
        match self {
            LogFormat::Csv { delimiter: b'\t' } => "tsv",
            LogFormat::Csv { .. } => "csv",
            LogFormat::Parquet => "parquet",
            LogFormat::Ndjson => "ndjson",
            LogFormat::JsonArray => "json",
            LogFormat::Sacct => "sacct",
            LogFormat::Philly => "philly",
            LogFormat::DcgmLong => "dcgm-long",
            LogFormat::DcgmWide => "dcgm-wide",
            LogFormat::NvidiaSmi => "nvidia-smi",
            LogFormat::Dmon => "dmon",
        }
    }

    /// Job logs give jobs; DCGM exports and nvidia-smi recordings give utilization samples.
    pub fn is_utilization_samples(self) -> bool {
        matches!(
            self,
            LogFormat::DcgmLong | LogFormat::DcgmWide | LogFormat::NvidiaSmi | LogFormat::Dmon
        )
    }
}

/// How many leading bytes detection reads.
const SNIFF_BYTES: usize = 64 * 1024;

/// Parses a format name given by the user (`--format`, a mapping's `format`).
pub fn parse_format_name(name: &str, delimiter: Option<u8>) -> Result<LogFormat, DataError> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "csv" => LogFormat::Csv {
            delimiter: delimiter.unwrap_or(b','),
        },
        "tsv" => LogFormat::Csv { delimiter: b'\t' },
        "parquet" | "pq" => LogFormat::Parquet,
        "ndjson" | "jsonl" => LogFormat::Ndjson,
        "json" => LogFormat::JsonArray,
        "sacct" | "slurm" => LogFormat::Sacct,
        "philly" => LogFormat::Philly,
        "dcgm-long" | "dcgm" => LogFormat::DcgmLong,
        "dcgm-wide" => LogFormat::DcgmWide,
        "nvidia-smi" | "nvidia-smi-query" | "query-gpu" => LogFormat::NvidiaSmi,
        "dmon" | "nvidia-smi-dmon" => LogFormat::Dmon,
        other => {
            return Err(DataError::UnknownFormat {
                name: other.to_string(),
            });
        }
    })
}

/// The first bytes of a file, or why it cannot be read.
pub fn sniff(path: &Path) -> Result<Vec<u8>, DataError> {
    let mut file = std::fs::File::open(path).map_err(|e| DataError::cannot_open(path, e))?;
    let mut buffer = Vec::with_capacity(SNIFF_BYTES);
    file.by_ref()
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut buffer)
        .map_err(|e| DataError::cannot_read(path, e))?;
    Ok(buffer)
}

/// The delimiter of a delimited text's header line: the most frequent of `,` `\t` `|` `;`
/// outside quotes; `,` when none appears.
pub fn sniff_delimiter(header_line: &str) -> u8 {
    let mut in_quotes = false;
    let mut counts = [(b',', 0usize), (b'\t', 0), (b'|', 0), (b';', 0)];
    for byte in header_line.bytes() {
        if byte == b'"' {
            in_quotes = !in_quotes;
        } else if !in_quotes && let Some(slot) = counts.iter_mut().find(|(d, _)| *d == byte) {
            slot.1 += 1;
        }
    }
    counts
        .iter()
        .max_by_key(|(_, n)| *n)
        .filter(|(_, n)| *n > 0)
        .map_or(b',', |(d, _)| *d)
}

fn first_line(text: &str) -> &str {
    text.lines()
        .next()
        .unwrap_or("")
        .trim_start_matches('\u{feff}')
        .trim_end_matches('\r')
}

fn is_dcgm_long_header(header: &[String]) -> bool {
    let has = |names: &[&str]| header.iter().any(|h| names.contains(&h.to_ascii_lowercase().as_str()));
    has(&["metric", "metric_name", "field"]) && has(&["value"]) && has(&["time", "timestamp"])
}

fn is_dcgm_wide(header: &[String], file_name: &str) -> bool {
    let first = header.first().map(|h| h.to_ascii_lowercase()).unwrap_or_default();
    (first == "time" || first == "timestamp") && file_name.to_ascii_uppercase().contains("DCGM_FI_")
}

/// Splits a header line on `delimiter` (quotes around names removed).
pub fn split_header(line: &str, delimiter: u8) -> Vec<String> {
    line.split(char::from(delimiter))
        .map(|h| h.trim().trim_matches('"').to_string())
        .collect()
}

/// Detects a file's format from its name and first bytes.
pub fn detect_format(path: &Path, head: &[u8]) -> Result<LogFormat, DataError> {
    if path.is_dir() {
        return Ok(LogFormat::Parquet);
    }
    if head.starts_with(b"PAR1") {
        return Ok(LogFormat::Parquet);
    }
    if head.is_empty() {
        return Err(DataError::Empty);
    }
    let probe = &head[..head.len().min(8192)];
    if probe.starts_with(&[0xff, 0xfe]) || probe.starts_with(&[0xfe, 0xff]) {
        return Err(DataError::Utf16);
    }
    if probe.contains(&0) {
        return Err(DataError::Binary);
    }
    let text = String::from_utf8_lossy(head);
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if trimmed.starts_with('[') {
        let is_philly = trimmed.contains("\"attempts\"");
        return Ok(if is_philly {
            LogFormat::Philly
        } else {
            LogFormat::JsonArray
        });
    }
    if trimmed.starts_with('{') || extension == "ndjson" || extension == "jsonl" {
        return Ok(LogFormat::Ndjson);
    }
    if nvidia_smi::looks_like_dmon(&text) {
        return Ok(LogFormat::Dmon);
    }
    let header_line = first_line(&text);
    if nvidia_smi::looks_like_query_header(header_line) || nvidia_smi::looks_like_query_data_line(header_line) {
        return Ok(LogFormat::NvidiaSmi);
    }
    let delimiter = if extension == "tsv" {
        b'\t'
    } else {
        sniff_delimiter(header_line)
    };
    let header = split_header(header_line, delimiter);
    if delimiter == b'|'
        && header
            .iter()
            .any(|h| h.eq_ignore_ascii_case("JobID") || h.eq_ignore_ascii_case("JobIDRaw"))
    {
        return Ok(LogFormat::Sacct);
    }
    if is_dcgm_long_header(&header) {
        return Ok(LogFormat::DcgmLong);
    }
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if is_dcgm_wide(&header, file_name) {
        return Ok(LogFormat::DcgmWide);
    }
    Ok(LogFormat::Csv { delimiter })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_the_error_lists_is_read() {
        for name in crate::data::error::FORMAT_NAMES.split(", ") {
            assert!(parse_format_name(name, None).is_ok(), "{name}");
        }
        assert!(parse_format_name("xlsx", None).is_err());
    }

    fn detect(name: &str, head: &str) -> Result<LogFormat, String> {
        detect_format(Path::new(name), head.as_bytes()).map_err(|e| e.to_string())
    }

    #[test]
    fn detects_each_layout_from_its_first_bytes() {
        assert_eq!(
            detect("a.csv", "job_id,start,end\n1,2,3\n"),
            Ok(LogFormat::Csv { delimiter: b',' })
        );
        assert_eq!(
            detect("a.txt", "job_id;start;end\n"),
            Ok(LogFormat::Csv { delimiter: b';' })
        );
        assert_eq!(
            detect("a.tsv", "job_id\tstart\n"),
            Ok(LogFormat::Csv { delimiter: b'\t' })
        );
        assert_eq!(
            detect("s.txt", "JobID|JobName|State\n1|x|RUNNING\n"),
            Ok(LogFormat::Sacct)
        );
        assert_eq!(
            detect("p.json", "[\n {\"id\": \"a\", \"attempts\": []}]"),
            Ok(LogFormat::Philly)
        );
        assert_eq!(detect("r.json", "[{\"job\": 1}]"), Ok(LogFormat::JsonArray));
        assert_eq!(detect("r.log", "{\"job\": 1}\n{\"job\": 2}\n"), Ok(LogFormat::Ndjson));
        assert_eq!(detect("d.csv", "time,host,gpu,metric,value\n"), Ok(LogFormat::DcgmLong));
        assert_eq!(
            detect("DCGM_FI_DEV_GPU_UTIL.csv", "Time,node-1,node-2\n"),
            Ok(LogFormat::DcgmWide)
        );
        assert_eq!(detect("x.bin", "PAR1...."), Ok(LogFormat::Parquet));
        assert_eq!(
            detect(
                "node17.csv",
                "timestamp, index, utilization.gpu [%], power.draw [W]\n2026/11/26 20:37:19.985, 0, 45 %, 99.94 W\n"
            ),
            Ok(LogFormat::NvidiaSmi)
        );
        assert_eq!(
            detect("node17.csv", "2026/11/26 20:37:19.985, 0, 45\n"),
            Ok(LogFormat::NvidiaSmi)
        );
        assert_eq!(
            detect(
                "node17.dmon.txt",
                "#Date       Time        gpu     sm\n#YYYYMMDD   HH:MM:SS    Idx      %\n 20261126   20:37:19      0     45\n"
            ),
            Ok(LogFormat::Dmon)
        );
        assert_eq!(
            detect("node17.txt", "# gpu    sm\n# Idx     %\n    0     45\n"),
            Ok(LogFormat::Dmon)
        );
    }

    #[test]
    fn refuses_empty_and_binary_files_with_a_reason() {
        assert_eq!(detect("e.csv", ""), Err("the file is empty".to_string()));
        let binary = detect_format(Path::new("b.csv"), b"\x7fELF\x00\x01\x02");
        assert!(binary.is_err_and(|e| e.to_string().contains("binary")));
    }

    #[test]
    fn the_delimiter_ignores_quoted_commas() {
        assert_eq!(sniff_delimiter("\"a,b\"|c|d"), b'|');
        assert_eq!(sniff_delimiter("single"), b',');
    }

    #[test]
    fn format_names_parse_and_unknown_ones_list_the_choices() {
        assert_eq!(
            parse_format_name("TSV", None).ok(),
            Some(LogFormat::Csv { delimiter: b'\t' })
        );
        assert!(parse_format_name("xlsx", None).is_err_and(|e| e.to_string().contains("sacct")));
    }
}
