//! The one purchase the board prices (docs/board.md, "One purchase"): each class's chosen
//! policy, the one the Contracts pane and `report` recommend, not the matcher's mix held flat.
//! Both are priced by the commitments on the same forecast over the horizon the purchase is
//! sized for; their ratio carries the chosen purchase into the waterfall's last step, its range
//! and its timeline. A purchase dearer than flat with prices held is named with the bet it
//! rests on.

use serde::Serialize;

use super::commitment_layers::{ClassLayers, CommitmentReport, StressCase, TERM_TIE_FRAC, rests_on};
use super::forecast::Policy;
use super::judgment::{JudgmentCheck, PURCHASE_BEATS_RUNNER_UP, check};
use super::workload::WorkloadClass;
use crate::shared::format::usd_compact;

/// A class's chosen purchase against the flat mix, as the board prices it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassPurchase {
    pub class: WorkloadClass,
    pub policy: Policy,
    /// The chosen purchase's expected cost over the horizon over the flat mix's, on the same
    /// forecast (1 when flat is chosen): the factor the board's last step carries.
    pub cost_over_flat: f64,
    /// Both over the horizon with prices held: (chosen, flat).
    pub prices_held_usd: (f64, f64),
    /// What the chosen purchase rests on, in words.
    pub rests_on: String,
}

impl ClassPurchase {
    fn of(class: &ClassLayers) -> Option<Self> {
        let flat = class.flat_horizon.expected_usd;
        let chosen = class.horizon.expected_usd;
        if !(flat > 0.0 && chosen.is_finite() && chosen >= 0.0) {
            return None;
        }
        // Prices held already (no stated change): the expected costs are the held ones.
        let held = class
            .price_stress
            .iter()
            .find(|s| s.case == StressCase::Held)
            .map_or((chosen, flat), |s| (s.layers_usd, s.flat_usd));
        Some(ClassPurchase {
            class: class.class,
            policy: class.recommended.buy,
            cost_over_flat: if class.recommended.buy == Policy::Flat {
                1.0
            } else {
                chosen / flat
            },
            prices_held_usd: held,
            rests_on: rests_on(class),
        })
    }

    /// The chosen purchase less flat with prices held (positive: it costs more).
    fn held_premium_usd(&self) -> f64 {
        self.prices_held_usd.0 - self.prices_held_usd.1
    }

    /// Dearer than flat with prices held beyond the tie that makes two costs the same.
    fn dearer_than_flat(&self) -> bool {
        self.held_premium_usd() > TERM_TIE_FRAC * self.prices_held_usd.1.abs()
    }
}

/// Each layered class's purchase, as the board prices it.
pub fn board_purchases(report: &CommitmentReport) -> Vec<ClassPurchase> {
    report.classes.iter().filter_map(ClassPurchase::of).collect()
}

/// The factor `class`'s flat cost takes to be its chosen purchase's (1 without one).
pub fn purchase_factor(purchases: &[ClassPurchase], class: WorkloadClass) -> f64 {
    purchases
        .iter()
        .find(|p| p.class == class)
        .map_or(1.0, |p| p.cost_over_flat)
}

/// The purchases' check: every class's chosen purchase costs no more than today's mix held
/// flat with prices held, else it is named with the bet that pays for it. None without a
/// purchase that is not flat.
pub fn purchase_check(purchases: &[ClassPurchase]) -> Option<JudgmentCheck> {
    let bought: Vec<&ClassPurchase> = purchases.iter().filter(|p| p.policy != Policy::Flat).collect();
    if bought.is_empty() {
        return None;
    }
    let dearer: Vec<String> = bought
        .iter()
        .filter(|p| p.dearer_than_flat())
        .map(|p| {
            format!(
                "{} buys {}, {} more than today's mix held flat with prices held: it pays only if the bet it rests on \
                 comes in, {}",
                p.class.label(),
                p.policy.label(),
                usd_compact(p.held_premium_usd()),
                p.rests_on
            )
        })
        .collect();
    let detail = if dearer.is_empty() {
        bought
            .iter()
            .map(|p| {
                format!(
                    "{} buys {}, {} against flat's {} with prices held",
                    p.class.label(),
                    p.policy.label(),
                    usd_compact(p.prices_held_usd.0),
                    usd_compact(p.prices_held_usd.1)
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    } else {
        dearer.join("; ")
    };
    Some(check(PURCHASE_BEATS_RUNNER_UP, dearer.is_empty(), detail))
}

/// The purchase each class is bought as: the one the Contracts pane recommends.
pub fn purchases_text(purchases: &[ClassPurchase]) -> String {
    if purchases.is_empty() {
        return "each class bought as today's mix held flat (no commitments sized)".to_string();
    }
    let each: Vec<String> = purchases
        .iter()
        .map(|p| {
            if p.policy == Policy::Flat {
                format!("{} flat", p.class.label())
            } else {
                format!(
                    "{} {} ×{:.3} of flat's cost",
                    p.class.label(),
                    p.policy.label(),
                    p.cost_over_flat
                )
            }
        })
        .collect();
    format!("each class bought as its recommended purchase: {}", each.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn purchase(policy: Policy, held: (f64, f64)) -> ClassPurchase {
        ClassPurchase {
            class: WorkloadClass::Training,
            policy,
            cost_over_flat: held.0 / held.1,
            prices_held_usd: held,
            rests_on: "prices moving -20.0 % a year".to_string(),
        }
    }

    #[test]
    fn a_purchase_dearer_than_flat_with_prices_held_names_its_bet() {
        let check = purchase_check(&[purchase(Policy::NaiveLayers, (13.41e6, 12.86e6))]).expect("a purchase");
        assert!(!check.holds);
        assert!(check.detail.contains("$550k more"), "{}", check.detail);
        assert!(
            check
                .detail
                .contains("it pays only if the bet it rests on comes in, prices moving"),
            "{}",
            check.detail
        );
        let cheaper = purchase_check(&[purchase(Policy::Layers, (12.0e6, 12.86e6))]).expect("a purchase");
        assert!(cheaper.holds, "{}", cheaper.detail);
        // $20 over $4.5M is the same cost.
        let same = purchase_check(&[purchase(Policy::NaiveLayers, (4_555_937.0, 4_555_917.0))]).expect("a purchase");
        assert!(same.holds, "{}", same.detail);
        // Flat is today's mix: nothing to check.
        assert_eq!(purchase_check(&[purchase(Policy::Flat, (1.0, 1.0))]), None);
    }

    #[test]
    fn the_factor_is_one_for_a_class_without_a_purchase() {
        let p = [purchase(Policy::Layers, (90.0, 100.0))];
        assert!((purchase_factor(&p, WorkloadClass::Training) - 0.9).abs() < 1e-12);
        assert_eq!(purchase_factor(&p, WorkloadClass::Inference), 1.0);
    }
}
