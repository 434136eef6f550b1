//! Issue 67, finding 6: a log that is not a regular file. A named pipe nobody wrote to hung
//! gpuplan with no output; with a writer it still blocked, because the path was opened twice
//! (once to recognise the layout, once to read); a pipe given as a path (`<(cat f)`) was refused
//! as empty. A pipe is now read once, to its end, into a file of its own name, and every step
//! reads that; a pipe with no writer is refused after a bounded wait, a device at once.

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{SAMPLE_LOG, gpuplan_in};

fn jobs_total(stdout: &str) -> u64 {
    let report: serde_json::Value = serde_json::from_str(stdout).expect("JSON");
    report["jobs_total"].as_u64().expect("jobs_total")
}

fn mkfifo(path: &std::path::Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success());
}

#[test]
fn a_named_pipe_is_read_once_and_one_nobody_writes_to_is_refused_not_waited_on() {
    let home = tempfile::tempdir().expect("home");
    let expected =
        jobs_total(&gpuplan_in(home.path(), &["audit", SAMPLE_LOG, "--all-time", "--format", "json"]).stdout);
    let fifo = home.path().join("jobs.csv");
    mkfifo(&fifo);
    let fifo_arg = fifo.to_str().expect("path");
    // A writer that writes the whole log and closes: read once, every job counted.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut pipe = std::fs::OpenOptions::new().write(true).open(fifo).expect("writer");
            pipe.write_all(&std::fs::read(SAMPLE_LOG).expect("sample"))
                .expect("write");
        })
    };
    let run = gpuplan_in(home.path(), &["audit", fifo_arg, "--all-time", "--format", "json"]);
    writer.join().expect("writer done");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(jobs_total(&run.stdout), expected);
    // Nobody writing: refused within the patience, naming what the path is.
    let started = Instant::now();
    let run = gpuplan_in(home.path(), &["audit", fifo_arg, "--all-time"]);
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("a pipe, not a file: nothing was written to it"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("jobs.csv"), "{}", run.stderr);
}

#[test]
fn a_pipe_given_as_a_path_is_read_and_a_device_is_refused_at_once() {
    let home = tempfile::tempdir().expect("home");
    let expected =
        jobs_total(&gpuplan_in(home.path(), &["audit", SAMPLE_LOG, "--all-time", "--format", "json"]).stdout);
    // What `<(cat jobs.csv)` hands a program: /dev/fd/N, the read end of a pipe.
    let binary = env!("CARGO_BIN_EXE_gpuplan");
    let script = format!("exec '{binary}' audit <(cat '{SAMPLE_LOG}') --all-time --format json");
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env("GPUPLAN_CONFIG_DIR", home.path().join("config"))
        .env("GPUPLAN_DATA_DIR", home.path().join("data"))
        .env("GPUPLAN_CACHE_DIR", home.path().join("cache"))
        .output()
        .expect("bash");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(jobs_total(&String::from_utf8_lossy(&out.stdout)), expected);
    let started = Instant::now();
    let run = gpuplan_in(home.path(), &["audit", "/dev/zero"]);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("/dev/zero: a character device"), "{}", run.stderr);
}
