//! What both recordings are written in: lines of bounded length, the node's clock (dates and
//! times without an offset), and percentages with their units and missing-value markers.

use std::io::{BufRead, Read};
use std::path::Path;

use crate::data::error::DataError;
use crate::data::readers::dcgm::RANGE_SLACK_FRAC;
use crate::data::readers::reject::{Quarantine, RejectReason, RejectedRow};
use crate::data::readers::time::parse::days_of_date;

/// The longest line read; nvidia-smi writes a few hundred bytes at most, so anything longer is
/// not its output and is set aside without being held whole.
pub(super) const MAX_LINE_BYTES: usize = 64 * 1024;

const MS_PER_SECOND: i64 = 1_000;
const MS_PER_DAY: i64 = 86_400 * MS_PER_SECOND;

/// Why a line could not be read as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineProblem {
    TooLong,
    NotUtf8,
}

impl LineProblem {
    fn detail(self) -> String {
        match self {
            LineProblem::TooLong => format!("longer than {MAX_LINE_BYTES} bytes: not nvidia-smi output"),
            LineProblem::NotUtf8 => "not UTF-8 text".to_string(),
        }
    }
}

/// Calls `each` with every line that is text (1-based number, text without its line ending),
/// reading at most `MAX_LINE_BYTES` of any line; a line too long or not UTF-8 is set aside in
/// the quarantine returned, as a malformed row of `path`. Stops at the first error `each`
/// returns.
pub(super) fn for_each_line<R: BufRead>(
    path: &Path,
    mut reader: R,
    mut each: impl FnMut(u64, &str) -> Result<(), DataError>,
) -> Result<Quarantine, DataError> {
    let io_error = |e| DataError::cannot_read(path, e);
    let mut set_aside = Quarantine::default();
    let mut problem = |line: u64, problem: LineProblem| {
        set_aside.add(RejectedRow {
            file: path.display().to_string(),
            line,
            reason: RejectReason::MalformedRow,
            detail: problem.detail(),
        });
    };
    let mut buffer: Vec<u8> = Vec::with_capacity(512);
    let mut number = 0u64;
    loop {
        buffer.clear();
        let read = Read::take(&mut reader, MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buffer)
            .map_err(io_error)?;
        if read == 0 {
            return Ok(set_aside);
        }
        number += 1;
        if buffer.len() > MAX_LINE_BYTES && buffer.last() != Some(&b'\n') {
            reader.skip_until(b'\n').map_err(io_error)?;
            problem(number, LineProblem::TooLong);
            continue;
        }
        let mut line: &[u8] = &buffer;
        if let Some(rest) = line.strip_suffix(b"\n") {
            line = rest;
        }
        if let Some(rest) = line.strip_suffix(b"\r") {
            line = rest;
        }
        if number == 1
            && let Some(rest) = line.strip_prefix("\u{feff}".as_bytes())
        {
            line = rest;
        }
        match std::str::from_utf8(line) {
            Ok(text) => each(number, text)?,
            Err(_) => problem(number, LineProblem::NotUtf8),
        }
    }
}

fn digits(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || bytes.len() > 9 {
        return None;
    }
    bytes
        .iter()
        .try_fold(0u32, |n, &b| b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0')))
}

/// Milliseconds from the epoch to midnight of a date, `None` when it is no date.
fn midnight_ms(year: u32, month: u32, day: u32) -> Option<i64> {
    days_of_date(i32::try_from(year).ok()?, month, day).map(|days| days * MS_PER_DAY)
}

/// `20261126` (dmon's `-o D`).
pub(super) fn compact_date_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() != 8 {
        return None;
    }
    midnight_ms(digits(&b[..4])?, digits(&b[4..6])?, digits(&b[6..])?)
}

/// `2026/11/26` (nvidia-smi's `timestamp`) or `2026-11-26`.
fn slashed_date_ms(b: &[u8]) -> Option<i64> {
    if b.len() != 10 || b[4] != b[7] || !matches!(b[4], b'/' | b'-') {
        return None;
    }
    midnight_ms(digits(&b[..4])?, digits(&b[5..7])?, digits(&b[8..])?)
}

/// `20:37:19` or `20:37:19.985` as milliseconds into the day.
pub(super) fn time_of_day_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (hours, minutes, seconds) = (digits(&b[..2])?, digits(&b[3..5])?, digits(&b[6..8])?);
    if hours > 23 || minutes > 59 || seconds > 59 {
        return None;
    }
    let fraction_ms = match &b[8..] {
        [] => 0,
        [b'.', fraction @ ..] if !fraction.is_empty() => {
            let value = digits(fraction)?;
            // Scaled to milliseconds whatever its length (`.5`, `.985`, `.985123`).
            (f64::from(value) / 10f64.powi(fraction.len() as i32) * 1e3).floor() as i64
        }
        _ => return None,
    };
    Some((i64::from(hours) * 3600 + i64::from(minutes) * 60 + i64::from(seconds)) * MS_PER_SECOND + fraction_ms)
}

/// An nvidia-smi `timestamp` as milliseconds and whether it stated its offset from UTC:
/// `2026/11/26 20:37:19.985` (the node's clock, no offset: `false`); also RFC 3339 (`true` with
/// its offset applied) and `2026-11-26 20:37:19` (no offset), for recordings written again by
/// another tool.
pub(super) fn timestamp_ms(text: &str) -> Option<(i64, bool)> {
    let text = text.trim();
    let b = text.as_bytes();
    if b.len() >= 19 && (b[10] == b' ' || b[10] == b'T') {
        let date = slashed_date_ms(&b[..10]);
        if let (Some(date), Some(time)) = (date, time_of_day_ms(&text[11..])) {
            return Some((date + time, false));
        }
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| (t.timestamp_millis(), true))
}

/// True when `text` starts like an nvidia-smi timestamp (`2026/11/26 20:37:19`): the first
/// field of a `--format=csv,noheader` recording.
pub(super) fn starts_like_timestamp(text: &str) -> bool {
    let b = text.trim_start().as_bytes();
    b.len() >= 19
        && b[4] == b'/'
        && b[7] == b'/'
        && slashed_date_ms(&b[..10]).is_some()
        && time_of_day_ms(std::str::from_utf8(&b[11..19]).unwrap_or("")).is_some()
}

/// A recorded value: a percentage (`45 %`, `45`, `45.5`), `None` for a value not measured
/// (empty, `-`, `N/A`, or nvidia-smi's bracketed `[N/A]`, `[Not Supported]`, `[Unknown Error]`),
/// an error naming the value and the range for one beyond 0–100 % by more than the slack DCGM's
/// values are allowed (values within it are clamped to 100).
pub(super) fn percent(raw: &str) -> Result<Option<f64>, String> {
    let text = raw.trim();
    if text.is_empty()
        || text == "-"
        || text.starts_with('[')
        || text.eq_ignore_ascii_case("n/a")
        || text.eq_ignore_ascii_case("na")
    {
        return Ok(None);
    }
    let number = text.strip_suffix('%').map_or(text, str::trim_end);
    // Most values are whole percentages: read them without the float parser.
    if !number.is_empty() && number.len() <= 3 && number.bytes().all(|b| b.is_ascii_digit()) {
        let whole = number.bytes().fold(0u32, |n, b| n * 10 + u32::from(b - b'0'));
        if whole <= 100 {
            return Ok(Some(f64::from(whole)));
        }
    }
    let value: f64 = number
        .parse()
        .map_err(|_| format!("\"{}\" is not a percentage", crate::data::error::shown(text)))?;
    if !value.is_finite() || !(0.0..=100.0 * (1.0 + RANGE_SLACK_FRAC)).contains(&value) {
        return Err(format!("{} % is outside 0–100 %", crate::data::error::shown(number)));
    }
    Ok(Some(value.min(100.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chrono_ms(text: &str, format: &str) -> i64 {
        chrono::NaiveDateTime::parse_from_str(text, format)
            .expect("test time")
            .and_utc()
            .timestamp_millis()
    }

    #[test]
    fn dates_and_times_agree_with_chrono() {
        for (text, format) in [
            ("2026/11/26 20:37:19.985", "%Y/%m/%d %H:%M:%S%.f"),
            ("2024/02/29 00:00:00.000", "%Y/%m/%d %H:%M:%S%.f"),
            ("1999/12/31 23:59:59.5", "%Y/%m/%d %H:%M:%S%.f"),
            ("2026/01/01 00:00:00", "%Y/%m/%d %H:%M:%S"),
            ("1969/07/20 20:17:40", "%Y/%m/%d %H:%M:%S"),
        ] {
            assert_eq!(timestamp_ms(text), Some((chrono_ms(text, format), false)), "{text}");
        }
        assert_eq!(
            compact_date_ms("20261126").map(|d| d + time_of_day_ms("20:37:19").unwrap_or(0)),
            Some(chrono_ms("2026-11-26 20:37:19", "%Y-%m-%d %H:%M:%S"))
        );
        assert_eq!(
            timestamp_ms("2026-11-26T21:37:19+01:00"),
            Some((chrono_ms("2026-11-26 20:37:19", "%Y-%m-%d %H:%M:%S"), true))
        );
    }

    #[test]
    fn impossible_dates_and_times_are_refused() {
        for text in [
            "2026/02/29 00:00:00",
            "2026/13/01 00:00:00",
            "2026/11/26 24:00:00",
            "2026/11/26 20:60:00",
            "2026/11/26 20:37:19.",
            "2026/11/26 20:37:1x",
            "2026/11-26 20:37:19",
            "",
        ] {
            assert_eq!(timestamp_ms(text), None, "{text}");
        }
        assert_eq!(compact_date_ms("2026112"), None);
        assert_eq!(compact_date_ms("20260230"), None);
        assert!(starts_like_timestamp("2026/11/26 20:37:19.985, NVIDIA H200"));
        assert!(!starts_like_timestamp("timestamp, name"));
    }

    #[test]
    fn percentages_with_units_markers_and_glitches() {
        assert_eq!(percent("45 %"), Ok(Some(45.0)));
        assert_eq!(percent(" 99"), Ok(Some(99.0)));
        assert_eq!(percent("100.5"), Ok(Some(100.0)));
        for missing in ["[N/A]", "[Not Supported]", "-", "", "N/A"] {
            assert_eq!(percent(missing), Ok(None), "{missing}");
        }
        assert!(percent("483953272").is_err_and(|e| e.contains("outside 0–100 %")));
        assert!(percent("-3 %").is_err());
        assert!(percent("NaN").is_err());
        assert!(percent("45 W").is_err_and(|e| e.contains("not a percentage")));
    }

    #[test]
    fn lines_are_bounded_and_numbered() {
        let mut bytes = b"\xef\xbb\xbfa\r\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        bytes.extend_from_slice(b"\nb\n\xff\n");
        let mut seen = Vec::new();
        let set_aside = for_each_line(Path::new("t.txt"), bytes.as_slice(), |n, line| {
            seen.push((n, line.to_string()));
            Ok(())
        })
        .expect("read");
        assert_eq!(seen, vec![(1, "a".to_string()), (3, "b".to_string())]);
        let lines: Vec<(u64, &str)> = set_aside.samples.iter().map(|r| (r.line, r.detail.as_str())).collect();
        assert_eq!(
            lines,
            vec![
                (2, "longer than 65536 bytes: not nvidia-smi output"),
                (4, "not UTF-8 text")
            ]
        );
    }
}
