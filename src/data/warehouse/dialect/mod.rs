//! What differs between the engines the audit's SQL runs on: quoting, casts, epoch
//! milliseconds, string search, regular expressions, integer division and the session's time
//! zone. The query generator (`warehouse::sql`) writes one query through these methods; each
//! engine has its module, and the tests keep one golden query per engine
//! (tests/fixtures/warehouse-sql/).

mod bigquery;
mod duckdb;
mod postgres;
mod snowflake;
mod spark;

use serde::{Deserialize, Serialize};

pub use self::bigquery::BigQuery;
pub use self::duckdb::DuckDb;
pub use self::postgres::Postgres;
pub use self::snowflake::Snowflake;
pub use self::spark::{Sail, Spark};

/// The SQL dialects the audit is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DialectName {
    Duckdb,
    Postgres,
    Bigquery,
    Snowflake,
    /// Spark SQL: Databricks, Spark's Thrift server.
    Spark,
    /// Sail's Spark SQL over Flight SQL: Spark's, in a session that is always UTC.
    Sail,
}

impl DialectName {
    pub const ALL: [DialectName; 6] = [
        DialectName::Duckdb,
        DialectName::Postgres,
        DialectName::Bigquery,
        DialectName::Snowflake,
        DialectName::Spark,
        DialectName::Sail,
    ];

    pub fn label(self) -> &'static str {
        match self {
            DialectName::Duckdb => "duckdb",
            DialectName::Postgres => "postgres",
            DialectName::Bigquery => "bigquery",
            DialectName::Snowflake => "snowflake",
            DialectName::Spark => "spark",
            DialectName::Sail => "sail",
        }
    }

    pub fn parse(text: &str) -> Option<DialectName> {
        DialectName::ALL
            .into_iter()
            .find(|d| d.label().eq_ignore_ascii_case(text.trim()))
            .or_else(|| match text.trim().to_ascii_lowercase().as_str() {
                "postgresql" => Some(DialectName::Postgres),
                "databricks" | "sparksql" | "spark-sql" => Some(DialectName::Spark),
                _ => None,
            })
    }

    pub fn dialect(self) -> &'static dyn Dialect {
        match self {
            DialectName::Duckdb => &DuckDb,
            DialectName::Postgres => &Postgres,
            DialectName::Bigquery => &BigQuery,
            DialectName::Snowflake => &Snowflake,
            DialectName::Spark => &Spark,
            DialectName::Sail => &Sail,
        }
    }
}

/// How a source column's values are stored, as the engine reported its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredAs {
    /// A timestamp; `zoned` when it carries a zone (an instant).
    Timestamp {
        zoned: bool,
    },
    Date,
    Number,
    /// A whole number (an integer type): job ids kept as stored group and join faster than
    /// their text.
    Whole,
    Text,
    /// BOOLEAN: no count, time or share ("true" is no GPU count).
    Boolean,
    /// A list, a struct, a map or bytes: no single number or time.
    Nested,
    Other,
}

impl StoredAs {
    /// The kind a message names.
    pub fn label(self) -> &'static str {
        match self {
            StoredAs::Timestamp { .. } => "a timestamp",
            StoredAs::Date => "a date",
            StoredAs::Number => "a number",
            StoredAs::Whole => "a whole number",
            StoredAs::Text => "text",
            StoredAs::Boolean => "BOOLEAN",
            StoredAs::Nested => "a list, struct, map or bytes",
            StoredAs::Other => "a type gpuplan does not read",
        }
    }

    /// Any number, whole or not.
    pub fn is_number(self) -> bool {
        matches!(self, StoredAs::Number | StoredAs::Whole)
    }
}

/// An instant as `YYYY-MM-DD HH:MM:SS.fff`, UTC.
pub fn utc_text(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S%.3f").to_string())
        .unwrap_or_else(|| "1970-01-01 00:00:00.000".to_string())
}

/// One engine's SQL. Every method returns SQL text; arguments are SQL expressions unless named
/// `text` (a string to write as a literal) or `name` (an identifier to quote).
pub trait Dialect: Sync {
    fn name(&self) -> DialectName;

    /// An identifier, quoted as the engine quotes names.
    fn quote(&self, name: &str) -> String {
        format!("\"{}\"", name.replace('"', "\"\""))
    }

    /// A string literal.
    fn text(&self, text: &str) -> String {
        format!("'{}'", text.replace('\'', "''"))
    }

    /// The type of text, of 64-bit integers and of doubles, for casts.
    fn text_type(&self) -> &'static str {
        "VARCHAR"
    }
    fn bigint_type(&self) -> &'static str {
        "BIGINT"
    }
    fn double_type(&self) -> &'static str {
        "DOUBLE"
    }

    fn cast(&self, expr: &str, ty: &str) -> String {
        format!("CAST({expr} AS {ty})")
    }

    /// Text read as a double, NULL where it is no number.
    fn try_double(&self, expr: &str) -> String {
        format!("TRY_CAST({expr} AS {})", self.double_type())
    }

    /// A double's integer part as a 64-bit integer (towards zero, as Rust's `as i64`).
    fn truncate_to_bigint(&self, expr: &str) -> String {
        format!("CAST(TRUNC({expr}) AS {})", self.bigint_type())
    }

    /// Milliseconds since 1970 UTC of a timestamp; a timestamp without a zone is UTC.
    fn epoch_ms(&self, expr: &str, zoned: bool) -> String;

    /// Milliseconds since 1970 UTC of a timestamp without a zone written in `zone` (an IANA
    /// name); None where the engine cannot convert it.
    fn epoch_ms_in_zone(&self, expr: &str, zone: &str) -> Option<String>;

    /// Text as a timestamp (ISO 8601, with or without an offset), NULL where it does not read.
    fn try_text_epoch_ms(&self, expr: &str) -> String;

    /// An instant as a literal of the column's own type (`zoned`: a timestamp with a zone), so
    /// that a filter on the raw column reaches the engine's partition pruning.
    fn timestamp_literal(&self, ms: i64, zoned: bool) -> String {
        let text = utc_text(ms);
        if zoned {
            format!("CAST('{text}+00:00' AS TIMESTAMPTZ)")
        } else {
            format!("CAST('{text}' AS TIMESTAMP)")
        }
    }

    /// Whether `text` occurs in `haystack`.
    fn contains(&self, haystack: &str, text: &str) -> String {
        format!("STRPOS({haystack}, {}) > 0", self.text(text))
    }

    /// Every match of `pattern` in `expr` replaced by `replacement`.
    fn replace_all(&self, expr: &str, pattern: &str, replacement: &str) -> String {
        format!(
            "REGEXP_REPLACE({expr}, {}, {})",
            self.text(pattern),
            self.text(replacement)
        )
    }

    /// Text ordered byte by byte, as Rust orders strings (job ids breaking a tie): most engines
    /// order text so by default.
    fn byte_order(&self, text: &str) -> String {
        text.to_string()
    }

    /// A non-negative integer divided by a positive one, rounded down.
    fn int_div(&self, numerator: &str, denominator: &str) -> String {
        format!(
            "CAST(FLOOR(CAST(({numerator}) AS {}) / {denominator}) AS {})",
            self.double_type(),
            self.bigint_type()
        )
    }

    /// Whether a double is neither infinite nor NaN.
    fn is_finite(&self, expr: &str) -> String {
        format!("ISFINITE({expr})")
    }

    /// The characters of a text.
    fn char_length(&self, expr: &str) -> String {
        format!("LENGTH({expr})")
    }

    /// A table of one integer column `column` holding 0..n, named `alias`.
    fn counter_table(&self, n: u32, alias: &str, column: &str) -> String {
        let rows: Vec<String> = (0..n).map(|k| format!("({k})")).collect();
        format!("(VALUES {}) AS {alias}({column})", rows.join(", "))
    }

    /// Whether two values are equal, NULL equal to NULL (a join on a dictionary of values
    /// that may be missing).
    fn null_safe_eq(&self, a: &str, b: &str) -> String {
        format!("{a} IS NOT DISTINCT FROM {b}")
    }

    /// An aggregate giving the `n`-th largest of `expr` in the group (the smallest when the
    /// group holds fewer): the floor a top-`n` list is picked above without ranking every row.
    /// None where the engine has no such aggregate (every row is ranked).
    fn nth_largest(&self, _expr: &str, _n: usize) -> Option<String> {
        None
    }

    /// The aggregate OR of a 64-bit integer's bits over a group.
    fn bit_or(&self, expr: &str) -> String {
        format!("BIT_OR({expr})")
    }

    /// The bits two 64-bit integers share.
    fn bit_and(&self, a: &str, b: &str) -> String {
        format!("({a} & {b})")
    }

    /// The hint that a CTE read by several parts is worked out once ("" where none).
    fn materialized(&self) -> &'static str {
        ""
    }

    /// The hint that a CTE read by several parts is read again by each rather than held: the
    /// rows themselves, which cost far less to scan twice than to keep ("" where none).
    fn not_materialized(&self) -> &'static str {
        ""
    }

    /// Which of `of` shares a job falls in, from its id (text): a number in `0..of`, the same
    /// for every run of the job. None where the engine cannot split an audit into passes (it
    /// has no temporary table to keep the stems in between them).
    fn job_share(&self, _job_id: &str, _of: u32) -> Option<String> {
        None
    }

    /// A query whose one row's `memory_limit` is the engine's memory for a statement, as it
    /// writes it (`1.8 GiB`): passes are then chosen to fit it. None where the engine has no
    /// such bound (passes only when asked).
    fn memory_limit_query(&self) -> Option<&'static str> {
        None
    }

    /// A statement keeping `select`'s rows in a temporary table `name` for the session.
    fn temporary_table(&self, name: &str, select: &str) -> String {
        format!("CREATE TEMPORARY TABLE {} AS\n{select}", self.quote(name))
    }

    /// Statements run once on a new connection: UTC as the session's zone.
    fn session_setup(&self) -> Vec<String>;
}
