//! The connection to a warehouse through ADBC: the driver library loaded at run time (nothing of
//! any engine is linked into gpuplan), a database opened with the URI and options, one
//! connection whose session is set to UTC, and queries whose answers arrive as Arrow batches.

use std::path::{Path, PathBuf};

use adbc_core::options::{AdbcVersion, OptionDatabase, OptionValue};
use adbc_core::{Connection, Database, Driver, Statement};
use adbc_driver_manager::{ManagedConnection, ManagedDriver};
use arrow_array::RecordBatch;
use arrow_schema::DataType;

use super::dialect::{Dialect, DialectName, StoredAs};
use super::error::WarehouseError;
use super::sql::fields::SourceColumn;
use crate::model::plan::WarehouseSource;

/// Folders searched for driver libraries, besides the system's: `GPUPLAN_ADBC_PATH`
/// (colon-separated), then `~/.cache/gpuplan/engines/lib` (where `.ci/engines.sh` installs).
pub const DRIVER_PATH_VARIABLE: &str = "GPUPLAN_ADBC_PATH";

/// Statements run on each new warehouse session, `;`-separated (a profiler's settings).
pub const SESSION_VARIABLE: &str = "GPUPLAN_WAREHOUSE_SESSION";

/// How `--explain-sql` and errors name the statements of `SESSION_VARIABLE`.
pub const USER_SESSION_STEP: &str = "session (GPUPLAN_WAREHOUSE_SESSION)";

/// Statements of the user's for the session, run before the audit's: DuckDB's profiler
/// (`PRAGMA enable_profiling = 'json'; PRAGMA profiling_output = 'audit.json'`) shows where the
/// statement spends its time (docs/warehouse.md).
pub fn user_session_statements() -> Vec<String> {
    std::env::var(SESSION_VARIABLE)
        .map(|statements| {
            statements
                .split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// What gpuplan knows of a driver it names.
struct KnownDriver {
    name: &'static str,
    library: &'static str,
    entrypoint: Option<&'static [u8]>,
    /// The database option the URI goes in.
    uri_option: fn() -> OptionDatabase,
    dialect: DialectName,
    install: &'static str,
}

const KNOWN: [KnownDriver; 5] = [
    KnownDriver {
        name: "duckdb",
        library: "libduckdb.so",
        entrypoint: Some(b"duckdb_adbc_init"),
        uri_option: || OptionDatabase::Other("path".to_string()),
        dialect: DialectName::Duckdb,
        install: "DuckDB's C library carries its ADBC driver: `npm pack @duckdb/node-bindings-linux-x64@1.4.5-r.1` and copy package/libduckdb.so from the tarball into ~/.cache/gpuplan/engines/lib (or run .ci/engines.sh), or set GPUPLAN_ADBC_PATH to the folder holding libduckdb.so",
    },
    KnownDriver {
        name: "flightsql",
        library: "libadbc_driver_flightsql.so",
        entrypoint: None,
        uri_option: || OptionDatabase::Uri,
        dialect: DialectName::Sail,
        install: "`pip download --no-deps adbc-driver-flightsql` and copy adbc_driver_flightsql/libadbc_driver_flightsql.so from the wheel (a zip) into ~/.cache/gpuplan/engines/lib (or run .ci/engines.sh), or set GPUPLAN_ADBC_PATH to its folder",
    },
    KnownDriver {
        name: "postgresql",
        library: "libadbc_driver_postgresql.so",
        entrypoint: None,
        uri_option: || OptionDatabase::Uri,
        dialect: DialectName::Postgres,
        install: "`pip download --no-deps adbc-driver-postgresql` and copy adbc_driver_postgresql/libadbc_driver_postgresql.so from the wheel into ~/.cache/gpuplan/engines/lib, or set GPUPLAN_ADBC_PATH to its folder",
    },
    KnownDriver {
        name: "bigquery",
        library: "libadbc_driver_bigquery.so",
        entrypoint: None,
        uri_option: || OptionDatabase::Uri,
        dialect: DialectName::Bigquery,
        install: "`pip download --no-deps adbc-driver-bigquery` and copy adbc_driver_bigquery/libadbc_driver_bigquery.so from the wheel into ~/.cache/gpuplan/engines/lib, or set GPUPLAN_ADBC_PATH to its folder",
    },
    KnownDriver {
        name: "snowflake",
        library: "libadbc_driver_snowflake.so",
        entrypoint: None,
        uri_option: || OptionDatabase::Uri,
        dialect: DialectName::Snowflake,
        install: "`pip download --no-deps adbc-driver-snowflake` and copy adbc_driver_snowflake/libadbc_driver_snowflake.so from the wheel into ~/.cache/gpuplan/engines/lib, or set GPUPLAN_ADBC_PATH to its folder",
    },
];

fn known(driver: &str) -> Option<&'static KnownDriver> {
    let driver = driver.trim().to_ascii_lowercase();
    let driver = match driver.as_str() {
        "postgres" => "postgresql",
        "flight-sql" | "flight_sql" => "flightsql",
        other => other,
    };
    KNOWN.iter().find(|k| k.name == driver)
}

/// The dialect a source is written in: its `dialect`, else its driver's.
pub fn dialect_of(source: &WarehouseSource) -> Result<DialectName, WarehouseError> {
    match &source.dialect {
        Some(name) => DialectName::parse(name).ok_or_else(|| WarehouseError::UnknownDialect(name.clone())),
        None => match known(&source.driver) {
            Some(k) => Ok(k.dialect),
            None => Err(WarehouseError::NoDialect {
                driver: source.driver.clone(),
            }),
        },
    }
}

/// Where a driver library is looked for, in order.
fn search_folders() -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = std::env::var_os(DRIVER_PATH_VARIABLE)
        .map(|paths| std::env::split_paths(&paths).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        folders.push(Path::new(&home).join(".cache/gpuplan/engines/lib"));
    }
    folders
}

/// The driver loaded: a path given as it is, a known name from the search folders and then
/// the system's library path.
fn load_driver(source: &WarehouseSource) -> Result<ManagedDriver, WarehouseError> {
    let entrypoint_given = source.entrypoint.as_ref().map(|e| e.as_bytes().to_vec());
    let missing = |reason: String, install: &str| WarehouseError::DriverMissing {
        driver: source.driver.clone(),
        reason,
        install: install.to_string(),
    };
    let Some(known) = known(&source.driver) else {
        let path = Path::new(source.driver.trim());
        if path.extension().is_none() && !source.driver.contains('/') {
            return Err(WarehouseError::UnknownDriver(source.driver.clone()));
        }
        return ManagedDriver::load_dynamic_from_filename(path, entrypoint_given.as_deref(), AdbcVersion::V110)
            .map_err(|e| {
                missing(
                    e.message,
                    "check the path, and the driver's `entrypoint` in [warehouse]",
                )
            });
    };
    let entrypoint = entrypoint_given.as_deref().or(known.entrypoint);
    // The first library found is the one meant: one refused (a wrong entrypoint, a missing
    // dependency) stops the audit and says why, rather than another version standing in for it.
    for folder in search_folders() {
        let candidate = folder.join(known.library);
        if candidate.is_file() {
            return ManagedDriver::load_dynamic_from_filename(&candidate, entrypoint, AdbcVersion::V110).map_err(|e| {
                missing(
                    format!("{} was found and refused ({})", candidate.display(), e.message),
                    refused_hint(&e.message, known.install),
                )
            });
        }
    }
    ManagedDriver::load_dynamic_from_filename(known.library, entrypoint, AdbcVersion::V110).map_err(|e| {
        let searched: Vec<String> = search_folders().iter().map(|f| f.display().to_string()).collect();
        missing(
            format!(
                "{} not in {} nor on the system's library path ({})",
                known.library,
                searched.join(", "),
                e.message
            ),
            known.install,
        )
    })
}

/// What to do about a library found and refused: a Python extension module (DuckDB 2.0's, from
/// its wheel) wants its libpython loaded first; anything else, the usual install.
fn refused_hint<'a>(message: &str, install: &'a str) -> &'a str {
    if message.contains("undefined symbol: Py") || message.contains("undefined symbol: _Py") {
        "it is a Python extension module (DuckDB 2.0's, from its wheel): preload the libpython it was built for, LD_PRELOAD=/path/to/libpython3.X.so.1.0 (.ci/engines.sh writes its path in duckdb-2.0/preload)"
    } else {
        install
    }
}

/// An open warehouse: one connection, its session in UTC.
pub struct Warehouse {
    connection: ManagedConnection,
    pub dialect: &'static dyn Dialect,
}

impl Warehouse {
    pub fn open(source: &WarehouseSource) -> Result<Warehouse, WarehouseError> {
        let dialect = dialect_of(source)?.dialect();
        let mut driver = load_driver(source)?;
        let uri = match (&source.uri, &source.uri_env) {
            (Some(uri), _) => Some(uri.clone()),
            (None, Some(variable)) => Some(std::env::var(variable).map_err(|_| WarehouseError::OptionVariable {
                key: "uri_env".to_string(),
                variable: variable.clone(),
            })?),
            (None, None) => None,
        };
        let mut options: Vec<(OptionDatabase, OptionValue)> = Vec::new();
        if let Some(uri) = &uri {
            let key = known(&source.driver).map_or(OptionDatabase::Uri, |k| (k.uri_option)());
            options.push((key, OptionValue::String(uri.clone())));
        }
        for (key, value) in &source.options {
            options.push((OptionDatabase::Other(key.clone()), OptionValue::String(value.clone())));
        }
        for (key, variable) in &source.options_env {
            let value = std::env::var(variable).map_err(|_| WarehouseError::OptionVariable {
                key: key.clone(),
                variable: variable.clone(),
            })?;
            options.push((OptionDatabase::Other(key.clone()), OptionValue::String(value)));
        }
        let connect = |message: String| WarehouseError::Connect {
            driver: source.driver.clone(),
            uri: uri.clone().unwrap_or_else(|| "(none)".to_string()),
            message,
        };
        let database = driver.new_database_with_opts(options).map_err(|e| connect(e.message))?;
        let connection = database.new_connection().map_err(|e| connect(e.message))?;
        let mut warehouse = Warehouse { connection, dialect };
        for statement in dialect.session_setup() {
            warehouse.query("session", &statement)?;
        }
        for statement in user_session_statements() {
            warehouse.query(USER_SESSION_STEP, &statement)?;
        }
        Ok(warehouse)
    }

    /// Runs one statement and gathers its answer.
    pub fn query(&mut self, part: &'static str, sql: &str) -> Result<Vec<RecordBatch>, WarehouseError> {
        let mut batches = Vec::new();
        self.query_each(part, sql, |batch| {
            batches.push(batch);
            Ok(())
        })?;
        Ok(batches)
    }

    /// Runs `sql`, handing each batch of its answer to `each` as it arrives (so a long answer
    /// is never held whole).
    pub fn query_each(
        &mut self,
        part: &'static str,
        sql: &str,
        mut each: impl FnMut(RecordBatch) -> Result<(), WarehouseError>,
    ) -> Result<(), WarehouseError> {
        let failed = |message: String| WarehouseError::Query { part, message };
        let mut statement = self.connection.new_statement().map_err(|e| failed(e.message))?;
        statement.set_sql_query(sql).map_err(|e| failed(e.message))?;
        let reader = statement.execute().map_err(|e| failed(e.message))?;
        for batch in reader {
            // An engine may report an error while the batches stream (Sail does).
            each(batch.map_err(|e| failed(e.to_string()))?)?;
        }
        Ok(())
    }

    /// The source's columns and what each holds, from an empty read of it.
    pub fn columns(&mut self, from: &str) -> Result<Vec<SourceColumn>, WarehouseError> {
        let sql = format!("SELECT * FROM {from} LIMIT 0");
        let failed = |message: String| WarehouseError::Query {
            part: "columns",
            message,
        };
        let mut statement = self.connection.new_statement().map_err(|e| failed(e.message))?;
        statement.set_sql_query(&sql).map_err(|e| failed(e.message))?;
        let reader = statement.execute().map_err(|e| failed(e.message))?;
        let schema = reader.schema();
        Ok(schema
            .fields()
            .iter()
            .map(|field| SourceColumn {
                name: field.name().clone(),
                stored: stored_as(field.data_type()),
            })
            .collect())
    }
}

/// What an Arrow type holds, for the audit's fields.
pub fn stored_as(data_type: &DataType) -> StoredAs {
    match data_type {
        DataType::Timestamp(_, zone) => StoredAs::Timestamp { zoned: zone.is_some() },
        DataType::Date32 | DataType::Date64 => StoredAs::Date,
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => StoredAs::Whole,
        DataType::Float16
        | DataType::Float32
        | DataType::Float64
        | DataType::Decimal128(_, _)
        | DataType::Decimal256(_, _) => StoredAs::Number,
        DataType::Boolean => StoredAs::Boolean,
        DataType::List(_)
        | DataType::LargeList(_)
        | DataType::FixedSizeList(_, _)
        | DataType::ListView(_)
        | DataType::LargeListView(_)
        | DataType::Struct(_)
        | DataType::Map(_, _)
        | DataType::Union(_, _)
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => StoredAs::Nested,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => StoredAs::Text,
        DataType::Dictionary(_, value) => stored_as(value),
        _ => StoredAs::Other,
    }
}
