//! The offers of `catalogs/contracts.toml`: term kinds, prices, the catalog's own checks, and
//! what a workload class needs from an offer.

use serde::{Deserialize, Serialize};

use super::supply::{InterNode, Stated, gang_misfit};
use crate::model::catalog::Term;
use crate::model::deployment::{Deployment, effective_usd_per_chip_hour};
use crate::model::plan::HOURS_PER_YEAR;

pub const CONTRACTS_SCHEMA_VERSION: u32 = 1;

const HOURS_PER_WEEK: f64 = 168.0;

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
    /// Weeks from signing to usable capacity, as published; "unknown" when not.
    #[serde(default)]
    pub lead_time_weeks: Stated,
    /// Catalogs before `lead_time_weeks`: the same figure in hours.
    #[serde(default, skip_serializing)]
    pub lead_time_hours: Option<f64>,
    pub deployment: Deployment,
    /// GPUs one node joins by NVLink/NVSwitch (or the accelerator's own scale-up fabric):
    /// 8 for HGX nodes, 1 for single-GPU shapes. Not stated: 1.
    #[serde(default)]
    pub scale_up_gpus: Option<u32>,
    /// The fabric the seller states between nodes.
    #[serde(default)]
    pub inter_node: InterNode,
    /// The most GPUs the seller states one customer can get on the offer.
    #[serde(default)]
    pub max_gpus: Stated,
    /// Catalogs before `scale_up_gpus` and `inter_node`: true for an NVLink node.
    #[serde(default, skip_serializing)]
    pub interconnect_ok_for_training: Option<bool>,
    /// Where the supply figures come from, and when they were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supply_source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supply_as_of: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(rename = "price")]
    pub prices: Vec<OfferPrice>,
}

impl ContractOffer {
    pub fn price_for(&self, accelerator_id: &str) -> Option<&OfferPrice> {
        self.prices.iter().find(|p| p.accelerator == accelerator_id)
    }

    /// Weeks from signing to usable capacity; None when not stated.
    pub fn lead_time_weeks(&self) -> Option<f64> {
        self.lead_time_weeks
            .known()
            .or_else(|| self.lead_time_hours.map(|hours| hours / HOURS_PER_WEEK))
    }

    /// Hours from signing to usable capacity; None when not stated.
    pub fn lead_time_hours(&self) -> Option<f64> {
        self.lead_time_weeks().map(|weeks| weeks * HOURS_PER_WEEK)
    }

    /// GPUs one node joins; from the older `interconnect_ok_for_training` (an 8-GPU NVLink node
    /// or not) when the catalog predates `scale_up_gpus`; 1 when nothing is stated.
    pub fn scale_up_gpus(&self) -> u32 {
        self.scale_up_gpus
            .unwrap_or(match self.interconnect_ok_for_training {
                Some(true) => 8,
                _ => 1,
            })
            .max(1)
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
            if let Some(hours) = offer.lead_time_hours {
                if !(hours.is_finite() && hours >= 0.0) {
                    problems.push(format!("{at}: lead_time_hours must be a number >= 0"));
                }
                if offer.lead_time_weeks != Stated::Unknown {
                    problems.push(format!("{at}: give lead_time_weeks or lead_time_hours, not both"));
                }
            }
            if offer.scale_up_gpus == Some(0) {
                problems.push(format!("{at}: scale_up_gpus must be 1 or more"));
            }
            if offer.max_gpus.known().is_some_and(|max| max < 1.0) {
                problems.push(format!("{at}: max_gpus must be 1 or more (or \"unknown\")"));
            }
            if offer.interconnect_ok_for_training.is_some()
                && (offer.scale_up_gpus.is_some() || offer.inter_node != InterNode::Unknown)
            {
                problems.push(format!(
                    "{at}: interconnect_ok_for_training is the older form of scale_up_gpus and inter_node: give one or the other"
                ));
            }
            if let Some(date) = &offer.supply_as_of
                && !is_iso_date(date)
            {
                problems.push(format!("{at}: supply_as_of '{date}' is not YYYY-MM-DD"));
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
    /// The largest job that must run as one gang, in GPUs of the accelerator matched: one that
    /// spans nodes needs an RDMA fabric between them. 0 when nothing runs as a gang.
    pub gang_gpus: f64,
}

impl CapabilityRequirement {
    pub const NONE: CapabilityRequirement = CapabilityRequirement {
        min_memory_gb: 0.0,
        gang_gpus: 0.0,
    };

    /// docs/economics.md, "Workload classes": training needs >= 80 GB per GPU and its gangs
    /// joined: within an NVLink node when they fit one, over InfiniBand or its equal when not.
    pub fn training(gang_gpus: f64) -> CapabilityRequirement {
        CapabilityRequirement {
            min_memory_gb: 80.0,
            gang_gpus: gang_gpus.max(0.0),
        }
    }

    /// Why the offer cannot carry the class, if it cannot. An accelerator of unknown memory
    /// fails any memory requirement: capability must be shown.
    pub fn unmet_by(&self, offer: &ContractOffer, accelerator_memory_gb: Option<f64>) -> Option<String> {
        if self.min_memory_gb > 0.0 && !accelerator_memory_gb.is_some_and(|gb| gb >= self.min_memory_gb) {
            return Some(format!("needs {:.0} GB a GPU", self.min_memory_gb));
        }
        if self.gang_gpus > 1.0 {
            let why = gang_misfit(self.gang_gpus.ceil(), offer.scale_up_gpus(), offer.inter_node);
            // The older key said NVLink "and/or" a fabric: which one, it does not say.
            return why.map(|why| match offer.interconnect_ok_for_training {
                Some(true) => {
                    format!("{why} (interconnect_ok_for_training does not say which fabric: give inter_node)")
                }
                _ => why,
            });
        }
        None
    }

    pub fn is_met_by(&self, offer: &ContractOffer, accelerator_memory_gb: Option<f64>) -> bool {
        self.unmet_by(offer, accelerator_memory_gb).is_none()
    }
}
