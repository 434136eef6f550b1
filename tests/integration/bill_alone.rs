//! `gpuplan audit --bill FILE` with no log: the bill read alone over its own billing period,
//! through the real binary. The expected figures are summed here from the files by Polars' own
//! CSV reader, not by gpuplan's, and the shipped sample's figures must not appear.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde_json::Value;

use crate::common::{Run, gpuplan_in};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/focus");

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn run(home: &Path, args: &[&str]) -> Run {
    let mut all = vec!["audit"];
    all.extend_from_slice(args);
    gpuplan_in(home, &all)
}

fn json(home: &Path, args: &[&str]) -> (Value, Run) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let run = run(home, &all);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    (serde_json::from_str(&run.stdout).expect("audit JSON"), run)
}

fn close(actual: &Value, expected: f64, what: &str) {
    let actual = actual
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number: {actual}"));
    assert!(
        (actual - expected).abs() < 1e-6 * expected.abs().max(1.0),
        "{what}: {actual} != {expected}"
    );
}

/// What an export sums to, read by Polars: every line's BilledCost and EffectiveCost, and the
/// EffectiveCost of the lines whose CommitmentDiscountStatus is Used and Unused.
struct Sums {
    lines: usize,
    billed: f64,
    effective: f64,
    commitment_used: f64,
    commitment_unused: f64,
}

fn sums(path: &str) -> Sums {
    let frame = CsvReadOptions::default()
        .with_infer_schema_length(None)
        .try_into_reader_with_file_path(Some(PathBuf::from(path)))
        .expect("reader")
        .finish()
        .expect("the export reads")
        // Blank rows, which some exports have between lines, are not lines.
        .lazy()
        .filter(col("BilledCost").is_not_null())
        .collect()
        .expect("lines");
    let total = |frame: &DataFrame, column: &str| -> f64 {
        frame
            .column(column)
            .expect("cost column")
            .cast(&DataType::Float64)
            .expect("numbers")
            .f64()
            .expect("f64")
            .sum()
            .unwrap_or(0.0)
    };
    let by_status = |status: &str| -> f64 {
        if frame.column("CommitmentDiscountStatus").is_err() {
            return 0.0;
        }
        let picked = frame
            .clone()
            .lazy()
            .filter(col("CommitmentDiscountStatus").eq(lit(status)))
            .collect()
            .expect("filter");
        total(&picked, "EffectiveCost")
    };
    Sums {
        lines: frame.height(),
        billed: total(&frame, "BilledCost"),
        effective: total(&frame, "EffectiveCost"),
        commitment_used: by_status("Used"),
        commitment_unused: by_status("Unused"),
    }
}

fn ms(rfc3339: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .expect("a time")
        .timestamp_millis()
}

/// The value of a fact (`  label   value`) in a text section.
fn fact<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix(label).filter(|rest| rest.starts_with("  ")))
        .unwrap_or_else(|| panic!("no fact {label}:\n{text}"))
        .trim()
}

/// The bill's fleet figures, over the window, against the independent sums.
fn assert_sums(bill: &Value, expected: &Sums, what: &str) {
    let fleet = &bill["fleet"];
    assert_eq!(fleet["lines"], expected.lines as u64, "{what}: lines");
    let window = &fleet["window"];
    close(&window["total"]["billed_usd"], expected.billed, what);
    close(&window["total"]["effective_usd"], expected.effective, what);
    close(
        &window["commitment_used"]["effective_usd"],
        expected.commitment_used,
        what,
    );
    close(
        &window["commitment_unused"]["effective_usd"],
        expected.commitment_unused,
        what,
    );
    assert_eq!(bill["outside_window"]["lines"], 0, "{what}: nothing left out");
}

#[test]
fn a_bill_alone_is_read_over_its_own_billing_period_whole() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = fixture("aws-focus-1.0.csv");
    let (report, run) = json(home.path(), &["--bill", &file]);
    let bill = &report["bill"];

    // June to October 2026: the export's BillingPeriodStart/End, not the sample's 90 days.
    assert_eq!(bill["window_basis"], "billing_period");
    assert_eq!(bill["window_start_ms"], ms("2026-06-01T00:00:00Z"));
    assert_eq!(bill["window_end_ms"], ms("2026-11-01T00:00:00Z"));
    close(
        &bill["window_hours"],
        (30.0 + 31.0 + 31.0 + 30.0 + 31.0) * 24.0,
        "hours",
    );

    let expected = sums(&file);
    assert_eq!(expected.lines, 119);
    assert!(expected.billed > 1e6 && expected.commitment_used > 0.0 && expected.commitment_unused > 0.0);
    assert_sums(bill, &expected, "aws-focus-1.0");
    assert_eq!(bill["fleet"]["prorated_lines"], 0);
    close(
        &bill["fleet"]["per_month"]["total"]["effective_usd"],
        expected.effective * 730.0 / 3672.0,
        "per month",
    );

    // The SKUs hold every line and every dollar.
    let skus = bill["skus"].as_array().expect("skus");
    let lines: u64 = skus.iter().map(|s| s["lines"].as_u64().expect("lines")).sum();
    let billed: f64 = skus
        .iter()
        .map(|s| s["window"]["total"]["billed_usd"].as_f64().expect("billed"))
        .sum();
    assert_eq!(lines, 119);
    assert!((billed - expected.billed).abs() < 1e-6 * expected.billed);
    assert_eq!(skus[0]["provider"], "AWS");

    // Its tags name its clusters, as written: no audit says which clusters there are.
    let clusters = bill["clusters"].as_array().expect("clusters");
    let names: Vec<&str> = clusters.iter().map(|c| c["name"].as_str().expect("name")).collect();
    assert!(
        names.contains(&"ap-south-h100") && names.contains(&"ap-south-h10"),
        "{names:?}"
    );
    assert_eq!(bill["unknown_tags"], serde_json::json!([]));
    assert!(
        run.stderr.contains("no log given: reading the bill alone"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_bill_alone_shows_nothing_of_the_sample_log() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = fixture("aws-focus-1.0.csv");
    let table = run(home.path(), &["--bill", &file]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(!table.stderr.contains("shipped sample"), "{}", table.stderr);
    assert!(!table.stderr.contains("built-in plan"), "{}", table.stderr);

    // The sample's own audit: every cost and stranded figure it prints per cluster.
    let (sample, _) = json(home.path(), &[SAMPLE]);
    let mut sample_figures = Vec::new();
    for cluster in sample["clusters"].as_array().expect("clusters") {
        for key in ["monthly_cost_usd", "non_training_idle_usd_per_month"] {
            let value = cluster[key].as_f64().expect("a figure");
            sample_figures.push(gpuplan::shared::format::usd(value));
        }
    }
    assert!(sample_figures.len() >= 8);
    for figure in &sample_figures {
        assert!(
            !table.stdout.contains(figure.as_str()),
            "sample figure {figure}:\n{}",
            table.stdout
        );
    }
    for absent in [
        "jobs-90d",
        "CLASSES",
        "CLUSTERS",
        "modelled",
        "gap",
        "2026-07-01T23:50:30Z",
    ] {
        assert!(!table.stdout.contains(absent), "{absent}:\n{}", table.stdout);
    }
    let section = &table.stdout[table.stdout.find("BILL (FINOPS FOCUS)").expect("the bill section")..];
    assert_eq!(
        fact(section, "window"),
        "2026-06-01T00:00:00Z to 2026-11-01T00:00:00Z (3,672 h): the bill's billing period (BillingPeriodStart/End)"
    );
    assert!(fact(section, "log").starts_with("none given"), "{section}");
    // Notes and facts (one run of spaces between label and value at most) fit in 120 columns.
    for line in section.lines() {
        if line.trim().split("  ").filter(|part| !part.is_empty()).count() <= 2 {
            assert!(line.chars().count() <= 120, "{} columns: {line}", line.chars().count());
        }
    }
    let fleet: Vec<&str> = section
        .lines()
        .find(|l| l.trim_start().starts_with("fleet "))
        .expect("the fleet row")
        .split_whitespace()
        .collect();
    // cluster, lines, billed, effective, unused, GPU-h, resource-h: over the billing period.
    assert_eq!(fleet[..5], ["fleet", "119", "$13,864,350", "$7,179,731", "$8,299"]);
}

#[test]
fn the_json_of_a_bill_alone_holds_the_bill_and_no_audit() {
    let home = tempfile::tempdir().expect("tempdir");
    let files = [fixture("aws-focus-1.2.csv"), fixture("draft-serviceprovider.csv")];
    let (report, _) = json(home.path(), &["--bill", &files[0], "--bill", &files[1]]);
    let mut keys: Vec<&str> = report.as_object().expect("object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["bill", "inputs"]);
    assert_eq!(report["inputs"], serde_json::json!([]));
    let bill = &report["bill"];
    // The draft export has no billing period: the window spans every line's periods.
    assert_eq!(bill["window_basis"], "charge_period");
    assert_eq!(bill["window_start_ms"], ms("2026-07-01T00:00:00Z"));
    assert_eq!(bill["window_end_ms"], ms("2026-10-01T00:00:00Z"));
    for cluster in bill["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .chain([&bill["fleet"]])
    {
        assert!(cluster["modelled_usd_per_month"].is_null(), "{cluster}");
        assert!(cluster["gap"].is_null(), "{cluster}");
    }
    let (a, b) = (sums(&files[0]), sums(&files[1]));
    let both = Sums {
        lines: a.lines + b.lines,
        billed: a.billed + b.billed,
        effective: a.effective + b.effective,
        commitment_used: a.commitment_used + b.commitment_used,
        commitment_unused: a.commitment_unused + b.commitment_unused,
    };
    assert_sums(bill, &both, "1.2 and draft");
    close(
        &bill["fleet"]["window"]["reservation_unused"]["effective_usd"],
        // us-west-h200's idle reservation: 2 of 30 p5en in July, 3 in September, at $84.80/h.
        (2.0 * 744.0 + 3.0 * 720.0) * 84.80,
        "reservation unused",
    );
    assert_eq!(bill["charged_beyond_window"], 0);
}

#[test]
fn with_a_log_the_bill_is_set_against_its_window_and_lines_outside_are_said() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = fixture("aws-focus-1.0.csv");
    let (report, _) = json(home.path(), &[SAMPLE, "--bill", &file]);
    let bill = &report["bill"];
    assert_eq!(bill["window_basis"], "audit");
    assert_eq!(bill["window_start_ms"], report["window"]["start_ms"]);
    // June and October lie outside the sample's window.
    assert_eq!(bill["outside_window"]["lines"], 2);
    let table = run(home.path(), &[SAMPLE, "--bill", &file]);
    let section = &table.stdout[table.stdout.find("BILL (FINOPS FOCUS)").expect("the bill section")..];
    assert!(fact(section, "outside window").starts_with("2 lines"), "{section}");
    assert!(fact(section, "window").ends_with(": the audit's"), "{section}");

    // A log of another period: the bill falls wholly outside, and the section says why it is 0.
    let log = home.path().join("march.csv");
    std::fs::write(
        &log,
        "job_id,user,cluster,gpus,start,end\n1,a,east,8,2021-03-01T00:00:00Z,2021-03-02T00:00:00Z\n",
    )
    .expect("write the log");
    let log = log.display().to_string();
    let table = run(home.path(), &[&log, "--all-time", "--bill", &file]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table.stdout.contains("No line of the bill falls in the log's window"),
        "{}",
        table.stdout
    );
    let section = &table.stdout[table.stdout.find("BILL (FINOPS FOCUS)").expect("the bill section")..];
    assert!(fact(section, "outside window").starts_with("119 lines"), "{section}");
}

#[test]
fn a_bill_alone_refuses_log_flags_and_empty_or_broken_exports() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = fixture("aws-focus-1.0.csv");
    let since = run(home.path(), &["--bill", &file, "--since", "2026-07-01"]);
    assert_eq!(since.code, 2);
    assert!(
        since
            .stderr
            .contains("error: --since: reads or windows a log, and no log was given"),
        "{}",
        since.stderr
    );

    let header_only = home.path().join("header.csv");
    std::fs::write(
        &header_only,
        "ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,ChargeCategory\n",
    )
    .expect("write");
    let header_only = header_only.display().to_string();
    let empty = run(home.path(), &["--bill", &header_only]);
    assert_eq!(empty.code, 2, "{}", empty.stdout);
    assert!(
        empty.stderr.contains(&format!(
            "error: {header_only}: no cost lines: a bill given without a log"
        )),
        "{}",
        empty.stderr
    );

    let bad = fixture("broken/bad-cost.csv");
    let broken = run(home.path(), &["--bill", &bad]);
    assert_eq!(broken.code, 2);
    assert!(
        broken
            .stderr
            .contains(&format!("{bad}:4:43: BilledCost: '$73,150.08' is not a decimal number")),
        "{}",
        broken.stderr
    );
    assert!(!broken.stderr.contains("panicked"), "{}", broken.stderr);
}

/// The FOCUS specification's own examples (FinOps Foundation, `FOCUS_Spec`,
/// `specification/data/`, CC BY 4.0), shipped in `tests/fixtures/focus/spec/`.
/// Each readable one, read alone, sums to what Polars sums from it; the ones that break the
/// specification's own formats are refused at their line and column.
#[test]
fn the_specifications_own_examples_read_alone_sum_to_their_lines() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/focus/spec");
    let entries = std::fs::read_dir(&dir).expect("the specification's examples are shipped");
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    let home = tempfile::tempdir().expect("tempdir");
    let mut read = 0;
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let path = path.display().to_string();
        let run = run(home.path(), &["--bill", &path, "--format", "json"]);
        assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
        match name {
            // The specification's own typo: an hour 30, on the last line of each.
            "commitment_discount_purchase_scenario_2.csv" | "commitment_discount_purchase_scenario_3.csv" => {
                let line = if name.ends_with("2.csv") { 4 } else { 5 };
                assert_eq!(run.code, 2, "{name}");
                assert!(
                    run.stderr.contains(&format!(
                        "{path}:{line}:64: ChargePeriodEnd: '2023-02-01T30:00:00Z' is not a date-time"
                    )),
                    "{}",
                    run.stderr
                );
            }
            // Dates written `4/1/25` (and amounts `$10,000.00 `): refused where they are.
            n if n.starts_with("simple_saas") || n.starts_with("saas_spend") || n.starts_with("virtual_currency") => {
                assert_eq!(run.code, 2, "{name}: {}", run.stdout);
                assert!(
                    run.stderr.contains(&format!("error: {path}:2:"))
                        && run.stderr.contains("ChargePeriodStart: '4/1/25' is not a date-time"),
                    "{}",
                    run.stderr
                );
            }
            _ => {
                assert_eq!(run.code, 0, "{name}: {}", run.stderr);
                let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
                let bill = &report["bill"];
                assert_eq!(bill["window_basis"], "billing_period", "{name}");
                assert_eq!(bill["window_start_ms"], ms("2023-01-01T00:00:00Z"), "{name}");
                assert_eq!(bill["window_end_ms"], ms("2023-02-01T00:00:00Z"), "{name}");
                assert_sums(bill, &sums(&path), name);
                read += 1;
            }
        }
    }
    assert!(read >= 9, "{read} examples read from {}", dir.display());
}
