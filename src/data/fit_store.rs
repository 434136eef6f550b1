//! Forecasts kept on disk beside a cached read (`model::forecast::methods::memo`'s entries):
//! one file per read, so reopening an unchanged log skips its fits as it skips its bytes.
//!
//! Layout, little-endian: the magic `GPFITS1\n`; the entry count (u64); per entry its key
//! (u128), its point count (u32) and the points (f64); then an XXH3-128 of everything before.
//! A file that fails any check (short, long, a count past the file, a bad checksum) is not
//! used: the forecasts are fitted again, which gives the same figures. Written to a file of its
//! own and renamed into place, so a reader never sees half of one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"GPFITS1\n";
/// Past this, the oldest entries of a file go first.
pub const MAX_FILE_BYTES: usize = 64 << 20;
/// Past this, the least recently written files of the folder go.
pub const MAX_FOLDER_BYTES: u64 = 512 << 20;

/// Why a kept file could not be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FitStoreError {
    #[error("{path}: {why}")]
    Damaged { path: PathBuf, why: &'static str },
}

/// The folder of kept forecasts beside the cache of reads `reads_dir` (`…/reads` → `…/fits`).
pub fn fits_folder(reads_dir: &Path) -> PathBuf {
    reads_dir.with_file_name("fits")
}

/// The file kept for the read named `entry_name` beside the cache of reads `reads_dir`.
pub fn fits_path(reads_dir: &Path, entry_name: &str) -> PathBuf {
    fits_folder(reads_dir).join(format!("{entry_name}.fits"))
}

/// How many files the folder holds and their bytes.
pub fn usage(reads_dir: &Path) -> (usize, u64) {
    let Ok(listing) = std::fs::read_dir(fits_folder(reads_dir)) else {
        return (0, 0);
    };
    listing
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok().filter(|m| m.is_file()))
        .fold((0, 0), |(n, bytes), m| (n + 1, bytes + m.len()))
}

/// Removes every kept file; how many and their bytes.
pub fn clear(reads_dir: &Path) -> (usize, u64) {
    let counted = usage(reads_dir);
    let _ = std::fs::remove_dir_all(fits_folder(reads_dir));
    counted
}

/// The entries of `path`, oldest first; none when there is no file.
pub fn load(path: &Path) -> Result<Vec<(u128, Vec<f64>)>, FitStoreError> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(Vec::new());
    };
    let damaged = |why| FitStoreError::Damaged {
        path: path.to_path_buf(),
        why,
    };
    let body_len = bytes
        .len()
        .checked_sub(16)
        .ok_or_else(|| damaged("shorter than its checksum"))?;
    let (body, sum) = bytes.split_at(body_len);
    if xxhash_rust::xxh3::xxh3_128(body).to_le_bytes() != sum {
        return Err(damaged("its checksum does not match its bytes"));
    }
    let mut at = Reader { bytes: body, at: 0 };
    if at.take(8).ok_or_else(|| damaged("no header"))? != MAGIC {
        return Err(damaged("not a gpuplan fits file"));
    }
    let count = at.u64().ok_or_else(|| damaged("no entry count"))?;
    // Each entry is at least 20 bytes: a count past that is a lie, not an allocation to make.
    if count > (body.len() / 20) as u64 {
        return Err(damaged("more entries than the file could hold"));
    }
    let mut entries = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let key = at.u128().ok_or_else(|| damaged("an entry cut short"))?;
        let points = at.u32().ok_or_else(|| damaged("an entry cut short"))? as usize;
        let raw = at
            .take(points * 8)
            .ok_or_else(|| damaged("an entry's points cut short"))?;
        let values = raw
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        entries.push((key, values));
    }
    if at.at != body.len() {
        return Err(damaged("bytes after its last entry"));
    }
    Ok(entries)
}

/// Writes `older` then `fresh` (a key in both: the fresh one) to `path`, dropping the oldest
/// past `MAX_FILE_BYTES`, then trims the folder to `MAX_FOLDER_BYTES`.
pub fn save(path: &Path, older: Vec<(u128, Vec<f64>)>, fresh: &[(u128, Arc<[f64]>)]) -> std::io::Result<()> {
    let mut entries: Vec<(u128, &[f64])> = Vec::new();
    let fresh_keys: std::collections::HashSet<u128> = fresh.iter().map(|(k, _)| *k).collect();
    entries.extend(
        older
            .iter()
            .filter(|(k, _)| !fresh_keys.contains(k))
            .map(|(k, v)| (*k, v.as_slice())),
    );
    entries.extend(fresh.iter().map(|(k, v)| (*k, &v[..])));
    let size = |e: &(u128, &[f64])| 20 + 8 * e.1.len();
    let mut total: usize = entries.iter().map(size).sum();
    let mut first = 0;
    while total > MAX_FILE_BYTES && first < entries.len() {
        total -= size(&entries[first]);
        first += 1;
    }
    let kept = &entries[first..];
    let mut body = Vec::with_capacity(total + 32);
    body.extend_from_slice(MAGIC);
    body.extend_from_slice(&(kept.len() as u64).to_le_bytes());
    for (key, points) in kept {
        body.extend_from_slice(&key.to_le_bytes());
        body.extend_from_slice(&(points.len() as u32).to_le_bytes());
        for v in *points {
            body.extend_from_slice(&v.to_le_bytes());
        }
    }
    let sum = xxhash_rust::xxh3::xxh3_128(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)?;
    let staged = folder.join(format!(".{}.{}", std::process::id(), unique()));
    let written = std::fs::File::create(&staged).and_then(|mut f| f.write_all(&body));
    if let Err(e) = written.and_then(|()| std::fs::rename(&staged, path)) {
        let _ = std::fs::remove_file(&staged);
        return Err(e);
    }
    trim_folder(folder, path);
    Ok(())
}

/// A number no other save of this process used.
fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Removes the least recently written `.fits` files until the folder is under its bound,
/// never `keep` (the file just written), and any half-written file an hour old (its process
/// stopped mid-write).
fn trim_folder(folder: &Path, keep: &Path) {
    let Ok(listing) = std::fs::read_dir(folder) else {
        return;
    };
    let entries: Vec<std::fs::DirEntry> = listing.filter_map(Result::ok).collect();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for staged in entries
        .iter()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
    {
        if staged.metadata().and_then(|m| m.modified()).is_ok_and(|t| t < hour_ago) {
            let _ = std::fs::remove_file(staged.path());
        }
    }
    let mut files: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .into_iter()
        .filter(|e| e.path().extension().is_some_and(|x| x == "fits"))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((meta.modified().ok()?, meta.len(), e.path()))
        })
        .collect();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    files.sort();
    for (_, len, file) in files {
        if total <= MAX_FOLDER_BYTES {
            break;
        }
        if file != keep && std::fs::remove_file(&file).is_ok() {
            total -= len;
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_file_loads_back_bit_for_bit_and_a_fresh_entry_wins() {
        let dir = tempfile::tempdir().unwrap();
        let path = fits_path(&dir.path().join("reads"), "entry");
        let older = vec![(1u128, vec![1.0, 2.0]), (2u128, vec![0.1 + 0.2])];
        let fresh: Vec<(u128, Arc<[f64]>)> = vec![(2, Arc::from(&[5.5, f64::MIN_POSITIVE][..]))];
        save(&path, older, &fresh).unwrap();
        let back = load(&path).unwrap();
        assert_eq!(back, vec![(1, vec![1.0, 2.0]), (2, vec![5.5, f64::MIN_POSITIVE])]);
        assert_eq!(load(&dir.path().join("none.fits")).unwrap(), Vec::new());
        assert_eq!(path, dir.path().join("fits").join("entry.fits"));
        assert_eq!(usage(&dir.path().join("reads")).0, 1);
        assert_eq!(clear(&dir.path().join("reads")).0, 1);
        assert!(!path.exists());
    }

    #[test]
    fn a_damaged_file_is_refused_not_believed() {
        let dir = tempfile::tempdir().unwrap();
        let path = fits_path(dir.path(), "entry");
        save(&path, vec![(7, vec![3.0; 10])], &[]).unwrap();
        let good = std::fs::read(&path).unwrap();
        let mut flipped = good.clone();
        flipped[40] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert!(matches!(load(&path), Err(FitStoreError::Damaged { why, .. }) if why.contains("checksum")));
        std::fs::write(&path, &good[..good.len() - 3]).unwrap();
        assert!(load(&path).is_err(), "cut short");
        std::fs::write(&path, b"").unwrap();
        assert!(load(&path).is_err(), "empty");
        // A huge entry count under a valid checksum is refused before any allocation.
        let mut lie = MAGIC.to_vec();
        lie.extend_from_slice(&u64::MAX.to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_128(&lie);
        lie.extend_from_slice(&sum.to_le_bytes());
        std::fs::write(&path, &lie).unwrap();
        assert!(matches!(load(&path), Err(FitStoreError::Damaged { why, .. }) if why.contains("more entries")));
    }
}
