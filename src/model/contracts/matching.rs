//! The matching search: each pure term's cost and the cheapest base-plus-burst mix.

use std::fmt;

use serde::Serialize;

use super::demand::DemandProfile;
use super::offers::{CapabilityRequirement, ContractOffer, TermKind};
use super::supply::exceeds_max;
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
    /// Offers whose stated lead time is longer are left out; None: any lead time.
    pub needed_within_weeks: Option<f64>,
    /// Spot hours bought per hour of work done (>= 1): the work preemption makes redo
    /// (`checkpoint::spot_hours_per_work_hour`); spot prices are multiplied by it.
    pub spot_hours_per_work_hour: f64,
}

/// An offer the matcher left out, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfferExclusion {
    pub offer_id: String,
    pub reason: String,
}

/// The cost of covering all demand with one term.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PureTermCost {
    pub term: TermKind,
    /// The cheapest offer of this term for the accelerator.
    pub offer_id: String,
    pub deployment: Deployment,
    pub effective_usd_per_gpu_hour: f64,
    /// Spot hours bought per hour of work (1 for other terms).
    pub preemption_factor: f64,
    /// None when the seller states none.
    pub lead_time_hours: Option<f64>,
    /// The most GPUs the seller states it supplies; None when it states none.
    pub max_gpus: Option<f64>,
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
    /// Per delivered GPU-hour of work: list price over the delivered share, and for spot
    /// times the hours preemption makes redo.
    pub effective_usd_per_gpu_hour: f64,
    /// Spot hours bought per hour of work (1 for other terms).
    pub preemption_factor: f64,
    /// None when the seller states none.
    pub lead_time_hours: Option<f64>,
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
    /// Every offer left out (capability, lead time), with why.
    pub exclusions: Vec<OfferExclusion>,
    /// Supply figures of the best mix's offers the seller does not state, assumed to suffice.
    pub assumed_supply: Vec<String>,
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
    /// Every capable offer states a maximum below what the demand needs.
    NotEnoughSupply {
        accelerator_id: String,
        peak_gpus: f64,
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
            MatchError::NotEnoughSupply {
                accelerator_id,
                peak_gpus,
            } => write!(
                f,
                "no mix of {accelerator_id} offers supplies {peak_gpus:.0} GPUs within the most each seller states"
            ),
        }
    }
}

impl std::error::Error for MatchError {}

/// An offer usable for this class, with its effective price and, for monthly, its blocks.
struct Candidate<'a> {
    offer: &'a ContractOffer,
    usd_per_gpu_hour: f64,
    preemption_factor: f64,
    blocks: Vec<(f64, f64)>,
}

impl Candidate<'_> {
    /// Whether the offer can supply `gpus` at once by the most its seller states.
    fn supplies(&self, gpus: f64) -> bool {
        !exceeds_max(gpus, self.offer.max_gpus)
    }

    /// Covering all demand alone: (cost, unused GPU-hours); infinite when the offer cannot
    /// supply the peak.
    fn pure(&self, demand: &DemandProfile) -> (f64, f64) {
        if !self.supplies(demand.peak) {
            return (f64::INFINITY, 0.0);
        }
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
            preemption_factor: self.preemption_factor,
            lead_time_hours: self.offer.lead_time_hours(),
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
    let mut exclusions = Vec::new();
    let mut capable = Vec::new();
    for offer in priced {
        let late = request
            .needed_within_weeks
            .zip(offer.lead_time_weeks())
            .filter(|(needed, lead)| lead > needed)
            .map(|(needed, lead)| format!("{} weeks' lead time, needed within {}", weeks(lead), weeks(needed)));
        match request.requirement.unmet_by(offer, memory_gb).or(late) {
            Some(reason) => exclusions.push(OfferExclusion {
                offer_id: offer.id.clone(),
                reason,
            }),
            None => capable.push(offer),
        }
    }
    let excluded_offer_ids: Vec<String> = exclusions.iter().map(|e| e.offer_id.clone()).collect();
    let spot_factor = if request.spot_hours_per_work_hour.is_finite() {
        request.spot_hours_per_work_hour.max(1.0)
    } else {
        1.0
    };
    let candidates: Vec<Candidate<'_>> = capable
        .into_iter()
        .filter(|o| o.term != TermKind::Spot || request.tolerates_preemption)
        .filter_map(|offer| {
            let preemption_factor = if offer.term == TermKind::Spot { spot_factor } else { 1.0 };
            let usd_per_gpu_hour = offer.effective_usd_per_gpu_hour(accelerator_id)? * preemption_factor;
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
                preemption_factor,
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
            .filter(|(c, cost)| c.offer.term == kind && cost.0.is_finite())
            .min_by(|(_, a), (_, b)| a.0.total_cmp(&b.0));
        if let Some((candidate, &(cost_usd, unused_gpu_hours))) = cheapest {
            pure_terms.push(PureTermCost {
                term: kind,
                offer_id: candidate.offer.id.clone(),
                deployment: candidate.offer.deployment,
                effective_usd_per_gpu_hour: candidate.usd_per_gpu_hour,
                preemption_factor: candidate.preemption_factor,
                lead_time_hours: candidate.offer.lead_time_hours(),
                max_gpus: candidate.offer.max_gpus.known(),
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
    let mut levels = demand.base_levels();
    // A base held at a seller's stated maximum, or as low as a capped burst above it allows,
    // when the demand peaks above the cap.
    for max in candidates.iter().filter_map(|c| c.offer.max_gpus.known()) {
        if max > 0.0 && max < demand.peak {
            levels.push(max);
            levels.push(demand.peak - max);
        }
    }
    for (base_index, base) in candidates.iter().enumerate() {
        if base.offer.term.bills_by_use() {
            continue;
        }
        for (burst_index, burst) in candidates.iter().enumerate() {
            if burst.offer.term >= base.offer.term || burst.offer.term.is_committed() {
                continue;
            }
            for &level in &levels {
                if !base.supplies(level) || !burst.supplies(demand.peak - level) {
                    continue;
                }
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

    if !best_cost.is_finite() {
        return Err(MatchError::NotEnoughSupply {
            accelerator_id: accelerator_id.to_string(),
            peak_gpus: demand.peak,
        });
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
    let assumed_supply = assumed_supply(&best_mix, &candidates);
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
        exclusions,
        assumed_supply,
    })
}

/// Weeks as a person writes them: 4, 0.5, 1.3.
fn weeks(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

/// What the best mix takes on trust: each of its offers' unstated maximum and lead time.
fn assumed_supply(best_mix: &[MixRow], candidates: &[Candidate<'_>]) -> Vec<String> {
    let mut assumed = Vec::new();
    for row in best_mix {
        let Some(candidate) = candidates.iter().find(|c| c.offer.id == row.offer_id) else {
            continue;
        };
        let (no_max, no_lead) = (
            candidate.offer.max_gpus.known().is_none(),
            candidate.offer.lead_time_weeks().is_none(),
        );
        let (missing, assumption) = match (no_max, no_lead) {
            (true, true) => (
                "maximum or lead time",
                format!(
                    "that it supplies {:.0} GPUs and that it is ready in time",
                    row.gpus.ceil()
                ),
            ),
            (true, false) => ("maximum", format!("that it supplies {:.0} GPUs", row.gpus.ceil())),
            (false, true) => ("lead time", "that it is ready in time".to_string()),
            (false, false) => continue,
        };
        assumed.push(format!("{} states no {missing}: assumed {assumption}", row.offer_id));
    }
    assumed.dedup();
    assumed
}
