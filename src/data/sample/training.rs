//! Training: multi-day, multi-node jobs split into attempts ended by preemptions, node failures or
//! crashes, each restarted after a gap.

use std::collections::VecDeque;

use super::cluster::{ClusterSim, Job, round_tenth, to_ms};
use super::tables::{
    ATTEMPT_WEIGHTS, LABEL_RATE, LARGE_MODELS, MEDIUM_MODELS, MODEL_VARIANTS, OPAQUE_NAME_RATE, RESEARCHERS,
    SMALL_MODELS, TRAIN_HOURS, TRAIN_SIZE_WEIGHTS, TRAIN_SIZES,
};
use super::{SampleClass, SampleRow};
use crate::data::canonical::MS_PER_DAY;

impl ClusterSim {
    pub(super) fn training_job(&mut self, submit_ms: i64, out: &mut VecDeque<SampleRow>) {
        let gpus = TRAIN_SIZES[self.rng.weighted(&TRAIN_SIZE_WEIGHTS)].min(self.training_cap);
        let (name, queue) = if self.rng.chance(OPAQUE_NAME_RATE) {
            (format!("run-{}", self.rng.hex6()), "batch")
        } else {
            let (kinds, models): (&[&str], &[&str]) = match gpus {
                0..=32 => (&["sft", "dpo", "ft", "rlhf", "pretrain"], &SMALL_MODELS),
                33..=64 => (&["pretrain", "sft", "continued-pretrain"], &MEDIUM_MODELS),
                _ => (&["pretrain"], &LARGE_MODELS),
            };
            let name = format!(
                "{}-{}{}",
                self.rng.pick(kinds),
                self.rng.pick(models),
                self.rng.pick(&MODEL_VARIANTS)
            );
            (name, if self.rng.chance(0.7) { "train" } else { "batch" })
        };
        let user = self.rng.pick(&RESEARCHERS);
        let total_hours = self.rng.log_uniform(TRAIN_HOURS.0, TRAIN_HOURS.1);
        let attempts = self.rng.weighted(&ATTEMPT_WEIGHTS) + 1 + usize::from(gpus >= 256);
        let shares: Vec<f64> = (0..attempts).map(|_| self.rng.between(0.3, 1.3)).collect();
        let share_total: f64 = shares.iter().sum();
        let labeled = self.rng.chance(LABEL_RATE);
        let job_util = self.rng.between(70.0, 95.0);
        let final_state = [("COMPLETED", 80), ("FAILED", 10), ("CANCELLED", 6), ("TIMEOUT", 4)];
        let interrupted = [("PREEMPTED", 70), ("NODE_FAIL", 15), ("FAILED", 15)];
        let job_id = self.next_job_id();
        let mut desired = submit_ms;
        for (i, share) in shares.iter().enumerate() {
            let duration = to_ms(total_hours * share / share_total);
            let max_wait = if i == 0 { 3 * MS_PER_DAY } else { 2 * MS_PER_DAY };
            let Some(start) = self.place(desired, duration, f64::from(gpus), max_wait, self.training_limit_milli)
            else {
                break;
            };
            let job = Job {
                name: name.clone(),
                user,
                queue,
                class: SampleClass::Training,
                gpus: f64::from(gpus),
            };
            let mut row = self.row(job_id, job, start, start + duration);
            row.state = if row.end_ms.is_none() {
                "RUNNING"
            } else if i + 1 == attempts {
                final_state[self.rng.weighted(&[80, 10, 6, 4])].0
            } else {
                interrupted[self.rng.weighted(&[70, 15, 15])].0
            };
            row.gpu_util_pct = round_tenth((job_util + self.rng.between(-3.0, 3.0)).clamp(0.0, 100.0));
            let running = row.end_ms.is_none();
            self.push(row, labeled, out);
            if running {
                break;
            }
            desired = start + duration + to_ms(self.rng.log_uniform(1.0 / 6.0, 8.0));
        }
    }
}
