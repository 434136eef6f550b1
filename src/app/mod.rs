//! The workbench's state and its one mutation path, `update(app, action) -> effects`. No I/O,
//! no threads, no terminal: the runtime executes the effects and feeds results back as actions.

pub mod cluster_field;
pub mod command;
pub mod compare_state;
pub mod derived;
pub mod error;
pub mod field;
pub mod forecast_field;
pub mod forecast_state;
pub mod key;
pub mod palette;
pub mod read_notices;
pub mod replay_state;
mod update;

use std::path::PathBuf;

pub use update::{changes_nothing, class_jobs, cluster_classes, update};

use self::command::{CommandId, KeyMap};
use self::derived::Derived;
use self::field::{ClusterField, Field, ForecastField};
use self::forecast_state::ForecastState;
use self::key::Key;
use self::palette::PaletteState;
use self::replay_state::ReplayState;
use crate::model::audit_settings::{AuditSettings, WindowSpec};
use crate::model::catalog::Catalog;
use crate::model::fleet::AuditReport;
use crate::model::plan::Plan;
use crate::model::workload::WorkloadClass;

/// The six panes, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaneId {
    Workloads,
    Mfu,
    Inference,
    Risk,
    Contracts,
    Forecast,
}

impl PaneId {
    pub const ALL: [PaneId; 6] = [
        PaneId::Workloads,
        PaneId::Mfu,
        PaneId::Inference,
        PaneId::Risk,
        PaneId::Contracts,
        PaneId::Forecast,
    ];

    pub fn title(self) -> &'static str {
        match self {
            PaneId::Workloads => "Workloads",
            PaneId::Mfu => "MFU & sensitivity",
            PaneId::Inference => "Inference",
            PaneId::Risk => "Risk",
            PaneId::Contracts => "Contracts",
            PaneId::Forecast => "Forecast",
        }
    }

    /// The title where the tab bar is short of room.
    pub fn short_title(self) -> &'static str {
        match self {
            PaneId::Mfu => "MFU",
            PaneId::Inference => "Infer.",
            PaneId::Contracts => "Contr.",
            PaneId::Workloads => "Work.",
            other => other.title(),
        }
    }

    pub fn index(self) -> usize {
        PaneId::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }

    fn offset(self, by: isize) -> PaneId {
        let n = PaneId::ALL.len() as isize;
        PaneId::ALL[((self.index() as isize + by).rem_euclid(n)) as usize]
    }
}

/// A log file the fleet was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetFile {
    pub path: String,
    /// Whether `path` is a file or folder read (not a warehouse's table, a scheduler's command
    /// or a server's address): the header names a file by its name, anything else whole.
    pub on_disk: bool,
    pub format: String,
    pub rows: usize,
    pub rejected: u64,
    pub warnings: Vec<String>,
}

/// The audited fleet the Workloads and Contracts panes show.
#[derive(Debug, Clone, PartialEq)]
pub struct Fleet {
    pub report: AuditReport,
    pub files: Vec<FleetFile>,
    /// A source that failed while the logs' audit stood (Prometheus down): for the banner.
    pub warning: Option<String>,
}

/// Where the fleet stands: the last result stays on screen while a newer one is computed.
#[derive(Debug, Clone, PartialEq)]
pub enum FleetStatus {
    Idle,
    /// A read or audit of this generation is running; `what` says what, for the status line.
    Working {
        generation: u64,
        what: String,
    },
    Failed {
        message: String,
    },
}

/// Which logs the fleet is read from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogInputs {
    pub paths: Vec<PathBuf>,
    pub mapping: Option<PathBuf>,
    /// The logs' layout when detection guesses wrong (a plan's `[[logs]] format`).
    pub input_format: Option<String>,
    /// `--time-origin`: second 0 of the logs' relative times (RFC 3339).
    pub time_origin: Option<String>,
    /// The Prometheus holding the fleet's DCGM metrics, when there is one.
    pub prometheus: Option<crate::model::plan::PrometheusSource>,
    /// With no paths: the jobs are read from Slurm's accounting through sacct.
    pub slurm: Option<Box<crate::model::plan::SlurmSource>>,
    /// With no paths: the runs live in a database, audited there (the plan's `[warehouse]`).
    pub warehouse: Option<Box<crate::model::plan::WarehouseSource>>,
    /// The paths are the shipped sample, read because nothing named a log: a save names none.
    pub shipped_sample: bool,
    /// Logs the plan names that were not there when it was opened: not read, kept in the plan.
    pub missing: Vec<PathBuf>,
}

impl LogInputs {
    /// Whether there is nothing to read: every log the plan names is missing, and no live source.
    pub fn nothing_to_read(&self) -> bool {
        self.paths.is_empty() && self.prometheus.is_none() && self.slurm.is_none() && self.warehouse.is_none()
    }
}

/// How far a pane's window moves: the view, which knows each pane's height and length, turns
/// pages into lines and keeps the last line in reach without scrolling past it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScrollBy {
    /// Lines down (negative: up).
    Lines(i32),
    /// Pages down (negative: up); a page keeps one line of the last for context.
    Pages(i32),
    Top,
    Bottom,
}

/// The plan file behind the plan on screen.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanFile {
    /// None for the built-in default plan until it is saved somewhere.
    pub path: Option<PathBuf>,
    /// The text as last read or saved: saves rewrite only the values that changed in it.
    pub text: Option<String>,
}

/// The drill-down of the Workloads pane: fleet → cluster → class → job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkloadsView {
    Fleet,
    Cluster {
        cluster: usize,
    },
    Class {
        cluster: usize,
        class: WorkloadClass,
    },
    Job {
        cluster: usize,
        class: WorkloadClass,
        job: usize,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cursors {
    pub cluster: usize,
    /// Row within a cluster drill (its classes, then the plan's values of the cluster) or a
    /// class drill (jobs).
    pub drill_row: usize,
    pub accelerator: usize,
    /// Over the risk table's editable cells: probability and impact of each row in turn.
    pub risk_cell: usize,
    pub inference_field: usize,
    pub contract_class: usize,
    /// Over the Forecast pane's editable rows (`App::forecast_fields`).
    pub forecast_row: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BannerLevel {
    Info,
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Banner {
    pub level: BannerLevel,
    pub text: String,
}

/// What the user chooses when the plan file changed on disk while they hold unsaved edits.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    pub theirs: Plan,
    pub theirs_text: String,
}

/// Unsaved edits an earlier workbench kept in a recovery file when a signal or a panic stopped
/// it, offered back on the next open of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovery {
    /// The recovery file (config::recovery).
    pub path: PathBuf,
    /// The plan file the edits belong to (None for the built-in plan).
    pub plan_path: Option<PathBuf>,
    pub plan: Plan,
    pub step: RecoveryStep,
}

/// Where the user stands with a recovery file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryStep {
    /// Offered, or put off with Esc: a clean quit leaves the file for the next open.
    Offered,
    /// Shown beside the plan on disk; Esc there returns to the offer.
    Comparing,
    /// Loaded as unsaved edits: a clean quit (saved, or the edits dropped) removes the file.
    Recovered,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    None,
    Help {
        scroll: usize,
    },
    /// What reading the logs said (`read_notices`).
    ReadNotices {
        scroll: usize,
    },
    Palette(PaletteState),
    /// Typing a value for a field.
    Entry {
        field: Field,
        text: String,
        error: Option<String>,
    },
    /// Typing the path to save the plan to; Tab completes it from the folders on disk.
    SaveAs {
        text: String,
        error: Option<String>,
        /// What Tab found when more than one entry matches.
        choices: Vec<String>,
    },
    /// Unsaved edits and a quit request.
    ConfirmQuit,
    Conflict(Box<Conflict>),
    /// Recover, discard or compare the edits in `App::recovery`.
    Recover,
    /// Plans side by side; Esc returns to the conflict it was opened from, if any.
    Compare {
        from_conflict: Option<Box<Conflict>>,
        scroll: usize,
        /// The first compared plan shown beside the current one, when not all fit (← →).
        column: usize,
    },
}

/// Undo and redo stacks of whole plans: plans are small, and a snapshot can't drift from the
/// edit that made it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    pub undo: Vec<Plan>,
    pub redo: Vec<Plan>,
    /// The field the last edit touched: repeated steps of one slider undo as one edit.
    pub last_field: Option<Field>,
}

#[derive(Clone)]
pub struct App {
    pub catalog: Catalog,
    pub plan: Plan,
    pub plan_file: PlanFile,
    pub derived: Derived,
    pub fleet: Option<Fleet>,
    pub fleet_status: FleetStatus,
    pub generation: u64,
    /// The settings the latest audit request carried: when the plan's differ, audit again.
    pub audited_for: Option<AuditSettings>,
    pub logs: LogInputs,
    pub focus: PaneId,
    /// The focused pane fills the space between the title line and the key hints.
    pub zoomed: bool,
    pub workloads_view: WorkloadsView,
    pub cursors: Cursors,
    pub overlay: Overlay,
    pub banner: Option<Banner>,
    pub history: History,
    /// Unsaved edits: the plan differs from `saved`, the plan as last opened, saved or reloaded.
    pub modified: bool,
    pub saved: Plan,
    pub keymap: KeyMap,
    pub theme_names: Vec<String>,
    pub theme: usize,
    /// Plan files the palette offers to open or compare (saved plans, shipped examples).
    pub known_plans: Vec<PathBuf>,
    /// Log and plan files the palette's file search offers, listed by the runtime.
    pub known_files: Vec<PathBuf>,
    /// Plans shown beside the current one in the compare view, and the comparison itself
    /// (recomputed as the current plan changes).
    pub compare: Vec<(String, Plan)>,
    pub comparison: Option<crate::model::compare::PlanComparison>,
    /// The worker's part of the comparison: the fleet, board and replay rows on the logs.
    pub comparing: compare_state::CompareState,
    /// Why the plan file on disk does not load, while it does not; the last good plan stays.
    pub disk_error: Option<String>,
    /// The recovery file found on opening the plan, and what the user did with it.
    pub recovery: Option<Box<Recovery>>,
    /// Quit once the save in flight lands; a failed save keeps the workbench open.
    pub quit_after_save: bool,
    /// The read-only plan file the next save may replace: set when a save found it read-only.
    pub replace_read_only: Option<PathBuf>,
    /// The plan file this session last wrote: named again when the workbench quits.
    pub written: Option<PathBuf>,
    pub quit: bool,
    pub replay: ReplayState,
    pub forecast: ForecastState,
}

/// Something that happened: a command, typed text, a mouse gesture or a runtime result.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A key press: dialogs that take text read it as text, otherwise the key map turns it
    /// into a command.
    Key(Key),
    Command(CommandId),
    /// A click on a pane.
    FocusPane(PaneId),
    /// The mouse wheel over a pane: its window moves, its selection stays.
    Scroll {
        pane: PaneId,
        lines: i32,
    },
    /// A click or drag on a slider's track, at this MFU.
    SetField {
        field: Field,
        value: f64,
    },
    FleetStarted {
        generation: u64,
        what: String,
    },
    FleetLoaded {
        generation: u64,
        fleet: Box<Fleet>,
    },
    FleetFailed {
        generation: u64,
        message: String,
    },
    /// The plan file changed on disk and parsed.
    PlanChangedOnDisk {
        /// The file that changed, so a report about a plan no longer open can be told apart.
        path: PathBuf,
        plan: Box<Plan>,
        text: String,
    },
    /// The plan file changed on disk and does not parse: the message names file, line, column.
    PlanInvalidOnDisk {
        path: PathBuf,
        message: String,
    },
    /// The plan file is changing under another program's write: it is read once it settles.
    PlanBeingWritten {
        path: PathBuf,
    },
    /// A save found the file on disk changed since it was read (or last saved) and wrote
    /// nothing; this is what is there now.
    SaveFoundChange {
        path: PathBuf,
        plan: Box<Plan>,
        text: String,
    },
    /// A save found the plan file read-only and wrote nothing; another save replaces it.
    PlanReadOnly {
        path: PathBuf,
    },
    PlanOpened {
        path: PathBuf,
        plan: Box<Plan>,
        text: String,
    },
    PlanSaved {
        path: PathBuf,
        text: String,
        /// Says when the file's own layout could not be kept.
        note: Option<String>,
    },
    Failed {
        message: String,
    },
    /// The path typed in "save as" cannot be saved to: the dialog opens again with it.
    SavePathRefused {
        typed: String,
        message: String,
    },
    /// Tab's completion of the path typed in "save as".
    SavePathCompleted {
        typed: String,
        text: String,
        choices: Vec<String>,
    },
    ComparePlanLoaded {
        label: String,
        plan: Box<Plan>,
    },
    FilesListed {
        files: Vec<PathBuf>,
    },
    /// The plan just opened has a recovery file from a workbench stopped by a signal or a panic.
    RecoveryFound(Box<Recovery>),
    /// The report was written: its JSON and Markdown files.
    ReportExported {
        json: PathBuf,
        markdown: PathBuf,
    },
    ExportFailed {
        message: String,
    },
    ReplayLoaded {
        generation: u64,
        report: Box<crate::model::split::ReplayReport>,
    },
    ReplayFailed {
        generation: u64,
        message: String,
    },
    /// The audit's series fitted over the plan's horizon.
    ForecastFitted {
        generation: u64,
        fits: Box<crate::model::forecast::FleetFits>,
        /// Each class's commitment policy, chosen by its backtest on the same audit.
        selection: Vec<crate::model::commitment_layers::PolicySelection>,
    },
    ForecastFailed {
        generation: u64,
        message: String,
    },
    /// Every row of the comparison, from the worker's `Pipeline::compare` on the logs.
    ComparisonLoaded {
        generation: u64,
        comparison: Box<crate::model::compare::PlanComparison>,
        warnings: Vec<String>,
    },
    ComparisonFailed {
        generation: u64,
        message: String,
    },
}

/// What the runtime must do for the app.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Read the logs and audit them (a newer request supersedes a pending one).
    LoadFleet {
        generation: u64,
        logs: Box<LogInputs>,
        settings: AuditSettings,
    },
    /// Audit the logs already read again, e.g. after the plan's clusters changed.
    Reaudit {
        generation: u64,
        settings: AuditSettings,
    },
    SavePlan {
        path: PathBuf,
        plan: Box<Plan>,
        original_text: Option<String>,
        /// The user confirmed replacing a read-only file (a second save, as vim's `:w!`).
        replace_read_only: bool,
    },
    /// Save to the path typed in "save as" (relative to the current folder): its folder must
    /// exist and the file must not.
    SavePlanTo {
        typed: String,
        plan: Box<Plan>,
    },
    /// Complete the path typed in "save as" from the folders on disk.
    CompleteSavePath {
        typed: String,
    },
    /// Save under a name in the data folder's plans/; with `pick_free_name`, `NAME-2`,
    /// `NAME-3`... when the name is taken, else a taken name is refused.
    SavePlanAs {
        name: String,
        plan: Box<Plan>,
        pick_free_name: bool,
    },
    OpenPlan {
        path: PathBuf,
    },
    LoadComparePlan {
        path: PathBuf,
    },
    /// Start watching the plan file for edits made elsewhere.
    WatchPlan {
        path: PathBuf,
    },
    ListFiles,
    /// Delete a recovery file whose edits the user discarded.
    RemoveRecovery {
        path: PathBuf,
    },
    /// Replay the audited jobs through today's clusters and the plan's split.
    Replay {
        generation: u64,
        plan: Box<Plan>,
    },
    /// Compare the plans on the logs, every row `gpuplan diff` shows (the first plan is the
    /// baseline; a newer request supersedes a pending one).
    Compare {
        generation: u64,
        plans: Vec<(String, Plan)>,
    },
    /// Fit the last audit's series over `horizon_days` (the growth sliders then only reshape).
    FitForecast {
        generation: u64,
        horizon_days: u32,
        /// The plan the commitments' policies are backtested under.
        plan: Box<Plan>,
    },
    /// Write the report of the plan on screen beside its file (after any audit or replay in
    /// flight), as `gpuplan report` would print it.
    ExportReport {
        plan: Box<Plan>,
        unsaved_edits: bool,
    },
    /// Move a pane's window (the view's state, kept by the runtime beside the app).
    Scroll {
        pane: PaneId,
        by: ScrollBy,
    },
    Quit,
}

impl App {
    pub fn new(catalog: Catalog, plan: Plan, plan_file: PlanFile, logs: LogInputs) -> App {
        let derived = Derived::compute(&plan, &catalog, None);
        App {
            saved: plan.clone(),
            catalog,
            plan,
            plan_file,
            derived,
            fleet: None,
            fleet_status: FleetStatus::Idle,
            generation: 0,
            audited_for: None,
            logs,
            focus: PaneId::Workloads,
            zoomed: false,
            workloads_view: WorkloadsView::Fleet,
            cursors: Cursors::default(),
            overlay: Overlay::None,
            banner: None,
            history: History::default(),
            modified: false,
            keymap: KeyMap::default(),
            theme_names: vec!["dark".to_string()],
            theme: 0,
            known_plans: Vec::new(),
            known_files: Vec::new(),
            compare: Vec::new(),
            comparison: None,
            comparing: compare_state::CompareState::default(),
            disk_error: None,
            recovery: None,
            quit_after_save: false,
            replace_read_only: None,
            written: None,
            quit: false,
            replay: ReplayState::default(),
            forecast: ForecastState::default(),
        }
    }

    /// The effects to run once at start: read the logs, watch the plan file. (Files for the
    /// palette are listed when it opens, not before the first frame.)
    pub fn start(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.logs.nothing_to_read() && !self.logs.missing.is_empty() {
            // Every log the plan names is missing: the plan's own figures, and no stand-in fleet.
            self.fleet_status = FleetStatus::Failed {
                message: format!(
                    "no audit: not found: {}",
                    self.logs
                        .missing
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
        } else {
            effects.push(self.request_fleet());
        }
        if let Some(path) = &self.plan_file.path {
            effects.push(Effect::WatchPlan { path: path.clone() });
        }
        effects
    }

    fn request_fleet(&mut self) -> Effect {
        self.generation += 1;
        let settings = self.audit_settings();
        self.audited_for = Some(settings.clone());
        self.fleet_status = FleetStatus::Working {
            generation: self.generation,
            what: "reading the logs".to_string(),
        };
        Effect::LoadFleet {
            generation: self.generation,
            logs: Box::new(self.logs.clone()),
            settings,
        }
    }

    fn request_reaudit(&mut self) -> Effect {
        self.generation += 1;
        let settings = self.audit_settings();
        self.audited_for = Some(settings.clone());
        self.fleet_status = FleetStatus::Working {
            generation: self.generation,
            what: "auditing again with the plan's clusters".to_string(),
        };
        Effect::Reaudit {
            generation: self.generation,
            settings,
        }
    }

    /// What an audit reads of the plan on screen (its clusters, month, thresholds, hosts) over
    /// the workbench's window, the last 90 days: compared whole with what the last audit read.
    pub fn audit_settings(&self) -> AuditSettings {
        AuditSettings::for_plan(&self.catalog, Some(&self.plan), WindowSpec::default(), None)
    }

    /// The plan's name as the title bar shows it, `*` when edits are unsaved.
    pub fn plan_title(&self) -> String {
        let file = self
            .plan_file
            .path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or_else(|| "built-in plan".to_string(), |n| n.to_string_lossy().to_string());
        format!("{}{} ({file})", self.plan.name, if self.modified { " *" } else { "" })
    }

    /// The editable cells of the risk table, in cursor order.
    pub fn risk_fields(&self) -> Vec<Field> {
        (0..self.plan.risks.len())
            .flat_map(|i| [Field::RiskProbability(i), Field::RiskImpact(i)])
            .collect()
    }

    /// The Forecast pane's editable rows, in cursor order: the horizon, each class's growth, the
    /// `[training]` run (and its start while it counts), each planned run's GPUs, start, days.
    pub fn forecast_fields(&self) -> Vec<Field> {
        let mut fields = vec![Field::Forecast(ForecastField::HorizonMonths)];
        fields.extend(WorkloadClass::ALL.map(|c| Field::Forecast(ForecastField::Growth(c))));
        fields.push(Field::Forecast(ForecastField::TrainingRun));
        let forecast = self.plan.forecast.as_ref();
        if forecast.is_some_and(|f| f.training_run) {
            fields.push(Field::Forecast(ForecastField::TrainingStart));
        }
        for i in 0..forecast.map_or(0, |f| f.planned.len()) {
            fields.extend(
                [
                    ForecastField::PlannedGpus(i),
                    ForecastField::PlannedStart(i),
                    ForecastField::PlannedDays(i),
                ]
                .map(Field::Forecast),
            );
        }
        fields
    }

    /// The plan's `[[clusters]]` entry of an audited cluster, matched by name as the contract
    /// matching matches it.
    pub fn plan_cluster(&self, audited: usize) -> Option<usize> {
        let name = &self.fleet.as_ref()?.report.clusters.get(audited)?.name;
        self.plan.clusters.iter().position(|c| &c.name == name)
    }

    /// The values a cluster drill edits, after its classes: the plan's price, capacity, term
    /// and deployment of the cluster; none for a cluster the plan does not list.
    pub fn cluster_fields(&self, audited: usize) -> Vec<Field> {
        self.plan_cluster(audited)
            .map_or_else(Vec::new, |i| ClusterField::all(i).map(Field::Cluster).to_vec())
    }

    /// Rows after a cluster drill's classes: the plan's values of the cluster, or for one the
    /// plan does not list the one row that adds it to the plan.
    pub fn cluster_value_rows(&self, audited: usize) -> usize {
        match self.plan_cluster(audited) {
            Some(_) => self.cluster_fields(audited).len(),
            None => usize::from(self.fleet.as_ref().is_some_and(|f| audited < f.report.clusters.len())),
        }
    }

    /// A field's value: the plan's, or where the plan leaves it out, what stands in for it (a
    /// pool's size in the last replay; the fit's growth, the horizon's start).
    pub fn field_value(&self, field: Field) -> Option<f64> {
        field.get(&self.plan).or_else(|| match field {
            Field::ReplayPool(class) => self.replayed_pool_gpus(class),
            Field::Forecast(f) => self.forecast_default(f),
            _ => None,
        })
    }

    /// The field the focused pane's cursor is on, if it edits one.
    pub fn selected_field(&self) -> Option<Field> {
        match self.focus {
            PaneId::Mfu => (self.cursors.accelerator < self.plan.accelerators.len())
                .then_some(Field::Mfu(self.cursors.accelerator)),
            PaneId::Risk => self.risk_fields().get(self.cursors.risk_cell).copied(),
            PaneId::Inference => field::INFERENCE_FIELDS.get(self.cursors.inference_field).copied(),
            PaneId::Contracts => self
                .derived
                .contracts
                .as_ref()
                .and_then(|c| c.classes.get(self.cursors.contract_class))
                .map(|c| Field::ReplayPool(c.class)),
            PaneId::Forecast => self.forecast_fields().get(self.cursors.forecast_row).copied(),
            // In a cluster drill, the rows after the classes.
            PaneId::Workloads => match self.workloads_view {
                WorkloadsView::Cluster { cluster } => self
                    .cursors
                    .drill_row
                    .checked_sub(cluster_classes(self, cluster).len())
                    .and_then(|row| self.cluster_fields(cluster).get(row).copied()),
                _ => None,
            },
        }
    }

    pub fn key_hint(&self, id: CommandId) -> String {
        self.keymap.hint(id)
    }

    /// The command a key runs, if any.
    pub fn command_for(&self, key: Key) -> Option<CommandId> {
        self.keymap.command_for(key)
    }
}

#[cfg(test)]
mod tests;
