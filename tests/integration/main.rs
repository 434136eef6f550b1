//! The integration tests, one binary: each module was its own test file, and each linked
//! gpuplan with Polars on its own. Together they link once (docs/performance.md, "Build time").
//!
//! Run one group with its module name: `cargo test --release --test integration cli_audit::`.

mod common;

mod bill_alone;
mod board_headline;
mod board_judgment;
mod catalog_overrides;
mod cli_audit;
mod cli_bill;
mod cli_forecast;
mod cli_replay;
mod cli_report;
mod commitment_layers;
mod contracts_catalog;
mod doc_examples;
mod doc_links;
mod doc_pictures;
mod export_parity;
mod faults;
mod forecast_choices;
mod hostile_files;
mod kubernetes_fleets;
mod log_readers;
mod mixed_fleets;
mod model_properties;
mod node_recordings;
mod pane_scrolling;
mod partitioned_audit;
mod plan_diff;
mod plan_edit;
mod plan_files;
mod prometheus_server;
mod public_traces;
mod read_cache;
mod report_export;
mod rules_and_recommendations;
mod slurm_live;
mod slurm_replay;
mod slurm_windows;
mod stranger_files;
mod ui_snapshots;
mod warehouse;
mod warehouse_fixture;
mod warehouse_postgres;
mod warehouse_rejects;
mod warehouse_traces;
mod workbench_clusters;
mod workbench_forecast;
mod workbench_kill;
mod workbench_pty;
mod workbench_save_sources;
mod workbench_soak;
