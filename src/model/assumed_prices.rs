//! How much of the board's saving rests on a price nobody stated: clusters the plan does not
//! list are charged today at an assumed price (the accelerator's list price, or the fallback
//! H100 rate), and the headline (step 1 − the last step) moves one for one with that part of
//! step 1, since every later step is priced from the catalog.

use serde::Serialize;

use super::fleet_contracts::{ContractsReport, TodaySource};

/// Today's cost of the clusters priced by assumption, and its share of the saving.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssumedPrices {
    /// The clusters not in the plan (or in it at a price marked "ASSUMED") and not on a bill,
    /// in the audit's order.
    pub clusters: Vec<String>,
    /// Their cost today (part of step 1), a year.
    pub today_usd_per_year: f64,
    /// That cost over the headline saving, at most 1: the share of the saving that would go
    /// if the assumed price were the price actually paid for nothing; None without a saving.
    pub share_of_saving_frac: Option<f64>,
}

/// The part of step 1 priced by assumption, against the headline `saving_usd_per_year`; None
/// when every cluster's price is the plan's or a bill's.
pub fn assumed_prices(c: &ContractsReport, saving_usd_per_year: f64) -> Option<AssumedPrices> {
    let assumed: Vec<_> = c
        .fleet
        .iter()
        .filter(|k| k.price_assumed() && k.today_source == TodaySource::CapacityTimesPrice)
        .collect();
    if assumed.is_empty() {
        return None;
    }
    let today_usd_per_year: f64 = assumed
        .iter()
        .map(|k| k.today_by_class_usd_per_month.iter().sum::<f64>() * 12.0)
        .sum();
    Some(AssumedPrices {
        clusters: assumed.iter().map(|k| k.name.clone()).collect(),
        today_usd_per_year,
        share_of_saving_frac: (saving_usd_per_year > 0.0).then(|| (today_usd_per_year / saving_usd_per_year).min(1.0)),
    })
}

impl AssumedPrices {
    /// The board's first line: "62 % of this saving assumes today's price of …".
    pub fn lead(&self) -> String {
        let clusters = self.clusters.join(", ");
        match self.share_of_saving_frac {
            Some(share) => format!(
                "{:.0} % of this saving assumes today's price of {clusters} ({}/yr at a price no plan states): give the fleet's real price in [[clusters]]",
                share * 100.0,
                crate::shared::format::usd_compact(self.today_usd_per_year)
            ),
            None => format!(
                "today's price of {clusters} ({}/yr) is assumed: give the fleet's real price in [[clusters]]",
                crate::shared::format::usd_compact(self.today_usd_per_year)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_is_the_assumed_cost_over_the_saving_and_never_above_all_of_it() {
        let lead = |share| AssumedPrices {
            clusters: vec!["dlrm".into()],
            today_usd_per_year: 1.0e6,
            share_of_saving_frac: share,
        };
        assert!(
            lead(Some(0.62))
                .lead()
                .starts_with("62 % of this saving assumes today's price of dlrm")
        );
        assert!(
            lead(None)
                .lead()
                .starts_with("today's price of dlrm ($1.00M/yr) is assumed")
        );
    }
}
