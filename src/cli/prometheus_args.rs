//! The command line's Prometheus flags, over a plan's `[prometheus]` table.

use clap::Args;

use crate::model::plan::{Plan, PrometheusOverrides, PrometheusSource};

#[derive(Debug, Clone, Default, Args)]
pub struct PrometheusArgs {
    /// Prometheus (or Thanos, Mimir, VictoriaMetrics) holding dcgm-exporter's metrics: each
    /// cluster's measured utilization; with no LOGS, kube-state-metrics' pods are the job log.
    #[arg(long, value_name = "URL")]
    pub prometheus: Option<String>,
    /// The label naming a series' cluster (default `cluster`; OpenCost uses `cluster_id`).
    #[arg(long, value_name = "LABEL")]
    pub prometheus_cluster_label: Option<String>,
    /// Resolution of the range queries in seconds, dividing an hour (default 3600).
    #[arg(long, value_name = "SECONDS")]
    pub prometheus_step: Option<u32>,
    /// Seconds allowed for one request (default 30).
    #[arg(long, value_name = "SECONDS")]
    pub prometheus_timeout: Option<u32>,
    /// The NAME of an environment variable holding a bearer token.
    #[arg(long, value_name = "VAR")]
    pub prometheus_token_env: Option<String>,
}

impl PrometheusArgs {
    /// The flags as settings over a plan's `[prometheus]`.
    pub fn overrides(&self) -> PrometheusOverrides {
        PrometheusOverrides {
            url: self.prometheus.clone(),
            cluster_label: self.prometheus_cluster_label.clone(),
            step_seconds: self.prometheus_step,
            timeout_seconds: self.prometheus_timeout,
            token_env: self.prometheus_token_env.clone(),
        }
    }

    /// The server to use: the flags over the plan's table; None when neither names one.
    pub fn resolve(&self, plan: Option<&Plan>) -> Option<PrometheusSource> {
        self.overrides().resolve(plan)
    }
}
