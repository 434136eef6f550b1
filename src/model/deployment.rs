//! Bare metal versus VM (docs/economics.md, "Bare metal or VM") and the network-wait rule ("Failure rules").

use serde::{Deserialize, Serialize};

/// How the accelerators are delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Deployment {
    Vm,
    BareMetal,
}

impl Deployment {
    /// Both deliveries, in the order a workbench choice steps through.
    pub const ALL: [Deployment; 2] = [Deployment::Vm, Deployment::BareMetal];

    /// Share of the hardware's capability a workload gets: VMs deliver 65–85 %, bare
    /// metal 90–97 % (seeds 003, 004); we take the middle of each range.
    pub const fn delivered_capability_frac(self) -> f64 {
        match self {
            Deployment::Vm => 0.75,
            Deployment::BareMetal => 0.935,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Deployment::Vm => "VM",
            Deployment::BareMetal => "bare metal",
        }
    }
}

/// The price of one delivered unit of capability: the list price over the share delivered.
pub fn effective_usd_per_chip_hour(list_usd_per_chip_hour: f64, deployment: Deployment) -> f64 {
    list_usd_per_chip_hour / deployment.delivered_capability_frac()
}

/// The 70 % rule: sustained utilization above the threshold makes bare metal win on TCO.
pub fn bare_metal_wins_on_tco(sustained_utilization_frac: f64, threshold_frac: f64) -> bool {
    sustained_utilization_frac > threshold_frac
}

/// Bare metal is recommended for training jobs above a GPU-hour size (seed 004: 4 GPU-h).
pub fn bare_metal_recommended_for_training(job_gpu_hours: f64, threshold_gpu_hours: f64) -> bool {
    job_gpu_hours > threshold_gpu_hours
}

/// Bare metal is recommended for inference above a request rate (seed 004: 10 req/s).
pub fn bare_metal_recommended_for_inference(requests_per_s: f64, threshold_requests_per_s: f64) -> bool {
    requests_per_s > threshold_requests_per_s
}

/// The Infiniband tax: network wait above the threshold share of compute time halts the run.
pub fn network_wait_halts_run(network_wait_frac: f64, threshold_frac: f64) -> bool {
    network_wait_frac > threshold_frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivered_capability_sits_inside_the_seed_ranges() {
        assert!((0.65..=0.85).contains(&Deployment::Vm.delivered_capability_frac()));
        assert!((0.90..=0.97).contains(&Deployment::BareMetal.delivered_capability_frac()));
    }

    #[test]
    fn vm_capacity_costs_more_per_delivered_unit() {
        let vm = effective_usd_per_chip_hour(10.0, Deployment::Vm);
        let metal = effective_usd_per_chip_hour(10.0, Deployment::BareMetal);
        assert!(vm > metal);
        assert!((vm - 13.333).abs() < 1e-3);
    }

    #[test]
    fn rules_on_both_sides_of_their_thresholds() {
        assert!(bare_metal_wins_on_tco(0.71, 0.70));
        assert!(!bare_metal_wins_on_tco(0.70, 0.70));
        assert!(bare_metal_recommended_for_training(4.5, 4.0));
        assert!(!bare_metal_recommended_for_training(4.0, 4.0));
        assert!(bare_metal_recommended_for_inference(11.0, 10.0));
        assert!(!bare_metal_recommended_for_inference(9.0, 10.0));
        assert!(network_wait_halts_run(0.21, 0.20));
        assert!(!network_wait_halts_run(0.20, 0.20));
    }
}
