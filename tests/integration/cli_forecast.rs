//! `gpuplan forecast` and `gpuplan backtest` on the shipped sample: the JSON interface as the
//! issue names it, the plan's growth and planned runs, the backtest's scores, and the errors.

use crate::common;

use common::{default_plan_text, gpuplan, gpuplan_in};
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");

fn json(run: common::Run) -> Value {
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

fn check_days(series: &Value, days: usize) {
    let daily = series["daily"].as_array().expect("daily");
    assert_eq!(daily.len(), days);
    for day in daily {
        let [lo95, lo80, mean, hi80, hi95, peak] =
            ["lo95", "lo80", "mean_gpus", "hi80", "hi95", "peak_gpus"].map(|k| number(&day[k]));
        assert!(lo95 >= 0.0 && peak >= 0.0, "{day}");
        assert!(lo95 <= lo80 && lo80 <= mean && mean <= hi80 && hi80 <= hi95, "{day}");
        assert_eq!(day["date"].as_str().map(str::len), Some(10), "{day}");
    }
}

#[test]
fn the_forecast_names_each_class_its_method_and_its_days() {
    let report = json(gpuplan(&[
        "forecast",
        SAMPLE,
        "--horizon-days",
        "45",
        "--format",
        "json",
    ]));
    assert_eq!(report["horizon_days"], 45);
    let classes = report["classes"].as_array().expect("classes");
    let names: Vec<&str> = classes.iter().filter_map(|c| c["class"].as_str()).collect();
    assert_eq!(names, ["training", "inference", "burst"]);
    for class in classes {
        assert!(class["method"].is_string(), "{class}");
        check_days(class, 45);
        // 90 days of history reach past a 45-day horizon: every day is the data's.
        assert!(
            class["daily"]
                .as_array()
                .expect("daily")
                .iter()
                .all(|d| d["basis"] == "data")
        );
    }
    let clusters = report["clusters"].as_array().expect("clusters");
    assert_eq!(clusters.len(), 4);
    for cluster in clusters {
        for class in cluster["classes"].as_array().expect("classes") {
            check_days(class, 45);
        }
    }
    // The plan's clusters run three accelerators: each is forecast with its clusters summed.
    let accelerators = report["accelerators"].as_array().expect("accelerators");
    let names: Vec<&str> = accelerators.iter().filter_map(|a| a["accelerator"].as_str()).collect();
    assert_eq!(names, ["a100-80gb", "h100-sxm", "h200-sxm"], "{report}");
    let h100 = &accelerators[1];
    let members: Vec<&str> = h100["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(members, ["ap-south-h100", "us-east-h100"]);
    for (i, class) in h100["classes"].as_array().expect("classes").iter().enumerate() {
        check_days(class, 45);
        let summed: f64 = clusters
            .iter()
            .filter(|c| members.contains(&c["name"].as_str().unwrap_or("")))
            .map(|c| number(&c["classes"][i]["history_mean_gpus"]))
            .sum();
        let group = number(&class["history_mean_gpus"]);
        assert!(
            (group - summed).abs() < 1e-6 * summed.max(1.0),
            "{group} against {summed}"
        );
    }
    // Every series names its method, chosen by cross-validation on its own history, with its
    // error beside seasonal naive's; the sample's fleet inference is smooth and seasonal.
    let known = [
        "no-demand",
        "level",
        "seasonal-naive-day",
        "seasonal-naive-week",
        "drift",
        "mstl-ets",
        "mstl-ets-damped",
        "mstl-ets-trend",
        "mstl-theta",
        "mstl-theta-optimized",
        "combination",
    ];
    let every_class = classes
        .iter()
        .chain(clusters.iter().flat_map(|c| c["classes"].as_array().expect("classes")));
    for class in every_class {
        let method = class["method"].as_str().expect("method");
        assert!(known.contains(&method), "{method}");
    }
    let inference = &classes[1]["cross_validation"];
    assert_eq!(inference["seasons"], "daily, weekly");
    assert!(
        inference["origins"].as_u64().is_some_and(|o| (2..=4).contains(&o)),
        "{inference}"
    );
    let (mae, naive) = (
        number(&inference["mae_gpus"]),
        number(&inference["seasonal_naive_mae_gpus"]),
    );
    // Chosen as the best, or the mean of those within a tenth of the best.
    assert!(
        mae > 0.0 && mae <= 1.1 * naive,
        "{mae} against seasonal naive's {naive}"
    );
}

#[test]
fn growth_and_planned_runs_from_the_plan_shape_the_fleets_forecast() {
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    let text = default_plan_text()
        + "\n[forecast]\nhorizon_months = 2\ntraining_run = false\n[forecast.growth]\ninference = 4.0\n\
           [[forecast.planned]]\nname = \"pretrain\"\nclass = \"training\"\ngpus = 512\nstart = \"2026-10-10\"\ndays = 5\n";
    std::fs::write(&plan, text).expect("plan");
    let plan = plan.to_str().expect("path");
    let shaped = json(gpuplan_in(
        home.path(),
        &["forecast", SAMPLE, "--plan", plan, "--format", "json"],
    ));
    let plain = json(gpuplan(&[
        "forecast",
        SAMPLE,
        "--horizon-days",
        "61",
        "--format",
        "json",
    ]));
    assert_eq!(shaped["horizon_days"], 61, "two months of 365/12 days");
    let inference = &shaped["classes"][1];
    assert_eq!(number(&inference["growth_per_year"]), 4.0);
    let daily = inference["daily"].as_array().expect("daily");
    assert!(daily.iter().all(|d| d["basis"] == "growth"));
    // Four times a year on: a week 53 days after the first, the level is up by 4^(53/365)
    // (whole weeks, so the weekly season cancels).
    let week = |from: usize| {
        daily[from..from + 7]
            .iter()
            .map(|d| number(&d["mean_gpus"]))
            .sum::<f64>()
    };
    let lift = week(53) / week(0);
    assert!((lift - 4f64.powf(53.0 / 365.0)).abs() < 0.03, "{lift}");
    let training = shaped["classes"][0]["daily"].as_array().expect("daily");
    let untouched = plain["classes"][0]["daily"].as_array().expect("daily");
    let mut planned_gpu_days = 0.0;
    for (day, base) in training.iter().zip(untouched) {
        let date = day["date"].as_str().expect("date");
        let planned = number(&day["planned_gpus"]);
        planned_gpu_days += planned;
        if ("2026-10-10".."2026-10-15").contains(&date) {
            assert!(planned > 0.99 * 512.0, "{date}: {planned}");
        } else {
            assert!(planned < 0.01 * 512.0, "{date}: {planned}");
        }
        let added = number(&day["mean_gpus"]) - number(&base["mean_gpus"]);
        assert!((added - planned).abs() < 1e-6, "{date}: {added} against {planned}");
    }
    // Five days of 512 GPUs, however the run falls across the forecast's days.
    assert!((planned_gpu_days - 5.0 * 512.0).abs() < 1e-6, "{planned_gpu_days}");
    assert_eq!(shaped["planned"][0]["name"], "pretrain");
    // The clusters carry no planned run: it has no cluster yet.
    assert!(
        shaped["clusters"][0]["classes"][0]["daily"]
            .as_array()
            .expect("daily")
            .iter()
            .all(|d| number(&d["planned_gpus"]) == 0.0)
    );
}

#[test]
fn the_backtest_scores_every_class_on_the_held_out_days() {
    let report = json(gpuplan(&[
        "backtest",
        SAMPLE,
        "--holdout-days",
        "14",
        "--format",
        "json",
    ]));
    assert_eq!(report["holdout_days"], 14);
    let classes = report["classes"].as_array().expect("classes");
    assert_eq!(classes.len(), 3);
    for class in classes {
        assert_eq!(class["holdout_days"], 14);
        for key in ["actual_mean_gpus", "forecast_mean_gpus", "coverage_80", "coverage_95"] {
            assert!(number(&class[key]) >= 0.0, "{key}: {class}");
        }
        assert!(number(&class["coverage_80"]) <= number(&class["coverage_95"]) + 1e-9);
        // Present: a number, or null where the history is too flat to scale by.
        let mase = class.get("mase").unwrap_or_else(|| panic!("no mase: {class}"));
        assert!(mase.is_number() || mase.is_null(), "{class}");
        assert!(class["method"].is_string());
    }
    let table = gpuplan(&["backtest", SAMPLE, "--holdout-days", "14"]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table.stdout.contains("MASE") && table.stdout.contains("in 95 %"),
        "{}",
        table.stdout
    );
}

#[test]
fn origins_stepped_as_asked_are_that_many_days_apart_and_a_step_too_long_is_named() {
    let report = json(gpuplan(&[
        "backtest",
        SAMPLE,
        "--holdout-days",
        "14",
        "--origin-step-days",
        "30",
        "--format",
        "json",
    ]));
    assert_eq!(report["origin_step_days"], 30);
    let class = &report["classes"][0];
    let fitted: Vec<f64> = class["per_origin"]
        .as_array()
        .expect("per_origin")
        .iter()
        .map(|o| number(&o["fitted_days"]))
        .collect();
    // 90 days less 14 held out: origins on 16, 46 and 76 days of history.
    assert_eq!(fitted.len(), 3, "{fitted:?}");
    assert!(
        fitted.windows(2).all(|w| (w[1] - w[0] - 30.0).abs() < 1e-9),
        "{fitted:?}"
    );
    let commitment = &class["commitment"]["per_origin"];
    assert_eq!(commitment.as_array().map(Vec::len), Some(3), "{class}");

    let run = gpuplan(&["backtest", SAMPLE, "--holdout-days", "14", "--origin-step-days", "80"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("--origin-step-days") && run.stderr.contains("80 days apart"),
        "{}",
        run.stderr
    );
    let run = gpuplan(&["backtest", SAMPLE, "--origin-step-days", "0"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("--origin-step-days"), "{}", run.stderr);
    let table = gpuplan(&["backtest", SAMPLE, "--holdout-days", "14", "--origin-step-days", "30"]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(table.stdout.contains("step back 30 days each"), "{}", table.stdout);
}

#[test]
fn a_holdout_longer_than_the_history_and_a_bad_forecast_table_are_named() {
    let run = gpuplan(&["backtest", SAMPLE, "--holdout-days", "89"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("--holdout-days") && run.stderr.contains("hold out fewer days"),
        "{}",
        run.stderr
    );

    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    std::fs::write(&plan, default_plan_text() + "\n[forecast.growth]\nburst = -2.0\n").expect("plan");
    let run = gpuplan_in(
        home.path(),
        &["forecast", SAMPLE, "--plan", plan.to_str().expect("path")],
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("plan.toml:") && run.stderr.contains("forecast.growth.burst"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("yearly factor"), "{}", run.stderr);
}

#[test]
fn the_report_carries_the_fleets_forecast_and_its_fan_chart() {
    let home = tempfile::tempdir().expect("home");
    let plan = home.path().join("plan.toml");
    std::fs::write(&plan, default_plan_text() + "\n[forecast]\nhorizon_months = 3\n").expect("plan");
    let plan = plan.to_str().expect("path");
    let report = json(gpuplan_in(
        home.path(),
        &["report", "--plan", plan, "--logs", SAMPLE, "--format", "json"],
    ));
    let standalone = json(gpuplan_in(
        home.path(),
        &["forecast", SAMPLE, "--plan", plan, "--format", "json"],
    ));
    let forecast = &report["forecast"];
    assert_eq!(forecast["horizon_days"], 91);
    // The same fleet figures as `gpuplan forecast`; the clusters are that command's.
    assert_eq!(forecast["classes"], standalone["classes"]);
    assert_eq!(forecast["clusters"].as_array().map(Vec::len), Some(0));
    assert_eq!(forecast["accelerators"].as_array().map(Vec::len), Some(0));
    let markdown = gpuplan_in(
        home.path(),
        &["report", "--plan", plan, "--logs", SAMPLE, "--format", "markdown"],
    );
    assert_eq!(markdown.code, 0, "{}", markdown.stderr);
    assert!(markdown.stdout.contains("## Inference demand"), "{}", markdown.stdout);
    assert!(markdown.stdout.contains("8  80 % interval"), "{}", markdown.stdout);
    // Without logs, the shipped sample, as the workbench opens it: the same forecast.
    let alone = json(gpuplan_in(home.path(), &["report", "--plan", plan, "--format", "json"]));
    assert_eq!(alone["forecast"]["classes"], forecast["classes"]);
}
