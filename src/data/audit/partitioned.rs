//! Fleets that outgrow memory: a Parquet dataset partitioned by cluster (`cluster=NAME/`
//! folders, hive style) is audited one cluster at a time and the audits merged. Each job
//! belongs to one cluster (classification keys include it), so per-cluster audits are exact;
//! the window is resolved over the whole dataset first so every part shares it. Peak memory is
//! one cluster's rows instead of the fleet's.

use std::path::{Path, PathBuf};

use super::{AuditSettings, DataSpan, WindowSpec, audit_loaded, data_span, window_for};
use crate::data::error::DataError;
use crate::data::readers::load::{FileSummary, LoadError, load_logs};
use crate::data::readers::mapping::Mapping;
use crate::data::readers::tabular::Detail;
use crate::model::fleet::{AuditReport, merge_audits};
use crate::model::workload::ClassificationRules;

/// The `cluster=NAME` folders of `path`, when it is a dataset partitioned by cluster: a
/// folder whose sub-folders are all `cluster=...` (two or more of them) holding Parquet.
pub fn cluster_partitions(path: &Path) -> Option<Vec<(String, PathBuf)>> {
    if !path.is_dir() {
        return None;
    }
    let mut partitions = Vec::new();
    for entry in std::fs::read_dir(path).ok()?.filter_map(Result::ok) {
        let child = entry.path();
        if !child.is_dir() {
            continue;
        }
        let name = child.file_name()?.to_string_lossy().to_string();
        let value = name.strip_prefix("cluster=")?.to_string();
        partitions.push((value, child));
    }
    partitions.sort();
    (partitions.len() >= 2).then_some(partitions)
}

fn load_error(path: &Path, error: DataError) -> LoadError {
    LoadError::new(path.display().to_string(), error)
}

/// Audits a dataset partitioned by cluster, one partition at a time.
pub fn audit_partitioned(
    partitions: &[(String, PathBuf)],
    mapping: Option<&Mapping>,
    rules: &ClassificationRules,
    settings: &AuditSettings,
) -> Result<(AuditReport, Vec<FileSummary>), LoadError> {
    let read = |folder: &Path| load_logs(&[folder.to_path_buf()], Some("parquet"), mapping, Detail::Audit(rules));
    // Pass one: the whole dataset's span, for one window.
    let mut span: Option<DataSpan> = None;
    for (_, folder) in partitions {
        let loaded = read(folder)?;
        let part = data_span(&loaded.jobs).map_err(|e| load_error(folder, e))?;
        span = Some(span.map_or(part, |s| s.union(part)));
    }
    let first = partitions.first().map_or_else(PathBuf::new, |(_, f)| f.clone());
    let span = span.ok_or_else(|| load_error(&first, DataError::NoPartitions))?;
    let window = window_for(span, settings.window).map_err(|e| load_error(&first, e))?;
    let fixed = AuditSettings {
        window: WindowSpec {
            days: None,
            since_ms: Some(window.start_ms),
            until_ms: Some(window.end_ms),
        },
        ..settings.clone()
    };
    // Pass two: each cluster audited alone.
    let mut parts = Vec::new();
    let mut files = Vec::new();
    for (_, folder) in partitions {
        let loaded = read(folder)?;
        if loaded.jobs.height() == 0 {
            files.extend(loaded.files);
            continue;
        }
        let report = audit_loaded(&loaded, rules, &fixed).map_err(|e| load_error(folder, e))?;
        parts.push(report);
        files.extend(loaded.files);
    }
    let report = merge_audits(parts).ok_or_else(|| load_error(&first, DataError::NoUsableRows))?;
    Ok((report, files))
}
