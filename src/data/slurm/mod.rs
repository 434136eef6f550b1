//! Slurm's accounting read live: gpuplan runs `sacct` over the audit's window, a piece at a
//! time, and reads what it prints with the same reader as an exported file
//! (`data::readers::slurm`), in memory, with no temporary file.
//!
//! - `command`: the fields and flags of each call, and the window's pieces;
//! - `run`: one call, read as it prints, under a timeout;
//! - `error`: what went wrong, in sacct's own words with the command that was run.

pub mod command;
pub mod error;
pub mod run;

use std::path::Path;
use std::time::Duration;

use self::command::{pieces, sacct_args, shown_command};
use self::error::SlurmError;
use self::run::run_sacct;
use crate::data::readers::slurm::{SacctLog, read_sacct_detailed};
use crate::model::fleet::iso_utc;
use crate::model::plan::SlurmSource;

/// The cluster a row is put in when sacct prints none (it always does with `Cluster`).
const CLUSTER_WHEN_UNNAMED: &str = "slurm";

/// The most one piece's output may hold before the call is stopped: 4 GB, several million
/// rows, far more than a week of a busy site, well within the machine's memory.
pub const MAX_PIECE_BYTES: u64 = 4_000_000_000;

/// Where a pull is: which call, of how many, and the rows read so far in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SacctProgress {
    pub piece: usize,
    pub pieces: usize,
    pub rows: u64,
}

/// Everything sacct gave over the window.
#[derive(Debug, Clone)]
pub struct SacctPull {
    pub log: SacctLog,
    /// Calls made.
    pub pieces: usize,
    /// Rows sacct printed in all (allocations and steps, before any was folded).
    pub rows: u64,
    /// Rows printed by more than one piece (jobs across a boundary): kept once.
    pub repeated_rows: u64,
    /// The first call, as a person would type it.
    pub first_command: String,
    /// Clusters named that no row came from (sacct does not say when a name is unknown).
    pub missing_clusters: Vec<String>,
    /// Calls that exited while a process they started kept their output open (stopped
    /// `run::OUTPUT_AFTER_EXIT` later; their output was read).
    pub lingering_calls: usize,
}

/// Runs sacct over `start_ms..end_ms` in pieces and reads every piece's output into one log.
pub fn pull_sacct(
    source: &SlurmSource,
    start_ms: i64,
    end_ms: i64,
    progress: &mut dyn FnMut(SacctProgress),
) -> Result<SacctPull, SlurmError> {
    pull_sacct_limited(source, start_ms, end_ms, MAX_PIECE_BYTES, progress)
}

fn pull_sacct_limited(
    source: &SlurmSource,
    start_ms: i64,
    end_ms: i64,
    max_piece_bytes: u64,
    progress: &mut dyn FnMut(SacctProgress),
) -> Result<SacctPull, SlurmError> {
    let cut = pieces(start_ms, end_ms, source.piece_days);
    if cut.is_empty() {
        return Err(SlurmError::EmptyWindow);
    }
    let timeout = Duration::from_secs(u64::from(source.timeout_seconds.max(1)));
    let mut log = SacctLog::default();
    let (mut rows, mut repeated_rows, mut lingering_calls) = (0, 0, 0);
    let mut first_command = String::new();
    for (index, piece) in cut.iter().enumerate() {
        let args = sacct_args(source, *piece);
        let command = shown_command(&source.sacct, &args);
        if index == 0 {
            first_command = command.clone();
        }
        let before = rows;
        let mut tell = |piece_rows: u64| {
            progress(SacctProgress {
                piece: index + 1,
                pieces: cut.len(),
                rows: before + piece_rows,
            })
        };
        let output = run_sacct(&source.sacct, &args, timeout, max_piece_bytes, &mut tell)?;
        rows += output.rows;
        lingering_calls += usize::from(output.lingered);
        if output.text.trim().is_empty() {
            continue;
        }
        // Rejected rows are named by the call that printed them and their line in its output.
        let shown = format!("sacct piece {} of {}", index + 1, cut.len());
        let piece_log = read_sacct_detailed(Path::new(&shown), &output.text, CLUSTER_WHEN_UNNAMED)
            .map_err(|error| SlurmError::Unreadable { command, error })?;
        repeated_rows += log.absorb(piece_log);
    }
    if log.runs.is_empty() && log.pending.is_empty() {
        let clusters = match source.clusters.as_slice() {
            [] => "any cluster".to_string(),
            named => named.join(", "),
        };
        let (first, last) = (cut[0], cut[cut.len() - 1]);
        return Err(SlurmError::NoJobs {
            clusters,
            window: format!("{} to {}", iso_utc(first.start_ms), iso_utc(last.end_ms)),
            command: first_command,
        });
    }
    let seen: std::collections::HashSet<&str> = log
        .runs
        .iter()
        .map(|r| r.cluster.as_str())
        .chain(log.pending.iter().map(|p| p.cluster.as_str()))
        .collect();
    let missing: Vec<String> = source
        .clusters
        .iter()
        .filter(|c| !seen.contains(c.as_str()))
        .cloned()
        .collect();
    Ok(SacctPull {
        missing_clusters: missing,
        log,
        pieces: cut.len(),
        rows,
        repeated_rows,
        first_command,
        lingering_calls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORDING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/slurm/replay-sacct.sh");

    /// A stand-in sacct written into `dir`: a shell script with `body`.
    fn stand_in(dir: &Path, body: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("sacct");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("executable");
        path.display().to_string()
    }

    fn source(sacct: String, timeout_seconds: u32) -> SlurmSource {
        SlurmSource {
            sacct,
            timeout_seconds,
            piece_days: 1,
            ..SlurmSource::default()
        }
    }

    const DAY: i64 = 86_400_000;

    #[test]
    fn two_pieces_printing_the_same_jobs_keep_each_once_and_count_the_repeats() {
        let pull = pull_sacct(&source(RECORDING.into(), 30), 0, 2 * DAY, &mut |_| {}).expect("read");
        assert_eq!(pull.pieces, 2);
        assert_eq!(pull.log.runs.len(), 9);
        // The second call's nine runs and one pending job were all read before.
        assert_eq!(pull.repeated_rows, 10);
        assert!(pull.missing_clusters.is_empty());
    }

    #[test]
    fn a_call_past_its_size_or_its_time_is_stopped_and_a_failure_keeps_sacct_s_words() {
        let too_much = pull_sacct_limited(&source(RECORDING.into(), 30), 0, DAY, 100, &mut |_| {});
        assert!(
            matches!(too_much, Err(SlurmError::TooLarge { max_bytes: 100, .. })),
            "{too_much:?}"
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let slow = stand_in(dir.path(), "sleep 30");
        let started = std::time::Instant::now();
        let timed_out = pull_sacct(&source(slow, 1), 0, DAY, &mut |_| {});
        assert!(
            matches!(timed_out, Err(SlurmError::TimedOut { seconds: 1, .. })),
            "{timed_out:?}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        let dir = tempfile::tempdir().expect("tempdir");
        let failing = stand_in(
            dir.path(),
            "echo 'sacct: error: Problem talking to the database' >&2; exit 1",
        );
        match pull_sacct(&source(failing, 30), 0, DAY, &mut |_| {}) {
            Err(SlurmError::Failed {
                status,
                stderr,
                command,
            }) => {
                assert_eq!(status, Some(1));
                assert_eq!(stderr, "sacct: error: Problem talking to the database");
                assert!(command.contains("-a -D -P"), "{command}");
            }
            other => panic!("{other:?}"),
        }
    }
}
