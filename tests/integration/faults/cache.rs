//! Faults: the cache of reads (issue 54, findings 1-3), with the real binary on real files. A
//! log over 64 MiB rewritten with its size and time kept is read again; a log truncated while
//! read is said to have changed and its read is not kept; a flipped byte in a cached frame,
//! cached rows outside the readers' bounds and an edited index are damage, read again and said
//! on the input; a staging folder left by a stopped write is counted and then removed.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use polars::prelude::*;
use serde_json::Value;

use crate::common::{SAMPLE_LOG, cache_entries as entries, gpuplan_in, gpuplan_with, without_input_warnings};

const CHANGED: &str = "changed while read: figures may mix old and new rows";
const DAMAGED: &str = "the cached read was damaged (";

/// A CSV log over 64 MiB: the sample's rows repeated, each copy with job ids of its own.
fn large_log(path: &Path) -> Vec<u8> {
    let sample = std::fs::read_to_string(SAMPLE_LOG).expect("sample");
    let (header, rows) = sample.split_once('\n').expect("a header");
    let mut text = String::with_capacity(72 << 20);
    text.push_str(header);
    text.push('\n');
    let mut copy = 0;
    while text.len() <= 66 << 20 {
        for row in rows.lines() {
            text.push_str(&format!("c{copy}-{row}\n"));
        }
        copy += 1;
    }
    std::fs::write(path, &text).expect("log");
    text.into_bytes()
}

/// `gpuplan audit LOG --format json`: the document, its `inputs[]` with their warnings.
fn audit(home: &Path, log: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["audit", log.to_str().expect("utf-8"), "--format", "json"];
    args.extend_from_slice(extra);
    let run = gpuplan_in(home, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// Whether a read of `log` comes from the cache (`report`'s timings say; its key is the audit's).
fn from_cache(home: &Path, log: &Path) -> bool {
    let args = ["report", "--logs", log.to_str().expect("utf-8"), "--format", "json"];
    let run = gpuplan_with(home, &args, &[("GPUPLAN_TIMINGS", "1")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let cached = run.stderr.contains("timing: read from the cache:");
    assert!(cached || run.stderr.contains("timing: read:"), "{}", run.stderr);
    cached
}

fn warnings(document: &Value) -> Vec<String> {
    document["inputs"][0]["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w.as_str().expect("text").to_string())
        .collect()
}

fn set_modified(path: &Path, modified: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(modified))
        .expect("mtime back");
}

#[test]
fn a_large_log_rewritten_with_its_size_and_time_kept_is_read_again() {
    let home = tempfile::tempdir().expect("home");
    let log = home.path().join("jobs.csv");
    let mut bytes = large_log(&log);
    let first = audit(home.path(), &log, &[]);
    assert_eq!(entries(home.path()).len(), 1);
    assert!(
        from_cache(home.path(), &log),
        "the unchanged log is read from the cache"
    );
    let modified = std::fs::metadata(&log).and_then(|m| m.modified()).expect("mtime");
    // One job's GPU count, halfway between two of the 256 blocks of 64 KiB the old fingerprint read.
    let last = bytes.len() - (64 << 10);
    let at = last * 100 / 255 + (64 << 10) + (last / 255 - (64 << 10)) / 2;
    let line_start = at + bytes[at..].iter().position(|b| *b == b'\n').expect("a line") + 1;
    let gpus_at = line_start
        + bytes[line_start..]
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b',')
            .nth(7)
            .expect("a gpus field")
            .0
        + 1;
    bytes[gpus_at] = if bytes[gpus_at] == b'7' { b'3' } else { b'7' };
    std::fs::write(&log, &bytes).expect("rewrite");
    set_modified(&log, modified);
    let second = audit(home.path(), &log, &[]);
    let uncached = audit(home.path(), &log, &["--no-cache"]);
    assert_eq!(
        second, uncached,
        "the new figures, though the size and time did not change"
    );
    assert_ne!(first, second);
}

/// Starts an audit of `log`, truncates the log to `keep` bytes after `delay`, and gives the run's
/// exit code and document.
fn audit_truncated_after(home: &Path, log: &Path, keep: u64, delay: Duration) -> (Option<i32>, String, String) {
    let child = crate::common::gpuplan_command(home, &["audit", log.to_str().expect("utf-8"), "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gpuplan runs");
    std::thread::sleep(delay);
    std::fs::File::options()
        .write(true)
        .open(log)
        .and_then(|f| f.set_len(keep))
        .expect("truncate");
    let output = child.wait_with_output().expect("the run ends");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_log_truncated_while_read_is_said_and_not_kept() {
    let home = tempfile::tempdir().expect("home");
    let log = home.path().join("jobs.csv");
    let whole = large_log(&log);
    let full = audit(home.path(), &log, &["--no-cache"]);
    let full_rows = full["inputs"][0]["rows"].as_u64().expect("rows");
    // 39 % of the bytes, at a line's end.
    let keep = whole[..whole.len() * 39 / 100]
        .iter()
        .rposition(|b| *b == b'\n')
        .expect("a line") as u64
        + 1;
    let mut landed = false;
    for delay_ms in [150, 80, 250, 40, 400, 120, 600, 20, 900, 60] {
        let _ = std::fs::remove_dir_all(home.path().join("cache"));
        std::fs::write(&log, &whole).expect("log whole again");
        let modified = std::fs::metadata(&log).and_then(|m| m.modified()).expect("mtime");
        let (code, stdout, stderr) = audit_truncated_after(home.path(), &log, keep, Duration::from_millis(delay_ms));
        assert_eq!(code, Some(0), "{stderr}");
        let document: Value = serde_json::from_str(&stdout).expect("JSON");
        if !warnings(&document).iter().any(|w| w == CHANGED) {
            // The truncation came before the read began or after it ended: one file, read whole.
            continue;
        }
        landed = true;
        assert!(entries(home.path()).is_empty(), "a read of a changing log is not kept");
        // Restored with its time: read again, whole.
        std::fs::write(&log, &whole).expect("restore");
        set_modified(&log, modified);
        let restored = audit(home.path(), &log, &[]);
        assert_eq!(restored["inputs"][0]["rows"].as_u64(), Some(full_rows));
        assert!(warnings(&restored).is_empty(), "{:?}", warnings(&restored));
        break;
    }
    assert!(landed, "no truncation landed during a read in ten tries");
}

/// A cache holding a read of the sample log; the log and the entry's folder.
fn cached_sample(home: &Path) -> (PathBuf, Value, PathBuf) {
    let log = home.join("jobs.csv");
    std::fs::copy(SAMPLE_LOG, &log).expect("copy");
    let first = audit(home, &log, &[]);
    let entry = entries(home).pop().expect("an entry");
    (log, first, entry)
}

/// The second audit reads the log again and says the entry was damaged; the third reads the
/// whole entry written meanwhile. Both give the first's figures.
fn damage_is_said_and_read_again(home: &Path, log: &Path, first: &Value, what: &str) {
    let second = audit(home, log, &[]);
    let said = warnings(&second);
    assert!(said.iter().any(|w| w.starts_with(DAMAGED)), "{what}: {said:?}");
    assert_eq!(without_input_warnings(&second), without_input_warnings(first), "{what}");
    assert!(from_cache(home, log), "{what}: replaced by a whole entry");
    let third = audit(home, log, &[]);
    assert_eq!(&third, first, "{what}");
}

#[test]
fn a_flipped_byte_in_a_cached_frame_is_read_again_and_said() {
    let home = tempfile::tempdir().expect("home");
    let (log, first, entry) = cached_sample(home.path());
    let runs = entry.join("runs.parquet");
    let mut bytes = std::fs::read(&runs).expect("runs");
    let at = bytes.len() / 3;
    bytes[at] ^= 0x01;
    std::fs::write(&runs, &bytes).expect("flip");
    damage_is_said_and_read_again(home.path(), &log, &first, "a flipped byte");
}

#[test]
fn an_edited_index_is_read_again_and_said() {
    let home = tempfile::tempdir().expect("home");
    let (log, first, entry) = cached_sample(home.path());
    let meta = entry.join("meta.json");
    let text = std::fs::read_to_string(&meta).expect("meta");
    let edited = regex_free_replace_rejected(&text, 7);
    assert_ne!(edited, text);
    std::fs::write(&meta, edited).expect("edit");
    damage_is_said_and_read_again(home.path(), &log, &first, "an edited meta.json");
}

/// `text` with every file's `"rejected":N` set to `to`.
fn regex_free_replace_rejected(text: &str, to: u64) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\"rejected\":") {
        let (head, tail) = rest.split_at(at + "\"rejected\":".len());
        out.push_str(head);
        out.push_str(&to.to_string());
        rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

#[test]
fn cached_rows_outside_the_readers_bounds_are_damage_not_figures() {
    let home = tempfile::tempdir().expect("home");
    let (log, first, entry) = cached_sample(home.path());
    // 5,000 % utilization on the first run, written with checksums that match: only the
    // bounds can tell.
    let runs_path = entry.join("runs.parquet");
    let mut runs = ParquetReader::new(std::fs::File::open(&runs_path).expect("runs"))
        .finish()
        .expect("frame");
    let util: Float64Chunked = runs
        .column("gpu_util_frac")
        .expect("utilization")
        .f64()
        .expect("f64")
        .iter()
        .enumerate()
        .map(|(i, v)| if i == 0 { Some(50.0) } else { v })
        .collect();
    runs.with_column(util.with_name("gpu_util_frac".into()).into_column())
        .expect("edit");
    ParquetWriter::new(std::fs::File::create(&runs_path).expect("runs"))
        .with_compression(ParquetCompression::Uncompressed)
        .finish(&mut runs)
        .expect("write");
    let bytes = std::fs::read(&runs_path).expect("runs");
    let mut meta: Value =
        serde_json::from_str(&std::fs::read_to_string(entry.join("meta.json")).expect("meta")).expect("meta JSON");
    for frame in meta["frames"].as_array_mut().expect("frames") {
        if frame["name"] == "runs.parquet" {
            frame["bytes"] = Value::from(bytes.len());
            frame["checksum"] = Value::from(format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes)));
        }
    }
    let meta = serde_json::to_string(&meta).expect("meta text");
    std::fs::write(entry.join("meta.json"), &meta).expect("meta");
    let sum = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(meta.as_bytes()));
    std::fs::write(entry.join("meta.sum"), sum).expect("sum");
    damage_is_said_and_read_again(home.path(), &log, &first, "5,000 % utilization");
}

#[test]
fn a_staging_folder_left_behind_is_counted_then_removed() {
    let home = tempfile::tempdir().expect("home");
    let (log, _, _) = cached_sample(home.path());
    // Above the largest pid_max Linux allows (2^22): no process has it.
    let left = home
        .path()
        .join("cache/reads/.0123456789abcdef-4194305-1700000000000000000");
    std::fs::create_dir(&left).expect("staging");
    std::fs::write(left.join("runs.parquet"), vec![0u8; 2 << 20]).expect("half a frame");
    let info = gpuplan_in(home.path(), &["cache", "info"]);
    assert_eq!(info.code, 0, "{}", info.stderr);
    assert!(info.stdout.contains("1 kept read,"), "{}", info.stdout);
    assert!(info.stdout.contains("1 staging folder (2 MiB)"), "{}", info.stdout);
    assert!(from_cache(home.path(), &log));
    assert!(!left.exists(), "removed by the next run");
    let info = gpuplan_in(home.path(), &["cache", "info"]);
    assert!(!info.stdout.contains("staging"), "{}", info.stdout);
}
