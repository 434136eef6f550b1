//! `nvidia-smi dmon`: whitespace-separated columns under `#` header blocks (names, then units)
//! that dmon writes again every few dozen lines; one line per GPU per interval.
//!
//! ```text
//! #Date        Time         gpu    pwr  gtemp  mtemp     sm    mem ...      gract     smutil
//! #YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      % ...      GPM:%      GPM:%
//!  20261126    20:37:19       0     99     35     36      0      0 ...          -          -
//! ```

use std::io::BufRead;
use std::path::Path;

use super::text::{compact_date_ms, for_each_line, percent, time_of_day_ms};
use super::{LineReading, Measure, MeasureValue, Parsed, Readings};
use crate::data::error::DataError;
use crate::data::readers::reject::{RejectReason, RejectedRow};

/// What a column of a dmon line is to the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Date,
    Time,
    Gpu,
    Measure(Measure),
    Other,
}

fn role_of(name: &str) -> Role {
    match name.to_ascii_lowercase().as_str() {
        "date" => Role::Date,
        "time" => Role::Time,
        "gpu" => Role::Gpu,
        "sm" => Role::Measure(Measure::DmonSm),
        "gract" => Role::Measure(Measure::Gract),
        "smutil" => Role::Measure(Measure::Smutil),
        "smocc" => Role::Measure(Measure::Smocc),
        "mmaact" => Role::Measure(Measure::Mmaact),
        _ => Role::Other,
    }
}

/// A line's whitespace-separated tokens. dmon pads its columns with runs of spaces, which
/// `split_ascii_whitespace` walks as empty pieces one space at a time; this skips each run.
fn tokens(line: &str) -> impl Iterator<Item = &str> {
    let bytes = line.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let start = at;
        while bytes.get(at).is_some_and(|b| !b.is_ascii_whitespace()) {
            at += 1;
        }
        // Both ends sit next to ASCII whitespace or at the line's ends: char boundaries.
        (at > start).then(|| line.get(start..at)).flatten()
    })
}

/// The names of a `#` line when it is dmon's header of names (it names the `gpu` column).
fn header_names(line: &str) -> Option<Vec<&str>> {
    let names: Vec<&str> = line.strip_prefix('#')?.split_ascii_whitespace().collect();
    names.iter().any(|n| n.eq_ignore_ascii_case("gpu")).then_some(names)
}

/// True for text that begins with dmon's header (`# gpu ...` or `#Date Time gpu ...`).
pub fn looks_like_dmon(text: &str) -> bool {
    text.lines()
        .map(|l| l.trim_start_matches('\u{feff}').trim_end())
        .find(|l| !l.is_empty())
        .and_then(header_names)
        .is_some()
}

#[derive(Debug, Clone)]
struct Layout {
    header_line: u64,
    roles: Vec<Role>,
    measures: usize,
}

impl Layout {
    fn of(names: &[&str], header_line: u64) -> Result<Layout, DataError> {
        let roles: Vec<Role> = names.iter().map(|n| role_of(n)).collect();
        let has = |role: Role| roles.contains(&role);
        if !has(Role::Time) {
            return Err(DataError::DmonWithoutTime {
                time_of_day_only: false,
            });
        }
        if !has(Role::Date) {
            return Err(DataError::DmonWithoutTime { time_of_day_only: true });
        }
        let measures = roles.iter().filter(|r| matches!(r, Role::Measure(_))).count();
        if !roles
            .iter()
            .any(|r| matches!(r, Role::Measure(m) if m.as_dcgm().is_some()))
        {
            return Err(DataError::RecordingWithout {
                what: "utilization column (sm, gract or smutil)",
                columns: names.join(", "),
                record: "nvidia-smi dmon -s u -o DT (sm), or on Hopper nvidia-smi dmon --gpm-metrics 1,2 -o DT",
            });
        }
        Ok(Layout {
            header_line,
            roles,
            measures,
        })
    }
}

/// Reads a dmon recording of `host` into `sink`.
pub fn read_dmon<R: BufRead, S: Readings>(
    path: &Path,
    reader: R,
    host: Result<&str, &DataError>,
    sink: &mut S,
) -> Result<Parsed, DataError> {
    let file = path.display().to_string();
    let mut parsed = Parsed::default();
    let mut layout: Option<Layout> = None;
    let reject = |line: u64, reason: RejectReason, detail: String| RejectedRow {
        file: file.clone(),
        line,
        reason,
        detail,
    };
    let mut values: Vec<(Measure, MeasureValue)> = Vec::with_capacity(8);
    // Dates repeat for a day of lines: the last one read, and its midnight.
    let mut last_date: (String, i64) = (String::new(), 0);
    let set_aside = for_each_line(path, reader, |number, line| {
        if line.starts_with('#') {
            if let Some(names) = header_names(line) {
                layout = Some(Layout::of(&names, number).map_err(|e| e.in_file_at(&file, number))?);
            }
            // The units line under the names, and any other comment.
            return Ok(());
        }
        if line.trim().is_empty() {
            return Ok(());
        }
        let Some(layout) = &layout else {
            parsed.quarantine.add(reject(
                number,
                RejectReason::MalformedRow,
                "a line before dmon's # header that names its columns".to_string(),
            ));
            return Ok(());
        };
        let (mut date, mut time, mut gpu) = ("", "", "");
        let mut raw: [(Measure, &str); 8] = [(Measure::DmonSm, ""); 8];
        let (mut count, mut measures) = (0usize, 0usize);
        for (token, role) in tokens(line).zip(layout.roles.iter().chain(std::iter::repeat(&Role::Other))) {
            count += 1;
            match role {
                Role::Date => date = token,
                Role::Time => time = token,
                Role::Gpu => gpu = token,
                Role::Measure(m) => {
                    if let Some(slot) = raw.get_mut(measures) {
                        *slot = (*m, token);
                    }
                    measures += 1;
                }
                Role::Other => {}
            }
        }
        if count != layout.roles.len() || measures != layout.measures {
            parsed.quarantine.add(reject(
                number,
                RejectReason::MalformedRow,
                format!(
                    "expected {} columns as the header at line {} names, found {count}",
                    layout.roles.len(),
                    layout.header_line
                ),
            ));
            return Ok(());
        }
        if date != last_date.0 {
            match compact_date_ms(date) {
                Some(ms) => last_date = (date.to_string(), ms),
                None => {
                    parsed.quarantine.add(reject(
                        number,
                        RejectReason::UnparseableTime,
                        format!(
                            "column Date: \"{}\" (expected YYYYMMDD)",
                            crate::data::error::shown(date)
                        ),
                    ));
                    return Ok(());
                }
            }
        }
        let Some(time_ms) = time_of_day_ms(time) else {
            parsed.quarantine.add(reject(
                number,
                RejectReason::UnparseableTime,
                format!(
                    "column Time: \"{}\" (expected HH:MM:SS)",
                    crate::data::error::shown(time)
                ),
            ));
            return Ok(());
        };
        values.clear();
        values.extend(
            raw.iter()
                .take(measures.min(raw.len()))
                .map(|(m, token)| (*m, percent(token))),
        );
        parsed.data_lines += 1;
        sink.line(&LineReading {
            line: number,
            time_ms: last_date.1 + time_ms,
            utc: false,
            host: host.map_err(|e| e.clone())?,
            gpu,
            values: &values,
        });
        Ok(())
    })?;
    parsed.quarantine.merge(set_aside);
    if layout.is_none() {
        return Err(DataError::UnexpectedHeader {
            expected: "nvidia-smi dmon's # header (#Date Time gpu ... with -o DT)",
            found: "no such line".to_string(),
        }
        .in_file(&file));
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_runs_of_spaces_and_keep_text_whole() {
        let line = " 20261126    20:37:19       0   -  é9 \t 483953272 ";
        assert_eq!(
            tokens(line).collect::<Vec<_>>(),
            line.split_ascii_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(tokens("   ").count(), 0);
        assert_eq!(tokens("").count(), 0);
    }
}
