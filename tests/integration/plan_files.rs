//! Plan files: the default plan holds the seeds' examples, errors are located, unknown keys
//! are refused, and saving round-trips losslessly.

use crate::common;

use common::default_plan_text;
use gpuplan::config::catalog::builtin;
use gpuplan::config::plan_file::{default_plan, parse_plan, read_plan, read_plan_text, save_plan};
use gpuplan::model::catalog::Catalog;
use gpuplan::model::plan::Plan;
use proptest::prelude::*;

fn catalog() -> Catalog {
    builtin().catalog
}

fn seed_plan() -> Plan {
    default_plan(&catalog()).expect("the default plan is valid")
}

#[test]
fn the_default_plan_holds_the_seeds_worked_examples() {
    let plan = seed_plan();
    assert_eq!(plan.schema_version, 1);
    assert_eq!(plan.training.model_params, 100e9);
    assert_eq!(plan.training.tokens, 500e9);
    assert_eq!(plan.training.mfu_points, vec![0.25, 0.45, 0.60]);
    let h100 = &plan.accelerators[0];
    assert_eq!(h100.id, "h100-sxm");
    let catalog = catalog();
    let price = h100.resolve_price(&catalog).expect("price resolves");
    assert_eq!(price.usd_per_chip_hour(), 100.0 / 8.0);
    assert_eq!(
        plan.inference.node_usd_per_month * f64::from(plan.inference.nodes),
        80_000.0
    );
    assert_eq!(plan.inference.sre_usd_per_month, 20_000.0);
    assert_eq!(
        (
            plan.inference.api_usd_per_1k_tokens,
            plan.inference.internal_usd_per_1k_tokens
        ),
        (0.01, 0.002)
    );
    let risks: Vec<(f64, f64)> = plan.risks.iter().map(|r| (r.probability, r.impact_usd)).collect();
    assert_eq!(
        risks,
        vec![(0.08, 45_000.0), (0.15, 150_000.0), (0.25, 12_000.0), (0.12, 5_000.0)]
    );
}

#[test]
fn a_wrong_type_names_line_column_and_expected_type() {
    let text = default_plan_text().replace("chips = 1024 ", "chips = \"many\" ");
    let error = parse_plan("p.toml", &text).expect_err("wrong type");
    let shown = error.to_string();
    assert!(shown.starts_with("p.toml:13:9: "), "{shown}");
    assert!(shown.contains("expected u32"), "{shown}");
    assert!(shown.contains("13 | chips = \"many\""), "{shown}");
}

#[test]
fn an_unknown_key_is_reported_not_dropped() {
    let text = default_plan_text().replace(
        "mfu = 0.45\nprice_set = \"seed-002\"           # the seed's $100/h",
        "mfu_pct = 45\nprice_set = \"seed-002\"           # the seed's $100/h",
    );
    let error = parse_plan("p.toml", &text).expect_err("unknown key");
    assert_eq!(error.key.as_deref(), Some("mfu_pct"));
    assert!(error.message.contains("unknown field `mfu_pct`"), "{}", error.message);
    assert_eq!(error.line, Some(24));
}

#[test]
fn prometheus_and_hosts_tables_are_checked_and_located() {
    let good = default_plan_text()
        + "\n[prometheus]\nurl = \"https://thanos.example:10902\"\ncluster_label = \"cluster_id\"\ntoken_env = \"THANOS_TOKEN\"\n\n[hosts]\neast = [\"gpu[001-016]\", \"dgx-*\"]\n";
    let plan = read_plan_text("p.toml", &good, &catalog()).expect("valid");
    let prometheus = plan.prometheus.expect("prometheus table");
    assert_eq!(
        (prometheus.cluster_label.as_str(), prometheus.step_seconds),
        ("cluster_id", 3600)
    );
    assert_eq!(plan.hosts["east"].patterns.len(), 2);
    let bad = default_plan_text()
        + "\n[prometheus]\nurl = \"prometheus:9090\"\nstep_seconds = 7\ncluster_label = \"bad-label\"\n\n[hosts]\neast = [\"gpu[001-\"]\n";
    let errors = read_plan_text("p.toml", &bad, &catalog()).expect_err("invalid values");
    let keys: Vec<&str> = errors.iter().filter_map(|d| d.key.as_deref()).collect();
    for key in [
        "prometheus.url",
        "prometheus.step_seconds",
        "prometheus.cluster_label",
        "hosts.east[0]",
    ] {
        assert!(keys.contains(&key), "{key} in {keys:?}");
    }
    let step = errors
        .iter()
        .find(|d| d.key.as_deref() == Some("prometheus.step_seconds"))
        .expect("located");
    assert_eq!(
        bad.lines().nth(step.line.expect("has a line") - 1),
        Some("step_seconds = 7")
    );
    assert!(step.message.contains("does not divide an hour"));
    let hosts = errors
        .iter()
        .find(|d| d.key.as_deref() == Some("hosts.east[0]"))
        .expect("located");
    assert!(hosts.message.contains("unclosed '['"), "{}", hosts.message);
    // A clock offset in a [hosts] entry (for nvidia-smi recordings) is read, and a bad one located.
    let lab = default_plan_text() + "\n[hosts]\nlab = { patterns = [\"h200-a\"], utc_offset = \"+05:30\" }\n";
    let plan = read_plan_text("p.toml", &lab, &catalog()).expect("valid");
    assert_eq!(plan.hosts["lab"].utc_offset.as_deref(), Some("+05:30"));
    let zone_name = lab.replace("+05:30", "CET");
    let offset_errors = read_plan_text("p.toml", &zone_name, &catalog()).expect_err("a zone name, not an offset");
    let offset = offset_errors
        .iter()
        .find(|d| d.key.as_deref() == Some("hosts.lab.utc_offset"))
        .expect("located");
    assert!(
        offset.message.contains("'CET' is not an offset from UTC"),
        "{}",
        offset.message
    );
    assert_eq!(
        zone_name.lines().nth(offset.line.expect("has a line") - 1),
        Some("lab = { patterns = [\"h200-a\"], utc_offset = \"CET\" }")
    );
    assert_eq!(
        bad.lines().nth(hosts.line.expect("has a line") - 1),
        Some("east = [\"gpu[001-\"]")
    );
    // The token itself has no place in a plan.
    let token = default_plan_text() + "\n[prometheus]\nurl = \"http://p:9090\"\ntoken = \"abc\"\n";
    let errors = read_plan_text("p.toml", &token, &catalog()).expect_err("unknown key");
    assert!(
        errors[0].message.contains("unknown field `token`"),
        "{}",
        errors[0].message
    );
}

#[test]
fn out_of_range_values_are_located_by_key_path() {
    let text = default_plan_text()
        .replace("probability = 0.25", "probability = 25.0")
        .replace("mem_fragmentation_frac = 0.15", "mem_fragmentation_frac = nan");
    let errors = read_plan_text("p.toml", &text, &catalog()).expect_err("invalid values");
    let keys: Vec<&str> = errors.iter().filter_map(|d| d.key.as_deref()).collect();
    assert!(keys.contains(&"risks[2].probability"), "{keys:?}");
    assert!(keys.contains(&"inference.mem_fragmentation_frac"), "{keys:?}");
    let probability = errors
        .iter()
        .find(|d| d.key.as_deref() == Some("risks[2].probability"))
        .expect("located");
    let line = probability.line.expect("has a line");
    assert_eq!(text.lines().nth(line - 1), Some("probability = 25.0"));
    assert!(probability.message.contains("fraction from 0 to 1"));
}

#[test]
fn an_unknown_accelerator_or_price_lists_what_the_catalog_has() {
    let text = default_plan_text()
        .replace("id = \"tpu-v5e\"", "id = \"tpu-v9\"")
        .replace(
            "price_set = \"seed-002\"           # the seed's $55/h per 8 chips\nterm = \"on-demand\"",
            "price_set = \"seed-002\"           # the seed's $55/h per 8 chips\nterm = \"3-year\"",
        );
    let errors = read_plan_text("p.toml", &text, &catalog()).expect_err("invalid");
    let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(
        shown
            .iter()
            .any(|s| s.contains("unknown accelerator 'tpu-v9'") && s.contains("h100-sxm")),
        "{shown:?}"
    );
    assert!(
        shown.iter().any(
            |s| s.contains("no price for 'trainium2' in price set 'seed-002' on term '3-year'")
                && s.contains("seed-002/on-demand")
        ),
        "{shown:?}"
    );
}

#[test]
fn binary_and_non_utf8_files_get_one_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("latin1.toml");
    std::fs::write(&path, b"name = \"caf\xe9\"\n").expect("write");
    let errors = read_plan(&path, &catalog()).expect_err("not UTF-8");
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].to_string().contains("latin1.toml:1:12: expected UTF-8 text"),
        "{}",
        errors[0]
    );
}

#[test]
fn the_default_plan_survives_save_and_load_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("saved.toml");
    let plan = seed_plan();
    save_plan(&path, &plan).expect("save");
    assert_eq!(read_plan(&path, &catalog()).expect("load"), plan);
}

fn mfu() -> impl Strategy<Value = f64> {
    0.01f64..=1.0
}

fn money() -> impl Strategy<Value = f64> {
    0.0f64..1e9
}

prop_compose! {
    fn arbitrary_plan()(
        params in 1e6f64..1e13,
        tokens in 1e6f64..1e14,
        recompute in any::<bool>(),
        chips in 1u32..100_000,
        points in prop::collection::vec(mfu(), 1..6),
        sliders in prop::collection::vec(mfu(), 3),
        negotiated in prop::option::of(0.01f64..100.0),
        bakeoff in prop::option::of(mfu()),
        node_cost in money(),
        fragmentation in 0.0f64..0.99,
        volume in money(),
        probabilities in prop::collection::vec(0.0f64..=1.0, 0..6),
        impact in money(),
        spot in 0.0f64..=1.0,
        name in "[ -~]{0,40}",
    ) -> Plan {
        let mut plan = seed_plan();
        plan.name = name;
        plan.training.model_params = params;
        plan.training.tokens = tokens;
        plan.training.activation_recomputation = recompute;
        plan.training.chips = chips;
        plan.training.mfu_points = points;
        for (choice, slider) in plan.accelerators.iter_mut().zip(sliders) {
            choice.mfu = slider;
        }
        plan.accelerators[0].usd_per_chip_hour = negotiated;
        plan.accelerators[1].bakeoff_mfu = bakeoff;
        plan.inference.node_usd_per_month = node_cost;
        plan.inference.mem_fragmentation_frac = fragmentation;
        plan.inference.tokens_per_month = volume;
        plan.reliability.spot_frac = spot;
        let template = plan.risks[0].clone();
        plan.risks = probabilities
            .into_iter()
            .map(|p| gpuplan::model::risk::RiskScenario { probability: p, impact_usd: impact, ..template.clone() })
            .collect();
        plan
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_valid_plan_survives_save_then_load(plan in arbitrary_plan()) {
        let catalog = catalog();
        prop_assert!(plan.problems(&catalog).is_empty(), "{:?}", plan.problems(&catalog));
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("plan.toml");
        save_plan(&path, &plan).expect("save");
        let loaded = read_plan(&path, &catalog).expect("load");
        prop_assert_eq!(loaded, plan);
    }
}
