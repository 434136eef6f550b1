//! Snowflake.

use super::{Dialect, DialectName};

pub struct Snowflake;

impl Dialect for Snowflake {
    fn name(&self) -> DialectName {
        DialectName::Snowflake
    }

    fn try_double(&self, expr: &str) -> String {
        format!("TRY_TO_DOUBLE(CAST({expr} AS VARCHAR))")
    }

    fn epoch_ms(&self, expr: &str, zoned: bool) -> String {
        if zoned {
            format!("DATE_PART(EPOCH_MILLISECOND, {expr})")
        } else {
            format!("DATE_PART(EPOCH_MILLISECOND, CAST({expr} AS TIMESTAMP_NTZ))")
        }
    }

    fn epoch_ms_in_zone(&self, expr: &str, zone: &str) -> Option<String> {
        Some(format!(
            "DATE_PART(EPOCH_MILLISECOND, CONVERT_TIMEZONE({}, 'UTC', CAST({expr} AS TIMESTAMP_NTZ)))",
            self.text(zone)
        ))
    }

    fn try_text_epoch_ms(&self, expr: &str) -> String {
        format!("DATE_PART(EPOCH_MILLISECOND, TRY_TO_TIMESTAMP_TZ(CAST({expr} AS VARCHAR)))")
    }

    fn contains(&self, haystack: &str, text: &str) -> String {
        format!("POSITION({} IN {haystack}) > 0", self.text(text))
    }

    fn is_finite(&self, expr: &str) -> String {
        format!("({expr} NOT IN ('inf'::FLOAT, '-inf'::FLOAT, 'NaN'::FLOAT))")
    }

    fn timestamp_literal(&self, ms: i64, zoned: bool) -> String {
        let text = super::utc_text(ms);
        if zoned {
            format!("CAST('{text} +0000' AS TIMESTAMP_TZ)")
        } else {
            format!("CAST('{text}' AS TIMESTAMP_NTZ)")
        }
    }

    fn bit_or(&self, expr: &str) -> String {
        format!("BITOR_AGG({expr})")
    }

    fn bit_and(&self, a: &str, b: &str) -> String {
        format!("BITAND({a}, {b})")
    }

    fn session_setup(&self) -> Vec<String> {
        vec!["ALTER SESSION SET TIMEZONE = 'UTC'".to_string()]
    }
}
