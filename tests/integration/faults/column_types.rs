//! Issue 67, finding 4: a GPU column typed BOOLEAN (Parquet) was read as text, "true" and
//! "false", and counted: 86,325 GPU-h where the truth was 696,486, with no word about the type.
//! A column whose type cannot carry its field is now refused, naming the column and its type.

use polars::prelude::{DataFrame, NamedFrom, ParquetWriter, Series};

use crate::common::gpuplan_in;

#[test]
fn a_boolean_gpu_column_is_refused_naming_its_type() {
    let home = tempfile::tempdir().expect("home");
    let log = home.path().join("jobs.parquet");
    let mut frame = DataFrame::new(
        3,
        vec![
            Series::new("job_id".into(), &["1", "2", "3"]).into(),
            Series::new("cluster".into(), &["lab", "lab", "lab"]).into(),
            Series::new(
                "start".into(),
                &["2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z", "2025-01-03T00:00:00Z"],
            )
            .into(),
            Series::new(
                "end".into(),
                &["2025-01-01T10:00:00Z", "2025-01-02T10:00:00Z", "2025-01-03T10:00:00Z"],
            )
            .into(),
            Series::new("gpus".into(), &[true, false, true]).into(),
        ],
    )
    .expect("frame");
    ParquetWriter::new(std::fs::File::create(&log).expect("file"))
        .finish(&mut frame)
        .expect("parquet");
    let run = gpuplan_in(home.path(), &["audit", log.to_str().expect("path"), "--all-time"]);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("column gpus (gpus) is of type bool, which cannot carry a number"),
        "{}",
        run.stderr
    );
}

/// The same through a warehouse (issue 67, finding 4): DuckDB reads the fixture with its GPU
/// count made BOOLEAN (was: cast, every `true` one GPU: 86,325 GPU-h where the truth was
/// 696,486). The audit is refused naming the column and its type, on every DuckDB line
/// installed. Without the engines (`.ci/engines.sh`) it says so and passes, except under CI.
#[test]
fn a_boolean_gpu_column_in_a_warehouse_is_refused_naming_its_type() {
    use crate::warehouse_fixture::{FixtureHome, duckdb_flags, duckdb_lines};
    let Some(FixtureHome { home, fixture, .. }) = FixtureHome::with("lib/libduckdb.so") else {
        eprintln!("no DuckDB engine in ~/.cache/gpuplan/engines: run .ci/engines.sh");
        assert!(std::env::var_os("CI").is_none(), "CI must have the engines");
        return;
    };
    let from = format!(
        "(SELECT * REPLACE (gpus > 0 AS gpus) FROM read_parquet('{}'))",
        fixture.display()
    );
    let lines = duckdb_lines();
    assert!(!lines.is_empty(), "a DuckDB line");
    for duckdb in &lines {
        let env = duckdb.env(home.path());
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut args = vec!["audit", "--all-time", "--format", "json"];
        args.extend_from_slice(&duckdb_flags(&from));
        let run = crate::common::gpuplan_with(home.path(), &args, &env);
        assert_eq!(run.code, 2, "{}: {}", duckdb.name(), run.stdout);
        assert!(
            run.stderr.contains("column `gpus` (gpus)")
                && run.stderr.contains("BOOLEAN")
                && run.stderr.contains("cannot carry a number"),
            "{}: {}",
            duckdb.name(),
            run.stderr
        );
    }
}
