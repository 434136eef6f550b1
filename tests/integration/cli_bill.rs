//! `gpuplan audit --bill`: FOCUS cost exports set against the sample log's audit, through the
//! real binary. The fixtures and their design are in tests/fixtures/focus/make_fixtures.py;
//! every expected figure below is worked from that design, not read back from the program.

use crate::common;

use std::path::Path;

use common::{default_plan_text, gpuplan, gpuplan_in};
use polars::prelude::*;
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/focus");

/// The share of July (744 h) inside the window, which opens on 1 July at 23:50:30.
const JUL: f64 = (744.0 * 3600.0 - 85_830.0) / (744.0 * 3600.0);
/// The share of September (720 h) inside the window, which closes on 29 September at 23:50:30.
const SEP: f64 = (28.0 * 86_400.0 + 85_830.0) / (720.0 * 3600.0);
/// A month over the 90-day window: 730 / 2,160 hours.
const PER_MONTH: f64 = 730.0 / 2160.0;

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

/// The default plan with the fixtures' [bill] table, written into `dir`.
fn plan_in(dir: &Path) -> String {
    let bill = std::fs::read_to_string(fixture("bill-plan.toml")).expect("bill plan fragment");
    let path = dir.join("plan.toml");
    std::fs::write(&path, default_plan_text() + "\n" + &bill).expect("write plan");
    path.display().to_string()
}

fn audit_json(home: &Path, args: &[&str]) -> Value {
    let mut all = vec!["audit", SAMPLE, "--format", "json"];
    all.extend_from_slice(args);
    let run = gpuplan_in(home, &all);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("audit JSON")
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

fn cluster<'a>(bill: &'a Value, name: &str) -> &'a Value {
    bill["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no cluster {name}"))
}

fn all_bills() -> [String; 3] {
    [
        fixture("aws-focus-1.0.csv"),
        fixture("aws-focus-1.2.csv"),
        fixture("draft-serviceprovider.csv"),
    ]
}

fn bill_args(files: &[String]) -> Vec<&str> {
    files.iter().flat_map(|f| ["--bill", f.as_str()]).collect()
}

#[test]
fn each_cluster_gets_its_lines_prorated_to_the_window_cash_and_amortized() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan = plan_in(home.path());
    let files = all_bills();
    let mut args = vec!["--plan", plan.as_str()];
    args.extend(bill_args(&files));
    let report = audit_json(home.path(), &args);
    let bill = &report["bill"];

    assert_eq!(bill["window_start_ms"], report["window"]["start_ms"]);
    close(&bill["window_hours"], 2160.0, "window hours");
    let versions: Vec<&str> = bill["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["focus_version"].as_str().expect("version"))
        .collect();
    assert_eq!(versions, ["1.0", "1.2", "1.0"]);
    assert_eq!(bill["files"][2]["provider_column"], "ServiceProviderName");

    // us-east-h100: 21 p5 on demand in July; from August a Savings Plan (bought for
    // $8,077,420.80 cash, 0 effective) covers 16 of them at $57.63/h, 144 h unused in August;
    // 5 on demand in August, 4 × 720 h + 500 h in September; a $5,000 credit by tag.
    let od_month = |hours: f64| hours * 98.32;
    let july = 21.0 * od_month(744.0) * JUL;
    let east_billed =
        july + 8_077_420.80 + 5.0 * od_month(744.0) + (4.0 * od_month(720.0) + od_month(500.0)) * SEP - 5_000.0;
    let east_used = (15.0 * 744.0 + 600.0) * 57.63 + 16.0 * 720.0 * 57.63 * SEP;
    let east_unused = 144.0 * 57.63;
    let east_od = july + 5.0 * od_month(744.0) + (4.0 * od_month(720.0) + od_month(500.0)) * SEP;
    let east_effective = east_used + east_unused + east_od - 5_000.0;
    let east = cluster(bill, "us-east-h100");
    assert_eq!(east["lines"], 66);
    close(&east["window"]["total"]["billed_usd"], east_billed, "east billed");
    close(
        &east["window"]["total"]["effective_usd"],
        east_effective,
        "east effective",
    );
    close(
        &east["window"]["purchase"]["billed_usd"],
        8_077_420.80,
        "east purchase cash",
    );
    close(
        &east["window"]["purchase"]["effective_usd"],
        0.0,
        "east purchase effective",
    );
    close(
        &east["window"]["commitment_used"]["effective_usd"],
        east_used,
        "east used",
    );
    close(
        &east["window"]["commitment_unused"]["effective_usd"],
        east_unused,
        "east unused",
    );
    close(&east["window"]["on_demand"]["billed_usd"], east_od, "east on demand");
    close(&east["window"]["credit"]["effective_usd"], -5_000.0, "east credit");
    close(
        &east["per_month"]["total"]["effective_usd"],
        east_effective * PER_MONTH,
        "east effective per month",
    );
    let east_hours = 21.0 * 744.0 * JUL + 15.0 * 744.0 + 600.0 + 5.0 * 744.0 + (20.0 * 720.0 + 500.0) * SEP;
    close(&east["resource_hours"], east_hours, "east instance-hours");
    assert!(east["gpu_hours"].is_null());
    let audited = report["clusters"]
        .as_array()
        .expect("audit clusters")
        .iter()
        .find(|c| c["name"] == "us-east-h100")
        .expect("audited east");
    let modelled = audited["monthly_cost_usd"].as_f64().expect("modelled");
    close(&east["modelled_usd_per_month"], modelled, "east modelled");
    close(
        &east["gap"]["effective_usd_per_month"],
        east_effective * PER_MONTH - modelled,
        "east gap",
    );
    close(
        &east["gap"]["effective_frac"],
        (east_effective * PER_MONTH - modelled) / modelled,
        "east gap frac",
    );

    // ap-south-h100: 16 p5 on demand, found by their tags alone.
    let south = cluster(bill, "ap-south-h100");
    assert_eq!(south["lines"], 48);
    let south_total = 16.0 * (od_month(744.0) * JUL + od_month(744.0) + od_month(720.0) * SEP);
    close(
        &south["window"]["on_demand"]["billed_usd"],
        south_total,
        "south on demand",
    );

    // us-west-h200: a reservation of 30 p5en at $84.80/h: 28, 30 and 27 running; the idle
    // slots are the bill's own stranded spend; a spot instance; a −$250 adjustment by tag.
    let resv = |instances: f64, hours: f64| instances * hours * 84.80;
    let west = cluster(bill, "us-west-h200");
    let west_used = resv(28.0, 744.0) * JUL + resv(30.0, 744.0) + resv(27.0, 720.0) * SEP;
    let west_unused = resv(2.0, 744.0) * JUL + resv(3.0, 720.0) * SEP;
    close(
        &west["window"]["reservation_used"]["effective_usd"],
        west_used,
        "west used",
    );
    close(
        &west["window"]["reservation_unused"]["effective_usd"],
        west_unused,
        "west unused",
    );
    close(&west["window"]["on_demand"]["billed_usd"], 3_500.0 * SEP, "west spot");
    close(&west["window"]["adjustment"]["billed_usd"], -250.0, "west adjustment");
    close(
        &west["window"]["total"]["billed_usd"],
        west_used + west_unused + 3_500.0 * SEP - 250.0,
        "west billed",
    );

    // eu-west-a100: 96 A100 committed at $1.29/GPU-h, paid monthly (Purchase: cash only),
    // amortized over used and unused GPU-hours; on-demand GPU-hours at $1.89.
    let eu = cluster(bill, "eu-west-a100");
    close(
        &eu["window"]["purchase"]["billed_usd"],
        96.0 * 744.0 * 1.29 + 96.0 * 720.0 * 1.29 * SEP,
        "eu purchase",
    );
    close(
        &eu["window"]["commitment_used"]["effective_usd"],
        64_000.0 * 1.29 + 66_000.0 * 1.29 * SEP,
        "eu used",
    );
    close(
        &eu["window"]["commitment_unused"]["effective_usd"],
        (96.0 * 744.0 - 64_000.0) * 1.29 + (96.0 * 720.0 - 66_000.0) * 1.29 * SEP,
        "eu unused",
    );
    close(&eu["gpu_hours"], 69_000.0 + 69_000.0 * SEP, "eu GPU-hours");

    // No cluster claims the taxes, the S3 bucket, or the p5 whose tag has a typo.
    let unassigned = &bill["unassigned"];
    assert_eq!(unassigned["lines"], 4);
    close(
        &unassigned["window"]["total"]["billed_usd"],
        1_234.56 + 2_400.0 + (od_month(100.0) + 500.0) * SEP,
        "unassigned",
    );
    close(
        &unassigned["window"]["tax"]["billed_usd"],
        1_234.56 + 500.0 * SEP,
        "taxes",
    );
    assert_eq!(bill["unknown_tags"], serde_json::json!([["ap-south-h10", 1]]));

    // June and October are outside the window: counted, not summed in.
    assert_eq!(bill["outside_window"]["lines"], 2);
    close(
        &bill["outside_window"]["cost"]["billed_usd"],
        od_month(720.0),
        "outside billed",
    );
    close(
        &bill["outside_window"]["cost"]["effective_usd"],
        od_month(720.0) + 744.0 * 57.63,
        "outside effective",
    );
    assert_eq!(bill["fleet"]["lines"], 215);
}

#[test]
fn the_table_shows_the_bill_section_within_120_columns() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan = plan_in(home.path());
    let files = all_bills();
    let mut args = vec!["audit", SAMPLE, "--plan", plan.as_str()];
    args.extend(bill_args(&files));
    let run = gpuplan_in(home.path(), &args);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let section = &run.stdout[run.stdout.find("BILL (FINOPS FOCUS)").expect("bill section")..];
    let row = |name: &str| {
        section
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    // cluster, lines, billed, effective, modelled, gap, gap %, unused, GPU-h, resource-h.
    assert_eq!(
        row("us-east-h100"),
        [
            "us-east-h100",
            "66",
            "$3,462,859",
            "$1,181,686",
            "$607,510",
            "+$574,177",
            "+94.5",
            "%",
            "$2,805",
            "-",
            "45,003"
        ]
    );
    assert_eq!(row("unassigned")[..4], ["unassigned", "4", "$4,603", "$4,603"]);
    assert!(section.contains("1.2 (InvoiceId, PricingCurrency, PricingCurrencyEffectiveCost)"));
    assert!(section.contains("Example GPU Cloud (as ServiceProviderName)"));
    assert!(section.contains("unknown tags    naming no cluster: 'ap-south-h10' (1)"));
    // Notes and facts (one run of spaces between label and value at most) fit in 120 columns;
    // table rows may be wider.
    for line in section.lines() {
        let runs = line.trim().split("  ").filter(|part| !part.is_empty()).count();
        if runs <= 2 {
            assert!(line.chars().count() <= 120, "{} columns: {line}", line.chars().count());
        }
    }
}

#[test]
fn without_a_plan_only_the_tags_name_clusters() {
    let home = tempfile::tempdir().expect("tempdir");
    let bill_file = fixture("aws-focus-1.0.csv");
    let report = audit_json(home.path(), &["--bill", bill_file.as_str()]);
    let bill = &report["bill"];
    assert_eq!(bill["tag_key"], "cluster");
    assert_eq!(cluster(bill, "ap-south-h100")["lines"], 48);
    // Only the credit is tagged to us-east-h100; its instances are unassigned without a [bill].
    assert_eq!(cluster(bill, "us-east-h100")["lines"], 1);
    assert_eq!(bill["unassigned"]["lines"], 119 - 2 - 48 - 1);
}

#[test]
fn parquet_reads_the_same_bill_as_csv() {
    let home = tempfile::tempdir().expect("tempdir");
    let csv = fixture("aws-focus-1.2.csv");
    // Typed as a warehouse writes it: UTC timestamps, float costs and quantities.
    let mut frame = CsvReadOptions::default()
        .with_infer_schema_length(None)
        .map_parse_options(|o| o.with_try_parse_dates(true))
        .try_into_reader_with_file_path(Some(csv.clone().into()))
        .expect("reader")
        .finish()
        .expect("the CSV fixture reads");
    assert!(
        matches!(
            frame.column("ChargePeriodStart").expect("start").dtype(),
            DataType::Datetime(_, _)
        ),
        "typed times"
    );
    let parquet = home.path().join("aws-focus-1.2.parquet");
    ParquetWriter::new(std::fs::File::create(&parquet).expect("create"))
        .finish(&mut frame)
        .expect("write parquet");
    let parquet = parquet.display().to_string();

    let plan = plan_in(home.path());
    let from_csv = audit_json(home.path(), &["--plan", plan.as_str(), "--bill", csv.as_str()]);
    let from_parquet = audit_json(home.path(), &["--plan", plan.as_str(), "--bill", parquet.as_str()]);
    assert_eq!(from_parquet["bill"]["files"][0]["format"], "parquet");
    assert_eq!(from_parquet["bill"]["files"][0]["focus_version"], "1.2");
    let figures = |report: &Value| -> Vec<(String, u64, f64, f64)> {
        let bill = &report["bill"];
        let clusters = bill["clusters"].as_array().cloned().unwrap_or_default();
        clusters
            .iter()
            .chain([&bill["unassigned"], &bill["fleet"]])
            .map(|c| {
                let total = &c["window"]["total"];
                (
                    c["name"].as_str().unwrap_or_default().to_string(),
                    c["lines"].as_u64().unwrap_or_default(),
                    total["billed_usd"].as_f64().unwrap_or_default(),
                    total["effective_usd"].as_f64().unwrap_or_default(),
                )
            })
            .collect()
    };
    let (a, b) = (figures(&from_csv), figures(&from_parquet));
    assert_eq!(a.len(), b.len());
    for (a, b) in a.iter().zip(&b) {
        assert_eq!((&a.0, a.1), (&b.0, b.1));
        assert!((a.2 - b.2).abs() < 1e-6 && (a.3 - b.3).abs() < 1e-6, "{a:?} != {b:?}");
    }
    assert_eq!(
        from_csv["bill"]["outside_window"],
        from_parquet["bill"]["outside_window"]
    );
    assert!(cluster(&from_parquet["bill"], "us-west-h200")["lines"].as_u64() > Some(80));
}

fn refused(bill: &str) -> String {
    let run = gpuplan(&["audit", SAMPLE, "--bill", bill]);
    assert_eq!(run.code, 2, "stdout: {}", run.stdout);
    run.stderr
}

#[test]
fn broken_bills_are_refused_with_where_and_why() {
    let bad_cost = fixture("broken/bad-cost.csv");
    let stderr = refused(&bad_cost);
    assert!(
        stderr.contains(&format!(
            "{bad_cost}:4:43: BilledCost: '$73,150.08' is not a decimal number"
        )),
        "{stderr}"
    );

    let stderr = refused(&fixture("broken/missing-column.csv"));
    assert!(
        stderr.contains(
            "not a FOCUS cost export: no EffectiveCost column; the file has: ChargePeriodStart, ChargePeriodEnd, \
             BilledCost, ChargeCategory, ResourceId"
        ),
        "{stderr}"
    );
    assert!(refused(&fixture("broken/empty.csv")).contains("the file is empty"));
    assert!(refused(&fixture("broken/utf16.csv")).contains("UTF-16 text: save the export as UTF-8 CSV"));

    // A Parquet export cut short by an interrupted download.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut frame = df!("ChargePeriodStart" => ["2026-08-01T00:00:00Z"], "ChargePeriodEnd" => ["2026-09-01T00:00:00Z"],
        "BilledCost" => [1.0], "EffectiveCost" => [1.0], "ChargeCategory" => ["Usage"])
    .expect("frame");
    let whole = dir.path().join("whole.parquet");
    ParquetWriter::new(std::fs::File::create(&whole).expect("create"))
        .finish(&mut frame)
        .expect("write");
    let bytes = std::fs::read(&whole).expect("read");
    let cut = dir.path().join("truncated.parquet");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).expect("write");
    let stderr = refused(&cut.display().to_string());
    assert!(
        stderr.contains("not a readable Parquet file (truncated or damaged?)"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_bad_bill_pattern_in_the_plan_is_named_by_its_key() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan = home.path().join("plan.toml");
    std::fs::write(
        &plan,
        default_plan_text() + "\n[bill]\n[bill.clusters]\nus-east-h100 = [\"i-0e*\", \"sku:[p5\"]\n",
    )
    .expect("write");
    let plan = plan.display().to_string();
    let run = gpuplan_in(home.path(), &["plan", "validate", plan.as_str()]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("bill.clusters.us-east-h100[1]: 'sku:[p5' is not a valid pattern"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_plan_with_a_bill_table_saves_and_reads_back() {
    use gpuplan::config::plan_edit::render_preserving;
    use gpuplan::config::plan_file::{parse_plan, plan_to_toml};

    let text = default_plan_text() + "\n" + &std::fs::read_to_string(fixture("bill-plan.toml")).expect("fragment");
    let plan = parse_plan("plan.toml", &text).expect("parses");
    let bill = plan.bill.as_ref().expect("the [bill] table");
    assert_eq!(bill.tag_key, "cluster");
    assert_eq!(bill.clusters["eu-west-a100"], ["nc:eu-west:*", "sku:A100-80G-*"]);
    let back = parse_plan("written", &plan_to_toml(&plan).expect("toml")).expect("reads back");
    assert_eq!(back, plan);
    // A value changed elsewhere leaves the table as written.
    let mut edited = plan.clone();
    edited.hours_per_month = 720.0;
    let saved = render_preserving(&text, &edited).expect("keeps the layout");
    assert!(
        saved.contains("eu-west-a100 = [\"nc:eu-west:*\", \"sku:A100-80G-*\"]"),
        "{saved}"
    );
    assert!(saved.contains("hours_per_month = 720.0"));
}
