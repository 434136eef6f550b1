//! Atomic file replacement: a crash mid-save leaves the old file or the new one, never half.

use std::fs::{self, File};
use std::hash::Hasher;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::error::ConfigError;

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
    write_atomically_unless_changed(path, contents, None).map_err(|e| match e {
        ConfigError::CannotReplace { source, .. } => source,
        other => io::Error::other(other.to_string()),
    })
}

/// A stable hash of a file's bytes: SipHash with zero keys (std's `DefaultHasher::new`), so a
/// save can tell whether the file on disk is still the one it was made against.
pub fn content_hash(bytes: &[u8]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

/// As [`write_atomically`], and right before the rename, when `expected_hash` is given, the
/// file on disk must still hash to it (or be gone): another program's write since the plan was
/// read is never replaced, and the temporary file is removed.
pub fn write_atomically_unless_changed(
    path: &Path,
    contents: &[u8],
    expected_hash: Option<u64>,
) -> Result<(), ConfigError> {
    let target = save_target(path);
    let target = target.as_path();
    let temp = temp_path_for(target);
    let cannot = |source: io::Error| ConfigError::CannotReplace {
        path: target.to_path_buf(),
        source,
    };
    let written = write_and_sync(&temp, contents)
        .and_then(|()| match fs::metadata(target) {
            Ok(old) => fs::set_permissions(&temp, old.permissions()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        })
        .map_err(cannot)
        .and_then(|()| match expected_hash {
            Some(expected) => unchanged_on_disk(target, expected),
            None => Ok(()),
        })
        .and_then(|()| fs::rename(&temp, target).map_err(cannot));
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

/// Ok when `target` still hashes to `expected`, or is gone (a save writes a deleted plan again).
fn unchanged_on_disk(target: &Path, expected: u64) -> Result<(), ConfigError> {
    match fs::read(target) {
        Ok(bytes) if content_hash(&bytes) == expected => Ok(()),
        Ok(_) => Err(ConfigError::ChangedOnDisk {
            path: target.to_path_buf(),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(ConfigError::CannotReplace {
            path: target.to_path_buf(),
            source,
        }),
    }
}

/// Whether the file a save of `path` replaces has no write permission in its mode bits (as
/// `chmod a-w` leaves it). Read from the mode, not access(2): root may write anything.
pub fn is_read_only(path: &Path) -> bool {
    fs::metadata(save_target(path)).is_ok_and(|m| m.permissions().readonly())
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

    #[test]
    fn a_file_changed_since_it_was_read_is_not_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("plan.toml");
        fs::write(&target, "as read").expect("seed file");
        let read = content_hash(b"as read");
        // Another program rewrites it in place before the save's rename.
        fs::write(&target, "theirs").expect("their write");
        let refused = write_atomically_unless_changed(&target, b"mine", Some(read));
        assert!(matches!(refused, Err(ConfigError::ChangedOnDisk { .. })), "{refused:?}");
        assert_eq!(fs::read_to_string(&target).expect("read"), "theirs");
        assert!(!temp_path_for(&target).exists());
        // Against what is there now, or with the file gone, the save goes ahead.
        write_atomically_unless_changed(&target, b"mine", Some(content_hash(b"theirs"))).expect("save");
        assert_eq!(fs::read_to_string(&target).expect("read"), "mine");
        fs::remove_file(&target).expect("remove");
        write_atomically_unless_changed(&target, b"again", Some(read)).expect("written again");
        assert_eq!(fs::read_to_string(&target).expect("read"), "again");
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_plan_is_told_by_its_mode_and_a_replace_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("plan.toml");
        fs::write(&target, "old").expect("seed file");
        assert!(!is_read_only(&target));
        fs::set_permissions(&target, fs::Permissions::from_mode(0o444)).expect("chmod");
        assert!(is_read_only(&target));
        assert!(!is_read_only(&dir.path().join("missing.toml")));
        write_atomically(&target, b"new").expect("replace");
        assert_eq!(fs::read_to_string(&target).expect("read"), "new");
        assert_eq!(fs::metadata(&target).expect("meta").permissions().mode() & 0o777, 0o444);
    }
}
