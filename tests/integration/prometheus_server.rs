//! `gpuplan audit --prometheus` against a real Prometheus: samples written here as OpenMetrics
//! with known hourly means, backfilled with `promtool tsdb create-blocks-from openmetrics`,
//! served by `prometheus` on 127.0.0.1, and every per-cluster figure checked against what was
//! written. Faults a real server cannot be made to show (HTML, 401, a hang) come from a socket
//! in the test that answers as a proxy or a login page would.
//!
//! Without `prometheus` and `promtool` on the PATH the server tests say so loudly and are
//! skipped, except under CI (`CI` set), where they fail: `.ci/run` installs them.

use crate::common;

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::{Run, default_plan_text};
use serde_json::Value;

/// 2024-03-01T00:00:00Z: the backfilled samples' first hour.
const START_S: i64 = 1_709_251_200;
const HOURS: i64 = 72;
const PRICE_USD_PER_GPU_HOUR: f64 = 2.5;

/// One fleet of the test: name, cluster label written or not, host label, hosts, GPUs per host,
/// metric, whether values are percent, a seed of its values.
struct TestCluster {
    name: &'static str,
    labelled: bool,
    host_label: &'static str,
    hosts: &'static [&'static str],
    gpus_per_host: i64,
    metric: &'static str,
    seed: i64,
}

const CLUSTERS: [TestCluster; 3] = [
    TestCluster {
        name: "alpha",
        labelled: true,
        host_label: "Hostname",
        hosts: &["a-gpu01", "a-gpu02", "a-gpu03"],
        gpus_per_host: 4,
        metric: "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        seed: 0,
    },
    // No cluster label, the newer exporter's `hostname`, GPU_UTIL only: mapped by [hosts].
    TestCluster {
        name: "beta",
        labelled: false,
        host_label: "hostname",
        hosts: &["b-gpu01", "b-gpu02"],
        gpus_per_host: 2,
        metric: "DCGM_FI_DEV_GPU_UTIL",
        seed: 3,
    },
    // One GPU whose samples are NaN in hour 5.
    TestCluster {
        name: "gamma",
        labelled: true,
        host_label: "Hostname",
        hosts: &["g-gpu01"],
        gpus_per_host: 1,
        metric: "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        seed: 6,
    },
];

/// The utilization (0–1) a GPU held through an hour: a known, varied pattern.
fn util_frac(cluster: &TestCluster, host: usize, gpu: i64, hour: i64) -> f64 {
    ((hour * 7 + gpu * 3 + host as i64 * 5 + cluster.seed) % 11) as f64 / 10.0
}

fn is_nan_hour(cluster: &TestCluster, hour: i64) -> bool {
    cluster.name == "gamma" && hour == 5
}

/// The mean over the cluster's GPUs of `hour`: what the audit must report.
fn expected_hour(cluster: &TestCluster, hour: i64) -> Option<f64> {
    if is_nan_hour(cluster, hour) {
        return None;
    }
    let mut sum = 0.0;
    for host in 0..cluster.hosts.len() {
        for gpu in 0..cluster.gpus_per_host {
            sum += util_frac(cluster, host, gpu, hour);
        }
    }
    Some(sum / (cluster.hosts.len() as i64 * cluster.gpus_per_host) as f64)
}

/// A pod of the Kubernetes fleet: namespace, pod, owner, owner kind, the Kubeflow notebook it
/// belongs to (a pod label), GPUs, first and last minute scraped.
type Pod = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    f64,
    i64,
    i64,
);
const PODS: [Pod; 5] = [
    (
        "serving",
        "llm-serve-7d9f8-x2x9q",
        "llm-serve-7d9f8",
        "ReplicaSet",
        None,
        2.0,
        0,
        3 * 1440 - 1,
    ),
    (
        "research",
        "pretrain-7b-0",
        "pretrain-7b",
        "PyTorchJob",
        None,
        8.0,
        60,
        60 + 36 * 60 - 1,
    ),
    (
        "research",
        "hpo-sweep-17",
        "hpo-sweep",
        "Job",
        None,
        1.0,
        600,
        600 + 239,
    ),
    // A name no rule reads, on a fraction of the day: a PyTorchJob's worker trains.
    (
        "research",
        "mm-exp-42-worker-0",
        "mm-exp-42",
        "PyTorchJob",
        None,
        1.0,
        1440,
        1440 + 179,
    ),
    // Owned by a StatefulSet, as Kubeflow runs notebooks: the pod label says what it is.
    (
        "alice",
        "jupyter-alice-0",
        "jupyter-alice",
        "StatefulSet",
        Some("jupyter-alice"),
        1.0,
        120,
        120 + 20 * 60 - 1,
    ),
];
/// The serving pod's GPUs run at this engine-active ratio (dcgm-exporter's pod mapping).
const SERVE_POD_UTIL: f64 = 0.35;

fn openmetrics() -> String {
    let mut out = String::new();
    for metric in ["DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_GPU_UTIL"] {
        let _ = writeln!(out, "# TYPE {metric} gauge");
        for cluster in CLUSTERS.iter() {
            // alpha exports both fields (the engine ratio must win); beta only GPU_UTIL.
            let exports = cluster.metric == metric || (cluster.name == "alpha" && metric == "DCGM_FI_DEV_GPU_UTIL");
            if !exports {
                continue;
            }
            for (h, host) in cluster.hosts.iter().enumerate() {
                for gpu in 0..cluster.gpus_per_host {
                    let cluster_label = if cluster.labelled {
                        format!("cluster=\"{}\",", cluster.name)
                    } else {
                        String::new()
                    };
                    let labels = format!(
                        "{cluster_label}{}=\"{host}\",gpu=\"{gpu}\",modelName=\"NVIDIA H100 80GB HBM3\"",
                        cluster.host_label
                    );
                    for minute in 0..HOURS * 60 {
                        let hour = minute / 60;
                        let frac = util_frac(cluster, h, gpu, hour);
                        let value = if is_nan_hour(cluster, hour) {
                            "NaN".to_string()
                        } else if metric == "DCGM_FI_DEV_GPU_UTIL" && cluster.name == "alpha" {
                            // A different figure: picking it over the engine ratio would show.
                            "97".to_string()
                        } else if metric == "DCGM_FI_DEV_GPU_UTIL" {
                            format!("{}", (frac * 100.0).round())
                        } else {
                            format!("{frac}")
                        };
                        let _ = writeln!(out, "{metric}{{{labels}}} {value} {}", START_S + minute * 60 + 30);
                    }
                }
            }
        }
        if metric == "DCGM_FI_PROF_GR_ENGINE_ACTIVE" {
            // The Kubernetes fleet's serving pod, as dcgm-exporter labels a GPU a pod holds.
            for gpu in 0..2 {
                for minute in 0..HOURS * 60 {
                    let _ = writeln!(
                        out,
                        "{metric}{{cluster=\"k8s-east\",Hostname=\"k-gpu01\",gpu=\"{gpu}\",namespace=\"serving\",pod=\"llm-serve-7d9f8-x2x9q\"}} {SERVE_POD_UTIL} {}",
                        START_S + minute * 60 + 30
                    );
                }
            }
        }
    }
    let _ = writeln!(out, "# TYPE kube_pod_container_resource_requests gauge");
    for (ns, pod, _, _, _, gpus, first, last) in PODS {
        for minute in first..=last {
            let _ = writeln!(
                out,
                "kube_pod_container_resource_requests{{cluster=\"k8s-east\",namespace=\"{ns}\",pod=\"{pod}\",container=\"main\",resource=\"nvidia_com_gpu\",unit=\"integer\"}} {gpus} {}",
                START_S + minute * 60 + 30
            );
        }
    }
    let _ = writeln!(out, "# TYPE kube_pod_owner gauge");
    for (ns, pod, owner, kind, _, _, first, last) in PODS {
        for minute in first..=last {
            let _ = writeln!(
                out,
                "kube_pod_owner{{cluster=\"k8s-east\",namespace=\"{ns}\",pod=\"{pod}\",owner_kind=\"{kind}\",owner_name=\"{owner}\",owner_is_controller=\"true\"}} 1 {}",
                START_S + minute * 60 + 30
            );
        }
    }
    // kube-state-metrics exports the labels its --metric-labels-allowlist names; the notebook
    // controller's `notebook-name` becomes `label_notebook_name`.
    let _ = writeln!(out, "# TYPE kube_pod_labels gauge");
    for (ns, pod, _, _, notebook, _, first, last) in PODS {
        let label = notebook.map_or(String::new(), |n| format!(",label_notebook_name=\"{n}\""));
        for minute in first..=last {
            let _ = writeln!(
                out,
                "kube_pod_labels{{cluster=\"k8s-east\",namespace=\"{ns}\",pod=\"{pod}\",uid=\"{pod}-uid\"{label}}} 1 {}",
                START_S + minute * 60 + 30
            );
        }
    }
    out.push_str("# EOF\n");
    out
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

/// A running Prometheus over the backfilled samples; stopped when the tests end.
struct Server {
    url: String,
    _child: ChildGuard,
    _dir: tempfile::TempDir,
}

struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn start_server() -> Option<Server> {
    if !(on_path("prometheus") && on_path("promtool")) {
        let message = "prometheus and promtool are not installed: the tests against a real Prometheus are SKIPPED \
                       (apt-get install prometheus)";
        assert!(
            std::env::var_os("CI").is_none(),
            "{message}; CI must have them (.ci/run installs them)"
        );
        eprintln!("\n!!!!!!!! {message} !!!!!!!!\n");
        return None;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let samples = dir.path().join("samples.om");
    std::fs::write(&samples, openmetrics()).expect("write samples");
    let tsdb = dir.path().join("tsdb");
    let backfill = Command::new("promtool")
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&samples)
        .arg(&tsdb)
        .output()
        .expect("promtool runs");
    assert!(
        backfill.status.success(),
        "promtool backfill failed: {}",
        String::from_utf8_lossy(&backfill.stderr)
    );
    let config = dir.path().join("prometheus.yml");
    std::fs::write(&config, "global:\n  scrape_interval: 15s\n").expect("config");
    let port = free_port();
    let mut command = Command::new("prometheus");
    command
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", tsdb.display()))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        // Backfilled blocks are years old: keep them.
        .arg("--storage.tsdb.retention.time=100y")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = spawn_for_the_whole_run(command).expect("prometheus starts");
    let guard = ChildGuard(child);
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if http_get(port, "/-/ready").is_some_and(|r| r.starts_with("HTTP/1.1 200")) {
            return Some(Server {
                url,
                _child: guard,
                _dir: dir,
            });
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("prometheus did not become ready on {url} within 60 s");
}

fn http_get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    Some(answer)
}

/// One server for every test of this file.
/// Starts `command` so that it ends with the test process. The server lives in a static, and
/// statics are never dropped, so `ChildGuard` alone left one Prometheus running after every
/// run. The kernel kills the child when the thread that started it ends (`PR_SET_PDEATHSIG`),
/// so it is started from a thread that lives as long as the process.
fn spawn_for_the_whole_run(mut command: Command) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure calls only prctl, which is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let (started, child) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = started.send(command.spawn());
        loop {
            std::thread::park();
        }
    });
    child
        .recv()
        .unwrap_or_else(|_| Err(std::io::Error::other("the thread starting prometheus ended")))
}

fn server() -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    SERVER.get_or_init(start_server).as_ref()
}

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/prometheus");

/// A job log with every test cluster in the window, so each has a line in the audit.
fn job_log(_dir: &Path) -> PathBuf {
    PathBuf::from(format!("{FIXTURES}/jobs.csv"))
}

/// The built-in plan with the test clusters priced and sized, beta's hosts mapped by pattern
/// (`plan-extra.toml`, which sizes them as `CLUSTERS` does).
fn plan(dir: &Path, extra: &str) -> PathBuf {
    let clusters = std::fs::read_to_string(format!("{FIXTURES}/plan-extra.toml")).expect("plan-extra.toml");
    for c in CLUSTERS.iter() {
        let gpus = c.hosts.len() as i64 * c.gpus_per_host;
        let entry = format!(
            "name = \"{}\"\naccelerator = \"h100-sxm\"\ngpus = {gpus}\nusd_per_gpu_hour = {PRICE_USD_PER_GPU_HOUR}\n",
            c.name
        );
        assert!(
            clusters.contains(&entry),
            "plan-extra.toml sizes {} as the test writes it",
            c.name
        );
    }
    let text = default_plan_text() + &clusters + extra;
    let path = dir.join("plan.toml");
    std::fs::write(&path, text).expect("plan");
    path
}

/// `GPUPLAN_WRITE_OPENMETRICS=FILE cargo test --release --test integration prometheus_server::` writes the
/// test fleet's samples, to backfill and audit by hand (docs/utilization.md, "Utilization from Prometheus in practice").
#[test]
fn the_samples_can_be_written_for_a_person_to_try() {
    if let Some(path) = std::env::var_os("GPUPLAN_WRITE_OPENMETRICS") {
        std::fs::write(&path, openmetrics()).expect("write the samples");
    }
    let text = openmetrics();
    assert!(text.ends_with("# EOF\n"));
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("DCGM_FI_PROF_GR_ENGINE_ACTIVE{cluster=\"gamma\""))
            .count(),
        72 * 60
    );
}

fn run(home: &Path, args: &[&str]) -> Run {
    common::gpuplan_in(home, args)
}

fn window_args() -> [&'static str; 4] {
    ["--since", "2024-03-01", "--until", "2024-03-04"]
}

#[test]
fn every_cluster_figure_matches_what_was_written() {
    let Some(server) = server() else { return };
    let home = tempfile::tempdir().expect("home");
    let log = job_log(home.path());
    let plan = plan(home.path(), &format!("\n[prometheus]\nurl = \"{}\"\n", server.url));
    let mut args = vec![
        "audit",
        log.to_str().expect("path"),
        "--plan",
        plan.to_str().expect("path"),
    ];
    args.extend(window_args());
    args.extend(["--format", "json"]);
    let out = run(home.path(), &args);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(report["window"]["days"].as_f64(), Some(3.0));
    let clusters = report["clusters"].as_array().expect("clusters");
    assert_eq!(clusters.len(), 3);
    for expected in CLUSTERS.iter() {
        let c = clusters
            .iter()
            .find(|c| c["name"] == expected.name)
            .unwrap_or_else(|| panic!("cluster {} audited", expected.name));
        let measured = &c["measured"];
        assert_eq!(c["utilization_source"], "measured", "{}", expected.name);
        assert_eq!(measured["metric"], expected.metric, "{}", expected.name);
        assert_eq!(
            measured["gpu_series"].as_u64(),
            Some(expected.hosts.len() as u64 * expected.gpus_per_host as u64),
            "{}",
            expected.name
        );
        let hourly = measured["hourly_util_frac"].as_array().expect("hourly");
        assert_eq!(hourly.len(), HOURS as usize);
        let mut measured_hours = Vec::new();
        for (hour, value) in hourly.iter().enumerate() {
            match expected_hour(expected, hour as i64) {
                Some(want) => {
                    let got = value
                        .as_f64()
                        .unwrap_or_else(|| panic!("{} hour {hour} measured", expected.name));
                    assert!(
                        (got - want).abs() < 1e-9,
                        "{} hour {hour}: {got} against {want}",
                        expected.name
                    );
                    measured_hours.push((hour, want));
                }
                None => assert!(value.is_null(), "{} hour {hour} was NaN: left out", expected.name),
            }
        }
        let mean = measured_hours.iter().map(|(_, u)| u).sum::<f64>() / measured_hours.len() as f64;
        let util = c["utilization_frac"].as_f64().expect("util");
        assert!((util - mean).abs() < 1e-9, "{}: {util} against {mean}", expected.name);
        // Stranded spend from the measured hours, weighed by the log's non-training minutes.
        let minutes = c["hourly"]["non_training_minutes"].as_array().expect("minutes");
        let (weighted, weight) = measured_hours.iter().fold((0.0, 0.0), |(w, n), &(hour, u)| {
            let m = minutes[hour].as_f64().expect("minute count");
            (w + u * m, n + m)
        });
        let capacity = expected.hosts.len() as f64 * expected.gpus_per_host as f64;
        let monthly = capacity * PRICE_USD_PER_GPU_HOUR * 730.0;
        let non_training_time = c["non_training_time_frac"].as_f64().expect("time share");
        let want = monthly * non_training_time * (1.0 - weighted / weight);
        let stranded = c["non_training_idle_usd_per_month"].as_f64().expect("seed 001");
        assert!(
            (stranded - want).abs() < 1e-6,
            "{}: stranded {stranded} against {want}",
            expected.name
        );
        assert!(c["log"]["non_training_idle_usd_per_month"].as_f64().is_some());
    }
    // Alpha's training ran the first day: 24 hours with no non-training minute.
    let alpha = clusters.iter().find(|c| c["name"] == "alpha").expect("alpha");
    let alpha_minutes = alpha["hourly"]["non_training_minutes"].as_array().expect("minutes");
    assert!(alpha_minutes[..24].iter().all(|m| m.as_u64() == Some(0)));
    assert!(alpha_minutes[24..].iter().all(|m| m.as_u64() == Some(60)));
    let notes: Vec<&str> = report["measurement_notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        notes.iter().any(|n| n.starts_with("beta: DCGM_FI_DEV_GPU_UTIL")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("1 point that was NaN or infinite left out")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("mapped to clusters by [hosts] (1 pattern)")),
        "{notes:?}"
    );
}

#[test]
fn the_table_says_where_each_figure_came_from() {
    let Some(server) = server() else { return };
    let home = tempfile::tempdir().expect("home");
    let log = job_log(home.path());
    let plan = plan(home.path(), "");
    let mut args = vec![
        "audit",
        log.to_str().expect("path"),
        "--plan",
        plan.to_str().expect("path"),
        "--prometheus",
        &server.url,
    ];
    args.extend(window_args());
    let out = run(home.path(), &args);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(
        out.stdout.contains("UTILIZATION MEASURED PER CLUSTER (DCGM)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains(&format!("DCGM_FI_PROF_GR_ENGINE_ACTIVE from prometheus {}", server.url)),
        "{}",
        out.stdout
    );
    let alpha_row = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("alpha") && l.contains("dcgm"))
        .unwrap_or_else(|| panic!("alpha's row names its source:\n{}", out.stdout));
    assert!(alpha_row.contains('%'));
}

#[test]
fn a_kubernetes_fleet_is_audited_from_prometheus_alone() {
    let Some(server) = server() else { return };
    let home = tempfile::tempdir().expect("home");
    let mut args = vec!["audit", "--prometheus", &server.url];
    args.extend(window_args());
    args.extend(["--format", "json"]);
    let out = run(home.path(), &args);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(report["jobs_total"].as_u64(), Some(PODS.len() as u64));
    // Each scraped minute of a pod is a minute of its GPUs.
    let want: f64 = PODS
        .iter()
        .map(|(_, _, _, _, _, gpus, first, last)| gpus * (last - first + 1) as f64 / 60.0)
        .sum();
    let got = report["gpu_hours_total"].as_f64().expect("GPU-hours");
    assert!((got - want).abs() < 1e-9, "{got} against {want}");
    let cluster = &report["clusters"][0];
    assert_eq!(cluster["name"], "k8s-east");
    // The pods are named by their owners, and classed by what owns them: the Deployment's
    // ReplicaSet serves, the PyTorchJobs train, the notebook (known by its label, not by its
    // StatefulSet) is burst, and the plain Job is left to the rules (its name: a sweep).
    let rule_jobs = |rule: &str| -> u64 {
        report["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .filter(|r| r["rule"].as_str().is_some_and(|name| name.starts_with(rule)))
            .map(|r| r["jobs"].as_u64().expect("jobs"))
            .sum()
    };
    assert_eq!(rule_jobs("serving workload"), 1, "{}", out.stdout);
    assert_eq!(rule_jobs("training operator"), 2, "{}", out.stdout);
    assert_eq!(rule_jobs("notebook"), 1, "{}", out.stdout);
    assert_eq!(rule_jobs("sweep name"), 1, "{}", out.stdout);
    for (class, jobs) in [("training", 2), ("inference", 1), ("burst", 2)] {
        assert_eq!(
            report["classes"][class]["jobs"].as_u64(),
            Some(jobs),
            "{class}: {}",
            out.stdout
        );
    }
    let serve_util = report["classes"]["inference"]["mean_util_frac"]
        .as_f64()
        .expect("pod utilization");
    assert!((serve_util - SERVE_POD_UTIL).abs() < 1e-9, "{serve_util}");
    // And the cluster itself is measured by its DCGM series.
    assert_eq!(cluster["utilization_source"], "measured");
    assert_eq!(cluster["measured"]["gpu_series"].as_u64(), Some(2));
}

#[test]
fn an_empty_window_and_a_missing_label_are_named() {
    let Some(server) = server() else { return };
    let home = tempfile::tempdir().expect("home");
    let log = home.path().join("later.csv");
    std::fs::write(
        &log,
        "job_id,cluster,start,end,gpus\n1,alpha,2025-01-01T00:00:00Z,2025-01-02T00:00:00Z,1\n",
    )
    .expect("log");
    let out = run(
        home.path(),
        &[
            "audit",
            log.to_str().expect("path"),
            "--all-time",
            "--prometheus",
            &server.url,
        ],
    );
    assert_eq!(out.code, 2, "stdout: {}", out.stdout);
    assert!(
        out.stderr
            .contains("no DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL samples between 2025-01-01T00:00:00Z"),
        "{}",
        out.stderr
    );
    let log = job_log(home.path());
    let mut args = vec![
        "audit",
        log.to_str().expect("path"),
        "--prometheus",
        &server.url,
        "--prometheus-cluster-label",
        "cluster_id",
    ];
    args.extend(window_args());
    let out = run(home.path(), &args);
    assert_eq!(out.code, 2, "stdout: {}", out.stdout);
    assert!(out.stderr.contains("carry no 'cluster_id' label"), "{}", out.stderr);
    assert!(
        out.stderr.contains("Hostname"),
        "the labels the series have are listed: {}",
        out.stderr
    );
}

/// A socket that answers every request with `answer` (after `delay`), and hands back what it
/// was sent.
fn fake_answer(answer: String, delay: Duration) -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(8) {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut request = String::new();
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                request.push_str(&line);
                line.clear();
            }
            let _ = tx.send(request);
            std::thread::sleep(delay);
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (format!("http://127.0.0.1:{port}"), rx)
}

#[test]
fn faults_are_clear_and_never_hang() {
    let home = tempfile::tempdir().expect("home");
    let log = job_log(home.path());
    let log = log.to_str().expect("path");
    let audit = |url: &str, extra: &[&str]| {
        let mut args = vec!["audit", log, "--prometheus", url];
        args.extend(window_args());
        args.extend_from_slice(extra);
        let started = Instant::now();
        let out = common::gpuplan_in(home.path(), &args);
        (out, started.elapsed())
    };

    // Nothing listening: refused at once, tried three times with backoff.
    let closed = format!("http://127.0.0.1:{}", free_port());
    let (out, _) = audit(&closed, &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(&format!("prometheus {closed}: cannot connect")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("after 3 tries"), "{}", out.stderr);

    // A login page where the API should be.
    let page = "<!DOCTYPE html><html><body>Sign in</body></html>\n";
    let (url, _) = fake_answer(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
            page.len()
        ),
        Duration::ZERO,
    );
    let (out, _) = audit(&url, &[]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("an HTML page"), "{}", out.stderr);

    // A refused token: the status said, the token never printed.
    let (url, requests) = fake_answer(
        "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string(),
        Duration::ZERO,
    );
    let mut args = vec![
        "audit",
        log,
        "--prometheus",
        &url,
        "--prometheus-token-env",
        "GPUPLAN_TEST_TOKEN",
    ];
    args.extend(window_args());
    let output = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(&args)
        .env("GPUPLAN_CONFIG_DIR", home.path().join("config"))
        .env("GPUPLAN_DATA_DIR", home.path().join("data"))
        .env("GPUPLAN_TEST_TOKEN", "s3cret-t0ken")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.contains("HTTP 401 Unauthorized: the server refused the bearer token"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cret-t0ken") && !stdout.contains("s3cret-t0ken"));
    let request = requests.recv_timeout(Duration::from_secs(5)).expect("a request");
    assert!(
        request
            .to_ascii_lowercase()
            .contains("authorization: bearer s3cret-t0ken"),
        "{request}"
    );

    // A server that never answers: given up after the timeout, not retried into a hang.
    let (url, _) = fake_answer(String::new(), Duration::from_secs(30));
    let (out, took) = audit(&url, &["--prometheus-timeout", "1"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no answer within 1 s"), "{}", out.stderr);
    assert!(took < Duration::from_secs(10), "took {took:?}");
}
