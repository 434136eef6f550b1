//! Spark SQL: Databricks and Spark itself, and Sail (Spark SQL on DataFusion, served over
//! Flight SQL), whose session is always UTC and refuses Spark's setting of it.

use super::{Dialect, DialectName};

pub struct Spark;

impl Dialect for Spark {
    fn name(&self) -> DialectName {
        DialectName::Spark
    }

    fn quote(&self, name: &str) -> String {
        format!("`{}`", name.replace('`', "``"))
    }

    fn text(&self, text: &str) -> String {
        format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
    }

    fn text_type(&self) -> &'static str {
        "STRING"
    }

    fn try_double(&self, expr: &str) -> String {
        format!("TRY_CAST({expr} AS DOUBLE)")
    }

    /// A double cast to BIGINT drops its fraction in Spark.
    fn truncate_to_bigint(&self, expr: &str) -> String {
        format!("CAST({expr} AS BIGINT)")
    }

    fn epoch_ms(&self, expr: &str, _zoned: bool) -> String {
        // The session's zone is UTC (`session_setup`), so a timestamp without zone reads as UTC.
        format!("UNIX_MILLIS(CAST({expr} AS TIMESTAMP))")
    }

    fn epoch_ms_in_zone(&self, expr: &str, zone: &str) -> Option<String> {
        Some(format!(
            "UNIX_MILLIS(TO_UTC_TIMESTAMP(CAST({expr} AS TIMESTAMP), {}))",
            self.text(zone)
        ))
    }

    fn try_text_epoch_ms(&self, expr: &str) -> String {
        format!("UNIX_MILLIS(TRY_CAST({expr} AS TIMESTAMP))")
    }

    fn contains(&self, haystack: &str, text: &str) -> String {
        format!("INSTR({haystack}, {}) > 0", self.text(text))
    }

    fn int_div(&self, numerator: &str, denominator: &str) -> String {
        format!("(({numerator}) DIV {denominator})")
    }

    fn is_finite(&self, expr: &str) -> String {
        format!("NOT (ISNAN({expr}) OR ABS({expr}) = DOUBLE('Infinity'))")
    }

    /// The session is UTC: one literal serves timestamps with and without a zone.
    fn timestamp_literal(&self, ms: i64, _zoned: bool) -> String {
        format!("TIMESTAMP '{}'", super::utc_text(ms))
    }

    fn session_setup(&self) -> Vec<String> {
        vec!["SET spark.sql.session.timeZone = UTC".to_string()]
    }
}

/// Sail: Spark SQL whose session is UTC already.
pub struct Sail;

impl Dialect for Sail {
    fn name(&self) -> DialectName {
        DialectName::Sail
    }

    fn quote(&self, name: &str) -> String {
        Spark.quote(name)
    }

    fn text(&self, text: &str) -> String {
        Spark.text(text)
    }

    fn text_type(&self) -> &'static str {
        Spark.text_type()
    }

    fn try_double(&self, expr: &str) -> String {
        Spark.try_double(expr)
    }

    fn truncate_to_bigint(&self, expr: &str) -> String {
        Spark.truncate_to_bigint(expr)
    }

    fn epoch_ms(&self, expr: &str, zoned: bool) -> String {
        Spark.epoch_ms(expr, zoned)
    }

    fn epoch_ms_in_zone(&self, expr: &str, zone: &str) -> Option<String> {
        Spark.epoch_ms_in_zone(expr, zone)
    }

    fn try_text_epoch_ms(&self, expr: &str) -> String {
        Spark.try_text_epoch_ms(expr)
    }

    fn contains(&self, haystack: &str, text: &str) -> String {
        Spark.contains(haystack, text)
    }

    fn int_div(&self, numerator: &str, denominator: &str) -> String {
        Spark.int_div(numerator, denominator)
    }

    fn is_finite(&self, expr: &str) -> String {
        Spark.is_finite(expr)
    }

    fn timestamp_literal(&self, ms: i64, zoned: bool) -> String {
        Spark.timestamp_literal(ms, zoned)
    }

    fn session_setup(&self) -> Vec<String> {
        Vec::new()
    }
}
