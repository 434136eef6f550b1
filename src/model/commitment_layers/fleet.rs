//! Every class of the audited fleet layered on the accelerator the contract matching chose
//! for it, from the forecast the Forecast pane shows (the same fits and plan assumptions):
//! what `gpuplan report`, the Contracts pane and the backtest read.

use rayon::prelude::*;
use serde::Serialize;

use super::choice::{PurchaseChoice, purchase_choice};
use super::flat::flat_ladder;
use super::ladder::{TierMenu, TierOffer};
use super::paths::DemandPaths;
use super::policy::{PolicyInputs, PolicySelection, chosen_for, pinned_by_plan, policy_ladder};
use super::price_stress::{PriceStress, break_even_change_per_year, price_stress};
use super::risk::Layer;
use super::term_choice::{choose_over_term, far_longer};
use super::{CommitmentError, FIRST_YEAR_MONTHS, PathMonths, SpanCost, horizon_cost, risk, year_cost};
use crate::model::catalog::{Catalog, Term};
use crate::model::contracts::{ContractOffer, PureTermCost, TermKind};
use crate::model::fleet::iso_utc;
use crate::model::fleet_contracts::{ClassContracts, ContractsReport};
use crate::model::forecast::{
    ChosenBy, ClassAssumptions, FanPoint, FleetFits, PlanAssumptions, Policy, SeriesFit, horizon_points,
};
use crate::model::plan::Plan;
use crate::model::price_trend::PriceBet;
use crate::model::workload::WorkloadClass;

/// The yearly price changes a class's layers were weighed with, and where they come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceChangeUsed {
    pub accelerator: String,
    /// As stated (the plan's row, else the catalog's), before the plan's trust.
    pub on_demand_per_year: f64,
    pub spot_per_year: f64,
    /// "plan", the catalog row's source, or "none known: prices held".
    pub source: String,
    pub as_of: Option<String>,
    /// One standard deviation of the yearly change, and where it comes from.
    pub spread_per_year: f64,
    pub spread_source: String,
    /// The share of the stated change the layers are sized on (`[commitments]
    /// price_trend_trust`; 1 without it).
    pub price_trend_trust: f64,
}

impl PriceChangeUsed {
    /// The bet the layers are sized on for a term moving by `stated_per_year`.
    pub fn bet(&self, stated_per_year: f64) -> PriceBet {
        PriceBet {
            change_per_year: self.price_trend_trust * stated_per_year,
            spread_per_year: self.spread_per_year,
        }
    }
}

/// One class's layers on its accelerator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassLayers {
    pub class: WorkloadClass,
    pub accelerator: String,
    /// GPUs of `accelerator` per GPU the fleet ran (delivered capability, as the matching
    /// counts them).
    pub gpus_per_fleet_gpu: f64,
    /// The plan's yearly growth factor, when it replaces the fitted trend.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth_per_year: Option<f64>,
    /// The policy the purchase follows, chosen by the class's own backtest; `layers`,
    /// `first_year`, `horizon` and `price_stress` are its sizing.
    pub chosen_by: ChosenBy,
    /// Longest term first; the term billed by use last.
    pub layers: Vec<Layer>,
    pub first_year: SpanCost,
    /// Today's matcher's mix, the history held flat, on the same forecast.
    pub flat_first_year: SpanCost,
    /// The same two over every month of the horizon the layers were sized for.
    pub horizon: SpanCost,
    pub flat_horizon: SpanCost,
    /// The bet on the market's price the layers were sized on (renewals and on-demand).
    pub price_bet: PriceBet,
    /// Both over the horizon as prices hold, move as stated, or twice as fast.
    pub price_stress: Vec<PriceStress>,
    /// The yearly change above which the longest committed term pays against the shorter
    /// ones; None when none from -90 % to +900 % tips it.
    pub break_even_change_per_year: Option<f64>,
    /// The longest committed term the chosen purchase holds, and its GPUs today.
    pub longest_term: Option<LongestTerm>,
    /// The purchase the plan recommends (the chosen policy) against the flat mix
    /// (`purchase_sentence` says it).
    pub recommended: PurchaseChoice,
}

/// The longest term of a class's menu and what the layers buy on it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LongestTerm {
    pub term: TermKind,
    pub offer_id: String,
    pub months: usize,
    pub gpus: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitmentReport {
    pub horizon_start: String,
    /// Months the demand paths run: the longest term offered.
    pub horizon_months: usize,
    pub classes: Vec<ClassLayers>,
    pub price_changes: Vec<PriceChangeUsed>,
    /// Classes that could not be layered, and why.
    pub not_layered: Vec<String>,
}

/// The yearly price changes for `accelerator`: the plan's rows, else the catalog's; spot
/// without a row moves as on-demand.
pub fn price_change(plan: &Plan, catalog: &Catalog, accelerator: &str) -> PriceChangeUsed {
    let plan_row = |term: Term| {
        plan.price_changes
            .iter()
            .find(|c| c.term == term && catalog.accelerator(&c.accelerator).is_some_and(|a| a.id == accelerator))
    };
    let plan_rate = |term: Term| plan_row(term).map(|c| c.change_per_year);
    let plan_spread = plan_row(Term::OnDemand).map(|c| c.spread_per_year);
    let catalog_row = catalog.price_change(accelerator, Term::OnDemand);
    let on_demand = plan_rate(Term::OnDemand).or(catalog_row.map(|c| c.change_per_year));
    let (spread_per_year, spread_source) = match (plan_spread, catalog_row) {
        (Some(Some(spread)), _) => (spread, "plan".to_string()),
        (Some(None), _) => (0.0, "plan: the change taken as stated".to_string()),
        (None, Some(row)) => {
            let (spread, source) = row.spread();
            (spread, source.to_string())
        }
        (None, None) => (0.0, "none known: prices held".to_string()),
    };
    let spot = plan_rate(Term::Spot)
        .or(catalog.price_change(accelerator, Term::Spot).map(|c| c.change_per_year))
        .or(on_demand);
    let from_plan = plan_rate(Term::OnDemand).is_some() || plan_rate(Term::Spot).is_some();
    PriceChangeUsed {
        accelerator: accelerator.to_string(),
        on_demand_per_year: on_demand.unwrap_or(0.0),
        spot_per_year: spot.unwrap_or(0.0),
        source: match (from_plan, catalog_row) {
            (true, _) => "plan".to_string(),
            (false, Some(row)) => row.source.clone(),
            (false, None) => "none known: prices held".to_string(),
        },
        as_of: catalog_row.filter(|_| !from_plan).map(|row| row.as_of.clone()),
        spread_per_year,
        spread_source,
        price_trend_trust: plan.commitments.unwrap_or_default().price_trend_trust,
    }
}

/// The terms a class's layers are chosen from: the matching's cheapest offer of each
/// committed term (longest first) and the cheapest billed by use.
pub fn tier_menu(
    class: &ClassContracts,
    offers: &[ContractOffer],
    hours_per_month: f64,
    change: &PriceChangeUsed,
) -> Result<TierMenu, CommitmentError> {
    let months_of = |offer_id: &str| offer_months(offers, offer_id, hours_per_month);
    let tier = |p: &PureTermCost| TierOffer {
        term: p.term,
        offer_id: p.offer_id.clone(),
        deployment: p.deployment,
        usd_per_gpu_hour: p.effective_usd_per_gpu_hour,
        term_months: if p.term.bills_by_use() {
            0
        } else {
            months_of(&p.offer_id)
        },
        lead_time_hours: p.lead_time_hours,
        max_gpus: p.max_gpus,
    };
    let mut committed: Vec<TierOffer> = class
        .pure_terms
        .iter()
        .filter(|p| !p.term.bills_by_use())
        .map(tier)
        .collect();
    sort_longest_first(&mut committed);
    let by_use = class
        .pure_terms
        .iter()
        .filter(|p| p.term.bills_by_use())
        .min_by(|a, b| a.effective_usd_per_gpu_hour.total_cmp(&b.effective_usd_per_gpu_hour))
        .map(tier)
        .ok_or_else(|| CommitmentError::NoByUseOffer {
            accelerator: class.accelerator.clone(),
        })?;
    let by_use_bet = change.bet(if by_use.term == TermKind::Spot {
        change.spot_per_year
    } else {
        change.on_demand_per_year
    });
    Ok(TierMenu {
        committed,
        by_use,
        by_use_bet,
        renewal_bet: change.bet(change.on_demand_per_year),
        hours_per_month,
    })
}

/// Committed tiers longest first; of one length, the cheaper lower.
fn sort_longest_first(committed: &mut [TierOffer]) {
    committed.sort_by(|a, b| {
        b.term_months
            .cmp(&a.term_months)
            .then(b.term.cmp(&a.term))
            .then(a.usd_per_gpu_hour.total_cmp(&b.usd_per_gpu_hour))
    });
}

/// `menu` with every committed offer today's matcher (`flat`) uses, so the layers can always
/// buy what flat buys: flat is then one of the layerings the sizing weighs.
pub(super) fn holding_flat_offers(menu: &TierMenu, flat: &TierMenu) -> TierMenu {
    let mut committed = menu.committed.clone();
    for offer in &flat.committed {
        if !committed.iter().any(|o| o.offer_id == offer.offer_id) {
            committed.push(offer.clone());
        }
    }
    sort_longest_first(&mut committed);
    let by_use = if flat.by_use.usd_per_gpu_hour < menu.by_use.usd_per_gpu_hour {
        flat.by_use.clone()
    } else {
        menu.by_use.clone()
    };
    TierMenu {
        committed,
        by_use,
        ..menu.clone()
    }
}

/// An offer's commitment in whole months (at least one).
pub(super) fn offer_months(offers: &[ContractOffer], offer_id: &str, hours_per_month: f64) -> usize {
    let hours = offers
        .iter()
        .find(|o| o.id == offer_id)
        .map_or(hours_per_month, |o| o.minimum_hours);
    ((hours / hours_per_month).round() as usize).max(1)
}

/// The class's forecast over `months` months in GPUs of its matched accelerator.
pub(super) fn class_paths(
    fit: &SeriesFit,
    class: WorkloadClass,
    assumptions: ClassAssumptions<'_>,
    gpus_per_fleet_gpu: f64,
    hours_per_month: f64,
    months: usize,
) -> DemandPaths {
    let hours_per_point = f64::from(fit.hours_per_point.max(1));
    let points_per_month = ((hours_per_month / hours_per_point).round() as usize).max(1);
    let points = horizon_points(fit, class, assumptions, months * points_per_month)
        .into_iter()
        .map(|p| FanPoint {
            mean: p.mean * gpus_per_fleet_gpu,
            lo80: p.lo80 * gpus_per_fleet_gpu,
            hi80: p.hi80 * gpus_per_fleet_gpu,
            lo95: p.lo95 * gpus_per_fleet_gpu,
            hi95: p.hi95 * gpus_per_fleet_gpu,
        })
        .collect();
    DemandPaths {
        points,
        hours_per_point,
        points_per_month,
    }
}

/// Months a menu's demand paths run: its longest commitment, at least the first year.
pub(super) fn horizon_months_of(menu: &TierMenu) -> usize {
    menu.committed
        .iter()
        .map(|t| t.term_months)
        .max()
        .unwrap_or(0)
        .max(FIRST_YEAR_MONTHS)
}

/// GPUs of the matched accelerator per GPU of the fleet's history: the matching's delivered
/// GPU-hours over the class's own.
pub fn gpus_per_fleet_gpu(class: &ClassContracts, fleet_gpu_hours: f64) -> Option<f64> {
    let factor = class.demand_gpu_hours / fleet_gpu_hours;
    (fleet_gpu_hours > 0.0 && factor.is_finite() && factor > 0.0).then_some(factor)
}

pub(super) fn class_index(class: WorkloadClass) -> usize {
    WorkloadClass::ALL.iter().position(|c| *c == class).unwrap_or(0)
}

/// What a class's purchase is sized from beside the forecast: the plan, the catalog, the
/// contract matching and each class's policy chosen by its backtest (`selection`).
pub struct CommitmentInputs<'a> {
    pub assumptions: &'a PlanAssumptions,
    pub contracts: &'a ContractsReport,
    pub plan: &'a Plan,
    pub catalog: &'a Catalog,
    pub selection: &'a [PolicySelection],
}

/// Sizes every matched class of `contracts` on the forecast `fits` shaped by `assumptions`,
/// by the policy its backtest chose. None when the catalog has no contract offers.
pub fn commitment_report(fits: &FleetFits, inputs: &CommitmentInputs<'_>) -> Option<CommitmentReport> {
    commitment_report_keeping(fits, inputs, &[])
}

/// A class's layers, the price change they assumed and the months they run; or, for a class
/// that cannot be layered, which and why.
type ClassLayering = Result<(ClassLayers, PriceChangeUsed, usize), (WorkloadClass, CommitmentError)>;

/// As `commitment_report`, with the layers of the classes in `kept` taken as they are: the
/// caller knows nothing they read changed (a growth slider moves one class; the others'
/// layers stand). Only their price change and months are looked up again.
pub fn commitment_report_keeping(
    fits: &FleetFits,
    inputs: &CommitmentInputs<'_>,
    kept: &[ClassLayers],
) -> Option<CommitmentReport> {
    let CommitmentInputs {
        assumptions,
        contracts,
        plan,
        catalog,
        selection,
    } = *inputs;
    let offers = &catalog.contracts.as_ref()?.offers;
    let hours_per_month = contracts.hours_per_month;
    // The classes on both cores: a growth step redraws within a frame.
    let layered: Vec<ClassLayering> = contracts
        .classes
        .par_iter()
        .map(|class| {
            let fit = &fits.fleet[class_index(class.class)];
            let fleet_gpu_hours =
                fit.history_mean_gpus * fit.history_points as f64 * f64::from(fit.hours_per_point.max(1));
            let factor = gpus_per_fleet_gpu(class, fleet_gpu_hours).ok_or((class.class, CommitmentError::NoDemand))?;
            let change = price_change(plan, catalog, &class.accelerator);
            let menu = tier_menu(class, offers, hours_per_month, &change).map_err(|why| (class.class, why))?;
            let months = horizon_months_of(&menu);
            if let Some(layers) = kept
                .iter()
                .find(|k| k.class == class.class && k.accelerator == class.accelerator)
            {
                return Ok((layers.clone(), change, months));
            }
            let growth = assumptions.growth.get(class.class);
            let class_assumptions = ClassAssumptions {
                growth_per_year: growth,
                planned: &assumptions.planned,
            };
            let paths = class_paths(fit, class.class, class_assumptions, factor, hours_per_month, months);
            let demands = paths.month_demands();
            let flat = flat_ladder(&class.best_mix, &menu, |id| offer_months(offers, id, hours_per_month));
            let menu = holding_flat_offers(&menu, &flat.0);
            let on_paths = PathMonths::of(&paths);
            let chosen_by = chosen_for(selection, class.class, &class.accelerator);
            let naive = || naive_months(fit, factor, &paths);
            let policy_inputs = PolicyInputs {
                menu: &menu,
                flat: &flat,
                forecast: &demands,
                low_quantile: &on_paths.p10,
                naive: &naive,
            };
            let chosen_by = match plan.commitments.and_then(|c| c.policy) {
                Some(pinned) => pinned_by_plan(chosen_by, pinned),
                // Holdouts far shorter than the term cannot speak for it: the purchase is chosen
                // over the term on the forecast's own paths.
                // A history too short for the backtest is too short for a 36-month fan: flat stands.
                None if chosen_by.reason.is_none() && far_longer(months, chosen_by.holdout_days) => {
                    let costs: Vec<(Policy, SpanCost)> = Policy::SIMPLEST_FIRST
                        .iter()
                        .map(|&policy| {
                            let (m, l) = policy_ladder(policy, &policy_inputs);
                            (policy, horizon_cost(&m, &l, &demands, &on_paths))
                        })
                        .collect();
                    choose_over_term(chosen_by, &costs, months)
                }
                None => chosen_by,
            };
            let (chosen_menu, chosen_ladder) = policy_ladder(chosen_by.policy, &policy_inputs);
            let (flat_menu, flat_tops) = &flat;
            let longest_term = chosen_menu.committed.first().map(|offer| LongestTerm {
                term: offer.term,
                offer_id: offer.offer_id.clone(),
                months: offer.term_months,
                gpus: (chosen_ladder.top_at(&chosen_menu, 0, 0)).max(0.0),
            });
            let horizon = horizon_cost(&chosen_menu, &chosen_ladder, &demands, &on_paths);
            let flat_horizon = horizon_cost(flat_menu, flat_tops, &demands, &on_paths);
            let stress = price_stress(&chosen_menu, &chosen_ladder, &flat, &demands, change.on_demand_per_year);
            let recommended = purchase_choice(
                chosen_by.policy,
                &horizon,
                &flat_horizon,
                &stress,
                menu.renewal_bet.change_per_year,
            );
            let layers = ClassLayers {
                class: class.class,
                accelerator: class.accelerator.clone(),
                gpus_per_fleet_gpu: factor,
                growth_per_year: growth,
                chosen_by,
                layers: risk::todays_layers(&chosen_menu, &chosen_ladder, &paths, &demands, FIRST_YEAR_MONTHS),
                first_year: year_cost(&chosen_menu, &chosen_ladder, &demands, &on_paths),
                flat_first_year: year_cost(flat_menu, flat_tops, &demands, &on_paths),
                horizon,
                flat_horizon,
                price_bet: menu.renewal_bet,
                price_stress: stress,
                // The break-even of the term the purchase holds longest (`longest_term`), not the menu's.
                break_even_change_per_year: break_even_change_per_year(&chosen_menu, &demands),
                longest_term,
                recommended,
            };
            Ok((layers, change, months))
        })
        .collect();
    let mut classes = Vec::new();
    let mut not_layered = Vec::new();
    let mut price_changes: Vec<PriceChangeUsed> = Vec::new();
    let mut horizon_months = FIRST_YEAR_MONTHS;
    for result in layered {
        match result {
            Ok((layers, change, months)) => {
                horizon_months = horizon_months.max(months);
                if !price_changes.iter().any(|c| c.accelerator == change.accelerator) {
                    price_changes.push(change);
                }
                classes.push(layers);
            }
            Err((class, why)) => not_layered.push(format!("{}: {why}", class.label())),
        }
    }
    Some(CommitmentReport {
        horizon_start: iso_utc(fits.fleet[0].horizon_start_ms),
        horizon_months,
        classes,
        price_changes,
        not_layered,
    })
}

/// Seasonal naive's forecast over the horizon of `paths`: the fit's last season of history,
/// in GPUs of the class's accelerator, repeated.
fn naive_months(fit: &SeriesFit, gpus_per_fleet_gpu: f64, paths: &DemandPaths) -> Vec<super::paths::MonthDemand> {
    paths
        .season_repeated(&fit.last_season_gpus, gpus_per_fleet_gpu)
        .month_demands()
}
