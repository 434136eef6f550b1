//! Paths, catalog loading with user overrides, plan files and their diagnostics.

pub mod atomic;
pub mod catalog;
pub mod diagnostic;
pub mod locate;
pub mod paths;
pub mod plan_edit;
pub mod plan_file;
