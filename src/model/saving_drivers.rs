//! The spreads of the saving's drivers (docs/board.md, "The range and its drivers"): from the
//! forecast and the catalog where they say something, else stated assumptions, each with its
//! basis for the output to show.

use super::board_purchase::{ClassPurchase, board_purchases};
use super::board_timeline::{MovingCosts, moving_costs};
use super::catalog::Catalog;
use super::commitment_layers::{CommitmentReport, price_change};
use super::forecast::ForecastReport;
use super::judgment::{DemandHistory, bands_equal_days};
use super::monte_carlo::TriangularRange;
use super::plan::{DEFAULT_HORIZON_MONTHS, Plan};
use super::saving_range::{
    CARRY_OVER, DELIVERED_SHARE, DEMAND, Driver, OFFER_PRICES, SEPARATION, SPOT_PREEMPTION, UNSTATED_PRICES,
};
use crate::model::fleet_contracts::{ContractsReport, UnstatedModel};
use crate::shared::format::{thousands, usd};

/// Demand without a forecast: a fifth less to a quarter more than the audited window.
const DEMAND_ASSUMED: TriangularRange = TriangularRange {
    low: 0.8,
    mode: 1.0,
    high: 1.25,
};

/// Days of one week: day-to-day noise within a week moves together, so a horizon's mean
/// averages one draw of it per week.
const DAYS_PER_INDEPENDENT_DRAW: f64 = 7.0;

/// The forecast's mean demand over its horizon against the audited window's, with the interval
/// of that mean (not of any one day): each day's 80 % half-width split into the noise the first
/// week already shows, which averages out over the weeks, and the rest, the level's own
/// uncertainty, which does not (its mean over the horizon is carried whole). Summed over the
/// classes, over their history's mean.
fn demand_from_forecast(forecast: &ForecastReport) -> Option<TriangularRange> {
    let (mut low, mut mode, mut high, mut history) = (0.0, 0.0, 0.0, 0.0);
    for class in &forecast.classes {
        let days = &class.forecast.daily;
        if days.is_empty() {
            continue;
        }
        let mean = days.iter().map(|d| d.mean_gpus).sum::<f64>() / days.len() as f64;
        let below: Vec<f64> = days.iter().map(|d| (d.mean_gpus - d.lo80).max(0.0)).collect();
        let above: Vec<f64> = days.iter().map(|d| (d.hi80 - d.mean_gpus).max(0.0)).collect();
        low += (mean - half_width_of_mean(&below)).max(0.0);
        mode += mean;
        high += mean + half_width_of_mean(&above);
        history += class.forecast.history_mean_gpus;
    }
    let range = TriangularRange::new(low / history, mode / history, high / history);
    (history > 0.0 && range.is_valid() && range.low >= 0.0).then_some(range)
}

/// The half-width of the horizon's mean from the days' half-widths on one side: the first
/// week's narrowest is noise, averaged over the weeks; what each day adds above it is the
/// level's, carried whole.
pub(super) fn half_width_of_mean(half_widths: &[f64]) -> f64 {
    if half_widths.is_empty() {
        return 0.0;
    }
    let noise = half_widths.iter().take(7).copied().fold(f64::INFINITY, f64::min);
    let level = half_widths
        .iter()
        .map(|w| (w * w - noise * noise).max(0.0).sqrt())
        .sum::<f64>()
        / half_widths.len() as f64;
    let draws = (half_widths.len() as f64 / DAYS_PER_INDEPENDENT_DRAW).max(1.0);
    (level * level + noise * noise / draws).sqrt()
}

/// What the board reads from the plan and the forecast beside the matching: the saving's
/// drivers, the one-off costs of moving and the months its timeline runs.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardInputs {
    pub drivers: Vec<Driver>,
    pub moving: MovingCosts,
    /// The plan's forecast horizon, at least a year (the first year's saving is stated).
    pub horizon_months: u32,
    /// What the history showed of demand, for the board's check of the demand factor; None
    /// without a forecast.
    pub demand_history: Option<DemandHistory>,
    /// The forecast's days whose 80 % band is as wide as its 95 %, and its days.
    pub bands_equal_days: Option<(usize, usize)>,
    /// Whether the demand driver is the forecast's (else assumed).
    pub demand_from_forecast: bool,
    /// Each class's chosen purchase against the flat mix, when the commitments were sized:
    /// the board prices the purchase the Contracts pane recommends.
    pub purchases: Vec<ClassPurchase>,
}

pub fn board_inputs(
    c: &ContractsReport,
    plan: &Plan,
    catalog: &Catalog,
    forecast: Option<&ForecastReport>,
    commitments: Option<&CommitmentReport>,
) -> BoardInputs {
    let demand = forecast.and_then(demand_from_forecast);
    BoardInputs {
        purchases: commitments.map(board_purchases).unwrap_or_default(),
        drivers: saving_drivers(c, plan, catalog, forecast, demand),
        demand_from_forecast: demand.is_some(),
        moving: moving_costs(plan),
        horizon_months: plan
            .forecast
            .as_ref()
            .map_or(DEFAULT_HORIZON_MONTHS, |f| f.horizon_months)
            .max(12),
        demand_history: forecast.and_then(DemandHistory::of),
        bands_equal_days: forecast.and_then(bands_equal_days),
    }
}

/// The drivers of the matched fleet's saving and their spreads; `demand`, the forecast's
/// spread of demand when it gives one.
fn saving_drivers(
    c: &ContractsReport,
    plan: &Plan,
    catalog: &Catalog,
    forecast: Option<&ForecastReport>,
    demand: Option<TriangularRange>,
) -> Vec<Driver> {
    let demand = match demand {
        Some(spread) => Driver {
            driver: DEMAND,
            spread,
            basis: format!(
                "the forecast's mean over its {} days against the audited window's mean; low and high: the 80 % \
                 interval of that mean, the level's own uncertainty carried whole and the day-to-day noise of the \
                 first week averaged over the weeks{}",
                forecast.map_or(0, |f| f.horizon_days),
                forecast
                    .and_then(|f| f.incomplete_tail.as_ref())
                    .map_or(String::new(), |t| format!("; {}", t.said()))
            ),
        },
        None => Driver {
            driver: DEMAND,
            spread: DEMAND_ASSUMED,
            basis: "assumed (no forecast): a fifth less to a quarter more than the audited window".to_string(),
        },
    };
    let mut rates: Vec<(String, f64)> = c
        .classes
        .iter()
        .map(|class| {
            let change = price_change(plan, catalog, &class.accelerator);
            (class.accelerator.clone(), change.on_demand_per_year)
        })
        .collect();
    rates.sort_by(|a, b| a.0.cmp(&b.0));
    rates.dedup_by(|a, b| a.0 == b.0);
    let fall = rates.iter().map(|(_, r)| *r).fold(0.0, f64::min);
    let rise = rates.iter().map(|(_, r)| *r).fold(0.0, f64::max);
    let shown: Vec<String> = rates
        .iter()
        .map(|(accelerator, rate)| {
            let sign = if *rate < 0.0 { "−" } else { "+" };
            format!("{accelerator} {sign}{:.1} %", rate.abs() * 100.0)
        })
        .collect();
    let mut drivers = vec![
        demand,
        Driver {
            driver: OFFER_PRICES,
            spread: TriangularRange::new(1.0 + fall, 1.0, 1.0 + rise),
            basis: format!(
                "a year of the dated on-demand price changes of the accelerators chosen ({}), from none to all of it",
                shown.join(", ")
            ),
        },
        Driver {
            driver: CARRY_OVER,
            spread: TriangularRange::new(0.85, 1.0, 1.25),
            basis: "assumed: demand moved to another accelerator by dense BF16 peak (inference by memory bandwidth) \
                    costs 15 % less to 25 % more than measured speed-ups would say"
                .to_string(),
        },
        Driver {
            driver: SEPARATION,
            spread: TriangularRange::new(0.0, 1.0, 1.5),
            basis: "the replay's correction of the term mix, measured on one history: none of it to half again as much"
                .to_string(),
        },
        spot_preemption(plan),
        Driver {
            driver: DELIVERED_SHARE,
            spread: TriangularRange::new(1.0, 1.0, 1.05),
            basis: "assumed: a VM's GPU delivers up to 5 % less than bare metal for training and burst; for inference \
                    the hypervisor's cost is close to nil"
                .to_string(),
        },
    ];
    drivers.extend(unstated_prices(c, catalog));
    drivers
}

/// The price of the models nobody priced as one figure: at the fallback rate (the catalog
/// cannot price them, the plan does not list their cluster), really anywhere from the catalog's
/// cheapest list price to its dearest; or at the likely price of a range the plan's `[prices]`
/// gives, anywhere in it. One factor on their cost today, its low and high the cost-weighted
/// ends of each model's span. None when every model has a price stated as one figure.
fn unstated_prices(c: &ContractsReport, catalog: &Catalog) -> Option<Driver> {
    let unstated: Vec<&UnstatedModel> = c
        .fleet
        .iter()
        .filter(|k| k.unstated_usd_per_month(c.hours_per_month) > 0.0)
        .flat_map(|k| k.unstated_models.iter())
        .collect();
    let cost: f64 = unstated.iter().map(|m| m.gpus * m.usd_per_gpu_hour).sum();
    if cost <= 0.0 {
        return None;
    }
    let list: Vec<(&str, f64)> = catalog
        .accelerators
        .iter()
        .filter_map(|a| Some((a.id.as_str(), catalog.list_price(&a.id)?.usd_per_chip_hour())))
        .filter(|(_, usd)| usd.is_finite() && *usd > 0.0)
        .collect();
    let cheapest = list.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1));
    let dearest = list.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
    let (mut low, mut high) = (0.0, 0.0);
    for m in &unstated {
        let (from, to) = match (m.range, cheapest, dearest) {
            (Some(range), _, _) => range,
            (None, Some(cheapest), Some(dearest)) => (cheapest.1, dearest.1),
            (None, _, _) => (m.usd_per_gpu_hour, m.usd_per_gpu_hour),
        };
        let weight = m.gpus * m.usd_per_gpu_hour / cost;
        low += weight * (from / m.usd_per_gpu_hour).min(1.0);
        high += weight * (to / m.usd_per_gpu_hour).max(1.0);
    }
    let named = |ranged: bool| -> (f64, Vec<&str>) {
        let mut models: Vec<&str> = unstated
            .iter()
            .filter(|m| m.range.is_some() == ranged)
            .map(|m| m.model.as_str())
            .collect();
        models.sort_unstable();
        models.dedup();
        let gpus = unstated
            .iter()
            .filter(|m| m.range.is_some() == ranged)
            .map(|m| m.gpus)
            .sum();
        (gpus, models)
    };
    let mut parts = Vec::new();
    let (fallback_gpus, fallback_models) = named(false);
    if let (false, Some(cheapest), Some(dearest)) = (fallback_models.is_empty(), cheapest, dearest) {
        parts.push(format!(
            "{} GPUs no catalog or plan prices ({}), charged at the fallback rate: anywhere from the catalog's \
             cheapest list price ({} {}) to its dearest ({} {})",
            thousands(fallback_gpus),
            fallback_models.join(", "),
            cheapest.0,
            usd(cheapest.1),
            dearest.0,
            usd(dearest.1),
        ));
    }
    let (ranged_gpus, ranged_models) = named(true);
    if !ranged_models.is_empty() {
        parts.push(format!(
            "{} GPUs the plan's [prices] gives as a range ({}), charged at its likely price: anywhere in it",
            thousands(ranged_gpus),
            ranged_models.join(", "),
        ));
    }
    Some(Driver {
        driver: UNSTATED_PRICES,
        spread: TriangularRange::new(low, 1.0, high),
        basis: format!(
            "the price of {}, {}/month today; give them in [prices] or [[clusters]]",
            parts.join("; and of "),
            usd(cost * c.hours_per_month),
        ),
    })
}

/// Spot hours bought to deliver an hour of work, against the figure the matcher priced spot
/// with (the plan's [reliability] at its MTBI): low and high at twice and half that MTBI.
fn spot_preemption(plan: &Plan) -> Driver {
    let r = &plan.reliability;
    let bought = |mtbi_hours: f64| r.spot_hours_per_work_hour(mtbi_hours);
    let (Some(low), Some(priced), Some(high)) = (
        bought(r.mtbi_hours * 2.0),
        bought(r.mtbi_hours),
        bought(r.mtbi_hours / 2.0),
    ) else {
        return Driver {
            driver: SPOT_PREEMPTION,
            spread: TriangularRange::new(1.0, 1.05, 1.15),
            basis: "assumed (the plan's reliability figures give no overhead, so spot was priced without one): 5 % of \
                    spot hours redone, 15 % at most"
                .to_string(),
        };
    };
    Driver {
        driver: SPOT_PREEMPTION,
        basis: format!(
            "the plan's [reliability]: with a checkpoint every {:.0} minutes, half of it redone and a {:.1}-minute \
             restore after an interruption every {:.0} h lose {:.1} % of spot hours, priced into spot (×{:.2}); low \
             and high at twice and half that MTBI",
            r.checkpoint_interval_minutes,
            r.effective_restore_minutes(),
            r.mtbi_hours,
            (1.0 - 1.0 / priced) * 100.0,
            priced
        ),
        spread: TriangularRange::new(low / priced, 1.0, high / priced),
    }
}

#[cfg(test)]
mod tests {
    use super::half_width_of_mean;

    #[test]
    fn noise_averages_out_and_the_levels_uncertainty_does_not() {
        // A band of ±70 every day is noise alone: a year's mean is known to ±70/√52.
        let noise_only = vec![70.0; 364];
        let w = half_width_of_mean(&noise_only);
        assert!((w - 70.0 / 52f64.sqrt()).abs() < 1e-9, "{w}");
        // A band widening from 70 to ±130 carries the level's √(130² − 70²) ≈ 110 whole.
        let widening: Vec<f64> = (0..364).map(|d| if d < 7 { 70.0 } else { 130.0 }).collect();
        let w = half_width_of_mean(&widening);
        assert!(w > 100.0 && w < 130.0, "{w}");
        // Never wider than the days' own band.
        assert!(half_width_of_mean(&[5.0]) <= 5.0 + 1e-12);
        assert_eq!(half_width_of_mean(&[]), 0.0);
    }
}
