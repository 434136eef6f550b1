//! Audits run where the data already lives (docs/warehouse.md): a database or engine reached
//! through ADBC (`connect`), the audit compiled to its SQL dialect (`sql`, `dialect`), and
//! only aggregates brought back (`answers`), which end in the same `AuditTotals` and the same
//! report as an audit of files read into memory. DuckDB reads Parquet in place and spills past
//! memory, so logs larger than this machine's memory are audited in bounded memory.

mod answer_rows;
pub mod answers;
pub mod connect;
pub mod dialect;
pub mod error;
mod passes;
pub mod sql;

use std::sync::{Arc, Mutex};

use self::answers::TotalsReader;
use self::connect::Warehouse;
use self::error::WarehouseError;
use self::sql::fields::{FieldBuilder, Probe, SourceColumn, SourceFields};
use self::sql::{AuditSql, Pass, TotalsWindow};
use crate::data::audit::fleet_source::warehouse_origin;
use crate::data::audit::replay_jobs::FleetJobs;
use crate::data::audit::{AuditSettings, DataSpan, assemble, window_for};
use crate::data::readers::mapping::Mapping;
use crate::model::fleet::{AuditReport, Window};
use crate::model::plan::WarehouseSource;
use crate::model::workload::ClassificationRules;

/// One query as it is sent: which step of the audit it is, and its SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentQuery {
    pub step: &'static str,
    pub sql: String,
}

/// A warehouse audit: its report (None when only explained), and the queries in order.
pub struct WarehouseAudit {
    pub report: Option<AuditReport>,
    /// The statements sent: with `explain`, every one (the audit's unsent); else those that
    /// decided the window and the passes (an audit in hundreds of passes would otherwise hold
    /// the text of each: 23 kB a statement).
    pub queries: Vec<SentQuery>,
    /// The runs the warehouse counted (valid rows with a start).
    pub runs: u64,
}

/// The mapping completed from the source's column names, checked as a file's is.
pub fn complete_mapping(
    source: &WarehouseSource,
    mapping: Option<&Mapping>,
    columns: &[SourceColumn],
) -> Result<Mapping, WarehouseError> {
    let mut mapping = mapping.cloned().unwrap_or_default();
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    mapping.complete_from_header(&names);
    let listed = names.join(", ");
    let sources = mapping
        .columns
        .iter()
        .map(|(field, column)| (field.clone(), column.clone()))
        .chain(
            mapping
                .gpu_multiplier
                .iter()
                .map(|m| ("gpu_multiplier".to_string(), m.clone())),
        );
    for (field, column) in sources {
        if !names.contains(&column) {
            return Err(WarehouseError::MappedColumnMissing {
                from: source.from.clone(),
                field,
                column,
                columns: listed,
            });
        }
    }
    if !mapping.columns.contains_key("start") {
        return Err(WarehouseError::NoStartColumn {
            from: source.from.clone(),
            columns: listed,
        });
    }
    if !mapping.columns.contains_key("gpus") && !mapping.constants.contains_key("gpus") {
        return Err(WarehouseError::NoGpuColumn {
            from: source.from.clone(),
            columns: listed,
        });
    }
    if !mapping.columns.contains_key("cluster") && !mapping.constants.contains_key("cluster") {
        mapping
            .constants
            .insert("cluster".into(), default_cluster(&source.from));
    }
    Ok(mapping)
}

/// The cluster of a source that names none: its table's name when `from` is one, else
/// `warehouse`.
fn default_cluster(from: &str) -> String {
    let plain = from
        .trim()
        .chars()
        .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.');
    match from.trim().rsplit('.').next() {
        Some(table) if plain && !table.is_empty() => table.to_string(),
        _ => "warehouse".to_string(),
    }
}

/// The warehouse an audit opened, kept for the replay's jobs of that audit: `report` opens a
/// warehouse once (its session, its reading of the source's columns and units), and the
/// replay's jobs are read over the same connection. Each audit opens its own.
#[derive(Clone, Default)]
pub struct WarehouseSession(Arc<Mutex<Option<Prepared>>>);

impl WarehouseSession {
    /// Keeps `warehouse` open for the next statement over `session`, when there is one.
    fn keep(session: Option<&WarehouseSession>, warehouse: Warehouse, fields: SourceFields) {
        if let Some(Ok(mut kept)) = session.map(|s| s.0.lock()) {
            *kept = Some(Prepared {
                warehouse,
                fields,
                queries: Vec::new(),
            });
        }
    }

    fn take(&self) -> Option<Prepared> {
        self.0.lock().ok().and_then(|mut kept| kept.take())
    }
}

/// An open warehouse with the source's fields worked out: what the audit and the replay's
/// jobs share.
struct Prepared {
    warehouse: Warehouse,
    fields: SourceFields,
    queries: Vec<SentQuery>,
}

/// Connects, reads the source's columns, completes the mapping and, where a unit is left to
/// the values, probes them.
fn prepare(source: &WarehouseSource, mapping: Option<&Mapping>) -> Result<Prepared, WarehouseError> {
    let mut warehouse = Warehouse::open(source)?;
    let mut queries: Vec<SentQuery> = warehouse
        .dialect
        .session_setup()
        .into_iter()
        .map(|sql| SentQuery { step: "session", sql })
        .chain(connect::user_session_statements().into_iter().map(|sql| SentQuery {
            step: connect::USER_SESSION_STEP,
            sql,
        }))
        .collect();
    let columns = warehouse.columns(&source.from)?;
    queries.push(SentQuery {
        step: "columns",
        sql: format!("SELECT * FROM {} LIMIT 0", source.from),
    });
    let mapping = complete_mapping(source, mapping, &columns)?;
    let builder = FieldBuilder {
        dialect: warehouse.dialect,
        mapping: &mapping,
        columns: &columns,
    };
    let mut probe = Probe::default();
    if let Some(sql) = builder.probe_query(&source.from) {
        let values = answers::probe(&warehouse.query("probe", &sql)?)?;
        for (name, value) in values {
            match (name.strip_prefix("epoch_"), value) {
                (Some(column), Some(v)) => probe.max_epoch.push((column.to_string(), v)),
                (None, value) if name.eq_ignore_ascii_case("max_util") => probe.max_util = value,
                _ => {}
            }
        }
        queries.push(SentQuery { step: "probe", sql });
    }
    let fields = builder.fields(&probe)?;
    Ok(Prepared {
        warehouse,
        fields,
        queries,
    })
}

/// Whether the settings name a window (rather than the data's whole span): then only the runs
/// touching it are read.
fn window_named(settings: &AuditSettings) -> bool {
    settings.window.since_ms.is_some() || settings.window.until_ms.is_some() || settings.window.days.is_some()
}

/// Where a warehouse audit stands: the statement of the sums now sent, counted from one, and
/// with passes which pass it sums. A pass count in the hundreds runs for an hour: a user is
/// shown each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatementProgress {
    pub step: &'static str,
    pub number: usize,
    pub of: usize,
    pub pass: Option<Pass>,
}

impl std::fmt::Display for StatementProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self { step, number, of, pass } = self;
        match pass {
            None if *step == STEMS_SUMMED_STEP => {
                write!(f, "the warehouse sums every pass's stems (statement {number} of {of})")
            }
            None => write!(f, "the warehouse sums the audit ({step}, statement {number} of {of})"),
            Some(pass) => write!(
                f,
                "the warehouse sums pass {} of {}'s {step} (statement {number} of {of})",
                pass.index + 1,
                pass.of
            ),
        }
    }
}

/// Runs the audit in the warehouse, telling `progress` of each statement of the sums as it
/// is sent; with `explain`, the queries are built (the probe, the span and, for passes, the
/// engine's memory limit and the job ids' range run, as the window and the passes depend on
/// them) and the sums' statements are returned unsent. With `session`, the
/// warehouse is kept open there for the replay's jobs.
pub fn audit(
    source: &WarehouseSource,
    mapping: Option<&Mapping>,
    rules: &ClassificationRules,
    settings: &AuditSettings,
    explain: bool,
    progress: &mut dyn FnMut(StatementProgress),
    session: Option<&WarehouseSession>,
) -> Result<WarehouseAudit, WarehouseError> {
    // A new audit (the workbench's window changed) closes the last one's connection first:
    // two opens of one DuckDB file in a process, the first held idle, are not wanted.
    drop(session.and_then(WarehouseSession::take));
    let Prepared {
        mut warehouse,
        fields,
        mut queries,
    } = prepare(source, mapping)?;
    let query = AuditSql {
        dialect: warehouse.dialect,
        from: &source.from,
        fields: &fields,
        rules,
    };
    let span_sql = query.span_query();
    let span = answers::span(&warehouse.query("span", &span_sql)?)?;
    queries.push(SentQuery {
        step: "span",
        sql: span_sql,
    });
    if span.runs == 0 {
        let set_aside = answers::set_aside_text(&warehouse.query("set aside", &query.set_aside_query())?)?;
        return Err(WarehouseError::NoRuns {
            from: source.from.clone(),
            set_aside,
        });
    }
    let window = window_for(
        DataSpan {
            min_start_ms: span.min_start_ms,
            max_end_ms: span.max_end_ms,
            max_start_ms: span.max_start_ms,
        },
        settings.window,
    )?;
    let passes = passes::plan(&mut warehouse, &query, source.passes, span.runs, &mut queries)?;
    let statements = audit_statements(&query, &passes, &window, window_named(settings))?;
    if explain {
        queries.extend(statements.into_iter().map(|(statement, _)| statement));
        return Ok(WarehouseAudit {
            report: None,
            queries,
            runs: span.runs,
        });
    }
    let mut reader = TotalsReader::new(window, rules, &warehouse_origin(source));
    let of = statements.len();
    for (number, (statement, pass)) in statements.into_iter().enumerate() {
        progress(StatementProgress {
            step: statement.step,
            number: number + 1,
            of,
            pass,
        });
        if statement.step == TOTALS_STEP {
            warehouse.query_each(TOTALS_STEP, &statement.sql, |batch| reader.add(&batch))?;
        } else {
            warehouse.query(statement.step, &statement.sql)?;
        }
    }
    let report = assemble(reader.finish(), rules, settings);
    WarehouseSession::keep(session, warehouse, fields);
    Ok(WarehouseAudit {
        report: Some(report),
        queries,
        runs: span.runs,
    })
}

const STEMS_STEP: &str = "stems";
const STEMS_SUMMED_STEP: &str = "stems summed";
const TOTALS_STEP: &str = "totals";

/// The statements that sum the audit over `window`, each with the pass it sums: one, or with
/// `passes`, each pass's stems kept in a temporary table and then each pass's totals.
fn audit_statements(
    query: &AuditSql<'_>,
    passes: &[Pass],
    window: &Window,
    filter_rows: bool,
) -> Result<Vec<(SentQuery, Option<Pass>)>, WarehouseError> {
    let at = |pass| TotalsWindow {
        window,
        filter_rows,
        pass,
    };
    if passes.len() <= 1 {
        let whole = SentQuery {
            step: TOTALS_STEP,
            sql: query.totals_query(at(None)),
        };
        return Ok(vec![(whole, None)]);
    }
    let mut statements = Vec::with_capacity(passes.len() * 2);
    for &pass in passes {
        let sql = query
            .stem_parts_statement(at(Some(pass)))
            .ok_or(WarehouseError::PassesUnsupported {
                dialect: query.dialect.name().label(),
                passes: pass.of,
            })?;
        statements.push((SentQuery { step: STEMS_STEP, sql }, Some(pass)));
    }
    // Every pass's parts summed once, for every pass's totals to read.
    if let Some(sql) = query.stem_sums_statement() {
        statements.push((
            SentQuery {
                step: STEMS_SUMMED_STEP,
                sql,
            },
            None,
        ));
    }
    for &pass in passes {
        let totals = SentQuery {
            step: TOTALS_STEP,
            sql: query.totals_query(at(Some(pass))),
        };
        statements.push((totals, Some(pass)));
    }
    Ok(statements)
}

/// Where a replay's jobs are read: the audit's settings and window, its clusters in order,
/// and the jobs it counted there.
#[derive(Clone, Copy)]
pub struct ReplayWindow<'a> {
    pub settings: &'a AuditSettings,
    pub window: &'a Window,
    pub clusters: &'a [String],
    pub jobs: u64,
}

/// The most jobs a warehouse's replay brings back: a replay holds every job (40 bytes each,
/// 400 MB at the bound), and a warehouse is audited so that gpuplan's memory stays bounded
/// whatever the rows.
pub const MAX_REPLAY_JOBS: u64 = 10_000_000;

/// The replay's jobs over the audit's `window`, each homed on its cluster's index in
/// `clusters`: one row per job comes back (a replay holds every job), so a window of more
/// than `MAX_REPLAY_JOBS` jobs is refused before the query is sent.
/// Over the warehouse the audit left open in `session` (opened anew when none is), kept open
/// again after.
pub fn replay_jobs(
    source: &WarehouseSource,
    mapping: Option<&Mapping>,
    rules: &ClassificationRules,
    at: ReplayWindow<'_>,
    session: Option<&WarehouseSession>,
) -> Result<FleetJobs, WarehouseError> {
    let ReplayWindow {
        settings,
        window,
        clusters,
        jobs,
    } = at;
    if jobs > MAX_REPLAY_JOBS {
        return Err(WarehouseError::TooManyJobsToReplay {
            jobs: Some(jobs),
            max: MAX_REPLAY_JOBS,
        });
    }
    let prepared = match session.and_then(WarehouseSession::take) {
        Some(prepared) => prepared,
        None => prepare(source, mapping)?,
    };
    let Prepared {
        mut warehouse, fields, ..
    } = prepared;
    let query = AuditSql {
        dialect: warehouse.dialect,
        from: &source.from,
        fields: &fields,
        rules,
    };
    let sql = query.replay_jobs_query(TotalsWindow {
        window,
        filter_rows: window_named(settings),
        pass: None,
    });
    let mut reader = answers::ReplayJobsReader::new(window, clusters, MAX_REPLAY_JOBS);
    warehouse.query_each("replay jobs", &sql, |batch| reader.add(&batch))?;
    WarehouseSession::keep(session, warehouse, fields);
    Ok(reader.finish())
}
