//! Each GPU type's runs on one cluster, summed in the audit's one pass (`run_totals`): their
//! GPU-hours, the largest, and their busy GPUs step by step, so each model of a mixed cluster
//! is sized to its own peak (`model::cluster_models`).

use super::RESIDUE_GPUS;

/// GPU types one cluster's step arrays are kept for; past it the rest share `OTHER_TYPES`.
pub const MAX_TYPES_PER_CLUSTER: usize = 8;
/// The name the types past `MAX_TYPES_PER_CLUSTER` on one cluster share.
pub const OTHER_TYPES: &str = "(GPU types past the first 8 of one cluster)";

/// One GPU type's runs on a cluster: their GPU-hours, the largest, and their busy GPUs step by
/// step (a difference array, as `Occupancy`'s), so each model's own peak is known.
pub struct TypeTotals {
    /// The type's number in `vocabulary::GPU_TYPES`.
    pub code: u32,
    pub gpu_hours: f64,
    pub largest_run_gpus: f64,
    busy_changes: Vec<f64>,
}

impl TypeTotals {
    pub(super) fn new(code: u32, steps: usize) -> TypeTotals {
        TypeTotals {
            code,
            gpu_hours: 0.0,
            largest_run_gpus: 0.0,
            busy_changes: vec![0.0; steps + 1],
        }
    }

    /// Adds `gpus` over the steps `first..end` (a step past the window is refused: false).
    pub fn add_busy(&mut self, first: usize, end: usize, gpus: f64) -> bool {
        if first > end || end >= self.busy_changes.len() {
            return false;
        }
        self.busy_changes[first] += gpus;
        self.busy_changes[end] -= gpus;
        true
    }

    /// Adds a change summed elsewhere (a warehouse's) at `step`; one past the window is refused.
    pub fn add_busy_change(&mut self, step: usize, change: f64) -> bool {
        let Some(slot) = self.busy_changes.get_mut(step) else {
            return false;
        };
        *slot += change;
        true
    }

    /// The type's busy GPUs in each step, rounded as `Occupancy::integrate` rounds.
    pub fn busy_steps(&self) -> Vec<f64> {
        let steps = self.busy_changes.len() - 1;
        let mut level = 0.0;
        self.busy_changes[..steps]
            .iter()
            .map(|change| {
                level += change;
                if level < RESIDUE_GPUS {
                    level = 0.0;
                }
                (level * 1e9).round() / 1e9
            })
            .collect()
    }

    pub(super) fn merge(&mut self, other: &TypeTotals) {
        self.gpu_hours += other.gpu_hours;
        self.largest_run_gpus = self.largest_run_gpus.max(other.largest_run_gpus);
        for (mine, theirs) in self.busy_changes.iter_mut().zip(&other.busy_changes) {
            *mine += theirs;
        }
    }
}
