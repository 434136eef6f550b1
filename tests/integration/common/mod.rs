//! Helpers shared by the integration tests: run the real binary, isolated from the
//! user's config folder.
#![allow(dead_code)]

pub mod pty;

use std::fs::File;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `gpuplan` with `args`, with config, data and cache folders inside `home`.
pub fn gpuplan_in(home: &Path, args: &[&str]) -> Run {
    gpuplan_with(home, args, &[])
}

/// `gpuplan ARGS` with config, data and cache folders inside `home`, and no variable of the
/// user's that changes what it prints.
pub fn gpuplan_command(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpuplan"));
    command
        .args(args)
        .env("GPUPLAN_CONFIG_DIR", home.join("config"))
        .env("GPUPLAN_DATA_DIR", home.join("data"))
        .env("GPUPLAN_CACHE_DIR", home.join("cache"))
        .env_remove("GPUPLAN_CACHE_MAX_MB")
        .env_remove("GPUPLAN_TIMINGS")
        .env_remove("NO_COLOR");
    command
}

/// `gpuplan_in` with more environment variables.
pub fn gpuplan_with(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let output: Output = gpuplan_command(home, args)
        .envs(env.iter().copied())
        .output()
        .expect("the gpuplan binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `gpuplan` as `gpuplan_with` does, killed if it outlives `limit`: the code (None when
/// killed), stdout, stderr and how long it ran. Its output goes to files in `home`, so a long
/// answer never blocks it on a full pipe.
pub fn gpuplan_within(
    home: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    limit: Duration,
) -> (Option<i32>, String, String, Duration) {
    let (out_path, err_path) = (home.join("stdout.txt"), home.join("stderr.txt"));
    let mut child = gpuplan_command(home, args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).expect("stdout file"))
        .stderr(File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("the gpuplan binary runs");
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = started.elapsed();
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    (code, read(&out_path), read(&err_path), took)
}

/// Runs `gpuplan` in a fresh temporary home.
pub fn gpuplan(args: &[&str]) -> Run {
    let home = tempfile::tempdir().expect("tempdir");
    gpuplan_in(home.path(), args)
}

/// The built-in default plan's text, to edit in tests.
pub fn default_plan_text() -> String {
    gpuplan::config::plan_file::DEFAULT_PLAN_TOML.to_string()
}

/// The shipped 90-day sample log.
pub const SAMPLE_LOG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");

/// `gpuplan report --format json` of the shipped sample under the default plan with
/// `plan_tail` appended (written to `home/plan.toml`), config and catalogs from `home`; the
/// run must succeed.
pub fn sample_report_in(home: &Path, plan_tail: &str) -> serde_json::Value {
    let plan = home.join("plan.toml");
    std::fs::write(&plan, default_plan_text() + plan_tail).expect("plan");
    let plan = plan.to_str().expect("path");
    let run = gpuplan_in(
        home,
        &["report", "--plan", plan, "--logs", SAMPLE_LOG, "--format", "json"],
    );
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("report is JSON")
}

/// Runs here what the workbench's worker would run for these effects, until nothing is left:
/// an audit again, then the forecast fit and the replay its result asks for.
pub fn settle(
    app: &mut gpuplan::app::App,
    pipeline: &mut gpuplan::pipeline::Pipeline,
    effects: Vec<gpuplan::app::Effect>,
) {
    use gpuplan::app::{Action, Effect, update};
    use gpuplan::runtime::worker::{compare, fit_forecast, fleet_of, replay, sources_of};
    let mut pending = effects;
    while let Some(effect) = pending.pop() {
        let action = match effect {
            Effect::Reaudit { generation, settings } => {
                let audited = pipeline
                    .audit(
                        &sources_of(&app.logs),
                        &settings,
                        &mut gpuplan::pipeline::observer::Quiet,
                    )
                    .expect("the logs audit again");
                Action::FleetLoaded {
                    generation,
                    fleet: Box::new(fleet_of(audited)),
                }
            }
            Effect::FitForecast {
                generation,
                horizon_days,
                plan,
            } => fit_forecast(pipeline, generation, horizon_days, &plan),
            Effect::Replay { generation, plan } => replay(pipeline, generation, &plan),
            Effect::Compare { generation, plans } => {
                compare(pipeline, Some(&sources_of(&app.logs)), generation, &plans)
            }
            other => panic!("not a worker's effect: {other:?}"),
        };
        pending.extend(update(app, action));
    }
}

/// The read cache's entries in `home` (not the staging folders of writes under way).
pub fn cache_entries(home: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(home.join("cache/reads"))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
                .collect()
        })
        .unwrap_or_default()
}

/// A JSON document (`audit`, `report`) with its inputs' warnings emptied: its figures, to
/// compare a read that said something (a damaged cached read) with one that did not.
pub fn without_input_warnings(document: &serde_json::Value) -> serde_json::Value {
    let mut document = document.clone();
    for input in document["inputs"].as_array_mut().into_iter().flatten() {
        input["warnings"] = serde_json::json!([]);
    }
    document
}
