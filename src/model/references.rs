//! Figures quoted by the source documents, kept beside our own results so a report can
//! show where the catalog's numbers and a document's disagree.

use serde::{Deserialize, Serialize};

use super::magnitude::{positive_input, within_input_range};

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

impl SensitivityReference {
    /// The first field no document could quote, with what was expected.
    pub fn problem(&self) -> Option<(&'static str, &'static str)> {
        if !positive_input(self.model_params) {
            return Some(("model_params", "expected a parameter count above 0, at most 1e18"));
        }
        if !(self.mfu > 0.0 && self.mfu <= 1.0 && positive_input(self.mfu)) {
            return Some(("mfu", "expected an MFU above 0 and at most 1 (write 45 % as 0.45)"));
        }
        (!(self.cost_usd >= 0.0 && within_input_range(self.cost_usd)))
            .then_some(("cost_usd", "expected a cost of 0 or more: 0 or from 1e-9 to 1e18"))
    }
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
