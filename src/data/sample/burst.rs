//! Bursts: sweeps of near-identical jobs, nightly evals, preprocessing spikes, and a few one-off
//! jobs whose names say nothing.

use std::collections::VecDeque;

use super::SampleRow;
use super::cluster::{ClusterSim, Job, round_tenth, to_ms};
use super::tables::{
    DATASETS, EVAL_GPU_WEIGHTS, EVAL_SUITES, LABEL_RATE, OPAQUE_NAME_RATE, PREPROCESS_GPU_WEIGHTS, PREPROCESS_GPUS,
    RESEARCHERS, SMALL_MODELS, SWEEP_GPU_WEIGHTS, SWEEP_GPUS,
};
use crate::data::canonical::{MS_PER_MINUTE, MS_PER_SECOND};

impl ClusterSim {
    pub(super) fn burst_day(&mut self, day: i64, day_start: i64, quota: u64, out: &mut VecDeque<SampleRow>) {
        if quota == 0 {
            return;
        }
        let idle = self.idle[day as usize];
        let mut evals = 0;
        let mut preprocess = 0;
        if !idle && self.is_eval_day(day_start) {
            evals = (quota as f64 * self.rng.between(0.45, 0.7)).round() as u64;
        }
        if !idle && self.preprocess_spike[day as usize] {
            preprocess = ((quota - evals) as f64 * self.rng.between(0.3, 0.6)).round() as u64;
        }
        let scale = self.params.batch_scale;
        let mut written = 0;
        // A batch cut short means the queue is full for the next day and a half: stop
        // submitting and leave the shortfall to the following days.
        let mut cut_short = 0;
        while written < evals && cut_short < 2 {
            let size = (f64::from(self.rng.int(6, 24)) * scale).round().max(1.0) as u64;
            let size = size.min(evals - written);
            let batch = self.eval_batch(day_start, size, out);
            written += batch;
            cut_short += u32::from(batch < size);
        }
        while written < evals + preprocess && cut_short < 2 {
            let size = (f64::from(self.rng.int(12, 60)) * scale).round().max(1.0) as u64;
            let size = size.min(evals + preprocess - written);
            let batch = self.preprocess_batch(day_start, size, out);
            written += batch;
            cut_short += u32::from(batch < size);
        }
        while written < quota && cut_short < 2 {
            let (size, batch) = if self.rng.chance(OPAQUE_NAME_RATE) {
                (1, self.opaque_job(day_start, out))
            } else {
                let size = (f64::from(self.rng.int(8, 40)) * scale).round().max(1.0) as u64;
                let size = size.min(quota - written);
                (size, self.sweep(day_start, size, out))
            };
            written += batch;
            cut_short += u32::from(batch < size);
        }
    }

    /// Places one burst job and writes it; 1 if written, 0 if the queue stayed full.
    fn burst_job(&mut self, job: Job, submit_ms: i64, hours: f64, util_pct: f64, out: &mut VecDeque<SampleRow>) -> u64 {
        // Early-stopped and crashed jobs run shorter.
        let (state, hours) = match self.rng.weighted(&[88, 6, 4, 2]) {
            0 => ("COMPLETED", hours),
            1 => ("CANCELLED", hours * self.rng.between(0.2, 0.7)),
            2 => ("FAILED", hours * self.rng.between(0.05, 0.5)),
            _ => ("TIMEOUT", hours),
        };
        let duration = to_ms(hours);
        let Some(start) = self.place(
            submit_ms,
            duration,
            job.gpus,
            36 * 60 * MS_PER_MINUTE,
            self.capacity_milli,
        ) else {
            return 0;
        };
        let job_id = self.next_job_id();
        let mut row = self.row(job_id, job, start, start + duration);
        row.state = if row.end_ms.is_none() { "RUNNING" } else { state };
        row.gpu_util_pct = round_tenth(util_pct.clamp(0.0, 100.0));
        let labeled = self.rng.chance(LABEL_RATE);
        let before = self.rows_written;
        self.push(row, labeled, out);
        self.rows_written - before
    }

    /// Burst jobs stay small beside the cluster (at most 1/16 of it).
    fn burst_gpus(&mut self, values: &[f64], weights: &[u32]) -> f64 {
        let cap = (self.capacity_milli / 16_000).max(1) as f64;
        values[self.rng.weighted(weights)].min(cap)
    }

    /// Near-identical ~4 h jobs submitted together (`sweep-lr-<run>-<k>` or `hpo-...`).
    pub(super) fn sweep(&mut self, day_start: i64, size: u64, out: &mut VecDeque<SampleRow>) -> u64 {
        self.sweep_runs += 1;
        let run = self.sweep_runs;
        let stem = if self.rng.chance(0.7) {
            format!("sweep-lr-{run}")
        } else {
            format!("hpo-{}-{run}", self.rng.pick(&SMALL_MODELS))
        };
        let queue = if stem.starts_with("sweep") || self.rng.chance(0.5) {
            "sweep"
        } else {
            "dev"
        };
        let user = self.rng.pick(&RESEARCHERS);
        let gpus = self.burst_gpus(&SWEEP_GPUS, &SWEEP_GPU_WEIGHTS);
        let hours = self.rng.between(3.5, 4.5);
        let util = self.rng.between(60.0, 90.0);
        let hour = if self.rng.chance(0.85) {
            self.rng.between(9.0, 21.0)
        } else {
            self.rng.between(0.0, 24.0)
        };
        let submit = self.at_local_hour(day_start, hour);
        let mut written = 0;
        for k in 0..size {
            let at = submit + i64::from(self.rng.int(0, 120)) * MS_PER_SECOND;
            let job_hours = hours * self.rng.between(0.9, 1.1);
            let job_util = util + self.rng.between(-4.0, 4.0);
            let job = Job::burst(format!("{stem}-{k}"), user, queue, gpus);
            match self.burst_job(job, at, job_hours, job_util, out) {
                0 => break,
                n => written += n,
            }
        }
        written
    }

    /// Nightly evaluation of a checkpoint across suites (`eval-<suite>-step<n>-<k>`).
    fn eval_batch(&mut self, day_start: i64, size: u64, out: &mut VecDeque<SampleRow>) -> u64 {
        self.eval_step += 500;
        let step = self.eval_step;
        let user = if self.rng.chance(0.6) {
            "eval-bot"
        } else {
            self.rng.pick(&RESEARCHERS)
        };
        let hour = self.rng.between(0.5, 3.0);
        let submit = self.at_local_hour(day_start, hour);
        let mut written = 0;
        for k in 0..size {
            let suite = EVAL_SUITES[k as usize % EVAL_SUITES.len()];
            let gpus = self.burst_gpus(&SWEEP_GPUS, &EVAL_GPU_WEIGHTS);
            let hours = self.rng.between(0.5, 3.0);
            let util = self.rng.between(30.0, 70.0);
            let at = submit + i64::from(self.rng.int(0, 300)) * MS_PER_SECOND;
            let job = Job::burst(format!("eval-{suite}-step{step}-{k}"), user, "eval", gpus);
            match self.burst_job(job, at, hours, util, out) {
                0 => break,
                n => written += n,
            }
        }
        written
    }

    /// A data-preparation spike: shards of one dataset (`preprocess-<dataset>-<shard>`).
    fn preprocess_batch(&mut self, day_start: i64, size: u64, out: &mut VecDeque<SampleRow>) -> u64 {
        let dataset = self.rng.pick(&DATASETS);
        let user = if self.rng.chance(0.5) {
            "data-eng"
        } else {
            self.rng.pick(&RESEARCHERS)
        };
        let submit = day_start + i64::from(self.rng.int(0, 86_399)) * MS_PER_SECOND;
        let mut written = 0;
        for k in 0..size {
            let gpus = self.burst_gpus(&PREPROCESS_GPUS, &PREPROCESS_GPU_WEIGHTS);
            let hours = self.rng.between(1.0, 6.0);
            let util = self.rng.between(15.0, 50.0);
            let at = submit + i64::from(self.rng.int(0, 600)) * MS_PER_SECOND;
            let job = Job::burst(format!("preprocess-{dataset}-{k:04}"), user, "dev", gpus);
            match self.burst_job(job, at, hours, util, out) {
                0 => break,
                n => written += n,
            }
        }
        written
    }

    /// A one-off job with a name that says nothing (`job-<hex>`), for the rules' other signals.
    fn opaque_job(&mut self, day_start: i64, out: &mut VecDeque<SampleRow>) -> u64 {
        let name = format!("job-{}", self.rng.hex6());
        let user = self.rng.pick(&RESEARCHERS);
        let submit = day_start + i64::from(self.rng.int(0, 86_399)) * MS_PER_SECOND;
        let gpus = self.burst_gpus(&[1.0, 2.0], &[2, 1]);
        let hours = self.rng.between(0.5, 6.0);
        let util = self.rng.between(10.0, 80.0);
        self.burst_job(Job::burst(name, user, "dev", gpus), submit, hours, util, out)
    }
}
