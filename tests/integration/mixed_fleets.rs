//! Fleets as they are (docs/auditing.md, "Mixed fleets"): a cluster holding several GPU models
//! is sized and priced model by model, each line's GPU-hours adding up to the cluster's and
//! its cost to the cluster's.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::gpuplan_in;

/// The shipped sample with one cluster renamed to one the plan does not list, its rows naming
/// A100s and H100s in turn: one cluster, two models, the plan silent about it.
fn mixed_sample(dir: &Path) -> PathBuf {
    let sample = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/jobs-90d.csv"))
        .expect("the sample");
    let mut lines = sample.lines();
    let header = lines.next().expect("a header");
    let columns: Vec<&str> = header.split(',').collect();
    let cluster = columns.iter().position(|c| *c == "cluster").expect("cluster");
    let gpu_type = columns.iter().position(|c| *c == "gpu_type").expect("gpu_type");
    let mut out = format!("{header}\n");
    let mut turn = 0;
    for line in lines {
        let mut fields: Vec<String> = line.split(',').map(str::to_string).collect();
        if fields.get(cluster).map(String::as_str) == Some("eu-west-a100") {
            fields[cluster] = "lab-mixed".to_string();
            fields[gpu_type] = if turn % 2 == 0 { "a100-80gb" } else { "h100-sxm" }.to_string();
            turn += 1;
        }
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    let path = dir.join("mixed.csv");
    std::fs::write(&path, out).expect("write the mixed log");
    path
}

fn number(value: &Value) -> f64 {
    value.as_f64().unwrap_or_else(|| panic!("a number: {value}"))
}

#[test]
fn a_cluster_of_two_models_has_a_line_each_that_adds_up_to_it() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = mixed_sample(home.path());
    let run = gpuplan_in(
        home.path(),
        &["audit", log.to_str().expect("utf-8"), "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let audit: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let clusters = audit["clusters"].as_array().expect("clusters");
    let mixed = clusters.iter().find(|c| c["name"] == "lab-mixed").expect("lab-mixed");
    let models = mixed["models"].as_array().expect("models");
    let names: Vec<&str> = models.iter().map(|m| m["model"].as_str().unwrap_or("")).collect();
    assert_eq!(names, ["a100-80gb", "h100-sxm"], "{mixed}");
    let hours: f64 = models.iter().map(|m| number(&m["gpu_hours"])).sum();
    let cluster_hours = number(&mixed["gpu_hours"]);
    assert!(
        (hours - cluster_hours).abs() <= 1e-9 * cluster_hours,
        "{hours} against {cluster_hours}"
    );
    let month =
        number(&mixed["monthly_cost_usd"]) / (number(&mixed["capacity_gpus"]) * number(&mixed["usd_per_gpu_hour"]));
    let cost: f64 = models
        .iter()
        .map(|m| number(&m["gpus"]) * number(&m["usd_per_gpu_hour"]) * month)
        .sum();
    assert!(
        (cost - number(&mixed["monthly_cost_usd"])).abs() < 1e-6,
        "{cost} against {mixed}"
    );
    let gpus: f64 = models.iter().map(|m| number(&m["gpus"])).sum();
    assert_eq!(gpus, number(&mixed["capacity_gpus"]));
    // Each at its own list price, sized to its own peak in whole GPUs.
    let prices: Vec<f64> = models.iter().map(|m| number(&m["usd_per_gpu_hour"])).collect();
    assert!(prices[0] < prices[1], "the A100 costs less than the H100: {prices:?}");
    for model in models {
        assert_eq!(model["priced_as"], model["model"], "{model}");
        assert!(number(&model["gpus"]) >= number(&model["peak_gpus"]), "{model}");
        assert_eq!(number(&model["gpus"]).fract(), 0.0, "{model}");
    }
    // A cluster the plan lists is its one line, the plan's.
    let planned = clusters
        .iter()
        .find(|c| c["name"] == "us-east-h100")
        .expect("us-east-h100");
    assert_eq!(planned["models"].as_array().map(Vec::len), Some(1), "{planned}");
    assert_eq!(planned["models"][0]["gpus"], planned["capacity_gpus"]);
}

/// Pods peaking at 8 GPUs at once beside three node lists a hostile operator might give: two
/// T4 nodes of one GPU with one of them listed twice, and a list of another cluster. Each fault
/// is said on the list's entry of `inputs[]` (audit and report), on standard error, and on the
/// workbench's banner; the cluster is never sized below what ran.
#[test]
fn node_lists_smaller_than_the_peak_naming_another_cluster_or_a_node_twice_are_said() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut log = String::from("job_id,cluster,name,user,queue,state,start,end,gpus,gpu_type,gpu_util_pct,label\n");
    for job in 0..8 {
        log.push_str(&format!(
            "j{job},lab,train-{job},ana,train,COMPLETED,2026-06-01T00:00:00Z,2026-06-01T10:00:00Z,1,,60,\n"
        ));
    }
    let log_path = home.path().join("pods.csv");
    std::fs::write(&log_path, log).expect("log");
    let small = home.path().join("small_nodes.csv");
    std::fs::write(
        &small,
        "sn,cpu_milli,memory_mib,gpu,model\nn1,8000,1024,1,T4\nn2,8000,1024,1,T4\nn2,8000,1024,1,T4\n",
    )
    .expect("nodes");
    let other = home.path().join("other_nodes.csv");
    std::fs::write(&other, "node,cluster,gpus,gpu_model\nx1,elsewhere,8,A100\n").expect("nodes");
    let paths = [&log_path, &small, &other].map(|p| p.to_str().expect("utf-8").to_string());
    let said = [
        "lists node n2 more than once",
        "holds 2 GPUs, fewer than the 8 that ran at once on lab",
        "names cluster elsewhere, which no log holds",
    ];
    for command in ["audit", "report"] {
        let mut args = vec![command];
        if command == "report" {
            args.push("--logs");
        }
        args.extend(paths.iter().map(String::as_str));
        args.extend(["--format", "json"]);
        let run = gpuplan_in(home.path(), &args);
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
        let document: Value = serde_json::from_str(&run.stdout).expect("JSON");
        let inputs = document["inputs"].as_array().expect("inputs");
        let lists: Vec<&Value> = inputs.iter().filter(|i| i["format"] == "node-list").collect();
        assert_eq!(lists.len(), 2, "{command}: both lists are inputs: {inputs:?}");
        let warnings = serde_json::to_string(&lists).expect("warnings");
        for fault in said {
            assert!(
                warnings.contains(fault),
                "{command}: {fault} is not said in inputs[]: {warnings}"
            );
            assert!(
                run.stderr.contains(fault),
                "{command}: {fault} is not on stderr: {}",
                run.stderr
            );
        }
        if command == "audit" {
            let cluster = &document["clusters"][0];
            // Sized to what ran (8 GPUs), not the list's 2: the 6 past it are a line of their own.
            assert_eq!(cluster["capacity_gpus"].as_f64(), Some(8.0), "{cluster}");
            let beyond = cluster["models"].as_array().and_then(|m| m.last()).expect("models");
            assert_eq!(beyond["model"], "(beyond the node list)", "{cluster}");
            assert_eq!(beyond["gpus"].as_f64(), Some(6.0), "{cluster}");
        }
    }
    let args: Vec<&std::ffi::OsStr> = paths.iter().map(std::ffi::OsStr::new).collect();
    let mut screen = crate::common::pty::Workbench::start(&args, home.path(), 100, 30);
    screen.wait_for(
        "the node lists' warnings on the banner",
        std::time::Duration::from_secs(30),
        |s| s.contains("reading said"),
    );
    screen.press(b"W");
    let overlay = screen.wait_for("every fault listed", std::time::Duration::from_secs(30), |s| {
        s.contains("more than once") && s.contains("fewer than the 8") && s.contains("no log holds")
    });
    assert!(overlay.contains("small_nodes.csv"), "{overlay}");
    screen.press(b"\x1b");
    screen.wait_for("the overlay to close", std::time::Duration::from_secs(30), |s| {
        !s.contains("What reading the logs said")
    });
    // A key right after Esc would read as Alt and that key.
    std::thread::sleep(std::time::Duration::from_millis(300));
    screen.press(b"q");
    screen.wait_exit(std::time::Duration::from_secs(30));
}

/// `plan new --logs` writes the fleet `report --logs` audits: a Slurm log naming three models
/// (`gres/gpu:a100`, `h100`, `l40s`) on one cluster gives `[[clusters.models]]` with each
/// model's whole GPUs and price, the log's path relative to the plan as Ctrl-S writes it, and
/// `report --plan` gives the headline `report --logs` gives (within 0.1 %).
#[test]
fn a_starter_plan_of_a_mixed_slurm_cluster_reports_as_its_logs_do() {
    let home = tempfile::tempdir().expect("tempdir");
    let log = home.path().join("sacct.txt");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/slurm/sacct_steps_arrays.txt"),
        &log,
    )
    .expect("the fixture");
    let plan = home.path().join("start.toml");
    let written = gpuplan_in(
        home.path(),
        &[
            "plan",
            "new",
            "--logs",
            log.to_str().expect("utf-8"),
            "-o",
            plan.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(written.code, 0, "{}", written.stderr);
    let text = std::fs::read_to_string(&plan).expect("the plan");
    let toml: toml::Value = toml::from_str(&text).expect("TOML");
    let cluster = &toml["clusters"][0];
    let models = cluster["models"].as_array().expect("[[clusters.models]]");
    let mut names: Vec<&str> = models.iter().filter_map(|m| m["model"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["a100", "h100", "l40s"], "{text}");
    let gpus: i64 = models.iter().filter_map(|m| m["gpus"].as_integer()).sum();
    assert_eq!(
        Some(gpus),
        cluster["gpus"].as_integer(),
        "whole GPUs that add up: {text}"
    );
    assert_eq!(
        toml["logs"][0]["path"].as_str(),
        Some("sacct.txt"),
        "relative, as Ctrl-S writes it"
    );
    let report = |args: &[&str]| -> Value {
        let run = gpuplan_in(home.path(), args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        serde_json::from_str(&run.stdout).expect("JSON")
    };
    let from_plan = report(&["report", "--plan", plan.to_str().expect("utf-8"), "--format", "json"]);
    let from_logs = report(&["report", "--logs", log.to_str().expect("utf-8"), "--format", "json"]);
    let headline = |r: &Value| number(&r["waterfall"]["saving_usd_per_year"]);
    let (a, b) = (headline(&from_plan), headline(&from_logs));
    assert!((a - b).abs() <= 0.001 * b.abs(), "plan {a} against logs {b}");
    // The audit of the plan lists the same models, at the plan's prices.
    let audited = report(&["audit", "--plan", plan.to_str().expect("utf-8"), "--format", "json"]);
    let lines = audited["clusters"][0]["models"].as_array().expect("models");
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines.iter().all(|m| m["price_source"] == "plan"), "{lines:?}");
}

/// `[prices]` prices a model nobody else does, or names the catalog accelerator it is; a model
/// left at the fallback rate widens the board's range (the `unstated_prices` driver); a price
/// or an accelerator that cannot be is refused naming its key.
#[test]
fn prices_in_the_plan_price_unknown_models_and_what_nobody_states_widens_the_range() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut log = String::from("job_id,cluster,name,user,queue,state,start,end,gpus,gpu_type,gpu_util_pct,label\n");
    for day in 1..=28 {
        for (k, model) in ["G2", "T4"].iter().enumerate() {
            log.push_str(&format!(
                "j{day}-{k},lab,serve-{day},svc,prod,COMPLETED,2026-06-{day:02}T00:00:00Z,2026-06-{day:02}T20:00:00Z,4,{model},50,\n"
            ));
        }
    }
    let log_path = home.path().join("jobs.csv");
    std::fs::write(&log_path, log).expect("log");
    let log_arg = log_path.to_str().expect("utf-8").to_string();
    let base = crate::common::default_plan_text();
    let run_with = |tail: &str, command: &str| {
        let plan = home.path().join("plan.toml");
        std::fs::write(&plan, format!("{base}{tail}")).expect("plan");
        let plan = plan.to_str().expect("utf-8").to_string();
        let mut args = vec![command.to_string(), "--plan".into(), plan];
        if command == "report" {
            args.push("--logs".into());
        }
        args.extend([log_arg.clone(), "--format".into(), "json".into()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        gpuplan_in(home.path(), &args)
    };
    let model = |audit: &Value, name: &str| -> Value {
        audit["clusters"][0]["models"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["model"] == name).cloned())
            .unwrap_or_else(|| panic!("{name} in {audit}"))
    };
    let silent = run_with("", "audit");
    let silent: Value = serde_json::from_str(&silent.stdout).expect("JSON");
    assert_eq!(model(&silent, "G2")["at_fallback_rate"], true);
    let priced = run_with("\n[prices]\nG2 = 1.25\n", "audit");
    let priced: Value = serde_json::from_str(&priced.stdout).expect("JSON");
    assert_eq!(number(&model(&priced, "G2")["usd_per_gpu_hour"]), 1.25);
    assert_eq!(model(&priced, "G2")["at_fallback_rate"], false);
    let aliased = run_with("\n[prices]\ng2 = \"v100-32gb\"\n", "audit");
    let aliased: Value = serde_json::from_str(&aliased.stdout).expect("JSON");
    assert_eq!(model(&aliased, "G2")["priced_as"], "v100-32gb");
    // The board: a driver for the unstated price, and a wider range, until the plan states it.
    let drivers = |tail: &str| -> (Vec<String>, f64) {
        let run = run_with(tail, "report");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
        let w = &report["waterfall"];
        let names = w["drivers"]
            .as_array()
            .map(|d| {
                d.iter()
                    .filter_map(|d| d["driver"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        (
            names,
            number(&w["range"]["p90_usd_per_year"]) - number(&w["range"]["p10_usd_per_year"]),
        )
    };
    let (unstated, wide) = drivers("");
    let (stated, narrow) = drivers("\n[prices]\nG2 = 1.25\n");
    assert!(unstated.iter().any(|d| d == "unstated_prices"), "{unstated:?}");
    assert!(!stated.iter().any(|d| d == "unstated_prices"), "{stated:?}");
    assert!(
        wide > 2.0 * narrow,
        "the range widens with what nobody stated: {wide} against {narrow}"
    );
    let (ranged, between) = drivers("\n[prices]\nG2 = [1.0, 1.25, 1.75]\n");
    assert!(
        ranged.iter().any(|d| d == "unstated_prices"),
        "a stated range is a driver: {ranged:?}"
    );
    assert!(
        narrow < between && between < wide,
        "a stated range sits between: {narrow} < {between} < {wide}"
    );
    let in_range = run_with("\n[prices]\nG2 = [1.0, 1.25, 1.75]\n", "audit");
    let in_range: Value = serde_json::from_str(&in_range.stdout).expect("JSON");
    assert_eq!(number(&model(&in_range, "G2")["usd_per_gpu_hour"]), 1.25);
    assert_eq!(
        model(&in_range, "G2")["usd_per_gpu_hour_range"],
        serde_json::json!([1.0, 1.75])
    );
    for (tail, key) in [
        ("\n[prices]\nG2 = \"no-such-gpu\"\n", "prices.G2"),
        ("\n[prices]\nG2 = -3\n", "prices.G2"),
        ("\n[prices]\nG2 = [2.0, 1.0, 3.0]\n", "prices.G2"),
    ] {
        let refused = run_with(tail, "audit");
        assert_ne!(refused.code, 0, "{tail}");
        assert!(refused.stderr.contains(key), "{}", refused.stderr);
    }
}

/// A cluster the plan does not list is priced where the board says its price is assumed: in
/// its drill, Enter adds it to the plan as audited and opens its price; the price typed moves
/// the board (today's cost, and the banner of assumed prices goes), and Ctrl-S writes the
/// cluster, its models and the planner's price into the plan.
#[test]
fn an_unlisted_clusters_price_set_in_the_workbench_moves_the_board_and_is_saved() {
    let home = tempfile::tempdir().expect("tempdir");
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).expect("folder");
    let mut log = String::from("job_id,cluster,name,user,queue,state,start,end,gpus,gpu_type,gpu_util_pct,label\n");
    for day in 1..=28 {
        for (k, model) in ["a100-80gb", "h100-sxm"].iter().enumerate() {
            log.push_str(&format!(
                "j{day}-{k},lab,serve-{day},svc,prod,COMPLETED,2026-06-{day:02}T00:00:00Z,2026-06-{day:02}T20:00:00Z,4,{model},50,\n"
            ));
        }
    }
    std::fs::write(work.join("jobs.csv"), log).expect("log");
    let patience = std::time::Duration::from_secs(30);
    let mut screen = crate::common::pty::Workbench::start_in(&["jobs.csv".as_ref()], home.path(), Some(&work), 160, 48);
    screen.wait_for("the board, its price assumed", patience, |s| {
        s.contains("assumes today's price of lab") && s.contains("today as paid")
    });
    // Into the cluster, down past its classes to its one row, Enter: its price to type.
    screen.press(b"\r");
    screen.wait_for("the cluster's drill", patience, |s| s.contains("adds it to the plan"));
    screen.press(b"\x1b[B\x1b[B\x1b[B\x1b[B");
    std::thread::sleep(std::time::Duration::from_millis(200));
    screen.press(b"\r");
    screen.wait_for("its price to type", patience, |s| {
        s.contains("price per GPU-hour of 'lab'")
    });
    screen.press(b"\x152\r");
    // 8 GPUs (4 A100 and 4 H100 at once) at $2 for 730 h: $11,680 a month, $12k as the
    // board's step 1 shows it (it was $46k at the list prices).
    screen.wait_for("the board at the typed price", patience, |s| {
        s.contains("$2.00/h") && s.contains("$12k/mo") && !s.contains("assumes today's price of lab")
    });
    screen.press(b"\x13");
    screen.wait_for("the save dialog", patience, |s| s.contains("› plan.toml"));
    screen.press(b"\r");
    let written = work.join("plan.toml");
    screen.wait_for("the save", patience, |s| s.contains("saved"));
    screen.press(b"q");
    screen.wait_exit(patience);
    let plan: toml::Value = toml::from_str(&std::fs::read_to_string(&written).expect("saved")).expect("TOML");
    let clusters = plan["clusters"].as_array().expect("clusters");
    let lab = clusters
        .iter()
        .find(|c| c["name"].as_str() == Some("lab"))
        .expect("lab saved");
    assert_eq!(lab["usd_per_gpu_hour"].as_float(), Some(2.0), "{lab}");
    assert_eq!(lab["price_source"].as_str(), Some("set in the workbench"), "{lab}");
    let models = lab["models"].as_array().expect("its models");
    assert_eq!(models.len(), 2, "{lab}");
    let cost: f64 = models
        .iter()
        .map(|m| m["gpus"].as_float().unwrap_or(0.0) * m["usd_per_gpu_hour"].as_float().unwrap_or(0.0))
        .sum();
    assert!((cost - 8.0 * 2.0).abs() < 1e-6, "{lab}");
    // The saved plan reads back, and reports at the planner's price.
    let run = gpuplan_in(home.path(), &["plan", "validate", written.to_str().expect("utf-8")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
