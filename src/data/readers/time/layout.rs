//! Recognising how a log writes its times, from a sample of values, so one format is applied
//! to the whole column (trying every format on every row would be slow on big logs).

use chrono::{DateTime, NaiveDate, NaiveDateTime};

/// A strftime pattern; `aware` when it carries a UTC offset (%z).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimePattern {
    pub pattern: String,
    pub aware: bool,
}

/// A time layout found in a sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DetectedTime {
    /// One or more patterns (a column may mix, e.g. `+02:00` and `Z`), tried in order.
    Patterns(Vec<TimePattern>),
    EpochSeconds,
    EpochMillis,
}

/// Common zone abbreviations and their offsets; logs write "2024-03-01 10:00:00 PST".
pub const ZONE_ABBREVIATIONS: &[(&str, &str)] = &[
    ("UTC", "+0000"),
    ("GMT", "+0000"),
    ("PST", "-0800"),
    ("PDT", "-0700"),
    ("MST", "-0700"),
    ("MDT", "-0600"),
    ("CST", "-0600"),
    ("CDT", "-0500"),
    ("EST", "-0500"),
    ("EDT", "-0400"),
    ("CET", "+0100"),
    ("CEST", "+0200"),
    ("BST", "+0100"),
    ("IST", "+0530"),
    ("JST", "+0900"),
];

/// Patterns with an offset, tried first; the spaced forms come first because chrono's `%z`
/// also accepts a leading space, which Polars' parser does not.
const AWARE_PATTERNS: &[&str] = &[
    "%Y-%m-%d %H:%M:%S%.f %z",
    "%Y-%m-%dT%H:%M:%S%.f %z",
    "%Y-%m-%dT%H:%M:%S%.f%:z",
    "%Y-%m-%dT%H:%M:%S%.f%z",
    "%Y-%m-%d %H:%M:%S%.f%:z",
    "%Y-%m-%d %H:%M:%S%.f%z",
];

/// Patterns without an offset (a trailing `Z` is literal UTC).
const NAIVE_PATTERNS: &[&str] = &[
    "%Y-%m-%dT%H:%M:%S%.fZ",
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M",
    "%Y/%m/%d %H:%M:%S",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M",
    "%d.%m.%Y %H:%M:%S",
    "%Y%m%d%H%M%S",
];

const DATE_ONLY: &str = "%Y-%m-%d";

/// Replaces a trailing zone abbreviation by its offset: "… PST" → "… -0800".
pub fn replace_zone_abbreviation(value: &str) -> Option<String> {
    let (head, zone) = value.trim_end().rsplit_once(' ')?;
    ZONE_ABBREVIATIONS
        .iter()
        .find(|(abbr, _)| *abbr == zone)
        .map(|(_, offset)| format!("{head} {offset}"))
}

/// True when the sample's values end with a known zone abbreviation.
pub fn sample_has_zone_abbreviations(sample: &[&str]) -> bool {
    sample.iter().any(|v| replace_zone_abbreviation(v).is_some())
}

/// The literal shape chrono forgives but Polars' parser does not: the same number of spaces,
/// and `%:z` for offsets written `+02:00`, `%z` for `+0200`.
fn shape_matches(pattern: &str, value: &str) -> bool {
    if pattern.matches(' ').count() != value.matches(' ').count() {
        return false;
    }
    let offset_has_colon = value.len() > 6 && value.as_bytes()[value.len() - 3] == b':';
    if pattern.ends_with("%:z") {
        return offset_has_colon;
    }
    if pattern.ends_with("%z") {
        return !offset_has_colon;
    }
    true
}

fn parses(pattern: &str, aware: bool, value: &str) -> bool {
    if !shape_matches(pattern, value) {
        return false;
    }
    if aware {
        DateTime::parse_from_str(value, pattern).is_ok()
    } else if pattern == DATE_ONLY {
        NaiveDate::parse_from_str(value, pattern).is_ok()
    } else {
        NaiveDateTime::parse_from_str(value, pattern).is_ok()
    }
}

/// Most patterns one column may mix.
const MAX_PATTERNS: usize = 3;

/// The layout that reads `sample`: epoch numbers, or the fewest patterns (at most three)
/// that together read the most values; `None` when none reads any.
pub fn detect_time(sample: &[&str]) -> Option<DetectedTime> {
    let values: Vec<String> = sample
        .iter()
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
        .map(|v| replace_zone_abbreviation(v).unwrap_or_else(|| v.to_string()))
        .collect();
    if values.is_empty() {
        return None;
    }
    let numbers: Vec<f64> = values.iter().filter_map(|v| v.parse::<f64>().ok()).collect();
    // All-digit values of 14 characters are YYYYMMDDHHMMSS, not epochs.
    let compact = values
        .iter()
        .all(|v| v.len() == 14 && v.bytes().all(|b| b.is_ascii_digit()));
    if numbers.len() * 2 > values.len() && !compact {
        let max = numbers.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        return Some(if max > 1e11 {
            DetectedTime::EpochMillis
        } else {
            DetectedTime::EpochSeconds
        });
    }
    let candidates: Vec<(&str, bool)> = AWARE_PATTERNS
        .iter()
        .map(|p| (*p, true))
        .chain(NAIVE_PATTERNS.iter().map(|p| (*p, false)))
        .chain(std::iter::once((DATE_ONLY, false)))
        .collect();
    // Greedy cover: the pattern reading most of what is still unread, up to three.
    let mut unread: Vec<&String> = values.iter().collect();
    let mut chosen = Vec::new();
    while !unread.is_empty() && chosen.len() < MAX_PATTERNS {
        let best = candidates
            .iter()
            .map(|&(pattern, aware)| {
                (
                    unread.iter().filter(|v| parses(pattern, aware, v)).count(),
                    pattern,
                    aware,
                )
            })
            .filter(|(hits, _, _)| *hits > 0)
            // The first of equal counts: candidates are in order of preference.
            .fold(None, |best: Option<(usize, &str, bool)>, c| {
                if best.is_some_and(|b| b.0 >= c.0) {
                    best
                } else {
                    Some(c)
                }
            });
        let Some((_, pattern, aware)) = best else { break };
        unread.retain(|v| !parses(pattern, aware, v));
        chosen.push(TimePattern {
            pattern: pattern.to_string(),
            aware,
        });
    }
    (!chosen.is_empty()).then_some(DetectedTime::Patterns(chosen))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(sample: &[&str]) -> String {
        patterns(sample).join(" | ")
    }

    fn patterns(sample: &[&str]) -> Vec<String> {
        match detect_time(sample) {
            Some(DetectedTime::Patterns(found)) => found.into_iter().map(|p| p.pattern).collect(),
            other => panic!("expected patterns, got {other:?}"),
        }
    }

    #[test]
    fn recognises_the_layouts_seen_in_field_logs() {
        assert_eq!(
            pattern(&["2024-03-01T10:00:00Z", "2024-03-01T11:30:00Z"]),
            "%Y-%m-%dT%H:%M:%S%.fZ"
        );
        assert_eq!(pattern(&["2024-03-01T10:00:00+02:00"]), "%Y-%m-%dT%H:%M:%S%.f%:z");
        assert_eq!(pattern(&["2023-11-16 18:17:03.9799600"]), "%Y-%m-%d %H:%M:%S%.f");
        assert_eq!(pattern(&["2017-10-07 01:12:09"]), "%Y-%m-%d %H:%M:%S%.f");
        assert_eq!(pattern(&["03/01/2024 10:00:00"]), "%m/%d/%Y %H:%M:%S");
        assert_eq!(pattern(&["2024-03-01 10:00:00 PST"]), "%Y-%m-%d %H:%M:%S%.f %z");
        assert_eq!(pattern(&["20240301100000"]), "%Y%m%d%H%M%S");
    }

    #[test]
    fn a_column_mixing_offsets_and_z_gets_both_patterns() {
        let found = patterns(&[
            "2024-03-01T10:00:00+02:00",
            "2024-03-01T08:00:00Z",
            "2024-03-01T09:00:00+02:00",
        ]);
        assert_eq!(
            found,
            vec![
                "%Y-%m-%dT%H:%M:%S%.f%:z".to_string(),
                "%Y-%m-%dT%H:%M:%S%.fZ".to_string()
            ]
        );
    }

    #[test]
    fn numbers_are_epochs_by_magnitude() {
        assert_eq!(
            detect_time(&["1709287200", "1709290800"]),
            Some(DetectedTime::EpochSeconds)
        );
        assert_eq!(detect_time(&["1709287200000"]), Some(DetectedTime::EpochMillis));
        assert_eq!(detect_time(&["0", "3600.5"]), Some(DetectedTime::EpochSeconds));
    }

    #[test]
    fn nothing_readable_is_none() {
        assert_eq!(detect_time(&["soon", "later"]), None);
        assert_eq!(detect_time(&["", "  "]), None);
    }

    #[test]
    fn zone_abbreviations_become_offsets() {
        assert_eq!(
            replace_zone_abbreviation("2024-03-01 10:00:00 PST").as_deref(),
            Some("2024-03-01 10:00:00 -0800")
        );
        assert_eq!(replace_zone_abbreviation("2024-03-01 10:00:00"), None);
    }
}
