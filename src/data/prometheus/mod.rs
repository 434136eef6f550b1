//! Prometheus as a source (docs/utilization.md): the PromQL gpuplan sends, the
//! answers it reads and what it makes of them, and the HTTP client that asks (`client`,
//! `pull`): both faces pull through it, so it sits below them.

pub mod client;
pub mod cluster_hours;
pub mod pods;
pub mod pull;
pub mod query;
pub mod response;
