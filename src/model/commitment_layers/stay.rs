//! Staying with today's providers: each audited cluster right-sized on its own hourly demand,
//! a base on its provider's own longest terms (its 1-year and 3-year prices in the catalog)
//! and its provider's hourly price above the base, no provider or accelerator switched. The
//! board's other end state beside switching (the waterfall's last step).
//!
//! The provider is the catalog family (the first word of a price row's provider: AWS, Azure,
//! GCP, CoreWeave...) whose row for the cluster's accelerator and term charges the cluster's
//! price (within half a percent), else the family the cluster's price source names. The base
//! is sized as the commitment layers size one knowing the demand (the window's own hours, the
//! terms prorated to them: `ladder`).

use serde::Serialize;

use super::ladder::{TierMenu, TierOffer, ladder_cost, size_ladder};
use super::paths::DemandPaths;
use crate::model::catalog::{Catalog, Price, Term};
use crate::model::contracts::TermKind;
use crate::model::fleet::AuditReport;
use crate::model::fleet_contracts::{ClusterToday, cluster_class_series, hours_per_point};
use crate::model::price_trend::PriceBet;
use crate::model::workload::WorkloadClass;

/// How close a catalog row's price must be to the cluster's to name its provider.
const SAME_PRICE_FRAC: f64 = 0.005;

/// One cluster kept with its provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StayCluster {
    pub name: String,
    /// The provider family, when the catalog names one for the cluster.
    pub provider: Option<String>,
    /// Today's cost per month, capacity × price.
    pub today_usd_per_month: f64,
    pub usd_per_month: f64,
    /// GPUs on each of the provider's committed terms, longest first: (term, GPUs, $/GPU-h).
    pub committed: Vec<(Term, f64, f64)>,
    /// The provider's hourly price above the base.
    pub hourly_usd_per_gpu_hour: Option<f64>,
    /// Why the cluster stays as it is paid today, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_as_today: Option<String>,
    /// Why it is right-sized at its own price and on its own term (the catalog prices no
    /// provider's terms for it), when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_own_terms: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StayPlan {
    pub usd_per_month: f64,
    pub clusters: Vec<StayCluster>,
}

fn family(provider: &str) -> &str {
    provider.split_whitespace().next().unwrap_or(provider)
}

/// The catalog's market rows of `accelerator` on `term` and deployment, of one family.
fn rows<'a>(catalog: &'a Catalog, cluster: &ClusterToday, family_name: &str, term: Term) -> Vec<&'a Price> {
    catalog
        .prices_for(&cluster.accelerator, "market", term)
        .into_iter()
        .filter(|p| p.deployment == cluster.deployment && family(&p.provider).eq_ignore_ascii_case(family_name))
        .collect()
}

/// The provider family of a cluster: by its price, else by its price source's words.
fn provider_of(catalog: &Catalog, cluster: &ClusterToday) -> Option<String> {
    let term = cluster.term.catalog_term();
    let by_price = catalog
        .prices_for(&cluster.accelerator, "market", term)
        .into_iter()
        .find(|p| {
            let price = p.usd_per_chip_hour();
            p.deployment == cluster.deployment
                && price > 0.0
                && ((price - cluster.usd_per_gpu_hour) / price).abs() <= SAME_PRICE_FRAC
        })
        .map(|p| family(&p.provider).to_string());
    by_price.or_else(|| {
        let source = cluster.plan_price_source.as_deref().unwrap_or(&cluster.price_source);
        let mut families: Vec<&str> = catalog
            .prices
            .iter()
            .filter(|p| p.price_set == "market")
            .map(|p| family(&p.provider))
            .collect();
        families.sort_unstable();
        families.dedup();
        families
            .into_iter()
            .find(|f| {
                source
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| w.eq_ignore_ascii_case(f))
            })
            .map(str::to_string)
    })
}

fn tier(term: TermKind, offer_id: String, usd: f64, months: usize, cluster: &ClusterToday) -> TierOffer {
    TierOffer {
        term,
        offer_id,
        deployment: cluster.deployment,
        usd_per_gpu_hour: usd,
        term_months: months,
        lead_time_hours: Some(0.0),
        max_gpus: None,
    }
}

fn stay_cluster(
    cluster: &ClusterToday,
    demand: &[f64],
    hours_per_point: f64,
    catalog: &Catalog,
    hours_per_month: f64,
) -> StayCluster {
    let today = cluster.capacity_gpus * cluster.usd_per_gpu_hour * hours_per_month;
    let kept = |provider: Option<String>, why: String| StayCluster {
        name: cluster.name.clone(),
        provider,
        today_usd_per_month: today,
        usd_per_month: today,
        committed: Vec::new(),
        hourly_usd_per_gpu_hour: None,
        kept_as_today: Some(why),
        on_own_terms: None,
    };
    let Some(provider) = provider_of(catalog, cluster) else {
        let why = "no catalog provider charges its price or is named by its source".to_string();
        return on_own_terms(cluster, None, why, demand, today, hours_per_month);
    };
    let cheapest = |term: Term| {
        rows(catalog, cluster, &provider, term)
            .first()
            .map(|p| p.usd_per_chip_hour())
    };
    // The cluster's own price stands for its own term (a negotiated rate is kept); the
    // provider's catalog rows for the others.
    let price_of = |term: Term| {
        if cluster.term.catalog_term() == term {
            Some(cluster.usd_per_gpu_hour)
        } else {
            cheapest(term)
        }
    };
    let hourly = price_of(Term::OnDemand);
    let months_of = |hours: f64| ((hours / hours_per_month).round() as usize).max(1);
    let mut committed = Vec::new();
    let mut terms = Vec::new();
    for (term, kind) in [
        (Term::ThreeYear, TermKind::BuildToOrder),
        (Term::OneYear, TermKind::OneYear),
    ] {
        if let Some(usd) = price_of(term) {
            let months = months_of(term.committed_hours(hours_per_month));
            committed.push(tier(kind, format!("{provider} {}", term.label()), usd, months, cluster));
            terms.push(term);
        }
    }
    let Some(hourly) = hourly else {
        return committed_to_peak(cluster, provider, &committed, &terms, demand, today, hours_per_month);
    };
    let menu = TierMenu {
        committed,
        by_use: tier(TermKind::OnDemand, format!("{provider} on-demand"), hourly, 0, cluster),
        by_use_bet: PriceBet::HELD,
        renewal_bet: PriceBet::HELD,
        hours_per_month,
    };
    let points_per_month = ((hours_per_month / hours_per_point).round() as usize).max(1);
    let months = DemandPaths::known(demand, hours_per_point, points_per_month).month_demands();
    let window_hours: f64 = months.iter().map(|m| m.hours).sum();
    if window_hours <= 0.0 {
        return kept(Some(provider), "no hours of demand in the window".to_string());
    }
    let ladder = size_ladder(&menu, &months);
    let cost = ladder_cost(&menu, &ladder, &months, 0..months.len()).total_usd();
    StayCluster {
        name: cluster.name.clone(),
        provider: Some(provider),
        today_usd_per_month: today,
        usd_per_month: cost / window_hours * hours_per_month,
        committed: menu
            .committed
            .iter()
            .enumerate()
            .zip(&terms)
            .map(|((t, offer), &term)| {
                let gpus = ladder.top_at(&menu, t, 0) - ladder.bottom_at(&menu, t, 0);
                (term, gpus.max(0.0), offer.usd_per_gpu_hour)
            })
            .collect(),
        hourly_usd_per_gpu_hour: Some(hourly),
        kept_as_today: None,
        on_own_terms: None,
    }
}

/// A provider with no hourly price in the catalog: its cheapest committed term holds the
/// window's busiest hour (right-sized to the peak, not above it), or the cluster stays as paid.
fn committed_to_peak(
    cluster: &ClusterToday,
    provider: String,
    committed: &[TierOffer],
    terms: &[Term],
    demand: &[f64],
    today: f64,
    hours_per_month: f64,
) -> StayCluster {
    let peak = busiest_hour_gpus(demand);
    let cheapest = committed
        .iter()
        .zip(terms)
        .min_by(|a, b| a.0.usd_per_gpu_hour.total_cmp(&b.0.usd_per_gpu_hour));
    match cheapest {
        Some((offer, &term)) => {
            let usd_per_month = peak * offer.usd_per_gpu_hour * hours_per_month;
            StayCluster {
                name: cluster.name.clone(),
                provider: Some(provider),
                today_usd_per_month: today,
                usd_per_month: usd_per_month.min(today),
                committed: vec![(term, peak, offer.usd_per_gpu_hour)],
                hourly_usd_per_gpu_hour: None,
                kept_as_today: None,
                on_own_terms: None,
            }
        }
        None => {
            let why = format!(
                "the catalog has no {provider} price for {} but today's",
                cluster.accelerator
            );
            on_own_terms(cluster, Some(provider), why, demand, today, hours_per_month)
        }
    }
}

/// The window's busiest hour, in whole GPUs.
fn busiest_hour_gpus(demand: &[f64]) -> f64 {
    demand
        .iter()
        .copied()
        .filter(|g| g.is_finite())
        .fold(0.0, f64::max)
        .ceil()
}

/// A cluster whose provider the catalog cannot price: right-sized on its own hourly demand at
/// its own price and on its own term. Billed by use (on-demand, spot), it pays for the GPUs its
/// jobs held on average; on a commitment, for its busiest hour in whole GPUs. Either scales with
/// demand, so growth multiplies demand and never the capacity paid today.
fn on_own_terms(
    cluster: &ClusterToday,
    provider: Option<String>,
    why: String,
    demand: &[f64],
    today: f64,
    hours_per_month: f64,
) -> StayCluster {
    let price = cluster.usd_per_gpu_hour;
    let by_use = matches!(cluster.term, TermKind::OnDemand | TermKind::Spot);
    let (usd_per_month, committed, hourly) = if by_use {
        let held: f64 = demand.iter().filter(|g| g.is_finite()).sum();
        let mean_gpus = held / demand.len().max(1) as f64;
        (mean_gpus * price * hours_per_month, Vec::new(), Some(price))
    } else {
        let peak_gpus = busiest_hour_gpus(demand);
        (
            peak_gpus * price * hours_per_month,
            vec![(cluster.term.catalog_term(), peak_gpus, price)],
            None,
        )
    };
    StayCluster {
        name: cluster.name.clone(),
        provider,
        today_usd_per_month: today,
        usd_per_month,
        committed,
        hourly_usd_per_gpu_hour: hourly,
        kept_as_today: None,
        on_own_terms: Some(why),
    }
}

/// Every audited cluster kept with its provider, right-sized on its own terms.
pub fn stay_with_providers(
    fleet: &[ClusterToday],
    audit: &AuditReport,
    catalog: &Catalog,
    hours_per_month: f64,
) -> StayPlan {
    let hours_per_point = hours_per_point(audit);
    let clusters: Vec<StayCluster> = fleet
        .iter()
        .filter_map(|cluster| {
            let audited = audit.clusters.iter().find(|c| c.name == cluster.name)?;
            let mut demand: Vec<f64> = Vec::new();
            for class in WorkloadClass::ALL {
                let series = cluster_class_series(audited, class);
                if demand.len() < series.len() {
                    demand.resize(series.len(), 0.0);
                }
                for (sum, gpus) in demand.iter_mut().zip(series) {
                    *sum += gpus;
                }
            }
            Some(stay_cluster(
                cluster,
                &demand,
                hours_per_point,
                catalog,
                hours_per_month,
            ))
        })
        .collect();
    StayPlan {
        usd_per_month: clusters.iter().map(|c| c.usd_per_month).sum(),
        clusters,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::deployment::Deployment;

    fn cluster(usd_per_gpu_hour: f64, term: TermKind, source: &str) -> ClusterToday {
        ClusterToday {
            name: "c".into(),
            accelerator: "h100-sxm".into(),
            term,
            deployment: Deployment::Vm,
            capacity_gpus: 64.0,
            peak_concurrent_gpus: 40.0,
            usd_per_gpu_hour,
            price_source: "plan".into(),
            plan_price_source: Some(source.into()),
            in_plan: true,
            list_priced: false,
            commitment_ends: None,
            today_by_class_usd_per_month: [0.0; 3],
            right_sized_usd_per_month: 0.0,
            today_source: crate::model::fleet_contracts::TodaySource::CapacityTimesPrice,
            models: Vec::new(),
            unstated_models: Vec::new(),
        }
    }

    #[test]
    fn a_steady_cluster_stays_with_its_provider_on_its_three_year_term() {
        let catalog = crate::config::catalog::builtin().catalog;
        // AWS's 1-year Savings Plan price names the provider; 10 GPUs busy every hour.
        let c = cluster(4.3344, TermKind::OneYear, "");
        let demand = vec![10.0; 90 * 24];
        let stay = stay_cluster(&c, &demand, 1.0, &catalog, 730.0);
        assert_eq!(stay.provider.as_deref(), Some("AWS"));
        let (term, gpus, usd) = stay.committed[0];
        assert_eq!(term, Term::ThreeYear);
        assert!((gpus - 10.0).abs() < 1e-6, "{stay:?}");
        assert!((stay.usd_per_month - 10.0 * usd * 730.0).abs() < 1e-3, "{stay:?}");
        assert_eq!(stay.today_usd_per_month, 64.0 * 4.3344 * 730.0);
    }

    #[test]
    fn the_provider_comes_from_the_price_source_when_no_row_charges_the_price() {
        let catalog = crate::config::catalog::builtin().catalog;
        let c = cluster(9.99, TermKind::OnDemand, "Azure Retail Prices API, eastus");
        let stay = stay_cluster(&c, &[5.0; 48], 1.0, &catalog, 730.0);
        assert_eq!(stay.provider.as_deref(), Some("Azure"));
        assert_eq!(
            stay.hourly_usd_per_gpu_hour,
            Some(9.99),
            "its own hourly price: Azure's H100 on-demand row is not it"
        );
    }

    #[test]
    fn a_cluster_no_provider_prices_is_right_sized_at_its_own_price_and_term() {
        let catalog = crate::config::catalog::builtin().catalog;
        // 64 GPUs paid, 5 held on average: by use it pays for the 5, never for the 64.
        let by_use = cluster(9.99, TermKind::OnDemand, "a reseller's quote");
        let stay = stay_cluster(&by_use, &[5.0; 48], 1.0, &catalog, 730.0);
        assert_eq!(stay.provider, None);
        assert!(stay.kept_as_today.is_none() && stay.on_own_terms.is_some(), "{stay:?}");
        assert!((stay.usd_per_month - 5.0 * 9.99 * 730.0).abs() < 1e-6, "{stay:?}");
        assert!(stay.usd_per_month < stay.today_usd_per_month);
        // On a year's commitment it holds its busiest hour, in whole GPUs.
        let committed = cluster(9.99, TermKind::OneYear, "a reseller's quote");
        let mut demand = vec![5.0; 48];
        demand[7] = 11.2;
        let stay = stay_cluster(&committed, &demand, 1.0, &catalog, 730.0);
        assert_eq!(stay.committed, vec![(Term::OneYear, 12.0, 9.99)]);
        assert!((stay.usd_per_month - 12.0 * 9.99 * 730.0).abs() < 1e-6, "{stay:?}");
    }
}
