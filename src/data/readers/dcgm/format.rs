//! DCGM exports (long and wide) as entries of `readers::formats`.

use crate::data::error::DataError;
use crate::data::readers::formats::{FormatRead, LogFormat, LogReader, Probe, ReadInput, Yielded, Yields, read_text};

/// `time,host,gpu,metric,value` in any order (dcgm-exporter scraped into a long table).
pub struct DcgmLong;
/// `Time,<series>,...`, one file per metric named `DCGM_FI_...`.
pub struct DcgmWide;

impl LogReader for DcgmLong {
    fn name(&self) -> &'static str {
        "dcgm-long"
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["dcgm"]
    }
    fn yields(&self) -> Yields {
        Yields::UtilizationSamples
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::DcgmLong
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::DcgmLong
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        Ok(super::is_long_header(&probe.text()?.header).then_some(LogFormat::DcgmLong))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        let text = read_text(input.path)?;
        let (samples, quarantine) = super::read_dcgm_long(input.path, &text)?;
        Ok(samples_read(samples, quarantine))
    }
}

impl LogReader for DcgmWide {
    fn name(&self) -> &'static str {
        "dcgm-wide"
    }
    fn yields(&self) -> Yields {
        Yields::UtilizationSamples
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::DcgmWide
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::DcgmWide
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        let text = probe.text()?;
        Ok(super::is_wide_header(&text.header, &text.file_name).then_some(LogFormat::DcgmWide))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        let text = read_text(input.path)?;
        let (samples, quarantine) = super::read_dcgm_wide(input.path, &text, None)?;
        Ok(samples_read(samples, quarantine))
    }
}

fn samples_read(
    samples: polars::prelude::DataFrame,
    quarantine: crate::data::readers::reject::Quarantine,
) -> FormatRead {
    FormatRead {
        rows: samples.height(),
        yielded: Yielded::UtilizationSamples(samples),
        quarantine,
        warnings: Vec::new(),
        notes: Vec::new(),
    }
}
