//! nvidia-smi's two recordings as entries of `readers::formats`: the wiring only, the reading
//! is `read_recording`.

use super::{RecordingLayout, looks_like_dmon, looks_like_query_data_line, looks_like_query_header, read_recording};
use crate::data::error::DataError;
use crate::data::readers::formats::{FormatRead, LogFormat, LogReader, Probe, ReadInput, Yielded, Yields};

/// `nvidia-smi dmon`.
pub struct Dmon;
/// `nvidia-smi --query-gpu=... --format=csv`, with or without its header.
pub struct NvidiaSmiQuery;

impl LogReader for Dmon {
    fn name(&self) -> &'static str {
        "dmon"
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["nvidia-smi-dmon"]
    }
    fn yields(&self) -> Yields {
        Yields::UtilizationSamples
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::Dmon
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::Dmon
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        Ok(looks_like_dmon(&probe.text()?.text).then_some(LogFormat::Dmon))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        recording_read(input, RecordingLayout::Dmon)
    }
}

impl LogReader for NvidiaSmiQuery {
    fn name(&self) -> &'static str {
        "nvidia-smi"
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["nvidia-smi-query", "query-gpu"]
    }
    fn yields(&self) -> Yields {
        Yields::UtilizationSamples
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::NvidiaSmi
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::NvidiaSmi
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        let line = &probe.text()?.header_line;
        let is_query = looks_like_query_header(line) || looks_like_query_data_line(line);
        Ok(is_query.then_some(LogFormat::NvidiaSmi))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        recording_read(input, RecordingLayout::Query)
    }
}

fn recording_read(input: &ReadInput<'_>, layout: RecordingLayout) -> Result<FormatRead, DataError> {
    let recording = read_recording(input.path, layout)?;
    Ok(FormatRead {
        rows: recording.data_lines as usize,
        notes: vec![recording.summary()],
        yielded: Yielded::UtilizationSamples(recording.frame),
        quarantine: recording.quarantine,
        warnings: Vec::new(),
    })
}
