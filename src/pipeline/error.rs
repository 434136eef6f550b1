//! What stops the pipeline, in the words both faces show: the command line as diagnostics
//! (exit 2), the workbench as one line in its banner.

use thiserror::Error;

use crate::config::diagnostic::Diagnostic;
use crate::data::focus::FocusError;
use crate::data::prometheus::client::PrometheusError;
use crate::data::readers::load::LoadError;
use crate::data::slurm::error::SlurmError;

#[derive(Debug, Error)]
pub enum PipelineError {
    /// A mapping's problems, each in full.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Mapping(Vec<Diagnostic>),
    #[error("no classification rules loaded (catalogs/classification.toml)")]
    NoRules,
    #[error("sample log: {0}")]
    SampleLog(String),
    /// A log that cannot be read or audited.
    #[error("{0}")]
    Load(#[from] LoadError),
    #[error("[hosts]: {0}")]
    HostsText(String),
    #[error("prometheus {}: {}", .0.url, .0.message)]
    Prometheus(PrometheusError),
    /// sacct could not be run, failed, or printed what cannot be read.
    #[error("sacct: {0}")]
    Slurm(SlurmError),
    #[error("--slurm reads the jobs from Slurm's accounting and LOGS name files: give one or the other")]
    SlurmWithLogs,
    #[error("a warehouse holds the runs, and LOGS (or --slurm) name others: give one source")]
    WarehouseWithLogs,
    /// A Slurm setting out of range (from the flags or the plan's `[slurm]`).
    #[error("--slurm ({key}): {message}")]
    SlurmSetting { key: String, message: String },
    /// A window the Prometheus pods or the Slurm jobs cannot be read over.
    #[error("{flag}: {message}")]
    Window { flag: &'static str, message: &'static str },
    #[error(
        "the plan's [[logs]] name two {key}s ({first}, {second}): one {key} reads all of them; give --{key} or list the logs that share one"
    )]
    MixedLogSettings {
        key: &'static str,
        first: String,
        second: String,
    },
    /// A replay that cannot run (a split error, in its words).
    #[error("replay: {0} (pool sizes: the plan's [replay] training_gpus, inference_gpus, burst_gpus)")]
    Replay(crate::model::split::SplitError),
    /// A backtest the history is too short for, in its words.
    #[error("backtest: {0}")]
    Backtest(crate::model::forecast::BacktestError),
    #[error("no logs audited yet")]
    NotAudited,
    /// A FOCUS export that cannot be read: each bad value with its file, line and column.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Bill(Vec<FocusError>),
    /// The plan's `[bill]` table's problems, as (key below `bill`, message).
    #[error("{}", .0.iter().map(|(key, message)| format!("[bill] {key}: {message}")).collect::<Vec<_>>().join("; "))]
    BillPlan(Vec<(String, String)>),
    /// Exports read alone with no cost line: no billing period to read them over.
    #[error("{}: no cost lines: a bill given without a log is read over its own billing period, and these have none", .0.join(", "))]
    EmptyBill(Vec<String>),
}

impl PipelineError {
    /// The problem as the command line prints it: file, line and column where it has them.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            PipelineError::Mapping(diagnostics) => diagnostics.clone(),
            PipelineError::NoRules => vec![Diagnostic::file(
                "catalogs/classification.toml",
                "no classification rules loaded",
            )],
            PipelineError::SampleLog(message) => vec![Diagnostic::file("sample log", message.clone())],
            PipelineError::Load(e) => vec![Diagnostic::from(e)],
            PipelineError::HostsText(message) => vec![Diagnostic::file("[hosts]", message.clone())],
            PipelineError::Prometheus(e) => vec![Diagnostic::file(&format!("prometheus {}", e.url), e.message.clone())],
            PipelineError::Window { flag, message } => vec![Diagnostic::file(flag, *message)],
            PipelineError::Slurm(e) => vec![Diagnostic::file("sacct", e.to_string())],
            PipelineError::SlurmWithLogs => vec![Diagnostic::file("--slurm", self.to_string())],
            PipelineError::WarehouseWithLogs => vec![Diagnostic::file("[warehouse]", self.to_string())],
            PipelineError::SlurmSetting { key, message } => {
                vec![Diagnostic::file(&format!("--slurm ({key})"), message.clone())]
            }
            PipelineError::MixedLogSettings { .. } => vec![Diagnostic::file("[[logs]]", self.to_string())],
            PipelineError::Replay(error) => vec![Diagnostic::file(
                "replay",
                format!("{error} (pool sizes: the plan's [replay] training_gpus, inference_gpus, burst_gpus)"),
            )],
            PipelineError::Backtest(error) => vec![Diagnostic::file(error.flag(), error.to_string())],
            PipelineError::NotAudited => vec![Diagnostic::file("logs", self.to_string())],
            PipelineError::Bill(errors) => errors.iter().map(Diagnostic::from).collect(),
            PipelineError::BillPlan(problems) => problems
                .iter()
                .map(|(key, message)| Diagnostic::file(&format!("[bill] {key}"), message.clone()))
                .collect(),
            PipelineError::EmptyBill(files) => files
                .iter()
                .map(|file| {
                    Diagnostic::file(
                        file,
                        "no cost lines: a bill given without a log is read over its own billing period, and this one has none",
                    )
                })
                .collect(),
        }
    }
}
