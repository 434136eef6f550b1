//! The board checks its own conclusions (docs/board.md, "Checks of judgment"), and an export's
//! incomplete tail is said and left out of the forecast (docs/forecast.md, "Incomplete tails").

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::common::pty::Workbench;
use crate::common::{SAMPLE_LOG, gpuplan_in};

const PATIENCE: Duration = Duration::from_secs(40);
const DAY_MS: i64 = 86_400_000;

fn json(home: &Path, args: &[&str]) -> Value {
    let run = gpuplan_in(home, args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .expect("instant")
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// 70 days of one cluster: ten 8-GPU jobs a day for 58 days (80 GPUs held), then twelve days
/// holding one 1-GPU job a day, as an export written while the long jobs still ran.
fn export_with_an_empty_tail(dir: &Path) -> std::path::PathBuf {
    let start = 1_767_225_600_000; // 2026-01-01
    let mut csv = String::from("job_id,cluster,start,end,gpus,gpu_type\n");
    let mut id = 1;
    for day in 0..70 {
        let at = start + day * DAY_MS;
        let jobs = if day < 58 { 10 } else { 1 };
        let gpus = if day < 58 { 8 } else { 1 };
        for _ in 0..jobs {
            csv.push_str(&format!(
                "{id},lab,{},{},{gpus},h100-sxm\n",
                iso(at),
                iso(at + DAY_MS - 60_000)
            ));
            id += 1;
        }
    }
    let path = dir.join("export.csv");
    std::fs::write(&path, csv).expect("log");
    path
}

#[test]
fn the_board_checks_its_own_conclusions_on_the_sample_and_all_hold() {
    let home = tempfile::tempdir().expect("home");
    let report = json(home.path(), &["report", "--logs", SAMPLE_LOG, "--format", "json"]);
    let checks = report["waterfall"]["checks"].as_array().expect("waterfall.checks");
    let ids: Vec<&str> = checks.iter().filter_map(|c| c["id"].as_str()).collect();
    for id in [
        "saving_within_bill",
        "end_states_not_negative",
        "stay_within_bill",
        "demand_within_history",
        "capacity_holds_peak",
        "bands_distinct",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    for c in checks {
        let detail = c["detail"].as_str().unwrap_or_default();
        assert!(!detail.is_empty(), "{c}");
        // A purchase dearer than flat with prices held is a hedge: its bet is named.
        if c["id"] == "purchase_beats_runner_up" && c["holds"] == false {
            assert!(detail.contains("it pays only if"), "{c}");
            continue;
        }
        assert_eq!(c["holds"], true, "{c}");
    }
    // Staying never costs more than today where the forecast's demand fits today's capacity.
    let w = &report["waterfall"];
    let stay = w["alternatives"][0]["usd_per_month"].as_f64().expect("stay");
    assert!(stay <= w["today_usd_per_month"].as_f64().expect("today"), "{stay}");
    let check = gpuplan_in(home.path(), &["check", "--judgment", SAMPLE_LOG]);
    let failing = checks.iter().filter(|c| c["holds"] == false).count();
    assert_eq!(check.code, i32::from(failing > 0), "{}{}", check.stdout, check.stderr);
    assert!(check.stdout.contains("ok   saving_within_bill"), "{}", check.stdout);
    for c in checks.iter().filter(|c| c["holds"] == false) {
        let id = c["id"].as_str().expect("id");
        assert!(check.stdout.contains(&format!("FAIL {id}")), "{}", check.stdout);
    }
    // With no log, the report and the check read the shipped sample, as the workbench does.
    let plain = json(home.path(), &["report", "--format", "json"]);
    assert_eq!(plain["waterfall"]["saving_usd_per_year"], w["saving_usd_per_year"]);
}

#[test]
fn an_export_s_empty_tail_is_said_everywhere_and_left_out_of_the_forecast() {
    let home = tempfile::tempdir().expect("home");
    let log = export_with_an_empty_tail(home.path());
    let log = log.to_str().expect("path");
    let report = json(home.path(), &["report", "--logs", log, "--format", "json"]);
    let tail = &report["forecast"]["incomplete_tail"];
    assert_eq!(tail["days"].as_f64(), Some(12.0), "{tail}");
    assert_eq!(tail["from"].as_str().map(|t| &t[..10]), Some("2026-02-28"), "{tail}");
    assert_eq!(tail["kept"], false);
    assert!(tail["level_frac"].as_f64().expect("level") < 0.05, "{tail}");
    // Fitted on the complete part, demand stays near its level: the factor is no collapse.
    let demand = report["waterfall"]["drivers"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["driver"] == "demand"))
        .expect("demand driver");
    let factor = demand["spread"]["mode"].as_f64().expect("mode");
    assert!(factor > 0.5, "the demand factor read the empty tail: {factor}");
    assert!(
        demand["basis"].as_str().unwrap_or_default().contains("last 12 days"),
        "{demand}"
    );
    // The audit and the forecast say it too.
    let audit = json(home.path(), &["audit", log, "--format", "json"]);
    assert_eq!(
        audit["incomplete_tail"]["days"].as_f64(),
        Some(12.0),
        "{}",
        audit["incomplete_tail"]
    );
    let forecast = gpuplan_in(home.path(), &["forecast", log]);
    assert!(
        forecast.stdout.contains("⚑ Incomplete tail: the log's last 12 days"),
        "{}",
        forecast.stdout
    );
    // A plan that says demand really fell keeps the tail: the factor falls with it.
    let plan = home.path().join("plan.toml");
    let text = crate::common::default_plan_text() + "\n[forecast]\nkeep_incomplete_tail = true\n";
    std::fs::write(&plan, text).expect("plan");
    let plan = plan.to_str().expect("path");
    let kept = json(
        home.path(),
        &["report", "--plan", plan, "--logs", log, "--format", "json"],
    );
    assert_eq!(kept["forecast"]["incomplete_tail"]["kept"], true);
    let kept_factor = kept["waterfall"]["drivers"][0]["spread"]["mode"]
        .as_f64()
        .expect("mode");
    assert!(kept_factor < factor, "{kept_factor} {factor}");
    // A steady log has none: null, not absent.
    let steady = json(home.path(), &["report", "--logs", SAMPLE_LOG, "--format", "json"]);
    assert!(steady["forecast"]["incomplete_tail"].is_null());
    assert!(steady["forecast"].get("incomplete_tail").is_some());
}

#[test]
fn a_failing_check_is_flagged_on_the_board_pane_at_80x24_and_fails_the_check_command() {
    let home = tempfile::tempdir().expect("home");
    let log = export_with_an_empty_tail(home.path());
    // No plan lists the log's cluster: all of the saving rests on an assumed price.
    let check = gpuplan_in(home.path(), &["check", "--judgment", log.to_str().expect("path")]);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
    assert!(check.stdout.contains("FAIL prices_stated"), "{}", check.stdout);
    let mut screen = Workbench::start(&[log.as_os_str()], home.path(), 80, 24);
    screen.wait_for("the audit", PATIENCE, |s| s.contains("stranded"));
    screen.press(b"5");
    let pane = screen.wait_for("the board's flags", PATIENCE, |s| {
        s.contains("5 Contracts") && s.contains("prices stated")
    });
    assert!(pane.contains("checks") && pane.contains("fail:"), "{pane}");
    // The Forecast pane says which days its fit left out.
    screen.press(b"6");
    screen.wait_for("the incomplete tail on the Forecast pane", PATIENCE, |s| {
        s.contains("6 Forecast") && s.contains("last 12 days from 2026-02-28")
    });
    screen.press(b"q");
}

/// The board prices the purchase the Contracts pane and `report` recommend (docs/board.md,
/// "One purchase"): each class's chosen purchase over the flat mix carries into the last step.
#[test]
fn the_board_prices_the_one_purchase_the_report_recommends() {
    let priced = |policy: &str| {
        let home = tempfile::tempdir().expect("home");
        crate::common::sample_report_in(home.path(), &format!("\n[commitments]\npolicy = \"{policy}\"\n"))
    };
    let flat = priced("flat");
    let on_demand = priced("on_demand");
    let last_step = |r: &Value| {
        r["waterfall"]["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .find(|s| s["step"] == "forecast_demand")
            .cloned()
            .expect("the last step")
    };
    // Every step before the purchase is the same; the last one moves by each class's factor.
    let (flat_last, od_last) = (last_step(&flat), last_step(&on_demand));
    let text = od_last["assumption"].as_str().expect("assumption");
    let mut classes = 0;
    for class in on_demand["commitments"]["classes"].as_array().expect("classes") {
        assert_eq!(class["recommended"]["buy"], "on_demand");
        let factor = class["horizon"]["expected_usd"].as_f64().expect("chosen")
            / class["flat_horizon"]["expected_usd"].as_f64().expect("flat");
        let named = format!(
            "{} on-demand only ×{factor:.3} of flat's cost",
            class["class"].as_str().expect("class")
        );
        assert!(text.contains(&named), "{named} missing from: {text}");
        classes += 1;
    }
    assert!(classes > 0);
    assert!(
        flat_last["assumption"]
            .as_str()
            .expect("assumption")
            .contains("training flat"),
        "{flat_last}"
    );
    // On the sample on-demand costs more than the flat mix over the term: the board's saving falls.
    let od_usd = od_last["usd_per_month"].as_f64().expect("od");
    let flat_usd = flat_last["usd_per_month"].as_f64().expect("flat");
    assert!(od_usd > flat_usd, "on-demand {od_usd} against flat {flat_usd}");
    assert!(
        on_demand["waterfall"]["saving_usd_per_year"].as_f64() < flat["waterfall"]["saving_usd_per_year"].as_f64(),
        "the headline moves with the purchase"
    );
}

/// Capacity where nothing states it is whole GPUs, at least the largest run; the audit and the
/// replay count the same jobs, one deleted in the instant it was scheduled among them (DLRM 2025
/// has 16 such instances).
#[test]
fn an_unsized_cluster_is_whole_gpus_and_the_replay_counts_the_audits_jobs() {
    let home = tempfile::tempdir().expect("home");
    let start = 1_767_225_600_000; // 2026-01-01
    let mut csv = String::from("job_id,cluster,start,end,gpus,gpu_type\n");
    // Shares of GPUs adding up to 2.5 at once for 20 days, a 3-GPU run of one minute inside a
    // step, and a run of no length.
    for day in 0..20 {
        let at = start + day * DAY_MS;
        for k in 0..5 {
            csv.push_str(&format!(
                "d{day}-{k},lab,{},{},0.5,h100-sxm\n",
                iso(at),
                iso(at + DAY_MS / 2)
            ));
        }
    }
    let noon = start + 21 * DAY_MS + 30_000;
    csv.push_str(&format!("brief,lab,{},{},3,h100-sxm\n", iso(noon), iso(noon + 20_000)));
    csv.push_str(&format!(
        "instant,lab,{},{},1,h100-sxm\n",
        iso(noon + DAY_MS),
        iso(noon + DAY_MS)
    ));
    csv.push_str(&format!(
        "last,lab,{},{},0.5,h100-sxm\n",
        iso(noon + 2 * DAY_MS),
        iso(noon + 3 * DAY_MS)
    ));
    let log = home.path().join("shares.csv");
    std::fs::write(&log, csv).expect("log");
    let log = log.to_str().expect("path");
    let audit = json(home.path(), &["audit", log, "--all-time", "--format", "json"]);
    let cluster = &audit["clusters"][0];
    let capacity = cluster["capacity_gpus"].as_f64().expect("capacity");
    assert_eq!(capacity, 3.0, "whole GPUs, at least the 3-GPU run: {cluster}");
    assert_eq!(capacity.fract(), 0.0);
    let jobs = audit["jobs_total"].as_u64().expect("jobs");
    assert_eq!(jobs, 103, "{audit}");
    let replay = json(home.path(), &["replay", log, "--all-time", "--format", "json"]);
    assert_eq!(
        replay["jobs"].as_u64(),
        Some(jobs),
        "the replay counts the audit's jobs"
    );
}
