//! The background worker: the pipeline on its own thread. One job runs, one of each kind waits,
//! and a newer request replaces the waiting one of its kind. Results carry the generation that
//! asked for them; the app drops stale ones. The pipeline keeps what it read and computed, so a
//! re-audit skips reading and a replay whose inputs did not change is not run again.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

use crossbeam_channel::Sender;

use crate::app::{Action, Fleet, FleetFile, LogInputs};
use crate::data::readers::load::FileSummary;
use crate::data::readers::progress::READ_PROGRESS;
use crate::model::audit_settings::AuditSettings;
use crate::model::catalog::Catalog;
use crate::model::forecast::ForecastScope;
use crate::model::plan::Plan;
use crate::pipeline::error::PipelineError;
use crate::pipeline::observer::{Observer, Quiet};
use crate::pipeline::report::ReportRequest;
use crate::pipeline::sources::Sources;
use crate::pipeline::{Audited, Pipeline};
use crate::present::report::report_markdown;

/// Where an export writes, and what it reports on.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportTarget {
    pub json: PathBuf,
    pub markdown: PathBuf,
    /// The plan's file as the report names it.
    pub plan_file: String,
    pub unsaved_edits: bool,
}

#[derive(Debug, Clone)]
pub enum Job {
    Load {
        generation: u64,
        logs: Box<LogInputs>,
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
    /// The plans compared on the logs, every row `gpuplan diff` shows.
    Compare {
        generation: u64,
        plans: Vec<(String, Plan)>,
    },
    /// Fit the last audit's series over the plan's horizon.
    FitForecast {
        generation: u64,
        horizon_days: u32,
        plan: Box<Plan>,
    },
    /// The report of the plan on screen, written as JSON and Markdown: after any audit or
    /// replay asked before it, so it never writes a partial report.
    Export {
        plan: Box<Plan>,
        target: ExportTarget,
    },
}

impl Job {
    fn generation(&self) -> u64 {
        match self {
            Job::Load { generation, .. }
            | Job::Reaudit { generation, .. }
            | Job::Replay { generation, .. }
            | Job::Compare { generation, .. }
            | Job::FitForecast { generation, .. } => *generation,
            Job::Export { .. } => 0,
        }
    }
}

/// One waiting audit, forecast fit, replay, comparison and export: a newer request of a kind
/// replaces the waiting one of its kind; an audit goes first (the others read its result), the
/// fit before the replay (a fraction of a second against seconds), the comparison after the
/// replay (it replays every plan), the export last.
#[derive(Default)]
struct Slot {
    pending: Option<Job>,
    pending_forecast: Option<Job>,
    pending_replay: Option<Job>,
    pending_compare: Option<Job>,
    pending_export: Option<Job>,
    closed: bool,
}

pub struct Worker {
    slot: Arc<(Mutex<Slot>, Condvar)>,
    handle: Option<thread::JoinHandle<()>>,
}

/// The pipeline and the logs the workbench reads, kept between jobs.
struct State {
    pipeline: Pipeline,
    sources: Option<Sources>,
}

pub fn fleet_files(files: &[FileSummary]) -> Vec<FleetFile> {
    files
        .iter()
        .map(|f| FleetFile {
            path: f.path.clone(),
            // A warehouse's table, a scheduler's command or a server's address names no file.
            on_disk: std::path::Path::new(&f.path).exists(),
            format: f.format.to_string(),
            rows: f.rows,
            rejected: f.rejected,
            warnings: f.warnings.clone(),
        })
        .collect()
}

/// The audit as the Workloads pane shows it; a failed measurement leaves the logs' figures and
/// says why in the banner.
pub fn fleet_of(audited: &Audited) -> Fleet {
    Fleet {
        report: audited.report.clone(),
        files: fleet_files(&audited.files),
        warning: audited.measure_failure.as_ref().map(ToString::to_string),
    }
}

/// The workbench's logs as the pipeline reads them.
pub fn sources_of(logs: &LogInputs) -> Sources {
    Sources {
        logs: logs.paths.clone(),
        mapping: logs.mapping.clone(),
        input_format: logs.input_format.clone(),
        time_origin: logs.time_origin.clone(),
        prometheus: logs.prometheus.clone(),
        slurm: logs.slurm.as_deref().cloned(),
        warehouse: logs.warehouse.as_deref().cloned(),
        missing: logs.missing.clone(),
    }
}

impl Worker {
    pub fn start(
        catalog: Catalog,
        read_cache: Option<crate::data::read_cache::ReadCache>,
        results: Sender<Action>,
    ) -> Worker {
        let slot: Arc<(Mutex<Slot>, Condvar)> = Arc::default();
        let shared = Arc::clone(&slot);
        let handle = thread::Builder::new()
            .name("gpuplan-worker".to_string())
            .spawn(move || {
                let mut state = State {
                    pipeline: Pipeline::new(catalog).with_read_cache(read_cache),
                    sources: None,
                };
                while let Some(job) = next_job(&shared) {
                    let generation = job.generation();
                    let kind = JobKind::of(&job);
                    // A panic in Polars or a reader fails this job, not the workbench.
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(job, &mut state, &results)));
                    let action = ran.unwrap_or_else(|_| {
                        let why = super::terminal::last_panic().unwrap_or_default();
                        match kind {
                            JobKind::Replay => Action::ReplayFailed {
                                generation,
                                message: format!("internal error while replaying (please report it): {why}"),
                            },
                            JobKind::Forecast => Action::ForecastFailed {
                                generation,
                                message: format!("internal error while forecasting (please report it): {why}"),
                            },
                            JobKind::Compare => Action::ComparisonFailed {
                                generation,
                                message: format!("internal error while comparing (please report it): {why}"),
                            },
                            JobKind::Export => Action::ExportFailed {
                                message: format!("internal error while exporting (please report it): {why}"),
                            },
                            JobKind::Audit => {
                                state.pipeline.clear();
                                Action::FleetFailed {
                                    generation,
                                    message: format!("internal error while reading the logs (please report it): {why}"),
                                }
                            }
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

    /// Queues a job, replacing any job of its kind still waiting: holding a key never builds a
    /// backlog. A re-audit never drops a read still waiting: it becomes that read, with its
    /// settings.
    pub fn submit(&self, job: Job) {
        let (lock, ready) = &*self.slot;
        if let Ok(mut slot) = lock.lock() {
            match job {
                Job::Replay { .. } => slot.pending_replay = Some(job),
                Job::Compare { .. } => slot.pending_compare = Some(job),
                Job::FitForecast { .. } => slot.pending_forecast = Some(job),
                Job::Export { .. } => slot.pending_export = Some(job),
                job => {
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
            }
            ready.notify_one();
        }
    }
}

#[derive(Clone, Copy)]
enum JobKind {
    Audit,
    Forecast,
    Replay,
    Compare,
    Export,
}

impl JobKind {
    fn of(job: &Job) -> JobKind {
        match job {
            Job::Load { .. } | Job::Reaudit { .. } => JobKind::Audit,
            Job::Replay { .. } => JobKind::Replay,
            Job::Compare { .. } => JobKind::Compare,
            Job::FitForecast { .. } => JobKind::Forecast,
            Job::Export { .. } => JobKind::Export,
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let (lock, ready) = &*self.slot;
        if let Ok(mut slot) = lock.lock() {
            slot.closed = true;
            slot.pending = None;
            slot.pending_forecast = None;
            slot.pending_replay = None;
            slot.pending_export = None;
            ready.notify_one();
        }
        // A running Polars job is not interrupted; the process exits without waiting for it.
        drop(self.handle.take());
    }
}

/// The pipeline followed in the status line: how far a read has got, four times a second, then
/// each phase.
struct StatusObserver {
    generation: u64,
    results: Sender<Action>,
    ticker: Option<Arc<AtomicBool>>,
}

impl StatusObserver {
    fn stop_ticker(&mut self) {
        if let Some(done) = self.ticker.take() {
            done.store(true, Ordering::Relaxed);
        }
    }
}

impl Observer for StatusObserver {
    fn started(&mut self, what: &str, total_bytes: u64, _long: bool) {
        self.stop_ticker();
        READ_PROGRESS.reset();
        let _ = self.results.send(Action::FleetStarted {
            generation: self.generation,
            what: what.to_string(),
        });
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let (generation, results) = (self.generation, self.results.clone());
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
        self.ticker = Some(done);
    }

    fn phase(&mut self, what: String) {
        self.stop_ticker();
        let _ = self.results.send(Action::FleetStarted {
            generation: self.generation,
            what,
        });
    }
}

impl Drop for StatusObserver {
    fn drop(&mut self) {
        self.stop_ticker();
    }
}

fn next_job(slot: &Arc<(Mutex<Slot>, Condvar)>) -> Option<Job> {
    let (lock, ready) = &**slot;
    let mut guard = lock.lock().ok()?;
    loop {
        if guard.closed {
            return None;
        }
        if let Some(job) = guard
            .pending
            .take()
            .or_else(|| guard.pending_forecast.take())
            .or_else(|| guard.pending_replay.take())
            .or_else(|| guard.pending_compare.take())
            .or_else(|| guard.pending_export.take())
        {
            return Some(job);
        }
        guard = ready.wait(guard).ok()?;
    }
}

fn run(job: Job, state: &mut State, results: &Sender<Action>) -> Action {
    match job {
        Job::Load {
            generation,
            logs,
            settings,
        } => {
            state.sources = Some(sources_of(&logs));
            audit(state, generation, &settings, results)
        }
        Job::Reaudit { generation, settings } => audit(state, generation, &settings, results),
        Job::Replay { generation, plan } => replay(&mut state.pipeline, generation, &plan),
        Job::Compare { generation, plans } => compare(&mut state.pipeline, state.sources.as_ref(), generation, &plans),
        Job::FitForecast {
            generation,
            horizon_days,
            plan,
        } => fit_forecast(&mut state.pipeline, generation, horizon_days, &plan),
        Job::Export { plan, target } => export(state, &plan, &target),
    }
}

fn audit(state: &mut State, generation: u64, settings: &AuditSettings, results: &Sender<Action>) -> Action {
    let Some(sources) = state.sources.as_ref() else {
        return Action::FleetFailed {
            generation,
            message: "no logs read yet".to_string(),
        };
    };
    let mut observer = StatusObserver {
        generation,
        results: results.clone(),
        ticker: None,
    };
    match state.pipeline.audit(sources, settings, &mut observer) {
        Ok(audited) => Action::FleetLoaded {
            generation,
            fleet: Box::new(fleet_of(audited)),
        },
        Err(e) => Action::FleetFailed {
            generation,
            message: e.to_string(),
        },
    }
}

/// Both replays of the last audit's jobs under the plan; the jobs are gathered once per audit.
pub fn replay(pipeline: &mut Pipeline, generation: u64, plan: &Plan) -> Action {
    let contracts = pipeline.contracts(plan);
    match pipeline.replay(plan, contracts.as_ref()) {
        Ok(report) => Action::ReplayLoaded {
            generation,
            report: Box::new(report.clone()),
        },
        Err(PipelineError::Replay(error)) => Action::ReplayFailed {
            generation,
            message: format!("{error}: size the pools in the plan's [replay]"),
        },
        Err(e) => Action::ReplayFailed {
            generation,
            message: e.to_string(),
        },
    }
}

/// The plans compared on the workbench's logs by the pipeline's one comparison, the rows
/// `gpuplan diff` prints. The first plan is the workbench's: its audit and replay stay kept.
pub fn compare(
    pipeline: &mut Pipeline,
    sources: Option<&Sources>,
    generation: u64,
    plans: &[(String, Plan)],
) -> Action {
    match pipeline.compare(plans, sources) {
        Ok(compared) => Action::ComparisonLoaded {
            generation,
            comparison: Box::new(compared.comparison),
            warnings: compared.warnings,
        },
        Err(e) => Action::ComparisonFailed {
            generation,
            message: e.to_string(),
        },
    }
}

/// The last audit's series fitted over `horizon_days`, kept by the pipeline for the report too,
/// and each class's commitment policy chosen by its backtest under `plan`.
pub fn fit_forecast(pipeline: &mut Pipeline, generation: u64, horizon_days: u32, plan: &Plan) -> Action {
    match pipeline
        .forecast_fits(
            horizon_days,
            ForecastScope::Fleet,
            Vec::new(),
            plan.keeps_incomplete_tail(),
        )
        .cloned()
    {
        Ok(fits) => {
            let selection = match pipeline.contracts(plan) {
                Some(contracts) => pipeline.policy_selection(plan, &contracts).unwrap_or_default(),
                None => Vec::new(),
            };
            // Kept now, not only at the end: a workbench closed by a signal still reopens fast.
            pipeline.keep_fits();
            Action::ForecastFitted {
                generation,
                fits: Box::new(fits),
                selection,
            }
        }
        Err(e) => Action::ForecastFailed {
            generation,
            message: e.to_string(),
        },
    }
}

/// The report of the plan on screen, from the same pipeline `gpuplan report` runs, written
/// whole or not at all (each file atomically).
fn export(state: &mut State, plan: &Plan, target: &ExportTarget) -> Action {
    let request = ReportRequest {
        plan,
        plan_file: &target.plan_file,
        sources: state.sources.as_ref(),
        unsaved_edits: target.unsaved_edits,
        bill: &[],
        missing_logs: state.sources.as_ref().map_or(&[], |s| s.missing.as_slice()),
    };
    let report = match state.pipeline.report(&request, &mut Quiet) {
        Ok(report) => report,
        Err(e) => {
            return Action::ExportFailed {
                message: format!("no report written: {e}"),
            };
        }
    };
    let files = [
        (&target.json, report.to_json()),
        (&target.markdown, report_markdown(&report)),
    ];
    for (path, text) in files {
        if let Some(folder) = path.parent()
            && let Err(e) = std::fs::create_dir_all(folder)
        {
            return Action::ExportFailed {
                message: format!("cannot make the folder {}: {e}", folder.display()),
            };
        }
        if let Err(e) = crate::config::atomic::write_atomically(path, text.as_bytes()) {
            return Action::ExportFailed {
                message: format!("cannot write {}: {e}", path.display()),
            };
        }
    }
    Action::ReportExported {
        json: target.json.clone(),
        markdown: target.markdown.clone(),
    }
}
