//! Reads kept for the next open: what reading the logs produced (the canonical runs with
//! their classification features, the pending jobs, the utilization samples, and what was set
//! aside), in the user's cache folder, so reopening unchanged logs skips the bytes.
//!
//! - Keyed by every input's path, size, modification and change times, inode, device and an
//!   XXH3-128 hash of all its bytes, the mapping's bytes, the forced layout, the
//!   classification rules and gpuplan's version (`key`): a change to any reads the logs again.
//! - A log whose size or times moved between the key and the end of the read (`stamp`) was
//!   changed while read: that is said on the input's warnings and the read is not kept.
//! - Frames as Parquet through Polars, the rest as JSON (`entry`); an entry is written in a
//!   folder of its own, fsynced, and renamed into place whole, and checked on the way back
//!   (the index's and each frame's checksum of all their bytes, each frame's rows, the runs'
//!   bounds in `entry_bounds`): a damaged or partial one is removed, the logs read, and that is
//!   said on the input's warnings.
//! - Bounded: after each write the least recently used entries go until the cache is under
//!   its bound (`GPUPLAN_CACHE_MAX_MB`, default 4,096 MiB); an entry larger than the bound is
//!   not kept. Folders (partitioned datasets) and Prometheus pods are not cached.
//! - A staging folder left by a process that stopped mid-write is counted by `gpuplan cache
//!   info` and removed at the next process's first lookup (`staging`).

mod entry;
mod entry_bounds;
mod error;
mod key;
mod staging;
mod stamp;

use std::path::{Path, PathBuf};

pub use self::error::CacheError;
pub use self::key::{content_hash, entry_name, read_key};
pub use self::stamp::{CHANGED_WHILE_READ, InputStamps, note_read};
use crate::data::audit::fleet_source::FleetSource;

/// Reads being written into the cache on threads of their own, for `wait_for_stores`.
static STORING: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>> = std::sync::Mutex::new(Vec::new());

/// Keeps `source` for `key` on a thread of its own, so the audit goes on meanwhile; a read
/// the cache cannot keep is read from its bytes next time, nothing else.
pub fn store_in_background(cache: ReadCache, key: String, source: FleetSource) {
    let spawned = std::thread::Builder::new()
        .name("gpuplan-cache".to_string())
        .spawn(move || {
            let _ = cache.store(&key, &source);
        });
    if let Ok(handle) = spawned
        && let Ok(mut storing) = STORING.lock()
    {
        storing.retain(|h| !h.is_finished());
        storing.push(handle);
    }
}

/// Waits until every read being written is in the cache: before the process ends.
pub fn wait_for_stores() {
    let handles: Vec<_> = STORING.lock().map(|mut s| s.drain(..).collect()).unwrap_or_default();
    for handle in handles {
        let _ = handle.join();
    }
}

/// The bound when `GPUPLAN_CACHE_MAX_MB` does not set one.
pub const DEFAULT_MAX_BYTES: u64 = 4096 << 20;

/// The cache folder and its bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadCache {
    pub dir: PathBuf,
    pub max_bytes: u64,
}

/// What a lookup found.
pub enum Lookup {
    Hit(Box<FleetSource>),
    Miss,
    /// An entry was there but could not be used (it was removed): why.
    Damaged(CacheError),
}

/// A folder's list of names on the disk (Unix; elsewhere the rename is all there is).
fn sync_folder(dir: &Path) -> Result<(), CacheError> {
    #[cfg(unix)]
    std::fs::File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(CacheError::io(dir))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

fn folder_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

impl ReadCache {
    pub fn new(dir: PathBuf, max_bytes: u64) -> ReadCache {
        ReadCache { dir, max_bytes }
    }

    /// The read kept for `key`, if whole. A hit marks the entry as just used.
    pub fn lookup(&self, key: &str) -> Lookup {
        staging::sweep_once(&self.dir);
        let dir = self.dir.join(entry_name(key));
        if !dir.join(entry::META).is_file() {
            return Lookup::Miss;
        }
        match entry::read_entry(&dir, key) {
            Ok(source) => {
                if let Ok(meta) = std::fs::File::options().write(true).open(dir.join(entry::META)) {
                    let _ = meta.set_modified(std::time::SystemTime::now());
                }
                Lookup::Hit(Box::new(source))
            }
            Err(why) => {
                let _ = std::fs::remove_dir_all(&dir);
                Lookup::Damaged(why)
            }
        }
    }

    /// Keeps `source` for `key`, then trims the cache to its bound. A read that is not kept
    /// (too large, a partitioned dataset, a folder that cannot be written) says why.
    pub fn store(&self, key: &str, source: &FleetSource) -> Result<(), CacheError> {
        std::fs::create_dir_all(&self.dir).map_err(CacheError::io(&self.dir))?;
        let name = entry_name(key);
        let staging = self.dir.join(format!(
            ".{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir(&staging).map_err(CacheError::io(&staging))?;
        let written = entry::write_entry(&staging, key, source).and_then(|()| {
            let bytes = folder_bytes(&staging);
            if bytes > self.max_bytes {
                return Err(CacheError::OverBound {
                    entry_mib: bytes >> 20,
                    bound_mib: self.max_bytes >> 20,
                });
            }
            let target = self.dir.join(&name);
            // The folder's names on the disk before it is renamed, the rename after.
            sync_folder(&staging)?;
            let _ = std::fs::remove_dir_all(&target);
            std::fs::rename(&staging, &target).map_err(CacheError::io(&target))?;
            sync_folder(&self.dir)
        });
        if written.is_err() {
            let _ = std::fs::remove_dir_all(&staging);
        }
        written?;
        self.trim(&name);
        Ok(())
    }

    /// Removes the least recently used entries (never `keep`) until the cache fits its bound,
    /// and any staging folder left by a process that stopped half-way an hour ago or more.
    fn trim(&self, keep: &str) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        let mut kept: Vec<(std::time::SystemTime, u64, PathBuf)> = Vec::new();
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if !path.is_dir() {
                continue;
            }
            if name.starts_with('.') {
                let stale = entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| t < hour_ago)
                    || staging::owner_is_gone(&name);
                if stale {
                    let _ = std::fs::remove_dir_all(&path);
                }
                continue;
            }
            let used = std::fs::metadata(path.join(entry::META))
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            kept.push((used, folder_bytes(&path), path));
        }
        let mut total: u64 = kept.iter().map(|(_, bytes, _)| bytes).sum();
        kept.sort_by_key(|(used, _, _)| *used);
        for (_, bytes, path) in kept {
            if total <= self.max_bytes {
                break;
            }
            if path.file_name().is_some_and(|n| n == keep) {
                continue;
            }
            if std::fs::remove_dir_all(&path).is_ok() {
                total = total.saturating_sub(bytes);
            }
        }
    }

    /// How many entries the cache holds and their size.
    pub fn usage(&self) -> (usize, u64) {
        std::fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.is_dir() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
                    .fold((0, 0), |(count, bytes), path| (count + 1, bytes + folder_bytes(&path)))
            })
            .unwrap_or((0, 0))
    }

    /// Staging folders a write left behind (a process stopped mid-write, or one writing now):
    /// how many and their size.
    pub fn staging_usage(&self) -> (usize, u64) {
        staging::folders(&self.dir)
            .iter()
            .fold((0, 0), |(count, bytes), path| (count + 1, bytes + folder_bytes(path)))
    }

    /// Removes every entry; how many there were and their size.
    pub fn clear(&self) -> std::io::Result<(usize, u64)> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0)),
            Err(e) => return Err(e),
        };
        let (mut count, mut bytes) = (0, 0);
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                bytes += folder_bytes(&path);
                std::fs::remove_dir_all(&path)?;
                count += 1;
            }
        }
        Ok((count, bytes))
    }
}
