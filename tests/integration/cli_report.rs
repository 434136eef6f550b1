//! The headless commands as a script or a person uses them: output, JSON shape, exit codes.

use crate::common;

use common::{default_plan_text, gpuplan, gpuplan_in};
use serde_json::Value;

fn json_report(args: &[&str]) -> Value {
    let run = gpuplan(args);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("report is JSON")
}

#[test]
fn json_report_of_the_default_plan_has_the_documented_fields() {
    let report = json_report(&["report", "--format", "json"]);
    let runs = report["training"]["runs"].as_array().expect("training.runs");
    // Three accelerators × (three MFU points + the slider).
    assert_eq!(runs.len(), 12);
    for run in runs {
        for key in ["accelerator", "mfu", "hours", "gpu_hours", "cost_usd"] {
            assert!(run.get(key).is_some(), "run lacks {key}: {run}");
        }
    }
    let h100_at_25 = runs
        .iter()
        .find(|r| r["accelerator"] == "h100-sxm" && r["mfu"] == 0.25)
        .expect("H100 at 25 %");
    let cost = h100_at_25["cost_usd"].as_f64().expect("cost");
    assert!((cost / 4.2e6 - 1.0).abs() < 0.05, "{cost}");

    assert_eq!(report["inference"]["breakeven_tokens_per_month"], 12.5e9);
    assert!(report["inference"]["cost_per_billion_tokens_usd"].as_f64().is_some());
    assert!(report["inference"]["etic_usd_per_million_tokens"].as_f64().is_some());
    assert_eq!(report["risk"]["rows"].as_array().map(Vec::len), Some(4));
    assert!((report["risk"]["weighted_exposure_usd"].as_f64().expect("exposure") - 29_700.0).abs() < 1e-6);
    let checks = report["checks"].as_array().expect("checks");
    assert!(!checks.is_empty());
    for check in checks {
        for key in ["rule", "status", "value", "threshold", "message"] {
            assert!(check.get(key).is_some(), "check lacks {key}: {check}");
        }
        assert!(
            ["pass", "warn", "fail"].contains(&check["status"].as_str().unwrap_or("")),
            "{check}"
        );
    }
}

#[test]
fn no_breakeven_is_null_in_json_and_said_in_the_table() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan = home.path().join("cheap-api.toml");
    let text = default_plan_text().replace("api_usd_per_1k_tokens = 0.01 ", "api_usd_per_1k_tokens = 0.001 ");
    std::fs::write(&plan, text).expect("write plan");
    let plan = plan.to_str().expect("utf-8 path");
    let run = gpuplan_in(home.path(), &["report", "--plan", plan, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert!(report["inference"]["breakeven_tokens_per_month"].is_null());
    assert_eq!(report["inference"]["breakeven"]["kind"], "api_not_dearer");
    let table = gpuplan_in(home.path(), &["report", "--plan", plan]);
    assert!(
        table.stdout.contains("break-even volume        none: the API"),
        "{}",
        table.stdout
    );
}

#[test]
fn table_and_markdown_show_the_sensitivity_rows_against_the_seed() {
    let table = gpuplan(&["report"]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table.stdout.contains("h100-sxm       25.0 %    $12.50"),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains("$4.21M     $4.20M    +0.3 %"), "{}", table.stdout);
    let markdown = gpuplan(&["report", "--format", "markdown"]);
    assert!(markdown.stdout.starts_with("# gpuplan report: Seed worked examples"));
    assert!(markdown.stdout.contains("| accelerator | MFU |"), "{}", markdown.stdout);
}

#[test]
fn running_with_no_command_prints_the_report_of_the_default_plan() {
    let run = gpuplan(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("gpuplan report: Seed worked examples"));
}

#[test]
fn exit_codes_distinguish_ok_failed_checks_and_bad_input() {
    assert_eq!(gpuplan(&["--version"]).code, 0);
    assert_eq!(gpuplan(&["--help"]).code, 0);
    assert_eq!(gpuplan(&["report", "--format", "yaml"]).code, 2);
    assert_eq!(gpuplan(&["no-such-command"]).code, 2);
    // The default plan's 15-minute checkpoints against a 4-hour MTBI fail the spot rule.
    let failing = gpuplan(&["check"]);
    assert_eq!(failing.code, 1, "{}", failing.stdout);
    assert!(failing.stdout.contains("FAIL  spot_checkpoint"), "{}", failing.stdout);

    let home = tempfile::tempdir().expect("tempdir");
    let plan = home.path().join("fast-checkpoints.toml");
    let text = default_plan_text().replace("checkpoint_minutes = 15.0 ", "checkpoint_minutes = 5.0 ");
    std::fs::write(&plan, text).expect("write plan");
    let passing = gpuplan_in(home.path(), &["check", "--plan", plan.to_str().expect("utf-8")]);
    assert_eq!(passing.code, 0, "{}", passing.stdout);
    let strict = gpuplan_in(
        home.path(),
        &["check", "--strict", "--plan", plan.to_str().expect("utf-8")],
    );
    assert_eq!(strict.code, 1, "warnings fail under --strict: {}", strict.stdout);
}

#[test]
fn a_bad_plan_is_refused_with_file_line_and_column() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan = home.path().join("typo.toml");
    std::fs::write(
        &plan,
        default_plan_text().replace(
            "mfu = 0.45\nprice_set = \"seed-002\"           # the seed's $45/h",
            "mfu = \"high\"\nprice_set = \"seed-002\"           # the seed's $45/h",
        ),
    )
    .expect("write plan");
    let run = gpuplan_in(home.path(), &["report", "--plan", plan.to_str().expect("utf-8")]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("typo.toml:31:7"), "{}", run.stderr);
    assert!(
        run.stderr.contains("invalid type: string \"high\", expected f64"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());

    let missing = gpuplan_in(home.path(), &["report", "--plan", "/nonexistent/plan.toml"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("/nonexistent/plan.toml: cannot read the plan"),
        "{}",
        missing.stderr
    );
}

#[test]
fn plan_new_writes_the_default_and_refuses_to_overwrite() {
    let home = tempfile::tempdir().expect("tempdir");
    let path = home.path().join("mine.toml");
    let path_str = path.to_str().expect("utf-8");
    assert_eq!(gpuplan_in(home.path(), &["plan", "new", "--output", path_str]).code, 0);
    assert_eq!(std::fs::read_to_string(&path).expect("written"), default_plan_text());
    let again = gpuplan_in(home.path(), &["plan", "new", "--output", path_str]);
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);
    assert_eq!(
        gpuplan_in(home.path(), &["plan", "new", "--output", path_str, "--force"]).code,
        0
    );
    let validated = gpuplan_in(home.path(), &["plan", "validate", path_str]);
    assert_eq!(validated.code, 0, "{}", validated.stderr);
    assert_eq!(gpuplan(&["plan", "new"]).stdout, default_plan_text());
}

#[test]
fn catalog_lists_accelerators_and_prices_with_dates() {
    let run = gpuplan(&["catalog"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for id in ["h100-sxm", "h200-sxm", "b200", "tpu-v5e", "trainium2"] {
        assert!(run.stdout.contains(id), "{id} missing");
    }
    assert!(run.stdout.contains("seed-002"));
    assert!(
        run.stderr.is_empty(),
        "the built-in catalogs load cleanly: {}",
        run.stderr
    );
}

#[test]
fn the_monte_carlo_is_reproducible_by_seed_and_ordered() {
    let a = json_report(&["report", "--format", "json"]);
    let b = json_report(&["report", "--format", "json"]);
    let mc = &a["risk"]["monte_carlo"];
    assert_eq!(mc, &b["risk"]["monte_carlo"], "same seed, same draws");
    let (p50, p90, p99) = (
        mc["p50"].as_f64().expect("p50"),
        mc["p90"].as_f64().expect("p90"),
        mc["p99"].as_f64().expect("p99"),
    );
    assert!(p50 <= p90 && p90 <= p99, "{p50} {p90} {p99}");
    assert_eq!(mc["draws"], 10_000);
    // The H100 run at 45 % MFU costs $2.34M; the risks add $29,700 expected, and a lower MFU
    // in the range makes the run dearer.
    assert!(p50 > 2.3e6 && p99 < 4.2e6, "{p50} {p99}");
    // No log at all: the shipped sample, as the workbench opens it (one front door).
    assert!(!a["contracts"].is_null(), "the shipped sample's contract matching");
}

#[test]
fn the_report_matches_contract_terms_to_the_logs_demand() {
    let sample = common::SAMPLE_LOG;
    let report = json_report(&["report", "--format", "json", "--logs", sample]);
    let contracts = &report["contracts"];
    let classes = contracts["classes"].as_array().expect("contracts.classes");
    assert_eq!(classes.len(), 3);
    for class in classes {
        assert!(!class["best_mix"].as_array().expect("best_mix").is_empty());
        assert!(!class["pure_terms"].as_array().expect("pure_terms").is_empty());
        let mix = class["cost_usd_per_month"].as_f64().expect("cost");
        assert!(mix > 0.0);
    }
    let consolidated = contracts["consolidated_usd_per_month"].as_f64().expect("consolidated");
    let matched = contracts["matched_usd_per_month"].as_f64().expect("matched");
    assert!(matched > 0.0 && matched < consolidated, "{matched} vs {consolidated}");
    let table = gpuplan(&["report", "--logs", sample]);
    assert!(table.stdout.contains("CONTRACTS (BOARD VIEW)"), "{}", table.stdout);
    assert!(table.stdout.contains("workload-matched"), "{}", table.stdout);
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

#[test]
fn the_board_waterfall_traces_each_step_to_the_plan_and_the_audit() {
    let sample = common::SAMPLE_LOG;
    let report = json_report(&["report", "--format", "json", "--logs", sample]);
    let audit = json_report(&["audit", sample, "--format", "json"]);
    let w = &report["waterfall"];
    let steps = w["steps"].as_array().expect("steps");
    let keys: Vec<&str> = steps.iter().map(|s| s["step"].as_str().expect("key")).collect();
    assert_eq!(
        keys,
        [
            "today",
            "right_sized",
            "term_mix",
            "split_pools",
            "cheapest_offers",
            "forecast_demand"
        ]
    );
    // Step 1 is the built-in plan's four clusters at their prices, 730 hours a month.
    let today = (192.0 * 4.3344 + 256.0 * 5.815154 + 96.0 * 4.09625 + 136.0 * 6.88) * 730.0;
    assert!((f(&steps[0]["usd_per_month"]) - today).abs() < 1e-6, "{}", steps[0]);
    // Step 2 cuts each cluster to its audited p95, in whole GPUs.
    let right_sized: f64 = audit["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .map(|c| {
            let kept = f(&c["p95_concurrent_gpus"]).ceil().min(f(&c["capacity_gpus"]));
            kept * f(&c["usd_per_gpu_hour"]) * 730.0
        })
        .sum();
    assert!((f(&steps[1]["usd_per_month"]) - right_sized).abs() < 1e-6);
    // Every step is computed here, and the changes add up to the saving.
    let changes: f64 = steps[1..].iter().map(|s| f(&s["change_usd_per_month"])).sum();
    assert!((changes + f(&w["saving_usd_per_month"])).abs() < 1e-6, "{changes}");
    assert!(f(&w["saving_usd_per_year"]) > 0.0);
    // Step 4 is the replay's split, step 3 each class's term mix at today's prices.
    let split: f64 = report["replay"]["split"]["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .map(|p| f(&p["total_usd_per_month"]))
        .sum();
    assert!((f(&steps[3]["usd_per_month"]) - split).abs() < 1e-6);
    let term_mix: f64 = report["contracts"]["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .map(|c| f(&c["today_prices_usd_per_month"]))
        .sum();
    assert!((f(&steps[2]["usd_per_month"]) - term_mix).abs() < 1e-6);
    // Each class: the chosen accelerator is no dearer than the runner-up, and A100 demand is
    // carried over by dense BF16 peak (inference by memory bandwidth), never GPU for GPU.
    let bf16 = |id: &str| match id {
        "a100-80gb" => 312.0,
        "h100-sxm" | "h200-sxm" => 989.0,
        "b200" => 2250.0,
        other => panic!("{other}"),
    };
    let bandwidth = |id: &str| match id {
        "a100-80gb" => 2.039,
        "h100-sxm" => 3.35,
        "h200-sxm" => 4.8,
        "b200" => 8.0,
        other => panic!("{other}"),
    };
    for class in report["contracts"]["classes"].as_array().expect("classes") {
        let cost = f(&class["cost_usd_per_month"]);
        assert!(cost <= f(&class["runner_up"]["cost_usd_per_month"]), "{class}");
        let to = class["accelerator"].as_str().expect("accelerator");
        let a100 = class["normalization"]
            .as_array()
            .expect("normalization")
            .iter()
            .find(|n| n["from"] == "a100-80gb")
            .expect("A100 demand");
        let expected = if class["class"] == "inference" {
            assert_eq!(a100["basis"], "memory bandwidth");
            bandwidth("a100-80gb") / bandwidth(to)
        } else {
            assert_eq!(a100["basis"], "dense BF16 peak");
            bf16("a100-80gb") / bf16(to)
        };
        assert!((f(&a100["factor"]) - expected).abs() < 1e-9, "{a100}");
        // Step 3 keeps each accelerator apart.
        let groups = class["today_prices"].as_array().expect("groups");
        let mut accelerators: Vec<&str> = groups.iter().map(|g| g["accelerator"].as_str().expect("id")).collect();
        accelerators.dedup();
        assert_eq!(accelerators.len(), groups.len());
    }
    assert_eq!(
        report["contracts"]["fallback_price_clusters"].as_array().map(Vec::len),
        Some(0)
    );
    // The causes, credited independently of order, sum to the saving; the price's credit is
    // its mean marginal saving, recomputed here from the steps' own figures.
    let credits = w["attribution"].as_array().expect("attribution");
    let causes: Vec<&str> = credits.iter().map(|a| a["cause"].as_str().expect("cause")).collect();
    assert_eq!(
        causes,
        ["right_sizing", "elasticity_and_terms", "separation", "price", "demand"]
    );
    let credited: f64 = credits.iter().map(|a| f(&a["usd_per_year"])).sum();
    assert!((credited - f(&w["saving_usd_per_year"])).abs() < 1e-3, "{credited}");
    let sequential_price = -f(&steps[4]["change_usd_per_month"]) * 12.0;
    assert!(
        f(&credits[3]["usd_per_year"]) > sequential_price,
        "price credited last is credited least"
    );
    let table = gpuplan(&["report", "--logs", sample]);
    assert!(table.stdout.contains("BOARD WATERFALL"), "{}", table.stdout);
    assert!(table.stdout.contains("5. cheapest GPU/seller:"), "{}", table.stdout);
    assert!(table.stdout.contains("elasticity and terms"), "{}", table.stdout);
}

#[test]
fn offers_that_cannot_be_had_are_left_out_and_what_was_taken_on_trust_is_said() {
    let sample = common::SAMPLE_LOG;
    let report = json_report(&["report", "--format", "json", "--logs", sample]);
    let classes = report["contracts"]["classes"].as_array().expect("classes");
    let class = |name: &str| classes.iter().find(|c| c["class"] == name).expect("class");
    // With no [moving] needed_within_weeks, its default stands and is said to be assumed.
    assert_eq!(report["contracts"]["needed_within_weeks"], 26.0);
    assert_eq!(report["contracts"]["needed_within_weeks_assumed"], true);
    // The sample's largest training run holds 176 GPUs: carried to the chosen accelerator it
    // still spans nodes, so every offer stating no fabric between nodes is left out, with why.
    let training = class("training");
    let gang = f(&training["largest_gang_gpus"]);
    assert!(gang > 8.0, "{gang}");
    let exclusions = training["exclusions"].as_array().expect("exclusions");
    assert!(!exclusions.is_empty());
    for e in exclusions {
        let reason = e["reason"].as_str().expect("reason");
        assert!(reason.contains(&format!("gangs of {gang:.0} GPUs")), "{e}");
    }
    let contracts: gpuplan::model::contracts::ContractCatalog =
        toml::from_str(include_str!("../../catalogs/contracts.toml")).expect("catalog");
    for row in training["best_mix"].as_array().expect("mix") {
        let offer = contracts
            .offers
            .iter()
            .find(|o| o.id == row["offer_id"])
            .expect("offer");
        assert!(offer.inter_node.carries_gangs(), "{}", offer.id);
    }
    // Every chosen offer whose seller states no maximum is said to be taken on trust.
    for c in classes {
        let trusted = c["assumed_supply"].as_array().expect("assumed_supply");
        for row in c["best_mix"].as_array().expect("mix") {
            let offer = contracts
                .offers
                .iter()
                .find(|o| o.id == row["offer_id"])
                .expect("offer");
            if offer.max_gpus.known().is_none() {
                assert!(
                    trusted
                        .iter()
                        .any(|t| t.as_str().is_some_and(|t| t.starts_with(offer.id.as_str()))),
                    "{}: {trusted:?}",
                    offer.id
                );
            }
        }
    }
    // Every running job holds a whole GPU at least: the audit's floor never exceeds the GPUs.
    let audit = json_report(&["audit", sample, "--format", "json"]);
    for cluster in audit["clusters"].as_array().expect("clusters") {
        for class in ["training", "inference", "burst"] {
            let busy = cluster["hourly"][format!("{class}_gpus").as_str()]
                .as_array()
                .expect("busy");
            let floor = cluster["hourly"][format!("{class}_gpu_floor").as_str()]
                .as_array()
                .expect("floor");
            assert_eq!(busy.len(), floor.len());
            assert!(busy.iter().zip(floor).all(|(b, w)| f(w) <= f(b) + 1e-9 && f(w) >= 0.0));
        }
    }
    // Burst may take spot, priced with the work the plan's reliability figures say it redoes.
    let burst = class("burst");
    let spot = burst["pure_terms"]
        .as_array()
        .expect("pure terms")
        .iter()
        .find(|r| r["term"] == "spot")
        .expect("burst priced on spot");
    let factor = f(&spot["preemption_factor"]);
    assert!(factor > 1.0 && factor < 2.0, "{spot}");
    let offer = contracts
        .offers
        .iter()
        .find(|o| o.id == spot["offer_id"])
        .expect("offer");
    let list = offer
        .effective_usd_per_gpu_hour(burst["accelerator"].as_str().expect("accelerator"))
        .expect("priced");
    assert!(
        (f(&spot["effective_usd_per_gpu_hour"]) - list * factor).abs() < 1e-9,
        "{spot}"
    );
    // The replay tried the training pool at its gang's size and kept the cheaper.
    let sizing = &report["replay"]["gang_sizing"];
    assert_eq!(sizing["class"], "training");
    assert_eq!(f(&sizing["gang_gpus"]), 176.0);
    assert!(
        f(&sizing["gang_overflow_frac"]) < f(&sizing["base_overflow_frac"]),
        "{sizing}"
    );
    let kept = if sizing["gang_kept"] == true { "gang" } else { "base" };
    let (kept_cost, other_cost) = (
        f(&sizing[format!("{kept}_usd_per_month").as_str()]),
        f(&sizing[if kept == "gang" {
            "base_usd_per_month"
        } else {
            "gang_usd_per_month"
        }]),
    );
    assert!(kept_cost <= other_cost, "{sizing}");
    assert!((f(&report["waterfall"]["steps"][3]["usd_per_month"]) - kept_cost).abs() < 1e-6);
}

#[test]
fn measured_tokens_per_second_carry_inference_instead_of_bandwidth() {
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    let measured = [
        ("a100-80gb", 1_000.0),
        ("H100", 2_400.0),
        ("h200-sxm", 3_000.0),
        ("b200", 5_000.0),
    ];
    let table: String = measured
        .iter()
        .map(|(name, tps)| format!("\"{name}\" = {tps}\n"))
        .collect();
    let report = common::sample_report_in(
        home.path(),
        &format!("\n[inference.measured_tokens_per_second]\n{table}"),
    );
    let inference = report["contracts"]["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .find(|c| c["class"] == "inference")
        .expect("inference");
    let tps = |id: &str| match id {
        "a100-80gb" => 1_000.0,
        "h100-sxm" => 2_400.0,
        "h200-sxm" => 3_000.0,
        "b200" => 5_000.0,
        other => panic!("{other}"),
    };
    let to = inference["accelerator"].as_str().expect("accelerator");
    for n in inference["normalization"].as_array().expect("normalization") {
        assert_eq!(n["basis"], "measured tokens per second", "{n}");
        let from = n["from"].as_str().expect("from");
        assert!((f(&n["factor"]) - tps(from) / tps(to)).abs() < 1e-12, "{n}");
    }
    // A measurement that cannot be true is refused at its key.
    std::fs::write(
        &plan,
        format!(
            "{}\n[inference.measured_tokens_per_second]\nh100-sxm = -5\n",
            default_plan_text()
        ),
    )
    .expect("plan");
    let run = gpuplan_in(home.path(), &["report", "--plan", plan.to_str().expect("path")]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("inference.measured_tokens_per_second.h100-sxm"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_offer_slower_than_the_plan_needs_is_left_out() {
    let home = tempfile::tempdir().expect("home");
    // A catalog override where the build-to-order offers state a 20-week lead time.
    let catalogs = home.path().join("config").join("catalogs");
    std::fs::create_dir_all(&catalogs).expect("dir");
    let shipped = include_str!("../../catalogs/contracts.toml");
    let mut lines: Vec<String> = Vec::new();
    let mut in_slow = false;
    for line in shipped.lines() {
        if line.starts_with("id = ") {
            in_slow = line.contains("3-year") || line.contains("36-month");
        }
        if in_slow && line.starts_with("lead_time_weeks") {
            lines.push("lead_time_weeks = 20".to_string());
        } else {
            lines.push(line.to_string());
        }
    }
    std::fs::write(catalogs.join("contracts.toml"), lines.join("\n")).expect("catalog");
    for (needed, left_out) in [(12.0, true), (30.0, false)] {
        let report = common::sample_report_in(home.path(), &format!("\n[moving]\nneeded_within_weeks = {needed}\n"));
        assert_eq!(report["contracts"]["needed_within_weeks_assumed"], false);
        let reasons: Vec<String> = report["contracts"]["classes"]
            .as_array()
            .expect("classes")
            .iter()
            .flat_map(|c| c["exclusions"].as_array().expect("exclusions").clone())
            .filter(|e| e["offer_id"] == "aws-3-year-savings-plan")
            .map(|e| e["reason"].as_str().expect("reason").to_string())
            .collect();
        assert_eq!(
            reasons.iter().any(|r| r.contains("20 weeks' lead time")),
            left_out,
            "needed within {needed}: {reasons:?}"
        );
    }
}

#[test]
fn clusters_the_plan_does_not_list_are_named_wherever_the_fallback_price_is_used() {
    let sample = common::SAMPLE_LOG;
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = dir.path().join("plan.toml");
    // The built-in plan with its [[clusters]] left out.
    let text = default_plan_text();
    let cut = text.find("[[clusters]]").expect("clusters");
    let end = text.find("# Per-plan threshold overrides").expect("thresholds");
    std::fs::write(&plan, format!("{}{}", &text[..cut], &text[end..])).expect("plan");
    let plan = plan.to_str().expect("utf-8");
    // The sample names its GPU types: each unlisted cluster is priced as its accelerator, at
    // the catalog's list price, and said to be an assumption.
    let report = json_report(&["report", "--format", "json", "--plan", plan, "--logs", sample]);
    let listed: Vec<(&str, &str)> = report["contracts"]["list_priced_clusters"]
        .as_array()
        .expect("list-priced clusters")
        .iter()
        .map(|c| (c[0].as_str().expect("name"), c[1].as_str().expect("accelerator")))
        .collect();
    assert_eq!(
        listed,
        [
            ("ap-south-h100", "h100-sxm"),
            ("eu-west-a100", "a100-80gb"),
            ("us-east-h100", "h100-sxm"),
            ("us-west-h200", "h200-sxm")
        ]
    );
    assert_eq!(report["contracts"]["fallback_price_clusters"], serde_json::json!([]));
    let audit = json_report(&["audit", "--format", "json", sample, "--plan", plan]);
    let a100 = audit["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .find(|c| c["name"] == "eu-west-a100")
        .expect("eu-west-a100");
    assert_eq!(a100["gpu_type"], "a100-80gb");
    assert_eq!(a100["priced_as"], "a100-80gb");
    assert_eq!(a100["term"], serde_json::Value::Null);
    let catalog_a100 = 27.447 / 8.0; // AWS p4de.24xlarge on demand, the dearest A100 offer
    assert!(
        (a100["usd_per_gpu_hour"].as_f64().expect("price") - catalog_a100).abs() < 1e-3,
        "{a100}"
    );
    assert!(
        a100["price_source"]
            .as_str()
            .expect("source")
            .starts_with("assumed: the log's GPU type a100-80gb")
    );
    let text = gpuplan(&["audit", sample, "--plan", plan]);
    assert!(
        text.stdout
            .contains("Not in the plan, so priced by assumption: ap-south-h100 at $12.29/GPU-h"),
        "{}",
        text.stdout
    );

    // Without GPU types, the seed's H100 rate, named as the fallback everywhere it is used.
    let untyped = dir.path().join("untyped.csv");
    let without_type: String = std::fs::read_to_string(sample)
        .expect("sample")
        .lines()
        .map(|line| {
            let mut fields: Vec<&str> = line.split(',').collect();
            fields.remove(9);
            fields.join(",") + "\n"
        })
        .collect();
    assert!(without_type.starts_with("job_id,cluster,name,user,queue,state,start,end,gpus,gpu_util_pct,label\n"));
    std::fs::write(&untyped, without_type).expect("untyped log");
    let sample = untyped.to_str().expect("utf-8");
    let report = json_report(&["report", "--format", "json", "--plan", plan, "--logs", sample]);
    let named: Vec<&str> = report["contracts"]["fallback_price_clusters"]
        .as_array()
        .expect("fallback clusters")
        .iter()
        .map(|c| c.as_str().expect("name"))
        .collect();
    assert_eq!(named, ["ap-south-h100", "eu-west-a100", "us-east-h100", "us-west-h200"]);
    let assumption = report["waterfall"]["steps"][0]["assumption"]
        .as_str()
        .expect("assumption");
    assert!(
        assumption.contains("$12.29") && assumption.contains("us-west-h200"),
        "{assumption}"
    );
    let audit = gpuplan(&["audit", sample, "--plan", plan]);
    assert!(
        audit.stdout.contains("Not in the plan, so priced by assumption: ap-south-h100, eu-west-a100, us-east-h100, us-west-h200 at the fallback")
            && audit.stdout.contains("$12.29/GPU-h"),
        "{}",
        audit.stdout
    );
    let table = gpuplan(&["report", "--plan", plan, "--logs", sample]);
    assert!(table.stdout.contains("fallback rate"), "{}", table.stdout);
}

/// The built-in plan with `extra` appended to its [inference] table.
fn plan_with_inference_lines(dir: &std::path::Path, extra: &str) -> String {
    let text = default_plan_text();
    let at = text.find("\n[reliability]").expect("reliability table");
    let plan = dir.join("plan.toml");
    std::fs::write(&plan, format!("{}\n{extra}\n{}", &text[..at], &text[at..])).expect("plan");
    plan.to_str().expect("utf-8").to_string()
}

#[test]
fn measured_user_latency_sets_the_transit_rule_per_serving_location() {
    let dir = tempfile::tempdir().expect("temp dir");
    let users = r#"
[[inference.users]]
location = "Mumbai"
users_frac = 0.5
round_trip_ms = 10.0
from = "ap-south"

[[inference.users]]
location = "London"
users_frac = 0.3
round_trip_ms = 240.0
from = "ap-south"

[[inference.users]]
location = "Mumbai"
users_frac = 0.5
round_trip_ms = 240.0
from = "eu-west"

[[inference.users]]
location = "London"
users_frac = 0.3
round_trip_ms = 16.0
from = "eu-west"
"#;
    // The TOML array of tables must follow the [inference] keys: append them after it.
    let plan = plan_with_inference_lines(dir.path(), users);
    let report = json_report(&["report", "--format", "json", "--plan", &plan]);
    let figures = report["inference"]["transit_by_location"].as_array().expect("figures");
    assert_eq!(figures.len(), 2);
    // ap-south: (0.5 × 5 + 0.3 × 120) / 0.8 = 48.1 ms; eu-west: (0.5 × 120 + 0.3 × 8) / 0.8 = 78 ms.
    assert!((f(&figures[0]["one_way_ms"]) - 48.125).abs() < 1e-9, "{}", figures[0]);
    assert!((f(&figures[1]["one_way_ms"]) - 78.0).abs() < 1e-9, "{}", figures[1]);
    let transit: Vec<&Value> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["rule"] == "inference_transit")
        .collect();
    assert_eq!(transit.len(), 2);
    assert_eq!(transit[0]["subject"], "ap-south");
    assert_eq!(transit[0]["status"], "pass");
    let inference = report["recommendations"]
        .as_array()
        .expect("recommendations")
        .iter()
        .find(|r| r["class"] == "inference")
        .expect("inference");
    assert!(
        inference["reason"]
            .as_str()
            .expect("reason")
            .contains("served from ap-south: 48 ms"),
        "{inference}"
    );

    // The same from a CSV next to the plan; a bad row names the file and its line.
    std::fs::write(
        dir.path().join("users.csv"),
        "from,location,users_frac,rtt_ms\nap-south,Mumbai,0.8,200\n",
    )
    .expect("csv");
    let plan = plan_with_inference_lines(dir.path(), "users_csv = \"users.csv\"");
    let report = json_report(&["report", "--format", "json", "--plan", &plan]);
    let figures = report["inference"]["transit_by_location"].as_array().expect("figures");
    assert!((f(&figures[0]["one_way_ms"]) - 100.0).abs() < 1e-9);
    let failed = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["rule"] == "inference_transit")
        .expect("transit check");
    assert_eq!(failed["status"], "fail");
    std::fs::write(
        dir.path().join("users.csv"),
        "from,location,users_frac,rtt_ms\nap-south,Mumbai,80,200\n",
    )
    .expect("csv");
    let run = gpuplan(&["report", "--plan", &plan]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("users.csv:2"), "{}", run.stderr);
    assert!(run.stderr.contains("0.35"), "{}", run.stderr);
}

#[test]
fn jobs_that_never_started_are_offered_to_the_matcher_flagged_and_outside_the_waterfall() {
    let log = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/slurm/sacct_pending.txt");
    let report = json_report(&["report", "--format", "json", "--logs", log]);
    let classes = report["contracts"]["classes"].as_array().expect("classes");
    let training = classes.iter().find(|c| c["class"] == "training").expect("training");
    let pending = &training["pending"];
    assert_eq!(pending["jobs"], 1);
    assert_eq!(pending["gpu_hours_requested"], 3072.0);
    let extra = f(&pending["extra_usd_per_month"]);
    assert!(extra > 0.0, "{pending}");
    assert!((f(&pending["cost_usd_per_month"]) - f(&training["cost_usd_per_month"]) - extra).abs() < 1e-6);
    let table = gpuplan(&["report", "--logs", log]);
    assert!(
        table.stdout.contains("Pending demand (flagged, not in the waterfall)"),
        "{}",
        table.stdout
    );
}

#[test]
fn a_cluster_that_cannot_serve_its_stated_volume_fails_a_check() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan = home.path().join("short.toml");
    let text = default_plan_text().replace(
        "throughput_tokens_per_hour = 100e6",
        "throughput_tokens_per_hour = 90e6",
    );
    assert_ne!(text, default_plan_text(), "the default plan's throughput line");
    std::fs::write(&plan, text).expect("write plan");
    let run = gpuplan_in(home.path(), &["check", "--plan", plan.to_str().expect("utf-8")]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    // 90M tokens/h × 730 h × (1 − 0.15) = 55.8B a month against 60B stated.
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("inference_capacity"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        line.starts_with("FAIL") && line.contains("55.8B") && line.contains("60.0B"),
        "{line}"
    );
    let default = gpuplan(&["check"]);
    assert!(
        default
            .stdout
            .lines()
            .any(|l| l.starts_with("PASS  inference_capacity")),
        "the built-in plan carries its own volume: {}",
        default.stdout
    );
}

#[test]
fn with_logs_the_mfu_gain_is_on_the_audited_spend_beside_the_plans_example() {
    let sample = common::SAMPLE_LOG;
    let with_logs = json_report(&["report", "--logs", sample, "--format", "json"]);
    let board = &with_logs["board"];
    let today = f(&with_logs["contracts"]["consolidated_usd_per_month"]);
    assert!((f(&board["audited"]["annual_gpu_spend_usd"]) - today * 12.0).abs() < 1e-6);
    let recovered = today * 12.0 * (1.0 - f(&board["mfu_from_frac"]) / f(&board["mfu_to_frac"]));
    assert!((f(&board["audited"]["mfu_gain_recovered_usd_per_year"]) - recovered).abs() < 1e-3);
    assert_eq!(
        f(&board["annual_gpu_spend_usd"]),
        10e6,
        "the seed's example stays as it is"
    );
    // No log at all: the shipped sample, as the workbench opens it (one front door).
    let plan_only = json_report(&["report", "--format", "json"]);
    assert_eq!(
        plan_only["board"]["audited"], board["audited"],
        "the sample's audited spend"
    );
}

#[test]
fn every_shipped_plan_prices_the_shipped_samples_clusters_itself() {
    let sample = common::SAMPLE_LOG;
    let plans = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/plans")).expect("plans");
    let mut seen = 0;
    for entry in plans {
        let path = entry.expect("entry").path();
        let report = json_report(&[
            "report",
            "--plan",
            path.to_str().expect("utf-8"),
            "--logs",
            sample,
            "--format",
            "json",
        ]);
        let contracts = &report["contracts"];
        assert_eq!(contracts["fallback_price_clusters"], serde_json::json!([]), "{path:?}");
        assert_eq!(contracts["list_priced_clusters"], serde_json::json!([]), "{path:?}");
        assert_eq!(contracts["fleet"].as_array().map(Vec::len), Some(4), "{path:?}");
        seen += 1;
    }
    assert_eq!(seen, 4, "default, growth, h200-reserved, spot-heavy");
}

#[test]
fn the_board_sees_staying_with_todays_providers_beside_switching() {
    let sample = common::SAMPLE_LOG;
    let report = json_report(&["report", "--format", "json", "--logs", sample]);
    let w = &report["waterfall"];
    let today = f(&w["today_usd_per_month"]);
    let ends = w["alternatives"].as_array().expect("alternatives");
    let names: Vec<&str> = ends.iter().map(|a| a["name"].as_str().expect("name")).collect();
    assert_eq!(names, ["stay", "switch"]);
    for end in ends {
        let usd = f(&end["usd_per_month"]);
        assert!(usd > 0.0 && usd <= today, "{end}");
        assert!(
            (f(&end["saving_usd_per_year"]) - (today - usd) * 12.0).abs() < 1e-3,
            "{end}"
        );
    }
    assert_eq!(
        f(&ends[1]["usd_per_month"]),
        f(&w["final_usd_per_month"]),
        "switch is the last step"
    );
    // Each cluster with its provider: the sample's AWS and Azure clusters, on their own terms.
    let clusters = ends[0]["clusters"].as_array().expect("stay's clusters");
    assert_eq!(clusters.len(), 4);
    let provider = |name: &str| {
        clusters
            .iter()
            .find(|c| c["name"] == name)
            .and_then(|c| c["provider"].as_str())
            .map(str::to_string)
    };
    assert_eq!(provider("us-east-h100").as_deref(), Some("AWS"));
    assert_eq!(provider("us-west-h200").as_deref(), Some("Azure"));
    let stay_sum: f64 = clusters.iter().map(|c| f(&c["usd_per_month"])).sum();
    assert!((stay_sum - f(&ends[0]["usd_per_month"])).abs() < 1e-6);
    for c in clusters {
        assert!(f(&c["usd_per_month"]) <= f(&c["today_usd_per_month"]) + 1e-6, "{c}");
    }
    let text = gpuplan(&["report", "--logs", sample]);
    assert!(text.stdout.contains("switching adds"), "{}", text.stdout);
}

#[test]
fn the_board_gets_a_range_and_a_tornado_of_stated_drivers() {
    let sample = common::SAMPLE_LOG;
    let report = json_report(&["report", "--format", "json", "--logs", sample]);
    let w = &report["waterfall"];
    let point = f(&w["saving_usd_per_year"]);
    let range = &w["range"];
    let (p10, p50, p90) = (
        f(&range["p10_usd_per_year"]),
        f(&range["p50_usd_per_year"]),
        f(&range["p90_usd_per_year"]),
    );
    assert!(p10 < p50 && p50 < p90, "{range}");
    assert!((p10..=p90).contains(&point), "the point {point} within {range}");
    assert_eq!(range["draws"], 4000);
    // The same inputs, the same range.
    let again = json_report(&["report", "--format", "json", "--logs", sample]);
    assert_eq!(again["waterfall"]["range"], *range);
    // Every driver has a bar, widest swing first, and a stated basis.
    let bars = w["tornado"].as_array().expect("tornado");
    let drivers = w["drivers"].as_array().expect("drivers");
    assert_eq!(bars.len(), drivers.len());
    assert_eq!(bars.len(), 6);
    let swing = |b: &Value| (f(&b["high_usd_per_year"]) - f(&b["low_usd_per_year"])).abs();
    assert!(bars.windows(2).all(|pair| swing(&pair[0]) >= swing(&pair[1])));
    for d in drivers {
        assert!(!d["basis"].as_str().unwrap_or("").is_empty(), "{d}");
    }
    // Demand at its high costs the switched fleet more: less saving than at its low.
    let demand = bars.iter().find(|b| b["driver"] == "demand").expect("demand");
    assert!(f(&demand["high_usd_per_year"]) < f(&demand["low_usd_per_year"]));
    // tornado.svg beside waterfall.svg.
    let dir = tempfile::tempdir().expect("tempdir");
    let svg_dir = dir.path().join("svg");
    let svg_shown = svg_dir.display().to_string();
    let run = gpuplan(&["report", "--logs", sample, "--svg", &svg_shown]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tornado = std::fs::read_to_string(svg_dir.join("tornado.svg")).expect("tornado.svg");
    assert!(tornado.contains("offer prices") && tornado.contains("P10"), "{tornado}");
}

#[test]
fn the_saving_arrives_as_commitments_end_and_moving_is_paid_for() {
    let sample = common::SAMPLE_LOG;
    let report = json_report(&["report", "--format", "json", "--logs", sample]);
    let w = &report["waterfall"];
    let months = w["timeline"].as_array().expect("timeline");
    assert_eq!(months.len(), 12, "the built-in plan's horizon is a year");
    // The sample's window ends in September 2026: the timeline starts in October.
    assert_eq!(months[0]["month"], "2026-10");
    let timing = &w["timing"];
    let today = f(&w["today_usd_per_month"]);
    // Every month's saving is today's cost less the month's cost.
    for m in months {
        assert!((today - f(&m["cost_usd"]) - f(&m["saving_usd"])).abs() < 1e-6, "{m}");
    }
    let first_year: f64 = months.iter().map(|m| f(&m["saving_usd"])).sum();
    assert!((first_year - f(&timing["first_year_saving_usd"])).abs() < 1e-6);
    assert!((f(&months[11]["cumulative_saving_usd"]) - first_year).abs() < 1e-6);
    // us-east-h100's 1-year plan ends 2027-03-31, us-west-h200's 2027-06-30: the first year
    // saves far less than the run rate.
    assert!(f(&timing["first_year_saving_usd"]) < 0.75 * f(&timing["run_rate_usd_per_year"]));
    let free = timing["clusters_free_from"].as_array().expect("free");
    assert!(
        free.iter().any(|c| c[0] == "us-west-h200" && c[1] == "2027-07"),
        "{free:?}"
    );
    assert!(
        free.iter().any(|c| c[0] == "eu-west-a100" && c[1] == "2026-10"),
        "{free:?}"
    );
    // The moving costs are the defaults, said to be assumed: 1,000 h × $150 + 200 TB × $90.
    let moving = &timing["moving"];
    assert!((f(&moving["engineering_usd"]) - 150_000.0).abs() < 1e-6);
    assert!((f(&moving["egress_usd"]) - 18_000.0).abs() < 1e-6);
    assert!(moving["basis"].as_str().unwrap_or("").contains("assumed"), "{moving}");
    assert!(timing["payback_month"].is_string(), "{timing}");
    // A plan's [moving] is read: no egress, three months of dual running.
    let dir = tempfile::tempdir().expect("tempdir");
    let plan = dir.path().join("plan.toml");
    let text = format!(
        "{}\n[moving]\nengineering_hours = 4000\nengineering_usd_per_hour = 200\ndata_moved_tb = 0\negress_usd_per_tb = 90\ndual_running_months = 3\n",
        default_plan_text()
    );
    std::fs::write(&plan, text).expect("plan");
    let plan_shown = plan.display().to_string();
    let moved = json_report(&["report", "--format", "json", "--plan", &plan_shown, "--logs", sample]);
    let timing = &moved["waterfall"]["timing"];
    assert!((f(&timing["moving"]["engineering_usd"]) - 800_000.0).abs() < 1e-6);
    assert_eq!(f(&timing["moving"]["egress_usd"]), 0.0);
    assert!(!timing["moving"]["basis"].as_str().unwrap_or("").contains("assumed"));
    assert!(f(&timing["first_year_saving_usd"]) < f(&report["waterfall"]["timing"]["first_year_saving_usd"]));
}

#[test]
fn with_a_bill_today_is_what_the_bill_charges_and_says_which_cluster_is_which() {
    let root = env!("CARGO_MANIFEST_DIR");
    let sample = format!("{root}/sample-data/jobs-90d.csv");
    let bill = format!("{root}/tests/fixtures/focus/aws-focus-1.0.csv");
    let dir = tempfile::tempdir().expect("tempdir");
    let plan = dir.path().join("plan.toml");
    let mapping = std::fs::read_to_string(format!("{root}/tests/fixtures/focus/bill-plan.toml")).expect("mapping");
    std::fs::write(&plan, format!("{}\n{mapping}", default_plan_text())).expect("plan");
    let plan_shown = plan.display().to_string();
    let listed = json_report(&["report", "--format", "json", "--plan", &plan_shown, "--logs", &sample]);
    let billed = json_report(&[
        "report",
        "--format",
        "json",
        "--plan",
        &plan_shown,
        "--logs",
        &sample,
        "--bill",
        &bill,
    ]);
    let audit = json_report(&[
        "audit",
        "--plan",
        &plan_shown,
        &sample,
        "--bill",
        &bill,
        "--format",
        "json",
    ]);
    // Step 1: the bill's effective cost a month for the clusters it charges, capacity × price
    // for the others.
    let per_cluster = |name: &str| {
        audit["bill"]["clusters"]
            .as_array()
            .expect("bill clusters")
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| (f(&c["lines"]), f(&c["per_month"]["total"]["effective_usd"])))
            .expect("cluster in the bill")
    };
    let modelled = |name: &str| {
        audit["clusters"]
            .as_array()
            .expect("clusters")
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| f(&c["monthly_cost_usd"]))
            .expect("audited cluster")
    };
    let mut expected = 0.0;
    for name in ["ap-south-h100", "eu-west-a100", "us-east-h100", "us-west-h200"] {
        let (lines, effective) = per_cluster(name);
        expected += if lines > 0.0 { effective } else { modelled(name) };
    }
    let step = &billed["waterfall"]["steps"][0];
    assert!((f(&step["usd_per_month"]) - expected).abs() < 1e-3, "{step}");
    let assumption = step["assumption"].as_str().expect("assumption");
    assert!(
        assumption.contains("as billed") && assumption.contains("us-east-h100"),
        "{assumption}"
    );
    assert!(
        assumption.contains("the bill charges nothing of them): eu-west-a100, us-west-h200"),
        "{assumption}"
    );
    // Only today moved: the switched fleet costs the same with or without the bill.
    let last = |r: &Value| f(&r["waterfall"]["final_usd_per_month"]);
    assert!((last(&billed) - last(&listed)).abs() < 1e-6);
    let fleet = billed["contracts"]["fleet"].as_array().expect("fleet");
    let source = |name: &str| {
        fleet
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| c["today_source"].clone())
    };
    assert_eq!(source("us-east-h100"), Some(Value::from("bill")));
    assert_eq!(source("us-west-h200"), Some(Value::from("capacity_times_price")));
}
