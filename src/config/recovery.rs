//! The recovery file: the plan's unsaved edits, written as a save would write them when the
//! workbench is stopped by a signal or a panic, and offered back on the next open (as vim's
//! swap file). Beside the plan (`.plan.toml.gpuplan-recover`); for the built-in plan, in the
//! data folder's `recover/`, named after the first log the workbench read and a hash of its
//! whole path.

use std::io;
use std::path::{Path, PathBuf};

use super::atomic::write_atomically;

/// What a recovery file's name ends with.
pub const RECOVERY_SUFFIX: &str = ".gpuplan-recover";

/// The folder of the data folder that holds the recovery files of workbenches without a plan file.
pub const RECOVERY_FOLDER: &str = "recover";

/// Where the unsaved edits of the plan at `plan` are kept; with no plan file, where those of the
/// built-in plan over `logs` are kept (None without a data folder).
pub fn recovery_path(plan: Option<&Path>, logs: &[PathBuf]) -> Option<PathBuf> {
    match plan {
        Some(plan) => {
            let name = plan.file_name()?.to_string_lossy().into_owned();
            Some(plan.with_file_name(format!(".{name}{RECOVERY_SUFFIX}")))
        }
        None => {
            // Slurm, a warehouse or the shipped sample: no log file to be named after. A log is
            // named with a hash of its whole path, so ~/a/sacct.csv and ~/b/sacct.csv keep
            // their edits apart.
            let log = logs.first().and_then(|l| {
                let name = l.file_name()?.to_string_lossy().into_owned();
                let whole = std::path::absolute(l).unwrap_or_else(|_| l.clone());
                Some(format!("{name}-{:08x}", path_fnv1a(&whole)))
            });
            let log = log.unwrap_or_else(|| "sample".to_string());
            Some(
                super::paths::data_dir()?
                    .join(RECOVERY_FOLDER)
                    .join(format!("{log}.plan.toml{RECOVERY_SUFFIX}")),
            )
        }
    }
}

/// FNV-1a (32 bits) of a path's bytes: the same in every build, so a recovery file written by
/// one version of gpuplan is found by the next.
fn path_fnv1a(path: &Path) -> u32 {
    path.to_string_lossy()
        .bytes()
        .fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// Writes the plan text atomically, making the data folder's `recover/` when it is the home.
/// Never panics: a panic hook calls it.
pub fn write_recovery(path: &Path, text: &str) -> io::Result<()> {
    if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)?;
    }
    write_atomically(path, text.as_bytes())
}

/// The recovery file's text, None when there is none (or it cannot be read).
pub fn read_recovery(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Removes the recovery file; one already gone is fine.
pub fn remove_recovery(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_files_recovery_file_sits_beside_it_hidden() {
        assert_eq!(
            recovery_path(Some(Path::new("/plans/team.toml")), &[]),
            Some(PathBuf::from("/plans/.team.toml.gpuplan-recover"))
        );
        assert_eq!(
            recovery_path(Some(Path::new("team.toml")), &[]),
            Some(PathBuf::from(".team.toml.gpuplan-recover"))
        );
    }

    #[test]
    fn written_read_and_removed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("recover").join("jobs.csv.plan.toml.gpuplan-recover");
        write_recovery(&path, "name = \"x\"\n").expect("written");
        assert_eq!(read_recovery(&path).as_deref(), Some("name = \"x\"\n"));
        remove_recovery(&path).expect("removed");
        assert_eq!(read_recovery(&path), None);
        remove_recovery(&path).expect("already gone is fine");
    }
}
