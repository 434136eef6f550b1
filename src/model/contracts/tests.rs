//! The matcher's worked cases, the catalog's checks, and the mix-never-dearer property.

use super::demand::DemandProfile;
use super::*;
use crate::model::catalog::Term;
use crate::model::deployment::Deployment;
use crate::shared::random::Xoshiro256StarStar;
use proptest::prelude::*;

const H100: &str = "h100-sxm";
const BARE_METAL_FRAC: f64 = 0.935;

fn minimum_hours(term: TermKind) -> f64 {
    match term {
        TermKind::Spot | TermKind::OnDemand => 0.0,
        TermKind::Monthly => 730.0,
        TermKind::OneYear => 8_760.0,
        TermKind::BuildToOrder => 26_280.0,
    }
}

fn offer(id: &str, term: TermKind, deployment: Deployment, interconnect: bool, usd: f64) -> ContractOffer {
    ContractOffer {
        id: id.into(),
        name: id.into(),
        term,
        minimum_hours: minimum_hours(term),
        lead_time_weeks: Stated::Known(0.0),
        lead_time_hours: None,
        deployment,
        scale_up_gpus: Some(8),
        inter_node: if interconnect {
            InterNode::Infiniband
        } else {
            InterNode::Ethernet
        },
        max_gpus: Stated::Unknown,
        interconnect_ok_for_training: None,
        supply_source: None,
        supply_as_of: None,
        note: None,
        prices: vec![OfferPrice {
            accelerator: H100.into(),
            usd_per_gpu_hour: usd,
            source: "test".into(),
            as_of: "2026-01-01".into(),
            note: None,
        }],
    }
}

fn metal(id: &str, term: TermKind, usd: f64) -> ContractOffer {
    offer(id, term, Deployment::BareMetal, true, usd)
}

/// On-demand 4, monthly 3, 1-year 2, build-to-order 1.5, all bare metal with InfiniBand.
fn ladder() -> Vec<ContractOffer> {
    vec![
        metal("od", TermKind::OnDemand, 4.0),
        metal("month", TermKind::Monthly, 3.0),
        metal("year", TermKind::OneYear, 2.0),
        metal("bto", TermKind::BuildToOrder, 1.5),
    ]
}

fn h100_memory(id: &str) -> Option<f64> {
    (id == H100).then_some(80.0)
}

fn request(hourly_gpus: &[f64]) -> MatchRequest<'_> {
    MatchRequest {
        hourly_gpus,
        hours_per_point: 1.0,
        accelerator_id: H100,
        tolerates_preemption: false,
        requirement: CapabilityRequirement::NONE,
        hours_per_month: 730.0,
        consolidated_usd: None,
        needed_within_weeks: None,
        spot_hours_per_work_hour: 1.0,
    }
}

fn run(request: &MatchRequest<'_>, offers: &[ContractOffer]) -> MatchResult {
    match_class(request, offers, h100_memory).unwrap_or_else(|e| panic!("{e}"))
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= 1e-9 * expected.abs().max(1.0)
}

fn steady_training_year(seed: u64) -> Vec<f64> {
    let mut rng = Xoshiro256StarStar::seed_from_u64(seed);
    (0..8_760).map(|_| 64.0 + 4.0 * (rng.next_f64() - 0.5)).collect()
}

#[test]
fn flat_demand_over_a_year_takes_the_longest_term_with_no_burst() {
    let demand = vec![10.0; 8_760];
    let result = run(&request(&demand), &ladder());
    assert_eq!(result.best_mix.len(), 1, "{:#?}", result.best_mix);
    let row = &result.best_mix[0];
    assert_eq!(
        (row.term, row.role, row.gpus),
        (TermKind::BuildToOrder, MixRole::Base, 10.0)
    );
    assert!(close(result.cost_usd, 10.0 * 8_760.0 * 1.5 / BARE_METAL_FRAC));
    assert!(close(result.cost_usd_per_month, result.cost_usd * 730.0 / 8_760.0));
    assert_eq!(result.unused_committed_gpu_hours, 0.0);
    let terms: Vec<TermKind> = result.pure_terms.iter().map(|p| p.term).collect();
    assert_eq!(
        terms,
        [
            TermKind::OnDemand,
            TermKind::Monthly,
            TermKind::OneYear,
            TermKind::BuildToOrder
        ]
    );
    for pure in &result.pure_terms {
        let list = match pure.term {
            TermKind::OnDemand => 4.0,
            TermKind::Monthly => 3.0,
            TermKind::OneYear => 2.0,
            _ => 1.5,
        };
        assert!(close(pure.cost_usd, 87_600.0 * list / BARE_METAL_FRAC), "{pure:?}");
        assert_eq!(pure.unused_gpu_hours, 0.0);
    }
}

#[test]
fn a_weekly_four_hour_spike_bursts_on_demand_with_no_commitment() {
    let demand: Vec<f64> = (0..8_760).map(|h| if h % 168 < 4 { 16.0 } else { 0.0 }).collect();
    let result = run(&request(&demand), &ladder());
    assert_eq!(result.best_mix.len(), 1, "{:#?}", result.best_mix);
    let row = &result.best_mix[0];
    assert_eq!(
        (row.term, row.role, row.gpus),
        (TermKind::OnDemand, MixRole::Burst, 16.0)
    );
    let spike_gpu_hours = 53.0 * 4.0 * 16.0; // 53 weeks start inside 8,760 hours
    assert_eq!(result.demand_gpu_hours, spike_gpu_hours);
    assert!(close(result.cost_usd, spike_gpu_hours * 4.0 / BARE_METAL_FRAC));
    assert_eq!(result.unused_committed_gpu_hours, 0.0);
    // Committing to the peak would leave almost all of it idle.
    let year = result.pure_terms.iter().find(|p| p.term == TermKind::OneYear);
    assert!(year.is_some_and(|p| close(p.unused_gpu_hours, 16.0 * 8_760.0 - spike_gpu_hours)));
}

#[test]
fn steady_training_takes_build_to_order_when_cheapest_and_one_year_otherwise() {
    let demand = steady_training_year(17);
    let vm_without_infiniband = offer("vm-no-ib", TermKind::OnDemand, Deployment::Vm, false, 0.5);
    let mut offers = vec![
        metal("od", TermKind::OnDemand, 6.0),
        metal("month", TermKind::Monthly, 4.0),
        metal("year", TermKind::OneYear, 2.5),
        metal("bto", TermKind::BuildToOrder, 2.0),
        vm_without_infiniband,
    ];
    let training = MatchRequest {
        requirement: CapabilityRequirement::training(16.0),
        ..request(&demand)
    };
    let result = run(&training, &offers);
    let base = &result.best_mix[0];
    assert_eq!(
        (base.role, base.term),
        (MixRole::Base, TermKind::BuildToOrder),
        "{result:#?}"
    );
    assert!(base.gpus >= 62.0 && base.gpus <= 66.0, "{}", base.gpus);
    assert_eq!(result.excluded_offer_ids, ["vm-no-ib"]);
    assert!(result.best_mix.iter().all(|r| r.offer_id != "vm-no-ib"));

    offers[3].prices[0].usd_per_gpu_hour = 3.0;
    let result = run(&training, &offers);
    assert_eq!(result.best_mix[0].term, TermKind::OneYear, "{:#?}", result.best_mix);
}

#[test]
fn the_training_filter_excludes_a_vm_without_infiniband_and_small_memory() {
    let demand = vec![8.0; 100];
    let offers = vec![
        offer("cheap-vm", TermKind::OnDemand, Deployment::Vm, false, 1.0),
        metal("metal", TermKind::OnDemand, 5.0),
    ];
    let training = MatchRequest {
        requirement: CapabilityRequirement::training(16.0),
        ..request(&demand)
    };
    let result = run(&training, &offers);
    assert_eq!(result.best_mix[0].offer_id, "metal");
    assert_eq!(result.excluded_offer_ids, ["cheap-vm"]);
    // Without the requirement the cheap VM wins, efficiency included.
    let result = run(&request(&demand), &offers);
    assert_eq!(result.best_mix[0].offer_id, "cheap-vm");
    // A 40 GB part fails the memory floor on every offer.
    let error = match_class(&training, &offers, |_| Some(40.0));
    assert!(matches!(error, Err(MatchError::NoCapableOffer { .. })), "{error:?}");
    // Unknown memory cannot prove capability.
    assert!(match_class(&training, &offers, |_| None).is_err());
}

#[test]
fn unused_committed_gpu_hours_on_a_hand_computed_case() {
    // Demand 4, 2, 0, 6. Base levels: B=2 costs 8+18, B=4 costs 16+6, B=6 costs 24;
    // with 1-year at 1 and on-demand at 3, B=4 wins and leaves 0+2+4+0 = 6 GPU-hours idle.
    let demand = [4.0, 2.0, 0.0, 6.0];
    let offers = vec![
        metal("od", TermKind::OnDemand, 3.0),
        metal("year", TermKind::OneYear, 1.0),
    ];
    let result = run(&request(&demand), &offers);
    assert_eq!(result.best_mix.len(), 2, "{:#?}", result.best_mix);
    let (base, burst) = (&result.best_mix[0], &result.best_mix[1]);
    assert_eq!(
        (base.role, base.term, base.gpus),
        (MixRole::Base, TermKind::OneYear, 4.0)
    );
    assert_eq!(
        (burst.role, burst.term, burst.gpus),
        (MixRole::Burst, TermKind::OnDemand, 2.0)
    );
    assert!(close(base.cost_usd, 16.0 / BARE_METAL_FRAC) && close(burst.cost_usd, 6.0 / BARE_METAL_FRAC));
    assert!(close(result.cost_usd, 22.0 / BARE_METAL_FRAC));
    assert_eq!(base.unused_gpu_hours, 6.0);
    assert_eq!(result.unused_committed_gpu_hours, 6.0);
    // Pure 1-year at the peak: 24 paid, 12 used, 12 idle; pure on-demand: 36, none idle.
    let year = &result.pure_terms[1];
    assert!(close(year.cost_usd, 24.0 / BARE_METAL_FRAC) && year.unused_gpu_hours == 12.0);
    let od = &result.pure_terms[0];
    assert!(close(od.cost_usd, 36.0 / BARE_METAL_FRAC) && od.unused_gpu_hours == 0.0);
}

#[test]
fn monthly_pays_each_blocks_peak_and_prorates_the_last_block() {
    // Block 1: one hour at 10, the rest at 1. Block 2 (270 h, short): 2 throughout.
    let mut demand = vec![1.0; 730];
    demand[100] = 10.0;
    demand.extend(vec![2.0; 270]);
    let offers = vec![metal("month", TermKind::Monthly, 3.0)];
    let result = run(&request(&demand), &offers);
    let paid = 10.0 * 730.0 + 2.0 * 270.0;
    let used = 729.0 + 10.0 + 540.0;
    let pure = &result.pure_terms[0];
    assert!(close(pure.cost_usd, paid * 3.0 / BARE_METAL_FRAC), "{pure:?}");
    assert!(close(pure.unused_gpu_hours, paid - used));
}

#[test]
fn spot_is_used_only_when_the_class_tolerates_preemption() {
    let demand: Vec<f64> = (0..1_000).map(|h| if h % 10 == 0 { 5.0 } else { 0.0 }).collect();
    let mut offers = ladder();
    offers.push(metal("spot", TermKind::Spot, 1.0));
    let result = run(&request(&demand), &offers);
    assert!(result.pure_terms.iter().all(|p| p.term != TermKind::Spot));
    assert!(result.best_mix.iter().all(|r| r.term != TermKind::Spot));
    let tolerant = MatchRequest {
        tolerates_preemption: true,
        ..request(&demand)
    };
    let result = run(&tolerant, &offers);
    assert_eq!(result.best_mix[0].term, TermKind::Spot);
    let only_spot = [metal("spot", TermKind::Spot, 1.0)];
    assert!(matches!(
        match_class(&request(&demand), &only_spot, h100_memory),
        Err(MatchError::NoCapableOffer { .. })
    ));
}

#[test]
fn a_vm_hour_buys_less_delivered_work_than_a_bare_metal_hour() {
    let demand = vec![1.0; 10];
    // List 3.00 on a VM is 4.00 delivered; 3.50 on bare metal is 3.74 delivered.
    let offers = vec![
        offer("vm", TermKind::OnDemand, Deployment::Vm, true, 3.0),
        metal("metal", TermKind::OnDemand, 3.5),
    ];
    let result = run(&request(&demand), &offers);
    assert_eq!(result.best_mix[0].offer_id, "metal");
    assert!(close(result.best_mix[0].effective_usd_per_gpu_hour, 3.5 / 0.935));
    assert_eq!(offers[0].effective_usd_per_gpu_hour(H100), Some(4.0));
}

#[test]
fn the_saving_is_against_the_consolidated_cost_per_window_and_month() {
    let demand = vec![10.0; 1_460];
    let consolidated = MatchRequest {
        consolidated_usd: Some(100_000.0),
        ..request(&demand)
    };
    let result = run(&consolidated, &ladder());
    let saving = result.saving_usd.unwrap_or(f64::NAN);
    assert!(close(saving, 100_000.0 - result.cost_usd));
    assert!(close(result.saving_usd_per_month.unwrap_or(f64::NAN), saving / 2.0));
    assert_eq!(run(&request(&demand), &ladder()).saving_usd, None);
}

#[test]
fn bad_demand_and_missing_prices_are_errors_or_zeros_not_panics() {
    assert_eq!(
        match_class(&request(&[]), &ladder(), h100_memory),
        Err(MatchError::EmptyDemand)
    );
    let demand = [f64::NAN, -3.0, 2.0, f64::INFINITY];
    let result = run(&request(&demand), &ladder());
    assert_eq!((result.peak_gpus, result.demand_gpu_hours), (2.0, 2.0));
    let other_chip = MatchRequest {
        accelerator_id: "b200",
        ..request(&demand)
    };
    assert!(matches!(
        match_class(&other_chip, &ladder(), h100_memory),
        Err(MatchError::NoPriceForAccelerator { .. })
    ));
    let no_month = MatchRequest {
        hours_per_month: 0.0,
        ..request(&demand)
    };
    assert_eq!(
        match_class(&no_month, &ladder(), h100_memory),
        Err(MatchError::InvalidHoursPerMonth)
    );
}

#[test]
fn long_noisy_series_are_searched_over_at_most_200_levels_including_the_peak() {
    let profile = DemandProfile::new(&steady_training_year(3), 1.0);
    let levels = profile.base_levels();
    assert_eq!(levels.len(), MAX_BASE_LEVEL_CANDIDATES);
    assert_eq!(levels.last().copied(), Some(profile.peak));
    assert!(levels.windows(2).all(|w| w[0] < w[1]));
    let short = DemandProfile::new(&[3.0, 0.0, 3.0, 1.0], 1.0);
    assert_eq!(short.base_levels(), [1.0, 3.0]);
    assert_eq!((short.idle_gpu_hours(3.0), short.excess_gpu_hours(1.0)), (5.0, 4.0));
}

#[test]
fn catalog_problems_name_each_fault() {
    let mut bad = metal("x", TermKind::OneYear, -1.0);
    bad.minimum_hours = 730.0;
    bad.prices[0].as_of = "2026-1-1".into();
    bad.prices[0].source = " ".into();
    let catalog = ContractCatalog {
        schema_version: 2,
        offers: vec![bad.clone(), bad],
    };
    let problems = catalog.problems();
    for needle in [
        "schema_version",
        "duplicate id",
        "minimum_hours 730",
        "positive",
        "source",
        "YYYY-MM-DD",
    ] {
        assert!(problems.iter().any(|p| p.contains(needle)), "{needle}: {problems:#?}");
    }
    let good = ContractCatalog {
        schema_version: 1,
        offers: ladder(),
    };
    assert!(good.problems().is_empty(), "{:#?}", good.problems());
}

#[test]
fn offers_parse_from_toml_and_reject_unknown_keys() {
    let text = r#"
        schema_version = 1
        [[offer]]
        id = "a"
        name = "A"
        term = "build-to-order"
        minimum_hours = 26280
        lead_time_hours = 672
        deployment = "bare-metal"
        interconnect_ok_for_training = true
        [[offer.price]]
        accelerator = "h100-sxm"
        usd_per_gpu_hour = 1.93
        source = "s"
        as_of = "2026-09-27"
    "#;
    let catalog: ContractCatalog = toml::from_str(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(catalog.offers[0].term, TermKind::BuildToOrder);
    assert_eq!(catalog.offers[0].term.catalog_term(), Term::ThreeYear);
    assert!(catalog.problems().is_empty());
    // The older keys read as the newer: 672 hours are four weeks, an NVLink node of 8.
    assert_eq!(catalog.offers[0].lead_time_weeks(), Some(4.0));
    assert_eq!(catalog.offers[0].scale_up_gpus(), 8);
    assert_eq!(catalog.offers[0].inter_node, InterNode::Unknown);
    let both = text.replace("lead_time_hours = 672", "lead_time_hours = 672\nlead_time_weeks = 4");
    let both: ContractCatalog = toml::from_str(&both).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        both.problems().iter().any(|p| p.contains("not both")),
        "{:?}",
        both.problems()
    );
    let unknown = text.replace("lead_time_hours", "lead_time_days");
    assert!(toml::from_str::<ContractCatalog>(&unknown).is_err());
}

#[test]
fn a_gang_that_spans_nodes_runs_only_where_a_fabric_joins_them() {
    // 16-GPU gangs: the cheap offer states Ethernet between its 8-GPU nodes.
    let offers = vec![
        offer("cheap-ethernet", TermKind::OnDemand, Deployment::BareMetal, false, 2.0),
        offer("infiniband", TermKind::OnDemand, Deployment::BareMetal, true, 3.0),
    ];
    let gangs = MatchRequest {
        requirement: CapabilityRequirement::training(16.0),
        ..request(&[16.0; 24])
    };
    let result = run(&gangs, &offers);
    assert_eq!(result.best_mix[0].offer_id, "infiniband");
    assert_eq!(result.exclusions.len(), 1);
    assert!(
        result.exclusions[0].reason.contains("Ethernet"),
        "{:?}",
        result.exclusions
    );
    // Gangs of one node run on either.
    let one_node = MatchRequest {
        requirement: CapabilityRequirement::training(8.0),
        ..request(&[16.0; 24])
    };
    assert_eq!(run(&one_node, &offers).best_mix[0].offer_id, "cheap-ethernet");
}

#[test]
fn a_stated_maximum_caps_what_an_offer_supplies_and_an_unknown_one_is_said() {
    // The 1-year offer supplies at most 10 GPUs; the demand holds 20 all window.
    let mut capped = metal("year", TermKind::OneYear, 1.0);
    capped.max_gpus = Stated::Known(10.0);
    let offers = vec![metal("od", TermKind::OnDemand, 4.0), capped];
    let result = run(&request(&[20.0; 100]), &offers);
    let base = result
        .best_mix
        .iter()
        .find(|r| r.role == MixRole::Base)
        .expect("a base");
    assert_eq!(base.offer_id, "year");
    assert!((base.gpus - 10.0).abs() < 1e-9, "{:?}", result.best_mix);
    assert!(
        result
            .assumed_supply
            .iter()
            .any(|a| a.starts_with("od states no maximum")),
        "{:?}",
        result.assumed_supply
    );
    // Nothing supplies 20 when every offer stops at 10.
    let mut od = metal("od", TermKind::OnDemand, 4.0);
    od.max_gpus = Stated::Known(10.0);
    let mut year = metal("year", TermKind::OneYear, 1.0);
    year.max_gpus = Stated::Known(5.0);
    let error = match_class(&request(&[20.0; 100]), &[od, year], h100_memory).expect_err("too big");
    assert!(matches!(error, MatchError::NotEnoughSupply { .. }), "{error}");
}

#[test]
fn offers_slower_than_the_need_are_left_out() {
    let mut slow = metal("bto", TermKind::BuildToOrder, 1.0);
    slow.lead_time_weeks = Stated::Known(30.0);
    let offers = vec![metal("od", TermKind::OnDemand, 4.0), slow];
    let in_time = MatchRequest {
        needed_within_weeks: Some(26.0),
        ..request(&[5.0; 100])
    };
    let result = run(&in_time, &offers);
    assert!(result.best_mix.iter().all(|r| r.offer_id == "od"));
    assert!(
        result.exclusions[0].reason.contains("30 weeks"),
        "{:?}",
        result.exclusions
    );
    let patient = MatchRequest {
        needed_within_weeks: Some(52.0),
        ..request(&[5.0; 100])
    };
    assert!(run(&patient, &offers).best_mix.iter().any(|r| r.offer_id == "bto"));
}

#[test]
fn spot_pays_for_the_work_preemption_makes_it_redo() {
    // Spot at 3 against on-demand at 4: cheaper until a third of its hours are redone.
    let offers = vec![metal("od", TermKind::OnDemand, 4.0), metal("spot", TermKind::Spot, 3.0)];
    let burst = |factor: f64| MatchRequest {
        tolerates_preemption: true,
        spot_hours_per_work_hour: factor,
        ..request(&[4.0; 10])
    };
    let cheap = run(&burst(1.2), &offers);
    assert_eq!(cheap.best_mix[0].offer_id, "spot");
    assert!((cheap.best_mix[0].preemption_factor - 1.2).abs() < 1e-12);
    assert!((cheap.cost_usd - 40.0 * 3.0 * 1.2 / BARE_METAL_FRAC).abs() < 1e-9);
    assert_eq!(run(&burst(1.4), &offers).best_mix[0].offer_id, "od");
}

proptest! {
    #[test]
    fn the_mix_is_never_dearer_than_the_cheapest_pure_term(
        demand in prop::collection::vec(0.0f64..40.0, 1..400),
        od in 2.0f64..10.0,
        month_frac in 0.3f64..1.0,
        year_frac in 0.2f64..1.0,
        bto_frac in 0.1f64..1.0,
        spot_frac in 0.1f64..1.0,
        vm_od in proptest::bool::ANY,
    ) {
        let offers = vec![
            offer("od", TermKind::OnDemand, if vm_od { Deployment::Vm } else { Deployment::BareMetal }, true, od),
            metal("month", TermKind::Monthly, od * month_frac),
            metal("year", TermKind::OneYear, od * year_frac),
            metal("bto", TermKind::BuildToOrder, od * bto_frac),
            metal("spot", TermKind::Spot, od * spot_frac),
        ];
        let tolerant = MatchRequest { tolerates_preemption: true, ..request(&demand) };
        let result = run(&tolerant, &offers);
        let cheapest_pure = result.pure_terms.iter().map(|p| p.cost_usd).fold(f64::INFINITY, f64::min);
        prop_assert!(result.cost_usd <= cheapest_pure * (1.0 + 1e-9) + 1e-9);
        // No plan can pay less than every used GPU-hour at the cheapest effective rate.
        let cheapest_rate = offers
            .iter()
            .filter_map(|o| o.effective_usd_per_gpu_hour(H100))
            .fold(f64::INFINITY, f64::min);
        prop_assert!(result.cost_usd >= result.demand_gpu_hours * cheapest_rate * (1.0 - 1e-9) - 1e-9);
        prop_assert!(result.unused_committed_gpu_hours >= 0.0);
        let rows_total: f64 = result.best_mix.iter().map(|r| r.cost_usd).sum();
        prop_assert!((rows_total - result.cost_usd).abs() <= 1e-9 * result.cost_usd.max(1.0));
    }
}
