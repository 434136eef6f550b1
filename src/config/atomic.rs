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

/// The file a save of `path` replaces: `path` itself, or the file it links to, so that a plan
/// kept as a symbolic link (to a dotfiles or shared folder) stays one after a save.
pub fn save_target(path: &Path) -> PathBuf {
    let mut target = path.to_path_buf();
    // A chain of links ends somewhere; a loop is left to the write to report.
    for _ in 0..40 {
        match fs::read_link(&target) {
            Ok(next) => {
                target = match target.parent() {
                    Some(folder) if next.is_relative() => folder.join(next),
                    _ => next,
                }
            }
            Err(_) => break,
        }
    }
    target
}

/// Writes `contents` to a temporary file beside the file `path` names (through symbolic
/// links), fsyncs it, gives it the old file's permissions and renames it over the old file;
/// on any error the temporary file is removed and the old file is untouched.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let target = save_target(path);
    let target = target.as_path();
    let temp = temp_path_for(target);
    let written = write_and_sync(&temp, contents)
        .and_then(|()| match fs::metadata(target) {
            Ok(old) => fs::set_permissions(&temp, old.permissions()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        })
        .and_then(|()| fs::rename(&temp, target));
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

    #[cfg(unix)]
    #[test]
    fn a_save_through_a_link_replaces_the_linked_file_and_keeps_the_link_and_mode() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let dir = tempfile::tempdir().expect("tempdir");
        let shared = dir.path().join("shared");
        fs::create_dir(&shared).expect("folder");
        let real = shared.join("team.toml");
        fs::write(&real, "old").expect("seed file");
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).expect("chmod");
        let link = dir.path().join("plan.toml");
        symlink("shared/team.toml", &link).expect("relative link");
        write_atomically(&link, b"new").expect("save");
        assert!(fs::symlink_metadata(&link).expect("link").file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).expect("read"), "new");
        assert_eq!(fs::metadata(&real).expect("meta").permissions().mode() & 0o777, 0o600);
        assert!(!temp_path_for(&real).exists());
        assert_eq!(save_target(&real), real);
    }

    #[test]
    fn a_failed_write_leaves_the_target_untouched() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("missing-dir").join("plan.toml");
        assert!(write_atomically(&target, b"new").is_err());
        assert!(!target.exists());
    }
}
