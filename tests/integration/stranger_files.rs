//! What a plan or a mapping from someone else can make gpuplan do, watched from outside with
//! strace: it reads the files they name and its own, writes only where it was asked to (the SVG
//! folder), runs no other program, and never prints or writes a token it was given by name.
//!
//! strace ships with Debian; without it these tests say so and are skipped, except under CI
//! (`CI` set), where they fail: `.ci/run` installs it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

const SECRET: &str = "tok-3f9c2a-never-print-me";

fn strace_available() -> bool {
    let found = Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        let message = "strace is not installed: the stranger-file tests are skipped";
        assert!(
            std::env::var_os("CI").is_none(),
            "{message}; CI must have it (.ci/run installs it)"
        );
        eprintln!("WARNING: {message}");
    }
    found
}

/// What one traced run did.
struct Traced {
    code: i32,
    stdout: String,
    stderr: String,
    /// Programs started (execve), the first being gpuplan itself.
    executed: Vec<String>,
    /// Files opened for reading and for writing, as the calls named them.
    read: Vec<PathBuf>,
    written: Vec<PathBuf>,
    renamed_to: Vec<PathBuf>,
}

fn quoted(line: &str, nth: usize) -> Option<String> {
    line.split('"').nth(nth * 2 + 1).map(str::to_string)
}

fn traced(home: &Path, args: &[&str]) -> Traced {
    let log = home.join("strace.log");
    let output = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=execve,open,openat,creat,rename,renameat,renameat2",
            "-o",
        ])
        .arg(&log)
        .arg(env!("CARGO_BIN_EXE_gpuplan"))
        .args(args)
        .env("GPUPLAN_CONFIG_DIR", home.join("config"))
        .env("GPUPLAN_DATA_DIR", home.join("data"))
        .env("GPUPLAN_CACHE_DIR", home.join("cache"))
        .env("GPUPLAN_TEST_TOKEN", SECRET)
        .output()
        .expect("strace runs");
    let text = std::fs::read_to_string(&log).expect("the trace");
    let (mut executed, mut read, mut written, mut renamed_to) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for line in text.lines() {
        if line.contains("= -1 ") {
            continue; // a call that failed did nothing
        }
        if line.contains("execve(") {
            executed.extend(quoted(line, 0));
        } else if line.contains("rename") {
            // renameat(AT_FDCWD, "from", AT_FDCWD, "to"): the second quoted path.
            renamed_to.extend(quoted(line, 1).map(PathBuf::from));
        } else if line.contains("open") || line.contains("creat(") {
            let Some(path) = quoted(line, 0) else { continue };
            let writes = ["O_WRONLY", "O_RDWR", "O_CREAT", "creat("]
                .iter()
                .any(|f| line.contains(f));
            if writes {
                written.push(PathBuf::from(path));
            } else {
                read.push(PathBuf::from(path));
            }
        }
    }
    Traced {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        executed,
        read,
        written,
        renamed_to,
    }
}

/// A stranger's plan and mapping in `dir`: the sample log, a user-latency CSV, a Prometheus
/// table whose token comes from an environment variable by name.
fn stranger_files(dir: &Path) -> PathBuf {
    let log = dir.join("their-jobs.csv");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv"), &log).expect("log");
    std::fs::write(
        dir.join("users.csv"),
        "location,users_frac,round_trip_ms\nLondon,0.6,20\nParis,0.3,30\n",
    )
    .expect("csv");
    // A file beside them that nothing names: it must not be read.
    std::fs::write(dir.join("private.txt"), "nothing names me").expect("private");
    let text = common::default_plan_text();
    let at = text.find("\n[reliability]").expect("reliability");
    let plan = format!(
        "{}\nusers_csv = \"users.csv\"\n{}\n[[logs]]\npath = \"{}\"\n",
        &text[..at],
        &text[at..],
        log.display()
    );
    let path = dir.join("their-plan.toml");
    std::fs::write(&path, plan).expect("plan");
    path
}

fn is_system(path: &Path) -> bool {
    ["/etc/", "/lib", "/usr/", "/proc/", "/sys/", "/dev/"]
        .iter()
        .any(|prefix| path.starts_with(prefix))
}

#[test]
fn a_strangers_plan_reads_what_it_names_writes_nothing_and_runs_nothing() {
    if !strace_available() {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let files = tempfile::tempdir().expect("their files");
    let plan = stranger_files(files.path());
    let plan_arg = plan.to_str().expect("utf-8");
    for args in [
        vec!["report", "--plan", plan_arg, "--format", "json"],
        vec!["audit", "--plan", plan_arg],
        vec!["check", "--plan", plan_arg],
    ] {
        let run = traced(home.path(), &args);
        assert!(run.code == 0 || run.code == 1, "{args:?}: {}", run.stderr);
        assert_eq!(run.executed.len(), 1, "{args:?} started {:?}", run.executed);
        assert!(run.executed[0].ends_with("gpuplan"), "{:?}", run.executed);
        let writes: Vec<&PathBuf> = run
            .written
            .iter()
            .chain(&run.renamed_to)
            // The user's own cache of reads is the one place a read of their logs is kept.
            .filter(|p| {
                !p.starts_with("/dev/")
                    && !p.starts_with(home.path().join("strace.log"))
                    && !p.starts_with(home.path().join("cache"))
            })
            .collect();
        assert!(writes.is_empty(), "{args:?} wrote {writes:?}");
        let theirs: Vec<&PathBuf> = run.read.iter().filter(|p| p.starts_with(files.path())).collect();
        assert!(!theirs.is_empty(), "{args:?} read none of the stranger's files");
        for path in &theirs {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            assert!(
                ["their-plan.toml", "their-jobs.csv", "users.csv"].contains(&name),
                "{args:?} read {} which nothing names",
                path.display()
            );
        }
        for path in run
            .read
            .iter()
            .filter(|p| !is_system(p) && !p.starts_with(files.path()))
        {
            assert!(
                path.starts_with(home.path())
                    || path.ends_with("gpuplan")
                    || path.starts_with(env!("CARGO_MANIFEST_DIR")),
                "{args:?} read {} outside the named files, its own folders and the system",
                path.display()
            );
        }
    }
}

#[test]
fn a_token_given_by_name_is_never_printed_or_written() {
    if !strace_available() {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let files = tempfile::tempdir().expect("their files");
    let plan = stranger_files(files.path());
    // The plan names the variable, never the token; the server refuses the connection.
    let mut text = std::fs::read_to_string(&plan).expect("plan");
    text.push_str(
        "\n[prometheus]\nurl = \"http://127.0.0.1:9\"\ntoken_env = \"GPUPLAN_TEST_TOKEN\"\ntimeout_seconds = 1\n",
    );
    let with_token = files.path().join("their-plan-with-token.toml");
    std::fs::write(&with_token, &text).expect("plan");
    let token_arg = with_token.to_str().expect("utf-8");
    let plan_arg = plan.to_str().expect("utf-8");
    let svg = home.path().join("charts");
    let svg_arg = svg.to_str().expect("utf-8");
    for args in [
        vec!["audit", "--plan", token_arg, "--format", "json"],
        vec!["report", "--plan", token_arg, "--format", "json"],
        vec!["report", "--plan", plan_arg, "--svg", svg_arg],
    ] {
        let run = traced(home.path(), &args);
        assert!(
            !run.stdout.contains(SECRET) && !run.stderr.contains(SECRET),
            "{args:?} printed the token"
        );
        if args.contains(&"--svg") {
            // The trace sees writes: the charts asked for are there.
            assert!(run.written.iter().any(|p| p.starts_with(&svg)), "{:?}", run.written);
        }
        for path in run.written.iter().chain(&run.renamed_to) {
            if path.starts_with("/dev/") || path.ends_with("strace.log") {
                continue;
            }
            assert!(
                path.starts_with(&svg) || path.starts_with(home.path().join("cache")),
                "{args:?} wrote {} outside the SVG folder",
                path.display()
            );
            if let Ok(written) = std::fs::read_to_string(path) {
                assert!(!written.contains(SECRET), "{} holds the token", path.display());
            }
        }
    }
    assert!(!std::fs::read_to_string(&with_token).expect("plan").contains(SECRET));
}
