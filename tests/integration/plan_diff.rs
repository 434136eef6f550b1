//! `gpuplan diff` on the shipped plans: the inputs that differ, the outputs' deltas checked
//! against the model's own formulas, the JSON shape, and exit 2 on a plan that does not load.

use crate::common;

use common::{default_plan_text, gpuplan, gpuplan_in};
use gpuplan::config::catalog::builtin;
use gpuplan::config::locate::locate_key_path;
use gpuplan::config::plan_file::read_plan;
use gpuplan::model::catalog::Catalog;
use gpuplan::model::inference::etic_usd_per_million_tokens;
use gpuplan::model::plan::Plan;
use gpuplan::model::risk::weighted_exposure_usd;
use gpuplan::model::training::{ChipHourPrice, RunInputs, run_cost, training_flops};
use serde_json::Value;

const DEFAULT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/plans/default.toml");
const H200: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/plans/h200-reserved.toml");
const SPOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/plans/spot-heavy.toml");

fn catalog() -> Catalog {
    builtin().catalog
}

fn plan(path: &str) -> Plan {
    read_plan(std::path::Path::new(path), &catalog()).expect("shipped plan loads")
}

/// The slider run's cost from the run-cost formula, for the accelerator `id` of `plan`.
fn slider_cost_usd(plan: &Plan, id: &str) -> f64 {
    let catalog = catalog();
    let choice = plan
        .accelerators
        .iter()
        .find(|c| c.id == id)
        .expect("accelerator in plan");
    let accelerator = catalog.accelerator(id).expect("in catalog");
    let price = choice.resolve_price(&catalog).expect("price").usd_per_chip_hour();
    let t = &plan.training;
    run_cost(&RunInputs {
        flops: training_flops(t.model_params, t.tokens, t.activation_recomputation),
        peak_dense_tflops: accelerator.bf16_dense_tflops,
        mfu_frac: choice.mfu,
        chips: f64::from(t.chips),
        price: ChipHourPrice {
            compute_usd_per_chip_hour: price,
            network_usd_per_chip_hour: t.network_usd_per_chip_hour,
        },
        failure_overhead_frac: t.failure_overhead_frac,
    })
    .cost_usd
}

fn etic(plan: &Plan) -> f64 {
    let i = &plan.inference;
    let cluster_usd_per_hour = f64::from(i.nodes) * i.node_usd_per_month / plan.hours_per_month;
    etic_usd_per_million_tokens(
        cluster_usd_per_hour,
        i.throughput_tokens_per_hour,
        i.mem_fragmentation_frac,
    )
}

fn output<'a>(json: &'a Value, key: &str) -> &'a Value {
    json["outputs"]
        .as_array()
        .expect("outputs")
        .iter()
        .find(|o| o["key"] == key)
        .unwrap_or_else(|| panic!("no output {key}"))
}

fn close(actual: &Value, expected: f64) -> bool {
    actual
        .as_f64()
        .is_some_and(|a| (a - expected).abs() <= 1e-9 * expected.abs().max(1.0))
}

fn diff_json(args: &[&str]) -> Value {
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let run = gpuplan(&all);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("diff JSON")
}

#[test]
fn the_shipped_example_plans_load_without_problems() {
    for path in [DEFAULT, H200, SPOT] {
        let plan = plan(path);
        assert!(plan.problems(&catalog()).is_empty(), "{path}");
        let run = gpuplan(&["plan", "validate", path]);
        assert_eq!(run.code, 0, "{path}: {}", run.stderr);
    }
}

#[test]
fn default_against_h200_reserved_gives_the_formulas_deltas() {
    let json = diff_json(&[DEFAULT, H200]);
    let (base, h200) = (plan(DEFAULT), plan(H200));

    let h100 = output(&json, "training.slider_run_cost_usd.h100-sxm");
    let (before, after) = (slider_cost_usd(&base, "h100-sxm"), slider_cost_usd(&h200, "h100-sxm"));
    assert!(
        close(&h100["values"][0], before) && close(&h100["values"][1], after),
        "{h100}"
    );
    assert!(h100["deltas"][0].is_null());
    assert!(close(&h100["deltas"][1]["absolute"], after - before), "{h100}");
    assert!(
        close(&h100["deltas"][1]["relative_pct"], (after / before - 1.0) * 100.0),
        "{h100}"
    );

    // Only the second plan has the H200: no value, so no delta, for the baseline.
    let on_h200 = output(&json, "training.slider_run_cost_usd.h200-sxm");
    assert!(on_h200["values"][0].is_null());
    assert!(
        close(&on_h200["values"][1], slider_cost_usd(&h200, "h200-sxm")),
        "{on_h200}"
    );
    assert!(on_h200["deltas"][1].is_null());

    let etic_row = output(&json, "inference.etic_usd_per_million_tokens");
    assert!(
        close(&etic_row["deltas"][1]["absolute"], etic(&h200) - etic(&base)),
        "{etic_row}"
    );

    let exposure = output(&json, "risk.weighted_exposure_usd");
    let exposure_delta = weighted_exposure_usd(&h200.risks) - weighted_exposure_usd(&base.risks);
    assert!(close(&exposure["deltas"][1]["absolute"], exposure_delta), "{exposure}");
    assert_eq!(exposure["unit"], "usd");

    let inputs = json["inputs"].as_array().expect("inputs");
    let input = |key: &str| inputs.iter().find(|d| d["key_path"] == key);
    assert_eq!(
        input("accelerators[0].id").expect("first accelerator differs")["values"],
        serde_json::json!(["h100-sxm", "h200-sxm"])
    );
    assert_eq!(
        input("migration.engineering_hours").expect("migration only in the baseline")["values"],
        serde_json::json!([1000.0, null])
    );
    assert!(input("training.model_params").is_none(), "the same in both plans");
}

#[test]
fn the_json_has_the_documented_shape() {
    let json = diff_json(&[DEFAULT, H200, SPOT]);
    assert!(json["gpuplan_version"].is_string());
    assert_eq!(json["labels"], serde_json::json!([DEFAULT, H200, SPOT]));
    assert_eq!(
        json["names"],
        serde_json::json!([
            "Seed worked examples",
            "H200 reserved for a year",
            "Spot-heavy training"
        ])
    );
    for input in json["inputs"].as_array().expect("inputs") {
        assert!(input["key_path"].is_string(), "{input}");
        assert_eq!(input["values"].as_array().map(Vec::len), Some(3), "{input}");
    }
    let outputs = json["outputs"].as_array().expect("outputs");
    for key in [
        "inference.cost_per_billion_tokens_usd",
        "inference.breakeven_tokens_per_month",
        "risk.monte_carlo.p50_usd",
        "risk.monte_carlo.p90_usd",
        "risk.monte_carlo.p99_usd",
        "board.mfu_gain_recovered_usd_per_year",
        "checks.failing",
        "checks.warning",
    ] {
        assert!(outputs.iter().any(|o| o["key"] == key), "no {key}");
    }
    for o in outputs {
        for field in ["key", "label", "unit", "values", "deltas"] {
            assert!(o.get(field).is_some(), "{field} missing: {o}");
        }
        assert_eq!(o["values"].as_array().map(Vec::len), Some(3), "{o}");
        assert_eq!(o["deltas"].as_array().map(Vec::len), Some(3), "{o}");
    }
    let tpu = output(&json, "training.slider_run_cost_usd.tpu-v5e");
    assert!(
        close(&tpu["values"][2], slider_cost_usd(&plan(SPOT), "tpu-v5e")),
        "{tpu}"
    );
}

#[test]
fn the_table_and_markdown_name_every_plan_and_the_changed_keys() {
    let table = gpuplan(&["diff", DEFAULT, SPOT]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    for text in [
        "INPUTS THAT DIFFER",
        "reliability.mtbi_hours",
        "OUTPUTS",
        DEFAULT,
        SPOT,
        "(baseline)",
    ] {
        assert!(table.stdout.contains(text), "no {text}:\n{}", table.stdout);
    }
    let markdown = gpuplan(&["diff", DEFAULT, SPOT, "--format", "markdown"]);
    assert_eq!(markdown.code, 0, "{}", markdown.stderr);
    assert!(
        markdown.stdout.contains("| reliability.mtbi_hours | 4.0 | 2.0 |"),
        "{}",
        markdown.stdout
    );
}

#[test]
fn a_plan_that_does_not_load_exits_2_with_file_line_and_column() {
    let home = tempfile::tempdir().expect("tempdir");
    let broken = home.path().join("broken.toml");
    let text = default_plan_text().replacen("mfu = 0.45\n", "mfu = \"high\"\n", 1);
    std::fs::write(&broken, &text).expect("write");
    let broken = broken.to_str().expect("utf-8 path");
    let run = gpuplan_in(home.path(), &["diff", DEFAULT, broken]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let span = locate_key_path(&text, "accelerators[0].mfu").expect("mfu in text");
    let line = text[..span.start].matches('\n').count() + 1;
    let expected = format!("{broken}:{line}:7: ");
    assert!(run.stderr.contains(&expected), "want {expected} in:\n{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn an_unknown_accelerator_is_located_too() {
    let home = tempfile::tempdir().expect("tempdir");
    let bad = home.path().join("bad.toml");
    std::fs::write(
        &bad,
        default_plan_text().replacen("id = \"tpu-v5e\"", "id = \"tpu-v9\"", 1),
    )
    .expect("write");
    let bad = bad.to_str().expect("utf-8 path");
    let run = gpuplan_in(home.path(), &["diff", bad, H200]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(&format!("{bad}:")), "{}", run.stderr);
    assert!(
        run.stderr.contains("accelerators[1].id: unknown accelerator 'tpu-v9'"),
        "{}",
        run.stderr
    );
}

#[test]
fn one_plan_is_a_usage_error() {
    let run = gpuplan(&["diff", DEFAULT]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn a_plan_passed_with_the_plan_flag_is_refused_not_ignored() {
    let run = gpuplan(&["diff", DEFAULT, SPOT, "--plan", H200]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(H200), "{}", run.stderr);
    assert!(run.stderr.contains("list this one among them"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

/// Two plans that differ only in their pools: `diff --logs` replays the same jobs under each
/// and shows what the pools change, each figure equal to `gpuplan replay` under that plan.
#[test]
fn diff_with_logs_compares_the_replays_of_two_pool_sizes() {
    let home = tempfile::tempdir().expect("home");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
    let small = home.path().join("small.toml");
    let large = home.path().join("large.toml");
    std::fs::write(&small, default_plan_text()).expect("small");
    std::fs::write(
        &large,
        default_plan_text() + "\n[replay]\ntraining_gpus = 160\ninference_gpus = 113\nburst_gpus = 64\n",
    )
    .expect("large");
    let (small, large) = (small.to_str().expect("path"), large.to_str().expect("path"));
    let run = gpuplan_in(
        home.path(),
        &["diff", small, large, "--logs", sample, "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let diff: Value = serde_json::from_str(&run.stdout).expect("json");
    let output = |key: &str| {
        diff["outputs"]
            .as_array()
            .expect("outputs")
            .iter()
            .find(|o| o["key"] == key)
            .cloned()
            .unwrap_or_else(|| panic!("{key} in the outputs"))
    };
    let cost = output("replay.split.total_usd_per_month");
    let replay = |plan: &str| {
        let run = gpuplan_in(home.path(), &["replay", sample, "--plan", plan, "--format", "json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        serde_json::from_str::<Value>(&run.stdout).expect("json")
    };
    assert_eq!(
        cost["values"][0],
        replay(small)["split"]["totals"]["total_usd_per_month"]
    );
    assert_eq!(
        cost["values"][1],
        replay(large)["split"]["totals"]["total_usd_per_month"]
    );
    assert_ne!(cost["values"][0], cost["values"][1]);
    // Without logs there is nothing to replay, and no replay rows.
    let plain = gpuplan_in(home.path(), &["diff", small, large, "--format", "json"]);
    assert!(!plain.stdout.contains("replay.split"), "{}", plain.stdout);
}
