//! Slurm's `sacct -P` export as an entry of `readers::formats`.

use crate::data::error::DataError;
use crate::data::readers::formats::{
    FormatRead, LogFormat, LogReader, Probe, ReadInput, RunsRead, Yielded, Yields, read_text,
};

/// `sacct --parsable2` (`-P`): `|`-separated, with a `JobID` or `JobIDRaw` column.
pub struct Sacct;

impl LogReader for Sacct {
    fn name(&self) -> &'static str {
        "sacct"
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["slurm"]
    }
    fn yields(&self) -> Yields {
        Yields::Runs
    }
    fn layout(&self, _delimiter: Option<u8>) -> LogFormat {
        LogFormat::Sacct
    }
    fn reads(&self, format: LogFormat) -> bool {
        format == LogFormat::Sacct
    }
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError> {
        let text = probe.text()?;
        let names_a_job_id = text
            .header
            .iter()
            .any(|h| h.eq_ignore_ascii_case("JobID") || h.eq_ignore_ascii_case("JobIDRaw"));
        Ok((text.delimiter == b'|' && names_a_job_id).then_some(LogFormat::Sacct))
    }
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError> {
        let text = read_text(input.path)?;
        let mut log = super::read_sacct_detailed(input.path, &text, input.cluster_default)?;
        log.set_cpu_jobs_apart(input.shown);
        Ok(FormatRead {
            rows: log.runs.len(),
            yielded: Yielded::Runs(Box::new(RunsRead {
                hosts: log.hosts,
                ..RunsRead::from_runs(&log.runs, &log.pending)?
            })),
            quarantine: log.quarantine,
            warnings: log.host_problems,
            notes: Vec::new(),
        })
    }
}
