//! Shared by the fuzz targets: one scratch file per process for the parsers that read a path.

use std::path::PathBuf;

/// `/tmp/gpuplan-fuzz-<pid>/<name>`, the directory made once; the file is overwritten with
/// `data` on every call.
pub fn scratch_file(name: &str, data: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpuplan-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(name);
    std::fs::write(&path, data).expect("write the scratch file");
    path
}

/// The same directory, for readers that take a directory (themes).
pub fn scratch_dir(sub: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("gpuplan-fuzz-{}", std::process::id()))
        .join(sub);
    let _ = std::fs::create_dir_all(&dir);
    dir
}
