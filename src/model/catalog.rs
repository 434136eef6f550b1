//! The catalogs as plain data: accelerators, their price lists, and decision thresholds.
//! Loading (embedded defaults, user overrides, error locations) lives in `config::catalog`.

use serde::{Deserialize, Serialize};

use super::contracts::ContractCatalog;
use super::deployment::Deployment;
use super::magnitude::{positive_input, within_input_range};
use super::references::SensitivityReference;
use super::thresholds::Thresholds;
use super::workload::ClassificationRules;

/// One accelerator model with its dense peaks (never 2:4-sparse figures).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accelerator {
    pub id: String,
    pub name: String,
    pub vendor: String,
    /// Non-CUDA silicon (TPU, Trainium): the bake-off and reservation rules apply.
    pub custom_silicon: bool,
    /// Spellings seen in job logs, matched case-insensitively.
    #[serde(default)]
    pub aliases: Vec<String>,
    pub bf16_dense_tflops: f64,
    #[serde(default)]
    pub fp8_dense_tflops: Option<f64>,
    pub memory_gb: f64,
    pub memory_bandwidth_tbps: f64,
    pub scale_up_gb_per_s: f64,
    pub interconnect: String,
    pub chips_per_node: u32,
    pub source: String,
    pub as_of: String,
}

impl Accelerator {
    /// The first field whose value no chip has, with what was expected: the run costs divide
    /// by the TFLOPS, so a zero, negative or vanishing peak would print `inf` or a negative
    /// cost.
    pub fn problem(&self) -> Option<(&'static str, &'static str)> {
        let positive = "expected a number above 0, from 1e-9 to 1e18";
        let rates = [
            ("bf16_dense_tflops", Some(self.bf16_dense_tflops)),
            ("fp8_dense_tflops", self.fp8_dense_tflops),
            ("memory_gb", Some(self.memory_gb)),
            ("memory_bandwidth_tbps", Some(self.memory_bandwidth_tbps)),
        ];
        if let Some((field, _)) = rates.iter().find(|(_, v)| v.is_some_and(|v| !positive_input(v))) {
            return Some((field, positive));
        }
        if !(self.scale_up_gb_per_s >= 0.0 && within_input_range(self.scale_up_gb_per_s)) {
            return Some(("scale_up_gb_per_s", "expected 0 or more, at most 1e18"));
        }
        (self.chips_per_node == 0).then_some(("chips_per_node", "expected at least 1 chip"))
    }

    /// True when `name` is this accelerator's id or one of its aliases, ignoring case.
    pub fn answers_to(&self, name: &str) -> bool {
        self.id.eq_ignore_ascii_case(name) || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }
}

/// Commitment terms, from none to a multi-year build-to-order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Term {
    #[serde(rename = "spot")]
    Spot,
    #[serde(rename = "on-demand")]
    OnDemand,
    #[serde(rename = "monthly")]
    Monthly,
    #[serde(rename = "1-year")]
    OneYear,
    #[serde(rename = "3-year")]
    ThreeYear,
}

impl Term {
    pub fn label(self) -> &'static str {
        match self {
            Term::Spot => "spot",
            Term::OnDemand => "on-demand",
            Term::Monthly => "monthly",
            Term::OneYear => "1-year",
            Term::ThreeYear => "3-year",
        }
    }

    /// A reservation commits to pay for its whole length, used or not.
    pub fn is_reservation(self) -> bool {
        matches!(self, Term::OneYear | Term::ThreeYear)
    }

    /// Hours committed by one contract of this term (a year is 8,760 hours).
    pub fn committed_hours(self, hours_per_month: f64) -> f64 {
        match self {
            Term::Spot | Term::OnDemand => 0.0,
            Term::Monthly => hours_per_month,
            Term::OneYear => crate::model::plan::HOURS_PER_YEAR,
            Term::ThreeYear => 3.0 * crate::model::plan::HOURS_PER_YEAR,
        }
    }
}

/// One row of the price list: what a provider charges for some chips on some term.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub accelerator: String,
    /// "market" for real offers; named sets (e.g. "seed-002") reproduce a document's table.
    pub price_set: String,
    pub provider: String,
    pub term: Term,
    pub deployment: Deployment,
    /// Price of `chips` chips for one hour.
    pub usd_per_hour: f64,
    pub chips: u32,
    pub source: String,
    pub as_of: String,
    #[serde(default)]
    pub note: Option<String>,
}

impl Price {
    /// What is wrong with the offer's numbers, if anything.
    pub fn problem(&self) -> Option<(&'static str, &'static str)> {
        if self.chips == 0 {
            return Some(("chips", "expected chips above 0"));
        }
        (!(self.usd_per_hour >= 0.0 && within_input_range(self.usd_per_hour)))
            .then_some(("usd_per_hour", "expected a price of 0 or more: 0 or from 1e-9 to 1e18"))
    }

    pub fn usd_per_chip_hour(&self) -> f64 {
        self.usd_per_hour / f64::from(self.chips)
    }
}

/// Where a threshold's value comes from, for reports and the help screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdSource {
    pub key: String,
    pub source: String,
    pub meaning: String,
}

/// The hyperscaler on-demand H100 rate seed 001 quotes, per GPU-hour: what a cluster no plan
/// prices costs when a catalog override has dropped the built-in catalog's row for it
/// (`catalogs/accelerators.toml` holds the same figure with its source).
pub const SEED_H100_USD_PER_GPU_HOUR: f64 = 12.29;

/// The resolved catalogs every computation reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    pub accelerators: Vec<Accelerator>,
    pub prices: Vec<Price>,
    pub thresholds: Thresholds,
    pub threshold_sources: Vec<ThresholdSource>,
    pub references: Vec<SensitivityReference>,
    /// Ordered rules that classify jobs; `None` only while a catalog is being assembled.
    pub classification: Option<ClassificationRules>,
    /// Contract offers by term; `None` only while a catalog is being assembled.
    pub contracts: Option<ContractCatalog>,
}

impl Catalog {
    pub fn accelerator(&self, name: &str) -> Option<&Accelerator> {
        self.accelerators.iter().find(|a| a.answers_to(name))
    }

    /// Prices of an accelerator on a term within a price set, cheapest first.
    pub fn prices_for(&self, accelerator_id: &str, price_set: &str, term: Term) -> Vec<&Price> {
        let mut prices: Vec<&Price> = self
            .prices
            .iter()
            .filter(|p| p.accelerator == accelerator_id && p.price_set == price_set && p.term == term)
            .collect();
        prices.sort_by(|a, b| a.usd_per_chip_hour().total_cmp(&b.usd_per_chip_hour()));
        prices
    }
}
