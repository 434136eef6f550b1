//! When the board's saving arrives (docs/board.md, "When the saving arrives"): month by month
//! from the end of the audited window, each cluster keeps costing what it costs today until
//! its commitment ends, then costs its share of the switched fleet, paying both for the months
//! of dual running; the one-off costs of moving (engineering, egress) fall in the month of the
//! first move. Out of it: the first year's cash saving beside the run rate, and the month the
//! moving costs are paid back.

use chrono::Datelike;
use serde::Serialize;

use super::contracts::TermKind;
use super::plan::{
    DEFAULT_DATA_MOVED_TB, DEFAULT_DUAL_RUNNING_MONTHS, DEFAULT_EGRESS_USD_PER_TB, DEFAULT_ENGINEERING_HOURS,
    DEFAULT_ENGINEERING_USD_PER_HOUR, Plan,
};
use crate::shared::format::thousands;

/// One cluster on the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterMove {
    pub name: String,
    pub today_usd_per_month: f64,
    /// Its share of the switched fleet's cost.
    pub switched_usd_per_month: f64,
    /// Whole months from the timeline's start before its commitment lets it go (0: now).
    pub held_months: u32,
}

/// The one-off costs of moving, each with where its figure comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MovingCosts {
    pub engineering_usd: f64,
    pub egress_usd: f64,
    pub dual_running_months: u32,
    pub basis: String,
}

impl MovingCosts {
    pub fn one_off_usd(&self) -> f64 {
        self.engineering_usd + self.egress_usd
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineMonth {
    /// `YYYY-MM`.
    pub month: String,
    pub cost_usd: f64,
    /// Today's cost less this month's (one-off costs and dual running included).
    pub saving_usd: f64,
    /// The savings of every month so far, this one included.
    pub cumulative_saving_usd: f64,
}

/// The timeline: its months, and what they add up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub months: Vec<TimelineMonth>,
    pub timing: Timing,
}

/// What the months add up to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    /// The first twelve months' savings, one-off costs and dual running paid.
    pub first_year_saving_usd: f64,
    /// The saving a year once every cluster has moved.
    pub run_rate_usd_per_year: f64,
    /// The first month whose cumulative saving covers everything spent to move; None when the
    /// timeline ends first.
    pub payback_month: Option<String>,
    pub moving: MovingCosts,
    /// Each cluster and the month it can move from.
    pub clusters_free_from: Vec<(String, String)>,
}

/// The one-off costs of moving under `plan`: its `[moving]` values, else the defaults, each
/// default named as assumed.
pub fn moving_costs(plan: &Plan) -> MovingCosts {
    let given = plan.moving.clone().unwrap_or_default();
    let assumed: Vec<&str> = [
        ("engineering_hours", given.engineering_hours.is_none()),
        ("engineering_usd_per_hour", given.engineering_usd_per_hour.is_none()),
        ("data_moved_tb", given.data_moved_tb.is_none()),
        ("egress_usd_per_tb", given.egress_usd_per_tb.is_none()),
        ("dual_running_months", given.dual_running_months.is_none()),
    ]
    .into_iter()
    .filter_map(|(key, missing)| missing.then_some(key))
    .collect();
    let hours = given.engineering_hours.unwrap_or(DEFAULT_ENGINEERING_HOURS);
    let rate = given
        .engineering_usd_per_hour
        .unwrap_or(DEFAULT_ENGINEERING_USD_PER_HOUR);
    let tb = given.data_moved_tb.unwrap_or(DEFAULT_DATA_MOVED_TB);
    let egress = given.egress_usd_per_tb.unwrap_or(DEFAULT_EGRESS_USD_PER_TB);
    let dual = given.dual_running_months.unwrap_or(DEFAULT_DUAL_RUNNING_MONTHS);
    let basis = format!(
        "{} engineering hours at ${rate}/h, {} TB of egress at ${egress}/TB, {dual} month{} of dual running{}",
        thousands(hours),
        thousands(tb),
        if dual == 1 { "" } else { "s" },
        if assumed.is_empty() {
            " (the plan's [moving])".to_string()
        } else {
            format!("; assumed where the plan's [moving] gives no {}", assumed.join(", "))
        }
    );
    MovingCosts {
        engineering_usd: hours * rate,
        egress_usd: tb * egress,
        dual_running_months: dual,
        basis,
    }
}

/// Whole months from `start` (year, month) until `ends` (YYYY-MM-DD) lets a cluster go: the
/// month after the one it ends in; 0 when it has ended.
pub fn months_held(start_year: i32, start_month: u32, ends: &str) -> Option<u32> {
    let day = chrono::NaiveDate::parse_from_str(ends, "%Y-%m-%d").ok()?;
    let months = (day.year() * 12 + day.month0() as i32) - (start_year * 12 + (start_month as i32 - 1)) + 1;
    Some(months.max(0) as u32)
}

/// Months a cluster without a stated end is assumed held: a 1-year commitment a full year
/// from now, build-to-order three, a monthly one this month; by the hour, none.
pub fn assumed_months_held(term: TermKind) -> u32 {
    match term {
        TermKind::BuildToOrder => 36,
        TermKind::OneYear => 12,
        TermKind::Monthly => 1,
        TermKind::OnDemand | TermKind::Spot => 0,
    }
}

/// The month after the one holding the instant `ms` (UTC milliseconds), as (year, month): where
/// a timeline that starts after an audited window begins.
pub fn month_after(ms: i64) -> (i32, u32) {
    let day = chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default();
    let index = day.year() * 12 + day.month0() as i32 + 1;
    (index.div_euclid(12), index.rem_euclid(12) as u32 + 1)
}

/// `YYYY-MM` of the month `offset` months after (`year`, `month`).
fn month_label(year: i32, month: u32, offset: u32) -> String {
    let index = year * 12 + (month as i32 - 1) + offset as i32;
    format!("{:04}-{:02}", index.div_euclid(12), index.rem_euclid(12) + 1)
}

/// The timeline over `months` months starting with (`start_year`, `start_month`).
pub fn timeline(
    clusters: &[ClusterMove],
    moving: &MovingCosts,
    start_year: i32,
    start_month: u32,
    months: u32,
) -> Timeline {
    let today: f64 = clusters.iter().map(|c| c.today_usd_per_month).sum();
    let first_move = clusters.iter().map(|c| c.held_months).min().unwrap_or(0);
    let mut rows = Vec::with_capacity(months as usize);
    let mut cumulative = 0.0;
    let mut payback_month = None;
    for m in 0..months {
        let mut cost = 0.0;
        for c in clusters {
            if m < c.held_months {
                cost += c.today_usd_per_month;
            } else {
                cost += c.switched_usd_per_month;
                if m < c.held_months + moving.dual_running_months {
                    cost += c.today_usd_per_month;
                }
            }
        }
        if m == first_move {
            cost += moving.one_off_usd();
        }
        let saving = today - cost;
        cumulative += saving;
        let label = month_label(start_year, start_month, m);
        if payback_month.is_none() && m >= first_move && cumulative >= 0.0 {
            payback_month = Some(label.clone());
        }
        rows.push(TimelineMonth {
            month: label,
            cost_usd: cost,
            saving_usd: saving,
            cumulative_saving_usd: cumulative,
        });
    }
    let switched: f64 = clusters.iter().map(|c| c.switched_usd_per_month).sum();
    let timing = Timing {
        first_year_saving_usd: rows.iter().take(12).map(|r| r.saving_usd).sum(),
        run_rate_usd_per_year: (today - switched) * 12.0,
        payback_month,
        moving: moving.clone(),
        clusters_free_from: clusters
            .iter()
            .map(|c| (c.name.clone(), month_label(start_year, start_month, c.held_months)))
            .collect(),
    };
    Timeline { months: rows, timing }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(name: &str, today: f64, switched: f64, held: u32) -> ClusterMove {
        ClusterMove {
            name: name.into(),
            today_usd_per_month: today,
            switched_usd_per_month: switched,
            held_months: held,
        }
    }

    fn moving(one_off: f64, dual: u32) -> MovingCosts {
        MovingCosts {
            engineering_usd: one_off,
            egress_usd: 0.0,
            dual_running_months: dual,
            basis: String::new(),
        }
    }

    #[test]
    fn a_committed_cluster_saves_nothing_until_its_commitment_ends() {
        // a: free now, saves 40 a month from the second month (one of dual running);
        // b: held four months, then saves 20.
        let clusters = [cluster("a", 100.0, 60.0, 0), cluster("b", 50.0, 30.0, 4)];
        let t = timeline(&clusters, &moving(90.0, 1), 2026, 11, 12);
        let savings: Vec<f64> = t.months.iter().map(|m| m.saving_usd).collect();
        // Month 1: a runs twice (−60) and the one-off (−90): −150. Months 2–4: +40. Month 5:
        // b dual-runs (−30): +10. Months 6–12: +60.
        assert_eq!(savings[0], -150.0);
        assert_eq!(&savings[1..4], [40.0, 40.0, 40.0]);
        assert_eq!(savings[4], 10.0);
        assert!(savings[5..].iter().all(|&s| s == 60.0));
        assert_eq!(t.timing.first_year_saving_usd, -150.0 + 120.0 + 10.0 + 7.0 * 60.0);
        assert_eq!(t.timing.run_rate_usd_per_year, 720.0);
        // Cumulative: −150, −110, −70, −30, −20, +40: paid back in the sixth month.
        assert_eq!(t.timing.payback_month.as_deref(), Some("2027-04"));
        assert_eq!(t.months[0].month, "2026-11");
        assert_eq!(t.timing.clusters_free_from[1], ("b".to_string(), "2027-03".to_string()));
    }

    #[test]
    fn a_move_that_never_pays_back_says_so() {
        let t = timeline(&[cluster("a", 100.0, 99.0, 0)], &moving(1_000.0, 0), 2026, 1, 12);
        assert_eq!(t.timing.payback_month, None);
        assert!(t.timing.first_year_saving_usd < 0.0);
    }
}
