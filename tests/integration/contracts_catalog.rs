//! The shipped contract catalog (`catalogs/contracts.toml`) parses into the model's types,
//! is internally sound, covers every term for the seed's GPUs, and gives sensible matches.

use gpuplan::config::catalog::builtin;
use gpuplan::model::contracts::{CapabilityRequirement, ContractCatalog, MatchRequest, MixRole, TermKind, match_class};
use gpuplan::model::deployment::Deployment;

const CONTRACTS: &str = include_str!("../../catalogs/contracts.toml");

fn catalog() -> ContractCatalog {
    toml::from_str(CONTRACTS).unwrap_or_else(|e| panic!("catalogs/contracts.toml: {e}"))
}

fn memory_gb(id: &str) -> Option<f64> {
    builtin().catalog.accelerator(id).map(|a| a.memory_gb)
}

#[test]
fn the_catalog_parses_and_has_no_problems() {
    let catalog = catalog();
    assert_eq!(catalog.schema_version, 1);
    assert!(catalog.problems().is_empty(), "{:#?}", catalog.problems());
    for offer in &catalog.offers {
        for price in &offer.prices {
            assert!(
                !price.source.trim().is_empty() && price.as_of.len() == 10,
                "{}: {price:?}",
                offer.id
            );
        }
    }
}

#[test]
fn every_offer_says_where_its_supply_figures_come_from() {
    for offer in &catalog().offers {
        assert!(
            offer.supply_source.as_deref().is_some_and(|s| !s.trim().is_empty()),
            "{}: no supply_source",
            offer.id
        );
        assert!(
            offer.supply_as_of.as_deref().is_some_and(|d| d.len() == 10),
            "{}",
            offer.id
        );
        // The older keys are gone from the shipped catalog.
        assert!(
            offer.interconnect_ok_for_training.is_none() && offer.lead_time_hours.is_none(),
            "{}",
            offer.id
        );
    }
}

#[test]
fn every_priced_accelerator_is_in_the_accelerator_catalog() {
    let accelerators = builtin().catalog;
    for offer in &catalog().offers {
        for price in &offer.prices {
            assert!(
                accelerators.accelerators.iter().any(|a| a.id == price.accelerator),
                "{}: unknown accelerator {}",
                offer.id,
                price.accelerator
            );
        }
    }
}

#[test]
fn every_term_is_offered_for_the_seed_gpus_including_to_training() {
    let catalog = catalog();
    for accelerator in ["h100-sxm", "h200-sxm", "b200"] {
        for term in TermKind::ALL {
            let capable = catalog.offers.iter().any(|o| {
                o.term == term
                    && o.price_for(accelerator).is_some()
                    && CapabilityRequirement::training(8.0).is_met_by(o, memory_gb(accelerator))
            });
            assert!(capable, "{accelerator}: no training-capable {} offer", term.label());
        }
    }
}

#[test]
fn the_seed_hyperscaler_rate_is_an_on_demand_vm_price() {
    let catalog = catalog();
    let seed_rate = catalog.offers.iter().any(|o| {
        o.term == TermKind::OnDemand
            && o.deployment == Deployment::Vm
            && o.price_for("h100-sxm").is_some_and(|p| p.usd_per_gpu_hour == 12.29)
    });
    assert!(seed_rate);
}

#[test]
fn a_commitment_is_cheaper_per_delivered_hour_than_on_demand_for_each_seed_gpu() {
    let catalog = catalog();
    let cheapest = |accelerator: &str, wanted: &dyn Fn(TermKind) -> bool| {
        catalog
            .offers
            .iter()
            .filter(|o| wanted(o.term))
            .filter_map(|o| o.effective_usd_per_gpu_hour(accelerator))
            .fold(f64::INFINITY, f64::min)
    };
    for accelerator in ["h100-sxm", "h200-sxm", "b200"] {
        let committed = cheapest(accelerator, &|t: TermKind| t.is_committed());
        let on_demand = cheapest(accelerator, &|t: TermKind| t == TermKind::OnDemand);
        assert!(committed < on_demand, "{accelerator}: {committed} vs {on_demand}");
    }
}

#[test]
fn a_year_of_steady_h100_training_commits_on_capable_bare_metal() {
    let catalog = catalog();
    let demand = vec![64.0; 8_760];
    let request = MatchRequest {
        hourly_gpus: &demand,
        hours_per_point: 1.0,
        accelerator_id: "h100-sxm",
        tolerates_preemption: false,
        requirement: CapabilityRequirement::training(64.0),
        hours_per_month: 730.0,
        consolidated_usd: Some(64.0 * 8_760.0 * 12.29),
        needed_within_weeks: Some(26.0),
        spot_hours_per_work_hour: 1.0,
    };
    let result = match_class(&request, &catalog.offers, memory_gb).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.best_mix.len(), 1, "{:#?}", result.best_mix);
    let row = &result.best_mix[0];
    assert!(row.term.is_committed() && row.role == MixRole::Base, "{row:?}");
    assert_eq!(row.gpus, 64.0);
    // 64-GPU gangs span eight nodes: only an offer stating an RDMA fabric between them.
    let chosen = catalog.offers.iter().find(|o| o.id == row.offer_id).expect("offer");
    assert!(chosen.inter_node.carries_gangs(), "{chosen:?}");
    assert!(
        result
            .exclusions
            .iter()
            .any(|e| e.offer_id == "qubrid-1-year-bare-metal" && e.reason.contains("no fabric")),
        "{:#?}",
        result.exclusions
    );
    for single_gpu in [
        "gcp-a3-highgpu-1g-on-demand",
        "cirrascale-1-month",
        "jarvislabs-1-month",
    ] {
        assert!(
            result.excluded_offer_ids.iter().any(|id| id == single_gpu),
            "{single_gpu}"
        );
    }
    assert!(result.saving_usd.is_some_and(|s| s > 0.0));
}

#[test]
fn a_weekly_h100_burst_stays_on_demand() {
    let catalog = catalog();
    let demand: Vec<f64> = (0..8_760).map(|h| if h % 168 < 4 { 16.0 } else { 0.0 }).collect();
    let request = MatchRequest {
        hourly_gpus: &demand,
        hours_per_point: 1.0,
        accelerator_id: "h100-sxm",
        tolerates_preemption: false,
        requirement: CapabilityRequirement::NONE,
        hours_per_month: 730.0,
        consolidated_usd: None,
        needed_within_weeks: Some(26.0),
        spot_hours_per_work_hour: 1.0,
    };
    let result = match_class(&request, &catalog.offers, memory_gb).unwrap_or_else(|e| panic!("{e}"));
    let terms: Vec<TermKind> = result.best_mix.iter().map(|r| r.term).collect();
    assert_eq!(terms, [TermKind::OnDemand], "{:#?}", result.best_mix);
    assert_eq!(result.unused_committed_gpu_hours, 0.0);
}
