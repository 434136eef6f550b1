//! The price bet, priced (docs/board.md, "The price bet"). The layers are sized on a yearly
//! price change nobody knows: a falling market makes renewing shorter terms cheaper later, so
//! a long commitment must beat that. Here the sized layers and today's matcher's mix are each
//! priced over the whole horizon as if prices held, moved as stated, or moved twice as fast;
//! and the change at which the longest term stops paying is found.

use serde::Serialize;

use super::ladder::{Ladder, TierMenu, alternative_usd_per_hour, ladder_cost};
use super::paths::MonthDemand;
use crate::model::catalog::PRICE_CHANGE_RANGE;
use crate::model::price_trend::PriceBet;

/// Bisection steps for the break-even change: 2^-50 of the range.
const BREAK_EVEN_STEPS: usize = 50;

/// How prices move in a stress case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StressCase {
    /// No change.
    Held,
    /// The change the catalog (or the plan's `[[price_change]]`) states.
    Catalog,
    /// Twice that change.
    Twice,
}

impl StressCase {
    pub const ALL: [StressCase; 3] = [StressCase::Held, StressCase::Catalog, StressCase::Twice];

    pub fn label(self) -> &'static str {
        match self {
            StressCase::Held => "held",
            StressCase::Catalog => "catalog",
            StressCase::Twice => "twice",
        }
    }

    fn change(self, stated_per_year: f64) -> f64 {
        match self {
            StressCase::Held => 0.0,
            StressCase::Catalog => stated_per_year,
            StressCase::Twice => (2.0 * stated_per_year).clamp(PRICE_CHANGE_RANGE.0, PRICE_CHANGE_RANGE.1),
        }
    }
}

/// The layers and flat over the horizon when prices move by `change_per_year`, taken as certain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceStress {
    pub case: StressCase,
    pub change_per_year: f64,
    pub layers_usd: f64,
    pub flat_usd: f64,
}

/// The sized `ladder` on `menu` and the `flat` mix, each priced over every month of `months`
/// under each stress case of the `stated_per_year` change.
pub fn price_stress(
    menu: &TierMenu,
    ladder: &Ladder,
    flat: &(TierMenu, Ladder),
    months: &[MonthDemand],
    stated_per_year: f64,
) -> Vec<PriceStress> {
    let horizon = 0..months.len();
    StressCase::ALL
        .iter()
        .map(|&case| {
            let bet = PriceBet::certain(case.change(stated_per_year));
            let priced =
                |m: &TierMenu, l: &Ladder| ladder_cost(&m.with_bet(bet), l, months, horizon.clone()).total_usd();
            PriceStress {
                case,
                change_per_year: bet.change_per_year,
                layers_usd: priced(menu, ladder),
                flat_usd: priced(&flat.0, &flat.1),
            }
        })
        .collect()
}

/// The yearly price change, taken as certain, at which the longest committed term's first GPU
/// (the one busy nearly every hour) costs the same as its best alternative on the shorter
/// terms and by use: above it the long term pays, below it renewing shorter terms as prices
/// fall is cheaper. None when the menu commits to nothing, or when no change from -90 % to
/// +900 % a year tips it (it pays, or fails to, whatever prices do).
pub fn break_even_change_per_year(menu: &TierMenu, months: &[MonthDemand]) -> Option<f64> {
    let price = menu.committed.first()?.usd_per_gpu_hour;
    let first_period = 0..menu.committed[0].term_months.max(1).min(months.len());
    if first_period.is_empty() {
        return None;
    }
    let pays = |change: f64| {
        let at = menu.with_bet(PriceBet::certain(change));
        price <= alternative_usd_per_hour(&at, months, 0, &first_period, 0.0)
    };
    let (mut falling, mut rising) = PRICE_CHANGE_RANGE;
    // Alternatives cost more as prices rise: the long term pays above some change.
    if pays(falling) || !pays(rising) {
        return None;
    }
    for _ in 0..BREAK_EVEN_STEPS {
        let mid = 0.5 * (falling + rising);
        if pays(mid) {
            rising = mid;
        } else {
            falling = mid;
        }
    }
    Some(0.5 * (falling + rising))
}
