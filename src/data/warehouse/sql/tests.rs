//! The audit's SQL in each dialect, kept as golden files (snapshots/): a change to the
//! generator shows as a change to every engine's query, reviewed before it is accepted
//! (`INSTA_UPDATE=always cargo test --release warehouse::sql`). DuckDB's and Sail's queries
//! also run against the real engines (tests/integration/warehouse.rs); BigQuery's, Snowflake's,
//! PostgreSQL's and Spark's are checked here only.

use super::fields::{FieldBuilder, Probe, SourceColumn};
use super::{AuditSql, Pass, TotalsWindow};
use crate::data::readers::mapping::Mapping;
use crate::data::warehouse::dialect::{DialectName, StoredAs};
use crate::model::fleet::Window;

fn columns() -> Vec<SourceColumn> {
    let column = |name: &str, stored: StoredAs| SourceColumn {
        name: name.to_string(),
        stored,
    };
    vec![
        column("job_id", StoredAs::Number),
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

/// Every query of an audit over `columns()` with the built-in rules, in one dialect.
fn queries(dialect: DialectName) -> String {
    let rules = crate::config::catalog::builtin()
        .catalog
        .classification
        .expect("built-in rules");
    let columns = columns();
    let mut mapping = Mapping::default();
    mapping.complete_from_header(&columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>());
    let builder = FieldBuilder {
        dialect: dialect.dialect(),
        mapping: &mapping,
        columns: &columns,
    };
    // `gpu_util_pct` says percent by its name: nothing to probe.
    let probe = builder.probe_query("jobs").unwrap_or_else(|| "(none)".to_string());
    let fields = builder
        .fields(&Probe {
            max_util: Some(97.0),
            max_epoch: Vec::new(),
        })
        .expect("fields");
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
    // The second of three passes, where the engine can split the audit.
    let pass = Pass { index: 1, of: 3 };
    if let Some(stems) = sql.stem_parts_statement(at(Some(pass))) {
        let totals = sql.totals_query(at(Some(pass)));
        golden.push_str(&format!(
            "\n-- stems, pass 2 of 3\n{stems}\n\n-- totals, pass 2 of 3\n{totals}\n"
        ));
    }
    golden
}

#[test]
fn each_dialect_s_audit_sql_is_its_golden_file() {
    for dialect in DialectName::ALL {
        insta::assert_snapshot!(format!("audit_sql_{}", dialect.label()), queries(dialect));
    }
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
