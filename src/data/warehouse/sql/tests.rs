//! The audit's SQL in each dialect, kept as golden files (snapshots/): a change to the
//! generator shows as a change to every engine's query, reviewed before it is accepted
//! (`INSTA_UPDATE=always cargo test --release warehouse::sql`). DuckDB's and Sail's queries
//! also run against the real engines (tests/integration/warehouse.rs); BigQuery's, Snowflake's,
//! PostgreSQL's and Spark's are checked here only.

use super::fields::{FieldBuilder, Probe, SourceColumn};
use super::{AuditSql, Pass, PassShare, TotalsWindow};
use crate::data::readers::mapping::Mapping;
use crate::data::warehouse::dialect::{DialectName, StoredAs};
use crate::model::fleet::Window;

/// The source's columns, its job ids stored as `job_ids`.
fn columns(job_ids: StoredAs) -> Vec<SourceColumn> {
    let column = |name: &str, stored: StoredAs| SourceColumn {
        name: name.to_string(),
        stored,
    };
    vec![
        column("job_id", job_ids),
        column("cluster", StoredAs::Text),
        column("name", StoredAs::Text),
        column("queue", StoredAs::Text),
        column("qos", StoredAs::Text),
        column("owner_kind", StoredAs::Text),
        column("label", StoredAs::Text),
        column("submit", StoredAs::Timestamp { zoned: true }),
        column("start", StoredAs::Timestamp { zoned: false }),
        column("end", StoredAs::Text),
        column("gpus", StoredAs::Number),
        column("gpu_util_pct", StoredAs::Number),
        column("time_limit", StoredAs::Number),
    ]
}

/// Every query of an audit over `columns()` (whole-number job ids) with the built-in rules, in
/// one dialect.
fn queries(dialect: DialectName) -> String {
    queries_over(dialect, StoredAs::Whole)
}

fn queries_over(dialect: DialectName, job_ids: StoredAs) -> String {
    let rules = crate::config::catalog::builtin()
        .catalog
        .classification
        .expect("built-in rules");
    let columns = columns(job_ids);
    let mut mapping = Mapping::default();
    mapping.complete_from_header(&columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>());
    let builder = FieldBuilder {
        dialect: dialect.dialect(),
        mapping: &mapping,
        columns: &columns,
    };
    // `gpu_util_pct` says percent by its name: nothing to probe.
    let probe = builder.probe_query("jobs").unwrap_or_else(|| "(none)".to_string());
    let mut fields = builder
        .fields(&Probe {
            max_util: Some(97.0),
            max_epoch: Vec::new(),
        })
        .expect("fields");
    // The golden file holds one clock: the latest time believed is a day past the run's.
    fields.latest_ms = 1_800_000_000_000;
    let sql = AuditSql {
        dialect: dialect.dialect(),
        from: "jobs",
        fields: &fields,
        rules: &rules,
    };
    // A week from 2026-01-01, read whole.
    let window = Window::from_ms(1_767_225_600_000, 1_767_830_400_000);
    let at = |pass| TotalsWindow {
        window: &window,
        filter_rows: true,
        pass,
    };
    let totals = sql.totals_query(at(None));
    let setup = dialect.dialect().session_setup().join(";\n");
    let mut golden = format!(
        "-- session\n{setup}\n\n-- probe\n{probe}\n\n-- span\n{}\n\n-- totals\n{totals}\n",
        sql.span_query()
    );
    // The second of three passes, where the engine can split the audit: over the ids' hashes,
    // and over a range of the ids (numbers here), read first.
    let passes = [
        ("hashed", Pass::hashed(3)[1]),
        ("over ids 30000 to 50000", Pass::id_ranges(3, 10_000.0, 69_999.0)[1]),
    ];
    if let Some(summed) = sql.stem_sums_statement() {
        golden.push_str(&format!("\n-- stems summed, after every pass's\n{summed}\n"));
    }
    for (how, pass) in passes {
        if let Some(stems) = sql.stem_parts_statement(at(Some(pass))) {
            let totals = sql.totals_query(at(Some(pass)));
            if matches!(pass.share, PassShare::IdRange { .. }) {
                // Ranges only over ids stored as numbers.
                let Some(range) = sql.job_range_query() else { continue };
                golden.push_str(&format!("\n-- job ids\n{range}\n"));
            }
            golden.push_str(&format!(
                "\n-- stems, pass 2 of 3, {how}\n{stems}\n\n-- totals, pass 2 of 3, {how}\n{totals}\n"
            ));
        }
    }
    golden
}

#[test]
fn each_dialect_s_audit_sql_is_its_golden_file() {
    for dialect in DialectName::ALL {
        insta::assert_snapshot!(format!("audit_sql_{}", dialect.label()), queries(dialect));
    }
}

/// Ranges of ids cover every id once: the first open below (and taking the rows with no id),
/// the last open above, each starting where the one before ends.
#[test]
fn passes_over_id_ranges_cover_every_id_once() {
    let passes = Pass::id_ranges(4, 1_000.0, 1_999.0);
    let ranges: Vec<(Option<i64>, Option<i64>)> = passes
        .iter()
        .map(|pass| match pass.share {
            PassShare::IdRange { from, below } => (from, below),
            PassShare::Hash => panic!("a hashed pass"),
        })
        .collect();
    assert_eq!(
        ranges,
        [
            (None, Some(1_250)),
            (Some(1_250), Some(1_500)),
            (Some(1_500), Some(1_750)),
            (Some(1_750), None)
        ]
    );
    assert!(passes.iter().all(|pass| pass.counts_rows()));
    // One id, many passes: the empty ranges stay in order, and the id falls in one.
    let crowded = Pass::id_ranges(3, 7.0, 7.0);
    let holds = |pass: &Pass, id: i64| match pass.share {
        PassShare::IdRange { from, below } => from.is_none_or(|f| id >= f) && below.is_none_or(|b| id < b),
        PassShare::Hash => false,
    };
    assert_eq!(crowded.iter().filter(|pass| holds(pass, 7)).count(), 1);
    // Ids past 64 bits (a column of doubles) saturate into the open last pass.
    let huge = Pass::id_ranges(2, 0.0, 1e30);
    assert!(holds(&huge[1], i64::MAX));
    // Hashed passes: only the first counts the rows set aside.
    let hashed = Pass::hashed(2);
    assert!(hashed[0].counts_rows() && !hashed[1].counts_rows());
}

/// Text ids are checked for emptiness and compared as they are; whole-number ids are not
/// measured as text, but ranked and hashed as their text, byte by byte.
#[test]
fn job_ids_are_ranked_and_hashed_as_text_however_stored() {
    let text = queries_over(DialectName::Postgres, StoredAs::Text);
    assert!(text.contains("WHEN job_id IS NULL OR LENGTH(job_id) = 0 THEN 0"));
    assert!(text.contains("j.job_id COLLATE \"C\" ASC NULLS LAST"));
    assert!(text.contains("HASHTEXTEXTENDED(job_id, 0)"));
    assert!(!text.contains("CAST(j.job_id AS TEXT)"));
    let whole = queries_over(DialectName::Postgres, StoredAs::Whole);
    assert!(whole.contains("WHEN job_id IS NULL THEN 0"));
    assert!(!whole.contains("LENGTH(job_id)"));
    assert!(whole.contains("CAST(j.job_id AS TEXT) COLLATE \"C\" ASC NULLS LAST"));
    assert!(whole.contains("HASHTEXTEXTENDED(CAST(job_id AS TEXT), 0)"));
    // DuckDB orders text byte by byte already.
    assert!(queries_over(DialectName::Duckdb, StoredAs::Text).contains(", j.job_id ASC NULLS LAST"));
}

#[test]
fn every_rule_and_label_is_in_the_sql() {
    let sql = queries(DialectName::Duckdb);
    let rules = crate::config::catalog::builtin()
        .catalog
        .classification
        .expect("built-in rules");
    for rule in &rules.rules {
        for pattern in rule.name_patterns.iter().chain(&rule.queue_patterns) {
            assert!(
                sql.contains(&format!("'{}'", pattern.to_lowercase())),
                "pattern {pattern}"
            );
        }
        for value in rule.qos.iter().chain(&rule.owner_kinds) {
            assert!(sql.contains(&format!("'{}'", value.to_lowercase())), "value {value}");
        }
    }
    for class in crate::model::workload::WorkloadClass::ALL {
        for label in rules.labels.of(class) {
            assert!(sql.contains(&format!("'{}'", label.to_lowercase())), "label {label}");
        }
    }
}

#[test]
fn quotes_and_escapes_follow_each_engine() {
    let odd = "it's";
    assert_eq!(DialectName::Duckdb.dialect().text(odd), "'it''s'");
    assert_eq!(DialectName::Bigquery.dialect().text(odd), "'it\\'s'");
    assert_eq!(DialectName::Spark.dialect().text(odd), "'it\\'s'");
    assert_eq!(DialectName::Duckdb.dialect().quote("end"), "\"end\"");
    assert_eq!(DialectName::Sail.dialect().quote("end"), "`end`");
    assert_eq!(DialectName::Bigquery.dialect().quote("a`b"), "`a\\`b`");
}

/// Issue 67, finding 4 through the warehouse: a GPU count stored as BOOLEAN (or a list, a
/// time) is refused naming the column and its type, as a file's reader refuses it; cast, every
/// `true` would have counted as one GPU.
#[test]
fn a_number_field_stored_as_boolean_or_a_list_is_refused_naming_its_type() {
    for (stored, named) in [
        (StoredAs::Boolean, "BOOLEAN"),
        (StoredAs::Nested, "a list, struct, map or bytes"),
        (StoredAs::Date, "a date"),
    ] {
        let mut columns = columns(StoredAs::Whole);
        if let Some(gpus) = columns.iter_mut().find(|c| c.name == "gpus") {
            gpus.stored = stored;
        }
        let mut mapping = Mapping::default();
        mapping.complete_from_header(&columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>());
        let builder = FieldBuilder {
            dialect: DialectName::Duckdb.dialect(),
            mapping: &mapping,
            columns: &columns,
        };
        let refused = builder
            .fields(&Probe {
                max_util: Some(97.0),
                max_epoch: Vec::new(),
            })
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            refused.contains("column `gpus` (gpus)")
                && refused.contains(named)
                && refused.contains("cannot carry a number"),
            "{stored:?}: {refused}"
        );
    }
}
