//! Utilization recorded on the node itself (nvidia-smi's query CSV and dmon, tests/fixtures/h200-a)
//! beside a job log: the audit measures the node's cluster from the recording, with no mapping.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, gpuplan_in};

const RECORDINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/h200-a");
const JOBS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/node");

/// One column of a recording, each value with its instant as milliseconds into 2026-11-26 (the
/// recording's one day), read here without gpuplan's reader: whitespace columns under dmon's `#`
/// names, or the query's comma fields; `-` and `[N/A]` skipped, values above 100 (glitches) left
/// out.
fn timed_values(file: &str, column: &str) -> Vec<(i64, f64)> {
    let text = std::fs::read_to_string(Path::new(RECORDINGS).join(file)).expect("recording");
    let query = file.ends_with(".csv");
    let mut at = None;
    let mut values = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = if query {
            line.split(',').map(str::trim).collect()
        } else {
            line.trim_start_matches('#').split_whitespace().collect()
        };
        if line.starts_with('#') || line.starts_with("timestamp") {
            if let Some(i) = fields.iter().position(|f| f.split(' ').next() == Some(column)) {
                at = Some(i);
            }
            continue;
        }
        // `2026/11/26 20:37:19.985` (query) or `20261126  20:37:19` (dmon -o DT).
        let (date, clock) = if query {
            fields.first().and_then(|t| t.split_once(' ')).unwrap_or(("", ""))
        } else {
            (
                fields.first().copied().unwrap_or(""),
                fields.get(1).copied().unwrap_or(""),
            )
        };
        assert_eq!(date.replace('/', ""), "20261126", "{file}: {line}");
        let (hms, frac) = clock.split_once('.').unwrap_or((clock, "0"));
        let hms: Vec<i64> = hms.split(':').map(|p| p.parse().expect("clock")).collect();
        let ms = ((hms[0] * 60 + hms[1]) * 60 + hms[2]) * 1000 + frac.parse::<i64>().expect("ms");
        let raw = at.and_then(|i| fields.get(i)).map_or("", |f| f.trim_end_matches(" %"));
        if let Ok(value) = raw.parse::<f64>()
            && value <= 100.0
        {
            values.push((ms, value));
        }
    }
    assert!(values.len() > 100, "{file} {column}: {} values", values.len());
    values
}

/// The mean of one column of a recording over all its samples (see `timed_values`).
fn column_mean(file: &str, column: &str) -> f64 {
    let values = timed_values(file, column);
    values.iter().map(|(_, v)| v).sum::<f64>() / values.len() as f64 / 100.0
}

/// The mean of one column over the samples whose instants fall in `[from_ms, to_ms]`.
fn mean_between(file: &str, column: &str, from_ms: i64, to_ms: i64) -> f64 {
    let inside: Vec<f64> = timed_values(file, column)
        .into_iter()
        .filter(|(ms, _)| (from_ms..=to_ms).contains(ms))
        .map(|(_, v)| v)
        .collect();
    assert!(inside.len() > 50, "{file}: {} samples inside", inside.len());
    inside.iter().sum::<f64>() / inside.len() as f64 / 100.0
}

fn audit(home: &Path, args: &[&str]) -> Value {
    let mut all = vec!["audit", "--format", "json", "--cost-per-gpu-hour", "2"];
    all.extend_from_slice(args);
    let run = gpuplan_in(home, &all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("json")
}

fn cluster(report: &Value, name: &str) -> Value {
    report["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or(Value::Null)
}

fn plan_with(home: &Path, tail: &str) -> String {
    let plan = home.join("plan.toml");
    std::fs::write(&plan, common::default_plan_text() + tail).expect("plan");
    plan.display().to_string()
}

/// A Slurm job on h200-a (its NodeList names the host) beside each recording: the cluster is
/// measured by the recording's best measure, its mean the recording's own over the samples.
#[test]
fn a_job_log_on_the_host_gives_its_cluster_the_recordings_utilization() {
    let home = tempfile::tempdir().expect("home");
    let jobs = format!("{JOBS}/sacct.txt");
    for (file, column, metric, format) in [
        (
            "nvidia-smi-query.csv",
            "utilization.gpu",
            "utilization.gpu (nvidia-smi",
            "nvidia-smi",
        ),
        ("dmon.txt", "sm", "sm (nvidia-smi dmon", "dmon"),
        ("dmon-gpm.txt", "gract", "gract (nvidia-smi dmon GPM", "dmon"),
    ] {
        let recording = format!("{RECORDINGS}/{file}");
        let report = audit(home.path(), &[&jobs, &recording]);
        assert_eq!(report["inputs"][1]["format"], format, "{file}");
        let lab = cluster(&report, "lab");
        assert_eq!(lab["utilization_source"], "measured", "{file}: {lab}");
        let measured = &lab["measured"];
        assert!(
            measured["metric"].as_str().is_some_and(|m| m.starts_with(metric)),
            "{file}: {measured}"
        );
        assert!(measured["origin"].as_str().is_some_and(|o| o.contains(file)));
        assert_eq!(
            (measured["gpu_series"].as_u64(), measured["hosts"].as_u64()),
            (Some(1), Some(1))
        );
        let expected = column_mean(file, column);
        let got = lab["utilization_frac"].as_f64().expect("utilization");
        assert!((got - expected).abs() < 1e-9, "{file}: {got} against {expected}");
        // The job log held the GPU the whole window: allocation alone read it as full.
        assert_eq!(lab["log"]["utilization_frac"].as_f64(), Some(1.0));
        let notes = report["measurement_notes"].to_string();
        assert!(notes.contains("host h200-a (from its folder's name)"), "{notes}");
        assert!(notes.contains("h200-a read as UTC"), "{notes}");
    }
    // The glitch of the GPM recording is counted among the rejected rows, never measured.
    let report = audit(home.path(), &[&jobs, &format!("{RECORDINGS}/dmon-gpm.txt")]);
    assert_eq!(report["inputs"][1]["rejected"], 1);
    assert!(
        cluster(&report, "lab")["utilization_frac"]
            .as_f64()
            .is_some_and(|u| u <= 1.0)
    );
}

/// Jobs of 160 s that start and end mid-minute, one on the host per log: the measured figure is
/// the mean of the samples inside the job, not of the whole minutes it touches. The first runs
/// 20:37:22 to 20:40:02, across the warm-up and every phase after; the second starts in
/// the duty cycle at 20:38:15 and outlives the recording (20:40:10). Weighed by whole minutes
/// the first read 51.3 % by utilization.gpu where its samples average 44.6 %.
#[test]
fn a_job_that_cuts_minutes_measures_the_samples_inside_it() {
    let home = tempfile::tempdir().expect("home");
    let ms_of = |h: i64, m: i64, s: i64| ((h * 60 + m) * 60 + s) * 1000;
    for (start, end, from_ms) in [
        ("20:37:22", "20:40:02", ms_of(20, 37, 22)),
        ("20:38:15", "20:40:55", ms_of(20, 38, 15)),
    ] {
        let to_ms = from_ms + 160_000;
        let jobs = home.path().join(format!("sacct-{}.txt", start.replace(':', "")));
        std::fs::write(
            &jobs,
            format!(
                "JobID|JobName|Cluster|State|Start|End|AllocTRES|NodeList\n\
                 7002|short|lab|COMPLETED|2026-11-26T{start}|2026-11-26T{end}|gres/gpu=1|h200-a\n"
            ),
        )
        .expect("job log");
        for (file, column) in [("nvidia-smi-query.csv", "utilization.gpu"), ("dmon-gpm.txt", "gract")] {
            let recording = format!("{RECORDINGS}/{file}");
            let report = audit(home.path(), &[jobs.to_str().expect("path"), &recording]);
            let lab = cluster(&report, "lab");
            assert_eq!(lab["utilization_source"], "measured", "{file}: {lab}");
            let got = lab["utilization_frac"].as_f64().expect("utilization");
            let expected = mean_between(file, column, from_ms, to_ms);
            assert!(
                (got - expected).abs() < 0.005,
                "{start}-{end} {file}: measured {got}, the samples inside average {expected}"
            );
        }
    }
}

/// `gpuplan audit jobs.csv node.csv` and `... node.dmon.txt`: recordings named after their
/// host, a CSV job log, the plan's `[hosts]` placing the host in the log's cluster.
#[test]
fn recordings_named_after_their_host_measure_a_csv_logs_cluster() {
    let home = tempfile::tempdir().expect("home");
    let plan = plan_with(
        home.path(),
        &std::fs::read_to_string(format!("{JOBS}/hosts-plan-extra.toml")).expect("hosts"),
    );
    for (from, to, column) in [
        ("nvidia-smi-query.csv", "h200-a.csv", "utilization.gpu"),
        ("dmon-gpm.txt", "h200-a.dmon.txt", "gract"),
    ] {
        let node = home.path().join(to);
        std::fs::copy(Path::new(RECORDINGS).join(from), &node).expect("copy");
        let report = audit(
            home.path(),
            &[
                &format!("{JOBS}/jobs.csv"),
                node.to_str().expect("path"),
                "--plan",
                &plan,
            ],
        );
        let lab = cluster(&report, "lab");
        assert_eq!(lab["utilization_source"], "measured", "{to}: {lab}");
        let got = lab["utilization_frac"].as_f64().expect("utilization");
        assert!((got - column_mean(from, column)).abs() < 1e-9, "{to}");
        assert!(
            report["measurement_notes"]
                .to_string()
                .contains("host h200-a (from its file's name)")
        );
    }
}

/// nvidia-smi writes the node's local time: a job log in UTC an hour behind the recording
/// meets it only when the plan's [hosts] entry or --input-tz says the node's clock is UTC+01:00.
#[test]
fn the_nodes_clock_is_moved_to_utc_by_the_plan_or_the_flag() {
    let home = tempfile::tempdir().expect("home");
    let jobs = home.path().join("jobs.csv");
    let text = std::fs::read_to_string(format!("{JOBS}/jobs.csv")).expect("jobs");
    std::fs::write(&jobs, text.replace("T20:", "T19:")).expect("jobs an hour earlier");
    let jobs = jobs.to_str().expect("path").to_string();
    let recording = format!("{RECORDINGS}/dmon.txt");
    let expected = column_mean("dmon.txt", "sm");
    let measured = |report: &Value| cluster(report, "lab")["utilization_frac"].as_f64();

    let as_utc = plan_with(home.path(), "\n[hosts]\nlab = [\"h200-a\"]\n");
    let report = audit(home.path(), &[&jobs, &recording, "--plan", &as_utc]);
    assert_eq!(cluster(&report, "lab")["utilization_source"], "allocation");
    assert!(report["measurement_notes"].to_string().contains("h200-a read as UTC"));

    let report = audit(
        home.path(),
        &[&jobs, &recording, "--plan", &as_utc, "--input-tz", "+01:00"],
    );
    assert!(
        measured(&report).is_some_and(|u| (u - expected).abs() < 1e-9),
        "{report}"
    );
    assert!(
        report["measurement_notes"]
            .to_string()
            .contains("h200-a at UTC+01:00 (--input-tz)")
    );

    let in_plan = plan_with(
        home.path(),
        "\n[hosts]\nlab = { patterns = [\"h200-a\"], utc_offset = \"+01:00\" }\n",
    );
    // The plan's entry wins over the flag for the hosts it places.
    let report = audit(
        home.path(),
        &[&jobs, &recording, "--plan", &in_plan, "--input-tz", "-05:00"],
    );
    assert!(
        measured(&report).is_some_and(|u| (u - expected).abs() < 1e-9),
        "{report}"
    );
    assert!(
        report["measurement_notes"]
            .to_string()
            .contains("h200-a at UTC+01:00 ([hosts] lab)")
    );
}

/// What cannot be read says which file, which line and what to record instead.
#[test]
fn recordings_that_cannot_be_read_say_why() {
    let home = tempfile::tempdir().expect("home");
    let jobs = format!("{JOBS}/jobs.csv");
    let cases = [
        (
            "node17.dmon.txt",
            "#Time        gpu     sm\n#HH:MM:SS    Idx      %\n 20:37:19      0     45\n",
            "node17.dmon.txt:1: nvidia-smi dmon recorded with -o T",
        ),
        (
            "node18.dmon.txt",
            "# gpu     sm\n# Idx      %\n    0     45\n",
            "record with -o DT",
        ),
        ("node19.csv", "2026/11/26 20:37:19.985, 0, 45 %\n", "node19.header"),
        (
            "node20.csv",
            "timestamp, index, power.draw [W]\n2026/11/26 20:37:19.985, 0, 99.94 W\n",
            "no utilization.gpu field among its columns (timestamp, index, power.draw)",
        ),
    ];
    for (name, text, says) in cases {
        let file = home.path().join(name);
        std::fs::write(&file, text).expect("write");
        let run = gpuplan_in(home.path(), &["audit", &jobs, file.to_str().expect("path")]);
        assert_eq!(run.code, 2, "{name}: {}", run.stdout);
        assert!(run.stderr.contains(says), "{name}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
    let alone = gpuplan_in(home.path(), &["audit", &format!("{RECORDINGS}/dmon.txt")]);
    assert_eq!(alone.code, 2);
    assert!(alone.stderr.contains("nvidia-smi), not jobs"), "{}", alone.stderr);
}
