//! Utilization recorded on the GPU node itself, where no dcgm-exporter runs: the logs of
//! `nvidia-smi --query-gpu=... --format=csv` (`query`) and of `nvidia-smi dmon` (`dmon`), read
//! into the utilization frame the DCGM readers give (see `dcgm`), detected from their headers.
//!
//! Measures (docs/utilization.md, "From the node itself"), per GPU the best it records, in the
//! DCGM reader's order:
//! - `gract` (dmon `--gpm-metrics 1`, Hopper's GPU performance monitoring): the share of the
//!   interval the graphics engine was busy, as DCGM's GR_ENGINE_ACTIVE;
//! - `smutil` (GPM 2): the share of the SMs' time with work on them, as SM_ACTIVE;
//! - `utilization.gpu` (the query) and dmon's `sm`: the share of the sample period in which any
//!   kernel ran, as GPU_UTIL;
//! - `mmaact` (GPM 5, tensor cores), as PIPE_TENSOR_ACTIVE, when nothing else is recorded.
//!
//! `smocc` (SM occupancy) is passed to a `Readings` but measures no utilization.
//!
//! Times are the node's clock as written, without an offset: each row keeps them so, with a
//! null `utc_offset_min`, and the audit applies the offset the plan's `[hosts]` or `--input-tz`
//! gives (UTC when neither does). Lines are read one at a time and folded into one row a
//! minute per GPU as they come (`fold`), so a recording of any length is read in the memory of
//! its minutes.
//!
//! By file: `text` (bounded lines, the node's clock, percentages), `query` and `dmon` (the two
//! layouts, each giving `LineReading`s to a `Readings`), `fold` (the readings into the frame),
//! `host` (the host a recording is of, from where it is kept).

mod dmon;
mod fold;
pub mod format;
mod host;
mod query;
#[cfg(test)]
mod tests;
mod text;

use std::io::BufReader;
use std::path::Path;

use polars::prelude::DataFrame;

pub use self::dmon::{looks_like_dmon, read_dmon};
pub use self::fold::{FOLD_MS, Fold, Folded};
pub use self::host::{HostOrigin, host_of_recording};
pub use self::query::{header_file_of, looks_like_query_data_line, looks_like_query_header, read_query};
use super::dcgm::UtilMetric;
use super::reject::Quarantine;
use crate::data::error::DataError;
use crate::shared::format::{count_of, thousands};

/// What a recording measures of a GPU, by the name nvidia-smi gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Measure {
    /// `--query-gpu=utilization.gpu`.
    UtilizationGpu,
    /// dmon's `sm` (`-s u`).
    DmonSm,
    /// GPM graphics engine activity.
    Gract,
    /// GPM SM activity.
    Smutil,
    /// GPM SM occupancy.
    Smocc,
    /// GPM tensor activity.
    Mmaact,
}

impl Measure {
    /// The column nvidia-smi writes it under.
    pub fn column(self) -> &'static str {
        match self {
            Measure::UtilizationGpu => "utilization.gpu",
            Measure::DmonSm => "sm",
            Measure::Gract => "gract",
            Measure::Smutil => "smutil",
            Measure::Smocc => "smocc",
            Measure::Mmaact => "mmaact",
        }
    }

    /// The DCGM field it stands for, which ranks it; `None` for one that is no utilization.
    pub fn as_dcgm(self) -> Option<UtilMetric> {
        match self {
            Measure::UtilizationGpu | Measure::DmonSm => Some(UtilMetric::GpuUtil),
            Measure::Gract => Some(UtilMetric::GrEngineActive),
            Measure::Smutil => Some(UtilMetric::SmActive),
            Measure::Mmaact => Some(UtilMetric::PipeTensorActive),
            Measure::Smocc => None,
        }
    }

    /// How the frame's `metric` names it: the column, the tool and the DCGM field it stands for.
    pub fn label(self) -> &'static str {
        match self {
            Measure::UtilizationGpu => "utilization.gpu (nvidia-smi, as DCGM_FI_DEV_GPU_UTIL)",
            Measure::DmonSm => "sm (nvidia-smi dmon, as DCGM_FI_DEV_GPU_UTIL)",
            Measure::Gract => "gract (nvidia-smi dmon GPM, as DCGM_FI_PROF_GR_ENGINE_ACTIVE)",
            Measure::Smutil => "smutil (nvidia-smi dmon GPM, as DCGM_FI_PROF_SM_ACTIVE)",
            Measure::Smocc => "smocc (nvidia-smi dmon GPM, SM occupancy)",
            Measure::Mmaact => "mmaact (nvidia-smi dmon GPM, as DCGM_FI_PROF_PIPE_TENSOR_ACTIVE)",
        }
    }
}

/// A measure's value in percent: `None` when not measured, an error naming the value when it
/// cannot be one.
pub type MeasureValue = Result<Option<f64>, String>;

/// One line of a recording: one GPU at one instant, each measure's value in percent (`None`
/// for a value not measured, an error naming the value for one that cannot be).
#[derive(Debug, Clone)]
pub struct LineReading<'a> {
    pub line: u64,
    /// Milliseconds from the epoch on the recording's clock.
    pub time_ms: i64,
    /// The recording stated its offset: `time_ms` is UTC.
    pub utc: bool,
    pub host: &'a str,
    pub gpu: &'a str,
    pub values: &'a [(Measure, MeasureValue)],
}

/// Where a recording's lines go as they are read.
pub trait Readings {
    fn line(&mut self, reading: &LineReading<'_>);
}

/// What a layout's reader found beside the readings: its data lines and the lines set aside.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub data_lines: u64,
    pub quarantine: Quarantine,
}

/// The two layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordingLayout {
    Query,
    Dmon,
}

/// A recording read: the utilization frame, the lines and values set aside, and what was read.
#[derive(Debug, Clone)]
pub struct NodeRecording {
    pub frame: DataFrame,
    pub quarantine: Quarantine,
    pub data_lines: u64,
    /// The host from the recording's place, when its lines did not name one.
    pub host: Option<(String, HostOrigin)>,
    /// Each GPU (host, gpu) and the measure it was read by; `None` when it recorded no value.
    pub series: Vec<(String, String, Option<Measure>)>,
    /// Samples in the frame.
    pub samples: u64,
    /// Samples of a measure passed over for a better one of the same GPU.
    pub superseded_samples: u64,
}

impl NodeRecording {
    /// One sentence for the audit's notes: the host and where its name came from, the measure
    /// each GPU was read by, and the values left out.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if let Some((host, origin)) = &self.host {
            parts.push(format!("host {host} (from {})", origin.describe()));
        }
        let mut by_measure: Vec<(Measure, u64)> = Vec::new();
        let mut silent = 0u64;
        for (_, _, measure) in &self.series {
            match measure {
                Some(m) => match by_measure.iter_mut().find(|(x, _)| x == m) {
                    Some((_, n)) => *n += 1,
                    None => by_measure.push((*m, 1)),
                },
                None => silent += 1,
            }
        }
        for (measure, gpus) in by_measure {
            parts.push(format!("{} by {}", count_of(gpus, "GPU", "GPUs"), measure.column()));
        }
        if silent > 0 {
            parts.push(format!("{} with no value", count_of(silent, "GPU", "GPUs")));
        }
        parts.push(format!("{} samples", thousands(self.samples as f64)));
        let left_out = self.quarantine.total();
        if left_out > 0 {
            parts.push(format!(
                "{} left out (see the rows set aside)",
                count_of(left_out, "line or value", "lines or values")
            ));
        }
        parts.join("; ")
    }
}

/// Reads the recording at `path` in `layout`, a line at a time.
pub fn read_recording(path: &Path, layout: RecordingLayout) -> Result<NodeRecording, DataError> {
    let file = std::fs::File::open(path).map_err(|e| DataError::cannot_open(path, e))?;
    let reader = BufReader::with_capacity(256 * 1024, file);
    let header_file = header_file_of(path);
    let header_beside = match layout {
        RecordingLayout::Query if header_file.is_file() => Some(std::fs::read_to_string(&header_file).map_err(
            |e| DataError::HeaderFile {
                path: header_file.clone(),
                source: std::sync::Arc::new(e),
            },
        )?),
        _ => None,
    };
    read_from(path, reader, layout, header_beside.as_deref())
}

/// As [`read_recording`], from text already in memory (tests and the fuzz targets).
pub fn read_recording_text(
    path: &Path,
    text: &str,
    layout: RecordingLayout,
    header_beside: Option<&str>,
) -> Result<NodeRecording, DataError> {
    read_from(path, text.as_bytes(), layout, header_beside)
}

fn read_from<R: std::io::BufRead>(
    path: &Path,
    reader: R,
    layout: RecordingLayout,
    header_beside: Option<&str>,
) -> Result<NodeRecording, DataError> {
    let file = path.display().to_string();
    let host = host_of_recording(path);
    let host_name = host.as_ref().map(|(h, _)| h.as_str());
    let mut fold = Fold::new(&file);
    let parsed = match layout {
        RecordingLayout::Query => read_query(path, reader, host_name, header_beside, &mut fold)?,
        RecordingLayout::Dmon => read_dmon(path, reader, host_name, &mut fold)?,
    };
    let Folded {
        frame,
        quarantine: values_left_out,
        series,
        samples,
        superseded_samples,
    } = fold.finish()?;
    let mut quarantine = parsed.quarantine;
    quarantine.merge(values_left_out);
    let from_place = host
        .ok()
        .filter(|(h, _)| series.iter().any(|(series_host, _, _)| series_host == h));
    Ok(NodeRecording {
        frame,
        quarantine,
        data_lines: parsed.data_lines,
        host: from_place,
        series,
        samples,
        superseded_samples,
    })
}
