use proptest::prelude::*;

use super::*;
use crate::model::contracts::TermKind;
use crate::model::deployment::Deployment;
use crate::model::forecast::FanPoint;

fn offer(term: TermKind, usd: f64, months: usize) -> TierOffer {
    TierOffer {
        term,
        offer_id: format!("{}-offer", term.label()),
        deployment: Deployment::BareMetal,
        usd_per_gpu_hour: usd,
        term_months: months,
        lead_time_hours: Some(0.0),
        max_gpus: None,
    }
}

fn menu(committed: Vec<TierOffer>, on_demand: f64, change: f64) -> TierMenu {
    TierMenu {
        committed,
        by_use: offer(TermKind::OnDemand, on_demand, 0),
        by_use_change_per_year: change,
        renewal_change_per_year: change,
        hours_per_month: 730.0,
    }
}

/// Months of known demand, `hours_per_point` hours a value.
fn known_months(months: &[Vec<f64>], hours_per_point: f64) -> Vec<MonthDemand> {
    months
        .iter()
        .map(|values| MonthDemand::new(values.len() as f64 * hours_per_point, values.clone()))
        .collect()
}

#[test]
fn one_layer_against_on_demand_is_the_critical_fractile() {
    // 100 hours, demand 1..=100 GPUs once each; c/p = 0.305: commit where demand passes the
    // level in at least 30.5 % of the hours (31 hours pass 69.x GPUs, 30 pass 70): 70 GPUs.
    let values: Vec<f64> = (1..=100).map(f64::from).collect();
    let months = known_months(&[values], 1.0);
    let menu = menu(vec![offer(TermKind::OneYear, 3.05, 1)], 10.0, 0.0);
    let ladder = size_ladder(&menu, &months);
    assert!((ladder.tops[0][0] - 70.0).abs() < 1e-6, "{:?}", ladder.tops);
}

#[test]
fn a_layer_is_never_wider_than_its_seller_supplies() {
    // The same demand and price as the critical fractile (70 GPUs), from a seller of 40 at most;
    // a longer term of 25 at most below it leaves the 1-year layer 25..65.
    let values: Vec<f64> = (1..=100).map(f64::from).collect();
    let months = known_months(&[values], 1.0);
    let capped = |term, usd, max| TierOffer {
        max_gpus: Some(max),
        ..offer(term, usd, 1)
    };
    let ladder = size_ladder(&menu(vec![capped(TermKind::OneYear, 3.05, 40.0)], 10.0, 0.0), &months);
    assert!((ladder.tops[0][0] - 40.0).abs() < 1e-6, "{:?}", ladder.tops);
    let two = menu(
        vec![
            capped(TermKind::BuildToOrder, 2.0, 25.0),
            capped(TermKind::OneYear, 3.05, 40.0),
        ],
        10.0,
        0.0,
    );
    let ladder = size_ladder(&two, &months);
    assert!((ladder.tops[0][0] - 25.0).abs() < 1e-6, "{:?}", ladder.tops);
    assert!((ladder.tops[1][0] - 65.0).abs() < 1e-6, "{:?}", ladder.tops);
}

#[test]
fn no_demand_buys_nothing_and_costs_nothing() {
    let months = known_months(&[vec![0.0; 24], vec![0.0; 24]], 1.0);
    let menu = menu(
        vec![offer(TermKind::OneYear, 3.0, 2), offer(TermKind::Monthly, 4.0, 1)],
        10.0,
        0.0,
    );
    let ladder = size_ladder(&menu, &months);
    assert!(ladder.tops.iter().flatten().all(|&t| t == 0.0));
    assert_eq!(ladder_cost(&menu, &ladder, &months, 0..2).total_usd(), 0.0);
}

#[test]
fn falling_on_demand_prices_shrink_a_long_commitment() {
    // Flat demand at 10 GPUs for three years: at steady prices the 3-year term takes it all;
    // with on-demand prices halving a year it is cheaper to wait.
    let months: Vec<Vec<f64>> = (0..36).map(|_| vec![10.0; 30]).collect();
    let demand = known_months(&months, 730.0 / 30.0);
    let steady = menu(vec![offer(TermKind::BuildToOrder, 6.0, 36)], 10.0, 0.0);
    let falling = menu(vec![offer(TermKind::BuildToOrder, 6.0, 36)], 10.0, -0.5);
    assert!((size_ladder(&steady, &demand).tops[0][0] - 10.0).abs() < 1e-6);
    assert_eq!(size_ladder(&falling, &demand).tops[0][0], 0.0);
}

#[test]
fn a_growing_forecast_layers_monthly_blocks_over_a_long_base() {
    // Demand doubles over a year: the long base holds what the first months need, the
    // monthly blocks follow the growth.
    let months: Vec<Vec<f64>> = (0..12).map(|m| vec![10.0 + 10.0 * m as f64 / 11.0; 30]).collect();
    let demand = known_months(&months, 730.0 / 30.0);
    let menu = menu(
        vec![offer(TermKind::OneYear, 5.0, 12), offer(TermKind::Monthly, 7.0, 1)],
        10.0,
        0.0,
    );
    let ladder = size_ladder(&menu, &demand);
    let base = ladder.tops[0][0];
    assert!(base > 10.0 - 1e-6 && base < 20.0, "base {base}");
    assert!((ladder.tops[1][11] - 20.0).abs() < 1e-6, "{:?}", ladder.tops[1]);
    assert!(ladder.tops[1].windows(2).all(|w| w[1] >= w[0] - 1e-9));
}

/// Every ladder of whole-GPU levels up to `max`: the tops of each tier per period, each at
/// least the longer tier's.
fn brute_force_cost(menu: &TierMenu, months: &[MonthDemand], max: usize) -> f64 {
    fn search(
        menu: &TierMenu,
        months: &[MonthDemand],
        max: usize,
        tier: usize,
        period: usize,
        tops: &mut Vec<Vec<f64>>,
        best: &mut f64,
    ) {
        if tier == menu.committed.len() {
            let ladder = Ladder { tops: tops.clone() };
            *best = best.min(ladder_cost(menu, &ladder, months, 0..months.len()).total_usd());
            return;
        }
        let periods = menu.periods(tier, months.len());
        if period == periods.len() {
            return search(menu, months, max, tier + 1, 0, tops, best);
        }
        let floor = if tier == 0 {
            0
        } else {
            let longer = menu.committed[tier - 1].term_months;
            tops[tier - 1][periods[period].start / longer] as usize
        };
        for level in floor..=max {
            tops[tier].push(level as f64);
            search(menu, months, max, tier, period + 1, tops, best);
            tops[tier].pop();
        }
    }
    let mut best = f64::INFINITY;
    let mut tops = vec![Vec::new(); menu.committed.len()];
    search(menu, months, max, 0, 0, &mut tops, &mut best);
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The sizing's ladder costs what the cheapest of every whole-GPU ladder costs: four
    /// months, a 4-month, a 2-month and a 1-month term, then on-demand, prices in any order.
    #[test]
    fn the_sizing_matches_a_brute_force_search(
        months in prop::collection::vec(prop::collection::vec(0u8..=4, 1..6), 4),
        long in 1.0f64..10.0,
        middle in 1.0f64..10.0,
        short in 1.0f64..10.0,
        on_demand in 1.0f64..12.0,
        change in -0.5f64..0.5,
    ) {
        let values: Vec<Vec<f64>> = months.iter().map(|m| m.iter().map(|&v| f64::from(v)).collect()).collect();
        let demand = known_months(&values, 1.0);
        let menu = TierMenu {
            hours_per_month: 2190.0, // a "year" of four months, so prices move within the search
            ..menu(
                vec![
                    offer(TermKind::BuildToOrder, long, 4),
                    offer(TermKind::OneYear, middle, 2),
                    offer(TermKind::Monthly, short, 1),
                ],
                on_demand,
                change,
            )
        };
        let ladder = size_ladder(&menu, &demand);
        let sized = ladder_cost(&menu, &ladder, &demand, 0..4).total_usd();
        let best = brute_force_cost(&menu, &demand, 4);
        prop_assert!(sized <= best + 1e-6 * best.max(1.0), "sized {sized} > brute force {best}: {:?}", ladder.tops);
    }
}

fn fan(mean: f64, spread: f64) -> FanPoint {
    FanPoint {
        mean,
        lo80: mean - spread,
        hi80: mean + spread,
        lo95: mean - 1.5 * spread,
        hi95: mean + 1.5 * spread,
    }
}

#[test]
fn a_quantile_reads_the_fan_between_its_knots_and_never_below_zero() {
    let point = fan(10.0, 4.0);
    assert!((quantile(&point, 0.5) - 10.0).abs() < 1e-12);
    assert!((quantile(&point, 0.9) - 14.0).abs() < 1e-12);
    assert!((quantile(&point, 0.1) - 6.0).abs() < 1e-12);
    assert!((quantile(&point, 0.3) - 8.0).abs() < 1e-12);
    assert!(quantile(&fan(1.0, 4.0), 0.0) == 0.0);
    assert!(quantile(&point, 1.0) > point.hi95);
}

#[test]
fn a_layer_above_most_of_the_demand_is_likely_to_sit_half_idle() {
    // Demand around 100 GPUs with a wide fan, a year of points: a base bought to 40 GPUs is
    // never idle; a layer from 40 to 140 is half idle on the paths under 90 GPUs.
    let paths = DemandPaths {
        points: vec![fan(100.0, 30.0); 12 * 30],
        hours_per_point: 730.0 / 30.0,
        points_per_month: 30,
    };
    let months = paths.month_demands();
    let menu = menu(
        vec![offer(TermKind::OneYear, 3.0, 12), offer(TermKind::Monthly, 4.0, 1)],
        10.0,
        0.0,
    );
    let ladder = Ladder {
        tops: vec![vec![40.0], vec![140.0; 12]],
    };
    let layers = risk::todays_layers(&menu, &ladder, &paths, &months, FIRST_YEAR_MONTHS);
    let base = &layers[0];
    assert_eq!(base.term, TermKind::OneYear);
    assert!(base.expected_idle_gpu_hours < 1e-6 && base.over_half_idle_probability == 0.0);
    assert_eq!(base.committed_usd, Some(40.0 * 12.0 * 730.0 * 3.0));
    let top = &layers[1];
    assert!((top.gpus - 100.0).abs() < 1e-9);
    // Half used at 90 GPUs, which the fan puts at the level 0.1 + 0.4 × 20/30.
    let level = 0.1 + 0.4 * 20.0 / 30.0;
    assert!((top.over_half_idle_probability - level).abs() < 1e-6, "{top:?}");
    assert!(top.p10_path.idle_usd > top.p90_path.idle_usd);
    let by_use = &layers[2];
    assert_eq!(by_use.term, TermKind::OnDemand);
    assert!(
        by_use.committed_usd.is_none() && by_use.p90_path.cost_usd == 0.0,
        "the P90 path stays under 140"
    );
    // Committed to 110 only: the P90 path's 130 GPUs leave 20 to on-demand every hour.
    let lower = Ladder {
        tops: vec![vec![40.0], vec![110.0; 12]],
    };
    let by_use = risk::todays_layers(&menu, &lower, &paths, &months, FIRST_YEAR_MONTHS).remove(2);
    assert!((by_use.gpus - 20.0).abs() < 1e-9 && by_use.p10_path.cost_usd == 0.0);
    assert!((by_use.p90_path.cost_usd - 20.0 * 12.0 * 730.0 * 10.0).abs() < 1e-3);
}

#[test]
fn hindsight_is_never_dearer_than_the_forecasts_choice_or_flat() {
    let menu = menu(
        vec![offer(TermKind::OneYear, 4.0, 12), offer(TermKind::Monthly, 6.0, 1)],
        10.0,
        0.0,
    );
    // The forecast expects 50 GPUs; 80 came.
    let forecast = DemandPaths {
        points: vec![fan(50.0, 5.0); 12 * 30],
        hours_per_point: 730.0 / 30.0,
        points_per_month: 30,
    };
    let actual = vec![80.0; 30];
    let flat_menu = menu.clone();
    let flat = (
        flat_menu,
        Ladder {
            tops: vec![vec![30.0], vec![30.0]],
        },
    );
    let score = score_commitments("h100-sxm", &menu, &forecast, &actual, &flat);
    assert!(score.hindsight_cost_usd <= score.chosen_cost_usd + 1e-6);
    assert!(score.hindsight_cost_usd <= score.flat_cost_usd + 1e-6);
    assert!(score.regret_frac >= 0.0 && score.flat_regret_frac > score.regret_frac);
    // Hindsight commits all 80 on the cheapest term for the held-out month.
    assert!((score.hindsight_cost_usd - 80.0 * 730.0 * 4.0).abs() < 1e-6);
}
