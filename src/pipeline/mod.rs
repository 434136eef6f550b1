//! Inputs → every figure, each step once. The command line and the workbench both call this:
//! read the logs, audit them, measure utilization from Prometheus, replay the jobs, match
//! contracts, forecast demand and build the waterfall and the report. Each step keeps what it computed under the
//! value it consumed (the logs and how to read them, the `AuditSettings`, the `ReplaySetup`,
//! compared whole), so a changed input recomputes only what depends on it.
//!
//! Where a figure is computed: the economics are `model/`'s functions; this module decides which
//! to call, with what, and when. Neither face computes a figure of its own.
//!
//! | figure | step here | computed by |
//! |---|---|---|
//! | the audit (classes, GPU-hours, utilization, stranded spend) | `Pipeline::audit` | `data::audit` |
//! | measured utilization (DCGM via Prometheus) | `Pipeline::audit` | `data::prometheus::pull`, `model::utilization` |
//! | contract-term matching | `Pipeline::contracts` | `model::fleet_contracts::contracts_report` |
//! | the replay of today's clusters and the split | `Pipeline::replay` | `model::split::replay_fleets` |
//! | the board's waterfall | `Pipeline::board` | `model::waterfall::waterfall` |
//! | plans side by side (`gpuplan diff`, the workbench's compare) | `Pipeline::compare` | `model::compare` |
//! | the plan's evaluation (training, inference, risk, checks) | `Pipeline::report` | `model::evaluate::evaluate` |
//! | the demand forecast (fleet, and per cluster for `gpuplan forecast`) | `Pipeline::forecast` | `model::forecast::{fit_fleet, forecast_for_plan}` |
//! | the forecast's backtest, and the commitments' | `Pipeline::backtest` | `model::forecast::backtest_fleet`, `model::commitment_layers::backtest_commitments` |
//! | commitment layers on the forecast | `Pipeline::commitments` | `model::commitment_layers::commitment_report` |
//! | the bill (FOCUS) over the audit's window or its own billing period | `bill::bill` | `data::focus`, `model::bill::bill_report` |
//!
//! The workbench's panes recompute the plan-only figures (and the contract matching on the last
//! audit) on the UI thread, with the same `model` functions, so a slider moves every pane in
//! one frame; its export (`X`) is this module's report, the bytes `gpuplan report` prints.

pub mod bill;
pub mod compare;
pub mod error;
mod forward;
mod kept_fits;
mod live_sources;
pub mod observer;
pub mod report;
pub mod sources;

use std::collections::BTreeMap;

use self::error::PipelineError;
use self::forward::ForecastKey;
use self::observer::Observer;
use self::sources::Sources;
use crate::data::audit::classify::JobClasses;
use crate::data::audit::fleet_source::{FleetSource, attach_measurements};
use crate::data::audit::host_map::HostMap;
use crate::data::prometheus::client::{PrometheusClient, PrometheusError, shown_url};
use crate::data::prometheus::pull::{PullProgress, UtilizationPull, explain_unmeasured, pull_cluster_utilization};
use crate::data::read_cache::{InputStamps, Lookup, ReadCache, note_read, read_key, store_in_background};
use crate::data::readers::load::{FileSummary, LoadError, expand_inputs};
use crate::model::audit_settings::{AuditSettings, WindowSpec};
use crate::model::catalog::Catalog;
use crate::model::commitment_layers::{StayPlan, stay_with_providers};
use crate::model::fleet::{AuditReport, Window};
use crate::model::fleet_contracts::{ContractsReport, contracts_report};
use crate::model::forecast::FleetFits;
use crate::model::plan::{Plan, PrometheusSource};
use crate::model::replay::ReplayJob;
use crate::model::split::{ReplayReport, ReplaySetup, SplitError, replay_fleets};
use crate::model::workload::ClassificationRules;
use crate::shared::format::thousands;

/// Logs above this size are worth a progress line on the command line.
pub const LARGE_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// An audit as both faces show it.
#[derive(Debug, Clone)]
pub struct Audited {
    pub report: AuditReport,
    pub files: Vec<FileSummary>,
    /// Rows read: the runs of logs read whole, else what the audit counted.
    pub rows_read: usize,
    /// Prometheus (or the host patterns it needs) failed: the logs' figures stand. The command
    /// line stops on it; the workbench shows it in its banner.
    pub measure_failure: Option<MeasureFailure>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MeasureFailure {
    Hosts(String),
    Prometheus(PrometheusError),
}

impl MeasureFailure {
    pub fn into_error(self) -> PipelineError {
        match self {
            MeasureFailure::Hosts(message) => PipelineError::HostsText(message),
            MeasureFailure::Prometheus(e) => PipelineError::Prometheus(e),
        }
    }
}

impl std::fmt::Display for MeasureFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeasureFailure::Hosts(message) => f.write_str(message),
            MeasureFailure::Prometheus(e) => write!(f, "{e}"),
        }
    }
}

/// What reading consumed: the sources, each named file's size and modification time (a log or
/// mapping edited in place is read again), and for pods pulled from Prometheus, the window.
#[derive(Debug, Clone, PartialEq)]
struct ReadKey {
    sources: Sources,
    files: Vec<Option<(u64, std::time::SystemTime)>>,
    live_window: Option<WindowSpec>,
}

/// The size and modification time of each log path and the mapping, as named (a glob's matches
/// and a folder's parts are not looked into).
fn file_stamps(sources: &Sources) -> Vec<Option<(u64, std::time::SystemTime)>> {
    sources
        .logs
        .iter()
        .chain(sources.mapping.iter())
        .map(|path| {
            let meta = std::fs::metadata(path).ok()?;
            Some((meta.len(), meta.modified().ok()?))
        })
        .collect()
}

/// The sources' column mapping, read from its file when they name one.
fn read_mapping_of(sources: &Sources) -> Result<Option<crate::data::readers::mapping::Mapping>, PipelineError> {
    use crate::data::readers::mapping::{Mapping, TimeFormat};
    let mapping = sources
        .mapping
        .as_deref()
        .map(crate::config::mapping_file::read_mapping)
        .transpose()
        .map_err(PipelineError::Mapping)?;
    let Some(origin) = &sources.time_origin else {
        return Ok(mapping);
    };
    // `--time-origin`: the logs' numeric times are seconds from this instant (a recognised
    // trace keeps its own reading of them, from this origin).
    let mut mapping = mapping.unwrap_or_else(Mapping::default);
    mapping.units.time_origin = Some(origin.clone());
    if mapping.units.time == TimeFormat::Auto {
        mapping.units.time = TimeFormat::OffsetS;
    }
    Ok(Some(mapping))
}

struct ReadStep {
    key: ReadKey,
    id: u64,
    /// Whether the read came from the cache of reads.
    from_cache: bool,
    /// Where the forecasts fitted on this read are kept for the next open.
    kept_fits: Option<kept_fits::KeptFits>,
    source: FleetSource,
    /// The mapping's `[hosts]`, merged into every audit's settings.
    mapping_hosts: BTreeMap<String, Vec<String>>,
    /// Node lists given beside the logs: what each cluster runs on, merged into every audit's
    /// settings.
    node_inventories: Vec<crate::model::node_inventory::NodeInventory>,
    /// The window the pods were pulled over (the audit's window is then fixed).
    live_window: Option<WindowSpec>,
}

struct AuditStep {
    key: (u64, AuditSettings),
    id: u64,
    audited: Audited,
    /// Each job's class as the audit decided it, for the replay's jobs (logs read whole).
    classes: Option<JobClasses>,
}

/// What a utilization pull consumed: the logs read, the server, the window and the hosts.
#[derive(Debug, Clone, PartialEq)]
struct PullKey {
    read: u64,
    prometheus: PrometheusSource,
    window: Window,
    hosts: BTreeMap<String, Vec<String>>,
}

struct ReplayStep {
    key: (u64, ReplaySetup),
    result: Result<ReplayReport, SplitError>,
}

/// How long each step took the last time it ran, in the order they ran (seconds): what the
/// benchmarks and `GPUPLAN_TIMINGS=1` print, phase by phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepTimings {
    pub steps: Vec<(&'static str, f64)>,
}

impl StepTimings {
    fn record<T>(&mut self, step: &'static str, work: impl FnOnce() -> T) -> T {
        let started = std::time::Instant::now();
        let out = work();
        self.steps.push((step, started.elapsed().as_secs_f64()));
        out
    }
}

pub struct Pipeline {
    catalog: Catalog,
    timings: StepTimings,
    read: Option<ReadStep>,
    audit: Option<AuditStep>,
    pull: Option<(PullKey, UtilizationPull)>,
    replay_jobs: Option<(u64, Vec<ReplayJob>)>,
    replay: Option<ReplayStep>,
    /// The demand fits, keyed by the audit and the horizon in days: growth and planned runs
    /// only reshape them.
    forecast: Option<(ForecastKey, FleetFits)>,
    /// Where reads of logs are kept for the next open; none: every open reads the bytes.
    read_cache: Option<ReadCache>,
    next_id: u64,
}

impl Pipeline {
    pub fn new(catalog: Catalog) -> Pipeline {
        Pipeline {
            catalog,
            read: None,
            audit: None,
            pull: None,
            replay_jobs: None,
            replay: None,
            forecast: None,
            read_cache: None,
            next_id: 0,
            timings: StepTimings::default(),
        }
    }

    /// Keeps reads of logs in `cache` and takes them from it when the logs did not change.
    pub fn with_read_cache(mut self, cache: Option<ReadCache>) -> Pipeline {
        self.read_cache = cache;
        self
    }

    /// Writes the forecasts fitted since the last write beside the cached read, for the next
    /// open (also done when the read is replaced and when the pipeline goes).
    pub fn keep_fits(&self) {
        if let Some(kept) = self.read.as_ref().and_then(|r| r.kept_fits.as_ref()) {
            kept.keep();
        }
    }

    /// The steps run since the pipeline was made, with their times.
    pub fn timings(&self) -> &StepTimings {
        &self.timings
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn rules(&self) -> Result<&ClassificationRules, PipelineError> {
        self.catalog.classification.as_ref().ok_or(PipelineError::NoRules)
    }

    /// Forgets what was read and computed (a read or audit that panicked).
    pub fn clear(&mut self) {
        self.read = None;
        self.audit = None;
        self.pull = None;
        self.replay_jobs = None;
        self.replay = None;
        self.forecast = None;
    }

    /// The sources' audit under `settings`: read when the sources changed, audited when the
    /// settings (or what was read) changed, measured where Prometheus is given.
    pub fn audit(
        &mut self,
        sources: &Sources,
        settings: &AuditSettings,
        observer: &mut dyn Observer,
    ) -> Result<&Audited, PipelineError> {
        let live = sources.is_live();
        let key = ReadKey {
            sources: sources.clone(),
            files: file_stamps(sources),
            live_window: live.then_some(settings.window),
        };
        if self.read.as_ref().is_none_or(|r| r.key != key) {
            // A read that fails must not leave the logs it was to replace.
            self.clear();
            let started = std::time::Instant::now();
            let step = self.read_sources(key, settings, observer)?;
            let name = if step.from_cache { "read from the cache" } else { "read" };
            self.timings.steps.push((name, started.elapsed().as_secs_f64()));
            self.read = Some(step);
        }
        let Some(read) = self.read.as_ref() else {
            return Err(PipelineError::NotAudited);
        };
        let mut settings = settings.clone();
        for (cluster, patterns) in &read.mapping_hosts {
            settings
                .host_patterns
                .entry(cluster.clone())
                .or_default()
                .extend(patterns.iter().cloned());
        }
        settings.node_inventories = read.node_inventories.clone();
        if let Some(window) = read.live_window {
            settings.window = window;
        }
        let audit_key = (read.id, settings);
        if self.audit.as_ref().is_none_or(|a| a.key != audit_key) {
            self.audit = None;
            let started = std::time::Instant::now();
            let (audited, classes) = self.audit_read(&audit_key.1, observer)?;
            self.timings.steps.push(("audit", started.elapsed().as_secs_f64()));
            let id = self.id();
            self.audit = Some(AuditStep {
                key: audit_key,
                id,
                audited,
                classes,
            });
        }
        self.audit.as_ref().map(|a| &a.audited).ok_or(PipelineError::NotAudited)
    }

    fn read_sources(
        &mut self,
        key: ReadKey,
        settings: &AuditSettings,
        observer: &mut dyn Observer,
    ) -> Result<ReadStep, PipelineError> {
        let rules = self.rules()?.clone();
        let sources = &key.sources;
        let mapping = read_mapping_of(sources)?;
        let mapping_hosts = mapping.as_ref().map(|m| m.hosts.clone()).unwrap_or_default();
        let mut from_cache = false;
        let mut kept_fits = None;
        let mut node_inventories = Vec::new();
        let (source, live_window) = match (&sources.prometheus, sources.logs.is_empty()) {
            (_, true) if let Some(warehouse) = &sources.warehouse => {
                // Nothing is read here: the audit is sent, and may run long (passes).
                observer.started(&format!("auditing in the warehouse ({})", warehouse.driver), 0, true);
                let source = FleetSource::Warehouse {
                    source: warehouse.clone(),
                    mapping: mapping.clone(),
                    session: Default::default(),
                };
                (source, None)
            }
            (_, true) if let Some(slurm) = &sources.slurm => {
                let (source, window) = live_sources::read_slurm(slurm, &rules, settings.window, observer)?;
                (source, Some(window))
            }
            (Some(prometheus), true) => {
                let (source, window) = live_sources::read_pods(prometheus, &rules, settings.window, observer)?;
                (source, Some(window))
            }
            _ => {
                let inputs = expand_inputs(&sources.logs)?;
                // Node lists price the clusters; the rest are the logs (and the cache's key).
                let (node_lists, inputs): (Vec<_>, Vec<_>) = inputs
                    .into_iter()
                    .partition(|p| crate::data::readers::node_list::is_node_list(p));
                node_inventories = crate::data::readers::node_list::inventories(&node_lists)?;
                let bytes: u64 = inputs
                    .iter()
                    .filter_map(|p| std::fs::metadata(p).ok())
                    .map(|m| m.len())
                    .sum();
                // A folder (partitioned Parquet) has no size to show a bar of: a spinner and the phase.
                let large =
                    bytes > LARGE_INPUT_BYTES || inputs.iter().any(|p| p.is_dir()) || sources.prometheus.is_some();
                observer.started(&format!("reading {} MB", bytes / 1_000_000), bytes, large);
                let started = std::time::Instant::now();
                // Before the key's hash: a change from here to the read's end is a change while read.
                let stamps = InputStamps::of(&inputs);
                let mut damaged = None;
                let cache_key = self.read_cache.as_ref().and_then(|_| {
                    read_key(
                        &inputs,
                        sources.mapping.as_deref(),
                        sources.input_format.as_deref(),
                        sources.time_origin.as_deref(),
                        &rules,
                        env!("CARGO_PKG_VERSION"),
                    )
                });
                let cached = match (&self.read_cache, &cache_key) {
                    (Some(cache), Some(key)) => match cache.lookup(key) {
                        Lookup::Hit(source) => Some(*source),
                        Lookup::Miss => None,
                        Lookup::Damaged(why) => {
                            observer.phase(format!(
                                "the cache's copy of this read was unusable ({why}): reading the logs"
                            ));
                            damaged = Some(why);
                            None
                        }
                    },
                    _ => None,
                };
                from_cache = cached.is_some();
                if let (Some(cache), Some(key)) = (&self.read_cache, &cache_key) {
                    kept_fits = Some(kept_fits::KeptFits::open(cache, key));
                }
                let mut source = match cached {
                    Some(source) => source,
                    None => FleetSource::read(&inputs, sources.input_format.as_deref(), mapping.as_ref(), &rules)?,
                };
                let changed = stamps.changed_since();
                // A log changed while read is not kept: its key would name bytes the read never saw.
                if !from_cache
                    && changed.is_empty()
                    && let (Some(cache), Some(key), FleetSource::Runs { .. }) = (&self.read_cache, &cache_key, &source)
                {
                    // Written beside the audit; the process waits for it before it ends.
                    store_in_background(cache.clone(), key.clone(), source.clone());
                }
                // Said on the inputs' warnings, after the copy for the cache was taken.
                note_read(&mut source, &changed, damaged.as_ref());
                observer.phase(match (&source, source.rows_read()) {
                    (FleetSource::Partitioned { partitions, .. }, _) => {
                        format!("auditing {} cluster partitions one at a time", partitions.len())
                    }
                    (_, rows) => {
                        let rows = rows.unwrap_or(0) as f64;
                        format!(
                            "read {} rows ({:.0} rows/s); classifying and aggregating",
                            thousands(rows),
                            rows / started.elapsed().as_secs_f64().max(1e-9)
                        )
                    }
                });
                (source, None)
            }
        };
        Ok(ReadStep {
            key,
            id: self.id(),
            from_cache,
            kept_fits,
            source,
            mapping_hosts,
            node_inventories,
            live_window,
        })
    }

    fn audit_read(
        &mut self,
        settings: &AuditSettings,
        observer: &mut dyn Observer,
    ) -> Result<(Audited, Option<JobClasses>), PipelineError> {
        let rules = self.rules()?.clone();
        let Some(read) = self.read.as_ref() else {
            return Err(PipelineError::NotAudited);
        };
        let (mut report, mut files, classes) = read.source.audit(&rules, settings, &mut |what| observer.phase(what))?;
        // Each node list is an input too, with what it says against the logs.
        files.extend(node_list_inputs(&read.node_inventories, &report, settings));
        let read_id = read.id;
        let mut measure_failure = None;
        // Logs or pods alike: each cluster's DCGM series measure its utilization.
        if let Some(prometheus) = read.key.sources.prometheus.clone() {
            match read.source.host_map(settings) {
                Err(e) => measure_failure = Some(MeasureFailure::Hosts(e.to_string())),
                Ok(hosts) => {
                    let key = PullKey {
                        read: read_id,
                        prometheus: prometheus.clone(),
                        window: report.window.clone(),
                        hosts: settings.host_patterns.clone(),
                    };
                    let cached = self.pull.as_ref().filter(|(k, _)| *k == key).map(|(_, p)| p.clone());
                    let pulled = match cached {
                        Some(pull) => Ok(pull),
                        None => pull_utilization(&prometheus, &report.window, &hosts, observer),
                    };
                    match pulled {
                        Ok(pull) => {
                            attach_measurements(&mut report, &pull.measurements, settings);
                            report.measurement_notes.extend(pull.notes.iter().cloned());
                            explain_unmeasured(&mut report, &pull);
                            report.measurement_notes.push(format!(
                                "{} queries to {}, {} bytes received",
                                pull.queries,
                                shown_url(&prometheus.url),
                                thousands(pull.bytes_received as f64)
                            ));
                            self.pull = Some((key, pull));
                        }
                        Err(e) => measure_failure = Some(MeasureFailure::Prometheus(e)),
                    }
                }
            }
        }
        let rows_read = self
            .read
            .as_ref()
            .and_then(|r| r.source.rows_read())
            .unwrap_or((report.runs_total + report.rows_rejected_total) as usize);
        let audited = Audited {
            report,
            files,
            rows_read,
            measure_failure,
        };
        Ok((audited, classes))
    }

    /// The queries a warehouse audit of `sources` sends, unsent but for those the window needs
    /// (`--explain-sql`).
    pub fn explain_warehouse(
        &self,
        sources: &Sources,
        settings: &AuditSettings,
    ) -> Result<Vec<crate::data::warehouse::SentQuery>, PipelineError> {
        let rules = self.rules()?;
        let Some(warehouse) = &sources.warehouse else {
            return Ok(Vec::new());
        };
        let mapping = read_mapping_of(sources)?;
        let origin = crate::data::audit::fleet_source::warehouse_origin(warehouse);
        crate::data::warehouse::audit(warehouse, mapping.as_ref(), rules, settings, true, &mut |_| {}, None)
            .map(|audited| audited.queries)
            .map_err(|e| LoadError::new(origin, crate::data::error::DataError::Warehouse(Box::new(e))).into())
    }

    /// Whether logs have been read (an audit may still have failed on them).
    pub fn has_read(&self) -> bool {
        self.read.is_some()
    }

    /// The last audit, if any.
    pub fn audited(&self) -> Option<&Audited> {
        self.audit.as_ref().map(|a| &a.audited)
    }

    /// The contract matching of the last audit's demand under `plan`.
    pub fn contracts(&mut self, plan: &Plan) -> Option<ContractsReport> {
        let audit = &self.audit.as_ref()?.audited.report;
        let catalog = &self.catalog;
        self.timings
            .record("contracts", || contracts_report(plan, catalog, audit))
    }

    /// Every audited cluster kept with its provider on its provider's own terms: the board's
    /// other end state beside switching.
    pub fn stay(&mut self, contracts: &ContractsReport) -> Option<StayPlan> {
        let audit = &self.audit.as_ref()?.audited.report;
        let catalog = &self.catalog;
        Some(self.timings.record("stay", || {
            stay_with_providers(&contracts.fleet, audit, catalog, contracts.hours_per_month)
        }))
    }

    /// The last audit's jobs replayed through today's clusters and the plan's split; replayed
    /// again only when the audit or what the replay consumes (`ReplaySetup`) changed.
    pub fn replay(&mut self, plan: &Plan, contracts: Option<&ContractsReport>) -> Result<&ReplayReport, PipelineError> {
        let rules = self.rules()?.clone();
        let (Some(read), Some(audit)) = (self.read.as_ref(), self.audit.as_ref()) else {
            return Err(PipelineError::NotAudited);
        };
        let report = &audit.audited.report;
        let key = (audit.id, ReplaySetup::of(plan, contracts, report));
        if self.replay.as_ref().is_none_or(|r| r.key != key) {
            if self.replay_jobs.as_ref().is_none_or(|(id, _)| *id != audit.id) {
                self.replay_jobs = None;
                let jobs = self.timings.record("replay jobs", || {
                    read.source
                        .replay_jobs(&rules, &audit.key.1, report, audit.classes.as_ref())
                })?;
                self.replay_jobs = Some((audit.id, jobs.jobs));
            }
            let jobs = self.replay_jobs.as_ref().map(|(_, j)| j.as_slice()).unwrap_or_default();
            let result = self.timings.record("replay", || replay_fleets(jobs, report, &key.1));
            self.replay = Some(ReplayStep { key, result });
        }
        match self.replay.as_ref().map(|r| &r.result) {
            Some(Ok(report)) => Ok(report),
            Some(Err(error)) => Err(PipelineError::Replay(error.clone())),
            None => Err(PipelineError::NotAudited),
        }
    }
}

/// Each cluster's hourly DCGM utilization over the audit window, with progress.
fn pull_utilization(
    prometheus: &PrometheusSource,
    window: &Window,
    hosts: &HostMap,
    observer: &mut dyn Observer,
) -> Result<UtilizationPull, PrometheusError> {
    let client = PrometheusClient::connect(prometheus)?;
    let shown = client.shown_url();
    let mut tick = |p: PullProgress| {
        observer.phase(format!(
            "pulling utilization from {shown}: query {} of {}",
            p.done, p.total
        ))
    };
    pull_cluster_utilization(&client, prometheus, window, hosts, &mut tick)
}

/// The node lists read beside the logs as entries of `inputs[]`: their nodes, and their
/// warnings against the audit (`model::node_inventory::node_list_warnings`).
fn node_list_inputs(
    inventories: &[crate::model::node_inventory::NodeInventory],
    report: &AuditReport,
    settings: &AuditSettings,
) -> Vec<FileSummary> {
    let planned = |name: &str| settings.clusters.iter().any(|c| c.name == name);
    crate::model::node_inventory::node_list_warnings(inventories, &report.clusters, &planned)
        .into_iter()
        .map(|(path, warnings)| FileSummary {
            rows: inventories
                .iter()
                .filter(|i| i.source == path)
                .map(|i| (i.nodes + i.duplicate_nodes.len() as u64) as usize)
                .sum(),
            path,
            format: "node-list",
            rejected: 0,
            warnings,
            notes: Vec::new(),
        })
        .collect()
}
