//! How sure the board's saving is (docs/board.md, "The range and its drivers"): the saving
//! recomputed with the uncertain inputs moved, each over a stated spread. The headline is the
//! saving with every driver at its point value (`saving_at_point`, the waterfall's last step);
//! a seeded Monte Carlo draws the drivers together for the range (P10, P50, P90), each as
//! likely below its point value as above it, so the range is built around the headline; a
//! tornado swings each alone to its low and its high. Today's cost is what is paid and does
//! not move; every driver acts on what the switched fleet would cost, class by class:
//!
//! - demand: the forecast's next-year demand over the audited window's (its 80 % band as low
//!   and high), on every class: the matched fleet is bought for the demand;
//! - offer prices: the catalog's prices a year on, between the largest yearly fall and the
//!   largest rise its dated price changes show for the accelerators chosen;
//! - carry-over: a class moved to another accelerator than it runs on today gets its demand
//!   carried by dense BF16 peak (inference by memory bandwidth), which real speed-ups miss in
//!   both directions;
//! - separation: the replay's correction of the term mix (split pools over the mix), from none
//!   of it to half again as much;
//! - spot preemption: burst work on spot redoes what a preemption loses since its checkpoint
//!   (priced into spot at the plan's MTBI; the driver swings it between twice and half that);
//! - delivered share: the share of a VM's GPU a job gets against bare metal (training and
//!   burst; for inference the hypervisor's cost is close to nil and it does not move);
//! - unstated prices: the one driver on today's side. GPU models the catalog cannot price and
//!   no plan prices are charged today at the fallback rate; what they really cost is anywhere
//!   between the catalog's cheapest and dearest list price, and that part of today's cost (and
//!   so of the saving) moves with it.

use serde::Serialize;

use super::monte_carlo::TriangularRange;
use super::workload::WorkloadClass;
use crate::shared::random::Xoshiro256StarStar;

/// Draws of the range: enough for P10 and P90 to settle within a few tenths of a percent.
pub const RANGE_DRAWS: u32 = 4_000;
const RANGE_SEED: u64 = 0x5a71_96e1;

/// What one class's switched cost is made of, per month.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassSwitch {
    pub class: WorkloadClass,
    /// The class on the cheapest offers at its term mix, before the split's correction.
    pub offers_usd: f64,
    /// The split pool's cost over the term mix (1 without a replay).
    pub separation_factor: f64,
    /// Its chosen accelerator is not one it runs on today.
    pub carried_over: bool,
    /// The share of its GPU-hours bought on spot.
    pub spot_share: f64,
    /// Its chosen purchase's cost over the flat mix's (1 when flat is chosen or none was
    /// sized): the board prices the purchase recommended.
    pub purchase_factor: f64,
}

/// An input the saving depends on, as a multiplier and its spread: `spread.mode` is its point
/// value, the one the headline is computed at (1 unless the forecast or an assumption says
/// otherwise: demand is the forecast's over the audited window's).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Driver {
    pub driver: &'static str,
    pub spread: TriangularRange,
    /// Where the spread comes from.
    pub basis: String,
}

/// The saving's range over the drivers drawn together.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SavingRange {
    pub p10_usd_per_year: f64,
    pub p50_usd_per_year: f64,
    pub p90_usd_per_year: f64,
    pub draws: u32,
}

/// One driver swung alone: the saving with it at its low value and at its high value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TornadoBar {
    pub driver: &'static str,
    pub low_usd_per_year: f64,
    pub high_usd_per_year: f64,
}

impl TornadoBar {
    /// How far the saving moves between the driver's two ends.
    pub fn swing_usd_per_year(&self) -> f64 {
        (self.high_usd_per_year - self.low_usd_per_year).abs()
    }
}

pub const DEMAND: &str = "demand";
pub const OFFER_PRICES: &str = "offer_prices";
pub const CARRY_OVER: &str = "carry_over";
pub const SEPARATION: &str = "separation";
pub const SPOT_PREEMPTION: &str = "spot_preemption";
pub const DELIVERED_SHARE: &str = "delivered_share";
pub const UNSTATED_PRICES: &str = "unstated_prices";

/// What the fleet costs today, a month, and the part of it charged at a price nobody stated
/// (models the catalog cannot price, at the fallback rate): the `UNSTATED_PRICES` driver
/// multiplies that part.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TodayCost {
    pub usd_per_month: f64,
    pub unstated_usd_per_month: f64,
}

impl From<f64> for TodayCost {
    fn from(usd_per_month: f64) -> TodayCost {
        TodayCost {
            usd_per_month,
            unstated_usd_per_month: 0.0,
        }
    }
}

impl TodayCost {
    fn with(&self, value: &dyn Fn(&str) -> f64) -> f64 {
        self.usd_per_month + self.unstated_usd_per_month * (value(UNSTATED_PRICES) - 1.0)
    }
}

/// The switched fleet's monthly cost with each driver at `value(driver)`.
fn switched_cost(classes: &[ClassSwitch], value: &dyn Fn(&str) -> f64) -> f64 {
    classes.iter().map(|c| class_cost(c, value)).sum()
}

/// The point value of `driver` among `drivers` (1 for one not listed).
fn point_value(drivers: &[Driver], driver: &str) -> f64 {
    drivers
        .iter()
        .find(|d| d.driver == driver)
        .map_or(1.0, |d| d.spread.mode)
}

/// One class's switched monthly cost with every driver at its point value: what the waterfall's
/// last step and the timeline's switched months charge for it.
pub fn class_cost_at_point(class: &ClassSwitch, drivers: &[Driver]) -> f64 {
    class_cost(class, &|name: &str| point_value(drivers, name))
}

/// The switched fleet's monthly cost with every driver at its point value.
pub fn switched_cost_at_point(classes: &[ClassSwitch], drivers: &[Driver]) -> f64 {
    switched_cost(classes, &|name: &str| point_value(drivers, name))
}

/// The headline: the yearly saving with every driver at its point value.
pub fn saving_at_point(today: impl Into<TodayCost>, classes: &[ClassSwitch], drivers: &[Driver]) -> f64 {
    saving(today.into(), classes, &|name: &str| point_value(drivers, name))
}

/// One class's switched monthly cost with each driver at `value(driver)`.
fn class_cost(c: &ClassSwitch, value: &dyn Fn(&str) -> f64) -> f64 {
    let separation = 1.0 + (c.separation_factor - 1.0) * value(SEPARATION);
    let carried = if c.carried_over { value(CARRY_OVER) } else { 1.0 };
    // The overhead of preemption is a fraction of the spot hours redone.
    let preempted = 1.0 + c.spot_share * (value(SPOT_PREEMPTION) - 1.0);
    let delivered = if c.class == WorkloadClass::Inference {
        1.0
    } else {
        value(DELIVERED_SHARE)
    };
    c.offers_usd
        * separation
        * value(DEMAND)
        * value(OFFER_PRICES)
        * carried
        * preempted
        * delivered
        * c.purchase_factor
}

/// The yearly saving with each driver at `value(driver)`.
fn saving(today: impl Into<TodayCost>, classes: &[ClassSwitch], value: &dyn Fn(&str) -> f64) -> f64 {
    (today.into().with(value) - switched_cost(classes, value)) * 12.0
}

/// The value of `driver` among `drivers` set to `at`, every other at its most likely value.
fn alone<'a>(drivers: &'a [Driver], driver: &'a str, at: f64) -> impl Fn(&str) -> f64 + 'a {
    move |name: &str| {
        if name == driver { at } else { point_value(drivers, name) }
    }
}

/// Each driver swung alone between its low and its high, the widest swing first.
pub fn tornado(today: impl Into<TodayCost>, classes: &[ClassSwitch], drivers: &[Driver]) -> Vec<TornadoBar> {
    let today = today.into();
    let mut bars: Vec<TornadoBar> = drivers
        .iter()
        .map(|d| {
            let at_low = saving(today, classes, &alone(drivers, d.driver, d.spread.low));
            let at_high = saving(today, classes, &alone(drivers, d.driver, d.spread.high));
            TornadoBar {
                driver: d.driver,
                low_usd_per_year: at_low,
                high_usd_per_year: at_high,
            }
        })
        .collect();
    bars.sort_by(|a, b| b.swing_usd_per_year().total_cmp(&a.swing_usd_per_year()));
    bars
}

/// The saving's P10, P50 and P90 over `RANGE_DRAWS` draws of every driver from its spread,
/// independently, from a fixed seed (the same inputs give the same range). Each driver is
/// drawn from the two half-triangles meeting at its point value, half the draws on each side
/// (`TriangularRange::sample_around_mode`): a triangle skewed one way would put the middle of
/// the draws away from the point and, with a few drivers skewed alike, the headline outside
/// its own range.
pub fn saving_range(today: impl Into<TodayCost>, classes: &[ClassSwitch], drivers: &[Driver]) -> SavingRange {
    let today = today.into();
    let mut random = Xoshiro256StarStar::seed_from_u64(RANGE_SEED);
    let mut savings: Vec<f64> = (0..RANGE_DRAWS)
        .map(|_| {
            let drawn: Vec<(&str, f64)> = drivers
                .iter()
                .map(|d| (d.driver, d.spread.sample_around_mode(random.next_f64())))
                .collect();
            let value = |name: &str| drawn.iter().find(|(n, _)| *n == name).map_or(1.0, |(_, v)| *v);
            saving(today, classes, &value)
        })
        .collect();
    savings.sort_by(f64::total_cmp);
    let at = |q: f64| savings[((q * (savings.len() - 1) as f64).round() as usize).min(savings.len() - 1)];
    SavingRange {
        p10_usd_per_year: at(0.10),
        p50_usd_per_year: at(0.50),
        p90_usd_per_year: at(0.90),
        draws: RANGE_DRAWS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver(name: &'static str, low: f64, high: f64) -> Driver {
        Driver {
            driver: name,
            spread: TriangularRange::new(low, 1.0, high),
            basis: String::new(),
        }
    }

    fn classes() -> Vec<ClassSwitch> {
        vec![
            ClassSwitch {
                class: WorkloadClass::Training,
                offers_usd: 50.0,
                separation_factor: 1.2,
                carried_over: true,
                spot_share: 0.0,
                purchase_factor: 1.0,
            },
            ClassSwitch {
                class: WorkloadClass::Burst,
                offers_usd: 10.0,
                separation_factor: 1.0,
                carried_over: false,
                spot_share: 0.5,
                purchase_factor: 1.0,
            },
        ]
    }

    #[test]
    fn at_the_most_likely_values_the_saving_is_the_waterfalls() {
        let drivers = [driver(DEMAND, 0.8, 1.3), driver(SEPARATION, 0.0, 1.5)];
        let point = saving(100.0, &classes(), &alone(&drivers, "none", 1.0));
        // 100 − (50 × 1.2 + 10) = 30 a month.
        assert!((point - 360.0).abs() < 1e-9);
    }

    #[test]
    fn the_tornado_swings_each_driver_alone_widest_first() {
        let drivers = [
            driver(DEMAND, 0.8, 1.3),
            driver(SPOT_PREEMPTION, 1.0, 1.2),
            driver(SEPARATION, 0.0, 1.5),
        ];
        let bars = tornado(100.0, &classes(), &drivers);
        let names: Vec<&str> = bars.iter().map(|b| b.driver).collect();
        assert_eq!(names, [DEMAND, SEPARATION, SPOT_PREEMPTION]);
        // Demand 0.8: 100 − 70 × 0.8 = 44/month; 1.3: 100 − 91 = 9.
        assert!((bars[0].low_usd_per_year - 528.0).abs() < 1e-9);
        assert!((bars[0].high_usd_per_year - 108.0).abs() < 1e-9);
        // Spot preemption: none at its low; +20 % on half of burst's 10 at its high: −1/month.
        assert!((bars[2].low_usd_per_year - 360.0).abs() < 1e-9);
        assert!((bars[2].high_usd_per_year - 348.0).abs() < 1e-9);
    }

    #[test]
    fn the_range_holds_the_point_and_is_the_same_every_time() {
        let drivers = [driver(DEMAND, 0.8, 1.3), driver(OFFER_PRICES, 0.8, 1.05)];
        let range = saving_range(100.0, &classes(), &drivers);
        assert!(range.p10_usd_per_year < range.p50_usd_per_year);
        assert!(range.p50_usd_per_year < range.p90_usd_per_year);
        assert!((range.p10_usd_per_year..=range.p90_usd_per_year).contains(&360.0));
        assert_eq!(range, saving_range(100.0, &classes(), &drivers));
        assert_eq!(range.draws, RANGE_DRAWS);
    }

    /// The spreads the old range was drawn from broke the headline out of it: drivers whose
    /// point is near one end of their spread (demand grown to ×1.6 with a band reaching far
    /// further down than up; separation's correction more likely lost than doubled).
    #[test]
    fn the_range_is_drawn_around_the_point_when_every_driver_is_skewed_one_way() {
        let drivers = [
            Driver {
                driver: DEMAND,
                spread: TriangularRange::new(0.5, 1.6, 1.62),
                basis: String::new(),
            },
            driver(SEPARATION, 0.5, 1.05),
        ];
        let point = saving_at_point(100.0, &classes(), &drivers);
        // 100 − (50 × 1.2 + 10) × 1.6 = −12 a month: the grown fleet costs more than today.
        assert!((point - -144.0).abs() < 1e-9, "{point}");
        let range = saving_range(100.0, &classes(), &drivers);
        assert!(
            (range.p10_usd_per_year..=range.p90_usd_per_year).contains(&point),
            "{point} within {range:?}"
        );
        // The plain triangles, drawn as before, put the point outside.
        let mut random = Xoshiro256StarStar::seed_from_u64(RANGE_SEED);
        let mut old: Vec<f64> = (0..RANGE_DRAWS)
            .map(|_| {
                let drawn: Vec<(&str, f64)> = drivers
                    .iter()
                    .map(|d| (d.driver, d.spread.sample(random.next_f64())))
                    .collect();
                saving(100.0, &classes(), &|name: &str| {
                    drawn.iter().find(|(n, _)| *n == name).map_or(1.0, |(_, v)| *v)
                })
            })
            .collect();
        old.sort_by(f64::total_cmp);
        let at = |q: f64| old[(q * (old.len() - 1) as f64).round() as usize];
        assert!(
            !(at(0.1)..=at(0.9)).contains(&point),
            "{point}: {} {}",
            at(0.1),
            at(0.9)
        );
        // The timeline and the waterfall price each class at the same point.
        let by_class: f64 = classes().iter().map(|c| class_cost_at_point(c, &drivers)).sum();
        assert!((by_class - switched_cost_at_point(&classes(), &drivers)).abs() < 1e-9);
    }

    #[test]
    fn unstated_prices_move_todays_side_alone() {
        let drivers = [driver(UNSTATED_PRICES, 0.1, 1.2)];
        let today = TodayCost {
            usd_per_month: 100.0,
            unstated_usd_per_month: 40.0,
        };
        // At its point the saving is the waterfall's: 100 − 70 = 30 a month.
        assert!((saving_at_point(today, &classes(), &drivers) - 360.0).abs() < 1e-9);
        let bars = tornado(today, &classes(), &drivers);
        // Low: 40 at a tenth of its price, today 64 and the saving −6 a month; high: 108 − 70.
        assert!((bars[0].low_usd_per_year - -72.0).abs() < 1e-9, "{bars:?}");
        assert!((bars[0].high_usd_per_year - 456.0).abs() < 1e-9, "{bars:?}");
        let range = saving_range(today, &classes(), &drivers);
        assert!(
            range.p10_usd_per_year < 360.0 && 360.0 < range.p90_usd_per_year,
            "{range:?}"
        );
    }
}
