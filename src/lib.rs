//! gpuplan: GPU capacity planning by workload type. See README.md.

// Diagnostics travel only on the error path, where a 128-byte value costs nothing.
#![allow(clippy::result_large_err)]

pub mod app;
pub mod cli;
pub mod config;
pub mod data;
pub mod model;
pub mod pipeline;
pub mod present;
pub mod runtime;
pub mod shared;
pub mod ui;
