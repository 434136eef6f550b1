//! Job logs into Polars: readers per format, column mapping, validation, classification and
//! the audit's aggregates. No terminal.

pub mod audit;
pub mod canonical;
pub mod classify;
pub mod dcgm;
pub mod detect;
pub mod fast_time;
pub mod fleet_source;
pub mod focus;
pub mod host_map;
pub mod hostlist;
pub mod job_details;
pub mod job_runs;
pub mod json_depth;
pub mod load;
pub mod mapping;
pub mod measured;
pub mod partitioned;
pub mod philly;
pub mod progress;
pub mod prometheus;
pub mod reject;
pub mod replay_jobs;
pub mod run_features;
pub mod run_totals;
pub mod sample;
pub mod slurm;
pub mod tabular;
pub mod timefmt;
pub mod top_jobs;
pub mod user_latency_csv;
