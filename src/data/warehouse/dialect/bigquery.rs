//! BigQuery (GoogleSQL): backquoted names, backslash escapes, no VALUES lists.

use super::{Dialect, DialectName};

pub struct BigQuery;

impl Dialect for BigQuery {
    fn name(&self) -> DialectName {
        DialectName::Bigquery
    }

    fn quote(&self, name: &str) -> String {
        format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
    }

    fn text(&self, text: &str) -> String {
        format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
    }

    fn text_type(&self) -> &'static str {
        "STRING"
    }

    fn bigint_type(&self) -> &'static str {
        "INT64"
    }

    fn double_type(&self) -> &'static str {
        "FLOAT64"
    }

    fn try_double(&self, expr: &str) -> String {
        format!("SAFE_CAST({expr} AS FLOAT64)")
    }

    fn epoch_ms(&self, expr: &str, zoned: bool) -> String {
        // A DATETIME (no zone) is read as UTC.
        if zoned {
            format!("UNIX_MILLIS({expr})")
        } else {
            format!("UNIX_MILLIS(TIMESTAMP({expr}, 'UTC'))")
        }
    }

    fn epoch_ms_in_zone(&self, expr: &str, zone: &str) -> Option<String> {
        Some(format!("UNIX_MILLIS(TIMESTAMP({expr}, {}))", self.text(zone)))
    }

    fn try_text_epoch_ms(&self, expr: &str) -> String {
        format!("UNIX_MILLIS(SAFE_CAST({expr} AS TIMESTAMP))")
    }

    fn int_div(&self, numerator: &str, denominator: &str) -> String {
        format!("DIV(({numerator}), {denominator})")
    }

    fn is_finite(&self, expr: &str) -> String {
        format!("NOT (IS_INF({expr}) OR IS_NAN({expr}))")
    }

    fn counter_table(&self, n: u32, _alias: &str, column: &str) -> String {
        let values: Vec<String> = (0..n).map(|k| k.to_string()).collect();
        format!("UNNEST([{}]) AS {column}", values.join(", "))
    }

    fn timestamp_literal(&self, ms: i64, zoned: bool) -> String {
        let text = super::utc_text(ms);
        if zoned {
            format!("TIMESTAMP '{text}+00'")
        } else {
            format!("DATETIME '{text}'")
        }
    }

    fn session_setup(&self) -> Vec<String> {
        // TIMESTAMP is UTC in BigQuery; DATETIME carries no zone. Nothing to set.
        Vec::new()
    }
}
