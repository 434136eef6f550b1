//! Training-run economics (docs/economics.md, "Training cost"): FLOPs, wall-clock hours, C_run, MFU.

/// Seconds in an hour; the time term of C_run is in hours.
const SECONDS_PER_HOUR: f64 = 3600.0;
/// One TFLOPS in FLOP/s.
const FLOPS_PER_TFLOPS: f64 = 1e12;

/// Total training FLOPs of a dense transformer: 6·N·D, or 8·N·D when every
/// activation is recomputed in the backward pass (one extra forward).
pub fn training_flops(model_params: f64, tokens: f64, activation_recomputation: bool) -> f64 {
    let flops_per_param_token = if activation_recomputation { 8.0 } else { 6.0 };
    flops_per_param_token * model_params * tokens
}

/// Wall-clock hours a run of `flops` takes on `chips` accelerators of dense peak
/// `peak_dense_tflops` at model FLOPs utilization `mfu_frac`.
pub fn run_wall_hours(flops: f64, peak_dense_tflops: f64, mfu_frac: f64, chips: f64) -> f64 {
    flops / (peak_dense_tflops * FLOPS_PER_TFLOPS * mfu_frac * chips) / SECONDS_PER_HOUR
}

/// Hourly prices of one chip that enter C_run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChipHourPrice {
    /// C_compute_hr divided by the chip count.
    pub compute_usd_per_chip_hour: f64,
    /// C_net_hr divided by the chip count (InfiniBand or EFA premium).
    pub network_usd_per_chip_hour: f64,
}

impl ChipHourPrice {
    pub fn total_usd_per_chip_hour(&self) -> f64 {
        self.compute_usd_per_chip_hour + self.network_usd_per_chip_hour
    }
}

/// Everything C_run needs about one run on one accelerator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunInputs {
    pub flops: f64,
    pub peak_dense_tflops: f64,
    pub mfu_frac: f64,
    pub chips: f64,
    pub price: ChipHourPrice,
    /// R_failure: share of extra time lost to node failures and checkpoint recovery.
    pub failure_overhead_frac: f64,
}

/// The cost of one run, with the intermediate quantities a planner checks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunCost {
    /// Wall-clock hours, before the failure overhead.
    pub wall_hours: f64,
    /// Chip-hours billed, including the failure overhead (called GPU-hours in reports).
    pub chip_hours: f64,
    /// C_run in dollars.
    pub cost_usd: f64,
}

/// C_run = (FLOPs / (Peak × MFU × N)) × (C_compute_hr + C_net_hr) × (1 + R_failure),
/// with the hourly costs for the whole cluster, i.e. N × the per-chip price.
pub fn run_cost(inputs: &RunInputs) -> RunCost {
    let wall_hours = run_wall_hours(inputs.flops, inputs.peak_dense_tflops, inputs.mfu_frac, inputs.chips);
    let failure_factor = 1.0 + inputs.failure_overhead_frac;
    let cluster_usd_per_hour = inputs.price.total_usd_per_chip_hour() * inputs.chips;
    RunCost {
        wall_hours,
        chip_hours: wall_hours * inputs.chips * failure_factor,
        cost_usd: wall_hours * cluster_usd_per_hour * failure_factor,
    }
}

/// MFU = achieved model FLOPs / (time × chips × dense peak).
pub fn mfu_frac(achieved_flops: f64, wall_hours: f64, chips: f64, peak_dense_tflops: f64) -> f64 {
    achieved_flops / (wall_hours * SECONDS_PER_HOUR * chips * peak_dense_tflops * FLOPS_PER_TFLOPS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_h100_run(mfu_frac: f64) -> RunCost {
        // docs/economics.md, "Sensitivity and decision thresholds": 100B parameters × 500B tokens, 989 TFLOPS dense,
        // $100/h per 8 GPUs, no network premium, no failure overhead.
        run_cost(&RunInputs {
            flops: training_flops(100e9, 500e9, false),
            peak_dense_tflops: 989.0,
            mfu_frac,
            chips: 1024.0,
            price: ChipHourPrice {
                compute_usd_per_chip_hour: 100.0 / 8.0,
                network_usd_per_chip_hour: 0.0,
            },
            failure_overhead_frac: 0.0,
        })
    }

    fn within(actual: f64, expected: f64, tolerance_frac: f64) -> bool {
        ((actual - expected) / expected).abs() <= tolerance_frac
    }

    #[test]
    fn flops_follow_six_and_eight_n_d() {
        assert_eq!(training_flops(100e9, 500e9, false), 3.0e23);
        assert_eq!(training_flops(100e9, 500e9, true), 4.0e23);
    }

    #[test]
    fn seed_h100_sensitivity_row_is_reproduced_within_five_percent() {
        for (mfu, seed_usd) in [(0.25, 4.2e6), (0.45, 2.3e6), (0.60, 1.7e6)] {
            let cost = seed_h100_run(mfu).cost_usd;
            assert!(within(cost, seed_usd, 0.05), "MFU {mfu}: {cost} vs seed {seed_usd}");
        }
    }

    #[test]
    fn seed_h100_cost_is_about_1_05m_over_mfu() {
        let at_full = seed_h100_run(1.0).cost_usd;
        assert!(within(at_full, 1.053e6, 0.005), "{at_full}");
    }

    #[test]
    fn cost_does_not_depend_on_chip_count_but_hours_do() {
        let base = seed_h100_run(0.45);
        let doubled = run_cost(&RunInputs {
            chips: 2048.0,
            ..RunInputs {
                flops: 3.0e23,
                peak_dense_tflops: 989.0,
                mfu_frac: 0.45,
                chips: 1024.0,
                price: ChipHourPrice {
                    compute_usd_per_chip_hour: 12.5,
                    network_usd_per_chip_hour: 0.0,
                },
                failure_overhead_frac: 0.0,
            }
        });
        assert!(within(doubled.cost_usd, base.cost_usd, 1e-12));
        assert!(within(doubled.wall_hours, base.wall_hours / 2.0, 1e-12));
    }

    #[test]
    fn network_premium_and_failure_overhead_scale_cost() {
        let inputs = RunInputs {
            flops: 3.0e23,
            peak_dense_tflops: 989.0,
            mfu_frac: 0.45,
            chips: 1024.0,
            price: ChipHourPrice {
                compute_usd_per_chip_hour: 10.0,
                network_usd_per_chip_hour: 2.5,
            },
            failure_overhead_frac: 0.10,
        };
        let with_extras = run_cost(&inputs);
        let bare = seed_h100_run(0.45);
        assert!(within(with_extras.cost_usd, bare.cost_usd * 1.10, 1e-12));
        assert!(within(with_extras.chip_hours, bare.chip_hours * 1.10, 1e-12));
    }

    #[test]
    fn mfu_inverts_run_hours() {
        let hours = run_wall_hours(3.0e23, 989.0, 0.38, 512.0);
        let mfu = mfu_frac(3.0e23, hours, 512.0, 989.0);
        assert!((mfu - 0.38).abs() < 1e-12);
    }
}
