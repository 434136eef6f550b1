//! The decision scored on the user's own history: at a cut-off the layers are sized from the
//! forecast fitted on the days before it, then priced on what happened over the held-out
//! days (commitments prorated to them), beside the cheapest layering knowing those days
//! (hindsight) and today's matcher on the history alone (flat). Regret = (cost − hindsight) /
//! hindsight.

use super::ladder::{Ladder, TierMenu, ladder_cost, size_ladder};
use super::paths::DemandPaths;
pub use crate::model::forecast::CommitmentScore;

/// Scores the layers sized on `forecast` (from the cut-off) and the `flat` policy on `actual`
/// held-out demand, both in GPUs of the same accelerator and points.
pub fn score_commitments(
    accelerator: &str,
    menu: &TierMenu,
    forecast: &DemandPaths,
    actual: &[f64],
    flat: &(TierMenu, Ladder),
) -> CommitmentScore {
    let chosen_ladder = size_ladder(menu, &forecast.month_demands());
    let happened = DemandPaths::known(actual, forecast.hours_per_point, forecast.points_per_month).month_demands();
    let held_out = 0..happened.len();
    let chosen = ladder_cost(menu, &chosen_ladder, &happened, held_out.clone()).total_usd();
    let hindsight_ladder = size_ladder(menu, &happened);
    let hindsight = ladder_cost(menu, &hindsight_ladder, &happened, held_out.clone()).total_usd();
    let (flat_menu, flat_ladder) = flat;
    let flat_cost = ladder_cost(flat_menu, flat_ladder, &happened, held_out).total_usd();
    let regret = |cost: f64| {
        if hindsight > 0.0 {
            (cost - hindsight) / hindsight
        } else {
            0.0
        }
    };
    CommitmentScore {
        accelerator: accelerator.to_string(),
        chosen_cost_usd: chosen,
        hindsight_cost_usd: hindsight,
        flat_cost_usd: flat_cost,
        regret_frac: regret(chosen),
        flat_regret_frac: regret(flat_cost),
    }
}
