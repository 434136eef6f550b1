//! Talking to Prometheus: the HTTP client and what an audit pulls through it.

pub mod client;
pub mod pull;
