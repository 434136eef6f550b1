//! Which purchase the plan recommends for a class, in a sentence both faces print: the layers
//! sized on the forecast, or today's matcher's mix held flat, and the bet the choice rests on.
//! The layers are the cheapest ladder in expectation on the forecast (docs/board.md), so they
//! are recommended whenever they cost no more than the flat mix over the horizon they were sized
//! for; the sentence says what they bet on and what the bet costs if prices hold.

use serde::Serialize;

use super::SpanCost;
use super::fleet::ClassLayers;
use super::price_stress::{PriceStress, StressCase};
use crate::shared::format::{usd_compact, usd_compact_signed};

/// The term mix a class's purchase follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Purchase {
    /// The commitment layers sized on the forecast.
    Layers,
    /// Today's matcher's mix, sized on the history and held flat.
    Flat,
}

/// The purchase recommended for a class, and the figures that decide it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PurchaseChoice {
    pub buy: Purchase,
    /// The layers' expected cost over the horizon less the flat mix's (negative: the layers
    /// cost less).
    pub layers_less_flat_usd: f64,
    /// The same with prices held, when the layers were sized on a price change: what the
    /// layers cost against flat if the price bet is lost.
    pub layers_less_flat_if_prices_hold_usd: Option<f64>,
}

/// The layers when they cost no more than the flat mix over the horizon, in expectation.
pub fn purchase_choice(
    horizon: &SpanCost,
    flat_horizon: &SpanCost,
    stress: &[PriceStress],
    change_per_year: f64,
) -> PurchaseChoice {
    let layers_less_flat_usd = horizon.expected_usd - flat_horizon.expected_usd;
    let held = stress
        .iter()
        .find(|s| s.case == StressCase::Held)
        .filter(|_| change_per_year != 0.0)
        .map(|s| s.layers_usd - s.flat_usd);
    PurchaseChoice {
        buy: if layers_less_flat_usd <= 0.0 {
            Purchase::Layers
        } else {
            Purchase::Flat
        },
        layers_less_flat_usd,
        layers_less_flat_if_prices_hold_usd: held,
    }
}

/// The recommendation in one sentence, the same in the report and the Contracts pane: which
/// mix to buy, what it costs against the other over `horizon_months`, and the bet it rests on.
pub fn purchase_sentence(class: &ClassLayers, horizon_months: usize) -> String {
    let choice = &class.recommended;
    let (chosen, other, chosen_cost, other_cost) = match choice.buy {
        Purchase::Layers => (
            "the commitment layers (▤)",
            "today's mix held flat",
            &class.horizon,
            &class.flat_horizon,
        ),
        Purchase::Flat => (
            "today's mix held flat",
            "the commitment layers (▤)",
            &class.flat_horizon,
            &class.horizon,
        ),
    };
    let (chosen_year, other_year) = match choice.buy {
        Purchase::Layers => (&class.first_year, &class.flat_first_year),
        Purchase::Flat => (&class.flat_first_year, &class.first_year),
    };
    let first_year = if chosen_year.expected_usd > other_year.expected_usd {
        format!(
            ", though its first year costs more ({} against {})",
            usd_compact(chosen_year.expected_usd),
            usd_compact(other_year.expected_usd)
        )
    } else {
        String::new()
    };
    let growth = class
        .growth_per_year
        .map_or("the forecast's fitted trend".to_string(), |g| {
            format!("demand growing ×{g:.1} a year")
        });
    let prices = class.price_bet.text();
    let lost = match (choice.buy, choice.layers_less_flat_if_prices_hold_usd) {
        (Purchase::Layers, Some(held)) => format!(
            "; if prices hold instead, the layers cost {} against flat",
            usd_compact_signed(held)
        ),
        _ => String::new(),
    };
    // Within a thousandth the two cost the same to the cent shown; say so rather than rank them.
    let costs = if choice.layers_less_flat_usd.abs() <= 1e-3 * other_cost.expected_usd.abs() {
        format!(
            "both about {} expected over {horizon_months} months",
            usd_compact(chosen_cost.expected_usd)
        )
    } else {
        format!(
            "{} against {} expected over {horizon_months} months",
            usd_compact(chosen_cost.expected_usd),
            usd_compact(other_cost.expected_usd)
        )
    };
    format!(
        "{}: buy {chosen}, not {other}: {costs}{first_year}; it rests on {growth} and {prices}{lost}.",
        capitalized(class.class.label()),
    )
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
    fn the_layers_are_bought_when_they_cost_no_more_than_flat_over_the_horizon() {
        let layers = purchase_choice(&span(88.0), &span(94.0), &[held(101.8, 98.0)], -0.187);
        assert_eq!(layers.buy, Purchase::Layers);
        assert_eq!(layers.layers_less_flat_usd, -6.0);
        assert!((layers.layers_less_flat_if_prices_hold_usd.expect("a bet") - 3.8).abs() < 1e-9);
        let flat = purchase_choice(&span(95.0), &span(94.0), &[held(95.0, 94.0)], 0.0);
        assert_eq!(flat.buy, Purchase::Flat);
        // Prices held already: no bet to lose.
        assert_eq!(flat.layers_less_flat_if_prices_hold_usd, None);
    }
}
