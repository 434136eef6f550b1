//! Which host a recording is of, when its lines do not say: nvidia-smi writes no host name, so
//! a node's recording is known by where it was kept.

use std::path::Path;

use crate::data::error::DataError;

/// File names that say what made a recording or what it holds, not where it was taken: the
/// host is then the folder's name (`h200-a/dmon.txt`, `node17/nvidia-smi-query.csv`).
const TOOL_PREFIXES: [&str; 6] = ["nvidia-smi", "nvidia_smi", "nvsmi", "dmon", "gpm", "query"];
const CONTENT_NAMES: [&str; 11] = [
    "smi",
    "gpu",
    "gpus",
    "util",
    "utilization",
    "telemetry",
    "metrics",
    "log",
    "logs",
    "recording",
    "samples",
];

/// Where a recording's host name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostOrigin {
    FileName,
    Folder,
}

impl HostOrigin {
    pub fn describe(self) -> &'static str {
        match self {
            HostOrigin::FileName => "its file's name",
            HostOrigin::Folder => "its folder's name",
        }
    }
}

fn names_the_tool(stem: &str) -> bool {
    let lower = stem.to_ascii_lowercase();
    lower.is_empty() || TOOL_PREFIXES.iter().any(|p| lower.starts_with(p)) || CONTENT_NAMES.contains(&lower.as_str())
}

/// The host of a recording at `path`: its file name up to the first dot (`node17.csv`,
/// `node17.dmon.txt`), or, when that name is the tool's or the content's (`dmon.txt`,
/// `nvidia-smi-query.csv`), the name of the folder it sits in.
pub fn host_of_recording(path: &Path) -> Result<(String, HostOrigin), DataError> {
    let file_name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let stem = file_name.split('.').next().unwrap_or("").trim();
    if !names_the_tool(stem) {
        return Ok((stem.to_string(), HostOrigin::FileName));
    }
    let folder = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => parent.canonicalize().unwrap_or_else(|_| parent.to_path_buf()),
        None => std::env::current_dir().unwrap_or_default(),
    };
    let folder_name = folder.file_name().map(|n| n.to_string_lossy().trim().to_string());
    match folder_name {
        Some(name) if !name.is_empty() && !names_the_tool(&name) => Ok((name, HostOrigin::Folder)),
        _ => Err(DataError::RecordingNamesNoHost {
            file_name: file_name.into_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_names_the_host_unless_it_names_the_tool() {
        let host = |p: &str| host_of_recording(Path::new(p)).map_err(|e| e.to_string());
        assert_eq!(
            host("logs/node17.csv"),
            Ok(("node17".to_string(), HostOrigin::FileName))
        );
        assert_eq!(
            host("logs/node17.dmon.txt"),
            Ok(("node17".to_string(), HostOrigin::FileName))
        );
        assert_eq!(host("gpu001.txt"), Ok(("gpu001".to_string(), HostOrigin::FileName)));
        assert_eq!(
            host("x/h200-a/dmon-gpm.txt"),
            Ok(("h200-a".to_string(), HostOrigin::Folder))
        );
        assert_eq!(
            host("x/h200-a/nvidia-smi-query.csv"),
            Ok(("h200-a".to_string(), HostOrigin::Folder))
        );
        assert!(host("/dmon.txt").is_err_and(|e| e.contains("dmon.txt") && e.contains("file")));
        assert!(host("logs/telemetry/dmon.txt").is_err());
    }
}
