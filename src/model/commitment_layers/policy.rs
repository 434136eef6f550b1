//! Which policy sizes a class's commitments, chosen by its own backtest as the forecast's method
//! is (`model::forecast::cross_validation`): at the rolling origins of the user's history, each
//! candidate is sized on the days before the cut-off and priced on the held-out days as they
//! happened, prices held on both sides (`score`); the lowest median demand regret wins. Five
//! candidates, simplest first: on-demand only, today's matcher held flat, the layers on
//! seasonal naive, the layers on the forecast's P10 path, the layers on the whole fan. Within
//! `TIE_REGRET` of the best, the simplest stands: a few origins cannot rank closer scores, and
//! a simpler purchase is easier to explain and to undo. A history too short to score falls back
//! to flat, and says why.

use serde::Serialize;

use super::CommitmentError;
use super::ladder::{Ladder, TierMenu, size_ladder};
use super::paths::MonthDemand;
use crate::model::forecast::{CandidateRegret, ChosenBy, CommitmentBacktest, Policy};
use crate::model::workload::WorkloadClass;

/// Median regrets closer than this (a tenth of a point) are a tie, won by the simpler policy.
pub const TIE_REGRET: f64 = 0.001;
/// Fewer origins than this leave a median of one or two draws: flat stands in.
pub const MIN_SELECTION_ORIGINS: usize = 3;
/// Days held out after each origin of the backtest that chooses (`gpuplan backtest`'s default).
pub const SELECTION_HOLDOUT_DAYS: u32 = 14;

/// A class's chosen policy, for the accelerator it was backtested on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicySelection {
    pub class: WorkloadClass,
    pub accelerator: String,
    pub chosen_by: ChosenBy,
}

/// The policy with the lowest median regret over `origins`, the simplest of those within
/// `TIE_REGRET` of it; flat, with the reason, when fewer than `MIN_SELECTION_ORIGINS` origins
/// or no finite regret were scored.
pub fn choose_policy(candidates: &[CandidateRegret], origins: usize, holdout_days: u32) -> ChosenBy {
    let scored: Vec<CandidateRegret> = Policy::SIMPLEST_FIRST
        .iter()
        .filter_map(|p| {
            candidates
                .iter()
                .find(|c| c.policy == *p && c.median_regret.is_finite())
        })
        .copied()
        .collect();
    if origins < MIN_SELECTION_ORIGINS {
        return flat_fallback(
            format!(
                "{origins} origin{} of {holdout_days} held-out days fit the history, under the {MIN_SELECTION_ORIGINS} a choice needs",
                if origins == 1 { "" } else { "s" }
            ),
            holdout_days,
        );
    }
    let Some(best) = scored.iter().map(|c| c.median_regret).min_by(f64::total_cmp) else {
        return flat_fallback("no candidate's regret could be scored".to_string(), holdout_days);
    };
    // `scored` runs simplest first: the first within the tie is the simplest.
    let chosen = *scored
        .iter()
        .find(|c| c.median_regret <= best + TIE_REGRET)
        .expect("the best is within the tie of itself");
    let runner_up = scored
        .iter()
        .filter(|c| c.policy != chosen.policy)
        .min_by(|a, b| a.median_regret.total_cmp(&b.median_regret))
        .copied();
    ChosenBy {
        policy: chosen.policy,
        origins,
        holdout_days,
        median_regret: Some(chosen.median_regret),
        margin: runner_up.map(|r| r.median_regret - chosen.median_regret),
        runner_up,
        candidates: scored,
        reason: None,
        pinned_over: None,
        over_term: None,
    }
}

/// Flat, chosen by no backtest: `reason` says why.
pub fn flat_fallback(reason: String, holdout_days: u32) -> ChosenBy {
    ChosenBy {
        policy: Policy::Flat,
        origins: 0,
        holdout_days,
        median_regret: None,
        candidates: Vec::new(),
        runner_up: None,
        margin: None,
        reason: Some(reason),
        pinned_over: None,
        over_term: None,
    }
}

/// `chosen` with `pinned` bought instead, as the plan's `[commitments] policy` asks: its own
/// median regret where the backtest scored it, the backtest's choice kept beside it.
pub fn pinned_by_plan(chosen: ChosenBy, pinned: Policy) -> ChosenBy {
    if chosen.policy == pinned && chosen.reason.is_none() {
        return chosen;
    }
    let own = chosen.candidates.iter().find(|c| c.policy == pinned).copied();
    let best_other = chosen
        .candidates
        .iter()
        .filter(|c| c.policy != pinned)
        .min_by(|a, b| a.median_regret.total_cmp(&b.median_regret))
        .copied();
    ChosenBy {
        policy: pinned,
        median_regret: own.map(|c| c.median_regret),
        margin: own.zip(best_other).map(|(o, b)| b.median_regret - o.median_regret),
        runner_up: best_other,
        pinned_over: Some(chosen.policy),
        ..chosen
    }
}

/// Every candidate's median demand regret in a class's backtest.
pub(super) fn candidates_of(backtest: &CommitmentBacktest) -> Vec<CandidateRegret> {
    Policy::SIMPLEST_FIRST
        .iter()
        .map(|&policy| CandidateRegret {
            policy,
            median_regret: match policy {
                Policy::OnDemand => backtest.on_demand_regret.median,
                Policy::Flat => backtest.flat_regret.median,
                Policy::NaiveLayers => backtest.naive_layers_regret.median,
                Policy::LowQuantile => backtest.low_quantile_regret.median,
                Policy::Layers => backtest.layers_regret.median,
            },
        })
        .collect()
}

/// Each class's choice from its backtest; a class the backtest could not score falls back to
/// flat with the reason.
pub fn selections(
    backtests: &[(WorkloadClass, String, Result<CommitmentBacktest, CommitmentError>)],
    holdout_days: u32,
) -> Vec<PolicySelection> {
    backtests
        .iter()
        .map(|(class, accelerator, result)| PolicySelection {
            class: *class,
            accelerator: accelerator.clone(),
            chosen_by: match result {
                Ok(backtest) => backtest.chosen_by.clone(),
                Err(why) => flat_fallback(format!("not backtested: {why}"), holdout_days),
            },
        })
        .collect()
}

/// The chosen policy's choice for `class` on `accelerator`, else flat with the reason.
pub fn chosen_for(selection: &[PolicySelection], class: WorkloadClass, accelerator: &str) -> ChosenBy {
    match selection.iter().find(|s| s.class == class) {
        Some(s) if s.accelerator == accelerator => s.chosen_by.clone(),
        Some(s) => flat_fallback(
            format!("backtested on {}, not yet on {accelerator}", s.accelerator),
            s.chosen_by.holdout_days,
        ),
        None => flat_fallback("not backtested".to_string(), SELECTION_HOLDOUT_DAYS),
    }
}

/// The months a policy's ladder is sized on, beside the flat mix's own menu and ladder.
pub(super) struct PolicyInputs<'a> {
    /// The class's menu, holding every offer flat uses.
    pub menu: &'a TierMenu,
    pub flat: &'a (TierMenu, Ladder),
    /// The forecast's whole fan, month by month.
    pub forecast: &'a [MonthDemand],
    /// The forecast's P10 path taken as certain.
    pub low_quantile: &'a [MonthDemand],
    /// Seasonal naive's: the history's last season repeated.
    pub naive: &'a dyn Fn() -> Vec<MonthDemand>,
}

/// The menu and ladder `policy` buys.
pub(super) fn policy_ladder(policy: Policy, inputs: &PolicyInputs<'_>) -> (TierMenu, Ladder) {
    let menu = inputs.menu;
    match policy {
        Policy::OnDemand => (menu.clone(), Ladder::nothing(menu)),
        Policy::Flat => inputs.flat.clone(),
        Policy::NaiveLayers => (menu.clone(), size_ladder(menu, &(inputs.naive)())),
        Policy::LowQuantile => (menu.clone(), size_ladder(menu, inputs.low_quantile)),
        Policy::Layers => (menu.clone(), size_ladder(menu, inputs.forecast)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates(medians: [f64; 5]) -> Vec<CandidateRegret> {
        Policy::SIMPLEST_FIRST
            .iter()
            .zip(medians)
            .map(|(&policy, median_regret)| CandidateRegret { policy, median_regret })
            .collect()
    }

    #[test]
    fn the_lowest_median_regret_wins_with_its_runner_up_and_margin() {
        let chosen = choose_policy(&candidates([0.30, 0.055, 0.020, 0.073, 0.061]), 8, 14);
        assert_eq!(chosen.policy, Policy::NaiveLayers);
        assert_eq!(chosen.median_regret, Some(0.020));
        assert_eq!(chosen.origins, 8);
        assert_eq!(chosen.runner_up.map(|r| r.policy), Some(Policy::Flat));
        assert!((chosen.margin.expect("a margin") - 0.035).abs() < 1e-12);
        assert_eq!(chosen.candidates.len(), 5);
        assert_eq!(chosen.reason, None);
    }

    #[test]
    fn a_near_tie_goes_to_the_simpler_policy() {
        // The layers lead by half a tie: flat, simpler, stands.
        let chosen = choose_policy(&candidates([0.30, 0.0100, 0.02, 0.02, 0.0095]), 8, 14);
        assert_eq!(chosen.policy, Policy::Flat);
        assert_eq!(chosen.runner_up.map(|r| r.policy), Some(Policy::Layers));
        assert!(chosen.margin.expect("a margin") < 0.0);
        // An exact tie of every candidate: on-demand, the simplest.
        assert_eq!(choose_policy(&candidates([0.0; 5]), 8, 14).policy, Policy::OnDemand);
        // Past the tie the better one wins.
        let layers = choose_policy(
            &candidates([0.30, 0.0100, 0.02, 0.02, 0.0100 - 2.0 * TIE_REGRET]),
            8,
            14,
        );
        assert_eq!(layers.policy, Policy::Layers);
    }

    #[test]
    fn too_few_origins_fall_back_to_flat_with_a_reason() {
        let chosen = choose_policy(&candidates([0.3, 0.2, 0.1, 0.1, 0.0]), MIN_SELECTION_ORIGINS - 1, 14);
        assert_eq!(chosen.policy, Policy::Flat);
        assert_eq!(chosen.median_regret, None);
        assert!(chosen.candidates.is_empty());
        assert!(chosen.reason.expect("a reason").contains("origins of 14 held-out days"));
        let unscored = choose_policy(&candidates([f64::NAN; 5]), 8, 14);
        assert_eq!(unscored.policy, Policy::Flat);
        assert!(unscored.reason.is_some());
    }

    #[test]
    fn a_class_backtested_on_another_accelerator_is_not_chosen_for() {
        let selection = vec![PolicySelection {
            class: WorkloadClass::Training,
            accelerator: "b200".into(),
            chosen_by: choose_policy(&candidates([0.3, 0.2, 0.1, 0.1, 0.0]), 8, 14),
        }];
        assert_eq!(
            chosen_for(&selection, WorkloadClass::Training, "b200").policy,
            Policy::Layers
        );
        let other = chosen_for(&selection, WorkloadClass::Training, "h100-sxm");
        assert_eq!(other.policy, Policy::Flat);
        assert!(other.reason.is_some());
        assert!(
            chosen_for(&selection, WorkloadClass::Inference, "b200")
                .reason
                .is_some()
        );
    }

    #[test]
    fn each_policy_buys_its_own_ladder() {
        use crate::model::commitment_layers::TierOffer;
        use crate::model::contracts::TermKind;
        use crate::model::deployment::Deployment;
        use crate::model::price_trend::PriceBet;
        let offer = |term: TermKind, usd: f64, months: usize| TierOffer {
            term,
            offer_id: format!("{term:?}"),
            deployment: Deployment::Vm,
            usd_per_gpu_hour: usd,
            term_months: months,
            lead_time_hours: None,
            max_gpus: None,
        };
        let menu = TierMenu {
            committed: vec![offer(TermKind::OneYear, 2.0, 12)],
            by_use: offer(TermKind::OnDemand, 4.0, 0),
            by_use_bet: PriceBet::HELD,
            renewal_bet: PriceBet::HELD,
            hours_per_month: 730.0,
        };
        let month = |gpus: f64| MonthDemand::new(730.0, vec![gpus; 10]);
        let forecast: Vec<MonthDemand> = (0..12).map(|_| month(10.0)).collect();
        let low: Vec<MonthDemand> = (0..12).map(|_| month(6.0)).collect();
        let naive_months = || (0..12).map(|_| month(3.0)).collect::<Vec<_>>();
        let flat = (menu.clone(), Ladder { tops: vec![vec![8.0]] });
        let inputs = PolicyInputs {
            menu: &menu,
            flat: &flat,
            forecast: &forecast,
            low_quantile: &low,
            naive: &naive_months,
        };
        let level = |policy: Policy| {
            let (m, ladder) = policy_ladder(policy, &inputs);
            ladder.top_at(&m, 0, 0)
        };
        assert_eq!(level(Policy::OnDemand), 0.0);
        assert_eq!(level(Policy::Flat), 8.0);
        assert!((level(Policy::NaiveLayers) - 3.0).abs() < 1e-6);
        assert!((level(Policy::LowQuantile) - 6.0).abs() < 1e-6);
        assert!((level(Policy::Layers) - 10.0).abs() < 1e-6);
    }
}
