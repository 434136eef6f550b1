//! The decision scored at one origin of the user's own history: the layers sized on the
//! forecast fitted before the cut-off, on its P10 path, on seasonal naive's forecast, nothing
//! committed, and today's matcher's flat mix, each priced on the held-out days as they happened, beside the cheapest layering
//! knowing those days (hindsight). Regret = (cost − hindsight) / hindsight.
//!
//! Two bets are scored apart. The demand bet, the headline: sizing and pricing with prices
//! held on both sides, so only the forecast's error shows. The price bet: the layers sized on
//! the expected price change against the layers sized with prices held, both priced on the
//! prices dated over the held-out days, where the catalog has them. A commitment longer than
//! the held-out days is charged for its part inside them; the rest is stated, on both sides.

use super::ladder::{Ladder, TierMenu, ladder_cost, size_ladder, tier_top};
use super::paths::{DemandPaths, MonthDemand, P10};
use crate::model::forecast::{CommitmentOrigin, TermGpus};
use crate::model::price_trend::PriceBet;

/// What one origin's policies are sized on and priced against, in GPUs of one accelerator.
pub struct OriginInputs<'a> {
    /// The class's menu, its prices moving by the bet the layers are sized on.
    pub menu: &'a TierMenu,
    /// The forecast fitted at the cut-off, over the horizon.
    pub forecast: &'a DemandPaths,
    /// Seasonal naive's forecast: the last season repeated over the horizon.
    pub naive: &'a DemandPaths,
    /// The held-out demand, point by point.
    pub actual: &'a [f64],
    /// Today's matcher on the history before the cut-off.
    pub flat: &'a (TierMenu, Ladder),
    /// The yearly change the dated prices show over the held-out days, where they do.
    pub dated_change_per_year: Option<f64>,
}

/// Scores one origin; `refit(m)` is the forecast fitted with the first `m` held-out months
/// seen (None when it cannot be fitted), for the terms re-sized at their renewals.
pub fn score_origin(
    cutoff: String,
    inputs: &OriginInputs<'_>,
    refit: impl Fn(usize) -> Option<DemandPaths>,
) -> CommitmentOrigin {
    let held = inputs.menu.with_bet(PriceBet::HELD);
    let forecast = inputs.forecast;
    let happened =
        DemandPaths::known(inputs.actual, forecast.hours_per_point, forecast.points_per_month).month_demands();
    let cost = |menu: &TierMenu, ladder: &Ladder| ladder_cost(menu, ladder, &happened, 0..happened.len()).total_usd();
    let hindsight_ladder = size_ladder(&held, &happened);
    let hindsight = cost(&held, &hindsight_ladder);
    let forecast_months = forecast.month_demands();
    let layers_ladder = size_ladder(&held, &forecast_months);
    let naive_ladder = size_ladder(&held, &inputs.naive.month_demands());
    let low_quantile_ladder = size_ladder(&held, &forecast.level_path(P10).month_demands());
    let (flat_menu, flat_ladder) = inputs.flat;
    let flat_held = flat_menu.with_bet(PriceBet::HELD);
    let (redecided_ladder, renewals) = redecided(&held, &layers_ladder, happened.len(), refit);
    let [layers, flat, naive, low_quantile, on_demand, redecided] = [
        cost(&held, &layers_ladder),
        cost(&flat_held, flat_ladder),
        cost(&held, &naive_ladder),
        cost(&held, &low_quantile_ladder),
        cost(&held, &Ladder::nothing(&held)),
        cost(&held, &redecided_ladder),
    ];
    let regret = |usd: f64| {
        if hindsight > 0.0 {
            (usd - hindsight) / hindsight
        } else {
            0.0
        }
    };
    let price_bet_regret_frac = inputs.dated_change_per_year.map(|dated| {
        let real = inputs.menu.with_bet(PriceBet::certain(dated));
        let on_bet = size_ladder(inputs.menu, &forecast_months);
        let hindsight_real = cost(&real, &size_ladder(&real, &happened));
        let extra = cost(&real, &on_bet) - cost(&real, &layers_ladder);
        if hindsight_real > 0.0 {
            extra / hindsight_real
        } else {
            0.0
        }
    });
    CommitmentOrigin {
        cutoff,
        hindsight_usd: hindsight,
        layers_usd: layers,
        flat_usd: flat,
        naive_layers_usd: naive,
        low_quantile_usd: low_quantile,
        on_demand_usd: on_demand,
        redecided_usd: redecided,
        renewals,
        layers_regret_frac: regret(layers),
        flat_regret_frac: regret(flat),
        naive_layers_regret_frac: regret(naive),
        low_quantile_regret_frac: regret(low_quantile),
        on_demand_regret_frac: regret(on_demand),
        redecided_regret_frac: regret(redecided),
        layers_gpus: term_gpus(&held, &layers_ladder),
        hindsight_gpus: term_gpus(&held, &hindsight_ladder),
        layers_committed_after_usd: committed_after_usd(&held, &layers_ladder, &happened),
        flat_committed_after_usd: committed_after_usd(&flat_held, flat_ladder, &happened),
        price_bet_regret_frac,
    }
}

/// The open-loop `ladder` with each committed term re-sized at its renewals inside the
/// `held_out_months` on the refitted forecast, as a planner re-decides; and how many
/// re-decisions were made. A renewed tier never sits under the longer tier it stacks on.
fn redecided(
    menu: &TierMenu,
    ladder: &Ladder,
    held_out_months: usize,
    refit: impl Fn(usize) -> Option<DemandPaths>,
) -> (Ladder, usize) {
    let mut realized = ladder.clone();
    let mut renewals = 0;
    for month in 1..held_out_months {
        let renewing: Vec<usize> = (0..menu.committed.len())
            .filter(|&tier| month % menu.committed[tier].term_months.max(1) == 0)
            .collect();
        if renewing.is_empty() {
            continue;
        }
        let Some(paths) = refit(month) else { continue };
        // The refit's months start at this one; the longer tiers bought earlier stand.
        let seen = paths.month_demands();
        for tier in renewing {
            let term = menu.committed[tier].term_months.max(1);
            let period = month / term;
            let floor = realized.bottom_at(menu, tier, month);
            let top = tier_top(menu, &seen, tier, &(0..term.min(seen.len())), floor);
            let tops = &mut realized.tops[tier];
            if tops.len() <= period {
                let last = tops.last().copied().unwrap_or(0.0);
                tops.resize(period + 1, last);
            }
            tops[period] = top;
            renewals += 1;
        }
    }
    (realized, renewals)
}

/// GPUs each committed tier holds in the ladder's first period, longest first.
fn term_gpus(menu: &TierMenu, ladder: &Ladder) -> Vec<TermGpus> {
    menu.committed
        .iter()
        .enumerate()
        .map(|(tier, offer)| TermGpus {
            term: offer.term,
            offer_id: offer.offer_id.clone(),
            gpus: (ladder.top_at(menu, tier, 0) - ladder.bottom_at(menu, tier, 0)).max(0.0),
        })
        .collect()
}

/// What the ladder's first commitments still owe after the held-out months: each committed
/// band over the rest of its first term, at today's price.
fn committed_after_usd(menu: &TierMenu, ladder: &Ladder, happened: &[MonthDemand]) -> f64 {
    menu.committed
        .iter()
        .enumerate()
        .map(|(tier, offer)| {
            let term_months = offer.term_months.max(1);
            let band = (ladder.top_at(menu, tier, 0) - ladder.bottom_at(menu, tier, 0)).max(0.0);
            let inside: f64 = happened.iter().take(term_months).map(|m| m.hours).sum();
            let term_hours = term_months as f64 * menu.hours_per_month;
            band * menu.committed_price(tier, 0) * (term_hours - inside).max(0.0)
        })
        .sum()
}
