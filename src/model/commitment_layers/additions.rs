//! Capacity added later on the longest term (docs/board.md, "Capacity added as demand
//! arrives"). A planner does not buy today the 3-year level a growing forecast reaches in its
//! third year: they buy what today's demand justifies and sign more as the growth arrives. So
//! the longest term's level may rise once, at its first step (the start of the next shorter
//! term's second period): that addition is a new contract at the market's price then.
//!
//! Per GPU level x there are three choices: start it today, start it at the step, or never
//! (the shorter terms and by use throughout). Starting at the step costs the alternative
//! until then and the contract's price over the horizon's rest; its months past the horizon
//! are taken at par (worth what they cost), as the backtest takes a commitment past its
//! held-out days. Only one addition is weighed: at par, a contract signed in the horizon's
//! last months would pass for a short term at a long term's price. Costs stay linear per
//! level, so the ladder is the cheapest among those whose longest term rises at most once.

use std::ops::Range;

use super::ladder::{TierMenu, alternative_usd_per_hour, highest_level};
use super::paths::MonthDemand;

/// When the longest term's GPU at some level is best started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    Today,
    AtStep,
    Never,
}

/// The longest tier's cumulative level at each of its steps over `months`: today's, then from
/// the first step on the level with the addition; never above the seller's cap.
pub(super) fn longest_tops(menu: &TierMenu, months: &[MonthDemand]) -> Vec<f64> {
    let steps = menu.periods(0, months.len());
    let busiest = months.iter().map(MonthDemand::highest_gpus).fold(0.0, f64::max);
    let cap = menu.committed[0].max_gpus.unwrap_or(f64::INFINITY);
    let whole = 0..months.len();
    let today = highest_level(busiest, |x| best_start(menu, months, &steps, &whole, x) == Start::Today).min(cap);
    if steps.len() < 2 {
        return vec![today];
    }
    let later = highest_level(busiest, |x| best_start(menu, months, &steps, &whole, x) != Start::Never)
        .min(cap)
        .max(today);
    std::iter::once(today)
        .chain(std::iter::repeat_n(later, steps.len() - 1))
        .collect()
}

/// The cheapest start for the longest term's GPU at level `x`; today on a tie, the step
/// before never.
fn best_start(menu: &TierMenu, months: &[MonthDemand], steps: &[Range<usize>], whole: &Range<usize>, x: f64) -> Start {
    let hours = |range: &Range<usize>| months[range.clone()].iter().map(|m| m.hours).sum::<f64>();
    let all_hours = hours(whole);
    let today = menu.committed_price(0, 0) * all_hours;
    let never = alternative_usd_per_hour(menu, months, 0, whole, x) * all_hours;
    let at_step = steps.get(1).map_or(f64::INFINITY, |step| {
        let first = &steps[0];
        alternative_usd_per_hour(menu, months, 0, first, x) * hours(first)
            + menu.committed_price(0, step.start) * (all_hours - hours(first))
    });
    // A relative margin keeps rounding from deferring a tie.
    let margin = 1e-9 * today.abs().max(1.0);
    if today <= at_step + margin && today <= never + margin {
        Start::Today
    } else if at_step <= never + margin {
        Start::AtStep
    } else {
        Start::Never
    }
}
