//! Reading logs: one module per format (`tabular` for CSV/TSV/NDJSON/JSON/Parquet through a
//! column `mapping`, `slurm` for `sacct`, `philly` for Philly job lists, `dcgm` for GPU
//! utilization samples, `nvidia_smi` for the node's own nvidia-smi and dmon logs), each listed
//! once in `formats` (the registry every other step finds a format through), which reader a file needs (`detect`), how its times are written and
//! read (`time`), the rows set aside (`reject`), runs listed twice (`duplicates`), and the entry point that loads any of them into
//! the canonical frame (`load`), the public GPU traces known by their
//! layout (`public_traces`), with its guards and gauges (`json_depth` before a JSON parser,
//! `progress` for the read so far). Also the small inputs that are not logs but are read the same
//! way: Slurm host lists (`hostlist`) and a plan's user-latency CSV (`user_latency_csv`).

pub mod dcgm;
pub mod detect;
pub mod duplicates;
pub mod formats;
pub mod hostlist;
pub mod json_depth;
pub mod load;
pub mod mapping;
pub mod node_list;
pub mod nvidia_smi;
pub mod panic_guard;
pub(crate) mod parquet_pages;
pub mod philly;
pub mod progress;
pub mod public_traces;
pub mod reject;
pub mod slurm;
pub mod stream_input;
pub mod tabular;
pub mod time;
pub mod user_latency_csv;
