//! Today as paid, from the bill: a cluster the FOCUS bill charges costs its effective cost a
//! month (amortized commitments included, discounts applied), not capacity × price; a cluster
//! the bill says nothing of keeps capacity × price, and the output says which is which.

use super::{ContractsReport, TodaySource};

/// Puts each billed cluster's effective cost a month (`billed`: cluster → USD a month) in place
/// of capacity × price, scaling its class split and its right-sized cost by the same factor,
/// and sums the fleet again (`ContractsReport::sum_fleet`). A cluster billed nothing (no line
/// in the window) is left as it is.
pub fn with_billed_today(c: &mut ContractsReport, billed: &[(String, f64)]) {
    for cluster in &mut c.fleet {
        let Some(&(_, usd)) = billed.iter().find(|(name, usd)| *name == cluster.name && *usd > 0.0) else {
            continue;
        };
        let listed: f64 = cluster.today_by_class_usd_per_month.iter().sum();
        if listed <= 0.0 {
            continue;
        }
        let factor = usd / listed;
        for part in &mut cluster.today_by_class_usd_per_month {
            *part *= factor;
        }
        cluster.right_sized_usd_per_month *= factor;
        cluster.today_source = TodaySource::Bill;
    }
    c.sum_fleet();
}
