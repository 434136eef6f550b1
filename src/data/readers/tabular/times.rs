//! Time columns into UTC milliseconds: the layout named by the mapping or recognised from a sample
//! of the column's values, epoch numbers from an origin, and a naive time's zone.

use polars::prelude::*;

use super::err;
use super::fields::is_numeric;
use crate::data::error::DataError;
use crate::data::readers::mapping::{Mapping, TimeFormat};
use crate::data::readers::time::layout::{
    DetectedTime, TimePattern, ZONE_ABBREVIATIONS, detect_time, sample_has_zone_abbreviations,
};
use crate::data::readers::time::parse::read_times;

/// Values read to recognise a time column's layout.
const TIME_SAMPLE_ROWS: u32 = 500;

pub(super) const MS: DataType = DataType::Datetime(TimeUnit::Milliseconds, None);

fn epoch_expr(numbers: Expr, millis_per_unit: f64, origin_ms: i64) -> Expr {
    (numbers * lit(millis_per_unit) + lit(origin_ms as f64))
        .cast(DataType::Int64)
        .cast(MS)
}

pub(super) fn parse_origin(origin: &str) -> Result<i64, DataError> {
    chrono::DateTime::parse_from_rfc3339(origin)
        .map(|t| t.timestamp_millis())
        .map_err(|source| DataError::TimeOrigin {
            value: origin.to_string(),
            source,
        })
}

/// The first non-empty values of a column, to recognise its layout. Reads a bounded head of
/// the file (so the scan stops early), growing it when the head holds no values: logs whose
/// first thousands of rows leave a column empty still get it recognised.
fn sample_values(lf: &LazyFrame, source: &str) -> Result<Vec<String>, DataError> {
    for head_rows in [2_000u32, 200_000, u32::MAX] {
        let head = if head_rows == u32::MAX {
            lf.clone()
        } else {
            lf.clone().limit(head_rows)
        };
        let sample = head
            .select([col(source).cast(DataType::String)])
            .drop_nulls(None)
            .limit(TIME_SAMPLE_ROWS)
            .collect()
            .map_err(err)?;
        let column = sample.column(source).map_err(err)?.str().map_err(err)?.clone();
        let values: Vec<String> = column.iter().flatten().map(str::to_string).collect();
        if !values.is_empty() {
            return Ok(values);
        }
    }
    Ok(Vec::new())
}

/// The expression turning `source` into UTC milliseconds, per the mapping's time unit.
pub(super) fn time_field(field: &str, lf: &LazyFrame, mapping: &Mapping, schema: &Schema) -> Result<Expr, DataError> {
    let Some(source) = mapping.columns.get(field) else {
        if let Some(value) = mapping.constants.get(field) {
            return Err(DataError::TimeConstant {
                field: field.to_string(),
                value: value.clone(),
            });
        }
        return Ok(lit(NULL).cast(MS));
    };
    let dtype = schema.get(source.as_str()).cloned().unwrap_or(DataType::String);
    let column = col(source.as_str());
    let origin_ms = match &mapping.units.time_origin {
        Some(origin) => parse_origin(origin)?,
        None => 0,
    };
    if let DataType::Datetime(_, tz) = &dtype {
        let utc = if tz.is_some() {
            column.dt().replace_time_zone(None, lit("raise"), NonExistent::Raise)
        } else {
            column
        };
        return Ok(utc.cast(MS));
    }
    if matches!(dtype, DataType::Date) {
        return Ok(column.cast(MS));
    }
    let numbers = || {
        if is_numeric(&dtype) {
            column.clone().cast(DataType::Float64)
        } else {
            column.clone().cast(DataType::String).cast(DataType::Float64)
        }
    };
    // The column's first values, read once: they name the layout and show zone abbreviations.
    let needs_sample = match &mapping.units.time {
        TimeFormat::Auto => true,
        TimeFormat::Pattern(pattern) => pattern.contains('z'),
        _ => false,
    };
    let sample = if needs_sample {
        sample_values(lf, source)?
    } else {
        Vec::new()
    };
    let refs: Vec<&str> = sample.iter().map(String::as_str).collect();
    let detected = match &mapping.units.time {
        TimeFormat::EpochS => DetectedTime::EpochSeconds,
        TimeFormat::EpochMs => DetectedTime::EpochMillis,
        TimeFormat::OffsetS => return Ok(epoch_expr(numbers(), 1e3, origin_ms)),
        TimeFormat::Pattern(pattern) => DetectedTime::Patterns(vec![TimePattern {
            pattern: pattern.clone(),
            aware: pattern.contains("%z") || pattern.contains("%:z"),
        }]),
        TimeFormat::Auto if is_numeric(&dtype) => detect_time(&refs).unwrap_or(DetectedTime::EpochSeconds),
        TimeFormat::Auto => match detect_time(&refs) {
            Some(found) => found,
            None if sample.is_empty() => return Ok(lit(NULL).cast(MS)),
            None => {
                return Err(DataError::NoTimeLayout {
                    column: source.clone(),
                    sample: sample.first().cloned().unwrap_or_default(),
                });
            }
        },
    };
    Ok(match detected {
        DetectedTime::EpochSeconds => epoch_expr(numbers(), 1e3, origin_ms),
        DetectedTime::EpochMillis => epoch_expr(numbers(), 1.0, origin_ms),
        DetectedTime::Patterns(patterns) => {
            let mut text = column.cast(DataType::String).str().strip_chars(lit(NULL));
            if patterns.iter().any(|p| p.aware) {
                // Zone abbreviations ("PST") become offsets the parser reads.
                if sample_has_zone_abbreviations(&refs) {
                    for (abbreviation, offset) in ZONE_ABBREVIATIONS {
                        text = text
                            .str()
                            .replace(lit(format!(" {abbreviation}$")), lit(format!(" {offset}")), false);
                    }
                }
            }
            let parsed: Vec<Expr> = patterns
                .iter()
                .map(|p| parse_with_pattern(text.clone(), p, mapping.units.time_zone.as_deref()))
                .collect::<Result<_, _>>()?;
            if parsed.len() == 1 {
                parsed.into_iter().next().unwrap_or_else(|| lit(NULL).cast(MS))
            } else {
                coalesce(&parsed)
            }
        }
    })
}

/// ISO 8601 in UTC with a `Z`, and with an offset: both name the instant, so a column
/// recognised as one reads the other too. The layout is recognised from the first values; an
/// offset first seen on a later row (`+14:00`, `-12:00`) is still read, not set aside.
const UTC_Z: &str = "%Y-%m-%dT%H:%M:%S%.fZ";
const UTC_OFFSET: &str = "%Y-%m-%dT%H:%M:%S%.f%:z";

/// The other of `UTC_Z` and `UTC_OFFSET`, for a column whose values name instants (no zone of
/// the mapping applied afterwards).
fn instant_fallback(pattern: &TimePattern, time_zone: Option<&str>) -> Option<TimePattern> {
    if !matches!(time_zone, None | Some("UTC") | Some("utc")) {
        return None;
    }
    match pattern.pattern.as_str() {
        UTC_Z => Some(TimePattern {
            pattern: UTC_OFFSET.into(),
            aware: true,
        }),
        UTC_OFFSET => Some(TimePattern {
            pattern: UTC_Z.into(),
            aware: false,
        }),
        _ => None,
    }
}

/// One strftime pattern applied to a text column, giving naive UTC milliseconds.
fn parse_with_pattern(text: Expr, pattern: &TimePattern, time_zone: Option<&str>) -> Result<Expr, DataError> {
    let read = read_times(text, pattern, instant_fallback(pattern, time_zone).as_ref())?;
    if pattern.aware {
        return Ok(read);
    }
    Ok(match time_zone {
        None | Some("UTC") | Some("utc") => read,
        Some(zone) => {
            let zone = TimeZone::opt_try_new(Some(zone))
                .map_err(|source| DataError::TimeZone {
                    zone: zone.to_string(),
                    source,
                })?
                .unwrap_or(TimeZone::UTC);
            read.dt()
                .replace_time_zone(Some(zone), lit("earliest"), NonExistent::Null)
                .dt()
                .convert_time_zone(TimeZone::UTC)
                .dt()
                .replace_time_zone(None, lit("raise"), NonExistent::Raise)
        }
    })
}
