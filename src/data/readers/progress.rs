//! How far the current read has got, for progress displays: bytes and rows of delimited logs
//! as their pieces are parsed. One read runs at a time (the CLI reads once; the workbench's
//! worker reads one job at a time), so the counters are process-wide.

use std::sync::atomic::{AtomicU64, Ordering};

pub struct ReadProgress {
    bytes: AtomicU64,
    rows: AtomicU64,
}

pub static READ_PROGRESS: ReadProgress = ReadProgress {
    bytes: AtomicU64::new(0),
    rows: AtomicU64::new(0),
};

impl ReadProgress {
    /// Starts counting a new read from zero.
    pub fn reset(&self) {
        self.bytes.store(0, Ordering::Relaxed);
        self.rows.store(0, Ordering::Relaxed);
    }

    pub fn add(&self, bytes: u64, rows: u64) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        self.rows.fetch_add(rows, Ordering::Relaxed);
    }

    /// (bytes, rows) read so far.
    pub fn get(&self) -> (u64, u64) {
        (self.bytes.load(Ordering::Relaxed), self.rows.load(Ordering::Relaxed))
    }
}
