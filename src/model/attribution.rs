//! The board's saving split over its causes independently of their order (docs/board.md,
//! "Causes, credited independently of order"). The waterfall applies its causes one after the
//! other, so the credit a step gets depends on where it stands: paying for demand by the hour
//! (term mix) gives the same figure with or without right-sizing first, and the price step
//! shrinks when it comes last. Here every cause's credit is its Shapley value: its mean
//! marginal saving over every order of the five causes.
//!
//! The fleet's cost with any set of causes applied, class by class:
//! - right-sizing alone: the class's share of each cluster cut to its p95;
//! - elasticity and terms: the class's hourly demand on its best mix of terms at today's prices
//!   (right-sizing then adds nothing: the demand is paid for, not the capacity);
//! - separation: the replay's split pool over the term mix (a correction of the term mix: with
//!   no term mix there are no pools to separate into, so alone it changes nothing);
//! - price: the catalog's cheapest offers over today's prices for the same mix, as a factor on
//!   whatever the class costs by then (today's capacity priced as the cheapest offers when
//!   nothing else is applied).
//!
//! - demand: the forecast's demand over the audited window's (the saving's drivers at their
//!   point values), as a factor on whatever the class costs by then.
//!
//! With all five applied it is the waterfall's last step; with none, today as paid; so the
//! credits sum to the waterfall's saving.

use serde::Serialize;

/// A cause of the saving.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    RightSizing,
    ElasticityAndTerms,
    Separation,
    Price,
    Demand,
}

impl Cause {
    pub const ALL: [Cause; 5] = [
        Cause::RightSizing,
        Cause::ElasticityAndTerms,
        Cause::Separation,
        Cause::Price,
        Cause::Demand,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Cause::RightSizing => "right-sizing",
            Cause::ElasticityAndTerms => "elasticity and terms",
            Cause::Separation => "separation",
            Cause::Price => "price",
            Cause::Demand => "forecast demand",
        }
    }

    /// A word for a narrow pane.
    pub fn short(self) -> &'static str {
        match self {
            Cause::RightSizing => "sizing",
            Cause::ElasticityAndTerms => "terms",
            Cause::Separation => "separation",
            Cause::Price => "price",
            Cause::Demand => "demand",
        }
    }

    fn bit(self) -> usize {
        1 << (self as usize)
    }
}

/// One class's costs under each cause, per month.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassCauses {
    /// Its share of today's cost.
    pub today_usd: f64,
    /// Its share of the right-sized cost.
    pub right_sized_usd: f64,
    /// Its demand on its best term mix at today's prices; None when no offer matched it (then
    /// no cause but right-sizing applies to it).
    pub term_mix_usd: Option<f64>,
    /// The split pool's cost over the term mix (1 without a replay).
    pub separation_factor: f64,
    /// The cheapest offers' cost over today's prices for the same mix (1 without a match).
    pub price_factor: f64,
    /// The switched cost at the saving's drivers' point values over the same without them:
    /// the forecast's demand over the audited window's (1 without a forecast or a match).
    pub demand_factor: f64,
}

/// A cause's credit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attribution {
    pub cause: Cause,
    pub usd_per_year: f64,
}

/// The fleet's monthly cost with the causes in `applied` (a bit per `Cause`).
pub fn cost_with(classes: &[ClassCauses], applied: usize) -> f64 {
    let has = |cause: Cause| applied & cause.bit() != 0;
    classes
        .iter()
        .map(|class| {
            let Some(term_mix) = class.term_mix_usd else {
                return if has(Cause::RightSizing) {
                    class.right_sized_usd
                } else {
                    class.today_usd
                };
            };
            let base = if has(Cause::ElasticityAndTerms) {
                let separated = if has(Cause::Separation) {
                    class.separation_factor
                } else {
                    1.0
                };
                term_mix * separated
            } else if has(Cause::RightSizing) {
                class.right_sized_usd
            } else {
                class.today_usd
            };
            base * if has(Cause::Price) { class.price_factor } else { 1.0 }
                * if has(Cause::Demand) { class.demand_factor } else { 1.0 }
        })
        .sum()
}

/// Each cause's Shapley value of the saving (today less the cost with every cause), a year.
pub fn attribute(classes: &[ClassCauses]) -> Vec<Attribution> {
    let n = Cause::ALL.len();
    let factorial = |k: usize| (1..=k).product::<usize>() as f64;
    let orders = factorial(n);
    Cause::ALL
        .iter()
        .map(|&cause| {
            let mut credit = 0.0;
            for before in 0..(1usize << n) {
                if before & cause.bit() != 0 {
                    continue;
                }
                let size = before.count_ones() as usize;
                let weight = factorial(size) * factorial(n - size - 1) / orders;
                credit += weight * (cost_with(classes, before) - cost_with(classes, before | cause.bit()));
            }
            Attribution {
                cause,
                usd_per_year: credit * 12.0,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(today: f64, right: f64, mix: f64, separation: f64, price: f64) -> ClassCauses {
        ClassCauses {
            today_usd: today,
            right_sized_usd: right,
            term_mix_usd: Some(mix),
            separation_factor: separation,
            price_factor: price,
            demand_factor: 1.0,
        }
    }

    #[test]
    fn the_credits_sum_to_the_saving_and_mirror_the_waterfall_at_its_ends() {
        let classes = [class(100.0, 80.0, 50.0, 1.1, 0.5), class(60.0, 40.0, 45.0, 0.9, 0.8)];
        let all = Cause::ALL.iter().fold(0, |m, c| m | c.bit());
        assert_eq!(cost_with(&classes, 0), 160.0);
        assert!((cost_with(&classes, all) - (50.0 * 1.1 * 0.5 + 45.0 * 0.9 * 0.8)).abs() < 1e-9);
        let credits = attribute(&classes);
        let sum: f64 = credits.iter().map(|a| a.usd_per_year).sum();
        assert!((sum - (cost_with(&classes, 0) - cost_with(&classes, all)) * 12.0).abs() < 1e-9);
    }

    #[test]
    fn a_cause_that_changes_nothing_gets_nothing_and_order_does_not_matter() {
        // No separation effect, no price effect: everything is right-sizing and terms, and
        // since the term mix makes right-sizing moot, the two share the overlap equally.
        let classes = [class(100.0, 80.0, 50.0, 1.0, 1.0)];
        let credits = attribute(&classes);
        let of = |cause: Cause| credits.iter().find(|a| a.cause == cause).map(|a| a.usd_per_year / 12.0);
        assert_eq!(of(Cause::Separation), Some(0.0));
        assert_eq!(of(Cause::Price), Some(0.0));
        // Right-sizing: 20 alone, 0 after terms: 10. Terms: 50 alone, 30 after right-sizing: 40.
        assert!((of(Cause::RightSizing).unwrap_or(0.0) - 10.0).abs() < 1e-9);
        assert!((of(Cause::ElasticityAndTerms).unwrap_or(0.0) - 40.0).abs() < 1e-9);
    }

    #[test]
    fn an_unmatched_class_is_only_right_sized() {
        let unmatched = ClassCauses {
            today_usd: 30.0,
            right_sized_usd: 20.0,
            term_mix_usd: None,
            separation_factor: 1.0,
            price_factor: 1.0,
            demand_factor: 1.3,
        };
        let credits = attribute(&[unmatched]);
        assert!((credits[0].usd_per_year - 120.0).abs() < 1e-9);
        assert!(credits[1..].iter().all(|a| a.usd_per_year == 0.0));
    }

    #[test]
    fn demand_scales_the_switched_cost_and_takes_its_share_of_the_saving() {
        let mut grown = class(100.0, 80.0, 50.0, 1.0, 0.5);
        grown.demand_factor = 2.0;
        let all = Cause::ALL.iter().fold(0, |m, c| m | c.bit());
        // Every cause applied: the term mix at the cheapest prices, bought for twice the demand.
        assert!((cost_with(&[grown], all) - 50.0 * 0.5 * 2.0).abs() < 1e-9);
        let credits = attribute(&[grown]);
        let of = |cause: Cause| {
            credits
                .iter()
                .find(|a| a.cause == cause)
                .map_or(0.0, |a| a.usd_per_year)
        };
        assert!(of(Cause::Demand) < 0.0, "growth costs: {credits:?}");
        let sum: f64 = credits.iter().map(|a| a.usd_per_year).sum();
        assert!((sum - (100.0 - 50.0) * 12.0).abs() < 1e-9);
    }
}
