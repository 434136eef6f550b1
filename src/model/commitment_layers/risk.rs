//! What each layer of today's decision locks in: its committed dollars over its term, the
//! GPU-hours it is expected to leave idle, how likely it is to sit more than half idle, and
//! what it costs if demand follows the forecast's P10 or P90 path.

use serde::Serialize;

use super::ladder::{Ladder, TierMenu, TierOffer};
use super::paths::{DemandPaths, MonthDemand, P10, P90};
use crate::model::contracts::TermKind;
use crate::model::deployment::Deployment;

/// Bisection steps for the level at which a layer is half used.
const HALF_IDLE_STEPS: usize = 30;

/// A layer's cost and idle dollars on one demand path.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PathCost {
    pub cost_usd: f64,
    /// Committed dollars left idle on the path (zero billed by use).
    pub idle_usd: f64,
}

/// One layer of the decision made today.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layer {
    pub term: TermKind,
    pub offer_id: String,
    pub deployment: Deployment,
    /// Effective price per delivered GPU-hour today.
    pub usd_per_gpu_hour: f64,
    /// Months the layer's figures cover: its term, or the first year for the term billed by use.
    pub months: usize,
    /// The band of demand the layer covers, in GPUs of the class's accelerator; billed by use,
    /// up to the P90 path's busiest hour.
    pub from_gpus: f64,
    pub to_gpus: f64,
    pub gpus: f64,
    /// Paid whatever happens, over its term; none billed by use.
    pub committed_usd: Option<f64>,
    pub expected_usd: f64,
    pub expected_used_gpu_hours: f64,
    pub expected_idle_gpu_hours: f64,
    /// The probability that it is used less than half its paid hours (demand paths move
    /// together, so this is the level of the path that leaves it exactly half idle).
    pub over_half_idle_probability: f64,
    pub p10_path: PathCost,
    pub p90_path: PathCost,
    /// The layer's size at each later period the horizon holds, as planned today.
    pub renewal_gpus: Vec<f64>,
}

/// Today's layers: each committed tier's first period, then the term billed by use over the
/// first `by_use_months` months.
pub fn todays_layers(
    menu: &TierMenu,
    ladder: &Ladder,
    paths: &DemandPaths,
    months: &[MonthDemand],
    by_use_months: usize,
) -> Vec<Layer> {
    let mut layers: Vec<Layer> = (0..menu.committed.len())
        .filter_map(|tier| committed_layer(menu, ladder, paths, months, tier))
        .collect();
    layers.push(by_use_layer(
        menu,
        ladder,
        paths,
        months,
        by_use_months.min(months.len()),
    ));
    layers
}

fn committed_layer(
    menu: &TierMenu,
    ladder: &Ladder,
    paths: &DemandPaths,
    months: &[MonthDemand],
    tier: usize,
) -> Option<Layer> {
    let periods = menu.periods(tier, months.len());
    // Today's contracts run their whole term, also where the longest term adds more later.
    let term = menu.committed[tier].term_months.max(1);
    let first = 0..term.min(months.len());
    if first.is_empty() {
        return None;
    }
    let (bottom, top) = (ladder.bottom_at(menu, tier, 0), ladder.top_at(menu, tier, 0));
    let band = (top - bottom).max(0.0);
    let hours: f64 = months[first.clone()].iter().map(|m| m.hours).sum();
    let price = menu.committed_price(tier, 0);
    let paid_gpu_hours = band * hours;
    let expected_used: f64 = months[first.clone()]
        .iter()
        .map(|m| m.excess_gpu_hours(bottom) - m.excess_gpu_hours(top))
        .sum();
    let points = paths.month_points(first.start).start..paths.month_points(first.end - 1).end;
    let used_on = |u: f64| -> f64 {
        points
            .clone()
            .map(|t| (paths.at(t, u) - bottom).clamp(0.0, band))
            .sum::<f64>()
            * paths.hours_per_point
    };
    let on_path = |u: f64| PathCost {
        cost_usd: paid_gpu_hours * price,
        idle_usd: (paid_gpu_hours - used_on(u)).max(0.0) * price,
    };
    let over_half_idle_probability = if band <= 0.0 {
        0.0
    } else {
        // Used GPU-hours rise with the path's level: the level where they reach half.
        let half = 0.5 * paid_gpu_hours;
        if used_on(0.0) >= half {
            0.0
        } else if used_on(1.0) < half {
            1.0
        } else {
            let (mut lo, mut hi) = (0.0, 1.0);
            for _ in 0..HALF_IDLE_STEPS {
                let mid = 0.5 * (lo + hi);
                if used_on(mid) < half {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            0.5 * (lo + hi)
        }
    };
    let offer = &menu.committed[tier];
    Some(Layer {
        months: first.len(),
        from_gpus: bottom,
        to_gpus: top,
        gpus: band,
        committed_usd: Some(paid_gpu_hours * price),
        expected_usd: paid_gpu_hours * price,
        expected_used_gpu_hours: expected_used.clamp(0.0, paid_gpu_hours),
        expected_idle_gpu_hours: (paid_gpu_hours - expected_used).max(0.0),
        over_half_idle_probability,
        p10_path: on_path(P10),
        p90_path: on_path(P90),
        renewal_gpus: (1..periods.len())
            .map(|p| {
                let start = periods[p].start;
                if tier == 0 && menu.adds_later() {
                    // The GPUs added at this step.
                    (ladder.top_at(menu, 0, start) - ladder.top_at(menu, 0, start - 1)).max(0.0)
                } else {
                    (ladder.top_at(menu, tier, start) - ladder.bottom_at(menu, tier, start)).max(0.0)
                }
            })
            .collect(),
        ..layer_of(offer)
    })
}

fn by_use_layer(menu: &TierMenu, ladder: &Ladder, paths: &DemandPaths, months: &[MonthDemand], count: usize) -> Layer {
    let mut expected_gpu_hours = 0.0;
    let mut expected_usd = 0.0;
    for (month, demand) in months.iter().enumerate().take(count) {
        let gpu_hours = demand.excess_gpu_hours(ladder.committed_top(menu, month));
        expected_gpu_hours += gpu_hours;
        expected_usd += gpu_hours * menu.by_use_price(month);
    }
    let on_path = |u: f64| -> (f64, f64) {
        let (mut cost, mut busiest) = (0.0, 0.0_f64);
        for month in 0..count {
            let top = ladder.committed_top(menu, month);
            let price = menu.by_use_price(month);
            for t in paths.month_points(month) {
                let above = (paths.at(t, u) - top).max(0.0);
                cost += above * paths.hours_per_point * price;
                busiest = busiest.max(above);
            }
        }
        (cost, busiest)
    };
    let (p10_usd, _) = on_path(P10);
    let (p90_usd, p90_busiest) = on_path(P90);
    let from = ladder.committed_top(menu, 0);
    Layer {
        months: count,
        from_gpus: from,
        to_gpus: from + p90_busiest,
        gpus: p90_busiest,
        committed_usd: None,
        expected_usd,
        expected_used_gpu_hours: expected_gpu_hours,
        expected_idle_gpu_hours: 0.0,
        over_half_idle_probability: 0.0,
        p10_path: PathCost {
            cost_usd: p10_usd,
            idle_usd: 0.0,
        },
        p90_path: PathCost {
            cost_usd: p90_usd,
            idle_usd: 0.0,
        },
        renewal_gpus: Vec::new(),
        ..layer_of(&menu.by_use)
    }
}

fn layer_of(offer: &TierOffer) -> Layer {
    Layer {
        term: offer.term,
        offer_id: offer.offer_id.clone(),
        deployment: offer.deployment,
        usd_per_gpu_hour: offer.usd_per_gpu_hour,
        months: 0,
        from_gpus: 0.0,
        to_gpus: 0.0,
        gpus: 0.0,
        committed_usd: None,
        expected_usd: 0.0,
        expected_used_gpu_hours: 0.0,
        expected_idle_gpu_hours: 0.0,
        over_half_idle_probability: 0.0,
        p10_path: PathCost {
            cost_usd: 0.0,
            idle_usd: 0.0,
        },
        p90_path: PathCost {
            cost_usd: 0.0,
            idle_usd: 0.0,
        },
        renewal_gpus: Vec::new(),
    }
}
