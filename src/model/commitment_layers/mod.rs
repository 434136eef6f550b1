//! Commitments sized for the future (docs/board.md, "Commitments sized for the future"): a
//! class's forecast demand in, layers of terms out. A long base (build-to-order), a 1-year
//! layer above it, monthly blocks, then the term billed by use (on-demand, spot for a class
//! that survives preemption), each sized on the forecast's hourly demand over its own term,
//! with what it locks in if demand falls. No I/O.
//!
//! - `paths`: the forecast's fan read as demand paths and month-by-month distributions;
//! - `ladder`: the sizing (a critical fractile per layer) and a ladder's cost;
//! - `additions`: the longest term's contracts added later, as demand arrives;
//! - `risk`: each of today's layers, its committed dollars and idle risk;
//! - `price_stress`: the layers and flat priced as prices move (held, the bet, twice it), and
//!   the yearly change at which the longest term stops paying;
//! - `policy`: which sizing a class's purchase follows, chosen by its own backtest (on-demand,
//!   flat, the layers on seasonal naive, on the P10 path, on the whole fan);
//! - `choice`: the chosen purchase against flat, and why, in a sentence;
//! - `flat`: today's matcher's mix (a flat history held for the term) as a ladder, to compare;
//! - `score`: one origin of the backtest: the decision on held-out days against hindsight,
//!   flat and seasonal naive's layers, the demand bet and the price bet apart;
//! - `fleet`: every class of the audited fleet, from the contract matching and the forecast;
//! - `history`: the fleet's classes backtested at rolling origins of the audit's own history;
//! - `stay`: every cluster kept with its provider on its provider's own terms (the board's
//!   other end state).

mod additions;
mod choice;
mod flat;
mod fleet;
mod history;
mod ladder;
mod paths;
mod policy;
mod price_stress;
mod risk;
mod score;
mod stay;
mod term_choice;
#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::model::contracts::MatchError;

/// Why a class's commitments cannot be layered or backtested.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CommitmentError {
    #[error("no demand in the history")]
    NoDemand,
    #[error("no on-demand or spot offer prices {accelerator}")]
    NoByUseOffer { accelerator: String },
    #[error("{holdout_days} held-out days leave under two days to fit")]
    TooShort { holdout_days: u32 },
    #[error("no origin's held-out days could be priced")]
    Unpriced,
    #[error("today's matcher on the history before the cut-off: {0}")]
    Match(#[from] MatchError),
}

pub use self::choice::{PurchaseChoice, choice_text, purchase_choice, purchase_sentence, rests_on};
pub use self::flat::flat_ladder;
pub use self::fleet::{
    ClassLayers, CommitmentInputs, CommitmentReport, LongestTerm, PriceChangeUsed, commitment_report,
    commitment_report_keeping, price_change, tier_menu,
};
pub use self::history::backtest_commitments;
pub use self::ladder::{Ladder, LadderCost, TierMenu, TierOffer, ladder_cost, size_ladder};
pub use self::paths::{DemandPaths, MonthDemand, PATH_LEVELS, quantile};
pub use self::policy::{
    MIN_SELECTION_ORIGINS, PolicySelection, SELECTION_HOLDOUT_DAYS, TIE_REGRET, choose_policy, chosen_for,
    flat_fallback, selections,
};
pub use self::price_stress::{PriceStress, StressCase, break_even_change_per_year, price_stress};
pub use self::risk::{Layer, PathCost};
pub use self::score::{OriginInputs, score_origin};
pub use self::stay::{StayCluster, StayPlan, stay_with_providers};
pub use self::term_choice::{TERM_OVER_HOLDOUT, TERM_TIE_FRAC, far_longer};

/// A committed layer under half a GPU is not worth showing as a purchase.
pub const SHOWN_FROM_GPUS: f64 = 0.5;

/// Months of the first year, over which a ladder is summed up.
pub const FIRST_YEAR_MONTHS: usize = 12;

/// A ladder's cost over a span of months (the first year, or the whole horizon): expected, and
/// on the P10 and P90 paths.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SpanCost {
    pub expected_usd: f64,
    pub p10_path_usd: f64,
    pub p90_path_usd: f64,
    /// Committed GPU-hours expected to sit idle.
    pub idle_committed_gpu_hours: f64,
}

/// The forecast's P10 and P90 paths read as known demand, month by month, once per class: every
/// span's path costs read them.
#[derive(Debug, Clone, PartialEq)]
pub struct PathMonths {
    pub p10: Vec<MonthDemand>,
    pub p90: Vec<MonthDemand>,
}

impl PathMonths {
    pub fn of(paths: &DemandPaths) -> PathMonths {
        let at = |u: f64| paths.level_path(u).month_demands();
        PathMonths {
            p10: at(paths::P10),
            p90: at(paths::P90),
        }
    }
}

/// What `ladder` costs over the first year.
pub fn year_cost(menu: &TierMenu, ladder: &Ladder, months: &[MonthDemand], on_paths: &PathMonths) -> SpanCost {
    span_cost(menu, ladder, months, on_paths, FIRST_YEAR_MONTHS)
}

/// What `ladder` costs over every month: the horizon it was sized for.
pub fn horizon_cost(menu: &TierMenu, ladder: &Ladder, months: &[MonthDemand], on_paths: &PathMonths) -> SpanCost {
    span_cost(menu, ladder, months, on_paths, months.len())
}

/// What `ladder` costs over the first `span_months` months, expected and on the P10 and P90
/// paths.
fn span_cost(
    menu: &TierMenu,
    ladder: &Ladder,
    months: &[MonthDemand],
    on_paths: &PathMonths,
    span_months: usize,
) -> SpanCost {
    let span = 0..span_months.min(months.len());
    let expected = ladder_cost(menu, ladder, months, span.clone());
    let on_path = |path: &[MonthDemand]| ladder_cost(menu, ladder, path, 0..span.end.min(path.len())).total_usd();
    SpanCost {
        expected_usd: expected.total_usd(),
        p10_path_usd: on_path(&on_paths.p10),
        p90_path_usd: on_path(&on_paths.p90),
        idle_committed_gpu_hours: expected.idle_committed_gpu_hours,
    }
}
