//! What a cached read stands for: every input file by path, size, modification and change
//! times, inode and device, and an XXH3 hash of all of its bytes; the mapping's bytes, the
//! forced layout, the classification rules the read computed features with, and gpuplan's
//! version. Any change reads the logs again.

use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use super::stamp::Stamp;
use crate::model::workload::ClassificationRules;

/// Reads of this size feed the hash: large enough that a system call per read costs nothing
/// beside the hashing.
const HASH_READ_BYTES: usize = 4 << 20;

/// The layout of a cache entry; a change of it reads every log again. 2: the utilization frame
/// gained `samples`, `metric` and `utc_offset_min`. 3: frames and the index carry XXH3-128
/// checksums of all their bytes (`meta.sum`), the key a hash of every byte of each log. 4: the
/// utilization frame gained `cover_from_ms` and `cover_to_ms` (the span a folded row covers).
pub const ENTRY_FORMAT: u32 = 4;

/// A stable 64-bit hash: SipHash with zero keys (std's `DefaultHasher::new`), the same in
/// every run of one build; a different build that hashes differently only misses.
fn hasher() -> std::hash::DefaultHasher {
    std::hash::DefaultHasher::new()
}

/// XXH3-128 of every byte of a file, through buffered reads rather than a memory map: a log
/// truncated under a map kills the process (SIGBUS), under a read it only ends sooner.
pub fn content_hash(path: &Path) -> std::io::Result<u128> {
    let mut file = File::open(path)?;
    let mut h = Xxh3::new();
    let mut buffer = vec![0u8; HASH_READ_BYTES];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        h.update(&buffer[..n]);
    }
    Ok(h.digest128())
}

/// XXH3-128 of bytes in memory (the entry's index).
pub fn bytes_hash(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// One input as the key names it.
fn describe_file(path: &Path) -> Option<String> {
    let canonical: PathBuf = std::fs::canonicalize(path).ok()?;
    let meta = std::fs::metadata(&canonical).ok()?;
    if !meta.is_file() {
        return None;
    }
    let stamp = Stamp::of(&meta)?;
    let content = content_hash(&canonical).ok()?;
    Some(format!("{} {stamp} {content:032x}", canonical.display()))
}

/// The key of a read of `inputs` (plain files only: a folder or a file that cannot be read
/// gives none, and is read without the cache).
pub fn read_key(
    inputs: &[PathBuf],
    mapping: Option<&Path>,
    input_format: Option<&str>,
    time_origin: Option<&str>,
    rules: &ClassificationRules,
    version: &str,
) -> Option<String> {
    let mut lines = vec![format!("gpuplan {version}, entry format {ENTRY_FORMAT}")];
    for input in inputs {
        lines.push(format!("log {}", describe_file(input)?));
    }
    if let Some(mapping) = mapping {
        let bytes = std::fs::read(mapping).ok()?;
        lines.push(format!("mapping {} {:032x}", mapping.display(), bytes_hash(&bytes)));
    }
    lines.push(format!("layout {}", input_format.unwrap_or("detected")));
    if let Some(origin) = time_origin {
        lines.push(format!("time origin {origin}"));
    }
    let mut h = hasher();
    serde_json::to_string(rules).ok()?.hash(&mut h);
    lines.push(format!("rules {:016x}", h.finish()));
    Some(lines.join("\n"))
}

/// The entry's folder name for a key.
pub fn entry_name(key: &str) -> String {
    let mut h = hasher();
    key.hash(&mut h);
    format!("{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_content_hash_sees_a_byte_changed_anywhere_in_a_large_file() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("log.csv");
        // Past one read's length, so the change lands in a later read.
        let mut bytes = vec![b'x'; HASH_READ_BYTES * 2 + 12_345];
        std::fs::write(&path, &bytes).expect("write");
        let before = content_hash(&path).expect("hash");
        let at = HASH_READ_BYTES + 7_777;
        bytes[at] = b'y';
        std::fs::write(&path, &bytes).expect("write");
        assert_ne!(content_hash(&path).expect("hash"), before);
        assert_eq!(content_hash(&path).expect("hash"), bytes_hash(&bytes));
    }
}
