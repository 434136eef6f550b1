//! Formatted times to UTC milliseconds, fast: most logs write ISO 8601
//! (`2026-06-27T23:57:27Z`, `2026-06-27 23:57:27.125+02:00`), which a byte-level reader handles
//! in a few nanoseconds a value. Any value it does not take (one-digit fields, leap seconds,
//! odd spacing, other patterns) goes to chrono with the pattern compiled once, so every value
//! reads exactly as `chrono::NaiveDateTime::parse_from_str(value, pattern)` (or
//! `DateTime::parse_from_str` for patterns with an offset) would read it.
//!
//! Polars' own `str.to_datetime` gives the same values but, for patterns outside its short
//! list of fast formats, re-reads the pattern for every value: on a 10-million-row log that
//! was an eighth of the audit.

use chrono::format::{Item, Parsed, StrftimeItems, parse};
use polars::prelude::*;

use super::layout::TimePattern;
use crate::data::error::DataError;

/// How a value ends after the clock time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Zone {
    /// No zone: the time is read as UTC (or as the mapping's zone, applied afterwards).
    Naive,
    /// A literal `Z`, read as UTC.
    LiteralZ,
    /// An offset `+hhmm` (`%z`), `+hh:mm` (`%:z`), optionally after one space.
    Offset { space: bool, colon: bool },
}

/// The ISO 8601 layouts the byte-level reader takes: `%Y-%m-%d`, a `T` or space, `%H:%M`,
/// optionally `:%S`, optionally `%.f`, then the zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct IsoLayout {
    separator: u8,
    seconds: bool,
    fraction: bool,
    zone: Zone,
}

impl IsoLayout {
    fn of(pattern: &str) -> Option<IsoLayout> {
        let rest = pattern.strip_prefix("%Y-%m-%d")?;
        let (separator, rest) = match rest.as_bytes().first()? {
            b'T' => (b'T', &rest[1..]),
            b' ' => (b' ', &rest[1..]),
            _ => return None,
        };
        let rest = rest.strip_prefix("%H:%M")?;
        let (seconds, rest) = match rest.strip_prefix(":%S") {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        let (fraction, rest) = match rest.strip_prefix("%.f") {
            Some(rest) if seconds => (true, rest),
            Some(_) => return None,
            None => (false, rest),
        };
        let zone = match rest {
            "" => Zone::Naive,
            "Z" => Zone::LiteralZ,
            _ => {
                let (space, offset) = match rest.strip_prefix(' ') {
                    Some(offset) => (true, offset),
                    None => (false, rest),
                };
                let colon = match offset {
                    "%z" => false,
                    "%:z" => true,
                    _ => return None,
                };
                Zone::Offset { space, colon }
            }
        };
        Some(IsoLayout {
            separator,
            seconds,
            fraction,
            zone,
        })
    }

    /// UTC milliseconds of `value`, or `None` when it is not in this exact canonical layout
    /// (chrono then decides).
    fn read(&self, value: &[u8]) -> Option<i64> {
        let mut at = Cursor { bytes: value, pos: 0 };
        let year = at.digits(4)? as i32;
        at.byte(b'-')?;
        let month = at.digits(2)?;
        at.byte(b'-')?;
        let day = at.digits(2)?;
        at.byte(self.separator)?;
        let hour = at.digits(2)?;
        at.byte(b':')?;
        let minute = at.digits(2)?;
        let second = if self.seconds {
            at.byte(b':')?;
            at.digits(2)?
        } else {
            0
        };
        let mut millis = 0;
        if self.fraction && at.peek() == Some(b'.') {
            at.pos += 1;
            let start = at.pos;
            while at.peek().is_some_and(|b| b.is_ascii_digit()) {
                at.pos += 1;
            }
            let digits = &value[start..at.pos];
            if digits.is_empty() || digits.len() > 9 {
                return None;
            }
            for place in 0..3 {
                millis = millis * 10 + digits.get(place).map_or(0, |d| i64::from(d - b'0'));
            }
        }
        let offset_minutes = match self.zone {
            Zone::Naive => 0,
            Zone::LiteralZ => {
                at.byte(b'Z')?;
                0
            }
            Zone::Offset { space, colon } => {
                if space {
                    at.byte(b' ')?;
                }
                let sign = match at.next()? {
                    b'+' => 1,
                    b'-' => -1,
                    _ => return None,
                };
                let hours = at.digits(2)?;
                if colon {
                    at.byte(b':')?;
                }
                let minutes = at.digits(2)?;
                if hours > 23 || minutes > 59 {
                    return None;
                }
                sign * (hours * 60 + minutes) as i64
            }
        };
        if at.pos != value.len()
            || !(1..=12).contains(&month)
            || day == 0
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 59
        {
            return None;
        }
        let days = days_from_civil(year, month, day);
        let seconds = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second) - offset_minutes * 60;
        Some(seconds * 1000 + millis)
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.pos += 1;
        Some(byte)
    }

    #[inline]
    fn byte(&mut self, expected: u8) -> Option<()> {
        (self.next()? == expected).then_some(())
    }

    #[inline]
    fn digits(&mut self, count: usize) -> Option<u32> {
        let mut number = 0;
        for _ in 0..count {
            let byte = self.next()?;
            if !byte.is_ascii_digit() {
                return None;
            }
            number = number * 10 + u32::from(byte - b'0');
        }
        Some(number)
    }
}

fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date, `None` when it is none (month 13, 30 February).
pub(crate) fn days_of_date(year: i32, month: u32, day: u32) -> Option<i64> {
    ((1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month))
        .then(|| days_from_civil(year, month, day))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i32, month: u32, day: u32) -> i64 {
    let year = i64::from(year) - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month = i64::from(month);
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// One pattern, ready to read many values.
pub struct TimeReader {
    items: Vec<Item<'static>>,
    aware: bool,
    iso: Option<IsoLayout>,
    /// Tried on a value this pattern does not read (`read_column` only: `read_ms` stays
    /// exactly chrono's reading of the pattern).
    fallback: Option<Box<TimeReader>>,
}

impl TimeReader {
    pub fn new(pattern: &TimePattern) -> Result<TimeReader, DataError> {
        let items = StrftimeItems::new(&pattern.pattern)
            .parse_to_owned()
            .map_err(|source| DataError::TimePattern {
                pattern: pattern.pattern.clone(),
                source,
            })?;
        let iso = IsoLayout::of(&pattern.pattern)
            .filter(|layout| matches!(layout.zone, Zone::Offset { .. }) == pattern.aware);
        Ok(TimeReader {
            items,
            aware: pattern.aware,
            iso,
            fallback: None,
        })
    }

    /// The reader, trying `fallback` on the values its own pattern does not read.
    pub fn with_fallback(pattern: &TimePattern, fallback: Option<&TimePattern>) -> Result<TimeReader, DataError> {
        let mut reader = TimeReader::new(pattern)?;
        reader.fallback = match fallback {
            Some(fallback) => Some(Box::new(TimeReader::new(fallback)?)),
            None => None,
        };
        Ok(reader)
    }

    /// UTC milliseconds (naive patterns: the wall time read as UTC), or `None` when the value
    /// does not match the pattern or names no valid time.
    pub fn read_ms(&self, value: &str) -> Option<i64> {
        if let Some(ms) = self.iso.and_then(|layout| layout.read(value.as_bytes())) {
            return Some(ms);
        }
        let mut parsed = Parsed::new();
        parse(&mut parsed, value, self.items.iter()).ok()?;
        if self.aware {
            return parsed.to_datetime().ok().map(|time| time.timestamp_millis());
        }
        match parsed.to_naive_datetime_with_offset(0) {
            Ok(time) => Some(time.and_utc().timestamp_millis()),
            // A date-only pattern: midnight.
            Err(_) if parsed.hour_div_12().is_none() => parsed
                .to_naive_date()
                .ok()
                .and_then(|date| date.and_hms_opt(0, 0, 0))
                .map(|time| time.and_utc().timestamp_millis()),
            Err(_) => None,
        }
    }

    fn read_column(&self, text: &StringChunked) -> Int64Chunked {
        text.iter()
            .map(|value| {
                let value = value?;
                self.read_ms(value).or_else(|| self.fallback.as_ref()?.read_ms(value))
            })
            .collect()
    }
}

/// `text` (a string expression) read with `pattern` into naive UTC milliseconds
/// (`Datetime(ms)`), a value it does not read with `fallback`; values neither reads are null.
pub fn read_times(text: Expr, pattern: &TimePattern, fallback: Option<&TimePattern>) -> Result<Expr, DataError> {
    let reader = std::sync::Arc::new(TimeReader::with_fallback(pattern, fallback)?);
    let dtype = DataType::Datetime(TimeUnit::Milliseconds, None);
    let output = dtype.clone();
    Ok(text.map(
        move |column| {
            let text = column.cast(&DataType::String)?;
            let millis = reader.read_column(text.str()?);
            Ok(millis.into_datetime(TimeUnit::Milliseconds, None).into_column())
        },
        move |_, field| Ok(Field::new(field.name().clone(), output.clone())),
    ))
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, NaiveDate, NaiveDateTime};

    use super::*;

    fn reader(pattern: &str) -> TimeReader {
        TimeReader::new(&TimePattern {
            pattern: pattern.to_string(),
            aware: pattern.contains("%z") || pattern.contains("%:z"),
        })
        .expect("pattern")
    }

    /// What chrono alone reads, the reference the fast reader must equal.
    fn chrono_ms(pattern: &str, value: &str) -> Option<i64> {
        if pattern.contains('z') {
            DateTime::parse_from_str(value, pattern)
                .ok()
                .map(|t| t.timestamp_millis())
        } else if !pattern.contains("%H") {
            NaiveDate::parse_from_str(value, pattern)
                .ok()
                .map(|d| d.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp_millis())
        } else {
            NaiveDateTime::parse_from_str(value, pattern)
                .ok()
                .map(|t| t.and_utc().timestamp_millis())
        }
    }

    #[test]
    fn iso_layouts_are_recognised_only_when_exact() {
        assert!(IsoLayout::of("%Y-%m-%dT%H:%M:%S%.fZ").is_some());
        assert!(IsoLayout::of("%Y-%m-%d %H:%M:%S%.f %z").is_some());
        assert!(IsoLayout::of("%Y-%m-%dT%H:%M").is_some());
        assert_eq!(IsoLayout::of("%Y/%m/%d %H:%M:%S"), None);
        assert_eq!(IsoLayout::of("%Y-%m-%dT%H:%M:%S %Z"), None);
        assert_eq!(IsoLayout::of("%Y-%m-%dT%H:%M%.f"), None);
    }

    #[test]
    fn known_values_read_to_the_millisecond() {
        let r = reader("%Y-%m-%dT%H:%M:%S%.fZ");
        assert_eq!(r.read_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(r.read_ms("2026-06-27T23:57:27Z"), Some(1_782_604_647_000));
        assert_eq!(r.read_ms("2026-06-27T23:57:27.1259Z"), Some(1_782_604_647_125));
        assert_eq!(r.read_ms("1969-12-31T23:59:59.5Z"), Some(-500));
        assert_eq!(r.read_ms("2026-02-29T00:00:00Z"), None, "not a leap year");
        assert_eq!(r.read_ms("2026-06-27T23:57:27"), None, "the Z is part of the pattern");
        let aware = reader("%Y-%m-%dT%H:%M:%S%.f%:z");
        assert_eq!(aware.read_ms("2026-06-28T01:57:27+02:00"), Some(1_782_604_647_000));
        assert_eq!(aware.read_ms("2026-06-27T18:57:27-05:00"), Some(1_782_604_647_000));
    }

    #[test]
    fn every_value_reads_as_chrono_reads_it() {
        let patterns = [
            "%Y-%m-%dT%H:%M:%S%.fZ",
            "%Y-%m-%dT%H:%M:%S%.f",
            "%Y-%m-%d %H:%M:%S%.f",
            "%Y-%m-%dT%H:%M",
            "%Y-%m-%d %H:%M:%S%.f %z",
            "%Y-%m-%dT%H:%M:%S%.f%:z",
            "%Y-%m-%dT%H:%M:%S%.f%z",
            "%m/%d/%Y %H:%M",
            "%Y%m%d%H%M%S",
            "%Y-%m-%d",
        ];
        let values = [
            "2024-02-29T12:34:56Z",
            "2024-02-29T12:34:56.987654321Z",
            "2024-02-29T12:34:56.9876543210Z",
            "2024-02-29T12:34:56.Z",
            "2024-2-9T1:04:05Z",
            "2023-02-29T00:00:00Z",
            "2024-12-31T23:59:60Z",
            "2024-12-31T24:00:00Z",
            "2024-04-31 10:00:00",
            "2024-04-30 10:00:00.5",
            "2024-04-30T10:00",
            "2024-04-30T10:00:00",
            "2024-04-30 10:00:00 +0530",
            "2024-04-30 10:00:00 +05:30",
            "2024-04-30 10:00:00 -2400",
            "2024-04-30T10:00:00.25+05:30",
            "2024-04-30T10:00:00+0530",
            "2024-04-30T10:00:00-00:00",
            "1899-12-31T23:59:59.999-01:00",
            "04/30/2024 10:00",
            "20240430100000",
            "2024-04-30",
            "",
            "not a time",
            "2024-04-30T10:00:00Zjunk",
        ];
        for pattern in patterns {
            let r = reader(pattern);
            for value in values {
                assert_eq!(r.read_ms(value), chrono_ms(pattern, value), "{pattern} on {value:?}");
            }
        }
    }

    #[test]
    fn a_column_read_as_utc_takes_any_rfc_3339_offset_through_its_fallback() {
        let z = TimePattern {
            pattern: "%Y-%m-%dT%H:%M:%S%.fZ".into(),
            aware: false,
        };
        let offset = TimePattern {
            pattern: "%Y-%m-%dT%H:%M:%S%.f%:z".into(),
            aware: true,
        };
        let reader = TimeReader::with_fallback(&z, Some(&offset)).expect("reader");
        let text = StringChunked::from_iter_values(
            "t".into(),
            [
                "2025-01-03T04:00:00Z",
                "2025-01-03T18:00:00+14:00",
                "2025-01-02T16:00:00-12:00",
            ]
            .into_iter(),
        );
        let four = 1_735_876_800_000;
        let read: Vec<Option<i64>> = reader.read_column(&text).iter().collect();
        assert_eq!(read, vec![Some(four); 3]);
        // The pattern alone still reads exactly as chrono does.
        assert_eq!(reader.read_ms("2025-01-03T18:00:00+14:00"), None);
    }

    #[test]
    fn random_iso_values_read_as_chrono_reads_them() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let r = reader("%Y-%m-%dT%H:%M:%S%.f%:z");
        for _ in 0..20_000 {
            let value = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:0width$}{}{:02}:{:02}",
                1600 + next(800),
                next(14),
                next(33),
                next(25),
                next(61),
                next(61),
                next(1000),
                if next(2) == 0 { '+' } else { '-' },
                next(25),
                next(61),
                width = 1 + next(4) as usize,
            );
            assert_eq!(
                r.read_ms(&value),
                chrono_ms("%Y-%m-%dT%H:%M:%S%.f%:z", &value),
                "{value}"
            );
        }
    }
}
