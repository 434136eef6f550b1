//! Bill lines summed per cluster and per SKU over a window, per month, and against the plan.
//!
//! - The window is the audit's (a log's) or the bill's own billing period ([`BillWindow::own`]).
//! - Over the audit's window, a line counts by the share of its charge period inside it (a line
//!   of 1 to 3 July with the window opening on 2 July counts half); a line with an empty period
//!   (start = end) counts whole when its instant is inside. Lines wholly outside are counted
//!   apart.
//! - Over the bill's own period, every line counts whole, as invoiced: a term paid at once
//!   charges its whole price in the period that bills it, whatever its charge period.
//! - Per month = the window's figure × hours_per_month / the window's hours.
//! - The effective cost splits, with nothing counted twice, into: commitment discounts used
//!   and unused (`CommitmentDiscountStatus`), capacity reservations used and unused
//!   (`CapacityReservationStatus`, when the line has no commitment status), on-demand usage
//!   (`PricingCategory` Standard or Dynamic), other usage, purchases, tax, credits and
//!   adjustments. The same split holds for the billed (cash) cost.
//! - The gap is the bill's per-month figure less the plan's modelled cost of the cluster.

use std::collections::BTreeMap;

use serde::Serialize;

use super::plan::UNASSIGNED;
use super::{Assignment, BillLine, ChargeCategory, HoursUnit, PricingCategory, UsageStatus};

const MS_PER_HOUR: f64 = 3_600_000.0;

/// One amount, as the invoice has it (cash) and amortized. Never summed with each other.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Cost {
    /// `BilledCost`: cash, the basis of the invoice.
    pub billed_usd: f64,
    /// `EffectiveCost`: amortized, upfront purchases spread over the usage they cover.
    pub effective_usd: f64,
}

impl Cost {
    fn add(&mut self, other: Cost) {
        self.billed_usd += other.billed_usd;
        self.effective_usd += other.effective_usd;
    }

    fn scaled(self, factor: f64) -> Cost {
        Cost {
            billed_usd: self.billed_usd * factor,
            effective_usd: self.effective_usd * factor,
        }
    }
}

/// A total and the parts it splits into; the parts sum to the total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CostBreakdown {
    pub total: Cost,
    /// Usage covered by a commitment discount (`CommitmentDiscountStatus` = Used).
    pub commitment_used: Cost,
    /// The unused part of a commitment discount: stranded spend on the bill itself.
    pub commitment_unused: Cost,
    /// Usage of a capacity reservation (`CapacityReservationStatus` = Used).
    pub reservation_used: Cost,
    /// The unused part of a capacity reservation: stranded spend on the bill itself.
    pub reservation_unused: Cost,
    /// Usage at list or negotiated rates or dynamic (spot) prices, with no commitment.
    pub on_demand: Cost,
    /// Usage priced otherwise (`Committed` or `Other` without a status, or no category).
    pub other_usage: Cost,
    /// Commitment and other purchases: cash when paid, 0 effective when amortized.
    pub purchase: Cost,
    pub tax: Cost,
    pub credit: Cost,
    pub adjustment: Cost,
}

impl CostBreakdown {
    fn add_line(&mut self, line: &BillLine, share: f64) {
        let cost = Cost {
            billed_usd: line.billed_cost_usd * share,
            effective_usd: line.effective_cost_usd * share,
        };
        self.total.add(cost);
        let part = match line.charge_category {
            ChargeCategory::Purchase => &mut self.purchase,
            ChargeCategory::Tax => &mut self.tax,
            ChargeCategory::Credit => &mut self.credit,
            ChargeCategory::Adjustment => &mut self.adjustment,
            ChargeCategory::Usage => match (line.commitment_discount_status, line.capacity_reservation_status) {
                (Some(UsageStatus::Used), _) => &mut self.commitment_used,
                (Some(UsageStatus::Unused), _) => &mut self.commitment_unused,
                (None, Some(UsageStatus::Used)) => &mut self.reservation_used,
                (None, Some(UsageStatus::Unused)) => &mut self.reservation_unused,
                (None, None) => match line.pricing_category {
                    Some(PricingCategory::Standard | PricingCategory::Dynamic) => &mut self.on_demand,
                    _ => &mut self.other_usage,
                },
            },
        };
        part.add(cost);
    }

    fn add(&mut self, other: &CostBreakdown) {
        for (mine, theirs) in self.parts_mut().into_iter().zip(other.parts()) {
            mine.add(theirs);
        }
    }

    fn scaled(&self, factor: f64) -> CostBreakdown {
        let mut out = *self;
        for part in out.parts_mut() {
            *part = part.scaled(factor);
        }
        out
    }

    fn parts(&self) -> [Cost; 11] {
        [
            self.total,
            self.commitment_used,
            self.commitment_unused,
            self.reservation_used,
            self.reservation_unused,
            self.on_demand,
            self.other_usage,
            self.purchase,
            self.tax,
            self.credit,
            self.adjustment,
        ]
    }

    fn parts_mut(&mut self) -> [&mut Cost; 11] {
        [
            &mut self.total,
            &mut self.commitment_used,
            &mut self.commitment_unused,
            &mut self.reservation_used,
            &mut self.reservation_unused,
            &mut self.on_demand,
            &mut self.other_usage,
            &mut self.purchase,
            &mut self.tax,
            &mut self.credit,
            &mut self.adjustment,
        ]
    }

    /// Unused commitments and reservations: what the bill itself says was paid for and idle.
    pub fn unused(&self) -> Cost {
        let mut unused = self.commitment_unused;
        unused.add(self.reservation_unused);
        unused
    }
}

/// The bill's figure less the plan's, per month, and as a share of the plan's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Gap {
    /// Effective (amortized) per month − modelled per month.
    pub effective_usd_per_month: f64,
    /// The same over the modelled cost; `None` when the plan models 0.
    pub effective_frac: Option<f64>,
    /// Billed (cash) per month − modelled per month.
    pub billed_usd_per_month: f64,
    pub billed_frac: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BillCluster {
    pub name: String,
    /// Lines with some of their charge period in the window.
    pub lines: u64,
    /// Of those, lines straddling an edge of the window, counted by their share inside.
    pub prorated_lines: u64,
    /// Lines claimed by the patterns of more than one cluster (this one, first by name, took them).
    pub lines_also_matched: u64,
    pub window: CostBreakdown,
    pub per_month: CostBreakdown,
    /// Usage hours in the window when `ConsumedUnit` names GPUs (`GPU-Hours`).
    pub gpu_hours: Option<f64>,
    /// Usage hours in the window of whole resources (`Hours`, `Instance-Hours`...).
    pub resource_hours: Option<f64>,
    /// The plan's cost of the cluster per month, when the plan or the audit has one.
    pub modelled_usd_per_month: Option<f64>,
    pub gap: Option<Gap>,
}

impl BillCluster {
    fn empty(name: &str) -> BillCluster {
        BillCluster {
            name: name.to_string(),
            lines: 0,
            prorated_lines: 0,
            lines_also_matched: 0,
            window: CostBreakdown::default(),
            per_month: CostBreakdown::default(),
            gpu_hours: None,
            resource_hours: None,
            modelled_usd_per_month: None,
            gap: None,
        }
    }

    fn add_line(&mut self, line: &BillLine, share: f64, prorated: bool) {
        self.lines += 1;
        self.prorated_lines += u64::from(prorated);
        self.window.add_line(line, share);
        if line.charge_category == ChargeCategory::Usage
            && let Some((unit, hours)) = line.consumed_hours
        {
            let slot = match unit {
                HoursUnit::Gpu => &mut self.gpu_hours,
                HoursUnit::Resource => &mut self.resource_hours,
            };
            *slot = Some(slot.unwrap_or(0.0) + hours * share);
        }
    }

    fn finish(&mut self, per_month_factor: f64, modelled_usd_per_month: Option<f64>) {
        self.per_month = self.window.scaled(per_month_factor);
        self.modelled_usd_per_month = modelled_usd_per_month;
        self.gap = modelled_usd_per_month.map(|modelled| {
            let frac = |gap: f64| (modelled > 0.0).then(|| gap / modelled);
            let effective = self.per_month.total.effective_usd - modelled;
            let billed = self.per_month.total.billed_usd - modelled;
            Gap {
                effective_usd_per_month: effective,
                effective_frac: frac(effective),
                billed_usd_per_month: billed,
                billed_frac: frac(billed),
            }
        });
    }
}

/// Lines whose charge period lies wholly outside the window: counted, not summed in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct OutsideWindow {
    pub lines: u64,
    /// Their whole amounts.
    pub cost: Cost,
    pub earliest_start_ms: Option<i64>,
    pub latest_end_ms: Option<i64>,
}

/// What a window is, and so how a line is placed in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowBasis {
    /// The audit's window of a log: a line counts by the share of its charge period inside.
    Audit,
    /// The bill alone, over the span of its `BillingPeriodStart`/`End`: every line counts whole.
    BillingPeriod,
    /// The bill alone, over the span of its charge periods (an export without billing periods):
    /// every line counts whole.
    ChargePeriod,
}

/// The window `[start, end)` a bill is summed over.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BillWindow {
    pub start_ms: i64,
    pub end_ms: i64,
    pub basis: WindowBasis,
}

impl BillWindow {
    /// The audit's window of a log.
    pub fn audit(start_ms: i64, end_ms: i64) -> BillWindow {
        BillWindow {
            start_ms,
            end_ms,
            basis: WindowBasis::Audit,
        }
    }

    /// The bill's own period: from the earliest to the latest of its lines' billing periods
    /// when every line has one, else of their charge periods (and the billing periods given),
    /// so that every line lies within it. `None` without lines.
    pub fn own(lines: &[BillLine]) -> Option<BillWindow> {
        let all_billed = lines.iter().all(|l| l.billing_period_ms.is_some());
        let spans = lines.iter().flat_map(|l| {
            let charge = (l.charge_period_start_ms, l.charge_period_end_ms);
            match (all_billed, l.billing_period_ms) {
                (true, Some(billing)) => [Some(billing), None],
                (_, billing) => [Some(charge), billing],
            }
            .into_iter()
            .flatten()
        });
        let (start_ms, end_ms) = spans.fold(None, |span: Option<(i64, i64)>, (s, e)| {
            Some(span.map_or((s, e), |(a, b)| (a.min(s), b.max(e))))
        })?;
        Some(BillWindow {
            start_ms,
            end_ms,
            basis: if all_billed {
                WindowBasis::BillingPeriod
            } else {
                WindowBasis::ChargePeriod
            },
        })
    }

    pub fn hours(&self) -> f64 {
        (self.end_ms - self.start_ms).max(0) as f64 / MS_PER_HOUR
    }

    /// The share of a line counted in the window: by its charge period over the audit's
    /// window; whole over the bill's own when its billing period (else its charge period) lies
    /// within it.
    fn share(&self, line: &BillLine) -> f64 {
        let charge = (line.charge_period_start_ms, line.charge_period_end_ms);
        match self.basis {
            WindowBasis::Audit => share_in_window(charge.0, charge.1, self.start_ms, self.end_ms),
            WindowBasis::BillingPeriod | WindowBasis::ChargePeriod => {
                let (start, end) = line.billing_period_ms.unwrap_or(charge);
                if self.start_ms <= start && end <= self.end_ms {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }
}

/// One provider's SKU: its lines in the window and what they cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BillSku {
    pub provider: Option<String>,
    pub sku_id: Option<String>,
    pub lines: u64,
    pub window: CostBreakdown,
    pub per_month: CostBreakdown,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BillReport {
    pub window_start_ms: i64,
    pub window_end_ms: i64,
    /// `audit` (a log's window), `billing_period` or `charge_period` (the bill's own).
    pub window_basis: WindowBasis,
    pub window_hours: f64,
    pub hours_per_month: f64,
    /// Clusters by name: those lines were assigned to, and those the plan models.
    pub clusters: Vec<BillCluster>,
    /// Lines no cluster claims.
    pub unassigned: BillCluster,
    /// Every line in the window, clusters and unassigned together.
    pub fleet: BillCluster,
    /// Every line in the window by provider and SKU, the largest first (by the larger of
    /// billed and effective).
    pub skus: Vec<BillSku>,
    pub outside_window: OutsideWindow,
    /// Over the bill's own period: lines counted whole whose charge period runs past it (a
    /// term paid at once).
    pub charged_beyond_window: u64,
    /// Tag values naming no known cluster, with their line counts, most lines first.
    pub unknown_tags: Vec<(String, u64)>,
}

impl BillReport {
    /// The SKUs after the first `shown`, summed as one (`None` when there are no more), with
    /// how many they are.
    pub fn other_skus(&self, shown: usize) -> Option<(usize, BillSku)> {
        let rest = self.skus.get(shown..).filter(|rest| !rest.is_empty())?;
        let mut sum = BillSku {
            provider: None,
            sku_id: None,
            lines: 0,
            window: CostBreakdown::default(),
            per_month: CostBreakdown::default(),
        };
        for sku in rest {
            sum.lines += sku.lines;
            sum.window.add(&sku.window);
            sum.per_month.add(&sku.per_month);
        }
        Some((rest.len(), sum))
    }
}

/// The share of `[start, end)` inside `[window_start, window_end)`; an empty period is an
/// instant, inside or not.
pub fn share_in_window(start_ms: i64, end_ms: i64, window_start_ms: i64, window_end_ms: i64) -> f64 {
    if end_ms <= start_ms {
        return if (window_start_ms..window_end_ms).contains(&start_ms) {
            1.0
        } else {
            0.0
        };
    }
    let overlap = end_ms.min(window_end_ms) - start_ms.max(window_start_ms);
    if overlap <= 0 {
        0.0
    } else {
        overlap as f64 / (end_ms - start_ms) as f64
    }
}

/// Sums `lines` over `window`, each line in the cluster `assign` gives it, and sets each
/// cluster against `modelled_usd_per_month`.
pub fn bill_report<'a>(
    lines: &'a [BillLine],
    window: BillWindow,
    hours_per_month: f64,
    assign: impl Fn(&'a BillLine) -> Assignment<'a>,
    modelled_usd_per_month: &BTreeMap<String, f64>,
) -> BillReport {
    let window_hours = window.hours();
    let mut clusters: BTreeMap<&str, BillCluster> = BTreeMap::new();
    let mut unassigned = BillCluster::empty(UNASSIGNED);
    let mut skus: BTreeMap<(Option<&str>, Option<&str>), BillSku> = BTreeMap::new();
    let mut outside = OutsideWindow::default();
    let mut charged_beyond_window = 0;
    let mut unknown_tags: BTreeMap<&str, u64> = BTreeMap::new();
    for line in lines {
        let (start, end) = (line.charge_period_start_ms, line.charge_period_end_ms);
        let share = window.share(line);
        if share <= 0.0 {
            outside.lines += 1;
            outside.cost.add(Cost {
                billed_usd: line.billed_cost_usd,
                effective_usd: line.effective_cost_usd,
            });
            outside.earliest_start_ms = Some(outside.earliest_start_ms.map_or(start, |e| e.min(start)));
            outside.latest_end_ms = Some(outside.latest_end_ms.map_or(end, |l| l.max(end)));
            continue;
        }
        let prorated = share < 1.0;
        charged_beyond_window +=
            u64::from(window.basis != WindowBasis::Audit && (start < window.start_ms || end > window.end_ms));
        let sku = skus
            .entry((line.provider.as_deref(), line.sku_id.as_deref()))
            .or_insert_with(|| BillSku {
                provider: line.provider.as_deref().map(str::to_string),
                sku_id: line.sku_id.as_deref().map(str::to_string),
                lines: 0,
                window: CostBreakdown::default(),
                per_month: CostBreakdown::default(),
            });
        sku.lines += 1;
        sku.window.add_line(line, share);
        match assign(line) {
            Assignment::Cluster { name, also_matched } => {
                let cluster = clusters.entry(name).or_insert_with(|| BillCluster::empty(name));
                cluster.add_line(line, share, prorated);
                cluster.lines_also_matched += u64::from(also_matched);
            }
            Assignment::UnknownTag(tag) => {
                *unknown_tags.entry(tag).or_insert(0) += 1;
                unassigned.add_line(line, share, prorated);
            }
            Assignment::Unassigned => unassigned.add_line(line, share, prorated),
        }
    }
    for name in modelled_usd_per_month.keys() {
        clusters.entry(name).or_insert_with(|| BillCluster::empty(name));
    }
    let per_month_factor = if window_hours > 0.0 {
        hours_per_month / window_hours
    } else {
        0.0
    };
    let mut fleet = BillCluster::empty("fleet");
    let mut clusters: Vec<BillCluster> = clusters.into_values().collect();
    for cluster in clusters.iter_mut().chain([&mut unassigned]) {
        cluster.finish(per_month_factor, modelled_usd_per_month.get(&cluster.name).copied());
        fleet.lines += cluster.lines;
        fleet.prorated_lines += cluster.prorated_lines;
        fleet.lines_also_matched += cluster.lines_also_matched;
        fleet.window.add(&cluster.window);
        for (total, part) in [
            (&mut fleet.gpu_hours, cluster.gpu_hours),
            (&mut fleet.resource_hours, cluster.resource_hours),
        ] {
            if let Some(hours) = part {
                *total = Some(total.unwrap_or(0.0) + hours);
            }
        }
    }
    let modelled_total: f64 = modelled_usd_per_month.values().sum();
    fleet.finish(
        per_month_factor,
        (!modelled_usd_per_month.is_empty()).then_some(modelled_total),
    );
    let mut skus: Vec<BillSku> = skus
        .into_values()
        .map(|mut sku| {
            sku.per_month = sku.window.scaled(per_month_factor);
            sku
        })
        .collect();
    let size = |sku: &BillSku| {
        sku.window
            .total
            .billed_usd
            .abs()
            .max(sku.window.total.effective_usd.abs())
    };
    skus.sort_by(|a, b| size(b).total_cmp(&size(a)));
    let mut unknown_tags: Vec<(String, u64)> = unknown_tags.into_iter().map(|(t, n)| (t.to_string(), n)).collect();
    unknown_tags.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    BillReport {
        window_start_ms: window.start_ms,
        window_end_ms: window.end_ms,
        window_basis: window.basis,
        window_hours,
        hours_per_month,
        clusters,
        unassigned,
        fleet,
        skus,
        outside_window: outside,
        charged_beyond_window,
        unknown_tags,
    }
}

#[cfg(test)]
mod tests;
