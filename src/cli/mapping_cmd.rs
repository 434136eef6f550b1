//! `gpuplan mapping init`: a commented mapping guessed from a log's header.

use std::path::Path;

use super::Failure;
use crate::config::atomic::write_atomically;
use crate::config::diagnostic::Diagnostic;
use crate::data::readers::detect::{LogFormat, sniff, split_header};
use crate::data::readers::load::format_of;
use crate::data::readers::mapping::{Mapping, TimeFormat, holds_only_numbers, render_mapping_toml};
use crate::data::readers::tabular::headerless_names;
use crate::data::readers::time::layout::{DetectedTime, detect_time};

pub fn init(log: &Path, output: Option<&Path>, input_format: Option<&str>) -> Result<(), Failure> {
    let shown = log.display().to_string();
    let fail = |m: String| Failure::from(Diagnostic::file(&shown, m));
    let format = format_of(log, input_format, None).map_err(|e| fail(e.to_string()))?;
    let LogFormat::Csv { delimiter } = format else {
        return Err(fail(format!(
            "{} logs are read without a mapping; `gpuplan audit {shown}` reads it as it is",
            format.name()
        )));
    };
    let head = sniff(log).map_err(|e| fail(e.to_string()))?;
    let text = String::from_utf8_lossy(&head);
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim_start_matches('\u{feff}');
    let mut mapping = Mapping {
        delimiter: Some(char::from(delimiter).to_string()),
        ..Mapping::default()
    };
    let header_file = log.with_extension("header");
    let header = if header_file.exists() {
        mapping.has_header = false;
        mapping.header_file = header_file.file_name().map(|n| n.to_string_lossy().into_owned());
        headerless_names(log, &mapping).map_err(|e| fail(e.to_string()))?
    } else {
        split_header(first, delimiter)
    };
    mapping.complete_from_header(&header);
    // Look at the first data rows to name the time layout.
    let data_rows: Vec<&str> = if mapping.has_header {
        lines.take(200).collect()
    } else {
        text.lines().take(200).collect()
    };
    if let Some(index) = mapping
        .columns
        .get("start")
        .and_then(|s| header.iter().position(|h| h == s))
    {
        let values: Vec<&str> = data_rows
            .iter()
            .filter_map(|row| row.split(char::from(delimiter)).nth(index))
            .map(|v| v.trim_matches('"'))
            .collect();
        mapping.units.time = match detect_time(&values) {
            Some(DetectedTime::EpochSeconds) => TimeFormat::EpochS,
            Some(DetectedTime::EpochMillis) => TimeFormat::EpochMs,
            _ => TimeFormat::Auto,
        };
    }
    // A numeric column guessed as the queue holds waits, not queue names: left out, as the
    // audit leaves it out.
    if let Some(index) = mapping
        .columns
        .get("queue")
        .and_then(|q| header.iter().position(|h| h == q))
    {
        let values = data_rows
            .iter()
            .filter_map(|row| row.split(char::from(delimiter)).nth(index))
            .map(|v| v.trim_matches('"'));
        if holds_only_numbers(values) {
            mapping.columns.remove("queue");
        }
    }
    let rendered = render_mapping_toml(&mapping, &header, &shown);
    match output.filter(|path| *path != Path::new("-")) {
        None => print!("{rendered}"),
        Some(path) if is_character_device(path) => {
            // /dev/stdout, /dev/tty: written through, nothing to replace atomically.
            std::fs::write(path, rendered.as_bytes())
                .map_err(|e| Diagnostic::file(&path.display().to_string(), format!("cannot write: {e}")))?;
        }
        Some(path) => {
            if path.exists() {
                return Err(Diagnostic::file(
                    &path.display().to_string(),
                    "already exists; remove it or choose another name",
                )
                .into());
            }
            write_atomically(path, rendered.as_bytes())
                .map_err(|e| Diagnostic::file(&path.display().to_string(), format!("cannot write: {e}")))?;
            eprintln!(
                "wrote {}: check every line, then run `gpuplan audit {shown} --mapping {}`",
                path.display(),
                path.display()
            );
        }
    }
    Ok(())
}

/// A terminal or a stream such as `/dev/stdout`: written to, never refused as a file that exists.
fn is_character_device(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}
