//! The matching search: each pure term's cost and the cheapest base-plus-burst mix.

use std::fmt;

use serde::Serialize;

use super::demand::DemandProfile;
use super::offers::{CapabilityRequirement, ContractOffer, TermKind};
use crate::model::deployment::Deployment;

/// Relative margin a mix must beat the incumbent by: ties keep the simpler plan found first.
const STRICTLY_CHEAPER_FRAC: f64 = 1e-12;

/// One class's demand and what it may run on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchRequest<'a> {
    /// Concurrent GPUs, one value per point of the observation window.
    pub hourly_gpus: &'a [f64],
    /// Hours each value stands for: 1, but for windows too long to follow hour by hour
    /// (`model::resolution`).
    pub hours_per_point: f64,
    pub accelerator_id: &'a str,
    /// Spot offers are considered only when the class survives preemption.
    pub tolerates_preemption: bool,
    pub requirement: CapabilityRequirement,
    /// For the per-month figures (docs/economics.md, "Accelerator reference figures": 730 unless the plan says otherwise).
    pub hours_per_month: f64,
    /// Today's consolidated cost over the same window, for the saving.
    pub consolidated_usd: Option<f64>,
}

/// The cost of covering all demand with one term.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PureTermCost {
    pub term: TermKind,
    /// The cheapest offer of this term for the accelerator.
    pub offer_id: String,
    pub deployment: Deployment,
    pub effective_usd_per_gpu_hour: f64,
    pub lead_time_hours: f64,
    pub cost_usd: f64,
    /// GPU-hours paid for and not used.
    pub unused_gpu_hours: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MixRole {
    /// The committed level, paid whether used or not.
    Base,
    /// The demand above the base, on a shorter term.
    Burst,
}

/// One line of the cheapest mix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MixRow {
    pub role: MixRole,
    pub term: TermKind,
    pub offer_id: String,
    pub deployment: Deployment,
    /// The base level, or the peak of the burst above it.
    pub gpus: f64,
    pub effective_usd_per_gpu_hour: f64,
    pub lead_time_hours: f64,
    pub cost_usd: f64,
    pub unused_gpu_hours: f64,
}

/// What the matcher found for one class on one accelerator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatchResult {
    pub accelerator_id: String,
    pub window_hours: f64,
    pub peak_gpus: f64,
    pub demand_gpu_hours: f64,
    /// One row per term kind available, cheapest offer of each, shortest term first.
    pub pure_terms: Vec<PureTermCost>,
    /// The cheapest plan: a single term, or a base plus a burst.
    pub best_mix: Vec<MixRow>,
    /// The best mix over the window.
    pub cost_usd: f64,
    pub cost_usd_per_month: f64,
    /// GPU-hours the best mix pays for and leaves idle: Σ (B − d)+ for the base, plus a
    /// monthly burst's idle block capacity; zero for on-demand or spot.
    pub unused_committed_gpu_hours: f64,
    pub consolidated_usd: Option<f64>,
    pub saving_usd: Option<f64>,
    pub saving_usd_per_month: Option<f64>,
    /// Offers pricing the accelerator that the capability filter ruled out.
    pub excluded_offer_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MatchError {
    EmptyDemand,
    InvalidHoursPerMonth,
    NoPriceForAccelerator {
        accelerator_id: String,
    },
    NoCapableOffer {
        accelerator_id: String,
        excluded_offer_ids: Vec<String>,
    },
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::EmptyDemand => f.write_str("the demand series has no hours"),
            MatchError::InvalidHoursPerMonth => f.write_str("hours per month must be a positive number"),
            MatchError::NoPriceForAccelerator { accelerator_id } => {
                write!(f, "no contract offer prices {accelerator_id}")
            }
            MatchError::NoCapableOffer {
                accelerator_id,
                excluded_offer_ids,
            } => write!(
                f,
                "no offer for {accelerator_id} meets the class's needs (excluded: {})",
                if excluded_offer_ids.is_empty() {
                    "spot only, and the class does not tolerate preemption".to_string()
                } else {
                    excluded_offer_ids.join(", ")
                }
            ),
        }
    }
}

impl std::error::Error for MatchError {}

/// An offer usable for this class, with its effective price and, for monthly, its blocks.
struct Candidate<'a> {
    offer: &'a ContractOffer,
    usd_per_gpu_hour: f64,
    blocks: Vec<(f64, f64)>,
}

impl Candidate<'_> {
    /// Covering all demand alone: (cost, unused GPU-hours).
    fn pure(&self, demand: &DemandProfile) -> (f64, f64) {
        let used = demand.total_gpu_hours();
        let paid = match self.offer.term {
            TermKind::Spot | TermKind::OnDemand => used,
            TermKind::Monthly => self.blocks.iter().map(|(peak, hours)| peak * hours).sum(),
            TermKind::OneYear | TermKind::BuildToOrder => demand.peak * demand.window_hours(),
        };
        (paid * self.usd_per_gpu_hour, (paid - used).max(0.0))
    }

    /// A flat committed level over the window: (cost, idle GPU-hours).
    fn base(&self, demand: &DemandProfile, level: f64) -> (f64, f64) {
        (
            level * demand.window_hours() * self.usd_per_gpu_hour,
            demand.idle_gpu_hours(level),
        )
    }

    /// The demand above `level`: (cost, unused GPU-hours). Monthly pays each block's peak
    /// excess for the whole block; on-demand and spot pay the excess hour by hour.
    fn burst(&self, demand: &DemandProfile, level: f64) -> (f64, f64) {
        let used = demand.excess_gpu_hours(level);
        let paid = if self.offer.term == TermKind::Monthly {
            self.blocks
                .iter()
                .map(|(peak, hours)| (peak - level).max(0.0) * hours)
                .sum()
        } else {
            used
        };
        (paid * self.usd_per_gpu_hour, (paid - used).max(0.0))
    }

    fn row(&self, role: MixRole, gpus: f64, (cost_usd, unused_gpu_hours): (f64, f64)) -> MixRow {
        MixRow {
            role,
            term: self.offer.term,
            offer_id: self.offer.id.clone(),
            deployment: self.offer.deployment,
            gpus,
            effective_usd_per_gpu_hour: self.usd_per_gpu_hour,
            lead_time_hours: self.offer.lead_time_hours,
            cost_usd,
            unused_gpu_hours,
        }
    }
}

/// The plan under consideration while searching.
enum Plan {
    Pure { candidate: usize },
    Mix { base: usize, burst: usize, level: f64 },
}

/// Finds each pure term's cost and the cheapest base-plus-burst mix for one class on one
/// accelerator. The base level B is searched over the distinct demand levels (thinned to
/// `MAX_BASE_LEVEL_CANDIDATES` quantiles) and every pair of a base term (monthly, 1-year,
/// build-to-order: B × window hours, used or not) with a shorter burst term (monthly by block
/// peak of the excess, on-demand or spot by the hour). Pure terms are candidates too, so the
/// mix is never dearer than the cheapest of them; on a tie the pure term stands.
pub fn match_class(
    request: &MatchRequest<'_>,
    offers: &[ContractOffer],
    accelerator_memory_gb: impl Fn(&str) -> Option<f64>,
) -> Result<MatchResult, MatchError> {
    if request.hourly_gpus.is_empty() {
        return Err(MatchError::EmptyDemand);
    }
    if !(request.hours_per_month.is_finite() && request.hours_per_month > 0.0) {
        return Err(MatchError::InvalidHoursPerMonth);
    }
    let accelerator_id = request.accelerator_id;
    let hours_per_point = if request.hours_per_point.is_finite() && request.hours_per_point >= 1.0 {
        request.hours_per_point
    } else {
        1.0
    };
    let demand = DemandProfile::new(request.hourly_gpus, hours_per_point);
    let memory_gb = accelerator_memory_gb(accelerator_id);

    let priced: Vec<&ContractOffer> = offers
        .iter()
        .filter(|o| {
            o.price_for(accelerator_id)
                .is_some_and(|p| p.usd_per_gpu_hour.is_finite() && p.usd_per_gpu_hour >= 0.0)
        })
        .collect();
    if priced.is_empty() {
        return Err(MatchError::NoPriceForAccelerator {
            accelerator_id: accelerator_id.to_string(),
        });
    }
    let (capable, excluded): (Vec<&ContractOffer>, Vec<&ContractOffer>) = priced
        .into_iter()
        .partition(|o| request.requirement.is_met_by(o, memory_gb));
    let excluded_offer_ids: Vec<String> = excluded.iter().map(|o| o.id.clone()).collect();
    let candidates: Vec<Candidate<'_>> = capable
        .into_iter()
        .filter(|o| o.term != TermKind::Spot || request.tolerates_preemption)
        .filter_map(|offer| {
            let usd_per_gpu_hour = offer.effective_usd_per_gpu_hour(accelerator_id)?;
            // A monthly block is the offer's minimum length, in whole hours of demand.
            let block_hours = if offer.minimum_hours >= 1.0 {
                offer.minimum_hours
            } else {
                request.hours_per_month
            };
            let blocks = if offer.term == TermKind::Monthly {
                demand.block_peaks(block_hours.round().max(1.0) as usize)
            } else {
                Vec::new()
            };
            Some(Candidate {
                offer,
                usd_per_gpu_hour,
                blocks,
            })
        })
        .collect();
    if candidates.is_empty() {
        return Err(MatchError::NoCapableOffer {
            accelerator_id: accelerator_id.to_string(),
            excluded_offer_ids,
        });
    }

    let pure_costs: Vec<(f64, f64)> = candidates.iter().map(|c| c.pure(&demand)).collect();
    // The cheapest offer of each term kind; catalog order breaks ties.
    let mut pure_terms: Vec<PureTermCost> = Vec::new();
    for kind in TermKind::ALL {
        let cheapest = candidates
            .iter()
            .zip(&pure_costs)
            .filter(|(c, _)| c.offer.term == kind)
            .min_by(|(_, a), (_, b)| a.0.total_cmp(&b.0));
        if let Some((candidate, &(cost_usd, unused_gpu_hours))) = cheapest {
            pure_terms.push(PureTermCost {
                term: kind,
                offer_id: candidate.offer.id.clone(),
                deployment: candidate.offer.deployment,
                effective_usd_per_gpu_hour: candidate.usd_per_gpu_hour,
                lead_time_hours: candidate.offer.lead_time_hours,
                cost_usd,
                unused_gpu_hours,
            });
        }
    }

    let mut best_plan = Plan::Pure { candidate: 0 };
    let mut best_cost = f64::INFINITY;
    for (index, &(cost, _)) in pure_costs.iter().enumerate() {
        if cost < best_cost {
            best_plan = Plan::Pure { candidate: index };
            best_cost = cost;
        }
    }
    let levels = demand.base_levels();
    for (base_index, base) in candidates.iter().enumerate() {
        if base.offer.term.bills_by_use() {
            continue;
        }
        for (burst_index, burst) in candidates.iter().enumerate() {
            if burst.offer.term >= base.offer.term || burst.offer.term.is_committed() {
                continue;
            }
            for &level in &levels {
                let cost = base.base(&demand, level).0 + burst.burst(&demand, level).0;
                if cost < best_cost * (1.0 - STRICTLY_CHEAPER_FRAC) {
                    best_plan = Plan::Mix {
                        base: base_index,
                        burst: burst_index,
                        level,
                    };
                    best_cost = cost;
                }
            }
        }
    }

    let best_mix: Vec<MixRow> = match best_plan {
        Plan::Pure { candidate } => {
            let chosen = &candidates[candidate];
            let role = if chosen.offer.term.bills_by_use() {
                MixRole::Burst
            } else {
                MixRole::Base
            };
            vec![chosen.row(role, demand.peak, pure_costs[candidate])]
        }
        Plan::Mix { base, burst, level } => {
            let mut rows = vec![candidates[base].row(MixRole::Base, level, candidates[base].base(&demand, level))];
            let burst_gpus = (demand.peak - level).max(0.0);
            if burst_gpus > 0.0 {
                rows.push(candidates[burst].row(MixRole::Burst, burst_gpus, candidates[burst].burst(&demand, level)));
            }
            rows
        }
    };
    let cost_usd: f64 = best_mix.iter().map(|r| r.cost_usd).sum();
    let months = demand.window_hours() / request.hours_per_month;
    let saving_usd = request.consolidated_usd.map(|consolidated| consolidated - cost_usd);
    Ok(MatchResult {
        accelerator_id: accelerator_id.to_string(),
        window_hours: demand.window_hours(),
        peak_gpus: demand.peak,
        demand_gpu_hours: demand.total_gpu_hours(),
        pure_terms,
        unused_committed_gpu_hours: best_mix.iter().map(|r| r.unused_gpu_hours).sum(),
        best_mix,
        cost_usd,
        cost_usd_per_month: cost_usd / months,
        consolidated_usd: request.consolidated_usd,
        saving_usd,
        saving_usd_per_month: saving_usd.map(|s| s / months),
        excluded_offer_ids,
    })
}
