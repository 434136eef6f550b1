//! PostgreSQL (and engines speaking its dialect).

use super::{Dialect, DialectName};

pub struct Postgres;

impl Dialect for Postgres {
    fn name(&self) -> DialectName {
        DialectName::Postgres
    }

    fn text_type(&self) -> &'static str {
        "TEXT"
    }

    fn double_type(&self) -> &'static str {
        "DOUBLE PRECISION"
    }

    /// The database's collation may order text by language ("job-10" after "job_1"): the C
    /// collation orders bytes.
    fn byte_order(&self, text: &str) -> String {
        format!("{text} COLLATE \"C\"")
    }

    /// PostgreSQL has no TRY_CAST: text that is a plain decimal number is cast, other text is NULL.
    fn try_double(&self, expr: &str) -> String {
        format!(
            "CASE WHEN TRIM({expr}) ~ '^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$' THEN CAST(TRIM({expr}) AS DOUBLE PRECISION) END"
        )
    }

    fn epoch_ms(&self, expr: &str, _zoned: bool) -> String {
        // EXTRACT(EPOCH ...) of a timestamp without zone counts from 1970 as written: UTC.
        format!("CAST(FLOOR(EXTRACT(EPOCH FROM {expr}) * 1000) AS BIGINT)")
    }

    fn epoch_ms_in_zone(&self, expr: &str, zone: &str) -> Option<String> {
        Some(self.epoch_ms(&format!("({expr} AT TIME ZONE {})", self.text(zone)), true))
    }

    /// Text that does not read as a timestamp fails the query (PostgreSQL has no TRY_CAST).
    fn try_text_epoch_ms(&self, expr: &str) -> String {
        self.epoch_ms(&format!("CAST(NULLIF(TRIM({expr}), '') AS TIMESTAMPTZ)"), true)
    }

    fn int_div(&self, numerator: &str, denominator: &str) -> String {
        format!("DIV(({numerator}), {denominator})")
    }

    fn is_finite(&self, expr: &str) -> String {
        format!("({expr} NOT IN ('Infinity'::float8, '-Infinity'::float8, 'NaN'::float8))")
    }

    fn replace_all(&self, expr: &str, pattern: &str, replacement: &str) -> String {
        format!(
            "REGEXP_REPLACE({expr}, {}, {}, 'g')",
            self.text(pattern),
            self.text(replacement)
        )
    }

    fn materialized(&self) -> &'static str {
        " MATERIALIZED"
    }

    fn not_materialized(&self) -> &'static str {
        " NOT MATERIALIZED"
    }

    fn job_share(&self, job_id: &str, of: u32) -> Option<String> {
        Some(format!("ABS(MOD(HASHTEXTEXTENDED({job_id}, 0), {of}))"))
    }

    /// The zone, and no nested-loop joins where another will do: PostgreSQL estimates a
    /// common table expression's rows without statistics (the checked rows of 200,000 runs
    /// as 72), and joined the runs to their jobs row by row: 200,000 runs ran past 9 minutes,
    /// 6 s with this set (docs/warehouse.md, "Which engines ran").
    fn session_setup(&self) -> Vec<String> {
        vec![
            "SET TIME ZONE 'UTC'".to_string(),
            "SET enable_nestloop = off".to_string(),
        ]
    }
}
