//! The runtime layer's one error: what goes wrong doing an effect (reading a plan, watching
//! it, reading and auditing logs). Each variant's text is the message the status bar shows.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

use crate::config::diagnostic::Diagnostic;
use crate::config::error::ConfigError;
use crate::data::readers::load::LoadError;

#[derive(Debug, Error)]
pub enum RuntimeError {
    /// A path with no absolute form (the working folder is gone).
    #[error("{}: {source}", .path.display())]
    NoAbsolutePath { path: PathBuf, source: io::Error },
    #[error("{}: no parent folder to watch", .path.display())]
    NoFolderToWatch { path: PathBuf },
    #[error("cannot watch {}: {source}", .folder.display())]
    CannotWatch { folder: PathBuf, source: notify::Error },
    #[error("cannot start the file watcher: {0}")]
    CannotStartWatcher(io::Error),
    #[error("{}: cannot read the plan: {source}", .path.display())]
    CannotReadPlan { path: PathBuf, source: io::Error },
    /// A plan's problems, each as its headline.
    #[error("{}", headlines(.0))]
    InvalidPlan(Vec<Diagnostic>),
    /// A mapping's problems, each in full.
    #[error("{}", joined(.0))]
    InvalidMapping(Vec<Diagnostic>),
    #[error("no classification rules loaded (catalogs/classification.toml)")]
    NoRules,
    /// A log that cannot be read or audited.
    #[error("{0}")]
    Load(#[from] LoadError),
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// The pipeline stopped: reading, auditing or measuring the logs.
    #[error("{0}")]
    Pipeline(#[from] crate::pipeline::error::PipelineError),
}

fn headlines(problems: &[Diagnostic]) -> String {
    problems.iter().map(Diagnostic::headline).collect::<Vec<_>>().join("; ")
}

fn joined(problems: &[Diagnostic]) -> String {
    problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}
