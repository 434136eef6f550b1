//! Seeded Monte Carlo of a plan's total cost (the distribution beside the expected value): the base
//! training cost, uncertain through MFU and price ranges, plus the risk rows of
//! docs/economics.md ("Risk exposure") drawn as counts of occurrences. Reproducible by seed across versions: the
//! generator is written out here, not borrowed from a crate whose stream may change.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::risk::RiskScenario;
use crate::shared::random::Xoshiro256StarStar;

/// Expected occurrences of one row above which its binomial count is drawn from the normal
/// approximation; below it the draw is exact and costs about `n·p` uniforms.
const EXACT_BINOMIAL_MAX_MEAN: f64 = 1_000.0;

/// A triangular distribution: the planner's low, most likely and high values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriangularRange {
    pub low: f64,
    pub mode: f64,
    pub high: f64,
}

impl TriangularRange {
    pub fn new(low: f64, mode: f64, high: f64) -> Self {
        Self { low, mode, high }
    }

    /// Finite and ordered low <= mode <= high.
    pub fn is_valid(&self) -> bool {
        [self.low, self.mode, self.high].iter().all(|v| v.is_finite())
            && self.low <= self.mode
            && self.mode <= self.high
    }

    pub fn mean(&self) -> f64 {
        (self.low + self.mode + self.high) / 3.0
    }

    /// E[1/X], needed because cost goes as 1/MFU. For X on (a, c, b), integrating the density
    /// over 1/x gives 2/(b−a) · [b·L(c, b) − a·L(a, c)] with L(p, q) = ln(q/p)/(q−p); None
    /// when the range touches zero, where 1/X is unbounded.
    pub fn mean_of_reciprocal(&self) -> Option<f64> {
        let (a, c, b) = (self.low, self.mode, self.high);
        if !self.is_valid() || a <= 0.0 {
            return None;
        }
        if b - a <= f64::EPSILON * b {
            return Some(1.0 / c);
        }
        Some(2.0 / (b - a) * (b * log_ratio_over_difference(c, b) - a * log_ratio_over_difference(a, c)))
    }

    /// Inverse of the CDF at `u` in [0, 1).
    pub fn sample(&self, u: f64) -> f64 {
        let (a, c, b) = (self.low, self.mode, self.high);
        let width = b - a;
        if width <= 0.0 {
            return c;
        }
        let mode_cdf = (c - a) / width;
        if u < mode_cdf {
            a + (u * width * (c - a)).sqrt()
        } else {
            b - ((1.0 - u) * width * (b - c)).sqrt()
        }
    }

    /// Inverse of the CDF at `u` in [0, 1) of the two-piece triangle that meets at the mode:
    /// below it half the time (the rising half-triangle from low), above it half the time (the
    /// falling one to high). Its median is the mode, so a figure computed at the modes is the
    /// middle of what the draws give, whatever the skew of low and high.
    pub fn sample_around_mode(&self, u: f64) -> f64 {
        let (a, c, b) = (self.low, self.mode, self.high);
        if u < 0.5 {
            a + (c - a) * (2.0 * u).sqrt()
        } else {
            b - (b - c) * (2.0 * (1.0 - u)).sqrt()
        }
    }

    /// The same spread around `mode`: low and high scaled by `mode / self.mode`, high held at
    /// `cap` (and never below the mode). None when the range has no positive mode.
    pub fn moved_to(&self, mode: f64, cap: f64) -> Option<TriangularRange> {
        if !(self.is_valid() && self.mode > 0.0 && mode.is_finite() && mode > 0.0) {
            return None;
        }
        let scale = mode / self.mode;
        Some(TriangularRange::new(
            (self.low * scale).min(mode),
            mode,
            (self.high * scale).min(cap).max(mode),
        ))
    }
}

/// ln(q/p)/(q−p) for 0 < p <= q, taking its limit 1/p as q → p; ln_1p keeps it exact there.
fn log_ratio_over_difference(p: f64, q: f64) -> f64 {
    let difference = q - p;
    if difference <= 0.0 {
        return 1.0 / p;
    }
    (difference / p).ln_1p() / difference
}

/// The training cost the risks sit on, with its optional uncertainty.
///
/// A draw scales the point cost: cost = point_usd × (price / point_price) × (point_mfu / mfu).
/// That is exact for C_run (docs/economics.md, "Training cost"), which is linear in the per-chip-hour price
/// and inversely proportional to MFU; the price here is the total per chip-hour (compute plus
/// network), so a range given on compute alone must have the network premium added first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaseCost {
    /// Cost at the point MFU and price; 0 for risk rows alone.
    pub point_usd: f64,
    pub point_mfu_frac: f64,
    pub point_usd_per_chip_hour: f64,
    pub mfu_range: Option<TriangularRange>,
    pub price_range: Option<TriangularRange>,
}

impl BaseCost {
    /// A known cost with no uncertainty.
    pub fn fixed(point_usd: f64) -> Self {
        Self {
            point_usd,
            point_mfu_frac: 1.0,
            point_usd_per_chip_hour: 1.0,
            mfu_range: None,
            price_range: None,
        }
    }

    /// E[cost]: MFU and price are drawn independently, so E[price/mfu] = E[price]·E[1/mfu].
    fn expected_usd(&self) -> Result<f64, MonteCarloError> {
        let price_factor = match self.price_range {
            Some(range) => range.mean() / self.point_usd_per_chip_hour,
            None => 1.0,
        };
        let mfu_factor = match self.mfu_range {
            Some(range) => self.point_mfu_frac * range.mean_of_reciprocal().ok_or(MonteCarloError::InvalidMfuRange)?,
            None => 1.0,
        };
        Ok(self.point_usd * price_factor * mfu_factor)
    }

    fn validate(&self) -> Result<(), MonteCarloError> {
        if !self.point_usd.is_finite() {
            return Err(MonteCarloError::InvalidPoint);
        }
        if let Some(range) = self.mfu_range {
            if !range.is_valid() || range.low <= 0.0 {
                return Err(MonteCarloError::InvalidMfuRange);
            }
            if !(self.point_mfu_frac.is_finite() && self.point_mfu_frac > 0.0) {
                return Err(MonteCarloError::InvalidPoint);
            }
        }
        if let Some(range) = self.price_range {
            if !range.is_valid() || range.low < 0.0 {
                return Err(MonteCarloError::InvalidPriceRange);
            }
            if !(self.point_usd_per_chip_hour.is_finite() && self.point_usd_per_chip_hour > 0.0) {
                return Err(MonteCarloError::InvalidPoint);
            }
        }
        Ok(())
    }

    /// One draw, consuming a uniform for MFU then one for price, each only when ranged.
    fn draw(&self, rng: &mut Xoshiro256StarStar) -> f64 {
        let mut cost_usd = self.point_usd;
        if let Some(range) = self.mfu_range {
            cost_usd *= self.point_mfu_frac / range.sample(rng.next_f64());
        }
        if let Some(range) = self.price_range {
            cost_usd *= range.sample(rng.next_f64()) / self.point_usd_per_chip_hour;
        }
        cost_usd
    }
}

/// Why a simulation could not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MonteCarloError {
    NoDraws,
    InvalidMfuRange,
    InvalidPriceRange,
    InvalidPoint,
}

impl fmt::Display for MonteCarloError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MonteCarloError::NoDraws => "the simulation needs at least one draw",
            MonteCarloError::InvalidMfuRange => {
                "the MFU range must be finite, above zero and ordered low <= mode <= high"
            }
            MonteCarloError::InvalidPriceRange => {
                "the price range must be finite, not negative and ordered low <= mode <= high"
            }
            MonteCarloError::InvalidPoint => "the point cost, MFU and price must be finite, and MFU and price positive",
        })
    }
}

impl std::error::Error for MonteCarloError {}

/// What the simulation says about total cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MonteCarloSummary {
    pub draws: usize,
    pub seed: u64,
    pub mean_usd: f64,
    pub p50_usd: f64,
    pub p90_usd: f64,
    pub p99_usd: f64,
    /// The analytic expected value the sample mean should approach.
    pub expected_usd: f64,
}

/// A row's chance, count and impact as the simulation reads them: probabilities outside 0–1
/// are clamped, a negative or non-finite count and a non-finite impact are zero, so a
/// half-typed value never poisons the totals (the plan's own validation reports it).
fn clean_row(row: &RiskScenario) -> (f64, f64, f64) {
    let probability = if row.probability.is_nan() {
        0.0
    } else {
        row.probability.clamp(0.0, 1.0)
    };
    let count = if row.expected_count.is_finite() {
        row.expected_count.max(0.0)
    } else {
        0.0
    };
    let impact_usd = if row.impact_usd.is_finite() {
        row.impact_usd
    } else {
        0.0
    };
    (probability, count, impact_usd)
}

/// The analytic expected total: E[base] + Σ probability × count × impact.
pub fn expected_total_usd(base: &BaseCost, risks: &[RiskScenario]) -> Result<f64, MonteCarloError> {
    base.validate()?;
    let risk_usd: f64 = risks
        .iter()
        .map(|row| {
            let (probability, count, impact_usd) = clean_row(row);
            probability * count * impact_usd
        })
        .sum();
    Ok(base.expected_usd()? + risk_usd)
}

/// Binomial(n, p). Small means count successes by geometric waiting times (exact, about n·p
/// uniforms); large means use the normal approximation, whose error is then far below the
/// spread of the total. p > 1/2 is drawn as n − Binomial(n, 1 − p) to keep the loop short.
fn binomial(rng: &mut Xoshiro256StarStar, trials: u64, probability: f64) -> u64 {
    if trials == 0 || probability <= 0.0 {
        return 0;
    }
    if probability >= 1.0 {
        return trials;
    }
    if probability > 0.5 {
        return trials - binomial(rng, trials, 1.0 - probability);
    }
    let n = trials as f64;
    let mean = n * probability;
    if mean > EXACT_BINOMIAL_MAX_MEAN {
        // Box–Muller; 1 − u lies in (0, 1], so the logarithm is finite.
        let radius = (-2.0 * (1.0 - rng.next_f64()).ln()).sqrt();
        let z = radius * (std::f64::consts::TAU * rng.next_f64()).cos();
        let draw = (mean + z * (mean * (1.0 - probability)).sqrt()).round();
        return draw.clamp(0.0, n) as u64;
    }
    let log_failure = (-probability).ln_1p();
    let mut successes = 0;
    let mut position: u64 = 0;
    loop {
        // Failures before the next success: floor(ln U / ln(1 − p)). Compared as a float, so
        // a gap past u64 (p below about 1e-19) ends the count instead of wrapping to zero and
        // counting successes for ever.
        let failures = ((1.0 - rng.next_f64()).ln() / log_failure).floor();
        if failures >= (trials - position) as f64 {
            return successes;
        }
        position += failures as u64 + 1;
        successes += 1;
    }
}

/// Occurrences of one row in one draw: Binomial(floor(count), p) plus one Bernoulli(p ×
/// frac(count)) for the fractional unit, so the mean is exactly p × count.
fn occurrences(rng: &mut Xoshiro256StarStar, probability: f64, count: f64) -> f64 {
    let whole = count.floor();
    let fraction = count - whole;
    let mut hits = binomial(rng, whole as u64, probability) as f64;
    if fraction > 0.0 && rng.next_f64() < probability * fraction {
        hits += 1.0;
    }
    hits
}

/// Nearest-rank percentile of sorted totals: the smallest value with at least `q` of the
/// draws at or below it.
fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Runs `draws` draws of total cost = base draw + Σ occurrences × impact. Each draw consumes
/// its uniforms in a fixed order (MFU, price, then the rows in order), so the same inputs and
/// seed give the same summary on every machine.
pub fn simulate_total_cost(
    base: &BaseCost,
    risks: &[RiskScenario],
    draws: usize,
    seed: u64,
) -> Result<MonteCarloSummary, MonteCarloError> {
    if draws == 0 {
        return Err(MonteCarloError::NoDraws);
    }
    let expected_usd = expected_total_usd(base, risks)?;
    let rows: Vec<(f64, f64, f64)> = risks.iter().map(clean_row).collect();
    let mut rng = Xoshiro256StarStar::seed_from_u64(seed);
    let mut totals: Vec<f64> = Vec::with_capacity(draws);
    for _ in 0..draws {
        let mut total_usd = base.draw(&mut rng);
        for &(probability, count, impact_usd) in &rows {
            total_usd += occurrences(&mut rng, probability, count) * impact_usd;
        }
        totals.push(total_usd);
    }
    let mean_usd = totals.iter().sum::<f64>() / draws as f64;
    totals.sort_unstable_by(f64::total_cmp);
    Ok(MonteCarloSummary {
        draws,
        seed,
        mean_usd,
        p50_usd: nearest_rank(&totals, 0.50),
        p90_usd: nearest_rank(&totals, 0.90),
        p99_usd: nearest_rank(&totals, 0.99),
        expected_usd,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::risk::RiskUnit;

    fn row(probability: f64, impact_usd: f64, unit: RiskUnit, expected_count: f64) -> RiskScenario {
        RiskScenario {
            scenario: "x".into(),
            probability,
            impact_usd,
            unit,
            expected_count,
        }
    }

    /// The four rows of docs/economics.md, "Risk exposure", with counts a plan might expect.
    fn seed_rows() -> Vec<RiskScenario> {
        vec![
            row(0.08, 45_000.0, RiskUnit::Run, 3.0),
            row(0.15, 150_000.0, RiskUnit::Project, 1.0),
            row(0.25, 12_000.0, RiskUnit::Event, 20.0),
            row(0.12, 5_000.0, RiskUnit::Event, 12.5),
        ]
    }

    /// The seed's H100 row: ~$1.05M / MFU at $12.50 per chip-hour, MFU 25–60 %.
    fn h100_base() -> BaseCost {
        BaseCost {
            point_usd: 1.05e6 / 0.45,
            point_mfu_frac: 0.45,
            point_usd_per_chip_hour: 12.5,
            mfu_range: Some(TriangularRange::new(0.25, 0.45, 0.60)),
            price_range: Some(TriangularRange::new(10.0, 12.5, 16.0)),
        }
    }

    #[test]
    fn triangular_reciprocal_mean_matches_numeric_integration() {
        for range in [
            TriangularRange::new(0.25, 0.45, 0.60),
            TriangularRange::new(0.25, 0.25, 0.60),
            TriangularRange::new(0.25, 0.60, 0.60),
            TriangularRange::new(0.30, 0.30, 0.30),
        ] {
            let analytic = range.mean_of_reciprocal().unwrap_or(f64::NAN);
            // Midpoint rule over the inverse CDF: E[1/X] = ∫ 1/F⁻¹(u) du.
            let steps = 200_000;
            let numeric = (0..steps)
                .map(|i| 1.0 / range.sample((i as f64 + 0.5) / steps as f64))
                .sum::<f64>()
                / steps as f64;
            assert!(
                (analytic - numeric).abs() / numeric < 1e-6,
                "{range:?}: {analytic} vs {numeric}"
            );
        }
        assert_eq!(TriangularRange::new(0.0, 0.3, 0.5).mean_of_reciprocal(), None);
    }

    #[test]
    fn same_seed_gives_the_same_summary_and_another_seed_does_not() {
        let rows = seed_rows();
        let first = simulate_total_cost(&h100_base(), &rows, 10_000, 2026);
        let again = simulate_total_cost(&h100_base(), &rows, 10_000, 2026);
        let other = simulate_total_cost(&h100_base(), &rows, 10_000, 2027);
        assert_eq!(first, again);
        let (first, other) = (
            first.unwrap_or_else(|e| panic!("{e}")),
            other.unwrap_or_else(|e| panic!("{e}")),
        );
        assert_ne!(first.mean_usd, other.mean_usd);
        assert_ne!(first.p90_usd, other.p90_usd);
        assert_eq!(first.expected_usd, other.expected_usd);
    }

    #[test]
    fn mean_is_within_one_percent_of_expected_with_base_and_seed_rows() {
        let summary = simulate_total_cost(&h100_base(), &seed_rows(), 100_000, 1).unwrap_or_else(|e| panic!("{e}"));
        let expected = summary.expected_usd;
        // Analytic: E[base] + 3×$3,600 + $22,500 + 20×$3,000 + 12.5×$600.
        let base_expected = h100_base().expected_usd().unwrap_or(f64::NAN);
        assert!((expected - base_expected - 100_800.0).abs() < 1e-6, "{expected}");
        assert!((summary.mean_usd - expected).abs() / expected < 0.01, "{summary:?}");
    }

    #[test]
    fn mean_is_within_one_percent_of_expected_for_risk_rows_alone_seed_99() {
        let summary =
            simulate_total_cost(&BaseCost::fixed(0.0), &seed_rows(), 100_000, 99).unwrap_or_else(|e| panic!("{e}"));
        assert!((summary.expected_usd - 100_800.0).abs() < 1e-6);
        assert!((summary.mean_usd - 100_800.0).abs() / 100_800.0 < 0.01, "{summary:?}");
    }

    #[test]
    fn large_counts_keep_the_mean_through_the_normal_approximation() {
        // 8,000 events at 25 %: mean 2,000 occurrences, above the exact-draw limit.
        let rows = [row(0.25, 10.0, RiskUnit::Event, 8_000.0)];
        let summary = simulate_total_cost(&BaseCost::fixed(0.0), &rows, 20_000, 5).unwrap_or_else(|e| panic!("{e}"));
        assert!((summary.mean_usd - 20_000.0).abs() / 20_000.0 < 0.005, "{summary:?}");
        // And p > 1/2 goes through the complement.
        let rows = [row(0.9, 1.0, RiskUnit::Event, 10.0)];
        let summary = simulate_total_cost(&BaseCost::fixed(0.0), &rows, 50_000, 5).unwrap_or_else(|e| panic!("{e}"));
        assert!((summary.mean_usd - 9.0).abs() < 0.05, "{summary:?}");
        assert!(summary.p99_usd <= 10.0);
    }

    #[test]
    fn fractional_counts_keep_the_mean_at_probability_times_count() {
        let rows = [row(0.5, 100.0, RiskUnit::Event, 0.4)];
        let summary = simulate_total_cost(&BaseCost::fixed(0.0), &rows, 100_000, 3).unwrap_or_else(|e| panic!("{e}"));
        assert!((summary.expected_usd - 20.0).abs() < 1e-9);
        assert!((summary.mean_usd - 20.0).abs() < 0.5, "{summary:?}");
    }

    #[test]
    fn percentiles_are_ordered() {
        for seed in 0..5 {
            let s = simulate_total_cost(&h100_base(), &seed_rows(), 10_000, seed).unwrap_or_else(|e| panic!("{e}"));
            assert!(s.p50_usd <= s.p90_usd && s.p90_usd <= s.p99_usd, "{s:?}");
            assert!(s.p90_usd > s.p50_usd, "a spread of outcomes: {s:?}");
        }
    }

    #[test]
    fn zero_probability_leaves_only_the_base_cost() {
        let rows: Vec<RiskScenario> = seed_rows()
            .into_iter()
            .map(|r| RiskScenario { probability: 0.0, ..r })
            .collect();
        let s = simulate_total_cost(&BaseCost::fixed(2.5e6), &rows, 1_000, 11).unwrap_or_else(|e| panic!("{e}"));
        for value in [s.mean_usd, s.p50_usd, s.p90_usd, s.p99_usd, s.expected_usd] {
            assert_eq!(value, 2.5e6);
        }
    }

    #[test]
    fn a_vanishing_probability_ends_the_count_instead_of_looping() {
        // Below about 1e-19 the gap to the next success passes u64: it used to wrap to zero
        // and count successes for ever (the plan's report never came back).
        let mut rng = Xoshiro256StarStar::seed_from_u64(7);
        for probability in [1e-300, 1e-19, 1e-12] {
            for trials in [1, 1_000, 1_000_000] {
                let hits = binomial(&mut rng, trials, probability);
                assert!(hits <= 1, "p {probability}, n {trials}: {hits}");
            }
        }
        let rows = [row(1e-300, 1e9, RiskUnit::Run, 1e6)];
        let s = simulate_total_cost(&BaseCost::fixed(10.0), &rows, 1_000, 3).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((s.p50_usd, s.p99_usd), (10.0, 10.0));
    }

    #[test]
    fn certain_risks_add_their_full_impact() {
        let rows = [row(1.0, 1_000.0, RiskUnit::Run, 3.0)];
        let s = simulate_total_cost(&BaseCost::fixed(10.0), &rows, 100, 0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((s.p50_usd, s.p99_usd, s.mean_usd), (3_010.0, 3_010.0, 3_010.0));
    }

    #[test]
    fn bad_inputs_are_reported_not_panicked() {
        let rows = seed_rows();
        assert_eq!(
            simulate_total_cost(&h100_base(), &rows, 0, 1),
            Err(MonteCarloError::NoDraws)
        );
        let mut base = h100_base();
        base.mfu_range = Some(TriangularRange::new(0.0, 0.4, 0.5));
        assert_eq!(
            simulate_total_cost(&base, &rows, 10, 1),
            Err(MonteCarloError::InvalidMfuRange)
        );
        base.mfu_range = Some(TriangularRange::new(0.5, 0.4, 0.6));
        assert_eq!(
            simulate_total_cost(&base, &rows, 10, 1),
            Err(MonteCarloError::InvalidMfuRange)
        );
        let mut base = h100_base();
        base.price_range = Some(TriangularRange::new(f64::NAN, 1.0, 2.0));
        assert_eq!(
            simulate_total_cost(&base, &rows, 10, 1),
            Err(MonteCarloError::InvalidPriceRange)
        );
        let mut base = h100_base();
        base.point_usd_per_chip_hour = 0.0;
        assert_eq!(
            simulate_total_cost(&base, &rows, 10, 1),
            Err(MonteCarloError::InvalidPoint)
        );
        // Out-of-range rows are clamped, not fatal.
        let odd = [
            row(1.7, 100.0, RiskUnit::Event, -3.0),
            row(f64::NAN, 5.0, RiskUnit::Event, 2.0),
            row(1.0, f64::NAN, RiskUnit::Event, 1.0),
        ];
        let s = simulate_total_cost(&BaseCost::fixed(1.0), &odd, 10, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.p99_usd, 1.0);
    }

    #[test]
    fn a_cheaper_price_range_lowers_the_distribution() {
        let rows = seed_rows();
        let dear = simulate_total_cost(&h100_base(), &rows, 10_000, 8).unwrap_or_else(|e| panic!("{e}"));
        let mut cheap_base = h100_base();
        cheap_base.price_range = Some(TriangularRange::new(5.0, 6.0, 8.0));
        let cheap = simulate_total_cost(&cheap_base, &rows, 10_000, 8).unwrap_or_else(|e| panic!("{e}"));
        assert!(cheap.p50_usd < dear.p50_usd && cheap.expected_usd < dear.expected_usd);
    }

    #[test]
    fn the_two_piece_draw_has_its_median_at_the_mode_however_skewed() {
        let skewed = TriangularRange::new(0.0, 1.0, 1.5);
        assert_eq!(skewed.sample_around_mode(0.5), 1.0);
        assert_eq!(skewed.sample_around_mode(0.0), 0.0);
        assert!((skewed.sample_around_mode(1.0 - 1e-12) - 1.5).abs() < 1e-5);
        let draws: Vec<f64> = (0..1_000)
            .map(|i| skewed.sample_around_mode((i as f64 + 0.5) / 1e3))
            .collect();
        assert_eq!(draws.iter().filter(|&&x| x < 1.0).count(), 500);
        // The plain triangle of the same three values puts more than half its draws below 1.
        let below = (0..1_000)
            .filter(|i| skewed.sample((*i as f64 + 0.5) / 1e3) < 1.0)
            .count();
        assert!(below > 600, "{below}");
    }

    #[test]
    fn a_range_moved_to_a_new_mode_keeps_its_proportions_under_its_cap() {
        let mfu = TriangularRange::new(0.26, 0.45, 0.46);
        let moved = mfu.moved_to(0.605, 1.0).expect("moved");
        assert!((moved.low - 0.26 * 0.605 / 0.45).abs() < 1e-12);
        assert_eq!(moved.mode, 0.605);
        assert!((moved.high - 0.46 * 0.605 / 0.45).abs() < 1e-12);
        let capped = mfu.moved_to(0.99, 1.0).expect("moved");
        assert_eq!(capped.high, 1.0);
        assert!(capped.is_valid());
        assert_eq!(TriangularRange::new(0.0, 0.0, 0.0).moved_to(0.5, 1.0), None);
    }
}
