//! The offers of `catalogs/contracts.toml`: term kinds, prices, the catalog's own checks, and
//! what a workload class needs from an offer.

use serde::{Deserialize, Serialize};

use crate::model::catalog::Term;
use crate::model::deployment::{Deployment, effective_usd_per_chip_hour};
use crate::model::plan::HOURS_PER_YEAR;

pub const CONTRACTS_SCHEMA_VERSION: u32 = 1;

/// Contract terms, ordered from the shortest commitment to the longest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TermKind {
    #[serde(rename = "spot")]
    Spot,
    #[serde(rename = "on-demand")]
    OnDemand,
    #[serde(rename = "monthly")]
    Monthly,
    #[serde(rename = "1-year")]
    OneYear,
    /// A multi-year dedicated commitment, lead time in weeks (the seeds' example: 3 years).
    #[serde(rename = "build-to-order")]
    BuildToOrder,
}

impl TermKind {
    pub const ALL: [TermKind; 5] = [
        TermKind::Spot,
        TermKind::OnDemand,
        TermKind::Monthly,
        TermKind::OneYear,
        TermKind::BuildToOrder,
    ];

    pub fn label(self) -> &'static str {
        match self {
            TermKind::Spot => "spot",
            TermKind::OnDemand => "on-demand",
            TermKind::Monthly => "monthly",
            TermKind::OneYear => "1-year",
            TermKind::BuildToOrder => "build-to-order",
        }
    }

    /// Paid for the whole window at the committed level, used or not.
    pub fn is_committed(self) -> bool {
        matches!(self, TermKind::OneYear | TermKind::BuildToOrder)
    }

    /// Paid per GPU-hour used, nothing else.
    pub fn bills_by_use(self) -> bool {
        matches!(self, TermKind::Spot | TermKind::OnDemand)
    }

    /// The nearest term of the accelerator price catalog; build-to-order maps to the seed's
    /// three-year example.
    pub fn catalog_term(self) -> Term {
        match self {
            TermKind::Spot => Term::Spot,
            TermKind::OnDemand => Term::OnDemand,
            TermKind::Monthly => Term::Monthly,
            TermKind::OneYear => Term::OneYear,
            TermKind::BuildToOrder => Term::ThreeYear,
        }
    }

    /// Whether `minimum_hours` fits the kind: none for on-demand and spot, under a year for
    /// monthly, a year for 1-year, more than a year for build-to-order.
    pub fn accepts_minimum_hours(self, minimum_hours: f64) -> bool {
        if !minimum_hours.is_finite() {
            return false;
        }
        match self {
            TermKind::Spot | TermKind::OnDemand => minimum_hours == 0.0,
            TermKind::Monthly => (1.0..HOURS_PER_YEAR).contains(&minimum_hours),
            TermKind::OneYear => minimum_hours == HOURS_PER_YEAR,
            TermKind::BuildToOrder => minimum_hours > HOURS_PER_YEAR,
        }
    }
}

/// What one offer charges for one accelerator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfferPrice {
    pub accelerator: String,
    /// List price per GPU-hour, before the VM/bare-metal efficiency.
    pub usd_per_gpu_hour: f64,
    pub source: String,
    /// YYYY-MM-DD.
    pub as_of: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A contract offer: one provider's term, with prices per accelerator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContractOffer {
    pub id: String,
    pub name: String,
    pub term: TermKind,
    /// Commitment length: 0 on-demand/spot, 730 monthly, 8,760 1-year, 26,280 a 3-year
    /// build-to-order. Monthly offers bill demand in blocks of this many hours.
    pub minimum_hours: f64,
    /// Hours from signing to usable capacity.
    pub lead_time_hours: f64,
    pub deployment: Deployment,
    /// NVLink within the node and/or InfiniBand-class fabric between nodes.
    pub interconnect_ok_for_training: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(rename = "price")]
    pub prices: Vec<OfferPrice>,
}

impl ContractOffer {
    pub fn price_for(&self, accelerator_id: &str) -> Option<&OfferPrice> {
        self.prices.iter().find(|p| p.accelerator == accelerator_id)
    }

    /// List price over delivered capability: what one GPU-hour of delivered work costs.
    pub fn effective_usd_per_gpu_hour(&self, accelerator_id: &str) -> Option<f64> {
        self.price_for(accelerator_id)
            .map(|p| effective_usd_per_chip_hour(p.usd_per_gpu_hour, self.deployment))
    }
}

/// The parsed `catalogs/contracts.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContractCatalog {
    pub schema_version: u32,
    #[serde(rename = "offer")]
    pub offers: Vec<ContractOffer>,
}

/// YYYY-MM-DD with digits where digits belong (the calendar itself is not checked).
fn is_iso_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
}

impl ContractCatalog {
    /// Everything wrong with the catalog, one line each; empty when it is sound.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.schema_version != CONTRACTS_SCHEMA_VERSION {
            problems.push(format!(
                "schema_version is {}, expected {CONTRACTS_SCHEMA_VERSION}",
                self.schema_version
            ));
        }
        for (index, offer) in self.offers.iter().enumerate() {
            let at = format!("offer {} ({})", index + 1, offer.id);
            if offer.id.trim().is_empty() || offer.name.trim().is_empty() {
                problems.push(format!("{at}: id and name must not be empty"));
            }
            if self.offers[..index].iter().any(|o| o.id == offer.id) {
                problems.push(format!("{at}: duplicate id"));
            }
            if !offer.term.accepts_minimum_hours(offer.minimum_hours) {
                problems.push(format!(
                    "{at}: minimum_hours {} does not fit a {} term",
                    offer.minimum_hours,
                    offer.term.label()
                ));
            }
            if !(offer.lead_time_hours.is_finite() && offer.lead_time_hours >= 0.0) {
                problems.push(format!("{at}: lead_time_hours must be a number >= 0"));
            }
            if offer.prices.is_empty() {
                problems.push(format!("{at}: no [[offer.price]] rows"));
            }
            for (price_index, price) in offer.prices.iter().enumerate() {
                let at = format!("{at}, price for {}", price.accelerator);
                if offer.prices[..price_index]
                    .iter()
                    .any(|p| p.accelerator == price.accelerator)
                {
                    problems.push(format!("{at}: accelerator priced twice"));
                }
                if !(price.usd_per_gpu_hour.is_finite() && price.usd_per_gpu_hour > 0.0) {
                    problems.push(format!("{at}: usd_per_gpu_hour must be a positive number"));
                }
                if price.source.trim().is_empty() {
                    problems.push(format!("{at}: source is empty"));
                }
                if !is_iso_date(&price.as_of) {
                    problems.push(format!("{at}: as_of '{}' is not YYYY-MM-DD", price.as_of));
                }
            }
        }
        problems
    }
}

/// What a workload class needs from the hardware.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapabilityRequirement {
    pub min_memory_gb: f64,
    pub needs_training_interconnect: bool,
}

impl CapabilityRequirement {
    pub const NONE: CapabilityRequirement = CapabilityRequirement {
        min_memory_gb: 0.0,
        needs_training_interconnect: false,
    };

    /// docs/economics.md, "Workload classes": training needs >= 80 GB per GPU and NVLink/InfiniBand.
    pub const TRAINING: CapabilityRequirement = CapabilityRequirement {
        min_memory_gb: 80.0,
        needs_training_interconnect: true,
    };

    /// An accelerator of unknown memory fails any memory requirement: capability must be shown.
    pub fn is_met_by(&self, offer: &ContractOffer, accelerator_memory_gb: Option<f64>) -> bool {
        let memory_ok = self.min_memory_gb <= 0.0 || accelerator_memory_gb.is_some_and(|gb| gb >= self.min_memory_gb);
        let interconnect_ok = !self.needs_training_interconnect || offer.interconnect_ok_for_training;
        memory_ok && interconnect_ok
    }
}
