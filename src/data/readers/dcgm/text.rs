//! DCGM exports as text: a CSV line's fields, the names each column goes by, and a sample's
//! value and time.

use std::borrow::Cow;

use chrono::{DateTime, NaiveDateTime};

use super::UtilMetric;

/// How far above the top of its range a value may be before it is rejected (then clamped).
pub(crate) const RANGE_SLACK_FRAC: f64 = 0.01;

pub(super) const TIME_NAMES: &[&str] = &["time", "timestamp", "ts", "datetime", "date", "_time"];
pub(super) const HOST_NAMES: &[&str] = &["host", "hostname", "instance", "node", "nodename", "node_name"];
pub(super) const GPU_NAMES: &[&str] = &["gpu", "gpu_id", "gpu_index", "gpuid", "device", "gpu_uuid", "uuid"];
pub(super) const METRIC_NAMES: &[&str] = &["metric", "metric_name", "__name__", "field", "name"];
pub(super) const VALUE_NAMES: &[&str] = &["value", "val", "_value"];

/// A line of the file and its 1-based number.
pub(super) type NumberedLine<'a> = (u64, &'a str);

/// The first non-blank line (BOM removed) and the lines after it, numbered.
pub(super) fn header_and_rows(text: &str) -> Option<(NumberedLine<'_>, impl Iterator<Item = NumberedLine<'_>>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i as u64 + 1, l));
    let header = lines.by_ref().find(|(_, l)| !l.trim().is_empty())?;
    Some((header, lines.filter(|(_, l)| !l.trim().is_empty())))
}

pub(super) fn header_names(header: &str) -> Vec<String> {
    let header = header.trim_start_matches('\u{feff}');
    let mut names: Vec<String> = split_csv(header)
        .unwrap_or_else(|| header.split(',').map(Cow::Borrowed).collect())
        .iter()
        .map(|n| n.trim().to_string())
        .collect();
    // A trailing comma leaves an empty last name.
    while names.len() > 1 && names.last().is_some_and(|n| n.is_empty()) {
        names.pop();
    }
    names
}

/// The row's fields when it has `expected` of them; extra fields are tolerated when empty
/// (trailing commas), missing ones are not.
fn split_fields(line: &str, expected: usize) -> Option<Vec<Cow<'_, str>>> {
    let mut fields = split_csv(line)?;
    while fields.len() > expected && fields.last().is_some_and(|f| f.trim().is_empty()) {
        fields.pop();
    }
    (fields.len() == expected).then_some(fields)
}

/// A data line's fields, or what is wrong with its shape.
pub(super) fn record_fields(line: &str, expected: usize) -> Result<Vec<Cow<'_, str>>, String> {
    split_fields(line, expected).ok_or_else(|| {
        format!(
            "expected {expected} comma-separated fields, found {}",
            count_fields(line)
        )
    })
}

fn count_fields(line: &str) -> usize {
    split_csv(line).map_or_else(|| line.split(',').count(), |f| f.len())
}

/// Splits one CSV line on commas, honouring double quotes (`""` inside quotes is a quote).
/// `None` for an unterminated quote.
pub(super) fn split_csv(line: &str) -> Option<Vec<Cow<'_, str>>> {
    if !line.contains('"') {
        return Some(line.split(',').map(Cow::Borrowed).collect());
    }
    let mut fields = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                current.push('"');
                chars.next();
            }
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => fields.push(Cow::Owned(std::mem::take(&mut current))),
            _ => current.push(c),
        }
    }
    if in_quotes {
        return None;
    }
    fields.push(Cow::Owned(current));
    Some(fields)
}

pub(super) fn is_null_marker(value: &str) -> bool {
    value.is_empty()
        || ["na", "n/a", "null", "none"]
            .iter()
            .any(|m| value.eq_ignore_ascii_case(m))
}

/// A sample as a 0–1 fraction; `Ok(None)` for a null marker; `Err` with the reason otherwise.
pub(super) fn parse_util(raw: &str, metric: UtilMetric) -> Result<Option<f64>, String> {
    if is_null_marker(raw) {
        return Ok(None);
    }
    let value: f64 = raw.parse().map_err(|_| format!("value \"{raw}\" is not a number"))?;
    if !value.is_finite() {
        return Err(format!("value \"{raw}\" is not a finite number"));
    }
    let (frac, range) = if metric.is_percent() {
        (value / 100.0, "0–100 %")
    } else {
        (value, "0–1")
    };
    if !(0.0..=1.0 + RANGE_SLACK_FRAC).contains(&frac) {
        return Err(format!("value \"{raw}\" is outside {range} for {}", metric.dcgm_name()));
    }
    Ok(Some(frac.min(1.0)))
}

/// A sample time as UTC milliseconds. See the module notes for the forms read.
pub(super) fn parse_sample_time_ms(raw: &str) -> Option<i64> {
    let s = raw.trim();
    if s.is_empty() {
        return None;
    }
    if let Ok(number) = s.parse::<f64>() {
        if !number.is_finite() {
            return None;
        }
        // Epoch seconds now are ~1.7e9; 1e11 seconds is the year 5138, so larger numbers are ms.
        let ms = if number.abs() >= 1e11 { number } else { number * 1000.0 };
        return Some(ms.round() as i64);
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.timestamp_millis());
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%d %H:%M:%S%.f%z"] {
        if let Ok(t) = DateTime::parse_from_str(s, format) {
            return Some(t.timestamp_millis());
        }
    }
    let naive = ["Z", " UTC", " GMT", "UTC"]
        .iter()
        .find_map(|suffix| s.strip_suffix(suffix))
        .unwrap_or(s);
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(naive.trim(), format).ok())
        .map(|t| t.and_utc().timestamp_millis())
}
