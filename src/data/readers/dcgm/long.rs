//! The long layout: one sample per line (`time,host,gpu,metric,value`), several metrics mixed,
//! each GPU keeping the best utilization metric it has.

use std::collections::HashMap;
use std::path::Path;

use polars::prelude::*;

use super::text::{
    GPU_NAMES, HOST_NAMES, METRIC_NAMES, TIME_NAMES, VALUE_NAMES, header_and_rows, header_names, parse_sample_time_ms,
    parse_util, record_fields,
};
use super::{ALL_GPUS, DcgmSamples, Sample, UtilMetric, utilization_frame};
use crate::data::error::DataError;
use crate::data::readers::reject::{Quarantine, RejectReason, RejectedRow};

/// Reads a long export into the utilization frame and a quarantine.
pub fn read_dcgm_long(path: &Path, text: &str) -> Result<(DataFrame, Quarantine), DataError> {
    read_dcgm_long_detailed(path, text).map(DcgmSamples::into_parts)
}

/// As [`read_dcgm_long`], with the metrics used and the samples skipped.
pub fn read_dcgm_long_detailed(path: &Path, text: &str) -> Result<DcgmSamples, DataError> {
    let file = path.display().to_string();
    let ((header_no, header_line), rows) = header_and_rows(text).ok_or_else(|| DataError::Empty.in_file(&file))?;
    let names = header_names(header_line);
    let columns =
        LongColumns::find(&names).map_err(|why| why.not_format("DCGM long export").in_file_at(&file, header_no))?;
    let mut out = DcgmSamples::default();
    let reject = |line: u64, reason: RejectReason, detail: String| RejectedRow {
        file: file.clone(),
        line,
        reason,
        detail,
    };

    struct LongRow {
        sample: Sample,
        metric: UtilMetric,
        value: Result<Option<f64>, String>,
    }
    let mut parsed: Vec<LongRow> = Vec::new();
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
        let field = |i: usize| fields.get(i).map_or("", |f| f.trim());
        let metric_name = field(columns.metric);
        let Some(metric) = UtilMetric::from_name(metric_name) else {
            out.ignored_samples += 1;
            continue;
        };
        let raw_time = field(columns.time);
        let Some(time_ms) = parse_sample_time_ms(raw_time) else {
            out.quarantine.add(reject(
                line_no,
                RejectReason::UnparseableTime,
                format!("column time: \"{raw_time}\""),
            ));
            continue;
        };
        let host = field(columns.host);
        if host.is_empty() {
            out.quarantine.add(reject(
                line_no,
                RejectReason::MalformedRow,
                "column host is empty".into(),
            ));
            continue;
        }
        let gpu = columns.gpu.map(field).filter(|g| !g.is_empty()).unwrap_or(ALL_GPUS);
        let value = parse_util(field(columns.value), metric);
        let sample = Sample {
            time_ms,
            host: host.to_string(),
            gpu: gpu.to_string(),
            util_frac: None,
            line: line_no,
            metric,
        };
        parsed.push(LongRow { sample, metric, value });
    }

    let mut best: HashMap<(&str, &str), UtilMetric> = HashMap::new();
    for row in &parsed {
        let entry = best
            .entry((row.sample.host.as_str(), row.sample.gpu.as_str()))
            .or_insert(row.metric);
        *entry = (*entry).min(row.metric);
    }
    let mut samples = Vec::with_capacity(parsed.len());
    for row in &parsed {
        if best.get(&(row.sample.host.as_str(), row.sample.gpu.as_str())) != Some(&row.metric) {
            out.superseded_samples += 1;
            continue;
        }
        match &row.value {
            Ok(util_frac) => {
                *out.metrics.entry(row.metric).or_insert(0) += 1;
                samples.push(Sample {
                    util_frac: *util_frac,
                    ..row.sample.clone()
                });
            }
            Err(detail) => out
                .quarantine
                .add(reject(row.sample.line, RejectReason::UnparseableNumber, detail.clone())),
        }
    }
    out.frame = utilization_frame(&samples).map_err(|e| DataError::FrameNotBuilt(e).in_file(&file))?;
    Ok(out)
}

pub(super) struct LongColumns {
    time: usize,
    host: usize,
    gpu: Option<usize>,
    metric: usize,
    value: usize,
}

impl LongColumns {
    pub(super) fn find(names: &[String]) -> Result<LongColumns, DataError> {
        let lower: Vec<String> = names.iter().map(|n| n.to_ascii_lowercase()).collect();
        let position = |aliases: &[&str]| aliases.iter().find_map(|a| lower.iter().position(|n| n == a));
        let need = |aliases: &'static [&'static str], role: &'static str| {
            position(aliases).ok_or_else(|| DataError::NoColumnOf {
                role,
                aliases,
                header: names.join(","),
            })
        };
        Ok(LongColumns {
            time: need(TIME_NAMES, "time")?,
            host: need(HOST_NAMES, "host")?,
            gpu: position(GPU_NAMES),
            metric: need(METRIC_NAMES, "metric")?,
            value: need(VALUE_NAMES, "value")?,
        })
    }
}
