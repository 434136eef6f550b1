//! Job logs into Polars: readers per format, column mapping, validation, classification and
//! the audit's aggregates. No terminal.
//!
//! - `canonical`: the job frame every reader produces and the audit reads;
//! - `readers`: one module per log format, format detection, the column mapping, time parsing
//!   and the rows set aside; `readers::load` is the entry point;
//! - `audit`: the audit and its passes (classification, totals, top jobs, measured utilization);
//! - `sample`: the generator of realistic sample logs;
//! - `focus`: FOCUS billing exports; `prometheus`: Prometheus queries and answers; `slurm`:
//!   Slurm's accounting read live through `sacct`; `warehouse`: the audit run as SQL where the
//!   runs already live (ADBC), only aggregates brought back;
//! - `error`: the data layer's one error, and `places`: the mapping keys and rows it points at;
//!   both import no other module of ours.

pub mod audit;
pub mod canonical;
pub mod error;
pub mod fit_store;
pub mod focus;
pub mod places;
pub mod prometheus;
pub mod read_cache;
pub mod readers;
pub mod sample;
pub mod slurm;
pub mod warehouse;
