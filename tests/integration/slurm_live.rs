//! `gpuplan audit --slurm` against a real Slurm: a one-node cluster with accounting brought up
//! on 127.0.0.1 from Debian's packages by `tests/slurm/cluster.sh` (MariaDB, munge, slurmdbd,
//! slurmctld, slurmd; eight GPUs as gres/gpu on device nodes made for the test). The test
//! submits jobs whose shapes it knows (GPU counts and run times, an array, a requeue, a
//! cancelled job, a job too large to start, one still running), audits them through sacct and
//! checks jobs, runs, GPU-hours, classes and pending demand against what it submitted; then
//! stops slurmdbd and checks the error. Everything it started is stopped when it ends, passed
//! or failed.
//!
//! Without the packages the test says so loudly and is skipped, except under CI (`CI` set),
//! where it fails: `.ci/run` installs them. With `GPUPLAN_RECORD_SACCT=FILE` it also writes what
//! sacct printed, with gpuplan's own arguments, to FILE: how
//! `tests/fixtures/slurm/live-22.05.txt` was recorded.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

const CLUSTER_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/slurm/cluster.sh");
const TOOLS: [&str; 9] = [
    "mariadbd",
    "munged",
    "slurmdbd",
    "slurmctld",
    "slurmd",
    "sacct",
    "sacctmgr",
    "sbatch",
    "scontrol",
];

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
        .unwrap_or(false)
        || Path::new("/usr/sbin").join(tool).is_file()
}

/// The running cluster: stopped (jobs, daemons, anything left in its folder) when dropped.
struct SlurmCluster {
    dir: tempfile::TempDir,
    conf: PathBuf,
    started_in: Duration,
}

impl SlurmCluster {
    /// Brings the cluster up; None (said loudly) when the packages are missing outside CI.
    fn up() -> Option<SlurmCluster> {
        let missing: Vec<&str> = TOOLS.into_iter().filter(|t| !on_path(t)).collect();
        if !missing.is_empty() {
            let message = format!(
                "SKIPPED: the real-Slurm test needs Debian's slurmctld, slurmd, slurmdbd, slurm-client, munge and \
                 mariadb-server; missing {}",
                missing.join(", ")
            );
            assert!(
                std::env::var_os("CI").is_none(),
                "{message}; CI must have them (.ci/run installs them)"
            );
            eprintln!("{message}");
            return None;
        }
        let dir = tempfile::Builder::new()
            .prefix("gpuplan-slurm")
            .tempdir()
            .expect("tempdir");
        let started = Instant::now();
        let mut cluster = SlurmCluster {
            conf: dir.path().join("etc/slurm.conf"),
            dir,
            started_in: Duration::ZERO,
        };
        let out = Command::new("bash")
            .arg(CLUSTER_SCRIPT)
            .arg("up")
            .arg(cluster.dir.path())
            .output()
            .expect("cluster.sh runs");
        assert!(
            out.status.success(),
            "the Slurm cluster did not come up:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        cluster.started_in = started.elapsed();
        Some(cluster)
    }

    /// Runs a Slurm command against this cluster; its stdout, or a failure with its words.
    fn run(&self, program: &str, args: &[&str]) -> String {
        let out = Command::new(program)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .current_dir(self.jobs_dir())
            .output()
            .unwrap_or_else(|e| panic!("{program} runs: {e}"));
        assert!(
            out.status.success(),
            "{program} {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn jobs_dir(&self) -> PathBuf {
        self.dir.path().join("jobs")
    }

    /// Submits a batch job (run in the cluster's folder, so teardown finds what it left).
    fn submit(&self, name: &str, gres: &str, script: &str, extra: &[&str]) -> String {
        let chdir = format!("--chdir={}", self.jobs_dir().display());
        let mut args = vec![
            "--parsable",
            "-J",
            name,
            "--gres",
            gres,
            chdir.as_str(),
            "-o",
            "/dev/null",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--wrap", script]);
        self.run("sbatch", &args)
    }

    /// `squeue`'s state and reason of a job, empty once it left the queue.
    fn queue_state(&self, job: &str) -> String {
        self.run("squeue", &["-h", "-j", job, "-o", "%T %r"])
    }

    fn wait_until(&self, what: &str, patience: Duration, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + patience;
        while !done() {
            assert!(Instant::now() < deadline, "{what}: not within {patience:?}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn gpuplan(&self, args: &[&str]) -> common::Run {
        let conf = self.conf.display().to_string();
        common::gpuplan_with(self.dir.path(), args, &[("SLURM_CONF", conf.as_str())])
    }

    fn slurmdbd_pid(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("run/slurmdbd.pid"))
            .expect("slurmdbd's pid file")
            .trim()
            .to_string()
    }
}

impl Drop for SlurmCluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(CLUSTER_SCRIPT)
            .arg("down")
            .arg(self.dir.path())
            .output();
    }
}

/// Seconds of a run the test bounds by its own clock: at least `low`, at most `high`.
#[derive(Default)]
struct GpuSeconds {
    low: f64,
    high: f64,
}

impl GpuSeconds {
    fn add(&mut self, gpus: f64, low_s: f64, high_s: f64) {
        // sacct keeps whole seconds at each end of a run.
        self.low += gpus * (low_s - 2.0).max(0.0);
        self.high += gpus * (high_s + 2.0);
    }
}

fn class<'a>(audit: &'a Value, class: &str) -> &'a Value {
    &audit["classes"][class]
}

#[test]
fn an_audit_through_sacct_counts_what_a_real_slurm_ran() {
    let Some(cluster) = SlurmCluster::up() else { return };
    eprintln!("slurm cluster up in {:.1} s", cluster.started_in.as_secs_f64());
    let mut expected = GpuSeconds::default();

    // Four GPUs held throughout: still running when the audit reads the window's end.
    let holder = cluster.submit("train-holder", "gpu:4", "sleep 600", &[]);
    cluster.wait_until("the holder starts", Duration::from_secs(30), || {
        cluster.queue_state(&holder).starts_with("RUNNING")
    });
    let holder_seen = Instant::now();
    let holder_submitted = holder_seen;
    // Known lengths: two GPUs for 6 s, one typed GPU for 5 s, an array of three for 3 s.
    cluster.submit("train-llm", "gpu:2", "sleep 6", &["-t", "10"]);
    cluster.submit("serve-chat", "gpu:a100:1", "sleep 5", &[]);
    cluster.submit("sweep-lr", "gpu:1", "sleep 3", &["--array=0-2"]);
    expected.add(2.0, 6.0, 6.0);
    expected.add(1.0, 5.0, 5.0);
    expected.add(3.0, 3.0, 3.0);
    // A requeued job: its first run is stopped, its second sleeps 3 s.
    let requeued = cluster.submit(
        "train-requeue",
        "gpu:2",
        "if [ \"${SLURM_RESTART_COUNT:-0}\" -ge 1 ]; then sleep 3; else sleep 300; fi",
        &[],
    );
    let requeue_submitted = Instant::now();
    cluster.wait_until("the job to requeue starts", Duration::from_secs(60), || {
        cluster.queue_state(&requeued).starts_with("RUNNING")
    });
    let requeue_seen = Instant::now();
    std::thread::sleep(Duration::from_secs(2));
    // A requeue asked for too soon after a start is refused quietly: ask until it took.
    cluster.wait_until("the requeue takes", Duration::from_secs(30), || {
        let _ = Command::new("scontrol")
            .args(["requeue", &requeued])
            .env("SLURM_CONF", &cluster.conf)
            .output();
        std::thread::sleep(Duration::from_millis(300));
        !cluster.queue_state(&requeued).starts_with("RUNNING")
    });
    let requeued_at = Instant::now();
    expected.add(
        2.0,
        (requeued_at - requeue_seen).as_secs_f64() - 0.5,
        (requeued_at - requeue_submitted).as_secs_f64(),
    );
    expected.add(2.0, 3.0, 3.0);
    // A job cancelled while it ran.
    let cancelled = cluster.submit("eval-cancel", "gpu:1", "sleep 300", &[]);
    let cancel_submitted = Instant::now();
    cluster.wait_until("the job to cancel starts", Duration::from_secs(60), || {
        cluster.queue_state(&cancelled).starts_with("RUNNING")
    });
    let cancel_seen = Instant::now();
    std::thread::sleep(Duration::from_secs(2));
    cluster.run("scancel", &[&cancelled]);
    let cancelled_at = Instant::now();
    expected.add(
        1.0,
        (cancelled_at - cancel_seen).as_secs_f64(),
        (cancelled_at - cancel_submitted).as_secs_f64(),
    );
    // Everything but the holder ends.
    cluster.wait_until("the short jobs end", Duration::from_secs(120), || {
        cluster.run("squeue", &["-h", "-o", "%i"]).lines().count() == 1
    });
    // Eight GPUs asked while four are held: it waits, and never starts in the window.
    let too_big = cluster.submit("train-too-big", "gpu:8", "sleep 5", &["-t", "60"]);
    cluster.wait_until("the large job waits for resources", Duration::from_secs(30), || {
        cluster.queue_state(&too_big).starts_with("PENDING")
    });
    // slurmctld tells slurmdbd of a job a moment after the queue shows it.
    cluster.wait_until(
        "the accounting records the waiting job",
        Duration::from_secs(30),
        || cluster.run("sacct", &["-a", "-n", "-P", "-j", &too_big, "--format=State"]) == "PENDING",
    );

    if let Some(file) = std::env::var_os("GPUPLAN_RECORD_SACCT") {
        record(&cluster, Path::new(&file));
    }
    let audit_started = Instant::now();
    let run = cluster.gpuplan(&[
        "audit",
        "--slurm",
        "--days",
        "2",
        "--slurm-piece-days",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    expected.add(
        4.0,
        (audit_started - holder_seen).as_secs_f64(),
        (Instant::now() - holder_submitted).as_secs_f64() + 1.0,
    );
    assert!(
        run.stderr.contains("in 2 calls") && run.stderr.contains("-M all"),
        "the note names the calls: {}",
        run.stderr
    );
    let audit: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(audit["inputs"][0]["format"], "sacct (live)");

    // Jobs: holder, train-llm, serve-chat, three array tasks, the requeued one, the cancelled one.
    assert_eq!(audit["jobs_total"], 8, "{}", run.stdout);
    // Runs: the requeued job ran twice.
    assert_eq!(audit["runs_total"], 9);
    let gpu_seconds = audit["gpu_hours_total"].as_f64().expect("GPU-hours") * 3600.0;
    assert!(
        (expected.low..=expected.high).contains(&gpu_seconds),
        "GPU-seconds {gpu_seconds:.1} outside what was submitted: {:.1}..{:.1}",
        expected.low,
        expected.high
    );
    // Classes by the shipped rules: train-* training, serve-* inference, the sweep and the
    // eval burst.
    assert_eq!(class(&audit, "training")["jobs"], 3);
    assert_eq!(class(&audit, "inference")["jobs"], 1);
    assert_eq!(class(&audit, "burst")["jobs"], 4);
    // The one job that never started: eight GPUs for its hour's time limit.
    let pending = &audit["pending"]["training"];
    assert_eq!(pending["jobs"], 1, "{}", audit["pending"]);
    assert_eq!(pending["gpus"], 8.0);
    assert_eq!(pending["gpu_hours_basis"], "time_limit");
    assert!((pending["gpu_hours_requested"].as_f64().unwrap_or(0.0) - 8.0).abs() < 1e-9);
    for other in ["inference", "burst"] {
        assert_eq!(audit["pending"][other]["jobs"], 0);
    }
    // Typed GPUs are counted once (gres/gpu:a100=1 beside gres/gpu=1); states as Slurm wrote them.
    let top = audit["top_jobs"].as_array().expect("top jobs");
    let job = |name: &str| {
        top.iter()
            .find(|j| j["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {top:?}"))
    };
    assert_eq!(job("serve-chat")["max_gpus"], 1.0);
    assert_eq!(job("train-holder")["max_gpus"], 4.0);
    assert_eq!(job("train-holder")["state"], "RUNNING");
    assert_eq!(job("eval-cancel")["state"], "CANCELLED");
    assert_eq!(job("train-requeue")["runs"], 2);
    // Every share physical, on a window of seconds of use in two days.
    for c in audit["clusters"].as_array().expect("clusters") {
        assert_eq!(c["name"], "gpt");
        for key in ["allocation_frac", "utilization_frac", "non_training_time_frac"] {
            let value = c[key].as_f64().expect(key);
            assert!((0.0..=1.0).contains(&value), "{key} = {value}");
        }
        assert!(c["peak_concurrent_gpus"].as_f64().unwrap_or(99.0) <= 8.0);
    }

    // Named clusters: the one that exists is read, an unknown one is said.
    let named = cluster.gpuplan(&["audit", "--slurm", "--days", "1", "--slurm-clusters", "gpt,nosuch"]);
    assert_eq!(named.code, 0, "{}", named.stderr);
    assert!(named.stderr.contains("no job of cluster nosuch"), "{}", named.stderr);

    // slurmdbd down: sacct's own words and the command, exit 2, no hang.
    cluster.run("kill", &["-TERM", &cluster.slurmdbd_pid()]);
    std::thread::sleep(Duration::from_secs(1));
    let down = cluster.gpuplan(&["audit", "--slurm", "--days", "1", "--slurm-timeout", "30"]);
    assert_eq!(down.code, 2, "{}", down.stderr);
    assert!(
        down.stderr.contains("error: sacct:") && down.stderr.contains("command: TZ='UTC'"),
        "{}",
        down.stderr
    );
    eprintln!("sacct with slurmdbd down said: {}", down.stderr.trim());
}

/// Writes what sacct prints for gpuplan's own arguments over the last day: the recording the
/// reader's unit tests replay.
fn record(cluster: &SlurmCluster, file: &Path) {
    let now = chrono::Utc::now().timestamp_millis();
    let piece = gpuplan::data::slurm::command::Piece {
        start_ms: now - 86_400_000,
        end_ms: now,
    };
    let args = gpuplan::data::slurm::command::sacct_args(&gpuplan::model::plan::SlurmSource::default(), piece);
    let out = Command::new("sacct")
        .args(&args)
        .envs(gpuplan::data::slurm::command::SACCT_ENVIRONMENT)
        .env("SLURM_CONF", &cluster.conf)
        .output()
        .expect("sacct runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(file, &out.stdout).expect("the recording is written");
}
