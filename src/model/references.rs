//! Figures quoted by the source documents, kept beside our own results so a report can
//! show where the catalog's numbers and a document's disagree.

use serde::{Deserialize, Serialize};

/// One cell of a document's sensitivity table: a training run's cost at an MFU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensitivityReference {
    pub accelerator: String,
    pub price_set: String,
    pub model_params: f64,
    pub mfu: f64,
    pub cost_usd: f64,
    pub source: String,
}

/// The reference cost for a run, when a document quotes one for the same accelerator,
/// price set, model size and MFU.
pub fn reference_cost_usd(
    references: &[SensitivityReference],
    accelerator_id: &str,
    price_set: &str,
    model_params: f64,
    mfu: f64,
) -> Option<f64> {
    references
        .iter()
        .find(|r| {
            r.accelerator == accelerator_id
                && r.price_set == price_set
                && (r.model_params - model_params).abs() <= 1e-9 * model_params
                && (r.mfu - mfu).abs() < 1e-9
        })
        .map(|r| r.cost_usd)
}
