//! The shipped 90-day sample log, built into the binary so `gpuplan` opens it wherever it was
//! installed from: the source tree's copy when it is there, else the embedded bytes written
//! once to the data folder (or the temporary folder).

use std::path::PathBuf;

use super::error::ConfigError;
use super::paths::data_dir;

const FILE_NAME: &str = "jobs-90d.csv";
const SOURCE_COPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");
const EMBEDDED: &[u8] = include_bytes!("../../sample-data/jobs-90d.csv");

/// A path holding the sample log, or why there is none.
pub fn sample_log_path() -> Result<PathBuf, ConfigError> {
    let source = PathBuf::from(SOURCE_COPY);
    if std::fs::metadata(&source).is_ok_and(|m| m.len() == EMBEDDED.len() as u64) {
        return Ok(source);
    }
    let folder = data_dir().unwrap_or_else(std::env::temp_dir).join("sample");
    let path = folder.join(FILE_NAME);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == EMBEDDED.len() as u64) {
        return Ok(path);
    }
    std::fs::create_dir_all(&folder).map_err(|source| ConfigError::CannotCreate {
        path: folder.clone(),
        source,
    })?;
    super::atomic::write_atomically(&path, EMBEDDED).map_err(|source| ConfigError::CannotWriteSample {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_tree_copy_is_used_when_present() {
        assert_eq!(sample_log_path().expect("a path"), PathBuf::from(SOURCE_COPY));
    }
}
