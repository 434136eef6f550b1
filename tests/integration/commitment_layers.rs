//! Commitment layers on the shipped sample: the report's JSON as the issue names it, the plan's
//! growth and price changes moving the layers, the backtest's commitment regret, and the
//! workbench's growth slider moving the Contracts pane's layers in the same update as `report`
//! computes them.

use crate::common;

use std::sync::OnceLock;

use common::{default_plan_text, gpuplan, gpuplan_in};
use gpuplan::app::command::CommandId;
use gpuplan::app::field::{Field, ForecastField};
use gpuplan::app::{Action, App, PaneId, update};
use gpuplan::model::workload::WorkloadClass;
use gpuplan::runtime::sample_workbench;
use serde_json::Value;

const SAMPLE: &str = common::SAMPLE_LOG;

fn json(run: common::Run) -> Value {
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

/// The plan's `[commitments]` pinning the layers on the forecast over the backtest's choice.
const PINNED: &str = "\n[commitments]\npolicy = \"layers\"\n";

fn report_with(plan_tail: &str) -> Value {
    let home = tempfile::tempdir().expect("home");
    common::sample_report_in(home.path(), plan_tail)
}

fn class<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["commitments"]["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .find(|c| c["class"] == name)
        .unwrap_or_else(|| panic!("{name} layered"))
}

/// GPUs committed for the first year: every committed layer's band.
fn committed_gpus(class: &Value) -> f64 {
    class["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .filter(|l| !l["committed_usd"].is_null())
        .map(|l| number(&l["gpus"]))
        .sum()
}

#[test]
fn every_matched_class_is_laddered_and_each_layer_adds_up() {
    let report = json(gpuplan(&["report", "--logs", SAMPLE, "--format", "json"]));
    let commitments = &report["commitments"];
    assert_eq!(commitments["horizon_months"], 36, "the 36-month build-to-order term");
    let matched: Vec<&Value> = report["contracts"]["classes"]
        .as_array()
        .expect("matched")
        .iter()
        .collect();
    assert_eq!(commitments["classes"].as_array().map(Vec::len), Some(matched.len()));
    let hours_per_month = number(&report["contracts"]["hours_per_month"]);
    for (class, matched) in commitments["classes"].as_array().expect("classes").iter().zip(matched) {
        assert_eq!(
            class["accelerator"], matched["accelerator"],
            "the matching's accelerator"
        );
        let layers = class["layers"].as_array().expect("layers");
        let by_use = layers.last().expect("a term billed by use last");
        assert!(by_use["committed_usd"].is_null());
        assert!(matches!(by_use["term"].as_str(), Some("on-demand" | "spot")));
        let mut from = 0.0;
        let mut months = u64::MAX;
        for layer in layers {
            let [lo, hi, gpus] = ["from_gpus", "to_gpus", "gpus"].map(|k| number(&layer[k]));
            assert!((lo - from).abs() < 1e-9, "bands stack: {layer}");
            assert!(hi >= lo && gpus >= 0.0 && (hi - lo - gpus).abs() < 1e-6, "{layer}");
            let p = number(&layer["over_half_idle_probability"]);
            assert!((0.0..=1.0).contains(&p), "{layer}");
            for k in ["expected_usd", "expected_used_gpu_hours", "expected_idle_gpu_hours"] {
                assert!(number(&layer[k]) >= 0.0, "{k}: {layer}");
            }
            if let Some(committed) = layer["committed_usd"].as_f64() {
                let term_months = layer["months"].as_u64().expect("months");
                assert!(term_months <= months, "longest term first");
                months = term_months;
                let expected = gpus * term_months as f64 * hours_per_month * number(&layer["usd_per_gpu_hour"]);
                assert!((committed - expected).abs() <= 1e-6 * expected.max(1.0), "{layer}");
                let paid = gpus * term_months as f64 * hours_per_month;
                let used_and_idle =
                    number(&layer["expected_used_gpu_hours"]) + number(&layer["expected_idle_gpu_hours"]);
                assert!((used_and_idle - paid).abs() <= 1e-6 * paid.max(1.0), "{layer}");
                assert!(number(&layer["p10_path"]["idle_usd"]) >= number(&layer["p90_path"]["idle_usd"]));
            }
            from = hi;
        }
        let year = &class["first_year"];
        assert!(number(&year["p10_path_usd"]) <= number(&year["p90_path_usd"]), "{year}");
    }
    let b200 = commitments["price_changes"]
        .as_array()
        .expect("price changes")
        .iter()
        .find(|c| c["accelerator"] == "b200")
        .expect("the B200's");
    // $5.69 on 2025-10-19 to $5.89 on 2026-07-20, a year's worth: +4.7 %.
    assert_eq!(number(&b200["on_demand_per_year"]), 0.047, "the catalog's sourced row");
    assert!(b200["source"].as_str().is_some_and(|s| s.contains("RunPod B200")));
}

#[test]
fn growth_buys_more_commitment_and_falling_prices_buy_less() {
    // The layers on the forecast, pinned over the backtest's choice, follow the plan's growth.
    let flat = report_with(&format!("{PINNED}\n[forecast]\n[forecast.growth]\ninference = 1.0\n"));
    let tripled = report_with(&format!("{PINNED}\n[forecast]\n[forecast.growth]\ninference = 3.0\n"));
    let (flat, tripled) = (class(&flat, "inference"), class(&tripled, "inference"));
    assert_eq!(number(&tripled["growth_per_year"]), 3.0);
    assert!(
        committed_gpus(tripled) > committed_gpus(flat),
        "{} then {}",
        committed_gpus(flat),
        committed_gpus(tripled)
    );
    assert!(number(&tripled["first_year"]["expected_usd"]) > number(&flat["first_year"]["expected_usd"]));

    let steady = report_with(&format!(
        "{PINNED}\n[[price_change]]\naccelerator = \"h200-sxm\"\nterm = \"on-demand\"\nchange_per_year = 0.0\n"
    ));
    // Inference is matched to the H200 (carried by memory bandwidth): its alias names it.
    let collapsing = report_with(&format!(
        "{PINNED}\n[[price_change]]\naccelerator = \"H200\"\nterm = \"on-demand\"\nchange_per_year = -0.8\n"
    ));
    let (steady_class, collapsing_class) = (class(&steady, "inference"), class(&collapsing, "inference"));
    assert!(
        committed_gpus(collapsing_class) < committed_gpus(steady_class),
        "on-demand 80 % cheaper a year on: commit less ({} then {})",
        committed_gpus(steady_class),
        committed_gpus(collapsing_class)
    );
    let used = collapsing["commitments"]["price_changes"]
        .as_array()
        .expect("price changes")
        .iter()
        .find(|c| c["accelerator"] == "h200-sxm")
        .expect("the H200's");
    assert_eq!(used["source"], "plan");
    assert_eq!(number(&used["on_demand_per_year"]), -0.8);
}

#[test]
fn a_price_change_out_of_range_is_named_at_its_key() {
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    std::fs::write(
        &plan,
        default_plan_text()
            + "\n[[price_change]]\naccelerator = \"h100-sxm\"\nterm = \"1-year\"\nchange_per_year = -2.0\n",
    )
    .expect("plan");
    let run = gpuplan_in(home.path(), &["report", "--plan", plan.to_str().expect("path")]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("price_change[0].term"), "{}", run.stderr);
}

#[test]
fn the_backtest_scores_each_classs_commitments_against_hindsight_and_flat() {
    let report = json(gpuplan(&[
        "backtest",
        SAMPLE,
        "--holdout-days",
        "30",
        "--format",
        "json",
    ]));
    let classes = report["classes"].as_array().expect("classes");
    assert_eq!(classes.len(), 3);
    for class in classes {
        let c = &class["commitment"];
        let origins = c["per_origin"].as_array().expect("per_origin");
        assert_eq!(origins.len() as f64, number(&c["origins"]), "{c}");
        assert!(origins.len() > 1, "rolling origins: {c}");
        for o in origins {
            let [hindsight, layers, flat, naive, regret, flat_regret] = [
                "hindsight_usd",
                "layers_usd",
                "flat_usd",
                "naive_layers_usd",
                "layers_regret_frac",
                "flat_regret_frac",
            ]
            .map(|k| number(&o[k]));
            assert!(
                hindsight > 0.0 && hindsight <= layers + 1e-6 && hindsight <= flat + 1e-6 && hindsight <= naive + 1e-6,
                "{o}"
            );
            assert!((regret - (layers - hindsight) / hindsight).abs() < 1e-9, "{o}");
            assert!((flat_regret - (flat - hindsight) / hindsight).abs() < 1e-9, "{o}");
            assert!(number(&o["layers_committed_after_usd"]) >= 0.0, "{o}");
        }
        let mut regrets: Vec<f64> = origins.iter().map(|o| number(&o["layers_regret_frac"])).collect();
        regrets.sort_by(f64::total_cmp);
        let n = regrets.len();
        let median = if n % 2 == 1 {
            regrets[n / 2]
        } else {
            0.5 * (regrets[n / 2 - 1] + regrets[n / 2])
        };
        assert!((number(&c["layers_regret"]["median"]) - median).abs() < 1e-12, "{c}");
        // The shipped catalog dates no prices over the sample's days: the bet is said unscored.
        assert_eq!(c["price_bet"]["status"], "unscored", "{c}");
    }
    let text = gpuplan(&["backtest", SAMPLE, "--holdout-days", "30"]);
    assert!(
        text.stdout.contains("COMMITMENTS SIZED AT EACH CUT-OFF"),
        "{}",
        text.stdout
    );
}

fn loaded() -> App {
    static LOADED: OnceLock<App> = OnceLock::new();
    LOADED
        .get_or_init(|| sample_workbench(None).expect("the sample audits"))
        .clone()
}

#[test]
fn a_growth_step_moves_the_contracts_panes_layers_in_the_same_update() {
    let mut app = loaded();
    // The layers on the forecast, pinned: the policy a growth step moves.
    app.plan.commitments = Some(gpuplan::model::plan::CommitmentsPlan {
        policy: Some(gpuplan::model::forecast::Policy::Layers),
        ..Default::default()
    });
    app.reshape_forecast();
    let pinned = app.forecast.commitments.as_ref().expect("layers");
    assert!(
        pinned
            .classes
            .iter()
            .all(|c| c.chosen_by.policy == gpuplan::model::forecast::Policy::Layers),
        "{pinned:?}"
    );
    let field = Field::Forecast(ForecastField::Growth(WorkloadClass::Inference));
    let layers = |app: &App| {
        let report = app.forecast.commitments.as_ref().expect("layers on load");
        let inference = report
            .classes
            .iter()
            .find(|c| c.class == WorkloadClass::Inference)
            .expect("inference");
        inference
            .layers
            .iter()
            .filter(|l| l.committed_usd.is_some())
            .map(|l| l.gpus)
            .sum::<f64>()
    };
    let before = layers(&app);
    update(&mut app, Action::FocusPane(PaneId::Forecast));
    app.cursors.forecast_row = app.forecast_fields().iter().position(|f| *f == field).expect("row");
    for _ in 0..20 {
        update(&mut app, Action::Command(CommandId::Increase));
    }
    let after = layers(&app);
    assert!(after > before, "two more times a year on: {before} then {after}");
    // The steps kept the other classes' layers: every class is what sizing them all afresh gives.
    let fits = app.forecast.fits.as_ref().expect("fits");
    let assumptions = gpuplan::model::forecast::PlanAssumptions::of(&app.plan, &app.catalog, fits);
    let inputs = gpuplan::model::commitment_layers::CommitmentInputs {
        assumptions: &assumptions,
        contracts: app.derived.contracts.as_ref().expect("contracts"),
        plan: &app.plan,
        catalog: &app.catalog,
        selection: &app.forecast.selection,
    };
    let afresh = gpuplan::model::commitment_layers::commitment_report(fits, &inputs);
    assert_eq!(app.forecast.commitments, afresh);
    // What the report computes for the plan on screen.
    let (plan, _) = gpuplan::config::plan_file::render_for_save(None, &app.plan).expect("plan text");
    let home = tempfile::tempdir().expect("home");
    let path = home.path().join("plan.toml");
    std::fs::write(&path, plan).expect("write");
    let report = json(gpuplan_in(
        home.path(),
        &[
            "report",
            "--plan",
            path.to_str().expect("path"),
            "--logs",
            SAMPLE,
            "--format",
            "json",
        ],
    ));
    let reported = committed_gpus(class(&report, "inference"));
    assert!((reported - after).abs() < 1e-6, "report {reported}, workbench {after}");
}

/// A catalog override whose B200 and H200 on-demand rows list dated prices around the
/// sample's days.
fn dated_prices_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("home");
    let catalogs = home.path().join("config").join("catalogs");
    std::fs::create_dir_all(&catalogs).expect("catalogs");
    let row = |accelerator: &str, usd: [f64; 3]| {
        format!(
            "[[price_change]]\naccelerator = \"{accelerator}\"\nterm = \"on-demand\"\nchange_per_year = -0.2\n\
             source = \"test\"\nas_of = \"2026-12-01\"\nobserved = [\n  {{ date = \"2026-05-01\", usd_per_gpu_hour = {} }},\n  \
             {{ date = \"2026-08-01\", usd_per_gpu_hour = {} }},\n  {{ date = \"2026-12-01\", usd_per_gpu_hour = {} }},\n]\n",
            usd[0], usd[1], usd[2]
        )
    };
    std::fs::write(
        catalogs.join("accelerators.toml"),
        format!(
            "schema_version = 1\n\n{}\n{}",
            row("b200", [6.0, 5.6, 5.0]),
            row("h200-sxm", [4.0, 3.9, 3.3])
        ),
    )
    .expect("override");
    home
}

#[test]
fn dated_prices_give_the_bet_a_fitted_spread_and_a_score_apart_from_demand() {
    let home = dated_prices_home();
    let report = json(gpuplan_in(
        home.path(),
        &["report", "--logs", SAMPLE, "--format", "json"],
    ));
    let b200 = report["commitments"]["price_changes"]
        .as_array()
        .expect("price changes")
        .iter()
        .find(|c| c["accelerator"] == "b200")
        .expect("the B200's");
    assert_eq!(b200["spread_source"], "fitted to the dated prices", "{b200}");
    assert!(number(&b200["spread_per_year"]) > 0.0, "{b200}");
    let training = class(&report, "training");
    let stress = training["price_stress"].as_array().expect("price_stress");
    let cases: Vec<&str> = stress.iter().map(|s| s["case"].as_str().expect("case")).collect();
    assert_eq!(cases, ["held", "catalog", "twice"]);
    assert_eq!(number(&stress[1]["change_per_year"]), -0.2);
    assert_eq!(number(&stress[2]["change_per_year"]), -0.4);
    for key in ["horizon", "flat_horizon"] {
        // Thirty-six months of costs are never below the first twelve.
        let first = if key == "horizon" {
            "first_year"
        } else {
            "flat_first_year"
        };
        assert!(
            number(&training[key]["expected_usd"]) >= number(&training[first]["expected_usd"]),
            "{training}"
        );
        assert!(
            number(&training[key]["p10_path_usd"]) <= number(&training[key]["p90_path_usd"]) + 1e-6,
            "{training}"
        );
    }
    // The layers are the cheapest ladder on the forecast: where the backtest chose them, they
    // cost no more than flat on it.
    if training["recommended"]["buy"] == "layers" {
        assert!(
            number(&training["horizon"]["expected_usd"])
                <= number(&training["flat_horizon"]["expected_usd"]) * (1.0 + 1e-9),
            "{training}"
        );
    }

    let backtest = json(gpuplan_in(
        home.path(),
        &["backtest", SAMPLE, "--holdout-days", "30", "--format", "json"],
    ));
    for class in backtest["classes"].as_array().expect("classes") {
        let bet = &class["commitment"]["price_bet"];
        assert_eq!(bet["status"], "scored", "{bet}");
        // The dated prices fall about 25 % a year over the sample's held-out days.
        let dated = number(&bet["dated_change_per_year"]);
        assert!((-0.6..-0.05).contains(&dated), "{bet}");
        assert!(number(&bet["regret"]["min"]) <= number(&bet["regret"]["max"]), "{bet}");
    }
}

#[test]
fn a_plan_that_does_not_trust_the_price_trend_sizes_on_held_prices() {
    let report = report_with("\n[commitments]\nprice_trend_trust = 0.0\n");
    for class in report["commitments"]["classes"].as_array().expect("classes") {
        assert_eq!(number(&class["price_bet"]["change_per_year"]), 0.0, "{class}");
    }
    let used = &report["commitments"]["price_changes"][0];
    assert_eq!(number(&used["price_trend_trust"]), 0.0);
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    std::fs::write(
        &plan,
        default_plan_text() + "\n[commitments]\nprice_trend_trust = 2.0\n",
    )
    .expect("plan");
    let run = gpuplan_in(home.path(), &["report", "--plan", plan.to_str().expect("path")]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("commitments.price_trend_trust"), "{}", run.stderr);
}

/// The policy the backtest chose, by the rule: the lowest median regret, the simplest within
/// the tie.
fn expected_choice(chosen_by: &Value) -> String {
    let order = ["on_demand", "flat", "naive_layers", "low_quantile", "layers"];
    let candidates = chosen_by["candidates"].as_array().expect("candidates");
    let names: Vec<&str> = candidates
        .iter()
        .map(|c| c["policy"].as_str().expect("policy"))
        .collect();
    assert_eq!(names, order, "every candidate, simplest first: {chosen_by}");
    let best = candidates
        .iter()
        .map(|c| number(&c["median_regret"]))
        .fold(f64::INFINITY, f64::min);
    let tie = gpuplan::model::commitment_layers::TIE_REGRET;
    candidates
        .iter()
        .find(|c| number(&c["median_regret"]) <= best + tie)
        .map(|c| c["policy"].as_str().expect("policy").to_string())
        .expect("the best")
}

#[test]
fn each_class_buys_its_backtests_choice_held_to_its_term() {
    let report = json(gpuplan(&["report", "--logs", SAMPLE, "--format", "json"]));
    let backtest = json(gpuplan(&[
        "backtest",
        SAMPLE,
        "--holdout-days",
        "14",
        "--format",
        "json",
    ]));
    for class in report["commitments"]["classes"].as_array().expect("classes") {
        let chosen_by = &class["chosen_by"];
        assert!(chosen_by["reason"].is_null(), "90 days score: {chosen_by}");
        assert_eq!(chosen_by["origins"], 8, "{chosen_by}");
        let policy = expected_choice(chosen_by);
        // 14-day holdouts cannot speak for a 36-month term: the backtest's pick is held to the
        // term on the forecast's own paths, and flat stands where it costs more there.
        let term = &chosen_by["over_term"];
        assert_eq!(term["backtest_choice"], policy.as_str(), "{chosen_by}");
        assert_eq!(term["term_months"], 36, "{chosen_by}");
        let expected = |p: &str| {
            number(
                &term["candidates"]
                    .as_array()
                    .expect("term candidates")
                    .iter()
                    .find(|c| c["policy"] == p)
                    .expect("a candidate")["expected_usd"],
            )
        };
        let dearer = expected(&policy) > expected("flat") * (1.0 + gpuplan::model::commitment_layers::TERM_TIE_FRAC);
        assert_eq!(term["held_to_flat"], dearer, "{chosen_by}");
        let over_term = if dearer { "flat" } else { policy.as_str() };
        assert_eq!(chosen_by["policy"], over_term, "{chosen_by}");
        // The recommendation is that purchase, and the backtest's own choice is the one it made.
        assert_eq!(class["recommended"]["buy"], over_term, "{class}");
        let scored = backtest["classes"]
            .as_array()
            .expect("classes")
            .iter()
            .find(|c| c["class"] == class["class"])
            .expect("the class backtested");
        assert_eq!(scored["commitment"]["chosen_by"]["policy"], policy.as_str());
        let median = number(&scored["commitment"]["chosen_by"]["median_regret"]);
        // Flat's own median regret is a candidate's, so the chosen is never a tie's width above it.
        let flat = number(&scored["commitment"]["flat_regret"]["median"]);
        assert!(
            median <= flat + gpuplan::model::commitment_layers::TIE_REGRET + 1e-12,
            "{chosen_by}"
        );
    }
}

#[test]
fn a_history_too_short_to_score_falls_back_to_flat_and_says_why() {
    let home = tempfile::tempdir().expect("home");
    let log = home.path().join("short.csv");
    let sample = gpuplan_in(
        home.path(),
        &[
            "sample",
            "--days",
            "12",
            "--jobs",
            "3000",
            "--output",
            log.to_str().expect("path"),
        ],
    );
    assert_eq!(sample.code, 0, "{}", sample.stderr);
    let report = json(gpuplan_in(
        home.path(),
        &["report", "--logs", log.to_str().expect("path"), "--format", "json"],
    ));
    let classes = report["commitments"]["classes"].as_array().expect("classes");
    assert!(!classes.is_empty(), "{report}");
    for class in classes {
        let chosen_by = &class["chosen_by"];
        assert_eq!(chosen_by["policy"], "flat", "{chosen_by}");
        assert!(chosen_by["median_regret"].is_null(), "{chosen_by}");
        let reason = chosen_by["reason"].as_str().expect("a reason");
        assert!(!reason.is_empty());
        assert_eq!(class["recommended"]["buy"], "flat");
    }
    let text = gpuplan_in(home.path(), &["report", "--logs", log.to_str().expect("path")]);
    assert!(text.stdout.contains("chosen by no backtest"), "{}", text.stdout);
}

#[test]
fn a_plan_can_pin_a_policy_over_the_backtests_choice() {
    let report = report_with("\n[commitments]\npolicy = \"on_demand\"\n");
    for class in report["commitments"]["classes"].as_array().expect("classes") {
        let chosen_by = &class["chosen_by"];
        assert_eq!(chosen_by["policy"], "on_demand", "{chosen_by}");
        assert_eq!(class["recommended"]["buy"], "on_demand");
        // Nothing committed: no committed layer has a GPU.
        assert_eq!(committed_gpus(class), 0.0, "{class}");
        let backtest_choice = expected_choice(chosen_by);
        if backtest_choice != "on_demand" {
            assert_eq!(chosen_by["pinned_over"], backtest_choice.as_str(), "{chosen_by}");
        }
    }
}
