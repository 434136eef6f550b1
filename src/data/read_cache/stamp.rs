//! What a file's metadata says of its bytes without reading them: size, modification and
//! change times, inode and device. Taken before a read and again after it, a difference means
//! the file changed while it was read: the figures may mix old and new rows, the read is said
//! to be so on every output and is not kept.

use std::fmt;
use std::path::{Path, PathBuf};

use super::error::CacheError;
use crate::data::audit::fleet_source::FleetSource;

/// The warning on an input that changed while it was read.
pub const CHANGED_WHILE_READ: &str = "changed while read: figures may mix old and new rows";

/// A file's metadata as far as it tells a change. The change time (ctime) cannot be set back by
/// a user, so a rewrite with its size and modification time put back still shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    bytes: u64,
    modified_ns: i128,
    changed_ns: i128,
    inode: u64,
    device: u64,
}

impl Stamp {
    /// None when the platform gives no modification time.
    pub fn of(meta: &std::fs::Metadata) -> Option<Stamp> {
        let modified = meta.modified().ok()?;
        let modified_ns = match modified.duration_since(std::time::UNIX_EPOCH) {
            Ok(after) => after.as_nanos() as i128,
            Err(before) => -(before.duration().as_nanos() as i128),
        };
        #[cfg(unix)]
        let (changed_ns, inode, device) = {
            use std::os::unix::fs::MetadataExt;
            (
                i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
                meta.ino(),
                meta.dev(),
            )
        };
        #[cfg(not(unix))]
        let (changed_ns, inode, device) = (0, 0, 0);
        Some(Stamp {
            bytes: meta.len(),
            modified_ns,
            changed_ns,
            inode,
            device,
        })
    }

    fn of_path(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().as_ref().and_then(Stamp::of)
    }
}

impl fmt::Display for Stamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} bytes, modified {} ns, changed {} ns, inode {} on device {}",
            self.bytes, self.modified_ns, self.changed_ns, self.inode, self.device
        )
    }
}

/// Every input's stamp before a read, to compare with after it.
#[derive(Debug, Clone)]
pub struct InputStamps(Vec<(PathBuf, Option<Stamp>)>);

impl InputStamps {
    pub fn of(inputs: &[PathBuf]) -> InputStamps {
        InputStamps(inputs.iter().map(|p| (p.clone(), Stamp::of_path(p))).collect())
    }

    /// The inputs whose stamp is not what it was (a file gone or come counts).
    pub fn changed_since(&self) -> Vec<PathBuf> {
        self.0
            .iter()
            .filter(|(path, before)| Stamp::of_path(path) != *before)
            .map(|(path, _)| path.clone())
            .collect()
    }
}

/// The file summaries of a read, where it has them.
fn files_of(source: &mut FleetSource) -> Option<&mut Vec<crate::data::readers::load::FileSummary>> {
    match source {
        FleetSource::Runs { files, .. } => Some(files),
        _ => None,
    }
}

/// Says on the inputs' own warnings (text, JSON `inputs[]`, the workbench) that `changed` moved
/// under the read, and that the cache's copy was damaged and the logs read again.
pub fn note_read(source: &mut FleetSource, changed: &[PathBuf], damaged: Option<&CacheError>) {
    let Some(files) = files_of(source) else {
        return;
    };
    for path in changed {
        let shown = path.display().to_string();
        match files.iter_mut().find(|f| f.path == shown) {
            Some(file) => file.warnings.push(CHANGED_WHILE_READ.to_string()),
            None => {
                if let Some(first) = files.first_mut() {
                    first.warnings.push(format!("{shown} {CHANGED_WHILE_READ}"));
                }
            }
        }
    }
    if let (Some(why), Some(first)) = (damaged, files.first_mut()) {
        first
            .warnings
            .push(format!("the cached read was damaged ({why}): read again from the log"));
    }
}
