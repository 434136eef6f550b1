//! Which purchase the plan recommends for a class, in a sentence both faces print: the policy
//! its own backtest chose (`policy`), the runner-up and the margin, what it costs against
//! today's mix held flat over the horizon it was sized for, and the bet it rests on.

use serde::Serialize;

use super::SpanCost;
use super::fleet::ClassLayers;
use super::price_stress::{PriceStress, StressCase};
use crate::model::forecast::{ChosenBy, Policy};
use crate::shared::format::pct;
use crate::shared::format::usd_compact;

/// The purchase recommended for a class, and what it costs against the flat mix.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PurchaseChoice {
    /// The policy chosen by the class's backtest.
    pub buy: Policy,
    /// The chosen purchase's expected cost over the horizon less the flat mix's (negative: it
    /// costs less).
    pub chosen_less_flat_usd: f64,
    /// The same with prices held, when the purchase was sized on a price change: what it costs
    /// against flat if the price bet is lost.
    pub chosen_less_flat_if_prices_hold_usd: Option<f64>,
}

/// The purchase `policy` sizes, against the flat mix over the horizon, in expectation and,
/// when it bets on a price change, with prices held.
pub fn purchase_choice(
    policy: Policy,
    horizon: &SpanCost,
    flat_horizon: &SpanCost,
    stress: &[PriceStress],
    change_per_year: f64,
) -> PurchaseChoice {
    let held = stress
        .iter()
        .find(|s| s.case == StressCase::Held)
        .filter(|_| change_per_year != 0.0 && policy != Policy::Flat)
        .map(|s| s.layers_usd - s.flat_usd);
    PurchaseChoice {
        buy: policy,
        chosen_less_flat_usd: horizon.expected_usd - flat_horizon.expected_usd,
        chosen_less_flat_if_prices_hold_usd: held,
    }
}

/// How the backtest chose, in words: the winner's median regret, the runner-up's and the
/// margin; or why none chose.
pub fn choice_text(chosen: &ChosenBy) -> String {
    if let Some(backtest_choice) = chosen.pinned_over {
        let own = chosen
            .median_regret
            .map_or(String::new(), |m| format!(", its median demand regret {}", pct(m)));
        // Flat with a reason is no choice of the backtest's: say why none was made.
        let backtest = match &chosen.reason {
            Some(reason) => format!("its own backtest chose none ({reason})"),
            None => format!("its own backtest chose {}", backtest_choice.label()),
        };
        return format!("pinned by the plan's [commitments] policy{own}; {backtest}");
    }
    if let Some(term) = &chosen.over_term {
        return over_term_text(chosen, term);
    }
    if let Some(reason) = &chosen.reason {
        return format!("chosen by no backtest ({reason}): today's mix held flat stands in");
    }
    let Some(median) = chosen.median_regret else {
        return "chosen by no backtest: today's mix held flat stands in".to_string();
    };
    let runner = match (chosen.runner_up, chosen.margin) {
        (Some(r), Some(margin)) if margin < 0.0 => format!(
            "; {} came {:.2} points lower, within the {:.1}-point tie that goes to the simpler",
            r.policy.label(),
            -100.0 * margin,
            100.0 * super::policy::TIE_REGRET
        ),
        (Some(r), Some(margin)) => format!(
            "; runner-up {} at {} ({:.2} points more)",
            r.policy.label(),
            pct(r.median_regret),
            100.0 * margin
        ),
        _ => String::new(),
    };
    format!(
        "chosen by its backtest: median demand regret {} over {} origins of {} held-out days{runner}",
        pct(median),
        chosen.origins,
        chosen.holdout_days
    )
}

/// A backtest's pick held to the term: kept, or flat where it costs more over the term on the
/// forecast's own paths.
fn over_term_text(chosen: &ChosenBy, term: &crate::model::forecast::TermChoice) -> String {
    let backtest = match (term.backtest_choice, chosen.median_regret) {
        (Some(p), Some(median)) => format!(
            "its backtest chose {} (median demand regret {} over {} origins of {} held-out days)",
            p.label(),
            pct(median),
            chosen.origins,
            chosen.holdout_days
        ),
        (Some(p), None) => format!("its backtest chose {}", p.label()),
        (None, _) => "no backtest chose".to_string(),
    };
    let against = if term.backtest_choice_less_flat_usd > 0.0 {
        format!("{} more than", usd_compact(term.backtest_choice_less_flat_usd))
    } else {
        format!("{} less than", usd_compact(-term.backtest_choice_less_flat_usd))
    };
    if term.held_to_flat {
        format!(
            "{backtest}, but over its {}-month term on the forecast's own paths that costs {against} today's mix \
             held flat, and holdouts that short cannot speak for the term: flat stands",
            term.term_months
        )
    } else {
        format!(
            "{backtest}; over its {}-month term on the forecast's own paths it costs {against} today's mix held flat",
            term.term_months
        )
    }
}

/// The recommendation in one sentence, the same in the report and the Contracts pane: which
/// purchase to make and how its backtest chose it, what it costs against the flat mix over
/// `horizon_months`, and the bet it rests on.
pub fn purchase_sentence(class: &ClassLayers, horizon_months: usize) -> String {
    let choice = &class.recommended;
    let chosen = choice.buy.label();
    let costs = if choice.buy == Policy::Flat {
        format!(
            "{} expected over {horizon_months} months",
            usd_compact(class.flat_horizon.expected_usd)
        )
    } else if choice.chosen_less_flat_usd.abs() <= 1e-3 * class.flat_horizon.expected_usd.abs() {
        // Within a thousandth the two cost the same to the cent shown; say so rather than rank them.
        format!(
            "about {} expected over {horizon_months} months, as today's mix held flat",
            usd_compact(class.horizon.expected_usd)
        )
    } else {
        format!(
            "{} expected over {horizon_months} months against {} for today's mix held flat",
            usd_compact(class.horizon.expected_usd),
            usd_compact(class.flat_horizon.expected_usd)
        )
    };
    let rests_on = rests_on(class);
    let lost = match choice.chosen_less_flat_if_prices_hold_usd {
        // A difference said in words, never a negative cost.
        Some(held) if held < 0.0 => format!("; if prices hold instead, it saves {} against flat", usd_compact(-held)),
        Some(held) => format!(
            "; if prices hold instead, it costs {} more than flat",
            usd_compact(held)
        ),
        None => String::new(),
    };
    format!(
        "{}: buy {chosen}, {}; {costs}; it rests on {rests_on}{lost}.",
        capitalized(class.class.label()),
        choice_text(&class.chosen_by),
    )
}

/// The bet a class's purchase rests on: the layers on the fan bet on its growth, those on the
/// P10 path on demand near it, seasonal naive's on the last season repeating, on-demand on
/// demand falling short of any commitment; each on the prices too.
pub fn rests_on(class: &ClassLayers) -> String {
    let growth = class
        .growth_per_year
        .map_or("the forecast's fitted trend".to_string(), |g| {
            format!("demand growing ×{g:.1} a year")
        });
    let prices = class.price_bet.text();
    match class.recommended.buy {
        Policy::Layers => format!("{growth} and {prices}"),
        Policy::LowQuantile => format!("demand near the forecast's P10 path and {prices}"),
        Policy::NaiveLayers => format!("the last season repeating and {prices}"),
        // Nothing committed sits idle: it pays where demand falls short of what a commitment holds.
        Policy::OnDemand => format!("demand falling toward the forecast's P10 path, and {prices}"),
        Policy::Flat => prices.to_string(),
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(expected_usd: f64) -> SpanCost {
        SpanCost {
            expected_usd,
            p10_path_usd: 0.0,
            p90_path_usd: 0.0,
            idle_committed_gpu_hours: 0.0,
        }
    }

    fn held(layers_usd: f64, flat_usd: f64) -> PriceStress {
        PriceStress {
            case: StressCase::Held,
            change_per_year: 0.0,
            layers_usd,
            flat_usd,
        }
    }

    #[test]
    fn the_purchase_is_the_chosen_policy_priced_against_flat() {
        let layers = purchase_choice(Policy::Layers, &span(88.0), &span(94.0), &[held(101.8, 98.0)], -0.187);
        assert_eq!(layers.buy, Policy::Layers);
        assert_eq!(layers.chosen_less_flat_usd, -6.0);
        assert!((layers.chosen_less_flat_if_prices_hold_usd.expect("a bet") - 3.8).abs() < 1e-9);
        // Chosen by the backtest even where it costs more on the forecast.
        let naive = purchase_choice(Policy::NaiveLayers, &span(95.0), &span(94.0), &[held(95.0, 94.0)], 0.0);
        assert_eq!(naive.buy, Policy::NaiveLayers);
        // Prices held already: no bet to lose.
        assert_eq!(naive.chosen_less_flat_if_prices_hold_usd, None);
        let flat = purchase_choice(Policy::Flat, &span(94.0), &span(94.0), &[held(94.0, 94.0)], -0.2);
        assert_eq!(flat.chosen_less_flat_if_prices_hold_usd, None);
    }

    /// A pin over a flat that no backtest chose says so, never "its backtest chose flat".
    #[test]
    fn a_pin_over_a_fallback_says_no_backtest_chose() {
        use super::super::policy::{flat_fallback, pinned_by_plan};
        let fallback = flat_fallback("2 origins fit, under the 3 a choice needs".to_string(), 14);
        let text = choice_text(&pinned_by_plan(fallback, Policy::Layers));
        assert!(text.contains("its own backtest chose none (2 origins fit"), "{text}");
        assert!(!text.contains("chose today's mix"), "{text}");
    }
}
