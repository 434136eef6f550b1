//! The board's checks of its own conclusions (docs/board.md, "Checks of judgment"): the
//! arithmetic can hold to the cent while the conclusion is wrong (a saving larger than the bill,
//! staying dearer than today on a fleet whose demand fits it, a demand factor no month of the
//! history has shown). Each check holds or names what fails; every face shows the ones that fail
//! beside the headline, and `gpuplan check --judgment` exits 1 on any.

use serde::Serialize;

use super::forecast::ForecastReport;
use crate::shared::format::usd_compact;

/// One conclusion checked: `id` is stable (JSON, docs), `detail` says what was measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgmentCheck {
    pub id: &'static str,
    pub holds: bool,
    pub detail: String,
}

/// The saving cannot exceed the bill it is cut from.
pub const SAVING_WITHIN_BILL: &str = "saving_within_bill";
/// No end state costs less than nothing.
pub const END_STATES_NOT_NEGATIVE: &str = "end_states_not_negative";
/// Staying costs no more than today where the forecast demand fits today's capacity.
pub const STAY_WITHIN_BILL: &str = "stay_within_bill";
/// The demand factor lies inside what the history itself has shown.
pub const DEMAND_WITHIN_HISTORY: &str = "demand_within_history";
/// Each cluster's capacity holds the most GPUs that ran on it at once.
pub const CAPACITY_HOLDS_PEAK: &str = "capacity_holds_peak";
/// At most half the saving rests on prices nobody stated.
pub const PRICES_STATED: &str = "prices_stated";
/// The forecast's 80 % band is narrower than its 95 % band.
pub const BANDS_DISTINCT: &str = "bands_distinct";
/// The purchase recommended costs no more than today's mix held flat with prices held, else
/// names the bet that pays for it.
pub const PURCHASE_BEATS_RUNNER_UP: &str = "purchase_beats_runner_up";

/// Every check's id, in the order the board lists them.
pub const ALL: [&str; 8] = [
    SAVING_WITHIN_BILL,
    END_STATES_NOT_NEGATIVE,
    STAY_WITHIN_BILL,
    DEMAND_WITHIN_HISTORY,
    CAPACITY_HOLDS_PEAK,
    PRICES_STATED,
    BANDS_DISTINCT,
    PURCHASE_BEATS_RUNNER_UP,
];

/// The share of the saving that may rest on assumed prices before the check fails.
pub const ASSUMED_SHARE_AT_MOST_FRAC: f64 = 0.5;
/// Days a month of history counts, for the range of monthly means.
const DAYS_PER_MONTH: usize = 30;
/// Below two whole months, weeks stand for months.
const DAYS_PER_WEEK: usize = 7;
/// Cents: figures equal to within this are equal.
const USD_TOLERANCE: f64 = 0.01;

/// What the history itself has shown of demand, against its own mean: the lowest and highest
/// monthly mean (weekly under two months), the stated growth over the horizon, and the planned
/// runs' share. The demand factor is judged inside `[low × shrink, high × grow + planned]`.
#[derive(Debug, Clone, PartialEq)]
pub struct DemandHistory {
    pub lowest_month_frac: f64,
    pub highest_month_frac: f64,
    /// "month" or "week": the blocks the range was read in.
    pub block: &'static str,
    /// The stated growth compounded over the horizon (1 without one), lowest and highest class.
    pub growth_low: f64,
    pub growth_high: f64,
    /// Planned runs' mean GPUs over the history's mean (they are not in the history).
    pub planned_frac: f64,
    /// The forecast left the log's last days out as an incomplete export, when it did.
    pub tail_left_out: Option<String>,
}

impl DemandHistory {
    /// The range a demand factor may take without resting on the forecast alone.
    pub fn bounds(&self) -> (f64, f64) {
        (
            self.lowest_month_frac * self.growth_low,
            self.highest_month_frac * self.growth_high + self.planned_frac,
        )
    }

    /// Read from the forecast's own history (summed over the fleet's classes); None without
    /// two blocks of history or without demand.
    pub fn of(forecast: &ForecastReport) -> Option<Self> {
        let mut daily: Vec<f64> = Vec::new();
        let mut mean_total = 0.0;
        let years = f64::from(forecast.horizon_days) / 365.0;
        let (mut growth_low, mut growth_high) = (1.0f64, 1.0f64);
        let mut planned = 0.0;
        for class in &forecast.classes {
            let f = &class.forecast;
            if daily.len() < f.history_daily_gpus.len() {
                daily.resize(f.history_daily_gpus.len(), 0.0);
            }
            for (sum, gpus) in daily.iter_mut().zip(&f.history_daily_gpus) {
                *sum += gpus;
            }
            mean_total += f.history_mean_gpus;
            if let Some(g) = f.growth_per_year.filter(|g| g.is_finite() && *g > 0.0) {
                let over_horizon = g.powf(years.max(1.0 / 365.0));
                growth_low = growth_low.min(over_horizon);
                growth_high = growth_high.max(over_horizon);
            }
            if !f.daily.is_empty() {
                planned += f.daily.iter().map(|d| d.planned_gpus).sum::<f64>() / f.daily.len() as f64;
            }
        }
        if mean_total <= 0.0 || !mean_total.is_finite() {
            return None;
        }
        // An incomplete tail left out of the fit is no month of demand either.
        let left_out = forecast.incomplete_tail.as_ref().filter(|t| !t.kept);
        if let Some(tail) = left_out {
            daily.truncate(daily.len().saturating_sub(tail.days.round() as usize));
        }
        let (block, days) = if daily.len() >= 2 * DAYS_PER_MONTH {
            ("month", DAYS_PER_MONTH)
        } else {
            ("week", DAYS_PER_WEEK)
        };
        // Whole blocks counted back from the history's end: the latest month is always one.
        let means: Vec<f64> = daily
            .rchunks_exact(days)
            .map(|chunk| chunk.iter().sum::<f64>() / days as f64 / mean_total)
            .filter(|m| m.is_finite())
            .collect();
        if means.len() < 2 {
            return None;
        }
        Some(Self {
            lowest_month_frac: means.iter().copied().fold(f64::INFINITY, f64::min),
            highest_month_frac: means.iter().copied().fold(0.0, f64::max),
            block,
            growth_low,
            growth_high,
            planned_frac: planned / mean_total,
            tail_left_out: left_out.map(|t| t.said()),
        })
    }
}

/// A cluster's capacity beside the most GPUs that ran on it at once.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterPeak {
    pub name: String,
    pub capacity_gpus: f64,
    pub peak_gpus: f64,
}

/// Everything the checks read, gathered from the board's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgmentFacts<'a> {
    pub today_usd_per_month: f64,
    pub switch_usd_per_month: f64,
    pub saving_usd_per_year: f64,
    /// The end state of staying, when there is one.
    pub stay_usd_per_month: Option<f64>,
    /// Step 5's cost (demand as audited) against the last step's (demand as forecast): how far
    /// the forecast moves the headline.
    pub before_forecast_usd_per_month: Option<f64>,
    pub demand_factor: f64,
    /// The demand driver's basis: assumed (no forecast) or the forecast's.
    pub demand_forecast: bool,
    pub history: Option<&'a DemandHistory>,
    pub clusters: &'a [ClusterPeak],
    pub assumed_share_frac: Option<f64>,
    /// Days whose 80 % band is as wide as the 95 % (a band wider than zero), and the days.
    pub bands_equal_days: Option<(usize, usize)>,
}

pub(super) fn check(id: &'static str, holds: bool, detail: String) -> JudgmentCheck {
    JudgmentCheck { id, holds, detail }
}

fn factor(x: f64) -> String {
    if x >= 0.1 || x == 0.0 {
        format!("×{x:.2}")
    } else {
        format!("×{x:.3}")
    }
}

fn yearly(usd_per_month: f64) -> String {
    format!("{}/yr", usd_compact(usd_per_month * 12.0))
}

/// Every check on the board's figures, in `ALL`'s order but the purchase's (the commitments
/// add theirs: `board_purchase::purchase_check`).
pub fn judgment_checks(f: &JudgmentFacts) -> Vec<JudgmentCheck> {
    let today = f.today_usd_per_month;
    let mut checks = Vec::new();
    let saving_month = f.saving_usd_per_year / 12.0;
    checks.push(check(
        SAVING_WITHIN_BILL,
        saving_month <= today + USD_TOLERANCE,
        format!(
            "the saving {} against today's bill {}",
            yearly(saving_month),
            yearly(today)
        ),
    ));
    let stay = f.stay_usd_per_month;
    let negative: Vec<String> = [("switch", Some(f.switch_usd_per_month)), ("stay", stay)]
        .into_iter()
        .filter_map(|(name, usd)| {
            usd.filter(|u| *u < -USD_TOLERANCE)
                .map(|u| format!("{name} {}", yearly(u)))
        })
        .collect();
    checks.push(check(
        END_STATES_NOT_NEGATIVE,
        negative.is_empty(),
        if negative.is_empty() {
            format!(
                "switch {}{}",
                yearly(f.switch_usd_per_month),
                stay.map_or(String::new(), |s| format!(", stay {}", yearly(s)))
            )
        } else {
            format!("an end state below nothing: {}", negative.join(", "))
        },
    ));
    if let Some(stay) = stay {
        let over: Vec<&ClusterPeak> = f
            .clusters
            .iter()
            .filter(|c| c.peak_gpus * f.demand_factor > c.capacity_gpus + 1e-9)
            .collect();
        let fits = over.is_empty();
        checks.push(check(
            STAY_WITHIN_BILL,
            !fits || stay <= today + USD_TOLERANCE,
            if fits {
                format!(
                    "staying {} against today's {}, the forecast's demand ({}) within today's capacity",
                    yearly(stay),
                    yearly(today),
                    factor(f.demand_factor)
                )
            } else {
                format!(
                    "staying {} against today's {}: the forecast's demand ({}) outgrows today's capacity on {}",
                    yearly(stay),
                    yearly(today),
                    factor(f.demand_factor),
                    over.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
                )
            },
        ));
    }
    checks.push(demand_check(f));
    let short: Vec<String> = f
        .clusters
        .iter()
        .filter(|c| c.peak_gpus > c.capacity_gpus + 1e-6)
        .map(|c| {
            format!(
                "{} holds {} GPUs, {} ran at once",
                c.name,
                trim(c.capacity_gpus),
                trim(c.peak_gpus)
            )
        })
        .collect();
    checks.push(check(
        CAPACITY_HOLDS_PEAK,
        short.is_empty(),
        if short.is_empty() {
            match f.clusters.len() {
                1 => "the cluster holds the most GPUs that ran on it at once".to_string(),
                n => format!("each of {n} clusters holds the most GPUs that ran on it at once"),
            }
        } else {
            short.join("; ")
        },
    ));
    if let Some(share) = f.assumed_share_frac {
        checks.push(check(
            PRICES_STATED,
            share <= ASSUMED_SHARE_AT_MOST_FRAC,
            format!(
                "{:.0} % of the saving rests on prices no plan or bill states (at most {:.0} %)",
                share * 100.0,
                ASSUMED_SHARE_AT_MOST_FRAC * 100.0
            ),
        ));
    }
    if let Some((equal, days)) = f.bands_equal_days {
        checks.push(check(
            BANDS_DISTINCT,
            equal == 0,
            if equal == 0 {
                format!("the 80 % band is narrower than the 95 % on all {days} days")
            } else {
                format!("the 80 % band is as wide as the 95 % on {equal} of {days} forecast days")
            },
        ));
    }
    checks
}

fn trim(gpus: f64) -> String {
    crate::shared::format::thousands(gpus)
}

fn demand_check(f: &JudgmentFacts) -> JudgmentCheck {
    let Some(history) = f.history.filter(|_| f.demand_forecast) else {
        return check(
            DEMAND_WITHIN_HISTORY,
            true,
            if f.demand_forecast {
                format!(
                    "demand {}: the history is too short to show a range",
                    factor(f.demand_factor)
                )
            } else {
                format!("demand {} (assumed: no forecast)", factor(f.demand_factor))
            },
        );
    };
    let (low, high) = history.bounds();
    let inside = f.demand_factor >= low - 1e-9 && f.demand_factor <= high + 1e-9;
    let seen = format!(
        "its {}s' means {} to {} of its mean{}",
        history.block,
        factor(history.lowest_month_frac),
        factor(history.highest_month_frac),
        if history.growth_low != 1.0 || history.growth_high != 1.0 || history.planned_frac > 0.0 {
            format!(
                ", {} to {} with stated growth and planned runs",
                factor(low),
                factor(high)
            )
        } else {
            String::new()
        }
    );
    let tail = history
        .tail_left_out
        .as_ref()
        .map_or(String::new(), |t| format!("; {t}"));
    if inside {
        return check(
            DEMAND_WITHIN_HISTORY,
            true,
            format!(
                "demand {} inside what the history showed ({seen}){tail}",
                factor(f.demand_factor)
            ),
        );
    }
    let moved = f
        .before_forecast_usd_per_month
        .map(|before| (before - f.switch_usd_per_month) * 12.0);
    let share = moved.filter(|_| f.saving_usd_per_year.abs() > USD_TOLERANCE).map(|m| {
        let percent = (m / f.saving_usd_per_year * 100.0).abs();
        format!(
            ": the forecast moves the headline by {}{} ({} of it)",
            if m < 0.0 { "−" } else { "+" },
            usd_compact(m.abs()),
            if percent < 0.5 {
                "under 1 %".to_string()
            } else {
                format!("{percent:.0} %")
            }
        )
    });
    check(
        DEMAND_WITHIN_HISTORY,
        false,
        format!(
            "demand {} rests on the forecast, outside what the history showed ({seen}){}{tail}",
            factor(f.demand_factor),
            share.unwrap_or_default()
        ),
    )
}

/// Days of the forecast's classes whose 80 % band is as wide as the 95 % (the 95 % wider than
/// nothing), and the days counted.
pub fn bands_equal_days(forecast: &ForecastReport) -> Option<(usize, usize)> {
    let mut equal = 0;
    let mut days = 0;
    for class in &forecast.classes {
        for d in &class.forecast.daily {
            let wide95 = d.hi95 - d.lo95;
            if wide95 <= 1e-9 {
                continue;
            }
            days += 1;
            if d.hi80 - d.lo80 >= wide95 - 1e-9 {
                equal += 1;
            }
        }
    }
    (days > 0).then_some((equal, days))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(clusters: &'a [ClusterPeak], history: Option<&'a DemandHistory>) -> JudgmentFacts<'a> {
        JudgmentFacts {
            today_usd_per_month: 100.0,
            switch_usd_per_month: 60.0,
            saving_usd_per_year: 480.0,
            stay_usd_per_month: Some(80.0),
            before_forecast_usd_per_month: Some(70.0),
            demand_factor: 1.0,
            demand_forecast: true,
            history,
            clusters,
            assumed_share_frac: None,
            bands_equal_days: Some((0, 7)),
        }
    }

    fn peak(capacity: f64, peak: f64) -> ClusterPeak {
        ClusterPeak {
            name: "c".into(),
            capacity_gpus: capacity,
            peak_gpus: peak,
        }
    }

    fn failing(checks: &[JudgmentCheck]) -> Vec<&'static str> {
        checks.iter().filter(|c| !c.holds).map(|c| c.id).collect()
    }

    #[test]
    fn a_sound_board_holds_every_check() {
        let clusters = [peak(100.0, 80.0)];
        assert!(failing(&judgment_checks(&facts(&clusters, None))).is_empty());
    }

    #[test]
    fn staying_dearer_than_today_fails_only_where_demand_fits() {
        let clusters = [peak(100.0, 80.0)];
        let mut f = facts(&clusters, None);
        f.stay_usd_per_month = Some(250.0);
        f.demand_factor = 1.2;
        assert_eq!(failing(&judgment_checks(&f)), vec![STAY_WITHIN_BILL]);
        // Demand ×1.5 on a peak of 80 needs 120 of 100 GPUs: staying may cost more.
        f.demand_factor = 1.5;
        assert!(failing(&judgment_checks(&f)).is_empty());
    }

    #[test]
    fn a_saving_above_the_bill_and_a_negative_end_state_fail() {
        let clusters = [peak(100.0, 80.0)];
        let mut f = facts(&clusters, None);
        f.switch_usd_per_month = -10.0;
        f.saving_usd_per_year = 1_320.0;
        assert_eq!(
            failing(&judgment_checks(&f)),
            vec![SAVING_WITHIN_BILL, END_STATES_NOT_NEGATIVE]
        );
    }

    #[test]
    fn a_demand_factor_no_month_showed_names_its_share_of_the_headline() {
        let clusters = [peak(100.0, 80.0)];
        let history = DemandHistory {
            lowest_month_frac: 0.8,
            highest_month_frac: 1.2,
            block: "month",
            growth_low: 1.0,
            growth_high: 1.0,
            planned_frac: 0.0,
            tail_left_out: None,
        };
        let mut f = facts(&clusters, Some(&history));
        f.demand_factor = 0.022;
        let checks = judgment_checks(&f);
        let demand = checks
            .iter()
            .find(|c| c.id == DEMAND_WITHIN_HISTORY)
            .expect("demand check");
        assert!(!demand.holds);
        assert!(
            demand.detail.contains("×0.022 rests on the forecast"),
            "{}",
            demand.detail
        );
        assert!(demand.detail.contains("(25 % of it)"), "{}", demand.detail);
        f.demand_factor = 1.1;
        assert!(failing(&judgment_checks(&f)).is_empty());
    }

    #[test]
    fn capacity_below_what_ran_assumed_prices_and_equal_bands_fail() {
        let clusters = [peak(839.73, 852.0)];
        let mut f = facts(&clusters, None);
        f.assumed_share_frac = Some(0.97);
        f.bands_equal_days = Some((7, 7));
        assert_eq!(
            failing(&judgment_checks(&f)),
            vec![CAPACITY_HOLDS_PEAK, PRICES_STATED, BANDS_DISTINCT]
        );
    }
}
