//! A purchase held to its own term (docs/board.md, "One purchase"). The backtest scores the
//! policies on holdouts of days to weeks; a commitment runs 12 to 36 months. Where the term is
//! more than `TERM_OVER_HOLDOUT` times the holdout, the holdouts cannot speak for it alone: the
//! backtest's pick is priced over the whole term on the forecast's own paths, and where it costs
//! more than today's mix held flat there (beyond `TERM_TIE_FRAC`), flat stands. Each
//! candidate's cost and worst regret across the fan's expectation and its P10 and P90 paths
//! (what it costs above the best candidate on the path where it does worst) are kept beside
//! the choice for the reader.

use super::SpanCost;
use crate::model::forecast::{ChosenBy, PathRegret, Policy, TermChoice};

/// A term more than this many times the holdout is one the backtest cannot speak for.
pub const TERM_OVER_HOLDOUT: f64 = 4.0;
/// A pick within this share of flat's expected cost over the term costs the same as flat.
pub const TERM_TIE_FRAC: f64 = 0.005;
/// Days a month of term counts.
const DAYS_PER_MONTH: f64 = 30.44;

/// Whether a term of `term_months` is far longer than holdouts of `holdout_days`.
pub fn far_longer(term_months: usize, holdout_days: u32) -> bool {
    term_months as f64 * DAYS_PER_MONTH > TERM_OVER_HOLDOUT * f64::from(holdout_days.max(1))
}

/// Each candidate's worst regret across the paths, from its costs over the term.
pub fn path_regrets(costs: &[(Policy, SpanCost)]) -> Vec<PathRegret> {
    let on = |c: &SpanCost, path: usize| match path {
        0 => c.expected_usd,
        1 => c.p10_path_usd,
        _ => c.p90_path_usd,
    };
    let best: Vec<f64> = (0..3)
        .map(|path| {
            costs
                .iter()
                .map(|(_, c)| on(c, path))
                .filter(|v| v.is_finite())
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    costs
        .iter()
        .map(|(policy, cost)| PathRegret {
            policy: *policy,
            expected_usd: cost.expected_usd,
            worst_regret_usd: (0..3).map(|path| on(cost, path) - best[path]).fold(0.0, f64::max),
        })
        .collect()
}

/// The backtest's choice, held to the term: where it costs more than today's mix held flat
/// over the term on the forecast's own paths (beyond the tie), flat stands, and the term choice
/// says so. `costs` holds every candidate; their worst regrets are kept for the output.
pub fn choose_over_term(chosen: ChosenBy, costs: &[(Policy, SpanCost)], term_months: usize) -> ChosenBy {
    let regrets = path_regrets(costs);
    let expected = |policy: Policy| costs.iter().find(|(p, _)| *p == policy).map(|(_, c)| c.expected_usd);
    let (Some(flat_usd), Some(pick_usd)) = (expected(Policy::Flat), expected(chosen.policy)) else {
        return chosen;
    };
    let dearer = pick_usd > flat_usd * (1.0 + TERM_TIE_FRAC);
    ChosenBy {
        policy: if dearer { Policy::Flat } else { chosen.policy },
        over_term: Some(TermChoice {
            term_months,
            backtest_choice: chosen.reason.is_none().then_some(chosen.policy),
            backtest_choice_less_flat_usd: pick_usd - flat_usd,
            held_to_flat: dearer,
            candidates: regrets,
        }),
        ..chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::commitment_layers::policy::flat_fallback;

    fn cost(expected_usd: f64, p10_path_usd: f64, p90_path_usd: f64) -> SpanCost {
        SpanCost {
            expected_usd,
            p10_path_usd,
            p90_path_usd,
            idle_committed_gpu_hours: 0.0,
        }
    }

    #[test]
    fn a_three_year_term_is_far_longer_than_fortnights_but_not_than_years() {
        assert!(far_longer(36, 14));
        assert!(far_longer(12, 14));
        assert!(!far_longer(36, 365));
        assert!(!far_longer(12, 92));
    }

    fn backtest_chose(policy: Policy) -> ChosenBy {
        let mut chosen = flat_fallback(String::new(), 14);
        chosen.reason = None;
        chosen.policy = policy;
        chosen
    }

    fn costs() -> [(Policy, SpanCost); 5] {
        [
            (Policy::OnDemand, cost(150.0, 100.0, 200.0)),
            (Policy::Flat, cost(110.0, 95.0, 130.0)),
            (Policy::NaiveLayers, cost(115.0, 96.0, 140.0)),
            (Policy::LowQuantile, cost(110.3, 80.0, 150.0)),
            (Policy::Layers, cost(100.0, 110.0, 120.0)),
        ]
    }

    #[test]
    fn a_pick_dearer_than_flat_over_the_term_gives_way_to_flat() {
        let chosen = choose_over_term(backtest_chose(Policy::NaiveLayers), &costs(), 36);
        assert_eq!(chosen.policy, Policy::Flat);
        let term = chosen.over_term.expect("held to the term");
        assert_eq!(term.backtest_choice, Some(Policy::NaiveLayers));
        assert!(term.held_to_flat);
        assert!((term.backtest_choice_less_flat_usd - 5.0).abs() < 1e-9);
        // Worst regrets across the paths: on-demand 80, flat 15, naive 20, P10 30, layers 30.
        assert_eq!(term.candidates[1].worst_regret_usd, 15.0);
    }

    #[test]
    fn a_pick_cheaper_than_flat_or_within_the_tie_stands() {
        assert_eq!(
            choose_over_term(backtest_chose(Policy::Layers), &costs(), 36).policy,
            Policy::Layers
        );
        // 110.3 against 110: within half a percent, the same cost.
        let within = choose_over_term(backtest_chose(Policy::LowQuantile), &costs(), 36);
        assert_eq!(within.policy, Policy::LowQuantile);
        assert!(!within.over_term.expect("held to the term").held_to_flat);
    }
}
