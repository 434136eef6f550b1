//! The ladder: how many GPUs each term covers, period by period, for the cheapest expected
//! cost (docs/board.md, "Commitments sized for the future").
//!
//! Costs are linear in GPUs, so the cheapest ladder is found one GPU level at a time. The GPU
//! at level x is used in the hours demand passes x. Billed by use in month m it costs
//! p(m) · P_m(D > x) an hour; on a committed term it costs the term's price c every hour,
//! used or not. A term's level is where its price meets what the next shorter term would
//! cost for that GPU over the same months (each of its own periods the cheaper of committing
//! or going shorter still): c = alt(x). Against a term billed by use this is the newsvendor's
//! critical fractile, the demand quantile at 1 − c/p. Every price not locked in today (the
//! term billed by use, and commitments renewed later) moves by the accelerator's yearly
//! change.

use std::ops::Range;

use serde::Serialize;

use super::additions;
use super::paths::MonthDemand;
use crate::model::contracts::TermKind;
use crate::model::deployment::Deployment;
use crate::model::plan::HOURS_PER_YEAR;
use crate::model::price_trend::PriceBet;

/// Bisection steps for a level: 2^-60 of the busiest hour, well under a thousandth of a GPU.
const LEVEL_STEPS: usize = 60;

/// A term a layer can be bought on, at its effective price.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TierOffer {
    pub term: TermKind,
    pub offer_id: String,
    pub deployment: Deployment,
    /// Effective price per delivered GPU-hour today.
    pub usd_per_gpu_hour: f64,
    /// Months a commitment runs; 0 for a term billed by use.
    pub term_months: usize,
    /// None when the seller states none.
    pub lead_time_hours: Option<f64>,
    /// The most GPUs the seller states it supplies: a layer on this term is never wider.
    pub max_gpus: Option<f64>,
}

/// The terms a class's layers are chosen from.
#[derive(Debug, Clone, PartialEq)]
pub struct TierMenu {
    /// Committed terms, longest first.
    pub committed: Vec<TierOffer>,
    /// The term billed by use above them (on-demand, or spot for a class that survives
    /// preemption).
    pub by_use: TierOffer,
    /// How the by-use term's price moves a year on (-0.2: a fifth cheaper), with its spread.
    pub by_use_bet: PriceBet,
    /// How the price of a commitment renewed later moves: the on-demand market's.
    pub renewal_bet: PriceBet,
    pub hours_per_month: f64,
}

impl TierMenu {
    /// What a price today is expected to be worth `month` months on, moving by `bet`.
    pub fn price_factor(&self, bet: PriceBet, month: usize) -> f64 {
        if month == 0 {
            return 1.0;
        }
        bet.expected_factor(month as f64 * self.hours_per_month / HOURS_PER_YEAR)
    }

    /// The same menu with every price not locked in today moving by `bet`.
    pub fn with_bet(&self, bet: PriceBet) -> TierMenu {
        TierMenu {
            by_use_bet: bet,
            renewal_bet: bet,
            ..self.clone()
        }
    }

    /// A committed tier's price for the period starting at `start_month`: today's for the
    /// first, the market's then for a renewal.
    pub fn committed_price(&self, tier: usize, start_month: usize) -> f64 {
        self.committed[tier].usd_per_gpu_hour * self.price_factor(self.renewal_bet, start_month)
    }

    pub fn by_use_price(&self, month: usize) -> f64 {
        self.by_use.usd_per_gpu_hour * self.price_factor(self.by_use_bet, month)
    }

    /// The months of each period of committed tier `tier` over `months` months: its terms,
    /// or for the longest term, when it may add capacity later, its steps.
    pub fn periods(&self, tier: usize, months: usize) -> Vec<Range<usize>> {
        let step = self.step_months(tier);
        (0..months.div_ceil(step))
            .map(|p| p * step..((p + 1) * step).min(months))
            .collect()
    }

    /// Months between the points where tier `tier`'s level may change: its term, except for
    /// the longest, which may add contracts at the start of each period of the next shorter
    /// term (their greatest common divisor, so both line up).
    pub fn step_months(&self, tier: usize) -> usize {
        let term = self.committed[tier].term_months.max(1);
        match self.committed.get(1) {
            Some(next) if tier == 0 => gcd(term, next.term_months.max(1)),
            _ => term,
        }
    }

    /// Whether the longest term's level may rise within its term (contracts added later).
    pub fn adds_later(&self) -> bool {
        !self.committed.is_empty() && self.step_months(0) < self.committed[0].term_months.max(1)
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

/// The committed stack, period by period: `tops[tier][period]` is the highest GPU level the
/// tier covers (cumulative: the tiers below it included), never under the longer tier's. A
/// tier's last period stands for any after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ladder {
    pub tops: Vec<Vec<f64>>,
}

impl Ladder {
    /// Nothing committed on any tier: every hour billed by use.
    pub fn nothing(menu: &TierMenu) -> Ladder {
        Ladder {
            tops: vec![vec![0.0]; menu.committed.len()],
        }
    }

    /// The top of committed tier `tier` in month `month`. The longest term's contracts run
    /// their whole term, so its level never falls within it.
    pub fn top_at(&self, menu: &TierMenu, tier: usize, month: usize) -> f64 {
        tier_top_at(menu, &self.tops[tier], tier, month)
    }

    /// Where tier `tier` starts in `month`: the longer tier's top, or zero for the longest.
    pub fn bottom_at(&self, menu: &TierMenu, tier: usize, month: usize) -> f64 {
        if tier == 0 {
            0.0
        } else {
            self.top_at(menu, tier - 1, month)
        }
    }

    /// The committed stack's top in `month`: what the term billed by use starts above.
    pub fn committed_top(&self, menu: &TierMenu, month: usize) -> f64 {
        menu.committed
            .len()
            .checked_sub(1)
            .map_or(0.0, |last| self.top_at(menu, last, month))
    }
}

/// The top in `month` of tier `tier` whose tops by period are `tops`.
fn tier_top_at(menu: &TierMenu, tops: &[f64], tier: usize, month: usize) -> f64 {
    let step = menu.step_months(tier);
    let index = (month / step).min(tops.len().saturating_sub(1));
    if tier == 0 && menu.adds_later() {
        tops[..tops.len().min(index + 1)].iter().copied().fold(0.0, f64::max)
    } else {
        tops.get(index).copied().unwrap_or(0.0)
    }
}

/// The cheapest expected ladder for these months' demand.
pub fn size_ladder(menu: &TierMenu, months: &[MonthDemand]) -> Ladder {
    let mut tops: Vec<Vec<f64>> = Vec::with_capacity(menu.committed.len());
    for tier in 0..menu.committed.len() {
        if tier == 0 && menu.adds_later() {
            tops.push(additions::longest_tops(menu, months));
            continue;
        }
        let periods = menu.periods(tier, months.len());
        let tier_tops = periods
            .iter()
            .map(|range| {
                let floor = match tier {
                    0 => 0.0,
                    _ => tier_top_at(menu, &tops[tier - 1], tier - 1, range.start),
                };
                tier_top(menu, months, tier, range, floor)
            })
            .collect();
        tops.push(tier_tops);
    }
    Ladder { tops }
}

/// The top of committed tier `tier` over the period `range` of `months`, stacked on `floor`
/// (the longer tier's top there): as high as its price beats the shorter terms, no wider than
/// its seller supplies.
pub fn tier_top(menu: &TierMenu, months: &[MonthDemand], tier: usize, range: &Range<usize>, floor: f64) -> f64 {
    let price = menu.committed_price(tier, range.start);
    let busiest = months[range.clone()]
        .iter()
        .map(MonthDemand::highest_gpus)
        .fold(0.0, f64::max);
    let level = highest_level(busiest, |x| {
        price <= alternative_usd_per_hour(menu, months, tier, range, x)
    });
    // A layer is never wider than its seller supplies.
    let capped = menu.committed[tier]
        .max_gpus
        .map_or(level, |max| level.min(floor + max));
    capped.max(floor)
}

/// The highest x in [0, busiest] where `worth(x)` holds, `worth` holding on a range from zero.
pub(super) fn highest_level(busiest: f64, worth: impl Fn(f64) -> bool) -> f64 {
    if !worth(0.0) {
        return 0.0;
    }
    if worth(busiest) {
        return busiest;
    }
    let (mut lo, mut hi) = (0.0, busiest);
    for _ in 0..LEVEL_STEPS {
        let mid = 0.5 * (lo + hi);
        if worth(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// What the GPU at level x costs an hour, on average over `range`, if committed tier `tier`
/// does not take it: each period of the next shorter tier the cheaper of its price and going
/// shorter again; below the shortest committed tier, the term billed by use.
pub fn alternative_usd_per_hour(
    menu: &TierMenu,
    months: &[MonthDemand],
    tier: usize,
    range: &Range<usize>,
    x: f64,
) -> f64 {
    let next = tier + 1;
    let (mut cost, mut hours) = (0.0, 0.0);
    if next >= menu.committed.len() {
        for month in range.clone() {
            let h = months[month].hours;
            cost += menu.by_use_price(month) * months[month].exceedance(x) * h;
            hours += h;
        }
    } else {
        for period in menu.periods(next, months.len()) {
            let overlap = period.start.max(range.start)..period.end.min(range.end);
            if overlap.is_empty() {
                continue;
            }
            let h: f64 = months[overlap.clone()].iter().map(|m| m.hours).sum();
            let shorter = alternative_usd_per_hour(menu, months, next, &overlap, x);
            let mut marginal = menu.committed_price(next, period.start).min(shorter);
            // A capped tier sits on the longer one's top: left to it, the GPU at x moves the
            // tier's band down by one, and when the band is full its top GPU (x + cap) falls
            // to what is shorter still.
            if let Some(cap) = menu.committed[next].max_gpus {
                marginal = marginal.max(alternative_usd_per_hour(menu, months, next, &overlap, x + cap.max(0.0)));
            }
            cost += marginal * h;
            hours += h;
        }
    }
    if hours > 0.0 { cost / hours } else { 0.0 }
}

/// What a ladder costs over `range` of these months: each committed layer's GPUs for every
/// hour (the longest term's added GPUs at the price of the step they were signed in), and the
/// demand above the stack billed by use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LadderCost {
    pub committed_usd: f64,
    pub by_use_usd: f64,
    /// Committed GPU-hours paid for and not used.
    pub idle_committed_gpu_hours: f64,
    pub by_use_gpu_hours: f64,
}

impl LadderCost {
    pub fn total_usd(&self) -> f64 {
        self.committed_usd + self.by_use_usd
    }
}

/// The ladder's expected cost over `range` of `months`.
pub fn ladder_cost(menu: &TierMenu, ladder: &Ladder, months: &[MonthDemand], range: Range<usize>) -> LadderCost {
    let mut cost = LadderCost::default();
    let adds_later = menu.adds_later();
    for month in range {
        let demand = &months[month];
        for tier in 0..menu.committed.len() {
            let (bottom, top) = (ladder.bottom_at(menu, tier, month), ladder.top_at(menu, tier, month));
            let band = (top - bottom).max(0.0);
            cost.committed_usd += demand.hours
                * if tier == 0 && adds_later {
                    vintage_usd_per_hour(menu, ladder, month)
                } else {
                    let term = menu.committed[tier].term_months.max(1);
                    band * menu.committed_price(tier, month / term * term)
                };
            let used = demand.excess_gpu_hours(bottom) - demand.excess_gpu_hours(top);
            cost.idle_committed_gpu_hours += (band * demand.hours - used).max(0.0);
        }
        let above = demand.excess_gpu_hours(ladder.committed_top(menu, month));
        cost.by_use_gpu_hours += above;
        cost.by_use_usd += above * menu.by_use_price(month);
    }
    cost
}

/// The longest term's hourly cost in `month` when it adds contracts later: each step's added
/// GPUs at the price of the step it was signed in.
fn vintage_usd_per_hour(menu: &TierMenu, ladder: &Ladder, month: usize) -> f64 {
    let step = menu.step_months(0);
    let mut below = 0.0_f64;
    let mut usd = 0.0;
    for k in 0..=month / step {
        let top = ladder.top_at(menu, 0, k * step);
        usd += (top - below).max(0.0) * menu.committed_price(0, k * step);
        below = below.max(top);
    }
    usd
}
