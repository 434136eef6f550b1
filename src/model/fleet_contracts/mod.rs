//! Contract-term matching of an audited fleet (docs/board.md): each class's hourly demand from
//! the audit of the plan's logs, priced three ways for the board's waterfall: as bought today,
//! on its best term mix at today's prices, and on the catalog's cheapest feasible accelerator
//! and offers.

mod accelerator_choice;
mod billed_today;
mod fleet_today;
mod match_terms;
mod today_prices;

use serde::Serialize;

pub use accelerator_choice::{
    AcceleratorOption, Normalization, PendingOffer, ServedModel, params_of_model_class, served_model,
};
pub use billed_today::with_billed_today;
pub use fleet_today::{
    ClusterToday, FleetTotals, TodaySource, UNLISTED_ACCELERATOR, UnstatedModel, cluster_class_series, clusters_today,
    fleet_totals, hours_per_point,
};
pub use match_terms::MatchTerms;
pub use today_prices::TodayPriceGroup;

use super::catalog::Catalog;
use super::contracts::{MixRow, OfferExclusion, PureTermCost};
use super::fleet::AuditReport;
use super::plan::Plan;
use super::workload::WorkloadClass;

/// The accelerator a class was matched to and the one after it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunnerUp {
    pub accelerator: String,
    pub cost_usd_per_month: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassContracts {
    pub class: WorkloadClass,
    /// The catalog's cheapest feasible accelerator for the class.
    pub accelerator: String,
    /// GPUs of today's accelerators carried into `accelerator`'s: by dense BF16 peak, for
    /// inference by memory bandwidth (or the plan's measured tokens per second).
    pub normalization: Vec<Normalization>,
    pub runner_up: Option<RunnerUp>,
    /// Peak concurrent GPUs of `accelerator`, in delivered capability.
    pub peak_gpus: f64,
    pub demand_gpu_hours: f64,
    pub best_mix: Vec<MixRow>,
    pub cost_usd_per_month: f64,
    pub unused_committed_gpu_hours: f64,
    pub pure_terms: Vec<PureTermCost>,
    /// Offers left out because the class cannot run on them (memory, interconnect, lead time).
    pub excluded_offers: Vec<String>,
    /// The same offers with why each was left out.
    pub exclusions: Vec<OfferExclusion>,
    /// Supply figures the chosen offers' sellers do not state, assumed to suffice.
    pub assumed_supply: Vec<String>,
    /// The largest gang the class must run, in GPUs of the chosen accelerator (training).
    pub largest_gang_gpus: Option<f64>,
    /// Every accelerator considered: its cost, or why the class cannot run on it.
    pub options: Vec<AcceleratorOption>,
    /// Per generated million tokens, for inference when the plan gives a monthly volume.
    pub usd_per_million_tokens: Option<f64>,
    /// The class on today's accelerators at today's prices, on its best term mix.
    pub today_prices: Vec<TodayPriceGroup>,
    pub today_prices_usd_per_month: f64,
    /// Jobs that never started, offered as demand on the chosen accelerator: flagged, never in
    /// the waterfall (today's fleet did not serve them either).
    pub pending: Option<PendingOffer>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractsReport {
    pub window_days: f64,
    /// Where the audited window ends (UTC milliseconds): the board's timeline starts after it.
    pub window_end_ms: i64,
    pub hours_per_month: f64,
    /// Each audited cluster as bought today.
    pub fleet: Vec<ClusterToday>,
    pub classes: Vec<ClassContracts>,
    /// Problems that kept a class from being matched, e.g. no offer prices its accelerator.
    pub unmatched: Vec<String>,
    /// What the audited clusters cost today, consolidated.
    pub consolidated_usd_per_month: f64,
    /// The same clusters cut to their p95 concurrent GPUs.
    pub right_sized_usd_per_month: f64,
    /// Today's cost per class (`WorkloadClass as usize`): each cluster's split by its classes'
    /// GPU-hours.
    pub today_by_class_usd_per_month: [f64; 3],
    /// The right-sized cost per class, split the same way.
    pub right_sized_by_class_usd_per_month: [f64; 3],
    /// Each class on its best term mix, today's accelerators and prices.
    pub term_mix_usd_per_month: f64,
    /// The workload-matched plan: each class's best mix on its cheapest feasible accelerator.
    /// Its saving is not kept here: the board's one saving is the waterfall's
    /// (`Waterfall::saving_usd_per_year`), which adds the replay's correction and the forecast.
    pub matched_usd_per_month: f64,
    /// Clusters the plan does not list, priced at the fallback rate.
    pub fallback_price_clusters: Vec<String>,
    /// The fallback rate and where it comes from, when a cluster used it.
    pub fallback_price: Option<(f64, String)>,
    /// Clusters the plan does not list, priced at the list price of the accelerator their
    /// log's GPU type names: (cluster, accelerator).
    pub list_priced_clusters: Vec<(String, String)>,
    /// The plan's served model, for the inference fit.
    pub served_model: Option<ServedModel>,
    /// Offers whose stated lead time is longer were left out; true when the plan gives no
    /// `[moving] needed_within_weeks` and the default stands.
    pub needed_within_weeks: f64,
    pub needed_within_weeks_assumed: bool,
}

impl ClassContracts {
    /// The offers left out, one entry per reason, in the order first met.
    pub fn exclusions_by_reason(&self) -> Vec<(&str, Vec<&str>)> {
        let mut by_reason: Vec<(&str, Vec<&str>)> = Vec::new();
        for e in &self.exclusions {
            match by_reason.iter_mut().find(|(reason, _)| *reason == e.reason) {
                Some((_, offers)) => offers.push(&e.offer_id),
                None => by_reason.push((&e.reason, vec![&e.offer_id])),
            }
        }
        by_reason
    }
}

impl ContractsReport {
    /// The fleet's totals (today, right-sized, per class), from its clusters'
    /// rows: set once when matched, again when a bill puts its cost in place of a row's.
    pub fn sum_fleet(&mut self) {
        let totals = fleet_totals(&self.fleet);
        self.consolidated_usd_per_month = totals.today_usd_per_month;
        self.right_sized_usd_per_month = totals.right_sized_usd_per_month;
        self.today_by_class_usd_per_month = totals.today_by_class_usd_per_month;
        self.right_sized_by_class_usd_per_month = totals.right_sized_by_class_usd_per_month;
    }

    pub fn class(&self, class: WorkloadClass) -> Option<&ClassContracts> {
        self.classes.iter().find(|c| c.class == class)
    }
}

/// The class's GPUs in use in each hour, summed over the clusters GPU for GPU: for the replay,
/// which counts jobs' GPUs, not for prices.
pub fn class_demand(audit: &AuditReport, class: WorkloadClass) -> Vec<f64> {
    fleet_today::weighted_class_demand(audit, class, |_| 1.0)
}

/// Matches each class of the audit, on today's accelerators at today's prices and on every
/// accelerator the catalog prices. `None` when the catalog has no contract offers.
pub fn contracts_report(plan: &Plan, catalog: &Catalog, audit: &AuditReport) -> Option<ContractsReport> {
    let offers = &catalog.contracts.as_ref()?.offers;
    let fleet = clusters_today(plan, catalog, audit);
    let model = served_model(&plan.inference);
    let terms = MatchTerms::of(plan, audit);
    let mut classes = Vec::new();
    let mut unmatched = Vec::new();
    for class in WorkloadClass::ALL {
        if class_demand(audit, class).iter().all(|&g| g <= 0.0) {
            continue;
        }
        let today_prices = today_prices::today_price_groups(class, &fleet, audit, catalog, offers, &terms);
        let today_prices_usd_per_month = today_prices.iter().map(|g| g.cost_usd_per_month).sum();
        let context = accelerator_choice::MatchContext {
            fleet: &fleet,
            audit,
            catalog,
            offers,
            terms,
            measured_tokens_per_second: &plan.inference.measured_tokens_per_second,
        };
        let options = accelerator_choice::accelerator_options(class, &context, model.as_ref());
        let mut feasible = options.iter().filter(|o| o.result.is_some());
        let (Some(chosen), runner_up) = (feasible.next(), feasible.next()) else {
            let why: Vec<String> = options
                .iter()
                .filter_map(|o| o.why_not.as_ref().map(|w| format!("{}: {w}", o.accelerator)))
                .collect();
            unmatched.push(format!("{}: no feasible offer ({})", class.label(), why.join("; ")));
            continue;
        };
        let Some(result) = chosen.result.clone() else {
            continue;
        };
        let usd_per_million_tokens = (class == WorkloadClass::Inference && plan.inference.tokens_per_month > 0.0)
            .then(|| result.cost_usd_per_month / (plan.inference.tokens_per_month / 1e6));
        let pending = accelerator_choice::with_pending(class, &chosen.accelerator, &context, result.cost_usd_per_month);
        classes.push(ClassContracts {
            pending,
            class,
            accelerator: chosen.accelerator.clone(),
            normalization: chosen.normalization.clone(),
            runner_up: runner_up.and_then(|r| {
                r.cost_usd_per_month.map(|cost| RunnerUp {
                    accelerator: r.accelerator.clone(),
                    cost_usd_per_month: cost,
                })
            }),
            peak_gpus: result.peak_gpus,
            demand_gpu_hours: result.demand_gpu_hours,
            best_mix: result.best_mix,
            cost_usd_per_month: result.cost_usd_per_month,
            unused_committed_gpu_hours: result.unused_committed_gpu_hours,
            pure_terms: result.pure_terms,
            excluded_offers: result.excluded_offer_ids,
            exclusions: result.exclusions,
            assumed_supply: result.assumed_supply,
            largest_gang_gpus: (class == WorkloadClass::Training).then_some(chosen.gang_gpus),
            options,
            usd_per_million_tokens,
            today_prices,
            today_prices_usd_per_month,
        });
    }
    let matched: f64 = classes.iter().map(|c| c.cost_usd_per_month).sum();
    let term_mix: f64 = classes.iter().map(|c| c.today_prices_usd_per_month).sum();
    let at_fallback = |c: &&ClusterToday| !c.in_plan && !c.list_priced;
    let fallback_price_clusters: Vec<String> = fleet.iter().filter(at_fallback).map(|c| c.name.clone()).collect();
    let fallback_price = fleet
        .iter()
        .find(at_fallback)
        .map(|c| (c.usd_per_gpu_hour, c.price_source.clone()));
    let list_priced_clusters = fleet
        .iter()
        .filter(|c| c.list_priced)
        .map(|c| (c.name.clone(), c.accelerator.clone()))
        .collect();
    let mut report = ContractsReport {
        window_days: audit.window.days,
        window_end_ms: audit.window.end_ms,
        hours_per_month: terms.hours_per_month,
        classes,
        unmatched,
        consolidated_usd_per_month: 0.0,
        right_sized_usd_per_month: 0.0,
        today_by_class_usd_per_month: [0.0; 3],
        right_sized_by_class_usd_per_month: [0.0; 3],
        term_mix_usd_per_month: term_mix,
        matched_usd_per_month: matched,
        fallback_price_clusters,
        fallback_price,
        list_priced_clusters,
        served_model: model,
        needed_within_weeks: terms.needed_within_weeks,
        needed_within_weeks_assumed: plan.moving.as_ref().and_then(|m| m.needed_within_weeks).is_none(),
        fleet,
    };
    report.sum_fleet();
    Some(report)
}
