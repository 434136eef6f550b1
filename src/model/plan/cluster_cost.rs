//! A plan's `[[clusters]]`: what the organisation pays for today, and a mixed cluster's
//! `[[clusters.models]]`.

use serde::{Deserialize, Serialize};

use crate::model::catalog::Term;
use crate::model::deployment::Deployment;

/// A cluster the organisation pays for today; audits cost idle time against it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterCost {
    pub name: String,
    pub accelerator: String,
    /// The GPUs paid for: whole for a cluster of whole GPUs, fractional where the capacity
    /// is an observed peak of shared GPUs (kept as measured, never rounded up).
    pub gpus: f64,
    pub usd_per_gpu_hour: f64,
    pub term: Term,
    pub deployment: Deployment,
    /// Mean utilization when known (an audit measures it from the logs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization_frac: Option<f64>,
    /// Where the price comes from (a contract, a price page) and when it was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// YYYY-MM-DD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_as_of: Option<String>,
    /// When its commitment ends (YYYY-MM-DD): it cannot be cut or moved before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment_ends: Option<String>,
    /// The GPU models it holds (`[[clusters.models]]`), each with its GPUs and price: a mixed
    /// cluster sized and priced model by model. Their GPUs add up to `gpus` and their cost to
    /// `gpus × usd_per_gpu_hour`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ClusterModelCost>,
}

/// One GPU model of a plan's cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterModelCost {
    /// The model as logs and node lists write it (`T4`, `a100-80gb`, `G2`).
    pub model: String,
    pub gpus: f64,
    pub usd_per_gpu_hour: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
}

impl ClusterCost {
    /// An audited cluster as a plan would list it: the audit's capacity, price and models (its
    /// accelerator the catalog's of most of its GPUs, else an H100, as it was priced), bought
    /// on demand on VMs; every price marked as assumed, to confirm.
    pub fn as_audited(cluster: &crate::model::fleet::ClusterAudit) -> ClusterCost {
        let assumed = crate::model::audit_settings::assumed_price_source;
        let models = if cluster.models.len() > 1 {
            cluster
                .models
                .iter()
                .map(|m| ClusterModelCost {
                    model: m.model.clone(),
                    gpus: m.gpus,
                    usd_per_gpu_hour: m.usd_per_gpu_hour,
                    price_source: Some(assumed(&m.price_source)),
                })
                .collect()
        } else {
            Vec::new()
        };
        ClusterCost {
            name: cluster.name.clone(),
            accelerator: cluster
                .priced_as
                .clone()
                .unwrap_or_else(|| crate::model::fleet_contracts::UNLISTED_ACCELERATOR.to_string()),
            gpus: cluster.capacity_gpus.max(1.0),
            usd_per_gpu_hour: cluster.usd_per_gpu_hour,
            term: Term::OnDemand,
            deployment: Deployment::Vm,
            utilization_frac: None,
            price_source: Some(assumed(&cluster.price_source)),
            price_as_of: None,
            commitment_ends: None,
            models,
        }
    }

    pub fn usd_per_month(&self, hours_per_month: f64) -> f64 {
        self.gpus * self.usd_per_gpu_hour * hours_per_month
    }

    /// Sets its GPUs, its models' GPUs scaled alike so they still add up to it.
    pub fn set_gpus(&mut self, gpus: f64) {
        let ratio = if self.gpus > 0.0 { gpus / self.gpus } else { 1.0 };
        for model in &mut self.models {
            model.gpus = (model.gpus * ratio * 1e6).round() / 1e6;
        }
        self.gpus = gpus;
    }

    /// Sets its price, its models' prices scaled alike so their cost still adds up to it.
    pub fn set_usd_per_gpu_hour(&mut self, usd: f64) {
        let ratio = if self.usd_per_gpu_hour > 0.0 {
            usd / self.usd_per_gpu_hour
        } else {
            1.0
        };
        // A price set by the planner is no longer an assumption: the "ASSUMED" marks go.
        let stated = |source: &mut Option<String>| {
            if source
                .as_deref()
                .is_some_and(crate::model::audit_settings::is_assumed_price)
            {
                *source = Some("set in the workbench".to_string());
            }
        };
        for model in &mut self.models {
            model.usd_per_gpu_hour = (model.usd_per_gpu_hour * ratio * 1e9).round() / 1e9;
            stated(&mut model.price_source);
        }
        stated(&mut self.price_source);
        self.usd_per_gpu_hour = usd;
    }
}
