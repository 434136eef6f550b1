//! Why a read was not kept, or a kept one cannot be used: the cache's one error. A damaged
//! entry is removed and the logs read again, so these reach the user only as a note.

use std::path::PathBuf;

use crate::data::error::DataError;

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{frame}: {source}")]
    Parquet {
        frame: String,
        source: polars::error::PolarsError,
    },
    /// Polars' decoder panicked on the frame's bytes (it does on some damaged files).
    #[error("{frame}: {source}")]
    Decoder { frame: String, source: DataError },
    #[error("the entry's index ({source})")]
    Index { source: serde_json::Error },
    #[error("written for other inputs or by another version")]
    OtherInputs,
    #[error("{frame} was changed after it was written")]
    Changed { frame: String },
    /// The index's checksum (`meta.sum`, written last) is not there: a write that stopped.
    #[error("the entry was never finished (its checksum is missing)")]
    Unfinished,
    /// A cached value outside the bounds the readers set rows aside for (`entry_bounds`).
    #[error("{frame}: {column} in row {row} is {value}, outside {bounds}")]
    OutOfBounds {
        frame: String,
        column: &'static str,
        row: usize,
        value: String,
        bounds: &'static str,
    },
    #[error("{frame} holds {found} rows, not {expected}")]
    Rows {
        frame: String,
        found: usize,
        expected: usize,
    },
    #[error("the {frame} frame is missing")]
    MissingFrame { frame: &'static str },
    #[error("a file's format is not one this version reads ({source})")]
    Format { source: DataError },
    #[error("only logs read whole are cached, not a partitioned dataset or a warehouse")]
    NotReadWhole,
    #[error("the read takes {entry_mib} MiB, over the cache's bound of {bound_mib} MiB")]
    OverBound { entry_mib: u64, bound_mib: u64 },
}

impl CacheError {
    /// An I/O error at `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CacheError {
        let path = path.into();
        move |source| CacheError::Io { path, source }
    }
}
