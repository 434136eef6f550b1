//! Hostile files (tests/fixtures/hostile/, written by its make.py from the formats'
//! specifications), each pinned to its outcome: a result, or exit 2 with a message that names
//! the file (and its line where it has one). Never a panic, a hang or unbounded memory.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Run, gpuplan_in};
use serde_json::Value;

fn hostile(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile")
        .join(name)
}

fn run(args: &[&str]) -> Run {
    let home = tempfile::tempdir().expect("home");
    gpuplan_in(home.path(), args)
}

/// Exit 2, the file named, and `expected` in the message.
fn refused(args: &[&str], file: &str, expected: &str) {
    let out = run(args);
    assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{args:?}: {}", out.stderr);
    assert!(
        out.stderr.contains(file),
        "{args:?} does not name {file}: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains(expected),
        "{args:?}: expected {expected:?} in {}",
        out.stderr
    );
}

fn audited(file: &str) -> Value {
    let path = hostile(file);
    let out = run(&["audit", path.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(out.code, 0, "{file}: {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("JSON")
}

#[test]
fn hostile_logs_are_refused_with_their_name_and_why() {
    let cases = [
        ("log-empty.csv", "the file is empty"),
        ("log-header-only.csv", "no usable rows"),
        ("log-only-newlines.csv", "no start-time column"),
        ("log-bom-only.csv", "no start-time column"),
        ("log-truncated-quote.csv", "column 'name'"),
        ("log-binary.csv", "binary content (NUL bytes)"),
        ("log-nul-bytes.csv", "binary content (NUL bytes)"),
        ("log-utf16.csv", "UTF-16 text"),
        ("log-wide-10000-columns.csv", "no start-time column"),
        ("log-deep.json", "line 1, column 65: JSON nested deeper than 64 levels"),
        ("log-deep.ndjson", "nested deeper than 64 levels"),
        (
            "log-not-json.json",
            "line 1, column 3: expected one JSON object per line: key must be a string",
        ),
        ("log-json-scalars.ndjson", "line 1"),
        ("philly-truncated.json", "no usable rows"),
        ("philly-no-attempts.json", "no usable rows"),
        ("sacct-garbage.txt", "no usable rows"),
        ("dcgm-long-garbage.csv", "no usable rows"),
    ];
    for (file, expected) in cases {
        let path = hostile(file);
        refused(&["audit", path.to_str().expect("utf-8")], file, expected);
    }
}

#[test]
fn hostile_rows_are_set_aside_and_the_rest_audited() {
    // A GPU count of 1e30 is implausible, not priced: set aside as a number.
    let a = audited("log-gpus-1e30.csv");
    assert_eq!(a["rows_rejected"]["unparseable_number"], 1);
    assert_eq!(a["gpu_hours_total"], 192.0);
    let a = audited("log-gpus-nan-inf.csv");
    assert_eq!(a["rows_rejected"]["unparseable_number"], 2);
    assert_eq!(a["gpu_hours_total"], 192.0);
    // Epoch seconds past any calendar: the row is an unparseable time. Its size makes the
    // column read as milliseconds, which puts the other row in January 1970: a time outside
    // 2000..now+1d, set aside too, so nothing is left to audit.
    let path = hostile("log-epoch-overflow.csv");
    refused(
        &["audit", path.to_str().expect("utf-8")],
        "log-epoch-overflow.csv",
        "no usable rows",
    );
    let a = audited("log-crlf-and-trailing-commas.csv");
    assert_eq!(a["rows_rejected_total"], 0);
    assert_eq!(a["gpu_hours_total"], 192.0);
    // A run from year 1 to 9999 cannot be true: set aside as a time outside 2000..now+1d, it
    // no longer stretches the window; the other run is audited alone.
    let a = audited("log-span-10000-years.csv");
    assert_eq!(a["rows_rejected"]["time_out_of_range"], 1);
    assert_eq!(a["window"]["days"], 1.0);
    assert_eq!(a["gpu_hours_total"], 96.0);
    // A start in year -9999 alike; the file's one row gone, nothing is left to audit.
    let path = hostile("log-negative-year.csv");
    refused(
        &["audit", path.to_str().expect("utf-8")],
        "log-negative-year.csv",
        "no usable rows",
    );
    // A Slurm host list of a billion hosts is a warning on its row, not a billion strings.
    let path = hostile("sacct-hostlist-bomb.txt");
    let out = run(&["audit", path.to_str().expect("utf-8")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("sacct-hostlist-bomb.txt:2"), "{}", out.stderr);
    assert!(out.stderr.contains("expected at most 100000 hosts"), "{}", out.stderr);
}

#[test]
fn hostile_plans_are_refused_at_their_line_never_reported_as_inf_or_nan() {
    let cases = [
        ("plan-binary.toml", ":1:1: expected UTF-8 text"),
        ("plan-utf16.toml", ":1:1: expected UTF-8 text"),
        ("plan-truncated.toml", "expected `=`"),
        ("plan-schema-999.toml", ":4:18: schema_version: expected 1"),
        ("plan-nan-mfu.toml", "accelerators[0].mfu: expected a finite number"),
        (
            "plan-inf-price.toml",
            "clusters[0].usd_per_gpu_hour: expected a finite number",
        ),
        ("plan-zero-chips.toml", "training.chips: expected a number above 0"),
        ("plan-zero-mfu.toml", "accelerators[0].mfu: expected an MFU above 0"),
        (
            "plan-zero-throughput.toml",
            "inference.throughput_tokens_per_hour: expected a number above 0",
        ),
        (
            "plan-probability-above-one.toml",
            "risks[0].probability: expected a fraction from 0 to 1",
        ),
        (
            "plan-billion-draws.toml",
            "monte_carlo.draws: expected 1 to 10,000,000 draws",
        ),
        (
            "plan-1e30-gpus.toml",
            "clusters[0].gpus: expected between 1 and 10,000,000 GPUs",
        ),
        (
            "plan-negative-month.toml",
            ":7:19: hours_per_month: expected a number above 0",
        ),
        (
            "plan-zero-month.toml",
            ":7:19: hours_per_month: expected a number above 0",
        ),
        (
            "plan-overflowing-tokens.toml",
            ":11:10: training.tokens: expected 0 or a size from 1e-9 to 1e18",
        ),
        (
            "plan-vanishing-probability.toml",
            "risks[0].probability: expected 0 or a size from 1e-9 to 1e18",
        ),
        ("plan-deep-array.toml", "max recursion depth"),
    ];
    for (file, expected) in cases {
        let path = hostile(file);
        refused(&["report", "--plan", path.to_str().expect("utf-8")], file, expected);
    }
}

#[test]
fn ten_thousand_risks_and_a_twenty_megabyte_field_stay_bounded() {
    let dir = tempfile::tempdir().expect("dir");
    // 10,000 risks: the report reads them all and the exposure is their sum.
    let mut plan = common::default_plan_text();
    for i in 0..10_000 {
        plan.push_str(&format!(
            "\n[[risks]]\nscenario = \"risk {i}\"\nprobability = 0.01\nimpact_usd = 100.0\nunit = \"event\"\nexpected_count = 1.0\n"
        ));
    }
    let path = dir.path().join("risks.toml");
    std::fs::write(&path, plan).expect("plan");
    let out = run(&["report", "--plan", path.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(report["risk"]["rows"].as_array().map(Vec::len), Some(10_004));
    let exposure = report["risk"]["weighted_exposure_usd"].as_f64().expect("exposure");
    assert!((exposure - (29_700.0 + 10_000.0)).abs() < 1e-6, "{exposure}");
    // A 20 MB job name: read, and the row audited.
    let mut log = String::from("job_id,cluster,name,start,end,gpus\n1,c1,");
    log.push_str(&"x".repeat(20 << 20));
    log.push_str(",2026-01-01T00:00:00Z,2026-01-02T00:00:00Z,8\n");
    let path = dir.path().join("big-field.csv");
    std::fs::write(&path, log).expect("log");
    let out = run(&["audit", path.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let audit: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(audit["gpu_hours_total"], 192.0);
}

#[test]
fn hostile_mappings_and_folders_are_refused_by_name() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
    let cases = [
        ("mapping-schema-999.toml", ":1:18: schema_version: expected 1"),
        (
            "mapping-unknown-field.toml",
            ":3:20: columns.favourite_colour: unknown field",
        ),
        ("mapping-bad-strftime.toml", ":3:8: units.time: the strftime pattern"),
        (
            "mapping-two-char-delimiter.toml",
            ":2:13: delimiter: expected a single ASCII character",
        ),
    ];
    for (file, expected) in cases {
        let path = hostile(file);
        refused(
            &["audit", sample, "--mapping", path.to_str().expect("utf-8")],
            file,
            expected,
        );
    }
    // An empty folder, and a folder whose only entry is a symbolic link to itself.
    let dir = tempfile::tempdir().expect("dir");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).expect("folder");
    refused(
        &["audit", empty.to_str().expect("utf-8")],
        "empty",
        "no .parquet file in this folder or its subfolders",
    );
    let looped = dir.path().join("looped");
    std::fs::create_dir(&looped).expect("folder");
    std::os::unix::fs::symlink(&looped, looped.join("self")).expect("symlink");
    refused(
        &["audit", looped.to_str().expect("utf-8")],
        "looped",
        "no .parquet file in this folder or its subfolders",
    );
    // A user-latency CSV written in percent is refused at its line.
    let plan = dir.path().join("plan.toml");
    let text = common::default_plan_text();
    let at = text.find("\n[reliability]").expect("reliability");
    let users = hostile("users-percent.csv");
    std::fs::write(
        &plan,
        format!("{}\nusers_csv = \"{}\"\n{}", &text[..at], users.display(), &text[at..]),
    )
    .expect("plan");
    refused(
        &["report", "--plan", plan.to_str().expect("utf-8")],
        "users-percent.csv:2",
        "0.35",
    );
}

#[test]
fn a_parquet_file_cut_in_half_is_refused_by_name() {
    let dir = tempfile::tempdir().expect("dir");
    let whole = dir.path().join("whole.parquet");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
    // A Parquet log written by Polars from the sample, whole and then cut in half.
    use polars::prelude::{CsvReadOptions, ParquetWriter, SerReader};
    let mut frame = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(PathBuf::from(sample)))
        .expect("reader")
        .finish()
        .expect("frame");
    let file = std::fs::File::create(&whole).expect("file");
    ParquetWriter::new(file).finish(&mut frame).expect("parquet");
    let bytes = std::fs::read(&whole).expect("bytes");
    let half = dir.path().join("half.parquet");
    std::fs::write(&half, &bytes[..bytes.len() / 2]).expect("half");
    let out = run(&["audit", whole.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(out.code, 0, "the whole file audits: {}", out.stderr);
    refused(&["audit", half.to_str().expect("utf-8")], "half.parquet", "");
}

/// Found by fuzzing: a Parquet file whose column statistics hold a malformed boolean made
/// Polars' decoder panic (`thrift bool field`) and gpuplan exit 101.
#[test]
fn a_parquet_file_polars_cannot_decode_is_refused_not_a_crash() {
    let path = hostile("parquet-damaged-statistics.parquet");
    refused(
        &["audit", path.to_str().expect("utf-8"), "--all-time"],
        "parquet-damaged-statistics.parquet",
        "not a readable Parquet file (truncated or damaged?)",
    );
}

/// Found by fuzzing: a data page whose header says it holds -1 values made Polars reserve 2^61
/// bytes for the page's validity bitmap, and the failed allocation aborted the process.
#[test]
fn a_parquet_page_with_a_negative_count_is_refused_not_an_abort() {
    let path = hostile("parquet-negative-page-count.parquet");
    refused(
        &["audit", path.to_str().expect("utf-8"), "--all-time"],
        "parquet-negative-page-count.parquet",
        "not a readable Parquet file (truncated or damaged?): row group 1, column name: a data page says it holds -33 values",
    );
}

/// The sacct, Philly and DCGM readers name the file in their messages, and the loader names it
/// again: the message said `x.json: x.json: …`. Each file is named once.
#[test]
fn a_readers_message_names_its_file_once() {
    let dir = tempfile::tempdir().expect("dir");
    for (name, layout) in [
        ("jobs.sacct", "sacct"),
        ("jobs.json", "philly"),
        ("util.csv", "dcgm-long"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, "").expect("file");
        let shown = path.to_str().expect("utf-8");
        let out = run(&["audit", shown, "--input-format", layout]);
        assert_eq!(out.code, 2, "{layout}: {}", out.stderr);
        assert_eq!(out.stderr.matches(shown).count(), 1, "{layout}: {}", out.stderr);
        assert!(out.stderr.contains("the file is empty"), "{layout}: {}", out.stderr);
    }
}
