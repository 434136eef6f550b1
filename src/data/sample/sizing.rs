//! Sizing: the clusters' capacities and each class's planned GPU-hours, from the rows requested.

use super::SampleCluster;
use super::SampleSpec;
use super::rng::Rng;
use super::tables::{
    ATTEMPT_WEIGHTS, EVAL_GPU_WEIGHTS, MIN_CAPACITY_GPUS, PEAK_MEAN_HOURS, PEAK_WEEK_FACTOR, PREPROCESS_GPU_WEIGHTS,
    PREPROCESS_GPUS, PROFILES, ProfileParams, REGIONS, REPLICA_LIFE_HOURS, SERVICE_GPU_WEIGHTS, SERVICE_GPUS,
    SWEEP_GPU_WEIGHTS, SWEEP_GPUS, TRAIN_HOURS, TRAIN_SIZE_WEIGHTS, TRAIN_SIZES,
};

pub(super) struct ClusterPlan {
    pub(super) index: u32,
    pub(super) info: SampleCluster,
    pub(super) params: &'static ProfileParams,
    pub(super) utc_offset_hours: i64,
    pub(super) target_rows: u64,
    /// Planned allocated GPU-hours in the window: training, inference, burst.
    pub(super) planned_gpu_hours: [f64; 3],
}

pub(super) fn training_cap(params: &ProfileParams, capacity_gpus: f64) -> u32 {
    let cap = ((capacity_gpus * params.training_max_frac) / 8.0).floor() as u32 * 8;
    cap.clamp(8, 512)
}

fn attempts_mean(gpus: u32) -> f64 {
    let total: u32 = ATTEMPT_WEIGHTS.iter().sum();
    let mean = ATTEMPT_WEIGHTS
        .iter()
        .enumerate()
        .map(|(i, &w)| (i + 1) as f64 * f64::from(w))
        .sum::<f64>()
        / f64::from(total);
    if gpus >= 256 { mean + 1.0 } else { mean }
}

pub(super) fn log_uniform_mean((lo, hi): (f64, f64)) -> f64 {
    (hi - lo) / (hi / lo).ln()
}

/// Mean GPU-hours and rows of one training job when jobs are capped at `cap` GPUs.
pub(super) fn training_job_means(cap: u32) -> (f64, f64) {
    let total: u32 = TRAIN_SIZE_WEIGHTS.iter().sum();
    let (mut gpus, mut rows) = (0.0, 0.0);
    for (&size, &weight) in TRAIN_SIZES.iter().zip(&TRAIN_SIZE_WEIGHTS) {
        let share = f64::from(weight) / f64::from(total);
        let size = size.min(cap);
        gpus += share * f64::from(size);
        rows += share * attempts_mean(size);
    }
    (gpus * log_uniform_mean(TRAIN_HOURS), rows)
}

fn weighted_mean(values: &[f64], weights: &[u32]) -> f64 {
    let total: u32 = weights.iter().sum();
    values.iter().zip(weights).map(|(v, &w)| v * f64::from(w)).sum::<f64>() / f64::from(total)
}

/// Mean GPU-hours per burst row: sweeps ~70 % of rows, evals ~18 %, preprocessing ~12 %.
fn burst_gpu_hours_per_row() -> f64 {
    // Cancelled (early-stopped) and failed jobs run shorter.
    let sweep_hours = 4.0 * (0.88 + 0.08 * 0.45 + 0.04 * 0.275);
    let sweep = weighted_mean(&SWEEP_GPUS, &SWEEP_GPU_WEIGHTS) * sweep_hours;
    let eval = weighted_mean(&SWEEP_GPUS, &EVAL_GPU_WEIGHTS) * 1.75;
    let preprocess = weighted_mean(&PREPROCESS_GPUS, &PREPROCESS_GPU_WEIGHTS) * 3.5;
    0.70 * sweep + 0.18 * eval + 0.12 * preprocess
}

#[derive(Debug, Clone, Copy)]
pub(super) struct ServiceShape {
    pub(super) gpus: f64,
    pub(super) base_lanes: u32,
    pub(super) peak_lanes: u32,
}

impl ServiceShape {
    pub(super) fn draw(rng: &mut Rng) -> Self {
        let gpus = SERVICE_GPUS[rng.weighted(&SERVICE_GPU_WEIGHTS)];
        let base_lanes = rng.int(1, 4);
        let peak_lanes = rng.int(0, 2 * base_lanes);
        ServiceShape {
            gpus,
            base_lanes,
            peak_lanes,
        }
    }

    pub(super) fn mean_concurrent_gpus(&self) -> f64 {
        self.gpus
            * (f64::from(self.base_lanes) + f64::from(self.peak_lanes) * PEAK_MEAN_HOURS / 24.0 * PEAK_WEEK_FACTOR)
    }

    fn rows_per_day(&self) -> f64 {
        f64::from(self.base_lanes) * 24.0 / log_uniform_mean(REPLICA_LIFE_HOURS)
            + f64::from(self.peak_lanes) * PEAK_WEEK_FACTOR
    }

    pub(super) fn shrink(&mut self) -> bool {
        if self.peak_lanes > 0 {
            self.peak_lanes -= 1;
        } else if self.base_lanes > 1 {
            self.base_lanes -= 1;
        } else if let Some(i) = SERVICE_GPUS.iter().rposition(|&g| g < self.gpus) {
            self.gpus = SERVICE_GPUS[i];
        } else {
            return false;
        }
        true
    }
}

/// Mean GPU-hours per inference row, estimated over many service shapes (fixed seed).
fn inference_gpu_hours_per_row() -> f64 {
    let mut rng = Rng::new(0x5EED_1F0E);
    let (mut gpu_hours, mut rows) = (0.0, 0.0);
    for _ in 0..4096 {
        let shape = ServiceShape::draw(&mut rng);
        gpu_hours += shape.mean_concurrent_gpus() * 24.0;
        rows += shape.rows_per_day();
    }
    gpu_hours / rows
}

/// Rows per capacity GPU-hour, per class, for a cluster of `capacity_gpus`.
fn rows_per_gpu_hour(params: &ProfileParams, capacity_gpus: f64, per_row: [f64; 2]) -> [f64; 3] {
    let (train_gpu_hours, train_rows) = training_job_means(training_cap(params, capacity_gpus));
    let gpu_hours_per_row = [train_gpu_hours / train_rows, per_row[0], per_row[1]];
    std::array::from_fn(|k| params.target_alloc_frac * params.gpu_hour_shares[k] / gpu_hours_per_row[k])
}

fn cluster_name(index: u32, clusters: u32, params: &ProfileParams) -> String {
    let (region, _) = REGIONS[index as usize % REGIONS.len()];
    if clusters as usize <= REGIONS.len() {
        format!("{region}-{}", params.short_type)
    } else {
        format!("{region}-{}-{}", params.short_type, index + 1)
    }
}

pub(super) fn plan_clusters(spec: &SampleSpec) -> Vec<ClusterPlan> {
    if spec.clusters == 0 || spec.days == 0 {
        return Vec::new();
    }
    let hours = f64::from(spec.days) * 24.0;
    let per_row = [inference_gpu_hours_per_row(), burst_gpu_hours_per_row()];
    let params_of = |c: u32| &PROFILES[c as usize % PROFILES.len()];
    // Rows split so that capacities follow the profiles' relative sizes.
    let weights: Vec<f64> = (0..spec.clusters)
        .map(|c| {
            let params = params_of(c);
            let reference = 256.0 * params.relative_capacity;
            params.relative_capacity * rows_per_gpu_hour(params, reference, per_row).iter().sum::<f64>()
        })
        .collect();
    let weight_total: f64 = weights.iter().sum();
    let mut target_rows: Vec<u64> = weights
        .iter()
        .map(|w| (spec.jobs as f64 * w / weight_total).floor() as u64)
        .collect();
    let assigned: u64 = target_rows.iter().sum();
    let clusters = target_rows.len();
    for i in 0..(spec.jobs as u64).saturating_sub(assigned) {
        target_rows[i as usize % clusters] += 1;
    }

    (0..spec.clusters)
        .zip(target_rows)
        .map(|(c, rows)| {
            let params = params_of(c);
            // Fixed point: training jobs are capped by capacity, which depends on them.
            let mut capacity = 256.0 * params.relative_capacity;
            for _ in 0..8 {
                let rho: f64 = rows_per_gpu_hour(params, capacity.max(8.0), per_row).iter().sum();
                capacity = rows as f64 / (hours * rho);
            }
            let capacity_gpus = ((capacity / 8.0).ceil() as u32 * 8).max(MIN_CAPACITY_GPUS);
            let rho = rows_per_gpu_hour(params, f64::from(capacity_gpus), per_row);
            let rho_total: f64 = rho.iter().sum();
            let (train_gpu_hours, train_rows) = training_job_means(training_cap(params, f64::from(capacity_gpus)));
            let gpu_hours_per_row = [train_gpu_hours / train_rows, per_row[0], per_row[1]];
            let planned_gpu_hours = std::array::from_fn(|k| rows as f64 * rho[k] / rho_total * gpu_hours_per_row[k]);
            ClusterPlan {
                index: c,
                info: SampleCluster {
                    name: cluster_name(c, spec.clusters, params),
                    gpu_type: params.gpu_type,
                    capacity_gpus,
                    profile: params.profile,
                },
                params,
                utc_offset_hours: REGIONS[c as usize % REGIONS.len()].1,
                target_rows: rows,
                planned_gpu_hours,
            }
        })
        .collect()
}
