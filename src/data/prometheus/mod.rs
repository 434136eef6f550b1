//! Prometheus as a source (docs/utilization.md): the PromQL gpuplan sends, the
//! answers it reads and what it makes of them. Pure: the HTTP requests are
//! `runtime::prometheus`'s.

pub mod cluster_hours;
pub mod pods;
pub mod query;
pub mod response;
