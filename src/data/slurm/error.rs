//! What can go wrong asking Slurm: sacct missing, failing in its own words, too slow, too much.

use crate::data::error::DataError;

#[derive(Debug, Clone, thiserror::Error)]
pub enum SlurmError {
    #[error("could not run sacct ({why}); give its path with --slurm-sacct or [slurm] sacct\n  command: {command}")]
    CannotStart { command: String, why: String },
    #[error("sacct failed ({}): {}\n  command: {command}", .status.map_or("killed by a signal".to_string(), |c| format!("exit {c}")), if .stderr.is_empty() { "it printed nothing on stderr" } else { .stderr.as_str() })]
    Failed {
        command: String,
        status: Option<i32>,
        stderr: String,
    },
    #[error(
        "sacct did not finish within {seconds} s (its output still open at the deadline) and was stopped with every process it started: give a longer --slurm-timeout, or smaller pieces with --slurm-piece-days\n  command: {command}"
    )]
    TimedOut { command: String, seconds: u64 },
    #[error("sacct printed more than {} MB for one piece and was stopped: give smaller pieces with --slurm-piece-days\n  command: {command}", .max_bytes / 1_000_000)]
    TooLarge { command: String, max_bytes: u64 },
    #[error("what sacct printed is not what gpuplan asked for: {error}\n  command: {command}")]
    Unreadable { command: String, error: DataError },
    #[error(
        "sacct returned no job of {clusters} from {window}: check the names with `sacctmgr list clusters` and the window with --days or --since\n  command: {command}"
    )]
    NoJobs {
        clusters: String,
        window: String,
        command: String,
    },
    #[error("the window is empty: --since must come before --until")]
    EmptyWindow,
}
