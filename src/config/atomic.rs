//! Atomic file replacement: a crash mid-save leaves the old file or the new one, never half.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The temporary file a save of `target` writes before renaming it over `target`.
pub fn temp_path_for(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plan".into());
    target.with_file_name(format!(".{name}.gpuplan-{}.tmp", std::process::id()))
}

/// Writes `contents` to a temporary file beside `target`, fsyncs it, and renames it over
/// `target`; on any error the temporary file is removed and `target` is untouched.
pub fn write_atomically(target: &Path, contents: &[u8]) -> io::Result<()> {
    let temp = temp_path_for(target);
    let written = write_and_sync(&temp, contents).and_then(|()| fs::rename(&temp, target));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
        return written;
    }
    // Persist the rename itself; not every platform can open a directory, so best effort.
    if let Some(Ok(dir)) = target.parent().filter(|d| !d.as_os_str().is_empty()).map(File::open) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// The first half of a save, and nothing after it: writes and fsyncs the temporary file of
/// `target` without renaming it, as a save interrupted by a crash leaves it. For crash tests.
#[doc(hidden)]
pub fn write_temp_without_rename(target: &Path, contents: &[u8]) -> io::Result<PathBuf> {
    let temp = temp_path_for(target);
    write_and_sync(&temp, contents)?;
    Ok(temp)
}

fn write_and_sync(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut file = File::create(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_target_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("plan.toml");
        fs::write(&target, "old").expect("seed file");
        write_atomically(&target, b"new").expect("save");
        assert_eq!(fs::read_to_string(&target).expect("read"), "new");
        assert!(!temp_path_for(&target).exists());
    }

    #[test]
    fn a_crash_before_the_rename_leaves_the_old_file_intact() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("plan.toml");
        fs::write(&target, "old").expect("seed file");
        // Simulate the crash: the temporary file is written and synced, the rename never runs.
        write_and_sync(&temp_path_for(&target), b"half-written new").expect("temp write");
        assert_eq!(fs::read_to_string(&target).expect("read"), "old");
    }

    #[test]
    fn a_failed_write_leaves_the_target_untouched() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("missing-dir").join("plan.toml");
        assert!(write_atomically(&target, b"new").is_err());
        assert!(!target.exists());
    }
}
