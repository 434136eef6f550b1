//! The config layer's one error: writing a plan back and providing the sample log. Reading a
//! file's own problems stays a [`Diagnostic`] (file, line, column, key); this is what goes
//! wrong after that, each variant's text the message the user reads.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

use super::diagnostic::Diagnostic;

#[derive(Debug, Error)]
pub enum ConfigError {
    /// The plan does not serialize.
    #[error("cannot write the plan as TOML: {0}")]
    PlanToToml(#[from] toml::ser::Error),
    /// The plan's own serialization does not read back as a TOML document.
    #[error("cannot read back the plan's own TOML: {0}")]
    PlanReadBack(toml_edit::TomlError),
    /// The file's text, whose layout a save keeps, is not a plan.
    #[error("the plan as written does not parse, so its layout cannot be kept: {0}")]
    OriginalNotAPlan(Diagnostic),
    /// The file's text is not TOML.
    #[error("the plan as written is not TOML: {0}")]
    OriginalNotToml(toml_edit::TomlError),
    /// The file's layout with the edits reads back as another plan.
    #[error("keeping the file's layout would not save the plan as edited; nothing was written")]
    LayoutChangesPlan,
    /// The file's layout with the edits does not read back.
    #[error("keeping the file's layout would give a file that does not parse ({0}); nothing was written")]
    LayoutBreaksPlan(Diagnostic),
    /// The file on disk is no longer the one the save was made against: nothing was written.
    #[error("{}: changed on disk since it was read; nothing was written", .path.display())]
    ChangedOnDisk { path: PathBuf },
    /// The file cannot be written, or the new one not put in its place.
    #[error("{source}")]
    CannotReplace { path: PathBuf, source: io::Error },
    /// A folder that cannot be created.
    #[error("{}: cannot create: {source}", .path.display())]
    CannotCreate { path: PathBuf, source: io::Error },
    /// The sample log cannot be written out.
    #[error("{}: cannot write the sample log: {source}", .path.display())]
    CannotWriteSample { path: PathBuf, source: io::Error },
}
