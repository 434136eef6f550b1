//! What a cached read stands for: every input file by path, size, modification time and a
//! fingerprint of its bytes, the mapping's bytes, the forced layout, the classification rules
//! the read computed features with, and gpuplan's version. Any change reads the logs again.

use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::model::workload::ClassificationRules;

/// Files up to this size are fingerprinted whole; larger ones by evenly spread samples.
const WHOLE_FILE_BYTES: u64 = 64 << 20;
const SAMPLES: u64 = 256;
const SAMPLE_BYTES: usize = 64 << 10;

/// The layout of a cache entry; a change of it reads every log again. 2: the utilization frame
/// gained `samples`, `metric` and `utc_offset_min`.
pub const ENTRY_FORMAT: u32 = 2;

/// A stable 64-bit hash: SipHash with zero keys (std's `DefaultHasher::new`), the same in
/// every run of one build; a different build that hashes differently only misses.
fn hasher() -> std::hash::DefaultHasher {
    std::hash::DefaultHasher::new()
}

/// A fingerprint of a file's bytes: all of them up to 64 MiB; beyond, 256 blocks of 64 KiB
/// spread evenly from the first byte to the last.
pub fn content_fingerprint(path: &Path) -> std::io::Result<u64> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut h = hasher();
    len.hash(&mut h);
    let mut buffer = vec![0u8; SAMPLE_BYTES];
    if len <= WHOLE_FILE_BYTES {
        loop {
            let n = file.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            buffer[..n].hash(&mut h);
        }
    } else {
        let last = len - SAMPLE_BYTES as u64;
        for i in 0..SAMPLES {
            let at = last * i / (SAMPLES - 1);
            file.seek(SeekFrom::Start(at))?;
            file.read_exact(&mut buffer)?;
            buffer.hash(&mut h);
        }
    }
    Ok(h.finish())
}

/// One input as the key names it.
fn describe_file(path: &Path) -> Option<String> {
    let canonical: PathBuf = std::fs::canonicalize(path).ok()?;
    let meta = std::fs::metadata(&canonical).ok()?;
    if !meta.is_file() {
        return None;
    }
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    let fingerprint = content_fingerprint(&canonical).ok()?;
    Some(format!(
        "{} {} {}.{:09} {fingerprint:016x}",
        canonical.display(),
        meta.len(),
        modified.as_secs(),
        modified.subsec_nanos()
    ))
}

/// The key of a read of `inputs` (plain files only: a folder or a file that cannot be read
/// gives none, and is read without the cache).
pub fn read_key(
    inputs: &[PathBuf],
    mapping: Option<&Path>,
    input_format: Option<&str>,
    rules: &ClassificationRules,
    version: &str,
) -> Option<String> {
    let mut lines = vec![format!("gpuplan {version}, entry format {ENTRY_FORMAT}")];
    for input in inputs {
        lines.push(format!("log {}", describe_file(input)?));
    }
    if let Some(mapping) = mapping {
        let bytes = std::fs::read(mapping).ok()?;
        let mut h = hasher();
        bytes.hash(&mut h);
        lines.push(format!("mapping {} {:016x}", mapping.display(), h.finish()));
    }
    lines.push(format!("layout {}", input_format.unwrap_or("detected")));
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
