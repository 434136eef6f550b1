//! The cloud bill against the plan (docs/bill.md): FinOps FOCUS cost lines as plain
//! data, which cluster each line is ([`plan`]), and their sums over a window, the audit's or
//! the bill's own billing period ([`report`]). Cash (`BilledCost`) and amortized
//! (`EffectiveCost`) figures are kept side by side and never added to each other.

pub mod plan;
pub mod report;

pub use plan::{Assignment, BillMatcher, BillPlan};
pub use report::{
    BillCluster, BillReport, BillSku, BillWindow, Cost, CostBreakdown, Gap, OutsideWindow, WindowBasis, bill_report,
};

use std::sync::Arc;

use serde::Serialize;

/// FOCUS `ChargeCategory`: the highest-level kind of a charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ChargeCategory {
    Usage,
    Purchase,
    Tax,
    Credit,
    Adjustment,
}

/// FOCUS `PricingCategory`: how a charge was priced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PricingCategory {
    Standard,
    Dynamic,
    Committed,
    Other,
}

/// FOCUS `CommitmentDiscountStatus` and `CapacityReservationStatus`: whether the charge
/// consumed the commitment (or reservation) or is its unused portion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum UsageStatus {
    Used,
    Unused,
}

/// What a `ConsumedUnit` measures, as far as hours of compute go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum HoursUnit {
    /// Hours of one GPU (`GPU-Hours`, `GPU Hour`, `Accelerator-Hours`).
    Gpu,
    /// Hours of whatever the SKU is (`Hours`, `Hrs`, `Instance-Hours`, `Node-Hours`,
    /// `VM-Hours`): an 8-GPU instance-hour is one of these, not eight.
    Resource,
}

/// Parses a FOCUS value case-insensitively against its allowed names.
fn parse_named<T: Copy>(text: &str, all: &[(T, &str)]) -> Option<T> {
    let text = text.trim();
    all.iter()
        .find(|(_, name)| name.eq_ignore_ascii_case(text))
        .map(|(v, _)| *v)
}

impl ChargeCategory {
    pub const NAMES: [(ChargeCategory, &'static str); 5] = [
        (ChargeCategory::Usage, "Usage"),
        (ChargeCategory::Purchase, "Purchase"),
        (ChargeCategory::Tax, "Tax"),
        (ChargeCategory::Credit, "Credit"),
        (ChargeCategory::Adjustment, "Adjustment"),
    ];

    pub fn parse(text: &str) -> Option<ChargeCategory> {
        parse_named(text, &Self::NAMES)
    }
}

impl PricingCategory {
    pub const NAMES: [(PricingCategory, &'static str); 4] = [
        (PricingCategory::Standard, "Standard"),
        (PricingCategory::Dynamic, "Dynamic"),
        (PricingCategory::Committed, "Committed"),
        (PricingCategory::Other, "Other"),
    ];

    /// Also reads the 1.0-preview spellings `On-Demand` and `Commitment-Based`.
    pub fn parse(text: &str) -> Option<PricingCategory> {
        parse_named(text, &Self::NAMES).or_else(|| {
            parse_named(
                text,
                &[
                    (PricingCategory::Standard, "On-Demand"),
                    (PricingCategory::Committed, "Commitment-Based"),
                ],
            )
        })
    }
}

impl UsageStatus {
    pub const NAMES: [(UsageStatus, &'static str); 2] = [(UsageStatus::Used, "Used"), (UsageStatus::Unused, "Unused")];

    pub fn parse(text: &str) -> Option<UsageStatus> {
        parse_named(text, &Self::NAMES)
    }
}

/// The allowed names of a FOCUS value, for a message: `Usage, Purchase, Tax...`.
pub fn allowed<T>(names: &[(T, &str)]) -> String {
    names.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")
}

impl HoursUnit {
    /// Which hours a `ConsumedUnit` counts, with the quantity one unit stands for (`10 Hours`
    /// is ten hours); `None` for units that are not hours of compute (`GB-Hours`,
    /// `vCPU-Hours`, `Requests`).
    ///
    /// Accepted, case-insensitively, with `-`, `_` or a space between the words: `Hour`,
    /// `Hours`, `Hr`, `Hrs`, `Instance-Hours`, `Node-Hours`, `VM-Hours`, `Machine-Hours`,
    /// `Server-Hours` (resource-hours); `GPU-Hours`, `GPU-Hour`, `GPU-Hrs`,
    /// `Accelerator-Hours` (GPU-hours). Any of them may lead with a whole quantity.
    pub fn of_unit(unit: &str) -> Option<(HoursUnit, f64)> {
        let unit = unit.trim().to_ascii_lowercase();
        let (per, unit) = match unit.split_once(' ') {
            Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                (n.parse::<f64>().ok().filter(|&n| n > 0.0)?, rest.trim())
            }
            _ => (1.0, unit.as_str()),
        };
        let words: Vec<&str> = unit.split(['-', '_', ' ']).filter(|w| !w.is_empty()).collect();
        let (last, kind) = match words.as_slice() {
            [last] => (*last, HoursUnit::Resource),
            [what, last] => (
                *last,
                match *what {
                    "gpu" | "accelerator" => HoursUnit::Gpu,
                    "instance" | "node" | "vm" | "machine" | "server" => HoursUnit::Resource,
                    _ => return None,
                },
            ),
            _ => return None,
        };
        matches!(last, "hour" | "hours" | "hr" | "hrs").then_some((kind, per))
    }
}

/// One FOCUS cost line as gpuplan uses it. Times are UTC milliseconds; the charge period is
/// `[start, end)`.
#[derive(Debug, Clone, PartialEq)]
pub struct BillLine {
    pub charge_period_start_ms: i64,
    pub charge_period_end_ms: i64,
    /// `BillingPeriodStart` and `BillingPeriodEnd`: the invoice period the line is billed in,
    /// when the export has them.
    pub billing_period_ms: Option<(i64, i64)>,
    /// Cash: what the invoice charges for this line.
    pub billed_cost_usd: f64,
    /// Amortized: upfront purchases spread over the usage they cover (0 on the purchase).
    pub effective_cost_usd: f64,
    pub charge_category: ChargeCategory,
    pub pricing_category: Option<PricingCategory>,
    pub commitment_discount_status: Option<UsageStatus>,
    pub capacity_reservation_status: Option<UsageStatus>,
    /// `ConsumedQuantity` in hours, when `ConsumedUnit` is hours of compute.
    pub consumed_hours: Option<(HoursUnit, f64)>,
    // Shared: an hourly export repeats each resource's values on every line.
    pub sku_id: Option<Arc<str>>,
    /// `ProviderName` (or `ServiceProviderName`).
    pub provider: Option<Arc<str>>,
    pub resource_id: Option<Arc<str>>,
    pub resource_name: Option<Arc<str>>,
    /// The value of the plan's tag key (`[bill] tag_key`) in the line's `Tags`.
    pub cluster_tag: Option<Arc<str>>,
}

impl BillLine {
    /// A line with the given period, costs and category, everything else empty (tests and
    /// builders).
    pub fn new(start_ms: i64, end_ms: i64, billed_usd: f64, effective_usd: f64, category: ChargeCategory) -> BillLine {
        BillLine {
            charge_period_start_ms: start_ms,
            charge_period_end_ms: end_ms,
            billing_period_ms: None,
            billed_cost_usd: billed_usd,
            effective_cost_usd: effective_usd,
            charge_category: category,
            pricing_category: None,
            commitment_discount_status: None,
            capacity_reservation_status: None,
            consumed_hours: None,
            sku_id: None,
            provider: None,
            resource_id: None,
            resource_name: None,
            cluster_tag: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_focus_values_whatever_their_case() {
        assert_eq!(ChargeCategory::parse(" usage "), Some(ChargeCategory::Usage));
        assert_eq!(ChargeCategory::parse("Refund"), None);
        assert_eq!(PricingCategory::parse("On-Demand"), Some(PricingCategory::Standard));
        assert_eq!(UsageStatus::parse("UNUSED"), Some(UsageStatus::Unused));
        assert_eq!(allowed(&UsageStatus::NAMES), "Used, Unused");
    }

    #[test]
    fn hours_units_are_told_apart_from_other_time_units() {
        assert_eq!(HoursUnit::of_unit("Hours"), Some((HoursUnit::Resource, 1.0)));
        assert_eq!(HoursUnit::of_unit("Hrs"), Some((HoursUnit::Resource, 1.0)));
        assert_eq!(HoursUnit::of_unit("Instance-Hours"), Some((HoursUnit::Resource, 1.0)));
        assert_eq!(HoursUnit::of_unit("GPU-Hours"), Some((HoursUnit::Gpu, 1.0)));
        assert_eq!(HoursUnit::of_unit("gpu hour"), Some((HoursUnit::Gpu, 1.0)));
        assert_eq!(HoursUnit::of_unit("10 Hours"), Some((HoursUnit::Resource, 10.0)));
        assert_eq!(HoursUnit::of_unit("GB-Hours"), None);
        assert_eq!(HoursUnit::of_unit("vCPU-Hours"), None);
        assert_eq!(HoursUnit::of_unit("Requests"), None);
        assert_eq!(HoursUnit::of_unit("0 Hours"), None);
        assert_eq!(HoursUnit::of_unit(""), None);
    }
}
