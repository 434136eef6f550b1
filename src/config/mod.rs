//! Paths, catalog loading with user overrides, plan files and their diagnostics.

pub mod atomic;
pub mod catalog;
pub mod diagnostic;
pub mod error;
pub mod keymap;
pub mod locate;
pub mod mapping_file;
pub mod paths;
pub mod plan_edit;
pub mod plan_file;
pub mod sample_log;
pub mod theme;
