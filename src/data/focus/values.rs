//! One FOCUS value at a time: date-times, decimals, the allowed names, and the cluster tag of
//! a `Tags` object. Errors are the message only; the caller adds the file, line and column.

use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::data::error::DataError;

/// Empty, `NULL`, `NA` and `N/A` (any case) are null.
pub fn is_null(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || ["null", "na", "n/a"].iter().any(|n| t.eq_ignore_ascii_case(n))
}

/// A date-time as UTC milliseconds: RFC 3339 with `Z` or an offset (`T` or a space between
/// date and time), `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DDTHH:MM:SS` (fractions allowed, read
/// as UTC, also with a trailing ` UTC`), or a bare `YYYY-MM-DD` (midnight UTC).
pub fn parse_time_ms(text: &str) -> Result<i64, DataError> {
    let t = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(t) {
        return Ok(time.timestamp_millis());
    }
    let naive = t.strip_suffix(" UTC").unwrap_or(t);
    for pattern in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"] {
        if let Ok(time) = NaiveDateTime::parse_from_str(naive, pattern) {
            return Ok(time.and_utc().timestamp_millis());
        }
    }
    if let Ok(day) = NaiveDate::parse_from_str(t, "%Y-%m-%d")
        && let Some(midnight) = day.and_hms_opt(0, 0, 0)
    {
        return Ok(midnight.and_utc().timestamp_millis());
    }
    Err(DataError::NotDateTime { text: text.to_string() })
}

/// A decimal (`12.2900000001`, `-3.5`, `1.2E-5`); `None` when null. NaN and infinities are
/// refused: they are not amounts.
pub fn parse_decimal(text: &str) -> Result<Option<f64>, DataError> {
    if is_null(text) {
        return Ok(None);
    }
    let t = text.trim();
    let starts_like_a_number = t
        .trim_start_matches(['-', '+'])
        .starts_with(|c: char| c.is_ascii_digit() || c == '.');
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && starts_like_a_number => Ok(Some(v)),
        _ => Err(DataError::NotDecimal { text: text.to_string() }),
    }
}

/// One of `names` (any case), `None` when null.
pub fn parse_allowed<T: Copy>(
    text: &str,
    parse: impl Fn(&str) -> Option<T>,
    allowed: &str,
) -> Result<Option<T>, DataError> {
    if is_null(text) {
        return Ok(None);
    }
    parse(text).map(Some).ok_or_else(|| DataError::NotAllowed {
        text: text.to_string(),
        allowed: allowed.to_string(),
    })
}

/// Text, `None` when null.
pub fn text(value: &str) -> Option<String> {
    (!is_null(value)).then(|| value.trim().to_string())
}

/// The value of `key` in a `Tags` JSON object (`{"cluster": "us-east-h100"}`); `None` when
/// the tags are null or lack the key. A number or boolean value is taken as its text.
pub fn tag_value(tags: &str, key: &str) -> Result<Option<String>, DataError> {
    if is_null(tags) {
        return Ok(None);
    }
    let mut de = serde_json::Deserializer::from_str(tags);
    let found = FindKey { key }
        .deserialize(&mut de)
        .and_then(|found| de.end().map(|_| found))
        .map_err(|e| DataError::NotTags {
            text: tags.to_string(),
            source: e.into(),
        })?;
    Ok(found.filter(|v| !v.is_empty()))
}

/// Reads a JSON object, keeping only the value of one key (the rest is skipped unread).
struct FindKey<'k> {
    key: &'k str,
}

impl<'de> DeserializeSeed<'de> for FindKey<'_> {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FindKey<'_> {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if found.is_none() && key == self.key {
                found = match map.next_value::<serde_json::Value>()? {
                    serde_json::Value::String(s) => Some(s.trim().to_string()),
                    serde_json::Value::Number(n) => Some(n.to_string()),
                    serde_json::Value::Bool(b) => Some(b.to_string()),
                    _ => None,
                };
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    // The messages, as a user reads them.
    fn parse_time_ms(text: &str) -> Result<i64, String> {
        super::parse_time_ms(text).map_err(|e| e.to_string())
    }

    fn parse_decimal(text: &str) -> Result<Option<f64>, String> {
        super::parse_decimal(text).map_err(|e| e.to_string())
    }

    fn tag_value(tags: &str, key: &str) -> Result<Option<String>, String> {
        super::tag_value(tags, key).map_err(|e| e.to_string())
    }

    #[test]
    fn date_times_in_the_forms_exports_write() {
        let midnight = 1_782_864_000_000; // 2026-07-01T00:00:00Z
        for text in [
            "2026-07-01T00:00:00Z",
            "2026-07-01T02:00:00+02:00",
            "2026-07-01 00:00:00",
            "2026-07-01T00:00:00.000",
            "2026-07-01 00:00:00 UTC",
            "2026-07-01 00:00:00Z",
            "2026-07-01",
        ] {
            assert_eq!(parse_time_ms(text), Ok(midnight), "{text}");
        }
        let err = parse_time_ms("01/07/2026").expect_err("not ISO");
        assert!(err.contains("'01/07/2026' is not a date-time"), "{err}");
    }

    #[test]
    fn decimals_nulls_and_non_numbers() {
        assert_eq!(parse_decimal("12.2900000001"), Ok(Some(12.2900000001)));
        assert_eq!(parse_decimal("-3.5"), Ok(Some(-3.5)));
        assert_eq!(parse_decimal("1.5E-3"), Ok(Some(0.0015)));
        assert_eq!(parse_decimal(".5"), Ok(Some(0.5)));
        for null in ["", "  ", "NULL", "null", "NA", "N/A"] {
            assert_eq!(parse_decimal(null), Ok(None), "{null}");
        }
        for bad in ["$12.00", "1,234.50", "NaN", "inf", "-infinity", "12 USD", "abc"] {
            assert!(parse_decimal(bad).is_err(), "{bad}");
        }
        let long = "9".repeat(100) + "x";
        let err = parse_decimal(&long).expect_err("not a number");
        assert!(err.len() < 200 && err.contains('…'), "{err}");
    }

    #[test]
    fn the_cluster_tag_is_read_from_the_tags_object() {
        let tags = r#"{"team":"ml","cluster":"us-east-h100","nested":{"a":[1,2]}}"#;
        assert_eq!(tag_value(tags, "cluster"), Ok(Some("us-east-h100".to_string())));
        assert_eq!(tag_value(tags, "env"), Ok(None));
        assert_eq!(tag_value(r#"{"cluster": 7}"#, "cluster"), Ok(Some("7".to_string())));
        assert_eq!(tag_value("", "cluster"), Ok(None));
        assert!(tag_value("[1,2]", "cluster").is_err());
        assert!(tag_value(r#"{"cluster":"a"} trailing"#, "cluster").is_err());
        let deep = "[".repeat(10_000);
        assert!(tag_value(&format!("{{\"a\":{deep}"), "cluster").is_err());
    }
}
