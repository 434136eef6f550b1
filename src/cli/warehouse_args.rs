//! The command line's warehouse flags, over a plan's `[warehouse]` table, and `--explain-sql`.

use clap::Args;

use super::{Failure, pipeline_failure};
use crate::config::diagnostic::Diagnostic;
use crate::data::audit::AuditSettings;
use crate::model::plan::{MissingFlag, Plan, WarehouseOverrides, WarehouseSource};
use crate::pipeline::Pipeline;
use crate::pipeline::sources::Sources;

#[derive(Debug, Clone, Default, Args)]
pub struct WarehouseArgs {
    /// Audit in a database instead of reading LOGS: the ADBC driver (duckdb, flightsql,
    /// postgresql, bigquery, snowflake, or a driver library's path); see docs/warehouse.md.
    #[arg(long, value_name = "DRIVER")]
    pub warehouse_driver: Option<String>,
    /// The database the driver opens: DuckDB's file or `:memory:`, a Flight SQL server's
    /// grpc://host:port, a PostgreSQL URI.
    #[arg(long, value_name = "URI")]
    pub warehouse_uri: Option<String>,
    /// The table holding one row per run, or a table expression in the engine's dialect
    /// ("read_parquet('jobs/*.parquet')").
    #[arg(long, value_name = "TABLE")]
    pub warehouse_from: Option<String>,
    /// Split the audit into N passes, each over a share of the jobs, so that DuckDB on one
    /// machine never holds every job at once (DuckDB and PostgreSQL; see docs/warehouse.md).
    /// Unset, DuckDB is split as its memory limit needs; 1 never splits.
    #[arg(long, value_name = "N")]
    pub warehouse_passes: Option<u32>,
    /// Print the SQL the audit sends to the warehouse, and run only what the window needs (the
    /// column read, the probe of units, the span).
    #[arg(long)]
    pub explain_sql: bool,
}

impl WarehouseArgs {
    fn overrides(&self) -> WarehouseOverrides {
        WarehouseOverrides {
            driver: self.warehouse_driver.clone(),
            uri: self.warehouse_uri.clone(),
            from: self.warehouse_from.clone(),
            passes: self.warehouse_passes,
        }
    }

    /// The warehouse to audit in: the flags over the plan's `[warehouse]`; None when neither
    /// names one, or when logs are given and no flag names a warehouse (the logs win over the
    /// plan's table).
    pub fn resolve(&self, plan: Option<&Plan>, logs_given: bool) -> Result<Option<WarehouseSource>, Failure> {
        let overrides = self.overrides();
        if logs_given {
            if overrides.is_empty() {
                return Ok(None);
            }
            return Err(Diagnostic::file(
                "--warehouse-from",
                "names a warehouse, and logs were given too: audit one or the other",
            )
            .into());
        }
        let planned = plan.and_then(|p| p.warehouse.as_ref());
        let resolved = overrides.resolve(planned).map_err(|MissingFlag(flag)| {
            Failure::from(Diagnostic::file(
                flag,
                "is needed with the other --warehouse flags (or a [warehouse] table in the plan)",
            ))
        })?;
        if resolved.is_none() && self.explain_sql {
            return Err(Diagnostic::file(
                "--explain-sql",
                "shows a warehouse's SQL, and no warehouse is named: add --warehouse-driver and --warehouse-from",
            )
            .into());
        }
        if let Some(source) = &resolved
            && let Some((key, message)) = source.problems().into_iter().next()
        {
            return Err(Diagnostic::file(&format!("[warehouse] {key}"), message).into());
        }
        Ok(resolved)
    }
}

/// With `--explain-sql`: prints the warehouse's queries for these sources and settings instead
/// of their answers. Returns whether it did.
pub fn explain_if_asked(
    args: &WarehouseArgs,
    pipeline: &Pipeline,
    sources: &Sources,
    settings: &AuditSettings,
) -> Result<bool, Failure> {
    if !args.explain_sql {
        return Ok(false);
    }
    let queries = pipeline
        .explain_warehouse(sources, settings)
        .map_err(pipeline_failure)?;
    for query in queries {
        println!("-- {}\n{};\n", query.step, query.sql);
    }
    Ok(true)
}
