//! A rental price's yearly change as an uncertain input (docs/board.md, "The price bet"): the
//! trend a catalog row or plan states, the spread around it (fitted where a row carries more
//! than two dated prices, stated where it does not), and the real price on a day between two
//! dated prices, which the backtest prices the bet on. No I/O.

use serde::{Deserialize, Serialize};

use crate::model::line_fit::LineFit;
use crate::model::plan::HOURS_PER_YEAR;

const MS_PER_YEAR: f64 = HOURS_PER_YEAR * 3_600_000.0;

/// Where no spread is fitted or stated: two dated prices give a trend, not its uncertainty, so
/// the trend is taken as uncertain by its own size, and never by less than this a year.
pub const STATED_SPREAD_FLOOR_PER_YEAR: f64 = 0.05;

/// One dated price of an offer, as a catalog row's `observed` lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatedPrice {
    /// YYYY-MM-DD.
    pub date: String,
    pub usd_per_gpu_hour: f64,
}

impl DatedPrice {
    /// Midnight UTC of the date, in milliseconds; None when it is not a date.
    pub fn day_ms(&self) -> Option<i64> {
        let day = chrono::NaiveDate::parse_from_str(&self.date, "%Y-%m-%d").ok()?;
        Some(day.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis())
    }

    pub fn problem(&self) -> Option<(&'static str, &'static str)> {
        if self.day_ms().is_none() {
            return Some(("date", "expected a date as YYYY-MM-DD"));
        }
        (!(self.usd_per_gpu_hour > 0.0 && self.usd_per_gpu_hour.is_finite()))
            .then_some(("usd_per_gpu_hour", "expected a price above 0"))
    }
}

/// The bet a commitment makes on prices: their yearly change and one standard deviation of it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PriceBet {
    pub change_per_year: f64,
    pub spread_per_year: f64,
}

/// Three-point Gauss–Hermite rule for a normal: the mean and √3 standard deviations either
/// side, weighted 2/3, 1/6, 1/6. Exact for a polynomial of degree five in the change.
const NODES: [(f64, f64); 3] = [
    (0.0, 2.0 / 3.0),
    (-1.732_050_807_568_877_2, 1.0 / 6.0),
    (1.732_050_807_568_877_2, 1.0 / 6.0),
];

impl PriceBet {
    /// Prices held: no change, no doubt.
    pub const HELD: PriceBet = PriceBet {
        change_per_year: 0.0,
        spread_per_year: 0.0,
    };

    /// The bet in words, as the pane, the report and the recommendation say it: "prices
    /// moving +4.7 % a year (± 5.0 %)", or "prices held".
    pub fn text(&self) -> String {
        let moving = if self.change_per_year == 0.0 {
            "prices held".to_string()
        } else {
            format!(
                "prices moving {} % a year",
                crate::shared::format::signed_fixed(self.change_per_year * 100.0, 1)
            )
        };
        if self.spread_per_year > 0.0 {
            format!("{moving} (± {:.1} %)", self.spread_per_year * 100.0)
        } else {
            moving
        }
    }

    /// A change taken as certain.
    pub fn certain(change_per_year: f64) -> PriceBet {
        PriceBet {
            change_per_year,
            spread_per_year: 0.0,
        }
    }

    /// What a price today is expected to be worth `years` on: the mean of (1 + c)^years over
    /// the change's spread. Costs are linear in prices, so the expected cost of a decision is
    /// its cost at these expected factors.
    pub fn expected_factor(&self, years: f64) -> f64 {
        let factor_at = |change: f64| {
            let f = (1.0 + change).max(0.0).powf(years);
            if f.is_finite() { f } else { 1.0 }
        };
        if self.spread_per_year <= 0.0 || !self.spread_per_year.is_finite() {
            return factor_at(self.change_per_year);
        }
        NODES
            .iter()
            .map(|(z, weight)| weight * factor_at(self.change_per_year + z * self.spread_per_year))
            .sum()
    }
}

/// A trend fitted to dated prices: the yearly change of a log-linear line through them and its
/// spread, the slope's standard error and the prices' own scatter about the line, added in
/// quadrature (the next year's change is off the trend by both). None under three prices.
pub fn fitted_trend(observed: &[DatedPrice]) -> Option<PriceBet> {
    let line = LineFit::of(
        observed
            .iter()
            .filter_map(|p| Some((p.day_ms()? as f64 / MS_PER_YEAR, p.usd_per_gpu_hour.ln()))),
    )?;
    let residual_variance = line.residual_variance?;
    let slope_se = line.slope_standard_error()?;
    // In yearly change: d(1 + c) = e^slope d(slope).
    let growth = line.slope.exp();
    Some(PriceBet {
        change_per_year: growth - 1.0,
        spread_per_year: growth * (slope_se.powi(2) + residual_variance).sqrt(),
    })
}

/// The stated spread of a trend nobody measured the doubt of: its own size, at least the floor.
pub fn stated_spread(change_per_year: f64) -> f64 {
    change_per_year.abs().max(STATED_SPREAD_FLOOR_PER_YEAR)
}

/// The price at instant `ms` from dated prices that bracket it, geometric between the two
/// around it; None when no dated price falls on each side.
pub fn price_at(observed: &[DatedPrice], ms: i64) -> Option<f64> {
    let mut dated: Vec<(i64, f64)> = observed
        .iter()
        .filter_map(|p| Some((p.day_ms()?, p.usd_per_gpu_hour)))
        .filter(|(_, usd)| *usd > 0.0 && usd.is_finite())
        .collect();
    dated.sort_by_key(|(day, _)| *day);
    let after = dated.iter().position(|(day, _)| *day >= ms)?;
    let (t1, p1) = dated[after];
    if t1 == ms {
        return Some(p1);
    }
    let (t0, p0) = *dated.get(after.checked_sub(1)?)?;
    let share = (ms - t0) as f64 / (t1 - t0) as f64;
    Some(p0 * (p1 / p0).powf(share))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dated(date: &str, usd: f64) -> DatedPrice {
        DatedPrice {
            date: date.into(),
            usd_per_gpu_hour: usd,
        }
    }

    #[test]
    fn a_spread_raises_the_expected_factor_of_a_falling_price() {
        let bet = PriceBet {
            change_per_year: -0.2,
            spread_per_year: 0.1,
        };
        let point = PriceBet::certain(-0.2).expected_factor(2.0);
        assert!((point - 0.64).abs() < 1e-12);
        // E[(0.8 + e)^2] = 0.64 + Var(e): the rule is exact for a square.
        assert!((bet.expected_factor(2.0) - 0.65).abs() < 1e-12);
        assert_eq!(PriceBet::HELD.expected_factor(3.0), 1.0);
    }

    #[test]
    fn a_trend_through_prices_on_a_line_has_no_spread() {
        let prices = [
            dated("2024-01-01", 4.0),
            dated("2025-01-01", 3.0),
            dated("2026-01-01", 2.25),
        ];
        let bet = fitted_trend(&prices).unwrap();
        // 366 and 365 days: within a thousandth of -25 % a year.
        assert!((bet.change_per_year + 0.25).abs() < 1e-3, "{bet:?}");
        assert!(bet.spread_per_year < 1e-3, "{bet:?}");
        let scattered = [
            dated("2024-01-01", 4.0),
            dated("2025-01-01", 3.6),
            dated("2026-01-01", 2.25),
        ];
        assert!(fitted_trend(&scattered).unwrap().spread_per_year > 0.05);
        assert!(fitted_trend(&prices[..2]).is_none());
    }

    #[test]
    fn a_price_between_two_dates_moves_geometrically_and_outside_them_is_unknown() {
        let prices = [dated("2025-01-01", 4.0), dated("2025-01-03", 1.0)];
        let day = 86_400_000;
        let start = prices[0].day_ms().unwrap();
        assert_eq!(price_at(&prices, start), Some(4.0));
        assert!((price_at(&prices, start + day).unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(price_at(&prices, start - 1), None);
        assert_eq!(price_at(&prices, start + 2 * day + 1), None);
    }
}
