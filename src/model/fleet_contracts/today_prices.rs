//! The waterfall's term-mix step: each class's demand on the accelerators it runs on today, at
//! today's prices, bought on its best mix of terms. Only the length of the commitments changes;
//! the price level and the accelerator do not.
//!
//! The catalog gives the shape of the terms (how a 1-year commitment is priced against on
//! demand, spot against monthly). Every offer for an accelerator is scaled by one factor so that
//! the catalog's cheapest offer of the term a cluster is bought on today costs what the cluster
//! costs today, per delivered GPU-hour. Demand from clusters of another accelerator is matched
//! apart, never added GPU for GPU.

use serde::Serialize;

use super::fleet_today::{ClusterToday, hours_per_point, weighted_class_demand};
use super::match_terms::MatchTerms;
use crate::model::catalog::Catalog;
use crate::model::contracts::{ContractOffer, MatchRequest, MixRow, TermKind, match_class};
use crate::model::fleet::AuditReport;
use crate::model::workload::WorkloadClass;

/// One accelerator's share of a class, matched at today's prices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TodayPriceGroup {
    pub accelerator: String,
    /// The clusters of this accelerator the class ran on.
    pub clusters: Vec<String>,
    /// Capacity-weighted price per delivered GPU-hour today.
    pub today_effective_usd_per_gpu_hour: f64,
    /// The term the group's largest cluster is bought on today.
    pub today_term: TermKind,
    /// The catalog offer the prices are scaled against, and the factor (today's price over
    /// its price). `None` when no offer prices the accelerator.
    pub reference_offer: Option<String>,
    pub price_factor: Option<f64>,
    /// Peak concurrent delivered GPUs of the class on these clusters.
    pub peak_gpus: f64,
    pub best_mix: Vec<MixRow>,
    pub cost_usd_per_month: f64,
    /// Share of the hardware the group's deployments deliver (capacity-weighted).
    pub delivered_frac: f64,
    /// What was assumed when the catalog could not price the group.
    pub note: Option<String>,
}

/// The class's groups at today's prices, one per accelerator it ran on, by accelerator id.
pub fn today_price_groups(
    class: WorkloadClass,
    fleet: &[ClusterToday],
    audit: &AuditReport,
    catalog: &Catalog,
    offers: &[ContractOffer],
    terms: &MatchTerms,
) -> Vec<TodayPriceGroup> {
    let hours_per_month = terms.hours_per_month;
    let mut accelerators: Vec<&str> = fleet.iter().map(|c| c.accelerator.as_str()).collect();
    accelerators.sort_unstable();
    accelerators.dedup();
    let memory = |id: &str| catalog.accelerator(id).map(|a| a.memory_gb);
    let mut groups = Vec::new();
    for accelerator in accelerators {
        let members: Vec<usize> = (0..fleet.len())
            .filter(|&i| fleet[i].accelerator == accelerator)
            .collect();
        let demand = weighted_class_demand(audit, class, |i| {
            if fleet[i].accelerator == accelerator {
                fleet[i].deployment.delivered_capability_frac()
            } else {
                0.0
            }
        });
        let peak_gpus = demand.iter().copied().fold(0.0, f64::max);
        if peak_gpus <= 0.0 {
            continue;
        }
        let capacity: f64 = members.iter().map(|&i| fleet[i].capacity_gpus).sum();
        let weight = |i: usize| {
            if capacity > 0.0 {
                fleet[i].capacity_gpus / capacity
            } else {
                1.0 / members.len() as f64
            }
        };
        let today_effective: f64 = members
            .iter()
            .map(|&i| weight(i) * fleet[i].effective_usd_per_gpu_hour())
            .sum();
        let delivered_frac: f64 = members
            .iter()
            .map(|&i| weight(i) * fleet[i].deployment.delivered_capability_frac())
            .sum();
        let largest = members
            .iter()
            .copied()
            .max_by(|&a, &b| fleet[a].capacity_gpus.total_cmp(&fleet[b].capacity_gpus))
            .unwrap_or(members[0]);
        let today_term = fleet[largest].term;
        let clusters = members
            .iter()
            .filter(|&&i| audit.clusters[i].classes.get(class).jobs > 0)
            .map(|&i| fleet[i].name.clone())
            .collect();
        // Today's price anchors the offers the class can run on: an offer its gangs cannot use
        // says nothing of what its capacity costs.
        // Capacity that runs today is re-termed, not ordered: no lead time applies.
        let request = MatchRequest {
            needed_within_weeks: None,
            ..terms.request(
                class,
                &demand,
                hours_per_point(audit),
                accelerator,
                terms.gang_gpus(class, 1.0),
            )
        };
        let usable: Vec<ContractOffer> = offers
            .iter()
            .filter(|o| request.requirement.is_met_by(o, memory(accelerator)))
            .cloned()
            .collect();
        let reference = reference_offer(&usable, accelerator, today_term);
        let unpriced = |note: String| TodayPriceGroup {
            accelerator: accelerator.to_string(),
            clusters: Vec::new(),
            today_effective_usd_per_gpu_hour: today_effective,
            today_term,
            reference_offer: None,
            price_factor: None,
            peak_gpus,
            best_mix: Vec::new(),
            cost_usd_per_month: peak_gpus * today_effective * hours_per_month,
            delivered_frac,
            note: Some(note),
        };
        let Some((reference_id, reference_effective)) = reference else {
            let why = if offers.iter().any(|o| o.price_for(accelerator).is_some()) {
                format!("no catalog offer of {accelerator} can carry the class")
            } else {
                format!("no catalog offer prices {accelerator}")
            };
            let mut group = unpriced(format!("{why}: its peak is kept at today's price on today's term"));
            group.clusters = clusters;
            groups.push(group);
            continue;
        };
        let factor = today_effective / reference_effective;
        let scaled = scaled_offers(&usable, accelerator, factor);
        match match_class(&request, &scaled, memory) {
            Ok(result) => groups.push(TodayPriceGroup {
                accelerator: accelerator.to_string(),
                clusters,
                today_effective_usd_per_gpu_hour: today_effective,
                today_term,
                reference_offer: Some(reference_id),
                price_factor: Some(factor),
                peak_gpus,
                best_mix: result.best_mix,
                cost_usd_per_month: result.cost_usd_per_month,
                delivered_frac,
                note: None,
            }),
            Err(e) => {
                let mut group = unpriced(format!("{e}: its peak is kept at today's price on today's term"));
                group.clusters = clusters;
                groups.push(group);
            }
        }
    }
    groups
}

/// The cheapest offer per delivered GPU-hour of `term` for the accelerator; of any term when
/// no offer has that one.
fn reference_offer(offers: &[ContractOffer], accelerator: &str, term: TermKind) -> Option<(String, f64)> {
    let cheapest = |same_term: bool| {
        offers
            .iter()
            .filter(|o| !same_term || o.term == term)
            .filter_map(|o| o.effective_usd_per_gpu_hour(accelerator).map(|usd| (o, usd)))
            .filter(|(_, usd)| usd.is_finite() && *usd > 0.0)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(o, usd)| (o.id.clone(), usd))
    };
    cheapest(true).or_else(|| cheapest(false))
}

/// The offers with every price for `accelerator` multiplied by `factor`, and only those prices.
fn scaled_offers(offers: &[ContractOffer], accelerator: &str, factor: f64) -> Vec<ContractOffer> {
    offers
        .iter()
        .filter_map(|offer| {
            let price = offer.price_for(accelerator)?;
            let mut scaled = offer.clone();
            let mut price = price.clone();
            price.usd_per_gpu_hour *= factor;
            scaled.prices = vec![price];
            Some(scaled)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::contracts::OfferPrice;
    use crate::model::deployment::Deployment;

    fn offer(id: &str, term: TermKind, usd: f64) -> ContractOffer {
        ContractOffer {
            id: id.into(),
            name: id.into(),
            term,
            minimum_hours: match term {
                TermKind::OneYear => 8760.0,
                TermKind::Monthly => 730.0,
                _ => 0.0,
            },
            lead_time_weeks: Default::default(),
            lead_time_hours: None,
            deployment: Deployment::Vm,
            scale_up_gpus: Some(8),
            inter_node: Default::default(),
            max_gpus: Default::default(),
            interconnect_ok_for_training: None,
            supply_source: None,
            supply_as_of: None,
            note: None,
            prices: vec![OfferPrice {
                accelerator: "h100-sxm".into(),
                usd_per_gpu_hour: usd,
                source: "test".into(),
                as_of: "2026-01-01".into(),
                note: None,
            }],
        }
    }

    #[test]
    fn the_reference_is_the_cheapest_offer_of_todays_term() {
        let offers = [
            offer("od-a", TermKind::OnDemand, 6.0),
            offer("od-b", TermKind::OnDemand, 4.0),
            offer("year", TermKind::OneYear, 2.0),
        ];
        let (id, usd) = reference_offer(&offers, "h100-sxm", TermKind::OnDemand).expect("priced");
        assert_eq!(id, "od-b");
        assert!((usd - 4.0 / 0.75).abs() < 1e-12);
        // No monthly offer: the cheapest of any term stands in.
        let (id, _) = reference_offer(&offers, "h100-sxm", TermKind::Monthly).expect("priced");
        assert_eq!(id, "year");
        assert!(reference_offer(&offers, "b200", TermKind::OnDemand).is_none());
    }

    #[test]
    fn scaling_keeps_the_shape_of_the_terms() {
        let offers = [
            offer("od", TermKind::OnDemand, 4.0),
            offer("year", TermKind::OneYear, 2.0),
        ];
        let scaled = scaled_offers(&offers, "h100-sxm", 3.0);
        assert_eq!(scaled[0].prices[0].usd_per_gpu_hour, 12.0);
        assert_eq!(scaled[1].prices[0].usd_per_gpu_hour, 6.0);
        assert!(scaled_offers(&offers, "b200", 3.0).is_empty());
    }
}
