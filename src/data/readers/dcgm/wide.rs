//! The wide layout: one metric per file (`Time,<series>,<series>,...`), the metric named by the
//! caller or the file name, each column a host or a GPU.

use std::path::Path;

use polars::prelude::*;

use super::text::{
    GPU_NAMES, HOST_NAMES, TIME_NAMES, header_and_rows, header_names, is_null_marker, parse_sample_time_ms, parse_util,
    record_fields,
};
use super::{ALL_GPUS, DcgmSamples, Sample, UtilMetric, utilization_frame};
use crate::data::error::DataError;
use crate::data::readers::reject::{Quarantine, RejectReason, RejectedRow};

/// Reads a wide export (one metric per file) into the utilization frame and a quarantine.
/// `metric` names the DCGM field when the file name does not.
pub fn read_dcgm_wide(path: &Path, text: &str, metric: Option<&str>) -> Result<(DataFrame, Quarantine), DataError> {
    read_dcgm_wide_detailed(path, text, metric).map(DcgmSamples::into_parts)
}

/// As [`read_dcgm_wide`], with the metric used and the samples skipped.
pub fn read_dcgm_wide_detailed(path: &Path, text: &str, metric: Option<&str>) -> Result<DcgmSamples, DataError> {
    let file = path.display().to_string();
    let file_name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let metric_name = match metric {
        Some(name) => name.to_string(),
        None => metric_in_file_name(&file_name).ok_or_else(|| DataError::UnknownDcgmMetric.in_file(&file))?,
    };
    let ((header_no, header_line), rows) = header_and_rows(text).ok_or_else(|| DataError::Empty.in_file(&file))?;
    let names = header_names(header_line);
    if names.len() < 2
        || !names
            .first()
            .is_some_and(|n| TIME_NAMES.contains(&n.to_ascii_lowercase().as_str()))
    {
        return Err(DataError::UnexpectedHeader {
            expected: "`Time,<host>,...`",
            found: header_line.trim().to_string(),
        }
        .not_format("DCGM wide export")
        .in_file_at(&file, header_no));
    }
    let series: Vec<Option<(String, String)>> = names
        .iter()
        .skip(1)
        .map(|n| (!n.is_empty()).then(|| series_of(n)))
        .collect();
    let mut out = DcgmSamples::default();
    let reject = |line: u64, reason: RejectReason, detail: String| RejectedRow {
        file: file.clone(),
        line,
        reason,
        detail,
    };
    let Some(metric) = UtilMetric::from_name(&metric_name) else {
        for (_, line) in rows {
            if line != header_line {
                out.ignored_samples += line.split(',').skip(1).filter(|v| !is_null_marker(v.trim())).count() as u64;
            }
        }
        out.frame = utilization_frame(&[]).map_err(|e| DataError::FrameNotBuilt(e).in_file(&file))?;
        return Ok(out);
    };

    let mut samples = Vec::new();
    for (line_no, line) in rows {
        if line == header_line {
            continue;
        }
        let fields = match record_fields(line, names.len()) {
            Ok(fields) => fields,
            Err(detail) => {
                out.quarantine.add(reject(line_no, RejectReason::MalformedRow, detail));
                continue;
            }
        };
        let raw_time = fields.first().map_or("", |f| f.trim());
        let Some(time_ms) = parse_sample_time_ms(raw_time) else {
            out.quarantine.add(reject(
                line_no,
                RejectReason::UnparseableTime,
                format!("column {}: \"{raw_time}\"", names[0]),
            ));
            continue;
        };
        for (index, series) in series.iter().enumerate() {
            let Some((host, gpu)) = series else { continue };
            let raw = fields.get(index + 1).map_or("", |f| f.trim());
            match parse_util(raw, metric) {
                Ok(util_frac) => samples.push(Sample {
                    time_ms,
                    host: host.clone(),
                    gpu: gpu.clone(),
                    util_frac,
                    line: line_no,
                    metric,
                }),
                Err(detail) => out.quarantine.add(reject(
                    line_no,
                    RejectReason::UnparseableNumber,
                    format!("column {}: {detail}", names[index + 1]),
                )),
            }
        }
    }
    if !samples.is_empty() {
        out.metrics.insert(metric, samples.len() as u64);
    }
    out.frame = utilization_frame(&samples).map_err(|e| DataError::FrameNotBuilt(e).in_file(&file))?;
    Ok(out)
}

/// The DCGM field named in a file name: `DCGM_FI_DEV_GPU_UTIL.csv`,
/// `node-export_DCGM_FI_PROF_SM_ACTIVE_2024_03.csv` (trailing numeric parts are dropped).
pub(super) fn metric_in_file_name(file_name: &str) -> Option<String> {
    let upper = file_name.to_ascii_uppercase();
    let start = upper.find("DCGM_FI_")?;
    let token: String = upper[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let mut name = token.as_str();
    while UtilMetric::from_name(name).is_none() {
        match name.rsplit_once('_') {
            Some((head, tail)) if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) => name = head,
            _ => break,
        }
    }
    Some(name.to_string())
}

/// A wide column's name as (host, gpu). See the module notes for the forms.
pub(super) fn series_of(name: &str) -> (String, String) {
    let name = name.trim();
    if let (Some(open), Some(close)) = (name.find('{'), name.rfind('}'))
        && open < close
    {
        let labels: Vec<(String, String)> = name[open + 1..close]
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().trim_matches('"').to_string()))
            .collect();
        let label = |keys: &[&str]| {
            keys.iter().find_map(|k| {
                labels
                    .iter()
                    .find(|(key, v)| key == k && !v.is_empty())
                    .map(|(_, v)| v.clone())
            })
        };
        if let Some(host) = label(HOST_NAMES) {
            let gpu = label(GPU_NAMES).unwrap_or_else(|| ALL_GPUS.to_string());
            return (host, gpu);
        }
    }
    if let Some((host, gpu)) = name.rsplit_once('/')
        && !host.trim().is_empty()
        && !gpu.trim().is_empty()
    {
        let gpu = gpu.trim();
        let gpu = gpu
            .strip_prefix("gpu")
            .or_else(|| gpu.strip_prefix("GPU"))
            .filter(|d| !d.is_empty())
            .unwrap_or(gpu);
        return (host.trim().to_string(), gpu.to_string());
    }
    for separator in [':', ' '] {
        if let Some((host, gpu)) = name.rsplit_once(separator) {
            let lower = gpu.trim().to_ascii_lowercase();
            if let Some(index) = lower.strip_prefix("gpu")
                && !index.is_empty()
                && index.bytes().all(|b| b.is_ascii_digit())
                && !host.trim().is_empty()
            {
                return (host.trim().to_string(), index.to_string());
            }
        }
    }
    (name.to_string(), ALL_GPUS.to_string())
}
