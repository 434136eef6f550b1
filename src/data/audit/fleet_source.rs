//! Logs read for an audit, kept in the form the audit runs on, so the CLI and the workbench
//! share one path: a folder partitioned by cluster is only located (its parts are read at
//! audit time, one cluster at a time), anything else is read whole and can be audited again
//! with other settings without reading.

use std::collections::BTreeMap;
use std::path::PathBuf;

use polars::prelude::{DataFrame, IntoLazy, col};

use super::classify::JobClasses;
use super::classify::features::with_run_features;
use super::host_map::{HostMap, unmapped_note};
use super::job_details::RunOrigins;
use super::measured::{measured_by_cluster, measured_utilization};
use super::node_clock::in_utc;
use super::oversized::{oversized_runs, tell_files, without_oversized};
use super::partitioned::{audit_partitioned, cluster_partitions};
use super::{AuditInput, AuditSettings, audit_input_classified};
use crate::data::canonical::{JobRun, frame_from_runs};
use crate::data::error::DataError;
use crate::data::readers::load::{FileSummary, LoadError, LoadedLogs, load_logs};
use crate::data::readers::mapping::Mapping;
use crate::data::readers::reject::Quarantine;
use crate::data::readers::tabular::Detail;
use crate::data::readers::tabular::audit_columns;
use crate::data::warehouse::WarehouseSession;
use crate::model::fleet::{AuditReport, RejectReason};
use crate::model::plan::WarehouseSource;
use crate::model::utilization::{ClusterMeasurement, apply_measurements};
use crate::model::workload::ClassificationRules;

#[derive(Clone)]
pub enum FleetSource {
    /// The runs read whole.
    Runs {
        runs: DataFrame,
        quarantine: Quarantine,
        files: Vec<FileSummary>,
        /// DCGM samples read beside the jobs.
        utilization: Option<DataFrame>,
        /// Host → cluster, from the hosts the logs ran jobs on.
        hosts: BTreeMap<String, String>,
        /// Jobs that never started.
        pending: DataFrame,
        /// Which file each run came from, to name the largest jobs.
        origins: RunOrigins,
    },
    /// A dataset partitioned by cluster: too big to keep, audited a cluster at a time.
    Partitioned {
        partitions: Vec<(String, PathBuf)>,
        mapping: Option<Mapping>,
    },
    /// Runs that live in a database: the audit is sent there as SQL (`data::warehouse`).
    Warehouse {
        source: WarehouseSource,
        mapping: Option<Mapping>,
        /// The warehouse the last audit opened, kept for its replay's jobs.
        session: WarehouseSession,
    },
}

/// Puts measured clusters on the audit and notes the ones the logs do not have.
pub fn attach_measurements(report: &mut AuditReport, measured: &[ClusterMeasurement], settings: &AuditSettings) {
    for cluster in apply_measurements(report, measured, settings.min_utilization_frac) {
        report.measurement_notes.push(format!(
            "cluster {cluster} was measured but ran no job in the logs: left out"
        ));
    }
}

/// Where measured clusters' samples came from: "DCGM samples in a.csv", "nvidia-smi recordings
/// in node17.csv, node18.dmon.txt", or both.
fn samples_origin(files: &[FileSummary]) -> String {
    let of = |formats: &[&str]| -> String {
        files
            .iter()
            .filter(|f| formats.contains(&f.format))
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (dcgm, node) = (of(&["dcgm-long", "dcgm-wide"]), of(&["nvidia-smi", "dmon"]));
    match (dcgm.is_empty(), node.is_empty()) {
        (false, true) => format!("DCGM samples in {dcgm}"),
        (true, false) => format!("nvidia-smi recordings in {node}"),
        _ => format!("DCGM samples in {dcgm} and nvidia-smi recordings in {node}"),
    }
}

/// What reading each file established (an nvidia-smi recording's host, the measure of each GPU,
/// what was left out), after its path.
fn recording_notes(files: &[FileSummary]) -> impl Iterator<Item = String> + '_ {
    files
        .iter()
        .flat_map(|f| f.notes.iter().map(move |note| format!("{}: {note}", f.path)))
}

/// How a warehouse source is named in messages: its driver and table.
pub fn warehouse_origin(source: &WarehouseSource) -> String {
    format!("{} {}", source.driver, source.from)
}

/// "No usable rows" said with its cause: no job log at all (node lists alone), or every row set
/// aside, by reason (times set aside with `--time-origin` named as the likely cause).
fn why_no_rows(error: DataError, files: &[FileSummary], quarantine: &Quarantine) -> DataError {
    if !matches!(error, DataError::NoUsableRows) {
        return error;
    }
    if files.is_empty() {
        return DataError::NoJobLog;
    }
    if quarantine.counts.is_empty() {
        return error;
    }
    let reasons: Vec<String> = quarantine
        .counts
        .iter()
        .map(|(reason, n)| format!("{n} {}", reason.label()))
        .collect();
    let times = quarantine
        .counts
        .keys()
        .any(|r| matches!(r, RejectReason::UnparseableTime | RejectReason::TimeOutOfRange));
    DataError::EveryRowSetAside {
        reasons: reasons.join(", "),
        hint: if times {
            "; a time origin (--time-origin, a mapping's time_origin) reads times as seconds from it: a log of dates needs none"
                .to_string()
        } else {
            String::new()
        },
    }
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
            return Err(LoadError::new(joined(&loaded.files), DataError::UtilizationOnly));
        }
        Ok(FleetSource::from_loaded(loaded))
    }

    /// Logs loaded elsewhere (a file's or sacct's), kept whole for the audit.
    pub fn from_loaded(loaded: LoadedLogs) -> FleetSource {
        FleetSource::Runs {
            runs: loaded.jobs,
            quarantine: loaded.quarantine,
            files: loaded.files,
            utilization: loaded.utilization,
            hosts: loaded.hosts,
            pending: loaded.pending,
            origins: loaded.origins,
        }
    }

    /// A run log read whole, from jobs gathered elsewhere (Kubernetes pods from Prometheus).
    pub fn from_runs(runs: &[JobRun], origin: &str, rules: &ClassificationRules) -> Result<FleetSource, LoadError> {
        let fail = |error: DataError| LoadError::new(origin, error);
        let frame = frame_from_runs(runs).map_err(|e| fail(e.into()))?;
        let frame = with_run_features(frame.lazy(), rules)
            .and_then(|f| {
                f.select(
                    audit_columns()
                        .into_iter()
                        .chain([col(crate::data::canonical::SUBMIT)])
                        .collect::<Vec<_>>(),
                )
                .collect()
                .map_err(DataError::from)
            })
            .map_err(fail)?;
        Ok(FleetSource::Runs {
            runs: frame,
            quarantine: Quarantine::default(),
            files: vec![FileSummary {
                path: origin.to_string(),
                format: "kube-state-metrics",
                rows: runs.len(),
                rejected: 0,
                warnings: Vec::new(),
                notes: Vec::new(),
            }],
            utilization: None,
            hosts: BTreeMap::new(),
            pending: DataFrame::empty(),
            origins: RunOrigins::default(),
        })
    }

    /// Which cluster each GPU host belongs to: the hosts the logs ran jobs on, then the
    /// `[hosts]` patterns of the plan and the mapping.
    pub fn host_map(&self, settings: &AuditSettings) -> Result<HostMap, DataError> {
        let seen = match self {
            FleetSource::Runs { hosts, .. } => hosts.clone(),
            FleetSource::Partitioned { .. } | FleetSource::Warehouse { .. } => BTreeMap::new(),
        };
        HostMap::new(&[&settings.host_patterns], seen)
    }

    /// The jobs of logs read whole, for a replay over the audit's window and clusters.
    /// `classes`: the jobs' classes as the audit of `report` decided them, when it kept them.
    pub fn replay_jobs(
        &self,
        rules: &ClassificationRules,
        settings: &AuditSettings,
        report: &AuditReport,
        classes: Option<&JobClasses>,
    ) -> Result<super::replay_jobs::FleetJobs, LoadError> {
        match self {
            FleetSource::Runs { runs, files, .. } => {
                let fail = |error| LoadError::new(joined(files), error);
                let clusters: Vec<String> = report.clusters.iter().map(|c| c.name.clone()).collect();
                // The runs the audit kept out of its figures hold no GPUs in the replay either.
                let oversized = oversized_runs(runs, settings).map_err(fail)?;
                let capped;
                let runs = if oversized.is_empty() {
                    runs
                } else {
                    capped = without_oversized(runs, &oversized).map_err(fail)?;
                    &capped
                };
                super::replay_jobs::fleet_jobs(runs, rules, &report.window, &clusters, classes).map_err(fail)
            }
            FleetSource::Partitioned { partitions, .. } => Err(LoadError::new(
                partitions
                    .first()
                    .map(|(_, p)| p.display().to_string())
                    .unwrap_or_default(),
                DataError::ReplayNeedsFiles,
            )),
            FleetSource::Warehouse {
                source,
                mapping,
                session,
            } => {
                let clusters: Vec<String> = report.clusters.iter().map(|c| c.name.clone()).collect();
                let window = crate::data::warehouse::ReplayWindow {
                    settings,
                    window: &report.window,
                    clusters: &clusters,
                    jobs: report.jobs_total,
                };
                crate::data::warehouse::replay_jobs(source, mapping.as_ref(), rules, window, Some(session))
                    .map_err(|e| LoadError::new(warehouse_origin(source), DataError::Warehouse(Box::new(e))))
            }
        }
    }

    /// Rows read so far: known after reading for logs read whole, after the audit otherwise.
    pub fn rows_read(&self) -> Option<usize> {
        match self {
            FleetSource::Runs { runs, .. } => Some(runs.height()),
            FleetSource::Partitioned { .. } | FleetSource::Warehouse { .. } => None,
        }
    }

    /// The audit under `settings`, the files it read, and for logs read whole each job's class
    /// (for the replay's jobs). `phase` hears what a long audit is doing (a warehouse's
    /// statements).
    pub fn audit(
        &self,
        rules: &ClassificationRules,
        settings: &AuditSettings,
        phase: &mut dyn FnMut(String),
    ) -> Result<(AuditReport, Vec<FileSummary>, Option<JobClasses>), LoadError> {
        match self {
            FleetSource::Runs {
                runs,
                quarantine,
                files,
                utilization,
                pending,
                origins,
                ..
            } => {
                let fail = |error| LoadError::new(joined(files), error);
                let mut files = files.clone();
                // Runs larger than their cluster are kept out of the figures and named.
                let oversized = oversized_runs(runs, settings).map_err(fail)?;
                let capped;
                let runs = if oversized.is_empty() {
                    runs
                } else {
                    tell_files(runs, origins, &oversized, &mut files);
                    capped = without_oversized(runs, &oversized).map_err(fail)?;
                    &capped
                };
                let input = AuditInput {
                    runs,
                    quarantine,
                    pending,
                    origins: Some(origins),
                };
                let (mut report, classes) = audit_input_classified(input, rules, settings)
                    .map_err(|e| fail(why_no_rows(e, &files, quarantine)))?;
                if let Some(samples) = utilization {
                    let hosts = self.host_map(settings).map_err(fail)?;
                    let (samples, clock_note) = in_utc(samples, &hosts, settings).map_err(fail)?;
                    report
                        .measurement_notes
                        .extend(recording_notes(&files).chain(clock_note));
                    report.measured_utilization =
                        measured_utilization(&samples, &report.window, settings.min_utilization_frac).map_err(fail)?;
                    if !hosts.is_empty() {
                        let origin = samples_origin(&files);
                        let (measured, unmapped) =
                            measured_by_cluster(&samples, &report.window, &hosts, &origin).map_err(fail)?;
                        if !unmapped.is_empty() {
                            report.measurement_notes.push(unmapped_note(&unmapped));
                        }
                        attach_measurements(&mut report, &measured, settings);
                    }
                }
                Ok((report, files, Some(classes)))
            }
            FleetSource::Partitioned { partitions, mapping } => {
                let (report, files) = audit_partitioned(partitions, mapping.as_ref(), rules, settings)?;
                Ok((report, files, None))
            }
            FleetSource::Warehouse {
                source,
                mapping,
                session,
            } => {
                let origin = warehouse_origin(source);
                let fail = |error: crate::data::warehouse::error::WarehouseError| {
                    LoadError::new(origin.clone(), DataError::Warehouse(Box::new(error)))
                };
                let mut progress = |statement: crate::data::warehouse::StatementProgress| phase(statement.to_string());
                let audited = crate::data::warehouse::audit(
                    source,
                    mapping.as_ref(),
                    rules,
                    settings,
                    false,
                    &mut progress,
                    Some(session),
                )
                .map_err(fail)?;
                let Some(report) = audited.report else {
                    return Err(LoadError::new(origin, DataError::NoUsableRows));
                };
                let file = FileSummary {
                    path: origin.clone(),
                    format: "warehouse",
                    rows: usize::try_from(audited.runs).unwrap_or(usize::MAX),
                    rejected: report.rows_rejected_total,
                    warnings: Vec::new(),
                    notes: Vec::new(),
                };
                Ok((report, vec![file], None))
            }
        }
    }
}
