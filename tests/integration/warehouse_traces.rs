//! The public traces through the engine (docs/warehouse.md): a slice of each, written as
//! Parquet as its publisher's columns, audited through DuckDB with the mapping `gpuplan mapping
//! init` prints for the trace, equals the in-process audit of the published file.
//!
//! - DLRM 2025 (tests/fixtures/dlrm-2025): seconds from the trace's start placed at its
//!   `time_origin`, empty scheduling times left-censored to the trace's first instant, empty
//!   deletions right-censored, every instance LS serving;
//! - openb (tests/fixtures/openb): `gpu_milli` thousandths of each of `num_gpu` GPUs, seconds
//!   from the trace's start, pods never scheduled;
//! - Philly (sample-data/philly-excerpt.json): nested JSON, a job's attempts its runs. A table
//!   has no nesting: it is written one row per attempt (the job's id, GPUs and submit time on
//!   each), and its times as published, text the engine reads as UTC.
//!
//! Among jobs of equal GPU-hours the largest-jobs list keeps the least job id on both sides (a
//! table has no order to keep the first seen by): DLRM's instances censored at both ends tie by
//! the hundred, and the lists are the same job by job.
//! The whole traces: bench/public-traces-warehouse.sh.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde_json::Value;

use crate::common::gpuplan_in;
use crate::warehouse_fixture::{audit_json, audit_json_with, comparable, differs, engines_with};

/// A published table written as Parquet, its columns and types as the CSV reads (the trace's
/// empty and `NaN` times null).
fn csv_as_parquet(csv: &Path, parquet: &Path) {
    let nulls: Vec<PlSmallStr> = ["", "NaN", "nan"].into_iter().map(PlSmallStr::from).collect();
    let mut frame = CsvReadOptions::default()
        .with_has_header(true)
        .map_parse_options(|options| options.with_null_values(Some(NullValues::AllColumns(nulls.clone()))))
        .try_into_reader_with_file_path(Some(csv.to_path_buf()))
        .expect("reader")
        .finish()
        .expect("the trace's rows");
    let file = std::fs::File::create(parquet).expect("parquet file");
    ParquetWriter::new(file).finish(&mut frame).expect("write the parquet");
}

/// The mapping gpuplan prints for a recognised trace, written beside it.
fn mapping_for(home: &Path, trace: &Path) -> PathBuf {
    let run = gpuplan_in(home, &["mapping", "init", trace.to_str().expect("utf-8")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mapping = home.join("mapping.toml");
    std::fs::write(&mapping, run.stdout).expect("mapping");
    mapping
}

/// The trace's in-process audit and DuckDB's over `from`, with `extra` flags (a mapping).
fn both_audits(home: &Path, trace: &Path, from: &str, extra: &[&str], engines: &Path) -> (Value, Value) {
    let in_process = audit_json(home, &[trace.to_str().expect("utf-8")], None);
    let mut flags = vec!["--warehouse-driver", "duckdb", "--warehouse-from", from];
    flags.extend_from_slice(extra);
    // HOME moved: only the DuckDB named here can answer.
    let env = [
        ("GPUPLAN_ADBC_PATH", engines.join("lib").display().to_string()),
        ("HOME", home.display().to_string()),
    ];
    (in_process, audit_json_with(home, &flags, &env))
}

/// The audits agree, the largest jobs included; returns how many of the in-process audit's
/// largest jobs share their GPU-hours with another of their cluster and class (ties the list
/// had to break).
fn assert_same_with_ties(in_process: &Value, warehouse: &Value, trace: &str) -> usize {
    if let Some(difference) = differs(&comparable(in_process.clone()), &comparable(warehouse.clone()), "audit") {
        panic!("{trace} through DuckDB disagrees with the in-process audit at {difference}");
    }
    let top = in_process["top_jobs"].as_array().cloned().unwrap_or_default();
    top.iter()
        .filter(|a| {
            top.iter().any(|b| {
                a["job_id"] != b["job_id"]
                    && a["cluster"] == b["cluster"]
                    && a["class"] == b["class"]
                    && a["gpu_hours"] == b["gpu_hours"]
            })
        })
        .count()
}

#[test]
fn the_dlrm_2025_slice_through_duckdb_is_its_in_process_audit() {
    let Some(engines) = engines_with("lib/libduckdb.so") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dlrm-2025/disaggregated_DLRM_trace.csv");
    let parquet = home.path().join("dlrm.parquet");
    csv_as_parquet(&trace, &parquet);
    let mapping = mapping_for(home.path(), &trace);
    let mapping_text = std::fs::read_to_string(&mapping).expect("mapping");
    for what in [
        "time = \"offset-s\"",
        "empty_start = \"trace-start\"",
        "cluster = \"dlrm\"",
    ] {
        assert!(mapping_text.contains(what), "{what} in {mapping_text}");
    }
    let from = format!("read_parquet('{}')", parquet.display());
    let mapping = mapping.display().to_string();
    let (in_process, warehouse) = both_audits(home.path(), &trace, &from, &["--mapping", &mapping], &engines);
    let ties = assert_same_with_ties(&in_process, &warehouse, "DLRM 2025");
    // The slice is what the test is for: censored instances (ties among them), and CPU-node
    // ones (no GPU) kept apart as rows set aside, on both sides.
    assert!(in_process["jobs_total"].as_u64().unwrap_or(0) > 100);
    assert!(in_process["rows_rejected_total"].as_u64().unwrap_or(0) > 100);
    assert!(
        ties > 0,
        "no tie among DLRM's censored instances: the test no longer shows one"
    );
    assert!(in_process["gpu_hours_total"].as_f64().unwrap_or(0.0) > 1000.0);
    // --time-origin moves second 0 in both, and they still agree.
    let moved = ["--mapping", &mapping, "--time-origin", "2025-03-03"];
    let in_process = audit_json(
        home.path(),
        &[trace.to_str().expect("utf-8"), "--time-origin", "2025-03-03"],
        None,
    );
    let (_, warehouse) = both_audits(home.path(), &trace, &from, &moved, &engines);
    assert_same_with_ties(&in_process, &warehouse, "DLRM 2025 from 2025-03-03");
    assert!(
        in_process["window"]["start"]
            .as_str()
            .is_some_and(|s| s.starts_with("2025-03-03")),
        "{}",
        in_process["window"]
    );
}

#[test]
fn the_openb_slice_through_duckdb_is_its_in_process_audit() {
    let Some(engines) = engines_with("lib/libduckdb.so") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openb/openb_pod_list_default.csv");
    let parquet = home.path().join("openb.parquet");
    csv_as_parquet(&trace, &parquet);
    let mapping = mapping_for(home.path(), &trace);
    let mapping_text = std::fs::read_to_string(&mapping).expect("mapping");
    for what in [
        "gpu_multiplier = \"num_gpu\"",
        "gpus = \"milli\"",
        "time = \"offset-s\"",
    ] {
        assert!(mapping_text.contains(what), "{what} in {mapping_text}");
    }
    let from = format!("read_parquet('{}')", parquet.display());
    let mapping = mapping.display().to_string();
    let (in_process, warehouse) = both_audits(home.path(), &trace, &from, &["--mapping", &mapping], &engines);
    assert_same_with_ties(&in_process, &warehouse, "openb");
    assert!(in_process["jobs_total"].as_u64().unwrap_or(0) > 300);
    // Shared GPUs (a share of each of several) and pods never scheduled are in the slice.
    assert!(in_process["classes"]["inference"]["jobs"].as_u64().unwrap_or(0) > 0);
    let never_started: u64 = ["training", "inference", "burst"]
        .iter()
        .map(|class| in_process["pending"][class]["jobs"].as_u64().unwrap_or(0))
        .sum();
    assert!(never_started > 0, "{}", in_process["pending"]);
}

/// Philly's jobs as a table: one row per attempt, the job's id, GPUs and submit time on each,
/// the times as published; the cluster the file's name, as the in-process reader names it.
fn philly_as_parquet(json: &Path, parquet: &Path) -> usize {
    let jobs: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(json).expect("philly")).expect("JSON");
    let cluster = json.file_stem().and_then(|s| s.to_str()).expect("a name").to_string();
    let (mut ids, mut gpus, mut submits, mut starts, mut ends) = (vec![], vec![], vec![], vec![], vec![]);
    for job in &jobs {
        let attempts = job["attempts"].as_array().cloned().unwrap_or_default();
        // A job without attempts never ran: one row with its submit time and no start.
        let runs = if attempts.is_empty() {
            vec![Value::Null]
        } else {
            attempts
        };
        for attempt in runs {
            ids.push(job["id"].as_str().map(str::to_string));
            gpus.push(job["num_gpus"].as_f64());
            submits.push(job["submitted_time"].as_str().map(str::to_string));
            starts.push(attempt["start_time"].as_str().map(str::to_string));
            ends.push(attempt["end_time"].as_str().map(str::to_string));
        }
    }
    let rows = ids.len();
    let mut frame = DataFrame::new(
        rows,
        vec![
            Series::new("job_id".into(), ids).into(),
            Series::new("cluster".into(), vec![cluster; rows]).into(),
            Series::new("gpus".into(), gpus).into(),
            Series::new("submit".into(), submits).into(),
            Series::new("start".into(), starts).into(),
            Series::new("end".into(), ends).into(),
        ],
    )
    .expect("frame");
    let file = std::fs::File::create(parquet).expect("parquet file");
    ParquetWriter::new(file).finish(&mut frame).expect("write the parquet");
    rows
}

#[test]
fn the_philly_excerpt_one_row_per_attempt_through_duckdb_is_its_in_process_audit() {
    let Some(engines) = engines_with("lib/libduckdb.so") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/philly-excerpt.json");
    let parquet = home.path().join("philly.parquet");
    let rows = philly_as_parquet(&trace, &parquet);
    let from = format!("read_parquet('{}')", parquet.display());
    let (in_process, warehouse) = both_audits(home.path(), &trace, &from, &[], &engines);
    assert_same_with_ties(&in_process, &warehouse, "Philly");
    // Restarted jobs are one job of several runs on both sides.
    let (jobs, runs) = (
        in_process["jobs_total"].as_u64().unwrap_or(0),
        in_process["runs_total"].as_u64().unwrap_or(0),
    );
    assert_eq!(runs as usize, rows);
    assert!(runs > jobs && jobs >= 300, "{runs} runs of {jobs} jobs");
}
