//! The background worker for everything Polars does: one job runs, one waits, and a newer
//! request replaces the waiting one. Results carry the generation that asked for them; the
//! app drops stale ones. The logs read last are kept, so a re-audit skips reading.

use std::sync::{Arc, Condvar, Mutex};
use std::thread;

use crossbeam_channel::Sender;

use super::error::RuntimeError;
use crate::app::{Action, Fleet, FleetFile, LogInputs};
use crate::config::mapping_file::read_mapping;
use crate::data::audit::AuditSettings;
use crate::data::audit::fleet_source::{FleetSource, attach_measurements};
use crate::data::readers::load::{FileSummary, expand_inputs};
use crate::data::readers::progress::READ_PROGRESS;
use crate::model::catalog::Catalog;
use crate::model::fleet::{AuditReport, Window};
use crate::model::plan::Plan;
use crate::model::plan::PrometheusSource;
use crate::model::replay::ReplayJob;
use crate::model::split::replay_fleets;
use crate::model::workload::ClassificationRules;
use crate::runtime::prometheus::client::PrometheusClient;
use crate::runtime::prometheus::pull::{PullProgress, UtilizationPull, pull_cluster_utilization};

#[derive(Debug, Clone)]
pub enum Job {
    Load {
        generation: u64,
        logs: LogInputs,
        settings: AuditSettings,
    },
    Reaudit {
        generation: u64,
        settings: AuditSettings,
    },
    /// Replay the last audit's jobs through today's clusters and the plan's split.
    Replay {
        generation: u64,
        plan: Box<Plan>,
    },
}

impl Job {
    fn generation(&self) -> u64 {
        match self {
            Job::Load { generation, .. } | Job::Reaudit { generation, .. } | Job::Replay { generation, .. } => {
                *generation
            }
        }
    }
}

/// One waiting audit and one waiting replay: a newer request of either kind replaces the
/// waiting one of its kind, and an audit goes first (the replay reads its result).
#[derive(Default)]
struct Slot {
    pending: Option<Job>,
    pending_replay: Option<Job>,
    closed: bool,
}

pub struct Worker {
    slot: Arc<(Mutex<Slot>, Condvar)>,
    handle: Option<thread::JoinHandle<()>>,
}

/// The worker keeps the last logs read between jobs, and the last utilization pulled from
/// Prometheus for a window (a re-audit over the same window does not pull again).
struct Cache {
    source: FleetSource,
    prometheus: Option<PrometheusSource>,
    pulled: Option<(Window, UtilizationPull)>,
    /// The last audit, and its jobs as replay input once a replay asked for them.
    audit: Option<AuditReport>,
    replay_jobs: Option<Vec<ReplayJob>>,
}

fn fleet_files(files: Vec<FileSummary>) -> Vec<FleetFile> {
    files
        .into_iter()
        .map(|f| FleetFile {
            path: f.path,
            format: f.format.to_string(),
            rows: f.rows,
            rejected: f.rejected,
            warnings: f.warnings,
        })
        .collect()
}

fn audit_fleet(
    source: &FleetSource,
    rules: &ClassificationRules,
    settings: &AuditSettings,
) -> Result<Fleet, RuntimeError> {
    let (report, files) = source.audit(rules, settings)?;
    Ok(Fleet {
        report,
        files: fleet_files(files),
        warning: None,
    })
}

/// Measured utilization from Prometheus on the fleet's clusters: pulled once per window, with
/// progress in the header. A server that fails leaves the logs' figures and says why.
fn measure_fleet(
    cache: &mut Cache,
    fleet: &mut Fleet,
    settings: &AuditSettings,
    generation: u64,
    results: &Sender<Action>,
) {
    let Some(source) = cache.prometheus.clone() else { return };
    let window = fleet.report.window.clone();
    let cached = cache
        .pulled
        .as_ref()
        .filter(|(w, _)| *w == window)
        .map(|(_, p)| p.clone());
    let pulled = match cached {
        Some(pull) => Ok(pull),
        None => {
            let hosts = cache.source.host_map(settings).map_err(|e| e.to_string());
            let shown = crate::runtime::prometheus::client::shown_url(&source.url);
            let mut report = |p: PullProgress| {
                let what = format!("pulling utilization from {shown}: query {} of {}", p.done, p.total);
                let _ = results.send(Action::FleetStarted { generation, what });
            };
            hosts.and_then(|hosts| {
                PrometheusClient::connect(&source)
                    .and_then(|client| pull_cluster_utilization(&client, &source, &window, &hosts, &mut report))
                    .map_err(|e| e.to_string())
            })
        }
    };
    match pulled {
        Ok(pull) => {
            attach_measurements(&mut fleet.report, &pull.measurements, settings);
            fleet.report.measurement_notes.extend(pull.notes.iter().cloned());
            cache.pulled = Some((window, pull));
        }
        Err(message) => fleet.warning = Some(message),
    }
}

impl Worker {
    pub fn start(catalog: Catalog, results: Sender<Action>) -> Worker {
        let slot: Arc<(Mutex<Slot>, Condvar)> = Arc::default();
        let shared = Arc::clone(&slot);
        let handle = thread::Builder::new()
            .name("gpuplan-worker".to_string())
            .spawn(move || {
                let mut cache: Option<Cache> = None;
                while let Some(job) = next_job(&shared) {
                    let generation = job.generation();
                    let replay = matches!(job, Job::Replay { .. });
                    // A panic in Polars or a reader fails this job, not the workbench.
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run(&catalog, job, &mut cache, &results)
                    }));
                    let action = ran.unwrap_or_else(|_| {
                        let why = super::terminal::last_panic().unwrap_or_default();
                        if replay {
                            return Action::ReplayFailed {
                                generation,
                                message: format!("internal error while replaying (please report it): {why}"),
                            };
                        }
                        cache = None;
                        Action::FleetFailed {
                            generation,
                            message: format!("internal error while reading the logs (please report it): {why}"),
                        }
                    });
                    if results.send(action).is_err() {
                        break;
                    }
                }
            })
            .ok();
        Worker { slot, handle }
    }

    /// Queues a job, replacing any job still waiting: holding a key never builds a backlog.
    /// A re-audit never drops a read still waiting: it becomes that read, with its settings.
    pub fn submit(&self, job: Job) {
        let (lock, ready) = &*self.slot;
        if let Ok(mut slot) = lock.lock() {
            if matches!(job, Job::Replay { .. }) {
                slot.pending_replay = Some(job);
            } else {
                let job = match (slot.pending.take(), job) {
                    (Some(Job::Load { logs, .. }), Job::Reaudit { generation, settings }) => Job::Load {
                        generation,
                        logs,
                        settings,
                    },
                    (_, job) => job,
                };
                slot.pending = Some(job);
            }
            ready.notify_one();
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let (lock, ready) = &*self.slot;
        if let Ok(mut slot) = lock.lock() {
            slot.closed = true;
            slot.pending = None;
            slot.pending_replay = None;
            ready.notify_one();
        }
        // A running Polars job is not interrupted; the process exits without waiting for it.
        drop(self.handle.take());
    }
}

/// Tells the app how far a read has got, four times a second, while it runs.
struct ProgressTicker {
    done: Arc<std::sync::atomic::AtomicBool>,
}

impl ProgressTicker {
    fn start(generation: u64, logs: &LogInputs, results: Sender<Action>) -> ProgressTicker {
        use std::sync::atomic::{AtomicBool, Ordering};
        READ_PROGRESS.reset();
        let total_bytes: u64 = logs
            .paths
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let _ = thread::Builder::new()
            .name("gpuplan-progress".to_string())
            .spawn(move || {
                loop {
                    thread::sleep(std::time::Duration::from_millis(250));
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let (bytes, rows) = READ_PROGRESS.get();
                    if bytes == 0 || total_bytes == 0 {
                        continue;
                    }
                    let what = format!(
                        "reading the logs: {:.0} %, {} rows",
                        (bytes as f64 / total_bytes as f64 * 100.0).min(100.0),
                        crate::shared::format::thousands(rows as f64)
                    );
                    if results.send(Action::FleetStarted { generation, what }).is_err() {
                        break;
                    }
                }
            });
        ProgressTicker { done }
    }
}

impl Drop for ProgressTicker {
    fn drop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

fn next_job(slot: &Arc<(Mutex<Slot>, Condvar)>) -> Option<Job> {
    let (lock, ready) = &**slot;
    let mut guard = lock.lock().ok()?;
    loop {
        if guard.closed {
            return None;
        }
        if let Some(job) = guard.pending.take().or_else(|| guard.pending_replay.take()) {
            return Some(job);
        }
        guard = ready.wait(guard).ok()?;
    }
}

fn run(catalog: &Catalog, job: Job, cache: &mut Option<Cache>, results: &Sender<Action>) -> Action {
    let (generation, settings) = match job {
        Job::Replay { generation, plan } => return replay_fleet(catalog, cache.as_mut(), generation, &plan),
        Job::Load {
            generation,
            logs,
            settings,
        } => {
            let ticker = ProgressTicker::start(generation, &logs, results.clone());
            let read = read(catalog, &logs);
            drop(ticker);
            match read {
                Ok(read) => {
                    *cache = Some(Cache {
                        source: read,
                        prometheus: logs.prometheus.clone(),
                        pulled: None,
                        audit: None,
                        replay_jobs: None,
                    })
                }
                Err(e) => {
                    // A re-audit must not bring back the logs this read was to replace.
                    *cache = None;
                    return Action::FleetFailed {
                        generation,
                        message: e.to_string(),
                    };
                }
            }
            let _ = results.send(Action::FleetStarted {
                generation,
                what: "classifying and auditing".to_string(),
            });
            (generation, settings)
        }
        Job::Reaudit { generation, settings } => (generation, settings),
    };
    let Some(cached) = cache.as_mut() else {
        return Action::FleetFailed {
            generation,
            message: "no logs read yet".to_string(),
        };
    };
    let Some(rules) = catalog.classification.as_ref() else {
        return Action::FleetFailed {
            generation,
            message: "no classification rules loaded (catalogs/classification.toml)".to_string(),
        };
    };
    match audit_fleet(&cached.source, rules, &settings) {
        Ok(mut fleet) => {
            measure_fleet(cached, &mut fleet, &settings, generation, results);
            cached.audit = Some(fleet.report.clone());
            cached.replay_jobs = None;
            Action::FleetLoaded {
                generation,
                fleet: Box::new(fleet),
            }
        }
        Err(e) => Action::FleetFailed {
            generation,
            message: e.to_string(),
        },
    }
}

/// Both replays of the last audit's jobs; the jobs are gathered once per audit.
fn replay_fleet(catalog: &Catalog, cache: Option<&mut Cache>, generation: u64, plan: &Plan) -> Action {
    let failed = |message: String| Action::ReplayFailed { generation, message };
    let Some(cache) = cache else {
        return failed("no logs read yet".to_string());
    };
    let Some(audit) = cache.audit.as_ref() else {
        return failed("no audit yet".to_string());
    };
    let Some(rules) = catalog.classification.as_ref() else {
        return failed("no classification rules loaded (catalogs/classification.toml)".to_string());
    };
    if cache.replay_jobs.is_none() {
        match cache.source.replay_jobs(rules, audit) {
            Ok(fleet) => cache.replay_jobs = Some(fleet.jobs),
            Err(e) => return failed(e.to_string()),
        }
    }
    let jobs = cache.replay_jobs.as_deref().unwrap_or_default();
    match replay_fleets(jobs, audit, plan, catalog) {
        Ok(report) => Action::ReplayLoaded {
            generation,
            report: Box::new(report),
        },
        Err(e) => failed(format!("{e}: size the pools in the plan's [replay]")),
    }
}

/// Reads and audits logs in one go, on the calling thread: for tests, benchmarks and tools
/// that have no event loop.
pub fn load_fleet(catalog: &Catalog, logs: &LogInputs, settings: &AuditSettings) -> Result<Fleet, RuntimeError> {
    load_fleet_with_source(catalog, logs, settings).map(|(fleet, _)| fleet)
}

/// As `load_fleet`, with what was read, for a replay on the calling thread.
pub fn load_fleet_with_source(
    catalog: &Catalog,
    logs: &LogInputs,
    settings: &AuditSettings,
) -> Result<(Fleet, FleetSource), RuntimeError> {
    let cached = read(catalog, logs)?;
    let rules = catalog.classification.as_ref().ok_or(RuntimeError::NoRules)?;
    audit_fleet(&cached, rules, settings).map(|fleet| (fleet, cached))
}

/// Both replays of an audit's jobs on the calling thread, as the worker would answer.
pub fn replay_now(catalog: &Catalog, source: FleetSource, audit: AuditReport, generation: u64, plan: &Plan) -> Action {
    let mut cache = Cache {
        source,
        prometheus: None,
        pulled: None,
        audit: Some(audit),
        replay_jobs: None,
    };
    replay_fleet(catalog, Some(&mut cache), generation, plan)
}

fn read(catalog: &Catalog, logs: &LogInputs) -> Result<FleetSource, RuntimeError> {
    let rules = catalog.classification.as_ref().ok_or(RuntimeError::NoRules)?;
    let mapping = logs
        .mapping
        .as_deref()
        .map(read_mapping)
        .transpose()
        .map_err(RuntimeError::InvalidMapping)?;
    let inputs = expand_inputs(&logs.paths)?;
    Ok(FleetSource::read(&inputs, None, mapping.as_ref(), rules)?)
}
