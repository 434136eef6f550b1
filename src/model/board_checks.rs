//! The waterfall's checks of its own conclusions (model::judgment) on the board's figures:
//! its steps and end states, each cluster's capacity and peak, the demand driver's forecast and
//! the assumed prices.

use super::assumed_prices::AssumedPrices;
use super::board_purchase::purchase_check;
use super::fleet_contracts::ContractsReport;
use super::judgment::{ClusterPeak, JudgmentCheck, JudgmentFacts, judgment_checks};
use super::saving_drivers::BoardInputs;
use super::saving_range::DEMAND;
use super::waterfall::{Alternative, StepKind, WaterfallStep};

/// Step 5's cost, the last before the forecast's demand, when it has a figure.
pub(super) fn cheapest_offers_usd_per_month(steps: &[WaterfallStep]) -> Option<f64> {
    steps
        .iter()
        .find(|s| s.step == StepKind::CheapestOffers)
        .and_then(|s| s.usd_per_month)
}

pub(super) fn board_checks(
    c: &ContractsReport,
    before_forecast_usd_per_month: Option<f64>,
    final_usd: f64,
    alternatives: &[Alternative],
    assumed: Option<&AssumedPrices>,
    inputs: &BoardInputs,
) -> Vec<JudgmentCheck> {
    let demand = inputs.drivers.iter().find(|d| d.driver == DEMAND);
    let peaks: Vec<ClusterPeak> = c
        .fleet
        .iter()
        .map(|k| ClusterPeak {
            name: k.name.clone(),
            capacity_gpus: k.capacity_gpus,
            peak_gpus: k.peak_concurrent_gpus,
        })
        .collect();
    let today = c.consolidated_usd_per_month;
    let mut checks = judgment_checks(&JudgmentFacts {
        today_usd_per_month: today,
        switch_usd_per_month: final_usd,
        saving_usd_per_year: (today - final_usd) * 12.0,
        stay_usd_per_month: alternatives.iter().find(|a| a.name == "stay").map(|a| a.usd_per_month),
        before_forecast_usd_per_month,
        demand_factor: demand.map_or(1.0, |d| d.spread.mode),
        demand_forecast: inputs.demand_from_forecast,
        history: inputs.demand_history.as_ref(),
        clusters: &peaks,
        assumed_share_frac: assumed.and_then(|a| a.share_of_saving_frac),
        bands_equal_days: inputs.bands_equal_days,
    });
    checks.extend(purchase_check(&inputs.purchases));
    checks
}
