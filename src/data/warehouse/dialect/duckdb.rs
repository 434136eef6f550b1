//! DuckDB: Parquet, CSV and object storage read in place (`read_parquet('s3://…')`), spilling
//! to disk past memory.

use super::{Dialect, DialectName};

pub struct DuckDb;

impl Dialect for DuckDb {
    fn name(&self) -> DialectName {
        DialectName::Duckdb
    }

    fn epoch_ms(&self, expr: &str, _zoned: bool) -> String {
        format!("EPOCH_MS({expr})")
    }

    fn epoch_ms_in_zone(&self, expr: &str, zone: &str) -> Option<String> {
        Some(format!("EPOCH_MS(TIMEZONE({}, {expr}))", self.text(zone)))
    }

    fn try_text_epoch_ms(&self, expr: &str) -> String {
        format!("EPOCH_MS(TRY_CAST({expr} AS TIMESTAMPTZ))")
    }

    fn replace_all(&self, expr: &str, pattern: &str, replacement: &str) -> String {
        format!(
            "REGEXP_REPLACE({expr}, {}, {}, 'g')",
            self.text(pattern),
            self.text(replacement)
        )
    }

    fn int_div(&self, numerator: &str, denominator: &str) -> String {
        format!("(({numerator}) // {denominator})")
    }

    fn nth_largest(&self, expr: &str, n: usize) -> Option<String> {
        // `max(x, n)`: the n largest as a list (DuckDB 1.1 and later).
        Some(format!("LIST_MIN(MAX({expr}, {n}))"))
    }

    fn materialized(&self) -> &'static str {
        " MATERIALIZED"
    }

    fn not_materialized(&self) -> &'static str {
        " NOT MATERIALIZED"
    }

    fn job_share(&self, job_id: &str, of: u32) -> Option<String> {
        Some(format!("(HASH({job_id}) % {of})"))
    }

    fn memory_limit_query(&self) -> Option<&'static str> {
        Some("SELECT current_setting('memory_limit') AS memory_limit")
    }

    fn session_setup(&self) -> Vec<String> {
        vec!["SET TimeZone = 'UTC'".to_string()]
    }
}
