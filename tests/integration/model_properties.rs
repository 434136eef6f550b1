//! Properties of the economics that hold for any input, not only the worked examples.

use gpuplan::model::risk::{RiskScenario, RiskUnit, weighted_exposure_usd};
use gpuplan::model::training::{ChipHourPrice, RunInputs, run_cost};
use proptest::prelude::*;

proptest! {
    #[test]
    fn cost_strictly_falls_as_mfu_rises(
        flops in 1e18f64..1e26,
        peak in 10.0f64..5000.0,
        chips in 1.0f64..100_000.0,
        price in 0.01f64..100.0,
        network in 0.0f64..10.0,
        failure in 0.0f64..1.0,
        low in 0.01f64..0.99,
        gap in 0.001f64..0.5,
    ) {
        let high = (low + gap).min(1.0);
        prop_assume!(high > low);
        let at = |mfu_frac| run_cost(&RunInputs {
            flops,
            peak_dense_tflops: peak,
            mfu_frac,
            chips,
            price: ChipHourPrice { compute_usd_per_chip_hour: price, network_usd_per_chip_hour: network },
            failure_overhead_frac: failure,
        });
        prop_assert!(at(high).cost_usd < at(low).cost_usd);
        prop_assert!(at(high).wall_hours < at(low).wall_hours);
    }

    #[test]
    fn exposure_is_linear_in_probability(
        probability in 0.0f64..=1.0,
        scale in 0.0f64..=1.0,
        impact in 0.0f64..1e9,
        count in 0.0f64..100.0,
    ) {
        let row = |p| RiskScenario { scenario: "s".into(), probability: p, impact_usd: impact, unit: RiskUnit::Event, expected_count: count };
        let full = weighted_exposure_usd(&[row(probability)]);
        let scaled = weighted_exposure_usd(&[row(probability * scale)]);
        prop_assert!((scaled - full * scale).abs() <= 1e-9 * full.max(1.0));
        let doubled = weighted_exposure_usd(&[row(probability), row(probability)]);
        prop_assert!((doubled - 2.0 * full).abs() <= 1e-9 * full.max(1.0));
    }
}
