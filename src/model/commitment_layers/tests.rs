use proptest::prelude::*;

use super::*;
use crate::model::contracts::TermKind;
use crate::model::deployment::Deployment;
use crate::model::forecast::FanPoint;
use crate::model::price_trend::PriceBet;

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
        by_use_bet: PriceBet::certain(change),
        renewal_bet: PriceBet::certain(change),
        hours_per_month: 730.0,
    }
}

/// `months` months of steady demand at `gpus`, thirty points a month.
fn steady(gpus: f64, months: usize) -> Vec<MonthDemand> {
    let values: Vec<Vec<f64>> = (0..months).map(|_| vec![gpus; 30]).collect();
    known_months(&values, 730.0 / 30.0)
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
    let demand = steady(10.0, 36);
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
            let ladder = Ladder { tops: tops.clone() };
            ladder.top_at(menu, tier - 1, periods[period].start) as usize
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
        -0.3,
    );
    // The forecast expects 50 GPUs; 80 came. Seasonal naive repeats 80.
    let forecast = DemandPaths {
        points: vec![fan(50.0, 5.0); 12 * 30],
        hours_per_point: 730.0 / 30.0,
        points_per_month: 30,
    };
    let naive = DemandPaths::known(&[80.0; 12 * 30], 730.0 / 30.0, 30);
    let actual = vec![80.0; 30];
    let flat = (
        menu.clone(),
        Ladder {
            tops: vec![vec![30.0], vec![30.0]],
        },
    );
    let inputs = OriginInputs {
        menu: &menu,
        forecast: &forecast,
        naive: &naive,
        actual: &actual,
        flat: &flat,
        dated_change_per_year: None,
    };
    let origin = score_origin("2025-01-01T00:00:00Z".into(), &inputs, |_| None);
    assert!(origin.hindsight_usd <= origin.layers_usd + 1e-6);
    assert!(origin.hindsight_usd <= origin.flat_usd + 1e-6);
    assert!(origin.layers_regret_frac >= 0.0 && origin.flat_regret_frac > origin.layers_regret_frac);
    assert!(
        origin.naive_layers_regret_frac.abs() < 1e-9,
        "naive saw the 80 GPUs coming"
    );
    // Hindsight commits all 80 on the cheapest term for the held-out month, prices held.
    assert!((origin.hindsight_usd - 80.0 * 730.0 * 4.0).abs() < 1e-6);
    assert_eq!(origin.hindsight_gpus[0].gpus, 80.0);
    // The 1-year layer is charged for one month and owes eleven more.
    let one_year = origin.layers_gpus[0].gpus;
    assert!((origin.layers_committed_after_usd - one_year * 4.0 * 11.0 * 730.0).abs() < 1e-3);
    assert_eq!(origin.price_bet_regret_frac, None);
    assert_eq!(origin.renewals, 0, "one held-out month: nothing renews inside it");
}

#[test]
fn the_monthly_layer_re_decided_at_its_renewal_follows_the_demand_seen() {
    // The forecast expects 50 GPUs; 80 came for two months. Re-sized at the second month on a
    // refit that saw the first, the monthly layer covers 80 and costs less than open loop.
    let menu = menu(vec![offer(TermKind::Monthly, 6.0, 1)], 10.0, 0.0);
    let forecast = DemandPaths {
        points: vec![fan(50.0, 1.0); 12 * 30],
        hours_per_point: 730.0 / 30.0,
        points_per_month: 30,
    };
    let actual = vec![80.0; 60];
    let flat = (menu.clone(), Ladder { tops: vec![vec![50.0]] });
    let inputs = OriginInputs {
        menu: &menu,
        forecast: &forecast,
        naive: &forecast,
        actual: &actual,
        flat: &flat,
        dated_change_per_year: Some(-0.5),
    };
    let refit = |month: usize| {
        assert_eq!(month, 1);
        Some(DemandPaths::known(&[80.0; 12 * 30], 730.0 / 30.0, 30))
    };
    let origin = score_origin("2025-01-01T00:00:00Z".into(), &inputs, refit);
    assert_eq!(origin.renewals, 1);
    assert!(origin.redecided_usd < origin.layers_usd - 1.0, "{origin:?}");
    assert!(origin.redecided_regret_frac < origin.layers_regret_frac);
    // Prices held in the menu: the bet and held sizings agree, so the bet costs nothing.
    assert_eq!(origin.price_bet_regret_frac, Some(0.0));
}

/// A ladder holding each tier's top at one level every period: `levels[t]` the cumulative top
/// of tier `t` (never under the longer tier's).
fn held_ladder(levels: &[f64]) -> Ladder {
    let mut top = 0.0_f64;
    Ladder {
        tops: levels
            .iter()
            .map(|&level| {
                top = top.max(level);
                vec![top]
            })
            .collect(),
    }
}

/// Demand paths of `months` months, four points a month, each point's fan from its mean and
/// spread.
fn random_paths(points: &[(f64, f64)]) -> DemandPaths {
    DemandPaths {
        points: points.iter().map(|&(mean, spread)| fan(mean, spread)).collect(),
        hours_per_point: 365.0,
        points_per_month: 4,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Over the horizon they were sized for, the layers never cost more than today's matcher's
    /// mix (a base on one term, a burst on a shorter one, held flat) nor than any single term
    /// held at any level, priced on the same forecast and the same price bet. The menu holds
    /// every term, seller and cap those use: flat and the single terms are layerings too.
    #[test]
    fn the_layers_horizon_beats_flat_and_every_single_term(
        points in prop::collection::vec((0.0f64..40.0, 0.0f64..12.0), 24),
        prices in prop::collection::vec(1.0f64..10.0, 3),
        caps in prop::collection::vec(prop::option::of(2.0f64..30.0), 3),
        on_demand in 2.0f64..12.0,
        change in -0.6f64..0.6,
        spread in 0.0f64..0.3,
        flat_tiers in (0usize..3, 0usize..3),
        flat_levels in (0.0f64..40.0, 0.0f64..20.0),
    ) {
        let paths = random_paths(&points);
        let months = paths.month_demands();
        let terms = [(TermKind::BuildToOrder, 6), (TermKind::OneYear, 3), (TermKind::Monthly, 1)];
        let committed: Vec<TierOffer> = terms
            .iter()
            .zip(prices.iter().zip(&caps))
            .map(|(&(term, months), (&usd, &cap))| TierOffer {
                max_gpus: cap,
                ..offer(term, usd, months)
            })
            .collect();
        let bet = PriceBet { change_per_year: change, spread_per_year: spread };
        let menu = TierMenu {
            hours_per_month: 1460.0, // a "year" of six months: renewals and by-use prices move
            ..menu(committed, on_demand, 0.0)
        }
        .with_bet(bet);
        let on_paths = PathMonths::of(&paths);
        let ladder = size_ladder(&menu, &months);
        let layered = horizon_cost(&menu, &ladder, &months, &on_paths).expected_usd;
        let cost_of = |ladder: &Ladder| horizon_cost(&menu, ladder, &months, &on_paths).expected_usd;
        let within = |other: f64| layered <= other + 1e-6 * other.max(1.0);
        // Flat: a base on one tier, a burst on a shorter (or the same) one, within their caps.
        let (base_tier, burst_tier) = (flat_tiers.0.min(flat_tiers.1), flat_tiers.0.max(flat_tiers.1));
        let cap = |t: usize| caps[t].unwrap_or(f64::INFINITY);
        let base = flat_levels.0.min(cap(base_tier));
        let burst = if burst_tier == base_tier { 0.0 } else { flat_levels.1.min(cap(burst_tier)) };
        let levels: Vec<f64> = (0..3)
            .map(|t| if t < base_tier { 0.0 } else if t < burst_tier { base } else { base + burst })
            .collect();
        let flat = cost_of(&held_ladder(&levels));
        prop_assert!(within(flat), "layers {layered} > flat {flat}: {:?} against {levels:?}", ladder.tops);
        for tier in 0..3 {
            for step in 0..=8 {
                let level = (f64::from(step) * 5.0).min(cap(tier));
                let levels: Vec<f64> = (0..3).map(|t| if t < tier { 0.0 } else { level }).collect();
                let single = cost_of(&held_ladder(&levels));
                prop_assert!(within(single), "layers {layered} > tier {tier} at {level}: {single}: {:?}", ladder.tops);
            }
        }
    }
}

#[test]
fn only_a_three_year_term_beats_on_demand_so_it_takes_the_steady_demand() {
    // Steady 20 GPUs: the 3-year term at $4 beats on-demand at $10; the 1-year at $11 and the
    // monthly at $12 are dearer than on-demand itself, so nothing sits on them.
    let demand = steady(20.0, 36);
    let menu = menu(
        vec![
            offer(TermKind::BuildToOrder, 4.0, 36),
            offer(TermKind::OneYear, 11.0, 12),
            offer(TermKind::Monthly, 12.0, 1),
        ],
        10.0,
        0.0,
    );
    let ladder = size_ladder(&menu, &demand);
    assert!((ladder.tops[0][0] - 20.0).abs() < 1e-6, "{:?}", ladder.tops);
    assert!(
        ladder.tops[1]
            .iter()
            .chain(&ladder.tops[2])
            .all(|&t| (t - 20.0).abs() < 1e-6)
    );
    let cost = ladder_cost(&menu, &ladder, &demand, 0..36);
    assert_eq!(cost.by_use_gpu_hours, 0.0);
    assert!((cost.committed_usd - 20.0 * 36.0 * 730.0 * 4.0).abs() < 1e-3);
}

#[test]
fn where_spot_is_cheapest_the_demand_rides_it_uncommitted() {
    // Spot at $2 undercuts every committed term: nothing is committed, all demand is billed by use.
    let demand = steady(20.0, 12);
    let menu = TierMenu {
        by_use: offer(TermKind::Spot, 2.0, 0),
        ..menu(
            vec![offer(TermKind::OneYear, 3.0, 12), offer(TermKind::Monthly, 4.0, 1)],
            10.0,
            0.0,
        )
    };
    let ladder = size_ladder(&menu, &demand);
    assert!(ladder.tops.iter().flatten().all(|&t| t == 0.0), "{:?}", ladder.tops);
    let cost = ladder_cost(&menu, &ladder, &demand, 0..12);
    assert!((cost.by_use_usd - 20.0 * 12.0 * 730.0 * 2.0).abs() < 1e-3);
}

#[test]
fn a_falling_price_empties_the_three_year_layer_and_its_break_even_says_where() {
    // Steady 20 GPUs, a 3-year term at $6 against a 1-year at $7 and on-demand at $10: held
    // prices fill the 3-year layer; a 30 % fall a year makes renewing the 1-year cheaper.
    let demand = steady(20.0, 36);
    let held = menu(
        vec![
            offer(TermKind::BuildToOrder, 6.0, 36),
            offer(TermKind::OneYear, 7.0, 12),
        ],
        10.0,
        0.0,
    );
    assert!((size_ladder(&held, &demand).tops[0][0] - 20.0).abs() < 1e-6);
    let falling = held.with_bet(PriceBet::certain(-0.3));
    let ladder = size_ladder(&falling, &demand);
    assert_eq!(ladder.tops[0][0], 0.0, "{:?}", ladder.tops);
    assert!(
        (ladder.tops[1][0] - 20.0).abs() < 1e-6,
        "the 1-year takes it: {:?}",
        ladder.tops
    );
    // Break-even: $6 × 3 years = $7 (1 + (1 + c) + (1 + c)²) → (1 + c)² + (1 + c) − 11/7 = 0.
    let growth = (-1.0 + (1.0_f64 + 4.0 * 11.0 / 7.0).sqrt()) / 2.0;
    let change = break_even_change_per_year(&held, &demand).unwrap();
    assert!(
        (change - (growth - 1.0)).abs() < 1e-6,
        "{change} against {}",
        growth - 1.0
    );
    assert!(change > -0.3 && change < 0.0);
}

#[test]
fn a_growing_forecast_buys_todays_long_level_and_adds_the_growth_later() {
    // Demand grows from 20 to 90 GPUs over three years; a 3-year term at $4, a 1-year at $6,
    // on-demand at $10. Held at one level, the 3-year term would buy the third year's demand
    // today; it buys what the first year uses and adds a second contract a year on.
    let months: Vec<Vec<f64>> = (0..36).map(|m| vec![20.0 + 2.0 * m as f64; 30]).collect();
    let demand = known_months(&months, 730.0 / 30.0);
    let menu = menu(
        vec![
            offer(TermKind::BuildToOrder, 4.0, 36),
            offer(TermKind::OneYear, 6.0, 12),
        ],
        10.0,
        0.0,
    );
    assert!(menu.adds_later() && menu.step_months(0) == 12);
    let ladder = size_ladder(&menu, &demand);
    let (today, later) = (ladder.top_at(&menu, 0, 0), ladder.top_at(&menu, 0, 12));
    assert!(
        today <= 42.0 + 1e-6,
        "today's level stays within the first year's demand: {:?}",
        ladder.tops
    );
    assert!(later > today + 10.0, "the growth is added a year on: {:?}", ladder.tops);
    // One level held all term costs more over the horizon.
    let held = Ladder {
        tops: vec![vec![later], vec![later; 3]],
    };
    assert!(
        ladder_cost(&menu, &ladder, &demand, 0..36).total_usd() < ladder_cost(&menu, &held, &demand, 0..36).total_usd()
    );
    // Today's layer says what it adds later.
    let paths = DemandPaths::known(&months.concat(), 730.0 / 30.0, 30);
    let layers = risk::todays_layers(&menu, &ladder, &paths, &demand, FIRST_YEAR_MONTHS);
    assert_eq!(layers[0].months, 36);
    assert!(
        (layers[0].renewal_gpus[0] - (later - today)).abs() < 1e-9,
        "{:?}",
        layers[0]
    );
}
