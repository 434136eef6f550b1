//! `gpuplan mapping init`: a commented mapping guessed from a log's header.

use std::path::Path;

use super::Failure;
use crate::config::atomic::write_atomically;
use crate::config::diagnostic::Diagnostic;
use crate::data::readers::detect::{LogFormat, sniff};
use crate::data::readers::load::format_of;
use crate::data::readers::mapping::{Mapping, TimeFormat, render_mapping_toml};
use crate::data::readers::tabular::{MappingAsRead, mapping_as_read};
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
    let start = Mapping {
        delimiter: Some(char::from(delimiter).to_string()),
        ..Mapping::default()
    };
    // The mapping the audit reads the log with: completed from the header (or the header file
    // beside it), numeric queues read as waits, each guess with its reason.
    let MappingAsRead {
        mut mapping,
        header,
        warnings,
    } = mapping_as_read(log, format, &start).map_err(|e| fail(e.to_string()))?;
    for warning in &warnings {
        eprintln!("note: {shown}: {warning}");
    }
    // Look at the first data rows to name the time layout.
    let data_rows: Vec<&str> = text.lines().skip(usize::from(mapping.has_header)).take(200).collect();
    if let Some(index) = mapping
        .columns
        .get("start")
        .and_then(|s| header.iter().position(|h| h == s))
        && matches!(mapping.units.time, TimeFormat::Auto)
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
