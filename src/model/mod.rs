//! The economics: pure functions and plain data. No I/O, no Polars, no terminal.

pub mod board;
pub mod catalog;
pub mod checkpoint;
pub mod checks;
pub mod compare;
pub mod contracts;
pub mod deployment;
pub mod evaluate;
pub mod fleet;
pub mod fleet_contracts;
pub mod format;
pub mod inference;
pub mod migration;
pub mod monte_carlo;
pub mod plan;
pub mod recommend;
pub mod references;
pub mod replay;
pub mod risk;
pub mod rules;
pub mod sensitivity;
pub mod split;
pub mod thresholds;
pub mod training;
pub mod utilization;
pub mod workload;
