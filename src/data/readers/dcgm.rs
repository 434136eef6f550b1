//! NVIDIA DCGM exporter utilization samples into a utilization frame:
//! `time` (Datetime ms, UTC), `host` (String), `gpu` (String), `util_frac` (Float64, 0–1,
//! null for a sample the exporter left empty), `source_line` (UInt64), in file order.
//!
//! Two layouts:
//! - **long**: `time,host,gpu,metric,value` with any column order, header names
//!   case-insensitive and a few aliases (`timestamp`, `Hostname`/`instance`, `gpu_id`/`GPU`,
//!   `__name__`). Without a gpu column a sample is the host's (`gpu` = [`ALL_GPUS`]).
//! - **wide**: `Time,<series>,<series>,...`, one file per metric. The metric comes from the
//!   caller or from the file name (`DCGM_FI_DEV_GPU_UTIL.csv`). A series is named `host`
//!   (a host-level series, `gpu` = [`ALL_GPUS`]), `host/0`, `host:gpu0`, `host gpu0`, or a
//!   Prometheus label set such as `{Hostname="node1", gpu="0"}`.
//!
//! Units: `DCGM_FI_DEV_GPU_UTIL` is a percentage (0–100) and is divided by 100;
//! `DCGM_FI_PROF_GR_ENGINE_ACTIVE`, `DCGM_FI_PROF_SM_ACTIVE` and
//! `DCGM_FI_PROF_PIPE_TENSOR_ACTIVE` are ratios (0–1) already. Any other metric (clocks,
//! memory, power...) is not utilization: its samples are skipped and counted in
//! [`DcgmSamples::ignored_samples`].
//!
//! When a long file mixes utilization metrics, each GPU (host, gpu) keeps the best one it has,
//! in the order GR_ENGINE_ACTIVE, SM_ACTIVE, GPU_UTIL, PIPE_TENSOR_ACTIVE; the others are
//! skipped and counted in [`DcgmSamples::superseded_samples`]. Choosing per GPU rather than per
//! sample keeps every GPU's series in one unit of measure, while a host that exports no
//! profiling metrics still contributes its GPU_UTIL.
//!
//! Values: empty, `NA`, `N/A`, `NULL`, `None` are null samples (kept, util_frac null). A value
//! that is not a number, is NaN or infinite, is negative, or lies more than 1 % beyond the
//! metric's range (such as `999865.0000000001` for a percentage) is quarantined as an
//! unparseable number and left out of the frame; a value within 1 % above the top is clamped
//! to 1 (profiling ratios overshoot slightly).
//!
//! Times: RFC 3339 with an offset or `Z` (`2024-03-01T10:00:00+02:00`), the same with a space
//! for `T`, a trailing ` UTC`, naive times (read as UTC), or epoch seconds (fractions allowed;
//! magnitudes of 1e11 and above are taken as epoch milliseconds).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use chrono::{DateTime, NaiveDateTime};
use polars::prelude::*;

use super::reject::{Quarantine, RejectReason, RejectedRow};
use crate::data::canonical::SOURCE_LINE;

pub const TIME: &str = "time";
pub const HOST: &str = "host";
pub const GPU: &str = "gpu";
pub const UTIL_FRAC: &str = "util_frac";
/// The `gpu` of a sample that covers the whole host.
pub const ALL_GPUS: &str = "all";

/// How far above the top of its range a value may be before it is rejected (then clamped).
const RANGE_SLACK_FRAC: f64 = 0.01;

/// The utilization frame's columns, in order, with their types.
pub fn utilization_schema() -> Schema {
    Schema::from_iter([
        Field::new(TIME.into(), DataType::Datetime(TimeUnit::Milliseconds, None)),
        Field::new(HOST.into(), DataType::String),
        Field::new(GPU.into(), DataType::String),
        Field::new(UTIL_FRAC.into(), DataType::Float64),
        Field::new(SOURCE_LINE.into(), DataType::UInt64),
    ])
}

/// A DCGM field that measures utilization; the order is the preference when several are present.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UtilMetric {
    GrEngineActive,
    SmActive,
    GpuUtil,
    PipeTensorActive,
}

impl UtilMetric {
    /// Recognizes `DCGM_FI_DEV_GPU_UTIL`, `dcgm_fi_prof_sm_active`, `GPU_UTIL`...; `None` for
    /// fields that are not utilization.
    pub fn from_name(name: &str) -> Option<UtilMetric> {
        let upper = name.trim().to_ascii_uppercase();
        let short = upper
            .strip_prefix("DCGM_FI_DEV_")
            .or_else(|| upper.strip_prefix("DCGM_FI_PROF_"))
            .unwrap_or(&upper);
        match short {
            "GR_ENGINE_ACTIVE" => Some(UtilMetric::GrEngineActive),
            "SM_ACTIVE" => Some(UtilMetric::SmActive),
            "GPU_UTIL" => Some(UtilMetric::GpuUtil),
            "PIPE_TENSOR_ACTIVE" => Some(UtilMetric::PipeTensorActive),
            _ => None,
        }
    }

    pub fn dcgm_name(self) -> &'static str {
        match self {
            UtilMetric::GrEngineActive => "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
            UtilMetric::SmActive => "DCGM_FI_PROF_SM_ACTIVE",
            UtilMetric::GpuUtil => "DCGM_FI_DEV_GPU_UTIL",
            UtilMetric::PipeTensorActive => "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
        }
    }

    /// GPU_UTIL is 0–100 %; the profiling fields are 0–1 ratios.
    pub fn is_percent(self) -> bool {
        self == UtilMetric::GpuUtil
    }
}

/// A utilization frame with what was set aside and skipped.
#[derive(Debug, Clone, Default)]
pub struct DcgmSamples {
    pub frame: DataFrame,
    pub quarantine: Quarantine,
    /// Rows kept in the frame, per metric.
    pub metrics: BTreeMap<UtilMetric, u64>,
    /// Samples of metrics that are not utilization (clocks, memory, power...).
    pub ignored_samples: u64,
    /// Samples of a utilization metric passed over for a better one on the same GPU.
    pub superseded_samples: u64,
}

impl DcgmSamples {
    pub fn into_parts(self) -> (DataFrame, Quarantine) {
        (self.frame, self.quarantine)
    }
}

/// True for a long-layout header: time, host, metric and value columns (gpu optional).
pub fn looks_like_dcgm_long(header: &str) -> bool {
    let names = header_names(header);
    LongColumns::find(&names).is_ok()
}

/// True for a wide-layout header (`Time,<series>,...`) in a file named after a DCGM field.
pub fn looks_like_dcgm_wide(header: &str, file_name: &str) -> bool {
    let names = header_names(header);
    names.len() >= 2
        && names
            .first()
            .is_some_and(|first| TIME_NAMES.contains(&first.to_ascii_lowercase().as_str()))
        && LongColumns::find(&names).is_err()
        && metric_in_file_name(file_name).is_some()
}

/// Reads a long export into the utilization frame and a quarantine.
pub fn read_dcgm_long(path: &Path, text: &str) -> Result<(DataFrame, Quarantine), String> {
    read_dcgm_long_detailed(path, text).map(DcgmSamples::into_parts)
}

/// As [`read_dcgm_long`], with the metrics used and the samples skipped.
pub fn read_dcgm_long_detailed(path: &Path, text: &str) -> Result<DcgmSamples, String> {
    let file = path.display().to_string();
    let (header_line, rows) = header_and_rows(text).ok_or_else(|| format!("{file}: the file is empty"))?;
    let names = header_names(header_line);
    let columns = LongColumns::find(&names).map_err(|why| format!("{file}: not a DCGM long export: {why}"))?;
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
    out.frame = utilization_frame(&samples).map_err(|e| format!("{file}: could not build the frame: {e}"))?;
    Ok(out)
}

/// Reads a wide export (one metric per file) into the utilization frame and a quarantine.
/// `metric` names the DCGM field when the file name does not.
pub fn read_dcgm_wide(path: &Path, text: &str, metric: Option<&str>) -> Result<(DataFrame, Quarantine), String> {
    read_dcgm_wide_detailed(path, text, metric).map(DcgmSamples::into_parts)
}

/// As [`read_dcgm_wide`], with the metric used and the samples skipped.
pub fn read_dcgm_wide_detailed(path: &Path, text: &str, metric: Option<&str>) -> Result<DcgmSamples, String> {
    let file = path.display().to_string();
    let file_name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let metric_name = match metric {
        Some(name) => name.to_string(),
        None => metric_in_file_name(&file_name).ok_or_else(|| {
            format!("{file}: cannot tell which DCGM metric this wide export holds: name the file after it (DCGM_FI_DEV_GPU_UTIL.csv) or give the metric")
        })?,
    };
    let (header_line, rows) = header_and_rows(text).ok_or_else(|| format!("{file}: the file is empty"))?;
    let names = header_names(header_line);
    if names.len() < 2
        || !names
            .first()
            .is_some_and(|n| TIME_NAMES.contains(&n.to_ascii_lowercase().as_str()))
    {
        return Err(format!(
            "{file}: not a DCGM wide export: expected `Time,<host>,...`, found \"{}\"",
            header_line.trim()
        ));
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
        out.frame = utilization_frame(&[]).map_err(|e| format!("{file}: could not build the frame: {e}"))?;
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
    out.frame = utilization_frame(&samples).map_err(|e| format!("{file}: could not build the frame: {e}"))?;
    Ok(out)
}

#[derive(Debug, Clone, PartialEq)]
struct Sample {
    time_ms: i64,
    host: String,
    gpu: String,
    util_frac: Option<f64>,
    line: u64,
}

fn utilization_frame(samples: &[Sample]) -> PolarsResult<DataFrame> {
    let time = Column::new(TIME.into(), samples.iter().map(|s| s.time_ms).collect::<Vec<i64>>())
        .cast(&DataType::Datetime(TimeUnit::Milliseconds, None))?;
    DataFrame::new(
        samples.len(),
        vec![
            time,
            Column::new(
                HOST.into(),
                samples.iter().map(|s| s.host.as_str()).collect::<Vec<&str>>(),
            ),
            Column::new(
                GPU.into(),
                samples.iter().map(|s| s.gpu.as_str()).collect::<Vec<&str>>(),
            ),
            Column::new(
                UTIL_FRAC.into(),
                samples.iter().map(|s| s.util_frac).collect::<Vec<Option<f64>>>(),
            ),
            Column::new(SOURCE_LINE.into(), samples.iter().map(|s| s.line).collect::<Vec<u64>>()),
        ],
    )
}

const TIME_NAMES: &[&str] = &["time", "timestamp", "ts", "datetime", "date", "_time"];
const HOST_NAMES: &[&str] = &["host", "hostname", "instance", "node", "nodename", "node_name"];
const GPU_NAMES: &[&str] = &["gpu", "gpu_id", "gpu_index", "gpuid", "device", "gpu_uuid", "uuid"];
const METRIC_NAMES: &[&str] = &["metric", "metric_name", "__name__", "field", "name"];
const VALUE_NAMES: &[&str] = &["value", "val", "_value"];

struct LongColumns {
    time: usize,
    host: usize,
    gpu: Option<usize>,
    metric: usize,
    value: usize,
}

impl LongColumns {
    fn find(names: &[String]) -> Result<LongColumns, String> {
        let lower: Vec<String> = names.iter().map(|n| n.to_ascii_lowercase()).collect();
        let position = |aliases: &[&str]| aliases.iter().find_map(|a| lower.iter().position(|n| n == a));
        let need = |aliases: &[&str], role: &str| {
            position(aliases).ok_or_else(|| {
                format!(
                    "no {role} column (one of {}) in \"{}\"",
                    aliases.join(", "),
                    names.join(",")
                )
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

/// The first non-blank line (BOM removed) and the numbered lines after it.
fn header_and_rows(text: &str) -> Option<(&str, impl Iterator<Item = (u64, &str)>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i as u64 + 1, l));
    let (_, header) = lines.by_ref().find(|(_, l)| !l.trim().is_empty())?;
    Some((header, lines.filter(|(_, l)| !l.trim().is_empty())))
}

fn header_names(header: &str) -> Vec<String> {
    let header = header.trim_start_matches('\u{feff}');
    let mut names: Vec<String> = split_csv(header)
        .unwrap_or_else(|| header.split(',').map(Cow::Borrowed).collect())
        .iter()
        .map(|n| n.trim().to_string())
        .collect();
    // A trailing comma leaves an empty last name.
    while names.len() > 1 && names.last().is_some_and(|n| n.is_empty()) {
        names.pop();
    }
    names
}

/// The row's fields when it has `expected` of them; extra fields are tolerated when empty
/// (trailing commas), missing ones are not.
fn split_fields(line: &str, expected: usize) -> Option<Vec<Cow<'_, str>>> {
    let mut fields = split_csv(line)?;
    while fields.len() > expected && fields.last().is_some_and(|f| f.trim().is_empty()) {
        fields.pop();
    }
    (fields.len() == expected).then_some(fields)
}

/// A data line's fields, or what is wrong with its shape.
fn record_fields(line: &str, expected: usize) -> Result<Vec<Cow<'_, str>>, String> {
    split_fields(line, expected).ok_or_else(|| {
        format!(
            "expected {expected} comma-separated fields, found {}",
            count_fields(line)
        )
    })
}

fn count_fields(line: &str) -> usize {
    split_csv(line).map_or_else(|| line.split(',').count(), |f| f.len())
}

/// Splits one CSV line on commas, honouring double quotes (`""` inside quotes is a quote).
/// `None` for an unterminated quote.
fn split_csv(line: &str) -> Option<Vec<Cow<'_, str>>> {
    if !line.contains('"') {
        return Some(line.split(',').map(Cow::Borrowed).collect());
    }
    let mut fields = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                current.push('"');
                chars.next();
            }
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => fields.push(Cow::Owned(std::mem::take(&mut current))),
            _ => current.push(c),
        }
    }
    if in_quotes {
        return None;
    }
    fields.push(Cow::Owned(current));
    Some(fields)
}

fn is_null_marker(value: &str) -> bool {
    value.is_empty()
        || ["na", "n/a", "null", "none"]
            .iter()
            .any(|m| value.eq_ignore_ascii_case(m))
}

/// A sample as a 0–1 fraction; `Ok(None)` for a null marker; `Err` with the reason otherwise.
fn parse_util(raw: &str, metric: UtilMetric) -> Result<Option<f64>, String> {
    if is_null_marker(raw) {
        return Ok(None);
    }
    let value: f64 = raw.parse().map_err(|_| format!("value \"{raw}\" is not a number"))?;
    if !value.is_finite() {
        return Err(format!("value \"{raw}\" is not a finite number"));
    }
    let (frac, range) = if metric.is_percent() {
        (value / 100.0, "0–100 %")
    } else {
        (value, "0–1")
    };
    if !(0.0..=1.0 + RANGE_SLACK_FRAC).contains(&frac) {
        return Err(format!("value \"{raw}\" is outside {range} for {}", metric.dcgm_name()));
    }
    Ok(Some(frac.min(1.0)))
}

/// A sample time as UTC milliseconds. See the module notes for the forms read.
fn parse_sample_time_ms(raw: &str) -> Option<i64> {
    let s = raw.trim();
    if s.is_empty() {
        return None;
    }
    if let Ok(number) = s.parse::<f64>() {
        if !number.is_finite() {
            return None;
        }
        // Epoch seconds now are ~1.7e9; 1e11 seconds is the year 5138, so larger numbers are ms.
        let ms = if number.abs() >= 1e11 { number } else { number * 1000.0 };
        return Some(ms.round() as i64);
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.timestamp_millis());
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%d %H:%M:%S%.f%z"] {
        if let Ok(t) = DateTime::parse_from_str(s, format) {
            return Some(t.timestamp_millis());
        }
    }
    let naive = ["Z", " UTC", " GMT", "UTC"]
        .iter()
        .find_map(|suffix| s.strip_suffix(suffix))
        .unwrap_or(s);
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(naive.trim(), format).ok())
        .map(|t| t.and_utc().timestamp_millis())
}

/// The DCGM field named in a file name: `DCGM_FI_DEV_GPU_UTIL.csv`,
/// `node-export_DCGM_FI_PROF_SM_ACTIVE_2024_03.csv` (trailing numeric parts are dropped).
fn metric_in_file_name(file_name: &str) -> Option<String> {
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
fn series_of(name: &str) -> (String, String) {
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

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/dcgm/dcgm_long_mixed.csv"
    ));
    const WIDE_UTIL: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/dcgm/DCGM_FI_DEV_GPU_UTIL.csv"
    ));
    const WIDE_SM: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/dcgm/DCGM_FI_PROF_SM_ACTIVE.csv"
    ));

    fn utc_ms(iso: &str) -> i64 {
        NaiveDateTime::parse_from_str(iso, "%Y-%m-%dT%H:%M:%S")
            .expect("test time")
            .and_utc()
            .timestamp_millis()
    }

    fn strings(frame: &DataFrame, name: &str) -> Vec<String> {
        let column = frame.column(name).expect("column").str().expect("string column");
        column.iter().map(|v| v.unwrap_or("").to_string()).collect()
    }

    fn utils(frame: &DataFrame) -> Vec<Option<f64>> {
        frame
            .column(UTIL_FRAC)
            .expect("column")
            .f64()
            .expect("f64")
            .iter()
            .collect()
    }

    fn times(frame: &DataFrame) -> Vec<i64> {
        let physical = frame
            .column(TIME)
            .expect("column")
            .cast(&DataType::Int64)
            .expect("cast");
        physical.i64().expect("i64").iter().map(|v| v.expect("time")).collect()
    }

    fn lines(frame: &DataFrame) -> Vec<u64> {
        frame
            .column(SOURCE_LINE)
            .expect("column")
            .u64()
            .expect("u64")
            .iter()
            .map(|v| v.expect("line"))
            .collect()
    }

    #[test]
    fn frame_has_the_utilization_schema() {
        let (frame, _) = read_dcgm_long(Path::new("dcgm.csv"), LONG).expect("readable");
        assert_eq!(frame.schema().as_ref(), &utilization_schema());
        let (empty, _) = read_dcgm_long(Path::new("dcgm.csv"), "time,host,gpu,metric,value\n").expect("header only");
        assert_eq!(empty.height(), 0);
        assert_eq!(empty.schema().as_ref(), &utilization_schema());
    }

    #[test]
    fn long_mixed_metrics_keep_the_best_per_gpu_in_its_unit() {
        let out = read_dcgm_long_detailed(Path::new("dcgm.csv"), LONG).expect("readable");
        let frame = &out.frame;
        // node01 exports GR_ENGINE_ACTIVE (ratio) beside GPU_UTIL (percent): the ratio wins.
        // node02 exports only GPU_UTIL: its percentages are divided by 100.
        assert_eq!(
            strings(frame, HOST),
            ["node01", "node01", "node01", "node02", "node02", "node02"]
        );
        assert_eq!(strings(frame, GPU), ["0", "1", "0", "0", "0", "0"]);
        assert_eq!(
            utils(frame),
            [Some(0.92), Some(0.15), Some(0.9), Some(0.45), None, Some(1.0)]
        );
        assert_eq!(out.metrics[&UtilMetric::GrEngineActive], 3);
        assert_eq!(out.metrics[&UtilMetric::GpuUtil], 3);
        assert_eq!(out.superseded_samples, 3);
        assert_eq!(out.ignored_samples, 2);
        // Offsets are honoured: 12:00+02:00 is 10:00 UTC; epoch seconds and Z read too.
        let t = times(frame);
        assert_eq!(t[0], utc_ms("2024-03-01T10:00:00"));
        assert_eq!(t[2], utc_ms("2024-03-01T10:01:00"));
        assert_eq!(t[3], utc_ms("2024-03-01T10:00:00"));
        assert_eq!(t[4], utc_ms("2024-03-01T10:01:00"));
        assert_eq!(lines(frame), [2, 3, 6, 9, 10, 11]);
    }

    #[test]
    fn long_bad_values_and_times_are_quarantined_with_lines() {
        let out = read_dcgm_long_detailed(Path::new("dcgm.csv"), LONG).expect("readable");
        let q = &out.quarantine;
        assert_eq!(q.counts[&RejectReason::UnparseableNumber], 2);
        assert_eq!(q.counts[&RejectReason::UnparseableTime], 1);
        assert_eq!(q.counts[&RejectReason::MalformedRow], 1);
        let at = |line: u64| q.samples.iter().find(|s| s.line == line).expect("sample at line");
        assert!(at(12).detail.contains("999865.0000000001"), "{}", at(12).detail);
        assert_eq!(at(13).reason, RejectReason::UnparseableNumber);
        assert_eq!(at(14).reason, RejectReason::UnparseableTime);
        assert_eq!(at(15).reason, RejectReason::MalformedRow);
        assert_eq!(at(12).file, "dcgm.csv");
    }

    #[test]
    fn long_header_aliases_any_order_and_no_gpu_column() {
        let text = "Value,Hostname,TIMESTAMP,__name__\n\
                    0.5,n1,1709287200,DCGM_FI_PROF_SM_ACTIVE\n\
                    0.25,n1,1709287260.5,dcgm_fi_prof_sm_active\n";
        let out = read_dcgm_long_detailed(Path::new("x.csv"), text).expect("readable");
        assert_eq!(utils(&out.frame), [Some(0.5), Some(0.25)]);
        assert_eq!(strings(&out.frame, GPU), [ALL_GPUS, ALL_GPUS]);
        assert_eq!(
            times(&out.frame),
            [utc_ms("2024-03-01T10:00:00"), utc_ms("2024-03-01T10:01:00") + 500]
        );
        assert!(looks_like_dcgm_long("Value,Hostname,TIMESTAMP,__name__"));
        assert!(looks_like_dcgm_long("time,host,gpu,metric,value,"));
        assert!(!looks_like_dcgm_long("Time,node01,node02"));
    }

    #[test]
    fn percent_and_ratio_units() {
        assert_eq!(parse_util("87", UtilMetric::GpuUtil), Ok(Some(0.87)));
        assert_eq!(parse_util("0.87", UtilMetric::SmActive), Ok(Some(0.87)));
        assert_eq!(parse_util("1.004", UtilMetric::GrEngineActive), Ok(Some(1.0)));
        assert!(parse_util("87", UtilMetric::SmActive).is_err());
        assert!(parse_util("-3", UtilMetric::GpuUtil).is_err());
        assert!(parse_util("NaN", UtilMetric::GpuUtil).is_err());
        assert!(parse_util("999865.0000000001", UtilMetric::GpuUtil).is_err());
        for null in ["", "NA", "N/A", "NULL", "None", "null"] {
            assert_eq!(parse_util(null, UtilMetric::GpuUtil), Ok(None), "{null}");
        }
    }

    #[test]
    fn time_forms() {
        let ten = utc_ms("2024-03-01T10:00:00");
        for form in [
            "2024-03-01T10:00:00Z",
            "2024-03-01T12:00:00+02:00",
            "2024-03-01T05:00:00-05:00",
            "2024-03-01 12:00:00+02:00",
            "2024-03-01T12:00:00+0200",
            "2024-03-01T10:00:00",
            "2024-03-01 10:00:00 UTC",
            "2024-03-01T10:00:00.000Z",
            "1709287200",
            "1709287200000",
        ] {
            assert_eq!(parse_sample_time_ms(form), Some(ten), "{form}");
        }
        assert_eq!(parse_sample_time_ms("1709287200.25"), Some(ten + 250));
        assert_eq!(parse_sample_time_ms("yesterday"), None);
        assert_eq!(parse_sample_time_ms("NaN"), None);
        assert_eq!(parse_sample_time_ms("2024-03-01"), None);
        assert_eq!(parse_sample_time_ms("2024-02-30T10:00:00Z"), None);
    }

    #[test]
    fn wide_percent_file_reads_per_host_series() {
        let path = Path::new("exports/DCGM_FI_DEV_GPU_UTIL.csv");
        let out = read_dcgm_wide_detailed(path, WIDE_UTIL, None).expect("readable");
        let frame = &out.frame;
        assert_eq!(frame.schema().as_ref(), &utilization_schema());
        assert_eq!(
            strings(frame, HOST),
            [
                "node01", "node01", "node02", "node01", "node01", "node02", "node01", "node02"
            ]
        );
        assert_eq!(strings(frame, GPU), ["0", "1", "all", "0", "1", "all", "0", "all"]);
        assert_eq!(
            utils(frame),
            [
                Some(0.97),
                Some(0.12),
                Some(0.5),
                Some(0.99),
                None,
                Some(0.0),
                Some(1.0),
                None
            ]
        );
        assert_eq!(out.metrics[&UtilMetric::GpuUtil], 8);
        assert_eq!(times(frame)[0], utc_ms("2024-03-01T10:00:00"));
        assert_eq!(lines(frame), [2, 2, 2, 3, 3, 3, 4, 4]);
        // Row 4's node01/gpu1 cell is out of range; row 5's time is bad.
        let q = &out.quarantine;
        assert_eq!(q.counts[&RejectReason::UnparseableNumber], 1);
        assert_eq!(q.counts[&RejectReason::UnparseableTime], 1);
        let lines: Vec<u64> = q.samples.iter().map(|s| s.line).collect();
        assert_eq!(lines, [4, 5]);
        assert!(q.samples[0].detail.contains("node01/gpu1"), "{}", q.samples[0].detail);
    }

    #[test]
    fn wide_ratio_file_with_label_names_offsets_and_trailing_commas() {
        let path = Path::new("DCGM_FI_PROF_SM_ACTIVE.csv");
        let out = read_dcgm_wide_detailed(path, WIDE_SM, None).expect("readable");
        let frame = &out.frame;
        assert_eq!(strings(frame, HOST), ["node07", "node07", "node07", "node07"]);
        assert_eq!(strings(frame, GPU), ["0", "1", "0", "1"]);
        assert_eq!(utils(frame), [Some(0.81), Some(0.4), Some(0.77), Some(0.0)]);
        assert_eq!(
            times(frame),
            [
                utc_ms("2024-03-01T10:00:00"),
                utc_ms("2024-03-01T10:00:00"),
                utc_ms("2024-03-01T10:00:30"),
                utc_ms("2024-03-01T10:00:30")
            ]
        );
        assert_eq!(out.quarantine.total(), 0);
    }

    #[test]
    fn wide_metric_from_the_caller_and_other_metrics_ignored() {
        let text = "Time,node01/0\n2024-03-01T10:00:00Z,0.5\n";
        let (frame, _) =
            read_dcgm_wide(Path::new("util.csv"), text, Some("DCGM_FI_PROF_GR_ENGINE_ACTIVE")).expect("metric");
        assert_eq!(utils(&frame), [Some(0.5)]);
        let err = read_dcgm_wide(Path::new("util.csv"), text, None).expect_err("no metric");
        assert!(err.contains("util.csv") && err.contains("metric"), "{err}");
        let clocks = "Time,node01,node02\n2024-03-01T10:00:00Z,1593,1593\n2024-03-01T10:01:00Z,1593,\n";
        let out = read_dcgm_wide_detailed(Path::new("DCGM_FI_DEV_MEM_CLOCK.csv"), clocks, None).expect("ignored");
        assert_eq!(out.frame.height(), 0);
        assert_eq!(out.ignored_samples, 3);
        assert_eq!(out.frame.schema().as_ref(), &utilization_schema());
    }

    #[test]
    fn wide_detection_and_names() {
        assert!(looks_like_dcgm_wide("Time,node01,node02", "DCGM_FI_DEV_GPU_UTIL.csv"));
        assert!(looks_like_dcgm_wide(
            "\"Time\",\"node01\"",
            "dcgm_fi_prof_sm_active-2024-03.csv"
        ));
        assert!(!looks_like_dcgm_wide("Time,node01,node02", "util.csv"));
        assert!(!looks_like_dcgm_wide(
            "time,host,gpu,metric,value",
            "DCGM_FI_DEV_GPU_UTIL.csv"
        ));
        assert_eq!(
            metric_in_file_name("DCGM_FI_DEV_GPU_UTIL_2024_03.csv").as_deref(),
            Some("DCGM_FI_DEV_GPU_UTIL")
        );
        assert_eq!(
            metric_in_file_name("a-dcgm_fi_prof_sm_active.csv").as_deref(),
            Some("DCGM_FI_PROF_SM_ACTIVE")
        );
        assert_eq!(metric_in_file_name("gpu.csv"), None);
        let pair = |h: &str, g: &str| (h.to_string(), g.to_string());
        assert_eq!(series_of("node01"), pair("node01", ALL_GPUS));
        assert_eq!(series_of("10.0.0.7:9400"), pair("10.0.0.7:9400", ALL_GPUS));
        assert_eq!(series_of("node01:gpu3"), pair("node01", "3"));
        assert_eq!(series_of("node01 GPU3"), pair("node01", "3"));
        assert_eq!(series_of("node01/gpu3"), pair("node01", "3"));
        assert_eq!(
            series_of("DCGM_FI_DEV_GPU_UTIL{gpu=\"2\", Hostname=\"n9\"}"),
            pair("n9", "2")
        );
    }

    #[test]
    fn unreadable_files_give_one_clear_error() {
        let empty = read_dcgm_long(Path::new("d.csv"), "").expect_err("empty");
        assert!(empty.contains("d.csv") && empty.contains("empty"), "{empty}");
        let not_long = read_dcgm_long(Path::new("d.csv"), "time,host,value\n").expect_err("no metric");
        assert!(not_long.contains("d.csv") && not_long.contains("metric"), "{not_long}");
        let not_wide =
            read_dcgm_wide(Path::new("DCGM_FI_DEV_GPU_UTIL.csv"), "host,value\n", None).expect_err("no time");
        assert!(not_wide.contains("Time"), "{not_wide}");
    }
}
