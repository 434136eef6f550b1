//! Job logs into Polars: readers per format, column mapping, validation, classification and
//! the audit's aggregates. No terminal.
//!
//! - `canonical`: the job frame every reader produces and the audit reads;
//! - `readers`: one module per log format, format detection, the column mapping, time parsing
//!   and the rows set aside; `readers::load` is the entry point;
//! - `focus`: FOCUS billing exports; `prometheus`: Prometheus queries and answers;
//! - the audit's passes (classification, totals, top jobs, measured utilization) beside them.

pub mod audit;
pub mod canonical;
pub mod classify;
pub mod fleet_source;
pub mod focus;
pub mod host_map;
pub mod job_details;
pub mod job_runs;
pub mod measured;
pub mod partitioned;
pub mod prometheus;
pub mod readers;
pub mod replay_jobs;
pub mod run_features;
pub mod run_totals;
pub mod sample;
pub mod top_jobs;
