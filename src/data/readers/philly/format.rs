//! Microsoft's Philly job list as an entry of `readers::formats`.

use crate::data::error::DataError;
use crate::data::readers::formats::{
    FormatRead, LogFormat, LogReader, Probe, ReadInput, RunsRead, Yielded, Yields, read_text,
};
use crate::data::readers::json_depth::{MAX_JSON_DEPTH, check_json_depth};

/// A JSON array of jobs with their `attempts` (`cluster_job_log`).
pub struct Philly;

impl LogReader for Philly {
    fn name(&self) -> &'static str {
        "philly"
    }
    fn yields(&self) -> Yields {
        Yields::Runs
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::Philly
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::Philly
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        let trimmed = probe.text()?.trimmed();
        Ok((trimmed.starts_with('[') && trimmed.contains("\"attempts\"")).then_some(LogFormat::Philly))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        check_json_depth(input.path, MAX_JSON_DEPTH)?;
        let text = read_text(input.path)?;
        let log = super::read_philly_detailed(input.path, &text, input.cluster_default)?;
        Ok(FormatRead {
            rows: log.runs.len(),
            yielded: Yielded::Runs(Box::new(RunsRead::from_runs(&log.runs, &log.pending)?)),
            quarantine: log.quarantine,
            warnings: Vec::new(),
            notes: Vec::new(),
        })
    }
}
