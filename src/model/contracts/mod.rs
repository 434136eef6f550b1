//! Contract-term matching: for one workload class's hourly demand, what each
//! contract term costs alone and which mix of a committed base plus burst on a shorter term
//! is cheapest. The offers come from `catalogs/contracts.toml`; loading it is not done here.
//!
//! Units and readings, stated once:
//! - Demand is concurrent GPUs of delivered work, one value per hour of the observation
//!   window. Missing, negative or non-finite hours count as zero demand.
//! - Every price is the effective one: list price over `Deployment::delivered_capability_frac`
//!   (VM 0.75, bare metal 0.935; docs/economics.md, "Bare metal or VM"), so a VM hour buys less delivered work
//!   and a bare-metal offer with a higher list price can still be the cheaper one.
//! - Every cost covers the observation window. Commitments longer than the window are
//!   prorated to it (a 1-year term seen over 90 days costs 90 days of the term), so terms
//!   compare on the same hours; the commitment itself is paid whether used or not.
//! - GPUs of different generations do not do equal work, so a class is matched on one
//!   accelerator at a time; the caller compares accelerators.

mod demand;
mod matching;
mod offers;
mod supply;
#[cfg(test)]
mod tests;

pub use demand::MAX_BASE_LEVEL_CANDIDATES;
pub use matching::{MatchError, MatchRequest, MatchResult, MixRole, MixRow, OfferExclusion, PureTermCost, match_class};
pub use offers::{
    CONTRACTS_SCHEMA_VERSION, CapabilityRequirement, ContractCatalog, ContractOffer, OfferPrice, TermKind,
};
pub use supply::{InterNode, Stated};
