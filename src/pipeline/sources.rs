//! Which logs a pipeline reads and how: the paths, the column mapping, a forced layout and the
//! Prometheus holding the fleet's metrics, or the Slurm whose accounting is read instead of logs. Resolved once from the command line or the
//! workbench's arguments and the plan's `[[logs]]`, so both faces read the same files the same
//! way.

use std::path::PathBuf;

use super::error::PipelineError;
use crate::model::plan::{Plan, PrometheusSource, SlurmSource, WarehouseSource};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sources {
    /// Job logs (files, folders, globs); empty with Prometheus: the pods kube-state-metrics saw.
    pub logs: Vec<PathBuf>,
    pub mapping: Option<PathBuf>,
    /// The logs' layout when detection guesses wrong (`--input-format`, a log's `format`).
    pub input_format: Option<String>,
    /// `--time-origin`: the instant second 0 of the logs' relative times stands for (RFC 3339).
    pub time_origin: Option<String>,
    pub prometheus: Option<PrometheusSource>,
    /// With no logs: the jobs are read from Slurm's accounting through `sacct`.
    pub slurm: Option<SlurmSource>,
    /// With no logs: the runs live in a database, audited there (`[warehouse]`).
    pub warehouse: Option<WarehouseSource>,
    /// Logs the plan names that are not there: left out of `logs`, each said by the face that
    /// reads the plan, and no stand-in read in their place.
    pub missing: Vec<PathBuf>,
}

/// What a face was given beside the plan.
#[derive(Debug, Clone, Default)]
pub struct Given {
    pub logs: Vec<PathBuf>,
    pub mapping: Option<PathBuf>,
    pub input_format: Option<String>,
    pub time_origin: Option<String>,
    pub prometheus: Option<PrometheusSource>,
    pub slurm: Option<SlurmSource>,
    pub warehouse: Option<WarehouseSource>,
}

impl Sources {
    /// The logs given, else the plan's `[[logs]]` with the mapping and layout they name; a flag
    /// given wins over the plan's value.
    pub fn resolve(given: Given, plan: Option<&Plan>) -> Result<Sources, PipelineError> {
        if given.slurm.is_some() && !given.logs.is_empty() {
            return Err(PipelineError::SlurmWithLogs);
        }
        if let Some((key, message)) = given.slurm.as_ref().and_then(|s| s.problems().into_iter().next()) {
            return Err(PipelineError::SlurmSetting { key, message });
        }
        if given.warehouse.is_some() && (given.slurm.is_some() || !given.logs.is_empty()) {
            return Err(PipelineError::WarehouseWithLogs);
        }
        // A plan that reads Slurm or a warehouse names no log to read instead.
        let from_plan = given.logs.is_empty() && given.slurm.is_none() && given.warehouse.is_none();
        let listed = plan
            .filter(|_| from_plan)
            .map(|p| p.logs.as_slice())
            .unwrap_or_default();
        let (logs, missing) = if from_plan {
            listed
                .iter()
                .map(|l| PathBuf::from(&l.path))
                .partition(|path| is_pattern_or_present(path))
        } else {
            (given.logs, Vec::new())
        };
        let mapping = match given.mapping {
            Some(mapping) => Some(mapping),
            None => one_value("mapping", listed.iter().map(|l| l.mapping.as_deref()))?.map(PathBuf::from),
        };
        let input_format = match given.input_format {
            Some(format) => Some(format),
            None => one_value("format", listed.iter().map(|l| l.format.as_deref()))?.map(str::to_string),
        };
        let time_origin = match given.time_origin {
            Some(origin) => Some(origin),
            None => one_value("time_origin", listed.iter().map(|l| l.time_origin.as_deref()))?.map(str::to_string),
        };
        Ok(Sources {
            logs,
            mapping,
            input_format,
            time_origin,
            prometheus: given.prometheus,
            slurm: given.slurm,
            warehouse: given.warehouse,
            missing,
        })
    }

    /// What to say of the plan's logs that are not there, one line each.
    pub fn missing_notes(&self, plan_file: &str) -> Vec<String> {
        self.missing
            .iter()
            .map(|path| {
                format!(
                    "{} not found (named by {plan_file} [[logs]]): left out; figures that need its jobs are not shown",
                    path.display()
                )
            })
            .collect()
    }

    /// Whether there is anything to audit: logs, a Slurm to ask, or a Prometheus to pull pods from.
    pub fn is_empty(&self) -> bool {
        self.logs.is_empty() && self.prometheus.is_none() && self.slurm.is_none() && self.warehouse.is_none()
    }

    /// The jobs come from a live source over a window (Slurm's sacct, or the pods
    /// kube-state-metrics saw), not from files spanning their own time.
    pub fn is_live(&self) -> bool {
        self.logs.is_empty() && (self.slurm.is_some() || self.prometheus.is_some())
    }

    /// With no log and no Prometheus, the shipped sample; returns the note that says so. Never
    /// in place of logs the plan names that are missing: that would show another fleet.
    pub fn or_sample(&mut self) -> Result<Option<String>, PipelineError> {
        if !self.is_empty() || !self.missing.is_empty() {
            return Ok(None);
        }
        let sample =
            crate::config::sample_log::sample_log_path().map_err(|e| PipelineError::SampleLog(e.to_string()))?;
        let note = format!("no log given: auditing the shipped sample {}", sample.display());
        self.logs.push(sample);
        Ok(Some(note))
    }
}

/// A log to read: a pattern (matched when read) or a path that exists.
fn is_pattern_or_present(path: &std::path::Path) -> bool {
    crate::config::plan_sources::is_pattern(&path.to_string_lossy()) || path.exists()
}

/// The one value the plan's logs give for a key: one mapping (or layout) reads all of them.
fn one_value<'a>(
    key: &'static str,
    values: impl Iterator<Item = Option<&'a str>>,
) -> Result<Option<&'a str>, PipelineError> {
    let mut found: Option<&str> = None;
    for value in values.flatten() {
        match found {
            Some(first) if first != value => {
                return Err(PipelineError::MixedLogSettings {
                    key,
                    first: first.to_string(),
                    second: value.to_string(),
                });
            }
            _ => found = Some(value),
        }
    }
    Ok(found)
}
