//! Which reader a log needs: from `--format`, the mapping, the file name and its first bytes.

use std::io::Read;
use std::path::Path;

pub use super::formats::LogFormat;
use super::formats::{FORMATS, Probe, reader_named};
use crate::data::error::DataError;

/// How many leading bytes detection reads.
const SNIFF_BYTES: usize = 64 * 1024;

/// Parses a format name given by the user (`--format`, a mapping's `format`): a name or alias
/// of an entry of `formats::FORMATS`.
pub fn parse_format_name(name: &str, delimiter: Option<u8>) -> Result<LogFormat, DataError> {
    Ok(reader_named(name)?.layout(delimiter))
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

/// Splits a header line on `delimiter` (quotes around names removed).
pub fn split_header(line: &str, delimiter: u8) -> Vec<String> {
    line.split(char::from(delimiter))
        .map(|h| h.trim().trim_matches('"').to_string())
        .collect()
}

/// Detects a file's format from its name and first bytes: the first entry of
/// `formats::FORMATS` that recognises them.
pub fn detect_format(path: &Path, head: &[u8]) -> Result<LogFormat, DataError> {
    let probe = Probe::new(path, head);
    for reader in FORMATS {
        if let Some(format) = reader.recognise(&probe)? {
            return Ok(format);
        }
    }
    // CSV closes the list and reads any text, so only a change to the list gets here.
    Ok(LogFormat::Csv {
        delimiter: probe.text()?.delimiter,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_the_error_lists_is_read() {
        for name in crate::data::readers::formats::format_names().split(", ") {
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
