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

/// What any nvidia-smi recording read must hold, whatever its bytes: every row's utilization
/// within 0–1, and the rows' sample counts adding up to the samples the reader kept.
pub fn check_recording(read: &gpuplan::data::readers::nvidia_smi::NodeRecording) {
    use gpuplan::data::readers::dcgm::{SAMPLES, UTIL_FRAC};
    let util = read.frame.column(UTIL_FRAC).expect("util_frac").as_materialized_series();
    let (low, high) = (util.min::<f64>().expect("min"), util.max::<f64>().expect("max"));
    assert!(low.is_none_or(|v| v >= 0.0) && high.is_none_or(|v| v <= 1.0), "utilization {low:?}..{high:?} outside 0–1");
    let samples = read.frame.column(SAMPLES).expect("samples").as_materialized_series();
    assert_eq!(samples.sum::<f64>().expect("sum") as u64, read.samples);
}
