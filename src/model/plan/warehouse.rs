//! Where a plan's jobs live when they live in a database: `[warehouse]`, an ADBC driver, its
//! URI and the table (or table expression) holding one row per run. The audit is sent there as
//! SQL and only its aggregates come back (docs/warehouse.md). Secrets are never written here:
//! the URI and options may name environment variables that hold them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A `[warehouse]` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarehouseSource {
    /// `duckdb`, `flightsql`, `postgresql`, `bigquery`, `snowflake`, or the path of an ADBC
    /// driver library.
    pub driver: String,
    /// The database the driver opens: DuckDB's file (or `:memory:`), a Flight SQL server's
    /// `grpc://host:port`, a PostgreSQL URI. Leave it out to take it from `uri_env`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// The NAME of an environment variable holding the URI, for URIs that carry a password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri_env: Option<String>,
    /// The table, or a table expression in the engine's dialect
    /// (`read_parquet('s3://bucket/jobs/*.parquet')`).
    pub from: String,
    /// The SQL dialect; by default the driver's (`sail` for Flight SQL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    /// The driver library's initialization function, for a driver given by path whose
    /// function is not `AdbcDriverInit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entrypoint: Option<String>,
    /// Driver options that are no secret (`adbc.snowflake.sql.warehouse = "COMPUTE_WH"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
    /// Driver options whose values are secrets: option → the NAME of the environment variable
    /// holding its value.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options_env: BTreeMap<String, String>,
    /// Split the audit into this many passes over the source, each over a share of the jobs,
    /// so that an engine with little memory (DuckDB on one machine) never holds every job at
    /// once; 1 sends one statement. Unset, an engine that reports its memory limit (DuckDB)
    /// is split as its runs need (`data::warehouse::passes`), any other sends one. DuckDB and
    /// PostgreSQL only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<u32>,
}

/// The most passes an audit may be split into.
pub const MAX_PASSES: u32 = 4096;

/// Option names that hold secrets: refused among plain `options`.
const SECRET_WORDS: [&str; 6] = ["password", "secret", "token", "credential", "private_key", "auth"];

impl WarehouseSource {
    /// The settings for a warehouse named on the command line.
    pub fn at(driver: &str, uri: Option<&str>, from: &str) -> WarehouseSource {
        WarehouseSource {
            driver: driver.to_string(),
            uri: uri.map(str::to_string),
            uri_env: None,
            from: from.to_string(),
            dialect: None,
            entrypoint: None,
            options: BTreeMap::new(),
            options_env: BTreeMap::new(),
            passes: None,
        }
    }

    /// What is wrong with these settings, as (key, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut problems = Vec::new();
        if self.driver.trim().is_empty() {
            problems.push((
                "driver".to_string(),
                "names no driver: give duckdb, flightsql, postgresql, bigquery, snowflake or a library's path"
                    .to_string(),
            ));
        }
        if self.from.trim().is_empty() {
            problems.push((
                "from".to_string(),
                "names no table: give a table or a table expression".to_string(),
            ));
        }
        if self.uri.is_some() && self.uri_env.is_some() {
            problems.push(("uri_env".to_string(), "give `uri` or `uri_env`, not both".to_string()));
        }
        if let Some(uri) = &self.uri
            && uri_has_password(uri)
        {
            problems.push((
                "uri".to_string(),
                "carries a password: put the URI in an environment variable and name it in `uri_env`".to_string(),
            ));
        }
        for key in self.options.keys() {
            let lowered = key.to_ascii_lowercase();
            if SECRET_WORDS.iter().any(|w| lowered.contains(w)) {
                problems.push((
                    format!("options.{key}"),
                    "looks like a secret: name the environment variable holding it in [warehouse.options_env]"
                        .to_string(),
                ));
            }
        }
        if let Some(passes) = self.passes
            && !(1..=MAX_PASSES).contains(&passes)
        {
            problems.push((
                "passes".to_string(),
                format!("is {passes}: give a number of passes from 1 to {MAX_PASSES}"),
            ));
        }
        problems
    }
}

/// Whether a URI spells out a password (`scheme://user:password@host`).
fn uri_has_password(uri: &str) -> bool {
    let Some((_, rest)) = uri.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority
        .rsplit_once('@')
        .is_some_and(|(credentials, _)| credentials.contains(':'))
}

/// A flag the other warehouse flags need, when no `[warehouse]` table gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} is needed with the other --warehouse flags")]
pub struct MissingFlag(pub &'static str);

/// The command line's warehouse flags, each winning over the plan's `[warehouse]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WarehouseOverrides {
    pub driver: Option<String>,
    pub uri: Option<String>,
    pub from: Option<String>,
    pub passes: Option<u32>,
}

impl WarehouseOverrides {
    pub fn is_empty(&self) -> bool {
        self.driver.is_none() && self.uri.is_none() && self.from.is_none() && self.passes.is_none()
    }

    /// The warehouse to read: these flags over the plan's table; None when neither names one.
    /// Err names what is missing when flags name only part of one.
    pub fn resolve(&self, planned: Option<&WarehouseSource>) -> Result<Option<WarehouseSource>, MissingFlag> {
        let mut source = match (planned, &self.driver, &self.from) {
            (Some(planned), _, _) => planned.clone(),
            (None, Some(driver), Some(from)) => WarehouseSource::at(driver, None, from),
            (None, None, None) if self.uri.is_none() && self.passes.is_none() => return Ok(None),
            (None, None, _) => return Err(MissingFlag("--warehouse-driver")),
            (None, Some(_), None) => return Err(MissingFlag("--warehouse-from")),
        };
        if let Some(driver) = &self.driver {
            source.driver = driver.clone();
        }
        if let Some(uri) = &self.uri {
            source.uri = Some(uri.clone());
            source.uri_env = None;
        }
        if let Some(from) = &self.from {
            source.from = from.clone();
        }
        if let Some(passes) = self.passes {
            source.passes = Some(passes);
        }
        Ok(Some(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_refused_in_plain_settings() {
        let mut source = WarehouseSource::at("postgresql", Some("postgresql://ana:hunter2@db/jobs"), "jobs");
        source
            .options
            .insert("adbc.snowflake.sql.auth_token".into(), "x".into());
        let keys: Vec<String> = source.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["uri", "options.adbc.snowflake.sql.auth_token"]);
        assert!(
            WarehouseSource::at("postgresql", Some("postgresql://ana@db/jobs"), "jobs")
                .problems()
                .is_empty()
        );
    }

    #[test]
    fn flags_win_over_the_plan_and_name_what_is_missing() {
        let planned = WarehouseSource::at("duckdb", Some("a.db"), "jobs");
        let flags = WarehouseOverrides {
            from: Some("read_parquet('x.parquet')".into()),
            ..Default::default()
        };
        let source = flags.resolve(Some(&planned)).expect("resolves").expect("a source");
        assert_eq!(
            (source.driver.as_str(), source.from.as_str()),
            ("duckdb", "read_parquet('x.parquet')")
        );
        assert_eq!(flags.resolve(None), Err(MissingFlag("--warehouse-driver")));
        assert_eq!(WarehouseOverrides::default().resolve(None), Ok(None));
    }
}
