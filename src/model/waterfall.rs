//! The board's savings waterfall (docs/board.md): from what the fleet costs as paid to the
//! workload-matched plan, one cause per step, each with its assumption, so the headline is the
//! sum of figures a planner can trace.
//!
//! 1. today as paid: every audited cluster's capacity at its price;
//! 2. right-sized: each cluster cut to its p95 concurrent GPUs, same terms and prices;
//! 3. term mix: each class on its best mix of terms, on today's accelerators at today's prices;
//! 4. split pools: the replay of the jobs through one pool per class, sized by step 3's bases
//!    (a training pool too small for its largest gang replayed at the gang's size too, the
//!    cheaper kept),
//!    with its overflow: what gang scheduling and queueing add or take away;
//! 5. cheapest offers: each class on the catalog's cheapest feasible accelerator and offers,
//!    carrying step 4's correction per class;
//! 6. forecast demand: the switched fleet bought for the forecast's demand over the audited
//!    window's, with the saving's other drivers at their point values (the range is drawn
//!    around this step: docs/board.md, "One headline").

use serde::Serialize;

use super::attribution::{Attribution, ClassCauses, attribute};
use super::board_checks::{board_checks, cheapest_offers_usd_per_month};
use super::board_purchase::{ClassPurchase, purchase_factor, purchases_text};
use super::board_timeline::{
    ClusterMove, TimelineMonth, Timing, assumed_months_held, month_after, months_held, timeline,
};
use super::commitment_layers::{StayCluster, StayPlan};
use super::contracts::TermKind;
use super::fleet_contracts::{ClassContracts, ContractsReport, TodaySource};
use super::judgment::JudgmentCheck;
use super::saving_drivers::BoardInputs;
use super::saving_range::{
    ClassSwitch, DEMAND, Driver, SavingRange, TodayCost, TornadoBar, class_cost_at_point, saving_range,
    switched_cost_at_point, tornado,
};
use super::split::ReplayReport;
use super::workload::WorkloadClass;
use crate::shared::format::{thousands, usd, usd_compact};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    Today,
    RightSized,
    TermMix,
    SplitPools,
    CheapestOffers,
    ForecastDemand,
}

impl StepKind {
    pub const ALL: [StepKind; 6] = [
        StepKind::Today,
        StepKind::RightSized,
        StepKind::TermMix,
        StepKind::SplitPools,
        StepKind::CheapestOffers,
        StepKind::ForecastDemand,
    ];

    pub fn label(self) -> &'static str {
        match self {
            StepKind::Today => "today as paid",
            StepKind::RightSized => "clusters cut to p95",
            StepKind::TermMix => "demand, best terms",
            StepKind::SplitPools => "pools replayed",
            StepKind::CheapestOffers => "cheapest GPU/seller",
            StepKind::ForecastDemand => "forecast demand",
        }
    }

    /// The step's cause in a few words, for a narrow pane.
    pub fn basis(self) -> &'static str {
        match self {
            StepKind::Today => "capacity × price",
            StepKind::RightSized => "each cluster to its p95",
            StepKind::TermMix => "hourly demand re-bought",
            StepKind::SplitPools => "job replay, pools + overflow",
            StepKind::CheapestOffers => "catalog's GPUs and sellers",
            StepKind::ForecastDemand => "bought for the forecast",
        }
    }
}

/// One step: the fleet's monthly cost after it, or why it could not be computed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaterfallStep {
    pub step: StepKind,
    pub usd_per_month: Option<f64>,
    /// Against the last step that has a figure; `None` for the first and for a missing step.
    pub change_usd_per_month: Option<f64>,
    pub assumption: String,
    pub why_not: Option<String>,
}

/// An end state the board can choose: staying with today's providers or switching.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alternative {
    /// `stay` or `switch`.
    pub name: &'static str,
    pub usd_per_month: f64,
    pub saving_usd_per_year: f64,
    pub basis: String,
    /// For `stay`: each cluster with its provider, terms and cost.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clusters: Vec<StayCluster>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Waterfall {
    pub steps: Vec<WaterfallStep>,
    pub today_usd_per_month: f64,
    /// The last step with a figure.
    pub final_usd_per_month: f64,
    pub saving_usd_per_month: f64,
    /// The headline: today less the last step, a year. With classes matched, the saving with
    /// every driver at its point value, the figure the range is drawn around.
    pub saving_usd_per_year: f64,
    /// Staying with today's providers beside switching to the catalog's cheapest (the last
    /// step); empty without a stay plan.
    pub alternatives: Vec<Alternative>,
    /// The saving split over its causes independently of the steps' order (Shapley values);
    /// empty when no class was matched.
    pub attribution: Vec<Attribution>,
    /// The saving's P10, P50 and P90 over its drivers drawn together; None when no class was
    /// matched.
    pub range: Option<SavingRange>,
    /// Each driver swung alone, the widest first.
    pub tornado: Vec<TornadoBar>,
    /// The drivers and their spreads, with where each comes from.
    pub drivers: Vec<Driver>,
    /// Month by month from the audited window's end: commitments running out, dual running and
    /// the one-off costs of moving; empty when no class was matched.
    pub timeline: Vec<TimelineMonth>,
    /// What the timeline adds up to: the first year's cash saving, the run rate, the one-off
    /// costs and their payback month.
    pub timing: Option<Timing>,
    /// The part of step 1 priced by assumption (clusters the plan does not list) and its
    /// share of the saving: the board's lead where there is one.
    pub assumed_prices: Option<super::assumed_prices::AssumedPrices>,
    /// The board's checks of its own conclusions (model::judgment), each holding or saying
    /// what fails; the ones that fail are flagged beside the headline.
    pub checks: Vec<JudgmentCheck>,
}

impl Waterfall {
    pub fn alternative(&self, name: &str) -> Option<&Alternative> {
        self.alternatives.iter().find(|a| a.name == name)
    }

    /// What switching saves a year on top of staying.
    pub fn switching_adds_usd_per_year(&self) -> Option<f64> {
        Some(self.alternative("stay")?.usd_per_month * 12.0 - self.alternative("switch")?.usd_per_month * 12.0)
    }
}

/// The replay's split pool of a class, per month: committed GPUs plus overflow.
fn split_class_usd_per_month(replay: &ReplayReport, class: WorkloadClass) -> Option<f64> {
    let index = WorkloadClass::ALL.iter().position(|&c| c == class)?;
    replay.split.pools.get(index).map(|p| p.total_usd_per_month)
}

/// The clusters priced at their log's accelerator's list price, as `name (accelerator)`.
pub fn list_priced(c: &ContractsReport) -> String {
    c.list_priced_clusters
        .iter()
        .map(|(name, accelerator)| format!("{name} ({accelerator})"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn today_assumption(c: &ContractsReport) -> String {
    let gpus: f64 = c.fleet.iter().map(|f| f.capacity_gpus).sum();
    let billed: Vec<&str> = c
        .fleet
        .iter()
        .filter(|f| f.today_source == TodaySource::Bill)
        .map(|f| f.name.as_str())
        .collect();
    let mut text = if billed.is_empty() {
        format!(
            "{} clusters, {} GPUs at their prices × {} h/month",
            c.fleet.len(),
            thousands(gpus),
            thousands(c.hours_per_month)
        )
    } else {
        let listed: Vec<&str> = c
            .fleet
            .iter()
            .filter(|f| f.today_source != TodaySource::Bill)
            .map(|f| f.name.as_str())
            .collect();
        format!(
            "{} clusters, {} GPUs; as billed (the FOCUS bill's effective cost a month, commitments amortized): {}; \
             capacity × price × {} h/month (the bill charges nothing of them): {}",
            c.fleet.len(),
            thousands(gpus),
            billed.join(", "),
            thousands(c.hours_per_month),
            if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join(", ")
            }
        )
    };
    if !c.list_priced_clusters.is_empty() {
        text.push_str(&format!(
            "; not in the plan, priced as on-demand VMs at the list price of the accelerator their log names (assumed): {}",
            list_priced(c)
        ));
    }
    if let Some((rate, source)) = &c.fallback_price {
        text.push_str(&format!(
            "; not in the plan, priced at the {}/GPU-h fallback ({source}) as on-demand H100 VMs: {}",
            usd(*rate),
            c.fallback_price_clusters.join(", ")
        ));
    }
    text
}

/// Why the term-mix step costs more than the right-sized clusters, when it does: demand of an
/// accelerator no catalog offer prices cannot be re-termed, so each class keeps its own peak
/// on it (classes peaking apart add up to more than the clusters' p95).
fn term_mix_above_right_sized(c: &ContractsReport) -> Option<String> {
    if c.term_mix_usd_per_month <= c.right_sized_usd_per_month * (1.0 + 1e-9) {
        return None;
    }
    let mut unpriced: Vec<&str> = c
        .classes
        .iter()
        .flat_map(|class| class.today_prices.iter())
        .filter(|group| group.price_factor.is_none())
        .map(|group| group.accelerator.as_str())
        .collect();
    unpriced.sort_unstable();
    unpriced.dedup();
    Some(if unpriced.is_empty() {
        "it costs more than step 2: each class bought apart on its own best terms holds more than the clusters' \
         shared 95th percentile"
            .to_string()
    } else {
        format!(
            "it costs more than step 2: no catalog offer prices {}, so each class keeps its own peak on it at today's \
             price and term, and classes peaking apart hold more than the clusters' shared 95th percentile",
            unpriced.join(", ")
        )
    })
}

fn term_mix_assumption(c: &ContractsReport) -> String {
    // Each class's factors; classes anchored alike are named together.
    let mut groups: Vec<(Vec<&str>, Vec<String>)> = Vec::new();
    for class in &c.classes {
        let factors: Vec<String> = class
            .today_prices
            .iter()
            .map(|group| match (&group.reference_offer, group.price_factor) {
                (Some(offer), Some(factor)) => format!("{} ×{factor:.2} of {offer}", group.accelerator),
                _ => format!("{} unpriced", group.accelerator),
            })
            .collect();
        match groups.iter_mut().find(|(_, f)| *f == factors) {
            Some((classes, _)) => classes.push(class.class.label()),
            None => groups.push((vec![class.class.label()], factors)),
        }
    }
    let anchors: Vec<String> = if groups.len() == 1 {
        groups.into_iter().map(|(_, factors)| factors.join("; ")).collect()
    } else {
        groups
            .into_iter()
            .map(|(classes, factors)| format!("{}: {}", classes.join(" and "), factors.join(", ")))
            .collect()
    };
    format!(
        "not from step 2's clusters: each class's hourly demand re-bought on today's accelerators at today's price \
         level, on the cheapest mix of a committed base and a shorter term; the catalog's terms scaled so the \
         cheapest offer the class can run on, of each cluster's term, costs today's price ({})",
        anchors.join("; ")
    )
}

fn choice_text(class: &ClassContracts) -> String {
    let mut text = format!(
        "{} {} ({}/mo",
        class.class.label(),
        class.accelerator,
        usd_compact(class.cost_usd_per_month)
    );
    if let Some(r) = &class.runner_up {
        text.push_str(&format!(
            "; then {} {}",
            r.accelerator,
            usd_compact(r.cost_usd_per_month)
        ));
    }
    text.push(')');
    text
}

/// Each class's costs under each cause, for the attribution: the same figures the steps add up.
fn class_causes(
    c: &ContractsReport,
    replay: Option<&ReplayReport>,
    demand: &[(WorkloadClass, f64)],
) -> Vec<ClassCauses> {
    WorkloadClass::ALL
        .iter()
        .enumerate()
        .map(|(k, &class)| {
            let matched = c.class(class).filter(|m| m.today_prices_usd_per_month > 0.0);
            let over_mix = |cost: Option<f64>| match (cost, matched) {
                (Some(cost), Some(m)) => cost / m.today_prices_usd_per_month,
                _ => 1.0,
            };
            ClassCauses {
                today_usd: c.today_by_class_usd_per_month[k],
                right_sized_usd: c.right_sized_by_class_usd_per_month[k],
                term_mix_usd: matched.map(|m| m.today_prices_usd_per_month),
                separation_factor: over_mix(replay.and_then(|r| split_class_usd_per_month(r, class))),
                price_factor: over_mix(matched.map(|m| m.cost_usd_per_month)),
                demand_factor: demand.iter().find(|(c, _)| *c == class).map_or(1.0, |(_, f)| *f),
            }
        })
        .collect()
}

/// Each audited cluster on the timeline: today's cost, its share of the switched fleet (each
/// class's switched cost split by the cluster's share of the class's cost today; a class no
/// offer matched stays as it is) and the months its commitment holds it.
fn cluster_moves(
    c: &ContractsReport,
    switched: &[ClassSwitch],
    drivers: &[Driver],
    year: i32,
    month: u32,
) -> Vec<ClusterMove> {
    let class_total = c.today_by_class_usd_per_month;
    c.fleet
        .iter()
        .map(|cluster| {
            let switched_usd: f64 = WorkloadClass::ALL
                .iter()
                .enumerate()
                .map(|(k, &class)| {
                    let today = cluster.today_by_class_usd_per_month[k];
                    match switched.iter().find(|s| s.class == class) {
                        Some(s) if class_total[k] > 0.0 => class_cost_at_point(s, drivers) * today / class_total[k],
                        _ => today,
                    }
                })
                .sum();
            let held = cluster
                .commitment_ends
                .as_deref()
                .and_then(|ends| months_held(year, month, ends))
                .unwrap_or_else(|| assumed_months_held(cluster.term));
            ClusterMove {
                name: cluster.name.clone(),
                today_usd_per_month: cluster.today_by_class_usd_per_month.iter().sum(),
                switched_usd_per_month: switched_usd,
                held_months: held,
            }
        })
        .collect()
}

/// What step 6 assumes: each driver whose point value is not 1, by what it multiplies the
/// switched fleet and where it comes from.
fn forecast_demand_assumption(drivers: &[Driver], purchases: &[ClassPurchase]) -> String {
    let moved: Vec<String> = drivers
        .iter()
        .filter(|d| d.spread.mode != 1.0)
        .map(|d| format!("{} ×{:.3} ({})", d.driver.replace('_', " "), d.spread.mode, d.basis))
        .collect();
    let demand = drivers.iter().find(|d| d.driver == DEMAND);
    let basis = if moved.is_empty() {
        format!(
            "the switched fleet bought for the audited window's demand: {}",
            demand.map_or("no demand driver", |d| d.basis.as_str())
        )
    } else {
        format!(
            "the switched fleet bought for the forecast, today's cost as paid; the saving's drivers at their point \
             values, the middle of the range: {}",
            moved.join("; ")
        )
    };
    format!("{basis}; {}", purchases_text(purchases))
}

/// Each matched class as the switched fleet buys it, for the range and the tornado.
fn class_switches(c: &ContractsReport, replay: Option<&ReplayReport>, purchases: &[ClassPurchase]) -> Vec<ClassSwitch> {
    c.classes
        .iter()
        .map(|class| {
            let separation_factor = replay
                .and_then(|r| split_class_usd_per_month(r, class.class))
                .filter(|_| class.today_prices_usd_per_month > 0.0)
                .map_or(1.0, |split| split / class.today_prices_usd_per_month);
            // Preemption redoes spot work: it adds to the spend on spot.
            let spend: f64 = class.best_mix.iter().map(|row| row.cost_usd).sum();
            let spot: f64 = class
                .best_mix
                .iter()
                .filter(|row| row.term == TermKind::Spot)
                .map(|row| row.cost_usd)
                .sum();
            ClassSwitch {
                class: class.class,
                offers_usd: class.cost_usd_per_month,
                separation_factor,
                carried_over: !class.today_prices.iter().any(|g| g.accelerator == class.accelerator),
                spot_share: if spend > 0.0 { spot / spend } else { 0.0 },
                purchase_factor: purchase_factor(purchases, class.class),
            }
        })
        .collect()
}

/// The waterfall of a matched fleet, with the replay's split when there is one. `replay_why_not`
/// says why there is none (no jobs to replay, a replay still running, one that failed).
pub fn waterfall(
    c: &ContractsReport,
    replay: Option<&ReplayReport>,
    replay_why_not: &str,
    stay: Option<&StayPlan>,
    inputs: &BoardInputs,
) -> Waterfall {
    let drivers = inputs.drivers.as_slice();
    let mut steps = vec![
        WaterfallStep {
            step: StepKind::Today,
            usd_per_month: Some(c.consolidated_usd_per_month),
            change_usd_per_month: None,
            assumption: today_assumption(c),
            why_not: None,
        },
        WaterfallStep {
            step: StepKind::RightSized,
            usd_per_month: Some(c.right_sized_usd_per_month),
            change_usd_per_month: None,
            assumption: "each cluster cut to its 95th-percentile concurrent GPUs (whole GPUs), same term and \
                         price: 5 % of hours would queue"
                .to_string(),
            why_not: None,
        },
    ];
    let classes_matched = !c.classes.is_empty();
    steps.push(WaterfallStep {
        step: StepKind::TermMix,
        usd_per_month: classes_matched.then_some(c.term_mix_usd_per_month),
        change_usd_per_month: None,
        assumption: term_mix_assumption(c),
        why_not: if classes_matched {
            term_mix_above_right_sized(c)
        } else {
            Some("no class could be matched to the catalog's offers".to_string())
        },
    });
    let split = replay.filter(|_| classes_matched).map(|r| {
        let total: f64 = c
            .classes
            .iter()
            .map(|class| split_class_usd_per_month(r, class.class).unwrap_or(class.today_prices_usd_per_month))
            .sum();
        (r, total)
    });
    steps.push(match split {
        Some((r, total)) => WaterfallStep {
            step: StepKind::SplitPools,
            usd_per_month: Some(total),
            change_usd_per_month: None,
            assumption: format!(
                "{} jobs replayed through one pool per class, sized by the term mix's committed bases, with \
                 the shorter term as overflow: {} jobs on overflow, {} never started{}",
                thousands(r.jobs as f64),
                thousands(r.split.totals.jobs_on_overflow as f64),
                thousands(r.split.totals.jobs_never_started as f64),
                r.gang_sizing.as_ref().map_or(String::new(), |g| format!(
                    "; the {} pool also replayed at {} GPUs to hold its largest gang: {}/month against {}, {}",
                    g.class.label(),
                    thousands(g.gang_gpus),
                    usd(g.gang_usd_per_month),
                    usd(g.base_usd_per_month),
                    if g.gang_kept { "kept" } else { "not kept" }
                ))
            ),
            why_not: None,
        },
        None => WaterfallStep {
            step: StepKind::SplitPools,
            usd_per_month: None,
            change_usd_per_month: None,
            assumption: "the replay of the jobs through one pool per class".to_string(),
            why_not: Some(replay_why_not.to_string()),
        },
    });
    let cheapest: f64 = c
        .classes
        .iter()
        .map(|class| {
            let correction = split
                .and_then(|(r, _)| split_class_usd_per_month(r, class.class))
                .filter(|_| class.today_prices_usd_per_month > 0.0)
                .map_or(1.0, |s| s / class.today_prices_usd_per_month);
            class.cost_usd_per_month * correction
        })
        .sum();
    let choices: Vec<String> = c.classes.iter().map(choice_text).collect();
    steps.push(WaterfallStep {
        step: StepKind::CheapestOffers,
        usd_per_month: classes_matched.then_some(cheapest),
        change_usd_per_month: None,
        assumption: format!(
            "each class on the catalog's cheapest accelerator and offers it can run on (gangs joined, stated \
             supply, lead time), demand carried over by dense BF16 peak (inference by memory bandwidth), spot \
             priced with the work preemption makes it redo{}: {}",
            if split.is_some() {
                ", times its split pool's cost over its term mix"
            } else {
                ""
            },
            choices.join("; ")
        ),
        why_not: (!classes_matched).then(|| "no class could be matched to the catalog's offers".to_string()),
    });
    let switched = class_switches(c, split.map(|(r, _)| r), &inputs.purchases);
    steps.push(WaterfallStep {
        step: StepKind::ForecastDemand,
        usd_per_month: classes_matched.then(|| switched_cost_at_point(&switched, drivers)),
        change_usd_per_month: None,
        assumption: forecast_demand_assumption(drivers, &inputs.purchases),
        why_not: (!classes_matched).then(|| "no class could be matched to the catalog's offers".to_string()),
    });
    let mut last = None;
    for step in &mut steps {
        if let Some(value) = step.usd_per_month {
            step.change_usd_per_month = last.map(|previous: f64| value - previous);
            last = Some(value);
        }
    }
    let today = c.consolidated_usd_per_month;
    let final_usd = last.unwrap_or(today);
    // Staying is bought for the same demand as switching, so the two compare like for like.
    let demand_point = drivers
        .iter()
        .find(|d| d.driver == DEMAND)
        .map_or(1.0, |d| d.spread.mode);
    let alternatives = stay
        .map(|stay| {
            // Growth multiplies demand, never the capacity paid today: a cluster right-sized on
            // its demand is bought for the forecast's; one kept as paid stays as paid.
            let clusters: Vec<StayCluster> = stay
                .clusters
                .iter()
                .map(|cluster| StayCluster {
                    usd_per_month: if cluster.kept_as_today.is_some() {
                        cluster.usd_per_month
                    } else {
                        cluster.usd_per_month * demand_point
                    },
                    ..cluster.clone()
                })
                .collect();
            let stay_usd: f64 = clusters.iter().map(|c| c.usd_per_month).sum();
            let named = |keep: fn(&StayCluster) -> bool| -> Vec<&str> {
                stay.clusters.iter().filter(|s| keep(s)).map(|s| s.name.as_str()).collect()
            };
            let kept = named(|s| s.kept_as_today.is_some());
            let own = named(|s| s.on_own_terms.is_some());
            vec![
                Alternative {
                    name: "stay",
                    usd_per_month: stay_usd,
                    saving_usd_per_year: (today - stay_usd) * 12.0,
                    basis: format!(
                        "every cluster with its provider, right-sized on its own hourly demand: a base on the provider's \
                         1-year and 3-year terms, its hourly price above{}{}{}",
                        if own.is_empty() {
                            String::new()
                        } else {
                            format!(
                                "; at its own price and term (the catalog prices no provider's terms for it): {}",
                                own.join(", ")
                            )
                        },
                        if kept.is_empty() {
                            String::new()
                        } else {
                            format!("; as paid today (no hours of demand in the window): {}", kept.join(", "))
                        },
                        if demand_point == 1.0 {
                            String::new()
                        } else {
                            format!(
                                "; bought for the forecast's demand like the switch: each cluster's demand × {demand_point:.3} \
                                 (growth multiplies demand, never the capacity paid today)"
                            )
                        }
                    ),
                    clusters,
                },
                Alternative {
                    name: "switch",
                    usd_per_month: final_usd,
                    saving_usd_per_year: (today - final_usd) * 12.0,
                    basis: "the waterfall's last step: each class on the catalog's cheapest feasible accelerator and offers"
                        .to_string(),
                    clusters: Vec::new(),
                },
            ]
        })
        .unwrap_or_default();
    let attribution = if classes_matched {
        let demand: Vec<(WorkloadClass, f64)> = switched
            .iter()
            .map(|s| {
                let without = s.offers_usd * s.separation_factor;
                let factor = if without > 0.0 {
                    class_cost_at_point(s, drivers) / without
                } else {
                    1.0
                };
                (s.class, factor)
            })
            .collect();
        attribute(&class_causes(c, split.map(|(r, _)| r), &demand))
    } else {
        Vec::new()
    };
    let board_timeline = classes_matched.then(|| {
        let (year, month) = month_after(c.window_end_ms);
        let moves = cluster_moves(c, &switched, drivers, year, month);
        timeline(&moves, &inputs.moving, year, month, inputs.horizon_months)
    });
    let assumed = super::assumed_prices::assumed_prices(c, (today - final_usd) * 12.0);
    let checks = board_checks(
        c,
        cheapest_offers_usd_per_month(&steps),
        final_usd,
        &alternatives,
        assumed.as_ref(),
        inputs,
    );
    let today_cost = TodayCost {
        usd_per_month: today,
        unstated_usd_per_month: c
            .fleet
            .iter()
            .map(|k| k.unstated_usd_per_month(c.hours_per_month))
            .sum(),
    };
    let (range, tornado_bars) = if classes_matched {
        (
            Some(saving_range(today_cost, &switched, drivers)),
            tornado(today_cost, &switched, drivers),
        )
    } else {
        (None, Vec::new())
    };
    Waterfall {
        attribution,
        range,
        tornado: tornado_bars,
        drivers: drivers.to_vec(),
        timeline: board_timeline.as_ref().map(|t| t.months.clone()).unwrap_or_default(),
        timing: board_timeline.map(|t| t.timing),
        steps,
        today_usd_per_month: today,
        final_usd_per_month: final_usd,
        saving_usd_per_month: today - final_usd,
        saving_usd_per_year: (today - final_usd) * 12.0,
        checks,
        alternatives,
        assumed_prices: assumed,
    }
}
