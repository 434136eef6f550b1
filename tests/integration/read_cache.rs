//! The cache of reads, end to end with the real binary: a second open of unchanged logs reads
//! the cache and gives the same bytes; a changed log (same size and time), a changed mapping
//! or a damaged entry is read again; `--no-cache`, `gpuplan cache clear` and the size bound.

use std::path::{Path, PathBuf};

use crate::common::{cache_entries as entries, gpuplan_in, gpuplan_with, without_input_warnings};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");

/// The report's JSON on `log` and whether its read came from the cache.
fn report(home: &Path, log: &Path, extra: &[&str]) -> (String, bool) {
    let log = log.to_str().expect("utf-8");
    let mut args = vec!["report", "--logs", log, "--format", "json"];
    args.extend_from_slice(extra);
    let run = gpuplan_with(home, &args, &[("GPUPLAN_TIMINGS", "1")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let cached = run.stderr.contains("timing: read from the cache:");
    assert!(cached || run.stderr.contains("timing: read:"), "{}", run.stderr);
    (run.stdout, cached)
}

/// A report's figures: its JSON with the inputs' warnings emptied.
fn without_inputs(json: &str) -> serde_json::Value {
    without_input_warnings(&serde_json::from_str(json).expect("JSON"))
}

fn copy_of_sample(home: &Path) -> PathBuf {
    let log = home.join("jobs.csv");
    std::fs::copy(SAMPLE, &log).expect("copy");
    log
}

fn info(home: &Path) -> String {
    let run = gpuplan_in(home, &["cache", "info"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn a_second_open_reads_the_cache_and_gives_the_same_bytes() {
    let home = tempfile::tempdir().expect("home");
    let log = copy_of_sample(home.path());
    let (first, cached) = report(home.path(), &log, &[]);
    assert!(!cached, "nothing kept yet");
    assert_eq!(entries(home.path()).len(), 1);
    let (second, cached) = report(home.path(), &log, &[]);
    assert!(cached, "the unchanged log is read from the cache");
    assert_eq!(first, second);
    let (uncached, cached) = report(home.path(), &log, &["--no-cache"]);
    assert!(!cached);
    assert_eq!(first, uncached, "--no-cache reads the bytes and agrees");
    assert!(info(home.path()).contains(": 1 kept read,"), "{}", info(home.path()));
}

#[test]
fn a_log_changed_in_place_with_its_size_and_time_kept_is_read_again() {
    let home = tempfile::tempdir().expect("home");
    let log = copy_of_sample(home.path());
    let (first, _) = report(home.path(), &log, &[]);
    let modified = std::fs::metadata(&log).and_then(|m| m.modified()).expect("mtime");
    // One GPU count changed digit for digit: the same size; the time put back.
    let text = std::fs::read_to_string(&log).expect("log");
    let line = text.lines().nth(1).expect("a job");
    let fields: Vec<&str> = line.split(',').collect();
    let header: Vec<&str> = text.lines().next().expect("header").split(',').collect();
    let gpus = header.iter().position(|h| *h == "gpus").expect("a gpus column");
    let digit = fields[gpus].chars().next().expect("a count");
    let other = if digit == '9' { '8' } else { char::from(digit as u8 + 1) };
    let mut changed_fields = fields.clone();
    let replaced = format!("{other}{}", &fields[gpus][1..]);
    changed_fields[gpus] = &replaced;
    let changed = text.replacen(line, &changed_fields.join(","), 1);
    assert_eq!(changed.len(), text.len());
    std::fs::write(&log, changed).expect("write");
    std::fs::File::options()
        .write(true)
        .open(&log)
        .and_then(|f| f.set_modified(modified))
        .expect("mtime back");
    let (second, cached) = report(home.path(), &log, &[]);
    assert!(!cached, "the bytes changed");
    assert_ne!(first, second, "the changed job counts");
}

#[test]
fn a_changed_mapping_is_read_again() {
    let home = tempfile::tempdir().expect("home");
    let log = copy_of_sample(home.path());
    let mapping = home.path().join("mapping.toml");
    let init = gpuplan_in(
        home.path(),
        &[
            "mapping",
            "init",
            log.to_str().expect("utf-8"),
            "-o",
            mapping.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(init.code, 0, "{}", init.stderr);
    let args = ["--mapping", mapping.to_str().expect("utf-8")];
    let log_arg = log.to_str().expect("utf-8");
    let audit = |extra: &[&str]| {
        let mut all = vec!["backtest", log_arg, "--holdout-days", "14", "--format", "json"];
        all.extend_from_slice(extra);
        gpuplan_with(home.path(), &all, &[])
    };
    assert_eq!(audit(&args).code, 0);
    let before = entries(home.path());
    assert_eq!(before.len(), 1);
    std::fs::write(
        &mapping,
        std::fs::read_to_string(&mapping).expect("mapping") + "\n# edited\n",
    )
    .expect("edit");
    assert_eq!(audit(&args).code, 0);
    let after = entries(home.path());
    assert_eq!(after.len(), 2, "a second entry for the edited mapping: {after:?}");
}

#[test]
fn a_damaged_entry_is_not_trusted_but_read_again_and_replaced() {
    let home = tempfile::tempdir().expect("home");
    let log = copy_of_sample(home.path());
    let (first, _) = report(home.path(), &log, &[]);
    let entry = entries(home.path()).pop().expect("an entry");
    let runs = entry.join("runs.parquet");
    let bytes = std::fs::read(&runs).expect("runs");
    std::fs::write(&runs, &bytes[..bytes.len() / 2]).expect("truncate");
    let (second, cached) = report(home.path(), &log, &[]);
    assert!(!cached, "a truncated frame is never read");
    // The figures are the first read's; the report says the kept read was damaged.
    assert_eq!(without_inputs(&first), without_inputs(&second));
    assert!(second.contains("the cached read was damaged"), "said in the report");
    // Flipped bytes of the same length: caught by the checksum.
    let mut flipped = std::fs::read(&runs).expect("runs rewritten");
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0xff;
    std::fs::write(&runs, &flipped).expect("flip");
    let (third, cached) = report(home.path(), &log, &[]);
    assert!(!cached);
    assert_eq!(without_inputs(&first), without_inputs(&third));
    assert!(third.contains("the cached read was damaged"), "said in the report");
    let (fourth, cached) = report(home.path(), &log, &[]);
    assert!(cached, "replaced by a whole entry");
    assert_eq!(first, fourth);
}

#[test]
fn no_cache_writes_nothing_the_bound_keeps_nothing_too_big_and_clear_empties() {
    let home = tempfile::tempdir().expect("home");
    let log = copy_of_sample(home.path());
    report(home.path(), &log, &["--no-cache"]);
    assert!(entries(home.path()).is_empty());
    let log_arg = log.to_str().expect("utf-8");
    let bounded = gpuplan_with(
        home.path(),
        &["report", "--logs", log_arg, "--format", "json"],
        &[("GPUPLAN_CACHE_MAX_MB", "0")],
    );
    assert_eq!(bounded.code, 0, "{}", bounded.stderr);
    assert!(entries(home.path()).is_empty(), "larger than a bound of 0 MiB");
    report(home.path(), &log, &[]);
    assert_eq!(entries(home.path()).len(), 1);
    let clear = gpuplan_in(home.path(), &["cache", "clear"]);
    assert_eq!(clear.code, 0, "{}", clear.stderr);
    assert!(clear.stdout.starts_with("removed 1 kept read"), "{}", clear.stdout);
    assert!(entries(home.path()).is_empty());
    assert!(info(home.path()).contains(": 0 kept reads,"));
}
