//! The audit run as SQL in real engines (docs/warehouse.md): DuckDB through its own ADBC
//! driver (libduckdb.so), and Sail, a Spark SQL engine, served over Flight SQL on 127.0.0.1
//! and reached through the Flight SQL driver. One generated Parquet fixture, audited in
//! process and in each engine, must give the same report: per cluster and class the jobs,
//! GPU-hours and utilization, the hourly series, peaks and floors, the rules, the labels, the
//! largest jobs, the jobs that never started, the rows set aside.
//!
//! The engines come from `.ci/engines.sh` (npm's DuckDB node bindings carry libduckdb.so; PyPI
//! the Flight SQL driver and Sail). Without them these tests say so loudly and pass, except
//! under CI, which must have them.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gpuplan::model::audit_settings::{AuditSettings, WindowSpec};
use gpuplan::model::plan::WarehouseSource;
use gpuplan::pipeline::Pipeline;
use gpuplan::pipeline::observer::Observer;
use gpuplan::pipeline::sources::Sources;
use serde_json::Value;

use crate::common::gpuplan_with;
use crate::warehouse_fixture::{
    DUCKDB_LINES, FixtureHome, assert_same_audit, assert_same_window, audit_json, audit_json_with, comparable, differs,
    duckdb_flags, duckdb_lines, write_fixture,
};

/// Every DuckDB line installed (the LTS, the newest npm and PyPI carry: `.ci/engines.sh`) audits
/// the fixture as the file's audit does, whole, in passes and over a window, and gives the
/// replay the file's jobs; the default DuckDB explains the statements it would send.
#[test]
fn duckdb_audits_the_parquet_fixture_as_the_in_process_audit_does() {
    let Some(FixtureHome { engines, home, fixture }) = FixtureHome::with("lib/libduckdb.so") else {
        return;
    };
    let file = fixture.display().to_string();
    let in_process = audit_json(home.path(), &[&file], None);
    let from = format!("read_parquet('{file}')");
    let warehouse_flags = duckdb_flags(&from);
    let numbered_from = format!("(SELECT * REPLACE (TRY_CAST(job_id AS BIGINT) AS job_id) FROM {from}) AS numbered");
    let file_replay = replay_json(home.path(), &[&file], &[]);
    assert!(file_replay["jobs"].as_u64().unwrap_or(0) > 500);
    let lines = duckdb_lines();
    if std::env::var_os("CI").is_some() {
        let found: Vec<&str> = lines.iter().map(|duckdb| duckdb.line).collect();
        assert_eq!(found, DUCKDB_LINES, "CI audits on every DuckDB line");
    }
    for duckdb in &lines {
        let (env, engine) = (duckdb.env(home.path()), duckdb.name());
        let warehouse = audit_json_with(home.path(), &warehouse_flags, &env);
        assert_same_audit(&in_process, &warehouse, &engine);
        // Split into passes over shares of the jobs (stems kept in a temporary table between
        // them), the audit is the same: the jobs that never started and the rows set aside
        // counted once.
        let mut in_passes = warehouse_flags.to_vec();
        in_passes.extend_from_slice(&["--warehouse-passes", "3"]);
        let passes = audit_json_with(home.path(), &in_passes, &env);
        assert_same_audit(&in_process, &passes, &format!("{engine} in 3 passes"));
        // Job ids stored as numbers: the passes read ranges of them (a filter the engine prunes
        // row groups with), each counting its own rows set aside and jobs that never started,
        // and add up to the audit unsplit (ids no number, `bad-1`, become missing in both).
        let numbered = [&warehouse_flags[..4], &["--warehouse-from", &numbered_from]].concat();
        let unsplit = audit_json_with(home.path(), &numbered, &env);
        let in_ranges = [&numbered[..], &["--warehouse-passes", "3"]].concat();
        let ranges = audit_json_with(home.path(), &in_ranges, &env);
        assert_same_audit(&unsplit, &ranges, &format!("{engine} in 3 passes over ranges of ids"));
        // Kept as numbers, the ids still rank ties as text ("100000" before "99990"), as the
        // file's audit of text ids does: the largest jobs are the same.
        let top = |report: &Value| comparable(report.clone())["top_jobs"].clone();
        if let Some(difference) = differs(&top(&in_process), &top(&unsplit), "top_jobs") {
            panic!("{engine} over whole-number ids differs from the file's largest jobs at {difference}");
        }
        assert_same_window(home.path(), &file, &warehouse_flags, &env, &engine);
        // The replay takes the warehouse's jobs, one row per job, as it takes the file's.
        let warehouse_replay = replay_json(home.path(), &warehouse_flags, &env);
        if let Some(difference) = differs(&file_replay, &warehouse_replay, "replay") {
            panic!("the replay of {engine}'s jobs differs from the file's at {difference}");
        }
    }

    // --explain-sql prints the queries, the totals unsent, and exits 0.
    let lib = engines.join("lib").display().to_string();
    let env = [("GPUPLAN_ADBC_PATH", lib.as_str())];
    let mut explain = vec!["audit", "--all-time", "--explain-sql"];
    explain.extend_from_slice(&warehouse_flags);
    let run = gpuplan_with(home.path(), &explain, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for step in ["-- session", "-- columns", "-- span", "-- totals"] {
        assert!(run.stdout.contains(step), "no {step} in {}", run.stdout);
    }
    // The user's session statements are shown where they run: before the audit's.
    let with_session = [env[0], ("GPUPLAN_WAREHOUSE_SESSION", "SET threads = 1; ")];
    let run = gpuplan_with(home.path(), &explain, &with_session);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let shown = run
        .stdout
        .find("-- session (GPUPLAN_WAREHOUSE_SESSION)\nSET threads = 1");
    assert!(
        shown.is_some_and(|at| run.stdout.find("-- columns").is_some_and(|columns| at < columns)),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(&format!("FROM {from}")));
    // In passes: each pass's stems into a temporary table, then each pass's totals.
    explain.extend_from_slice(&["--warehouse-passes", "2"]);
    let run = gpuplan_with(home.path(), &explain, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches("-- stems\n").count(), 2, "{}", run.stdout);
    assert_eq!(run.stdout.matches("-- stems summed\n").count(), 1, "{}", run.stdout);
    assert_eq!(run.stdout.matches("-- totals").count(), 2, "{}", run.stdout);
    assert!(run.stdout.contains("CREATE TEMPORARY TABLE \"gpuplan_stem_parts\""));
    assert!(run.stdout.contains("(HASH(job_id) % 2) = 1"));
    // Over numeric ids: the range read first, then each pass's range on the column as stored.
    let ranged = [
        &explain[..explain.len() - 4],
        &["--warehouse-from", &numbered_from, "--warehouse-passes", "2"],
    ]
    .concat();
    let run = gpuplan_with(home.path(), &ranged, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("-- job ids\nSELECT CAST(MIN(\"job_id\") AS DOUBLE)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("(\"job_id\" < 55003 OR \"job_id\" IS NULL)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("(\"job_id\" >= 55003)"), "{}", run.stdout);
    assert!(!run.stdout.contains("HASH(job_id)"), "{}", run.stdout);
}

/// `gpuplan replay --all-time --format json ARGS` in the environment `env`.
fn replay_json(home: &Path, args: &[&str], env: &[(&str, String)]) -> Value {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut all = vec!["replay", "--all-time", "--format", "json"];
    all.extend_from_slice(args);
    let run = gpuplan_with(home, &all, &env);
    assert_eq!(run.code, 0, "gpuplan {all:?} failed: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("the replay's JSON")
}

#[test]
fn a_missing_driver_says_how_to_install_it() {
    let home = tempfile::tempdir().expect("tempdir");
    let empty = home.path().display().to_string();
    let run = gpuplan_with(
        home.path(),
        &["audit", "--warehouse-driver", "duckdb", "--warehouse-from", "jobs"],
        &[("GPUPLAN_ADBC_PATH", empty.as_str()), ("HOME", empty.as_str())],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("libduckdb.so"), "{}", run.stderr);
    assert!(
        run.stderr.contains("npm pack @duckdb/node-bindings-linux-x64"),
        "{}",
        run.stderr
    );
}

/// The DuckDB a user points at is the one that audits: found and refused (not a library, or
/// DuckDB 2.0's Python module without its libpython), it stops the audit and says why, and the
/// default DuckDB in ~/.cache/gpuplan/engines/lib, which would load, does not stand in for it.
#[test]
fn a_duckdb_found_and_refused_stops_the_audit_rather_than_another_standing_in() {
    let Some(engines) = crate::warehouse_fixture::engines_with("lib/libduckdb.so") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let default = home.path().join(".cache/gpuplan/engines/lib");
    std::fs::create_dir_all(&default).expect("mkdir");
    std::os::unix::fs::symlink(engines.join("lib/libduckdb.so"), default.join("libduckdb.so")).expect("link");
    let audit = |lib: &Path| {
        let (lib, home_dir) = (lib.display().to_string(), home.path().display().to_string());
        gpuplan_with(
            home.path(),
            &["audit", "--warehouse-driver", "duckdb", "--warehouse-from", "range(1)"],
            &[("GPUPLAN_ADBC_PATH", lib.as_str()), ("HOME", home_dir.as_str())],
        )
    };
    // The default alone loads: the audit gets past the driver (and fails on the table).
    let run = audit(&home.path().join("nowhere"));
    assert!(!run.stderr.contains("could not be loaded"), "{}", run.stderr);
    let bogus = home.path().join("bogus");
    std::fs::create_dir_all(&bogus).expect("mkdir");
    std::fs::write(bogus.join("libduckdb.so"), "not a library").expect("bogus");
    let run = audit(&bogus);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let refused = format!("{} was found and refused", bogus.join("libduckdb.so").display());
    assert!(run.stderr.contains(&refused), "{}", run.stderr);
    if let Some(engines) = crate::warehouse_fixture::engines_with("duckdb-2.0/lib/libduckdb.so") {
        let run = audit(&engines.join("duckdb-2.0/lib"));
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains("undefined symbol: Py"), "{}", run.stderr);
        assert!(run.stderr.contains("LD_PRELOAD="), "{}", run.stderr);
    }
}

#[test]
fn a_warehouse_beside_logs_or_with_a_password_in_its_uri_is_refused() {
    let run = crate::common::gpuplan(&["audit", crate::common::SAMPLE_LOG, "--warehouse-from", "jobs"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("--warehouse-from: names a warehouse, and logs were given too"),
        "{}",
        run.stderr
    );
    let run = crate::common::gpuplan(&["audit", "--warehouse-uri", ":memory:"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--warehouse-driver"), "{}", run.stderr);

    let home = tempfile::tempdir().expect("tempdir");
    let plan = home.path().join("plan.toml");
    let tail = "\n[warehouse]\ndriver = \"postgresql\"\nuri = \"postgresql://ana:hunter2@db/jobs\"\nfrom = \"jobs\"\n";
    std::fs::write(&plan, crate::common::default_plan_text() + tail).expect("plan");
    let run = crate::common::gpuplan_in(home.path(), &["audit", "--plan", &plan.display().to_string()]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("warehouse.uri: carries a password"),
        "{}",
        run.stderr
    );
}

/// A Sail Flight SQL server on 127.0.0.1, stopped when dropped; what it logs is kept.
struct SailServer {
    child: Child,
    port: u16,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    _workdir: tempfile::TempDir,
}

impl Drop for SailServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl SailServer {
    /// The lines logged so far.
    fn log(&self) -> Vec<String> {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }
}

/// Starts Sail (its mode and settings in `env`, as `SAIL_MODE` and `SAIL_CLUSTER__…`) on a
/// port of its choosing, and reads the port from the line it logs once bound.
fn start_sail(engines: &Path, env: &[(&str, &str)]) -> SailServer {
    let workdir = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(engines.join("venv/bin/sail"))
        .args(["flight", "server", "--ip", "127.0.0.1", "--port", "0", "-C"])
        .arg(workdir.path())
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sail starts");
    let stderr = child.stderr.take().expect("sail's stderr");
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (sender, receiver) = std::sync::mpsc::channel();
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let port = line
                .split("Flight SQL server on 127.0.0.1:")
                .nth(1)
                .and_then(|rest| rest.trim_end_matches(|c: char| !c.is_ascii_digit()).parse::<u16>().ok());
            if let Some(port) = port {
                let _ = sender.send(port);
            }
            if let Ok(mut log) = kept.lock() {
                log.push(line);
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let port = loop {
        if let Ok(port) = receiver.recv_timeout(Duration::from_millis(200)) {
            break port;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("sail exited before serving: {status}");
        }
        assert!(Instant::now() < deadline, "sail did not start serving within a minute");
    };
    SailServer {
        child,
        port,
        log,
        _workdir: workdir,
    }
}

/// The Flight SQL flags that audit the fixture in the Sail serving on `port`.
fn sail_flags(port: u16, file: &str) -> [String; 6] {
    [
        "--warehouse-driver".to_string(),
        "flightsql".to_string(),
        "--warehouse-uri".to_string(),
        format!("grpc://127.0.0.1:{port}"),
        "--warehouse-from".to_string(),
        format!("parquet.`{file}`"),
    ]
}

#[test]
fn a_flight_sql_server_audits_the_parquet_fixture_as_the_in_process_audit_does() {
    let Some(FixtureHome { engines, home, fixture }) = FixtureHome::with("venv/bin/sail") else {
        return;
    };
    assert!(
        engines.join("lib/libadbc_driver_flightsql.so").exists(),
        "the Flight SQL driver is missing beside Sail (run .ci/engines.sh)"
    );
    let server = start_sail(&engines, &[]);
    let file = fixture.display().to_string();
    let in_process = audit_json(home.path(), &[&file], None);
    let flags = sail_flags(server.port, &file);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let warehouse = audit_json(home.path(), &flags, Some(&engines.join("lib")));
    assert_same_audit(&in_process, &warehouse, "Sail over Flight SQL");
    let env = [("GPUPLAN_ADBC_PATH", engines.join("lib").display().to_string())];
    assert_same_window(home.path(), &file, &flags, &env, "Sail over Flight SQL");

    // Sail has no temporary tables to keep stems between passes: asked for passes, it says so.
    let lib = engines.join("lib").display().to_string();
    let mut split = vec!["audit", "--all-time", "--warehouse-passes", "2"];
    split.extend_from_slice(&flags);
    let run = gpuplan_with(home.path(), &split, &[("GPUPLAN_ADBC_PATH", lib.as_str())]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("cannot split an audit into passes"),
        "{}",
        run.stderr
    );
}

/// Sail as a cluster: in `local-cluster` mode its driver and two workers are separate actors,
/// each serving RPC on its own port of 127.0.0.1, and the statement runs as stages of tasks
/// the driver hands the workers (the distributed execution Sail runs on Kubernetes, in one
/// process). The audit over it is the file's. A worker holds a task of every stage of a
/// pipelined region at once: at a parallelism of 2 (set, so that the region is the same on any
/// machine: Sail's default is a partition a core) the audit's region is 20 tasks, which 2
/// workers of 16 task slots hold (of Sail's default 8, they refuse it: "task region requires
/// 20 worker task slots").
#[test]
fn sail_in_local_cluster_mode_audits_the_fixture_as_the_in_process_audit_does() {
    let Some(FixtureHome { engines, home, fixture }) = FixtureHome::with("venv/bin/sail") else {
        return;
    };
    let workers = 2;
    let server = start_sail(
        &engines,
        &[
            ("SAIL_MODE", "local-cluster"),
            ("SAIL_CLUSTER__WORKER_INITIAL_COUNT", "2"),
            ("SAIL_CLUSTER__WORKER_MAX_COUNT", "2"),
            ("SAIL_CLUSTER__WORKER_TASK_SLOTS", "16"),
            ("SAIL_EXECUTION__DEFAULT_PARALLELISM", "2"),
            ("RUST_LOG", "info"),
        ],
    );
    let file = fixture.display().to_string();
    let in_process = audit_json(home.path(), &[&file], None);
    let flags = sail_flags(server.port, &file);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let warehouse = audit_json(home.path(), &flags, Some(&engines.join("lib")));
    assert_same_audit(&in_process, &warehouse, "Sail in local-cluster mode");
    let env = [("GPUPLAN_ADBC_PATH", engines.join("lib").display().to_string())];
    assert_same_window(home.path(), &file, &flags, &env, "Sail in local-cluster mode");

    // It ran as a cluster: a driver serving RPC, and each worker started and reachable on its
    // own port (in local mode Sail logs none of these).
    let log = server.log();
    let said = |what: &str| log.iter().any(|line| line.contains(what));
    assert!(said("driver server is ready on port"), "{log:#?}");
    for worker in 1..=workers {
        assert!(
            said(&format!("worker {worker} is available at 127.0.0.1:")),
            "worker {worker} never joined: {log:#?}"
        );
    }
    assert!(!said(&format!("worker {} is available", workers + 1)), "{log:#?}");
}

#[test]
fn the_workbench_audits_a_plan_s_warehouse() {
    let Some(FixtureHome { engines, home, fixture }) = FixtureHome::with("lib/libduckdb.so") else {
        return;
    };
    let plan = home.path().join("plan.toml");
    let tail = format!(
        "\n[warehouse]\ndriver = \"{}\"\nfrom = \"read_parquet('{}')\"\n",
        engines.join("lib/libduckdb.so").display(),
        fixture.display()
    );
    let tail = tail.replace(
        "[warehouse]\n",
        "[warehouse]\ndialect = \"duckdb\"\nentrypoint = \"duckdb_adbc_init\"\n",
    );
    std::fs::write(&plan, crate::common::default_plan_text() + &tail).expect("plan");
    let mut screen = crate::common::pty::Workbench::start(&["--plan".as_ref(), plan.as_os_str()], home.path(), 200, 60);
    // The fixture's clusters, audited in DuckDB, reach the Workloads pane.
    screen.wait_for("the warehouse's clusters", Duration::from_secs(60), |s| {
        s.contains("stranded spend") && s.contains("alpha") && s.contains("beta")
    });
    screen.press(b"q");
    screen.wait_exit(Duration::from_secs(30));
}

/// Asked no passes, an engine whose memory the runs outgrow splits the audit by itself (passes
/// only when memory asks): DuckDB capped at 68 MB, under a megabyte past what it needs whatever
/// the runs (`ENGINE_BASE_BYTES`), takes the fixture's 1,400 runs in three passes, equal to the
/// file's audit; uncapped, one statement.
#[test]
fn an_engine_with_little_memory_splits_the_audit_unasked() {
    let Some(FixtureHome { engines, home, fixture }) = FixtureHome::with("lib/libduckdb.so") else {
        return;
    };
    let file = fixture.display().to_string();
    let in_process = audit_json(home.path(), &[&file], None);
    let plan = home.path().join("capped.toml");
    let spill = home.path().join("spill");
    let tail = format!(
        "\n[warehouse]\ndriver = \"duckdb\"\nuri = \":memory:\"\nfrom = \"read_parquet('{file}')\"\n\n[warehouse.options]\nmemory_limit = \"68MB\"\ntemp_directory = {:?}\n",
        spill.display().to_string()
    );
    std::fs::write(&plan, crate::common::default_plan_text() + &tail).expect("plan");
    let plan = plan.display().to_string();
    let lib = engines.join("lib").display().to_string();
    let env = [("GPUPLAN_ADBC_PATH", lib.as_str())];
    let explain = gpuplan_with(
        home.path(),
        &["audit", "--all-time", "--plan", &plan, "--explain-sql"],
        &env,
    );
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    assert!(
        explain
            .stdout
            .contains("-- memory limit\nSELECT current_setting('memory_limit')"),
        "{}",
        explain.stdout
    );
    let passes = explain.stdout.matches("-- totals").count();
    assert_eq!(passes, 3, "passes under 68 MB: {}", explain.stdout);
    let capped = audit_json(home.path(), &["--plan", &plan], Some(&engines.join("lib")));
    assert_same_audit(&in_process, &capped, "DuckDB capped at 68 MB, split unasked");
    // Uncapped (DuckDB's default, most of the machine's memory), the audit is one statement.
    let from = format!("read_parquet('{file}')");
    let whole = [
        "audit",
        "--all-time",
        "--explain-sql",
        "--warehouse-driver",
        "duckdb",
        "--warehouse-uri",
        ":memory:",
        "--warehouse-from",
        &from,
    ];
    let run = gpuplan_with(home.path(), &whole, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches("-- totals").count(), 1, "{}", run.stdout);
    assert!(!run.stdout.contains("-- stems"), "{}", run.stdout);
    // A source without job ids (every row its own job, numbered in each statement afresh) is
    // never split unasked, however little memory: a row could fall in two passes or none.
    let idless = std::fs::read_to_string(&plan).expect("plan").replace(
        &format!("read_parquet('{file}')"),
        &format!("(SELECT * EXCLUDE (job_id) FROM read_parquet('{file}'))"),
    );
    let idless_plan = home.path().join("idless.toml");
    std::fs::write(&idless_plan, idless).expect("plan");
    let idless_plan = idless_plan.display().to_string();
    let run = gpuplan_with(
        home.path(),
        &["audit", "--all-time", "--plan", &idless_plan, "--explain-sql"],
        &env,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches("-- totals").count(), 1, "{}", run.stdout);
    assert!(!run.stdout.contains("-- memory limit"), "{}", run.stdout);
}

/// An audit in passes can run for an hour: each statement of its sums, with its pass, reaches
/// the pipeline's observer as it is sent (the CLI's progress line, the workbench's status).
#[test]
fn an_audit_in_passes_tells_each_statement_as_it_is_sent() {
    let Some(FixtureHome {
        engines,
        home: _home,
        fixture,
    }) = FixtureHome::with("lib/libduckdb.so")
    else {
        return;
    };
    let library = engines.join("lib/libduckdb.so").display().to_string();
    let from = format!("read_parquet('{}')", fixture.display());
    let mut source = WarehouseSource::at(&library, None, &from);
    source.dialect = Some("duckdb".to_string());
    source.entrypoint = Some("duckdb_adbc_init".to_string());
    source.passes = Some(2);
    let sources = Sources {
        warehouse: Some(source),
        ..Sources::default()
    };
    #[derive(Default)]
    struct Heard(Vec<String>);
    impl Observer for Heard {
        fn phase(&mut self, what: String) {
            self.0.push(what);
        }
    }
    let catalog = gpuplan::config::catalog::builtin().catalog;
    let settings = AuditSettings::for_plan(&catalog, None, WindowSpec::default(), None);
    let mut heard = Heard::default();
    Pipeline::new(catalog)
        .audit(&sources, &settings, &mut heard)
        .expect("the fixture audits in DuckDB");
    assert_eq!(
        heard.0,
        [
            "the warehouse sums pass 1 of 2's stems (statement 1 of 5)",
            "the warehouse sums pass 2 of 2's stems (statement 2 of 5)",
            "the warehouse sums every pass's stems (statement 3 of 5)",
            "the warehouse sums pass 1 of 2's totals (statement 4 of 5)",
            "the warehouse sums pass 2 of 2's totals (statement 5 of 5)",
        ]
    );
}

/// Engines that cannot run here (BigQuery, Snowflake, Databricks, a site's own Trino behind
/// Flight SQL) are tested live where credentials are given: `GPUPLAN_LIVE_WAREHOUSE_DRIVER`,
/// `GPUPLAN_LIVE_WAREHOUSE_FROM`, and `GPUPLAN_LIVE_WAREHOUSE_URI` or `GPUPLAN_LIVE_WAREHOUSE_URI_ENV`
/// (the name of the variable holding a URI with a password), `GPUPLAN_LIVE_WAREHOUSE_DIALECT`
/// where the driver's is not the engine's. With the fixture loaded there (`write_fixture_csv`
/// writes it as CSV), `GPUPLAN_LIVE_WAREHOUSE_FIXTURE=1` compares the whole audit with the file's.
#[test]
fn a_live_warehouse_named_by_the_environment_audits() {
    let var = |name: &str| std::env::var(format!("GPUPLAN_LIVE_WAREHOUSE_{name}")).ok();
    let (Some(driver), Some(from)) = (var("DRIVER"), var("FROM")) else {
        eprintln!("no GPUPLAN_LIVE_WAREHOUSE_DRIVER and _FROM: the live warehouse test is skipped");
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let mut tail = format!("\n[warehouse]\ndriver = {driver:?}\nfrom = {from:?}\n");
    for (key, value) in [
        ("uri", var("URI")),
        ("uri_env", var("URI_ENV")),
        ("dialect", var("DIALECT")),
    ] {
        if let Some(value) = value {
            tail.push_str(&format!("{key} = {value:?}\n"));
        }
    }
    let plan = home.path().join("plan.toml");
    std::fs::write(&plan, crate::common::default_plan_text() + &tail).expect("plan");
    let plan = plan.display().to_string();
    let run = crate::common::gpuplan_with(
        home.path(),
        &["audit", "--plan", &plan, "--all-time", "--format", "json"],
        &[],
    );
    assert_eq!(run.code, 0, "the live warehouse's audit failed: {}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("the audit's JSON");
    let classes: f64 = ["training", "inference", "burst"]
        .iter()
        .map(|c| report["classes"][c]["gpu_hours"].as_f64().unwrap_or(0.0))
        .sum();
    let total = report["gpu_hours_total"].as_f64().unwrap_or(0.0);
    assert!(
        total > 0.0 && (classes - total).abs() <= 1e-6 * total,
        "{classes} against {total}"
    );
    if var("FIXTURE").is_some() {
        let fixture = home.path().join("jobs.parquet");
        write_fixture(&fixture);
        let in_process = audit_json(home.path(), &[&fixture.display().to_string()], None);
        assert_same_audit(&in_process, &report, &driver);
    }
}

/// `report` opens the warehouse once: the replay's jobs are read over the connection the
/// audit opened. The session's statement creates a table in a DuckDB file, which a second
/// opening of the file would find there and stop on.
#[test]
fn report_opens_the_warehouse_once() {
    let Some(FixtureHome { engines, home, fixture }) = FixtureHome::with("lib/libduckdb.so") else {
        return;
    };
    let from = format!("read_parquet('{}')", fixture.display());
    let database = home.path().join("audit.duckdb").display().to_string();
    let lib = engines.join("lib").display().to_string();
    let env = [
        ("GPUPLAN_ADBC_PATH", lib.as_str()),
        (
            "GPUPLAN_WAREHOUSE_SESSION",
            "CREATE TABLE gpuplan_opened AS SELECT 1 AS opened",
        ),
    ];
    let flags = [
        "--warehouse-driver",
        "duckdb",
        "--warehouse-uri",
        database.as_str(),
        "--warehouse-from",
        from.as_str(),
    ];
    let mut report = vec!["report", "--format", "json"];
    report.extend_from_slice(&flags);
    let run = gpuplan_with(home.path(), &report, &env);
    assert_eq!(run.code, 0, "report over a warehouse opened twice? {}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("the report's JSON");
    assert!(json["replay"]["jobs"].as_u64().unwrap_or(0) > 500, "{}", run.stdout);
    // The same statement on a second opening of the file stops, as the test relies on.
    let mut audit = vec!["audit", "--all-time", "--format", "json"];
    audit.extend_from_slice(&flags);
    let again = gpuplan_with(home.path(), &audit, &env);
    assert_ne!(again.code, 0, "a second opening did not find the table");
    assert!(again.stderr.contains("gpuplan_opened"), "{}", again.stderr);
}
