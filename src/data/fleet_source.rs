//! Logs read for an audit, kept in the form the audit runs on, so the CLI and the workbench
//! share one path: a folder partitioned by cluster is only located (its parts are read at
//! audit time, one cluster at a time), anything else is read whole and can be audited again
//! with other settings without reading.

use std::path::PathBuf;

use polars::prelude::DataFrame;

use super::audit::{AuditSettings, audit};
use super::load::{FileSummary, LoadError, load_logs};
use super::mapping::Mapping;
use super::measured::measured_utilization;
use super::partitioned::{audit_partitioned, cluster_partitions};
use super::reject::Quarantine;
use super::tabular::Detail;
use crate::model::fleet::AuditReport;
use crate::model::workload::ClassificationRules;

pub enum FleetSource {
    /// The runs read whole.
    Runs {
        runs: DataFrame,
        quarantine: Quarantine,
        files: Vec<FileSummary>,
        /// DCGM samples read beside the jobs.
        utilization: Option<DataFrame>,
    },
    /// A dataset partitioned by cluster: too big to keep, audited a cluster at a time.
    Partitioned {
        partitions: Vec<(String, PathBuf)>,
        mapping: Option<Mapping>,
    },
}

fn joined(files: &[FileSummary]) -> String {
    files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>().join(", ")
}

impl FleetSource {
    /// Reads expanded inputs for an audit. GPU utilization samples (DCGM) are read beside a job
    /// log; alone they are refused with why: they hold no jobs.
    pub fn read(
        inputs: &[PathBuf],
        forced_format: Option<&str>,
        mapping: Option<&Mapping>,
        rules: &ClassificationRules,
    ) -> Result<FleetSource, LoadError> {
        if let [input] = inputs
            && forced_format.is_none()
            && let Some(partitions) = cluster_partitions(input)
        {
            return Ok(FleetSource::Partitioned {
                partitions,
                mapping: mapping.cloned(),
            });
        }
        let loaded = load_logs(inputs, forced_format, mapping, Detail::Audit(rules))?;
        if loaded.jobs.height() == 0 && loaded.utilization.as_ref().is_some_and(|u| u.height() > 0) {
            return Err(LoadError {
                path: joined(&loaded.files),
                message: "these are GPU utilization samples (DCGM exporter), not jobs: the audit needs a job log \
                          (scheduler export, sacct -P, Philly JSON...); give the samples beside it and the audit \
                          reports the utilization they measured"
                    .to_string(),
            });
        }
        Ok(FleetSource::Runs {
            runs: loaded.jobs,
            quarantine: loaded.quarantine,
            files: loaded.files,
            utilization: loaded.utilization,
        })
    }

    /// Rows read so far: known after reading for logs read whole, after the audit otherwise.
    pub fn rows_read(&self) -> Option<usize> {
        match self {
            FleetSource::Runs { runs, .. } => Some(runs.height()),
            FleetSource::Partitioned { .. } => None,
        }
    }

    pub fn audit(
        &self,
        rules: &ClassificationRules,
        settings: &AuditSettings,
    ) -> Result<(AuditReport, Vec<FileSummary>), LoadError> {
        match self {
            FleetSource::Runs {
                runs,
                quarantine,
                files,
                utilization,
            } => {
                let fail = |message| LoadError {
                    path: joined(files),
                    message,
                };
                let mut report = audit(runs, quarantine, rules, settings).map_err(fail)?;
                if let Some(samples) = utilization {
                    report.measured_utilization =
                        measured_utilization(samples, &report.window, settings.min_utilization_frac).map_err(fail)?;
                }
                Ok((report, files.clone()))
            }
            FleetSource::Partitioned { partitions, mapping } => {
                audit_partitioned(partitions, mapping.as_ref(), rules, settings)
            }
        }
    }
}
