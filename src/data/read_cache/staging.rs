//! Staging folders: an entry is written in `.<entry>-<pid>-<nanos>` and renamed into place
//! whole. A process killed mid-write leaves its folder; the first lookup of the next process
//! removes those whose writer is gone (the pid in the name no longer runs), and `gpuplan cache
//! info` counts what is there.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether this process has swept the cache folder already: once is enough.
static SWEPT: AtomicBool = AtomicBool::new(false);

/// The pid in a staging folder's name, `.<entry>-<pid>-<nanos>`.
fn owner_of(name: &str) -> Option<u32> {
    let mut parts = name.strip_prefix('.')?.split('-');
    let (_entry, pid, _nanos) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    pid.parse().ok()
}

/// Whether the process that named this staging folder no longer runs. Where there is no
/// `/proc` to ask, never: the hour-old rule in `trim` removes those.
pub fn owner_is_gone(name: &str) -> bool {
    let Some(pid) = owner_of(name) else {
        return false;
    };
    let proc = Path::new("/proc");
    pid != std::process::id() && proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

/// The staging folders in the cache folder.
pub fn folders(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default()
}

/// Removes the staging folders whose writer is gone, the first time this process asks.
pub fn sweep_once(dir: &Path) {
    if SWEPT.swap(true, Ordering::Relaxed) {
        return;
    }
    for path in folders(dir) {
        if path.file_name().is_some_and(|n| owner_is_gone(&n.to_string_lossy())) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writer_is_read_from_the_name() {
        assert_eq!(owner_of(".0123456789abcdef-4242-1700000000000000000"), Some(4242));
        assert_eq!(owner_of("0123456789abcdef"), None);
        assert_eq!(owner_of(".0123456789abcdef-x-1"), None);
        assert!(!owner_is_gone(&format!(".0123456789abcdef-{}-1", std::process::id())));
    }
}
