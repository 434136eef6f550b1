//! The audit run as SQL in a real PostgreSQL (Debian's package) on 127.0.0.1, reached through
//! the ADBC PostgreSQL driver (.ci/engines.sh): the fixture loaded into a table gives the same
//! report as the fixture audited in process. The server runs as the `postgres` user when the
//! tests run as root (PostgreSQL refuses root), in a temporary data folder, and is stopped when
//! the test ends.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::warehouse_fixture::{
    assert_same_audit, assert_same_window, audit_json, engines_with, write_fixture, write_fixture_csv,
};

/// Debian's PostgreSQL server programs (initdb, postgres), the newest version installed.
fn server_bin() -> Option<PathBuf> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists() && bin.join("postgres").exists())
        .collect();
    versions.sort();
    versions.pop()
}

fn on_path(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A command as the user the server runs as: `postgres` when we are root.
fn as_server_user(program: &Path, root: bool) -> Command {
    if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

struct Postgres {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // SIGINT to the server itself (not the `runuser` before it): a fast shutdown, which
        // ends the sessions' queries too (a smart one waits on a query still running, as one
        // left by a failed test would be). The folder goes with the TempDir.
        let server = std::fs::read_to_string(self.dir.path().join("data/postmaster.pid"))
            .ok()
            .and_then(|pid| pid.lines().next().map(str::to_string))
            .unwrap_or_else(|| self.child.id().to_string());
        let _ = Command::new("kill").args(["-INT", &server]).status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // Still up: the server itself killed, then `runuser`, which would not pass it on.
        let _ = Command::new("kill").args(["-KILL", &server]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn start_postgres(bin: &Path) -> Postgres {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).expect("data folder");
    if root {
        // The server's user owns its folder and can reach it.
        for path in [dir.path(), data.as_path()] {
            let status = Command::new("chown").arg("postgres").arg(path).status().expect("chown");
            assert!(status.success(), "chown postgres {}", path.display());
        }
    }
    let init = as_server_user(&bin.join("initdb"), root)
        .args(["-D"])
        .arg(&data)
        .args(["-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        .output()
        .expect("initdb runs");
    assert!(
        init.status.success(),
        "initdb: {}",
        String::from_utf8_lossy(&init.stderr)
    );
    let port = free_port();
    let child = as_server_user(&bin.join("postgres"), root)
        .arg("-D")
        .arg(&data)
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-k"])
        .arg(&data)
        .args(["-c", "fsync=off"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("postgres starts");
    let mut server = Postgres { child, port, dir };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = TcpStream::connect(("127.0.0.1", port)).is_ok()
            && Command::new("psql")
                .args(psql_args(port))
                .args(["-c", "SELECT 1"])
                .output()
                .is_ok_and(|o| o.status.success());
        if ready {
            return server;
        }
        if let Ok(Some(status)) = server.child.try_wait() {
            panic!("postgres exited before serving: {status}");
        }
        assert!(Instant::now() < deadline, "postgres did not start within a minute");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn psql_args(port: u16) -> Vec<String> {
    [
        "-h",
        "127.0.0.1",
        "-p",
        &port.to_string(),
        "-U",
        "postgres",
        "-d",
        "postgres",
        "-v",
        "ON_ERROR_STOP=1",
        "-q",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Loads the fixture's CSV into `jobs`, its times as `timestamptz`.
fn load_fixture(port: u16, csv: &Path) {
    let statements = [
        "CREATE TABLE staging (job_id text, cluster text, name text, queue text, qos text, owner_kind text, \
         label text, submit_ms bigint, start_ms bigint, end_ms bigint, gpus double precision, \
         gpu_util_pct double precision, time_limit bigint, gpu_type text)"
            .to_string(),
        format!("\\copy staging FROM '{}' CSV HEADER", csv.display()),
        "CREATE TABLE jobs AS SELECT job_id, cluster, name, queue, qos, owner_kind, label, \
         to_timestamp(submit_ms / 1000.0) AS submit, to_timestamp(start_ms / 1000.0) AS start, \
         to_timestamp(end_ms / 1000.0) AS \"end\", gpus, gpu_util_pct, time_limit, gpu_type FROM staging"
            .to_string(),
    ];
    for statement in statements {
        psql(port, &statement);
    }
}

#[test]
fn postgresql_audits_the_fixture_as_the_in_process_audit_does() {
    let Some(engines) = engines_with("lib/libadbc_driver_postgresql.so") else {
        return;
    };
    let Some(bin) = server_bin().filter(|_| on_path("psql")) else {
        let message = "PostgreSQL's server or psql is not installed: the warehouse test against it is SKIPPED \
                       (apt-get install postgresql)";
        assert!(
            std::env::var_os("CI").is_none(),
            "{message}; CI must have it (.ci/run installs it)"
        );
        eprintln!("\n!!!!!!!! {message} !!!!!!!!\n");
        return;
    };
    let server = start_postgres(&bin);
    let home = tempfile::tempdir().expect("tempdir");
    let (parquet, csv) = (home.path().join("jobs.parquet"), home.path().join("jobs.csv"));
    write_fixture(&parquet);
    write_fixture_csv(&csv);
    // The server's user reads the CSV through psql's \copy (the client reads it): no permission needed.
    load_fixture(server.port, &csv);
    let in_process = audit_json(home.path(), &[&parquet.display().to_string()], None);
    let uri = format!("postgresql://postgres@127.0.0.1:{}/postgres", server.port);
    let flags = [
        "--warehouse-driver",
        "postgresql",
        "--warehouse-uri",
        &uri,
        "--warehouse-from",
        "jobs",
    ];
    let warehouse = audit_json(home.path(), &flags, Some(&engines.join("lib")));
    assert_same_audit(&in_process, &warehouse, "PostgreSQL");
    let in_passes = [&flags[..], &["--warehouse-passes", "4"]].concat();
    let passes = audit_json(home.path(), &in_passes, Some(&engines.join("lib")));
    assert_same_audit(&in_process, &passes, "PostgreSQL in 4 passes");
    let file = parquet.display().to_string();
    assert_same_window(
        home.path(),
        &file,
        &flags,
        &[("GPUPLAN_ADBC_PATH", engines.join("lib").display().to_string())],
        "PostgreSQL",
    );
    a_hundred_thousand_runs_are_not_joined_row_by_row(server.port, home.path(), &uri, &engines.join("lib"));
}

/// PostgreSQL estimates a common table expression's rows without statistics (the checked rows
/// of 200,000 runs as 72) and had joined the runs to their jobs in nested loops: 200,000 runs
/// ran past 9 minutes. The session turns nested loops off; 100,000 runs take seconds.
fn a_hundred_thousand_runs_are_not_joined_row_by_row(port: u16, home: &Path, uri: &str, lib: &Path) {
    let runs = 100_000;
    psql(
        port,
        &format!(
            "CREATE TABLE many AS SELECT 'j' || (g / 2) AS job_id, 'c' || (g % 5) AS cluster, \
             (ARRAY['train-', 'serve-', 'sweep-', 'eval-'])[1 + g % 4] || (g % 5000) AS name, \
             (ARRAY['prod', 'batch', 'dev', NULL])[1 + g % 4] AS queue, \
             timestamptz '2026-09-01' + make_interval(secs => g * 7) AS start, \
             timestamptz '2026-09-01' + make_interval(secs => g * 7 + (g % 300) * 60) AS \"end\", \
             (1 + g % 8)::double precision AS gpus, (g % 100)::double precision AS gpu_util_pct \
             FROM generate_series(1, {runs}) g"
        ),
    );
    // Bounded: row by row, the audit would hold the test for many minutes.
    let lib = lib.display().to_string();
    let (code, stdout, stderr, took) = crate::common::gpuplan_within(
        home,
        &[
            "audit",
            "--all-time",
            "--format",
            "json",
            "--warehouse-driver",
            "postgresql",
            "--warehouse-uri",
            uri,
            "--warehouse-from",
            "many",
        ],
        &[("GPUPLAN_ADBC_PATH", lib.as_str())],
        Duration::from_secs(60),
    );
    assert!(
        code.is_some(),
        "the audit of 100,000 runs in PostgreSQL ran past a minute ({took:?})"
    );
    assert_eq!(code, Some(0), "{stderr}");
    let many: serde_json::Value = serde_json::from_str(&stdout).expect("the audit's JSON");
    assert_eq!(many["runs_total"], runs, "{many:#}");
}

fn psql(port: u16, statement: &str) {
    let out = Command::new("psql")
        .args(psql_args(port))
        .args(["-c", statement])
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "psql {statement}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
