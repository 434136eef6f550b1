//! Paths, catalog loading with user overrides, plan and mapping files and their diagnostics.
//! The workbench's own files (key map, themes) are read by `runtime/`, which owns what they become.

pub mod atomic;
pub mod catalog;
pub mod diagnostic;
pub mod error;
pub mod locate;
pub mod mapping_file;
pub mod paths;
pub mod plan_edit;
pub mod plan_file;
pub mod plan_from_logs;
pub mod plan_sources;
pub mod recovery;
pub mod sample_log;
pub mod save_path;
