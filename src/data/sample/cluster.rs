//! The simulation of one cluster: its calendar (training campaigns, idle windows, eval and
//! preprocessing days), its services, its row targets per day, and the placing of every row on
//! its occupancy grid. Each class's jobs are made in `training`, `inference` and `burst`.

use std::collections::VecDeque;
use std::sync::Arc;

use super::inference::Service;
use super::occupancy::Occupancy;
use super::rng::Rng;
use super::sizing::{ClusterPlan, ServiceShape, log_uniform_mean, training_cap, training_job_means};
use super::tables::{
    BUCKET_MS, DEFECT_RATE, MILLI_GPUS, ProfileParams, REPLICA_LIFE_HOURS, SERVICE_APPS, SERVICE_USERS, WARMUP_DAYS,
};
use super::{ClusterProfile, Defect, SampleClass, SampleRow, SampleSpec};
use crate::data::canonical::{MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND};
use crate::shared::random::SplitMix64;

/// What a row is about, before it is placed in time.
pub(super) struct Job {
    pub(super) name: String,
    pub(super) user: &'static str,
    pub(super) queue: &'static str,
    pub(super) class: SampleClass,
    pub(super) gpus: f64,
}

impl Job {
    pub(super) fn burst(name: String, user: &'static str, queue: &'static str, gpus: f64) -> Self {
        Job {
            name,
            user,
            queue,
            class: SampleClass::Burst,
            gpus,
        }
    }
}

/// One cluster, simulated a day at a time.
pub(super) struct ClusterSim {
    name: Arc<str>,
    pub(super) params: &'static ProfileParams,
    gpu_type: &'static str,
    pub(super) capacity_milli: i64,
    /// `ProfileParams::training_limit_frac` of the capacity.
    pub(super) training_limit_milli: i64,
    pub(super) training_cap: u32,
    utc_offset_hours: i64,
    pub(super) rng: Rng,
    grid: Occupancy,
    origin_ms: i64,
    window_start_ms: i64,
    end_ms: i64,
    job_id_base: u64,
    next_job: u64,
    pub(super) services: Vec<Service>,
    /// Per day from `-WARMUP_DAYS`: may training jobs arrive.
    training_on: Vec<bool>,
    /// Per window day.
    pub(super) idle: Vec<bool>,
    pub(super) preprocess_spike: Vec<bool>,
    eval_weekdays: [i64; 2],
    training_jobs_per_day: f64,
    /// Per window day: rows the cluster should have written by that day's end.
    target_cumulative_rows: Vec<f64>,
    pub(super) rows_written: u64,
    pub(super) sweep_runs: u32,
    pub(super) eval_step: u32,
}

/// Monday = 0.
pub(super) fn weekday(ms: i64) -> i64 {
    (ms.div_euclid(MS_PER_DAY) + 3).rem_euclid(7)
}

pub(super) fn to_ms(hours: f64) -> i64 {
    ((hours * 3600.0).round() as i64).max(60) * MS_PER_SECOND
}

pub(super) fn round_tenth(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

impl ClusterSim {
    pub(super) fn new(plan: &ClusterPlan, spec: &SampleSpec, end_ms: i64, job_id_base: u64) -> Self {
        let cluster_seed = spec.seed ^ u64::from(plan.index).wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut rng = Rng::new(SplitMix64::new(cluster_seed).next_u64());
        let days = i64::from(spec.days);
        let window_start_ms = end_ms - days * MS_PER_DAY;
        let origin_ms = window_start_ms - WARMUP_DAYS * MS_PER_DAY;
        let params = plan.params;
        let capacity_gpus = plan.info.capacity_gpus;
        let hours = days as f64 * 24.0;

        // Idle windows: little work; training stops arriving ten days before so few runs span them.
        let mut idle = vec![false; days as usize];
        let mut training_on = vec![true; (days + WARMUP_DAYS) as usize];
        if let Some(((on_lo, on_hi), (off_lo, off_hi))) = params.campaign_days {
            let mut day = 0usize;
            let mut on = rng.chance(0.6);
            while day < training_on.len() {
                let span = if on {
                    rng.int(on_lo, on_hi)
                } else {
                    rng.int(off_lo, off_hi)
                } as usize;
                for flag in training_on.iter_mut().skip(day).take(span) {
                    *flag = on;
                }
                day += span;
                on = !on;
            }
        }
        let windows = (params.idle_windows_per_90_days * days as f64 / 90.0).round() as u32;
        let windows = if days >= 10 { windows.max(1) } else { 0 };
        for _ in 0..windows {
            let length = rng.int(
                2,
                if params.profile == ClusterProfile::Underused {
                    6
                } else {
                    4
                },
            ) as i64;
            let start = i64::from(rng.int(3, (days - length - 1).max(3) as u32));
            for d in start..(start + length).min(days) {
                idle[d as usize] = true;
            }
            for d in (start - 10).max(-WARMUP_DAYS)..(start + length).min(days) {
                training_on[(d + WARMUP_DAYS) as usize] = false;
            }
        }
        if !training_on[WARMUP_DAYS as usize..].iter().any(|&on| on) {
            training_on.iter_mut().for_each(|on| *on = true);
        }
        let preprocess_spike = (0..days).map(|_| rng.chance(0.1)).collect();
        let eval_weekdays = rng.pick(&[[1, 4], [0, 3], [2, 4]]);

        // Services sized to the planned inference GPUs.
        let target_inference_gpus = plan.planned_gpu_hours[1] / hours;
        let mut services = Vec::new();
        let mut inference_gpus = 0.0;
        while (inference_gpus < target_inference_gpus || services.is_empty()) && services.len() < 20_000 {
            let mut shape = ServiceShape::draw(&mut rng);
            let remaining = (target_inference_gpus - inference_gpus).max(0.0);
            while shape.mean_concurrent_gpus() > remaining * 1.25 && shape.shrink() {}
            inference_gpus += shape.mean_concurrent_gpus();
            let i = services.len();
            let app = SERVICE_APPS[i % SERVICE_APPS.len()];
            let version = i / SERVICE_APPS.len();
            let stem = if version == 0 {
                format!("serve-{app}")
            } else {
                format!("serve-{app}-v{}", version + 1)
            };
            let next_replica_ms = (0..shape.base_lanes)
                .map(|_| origin_ms + to_ms(rng.between(0.0, 6.0)))
                .collect();
            services.push(Service {
                stem,
                shape,
                queue: if rng.chance(0.5) { "prod" } else { "serve" },
                user: rng.pick(&SERVICE_USERS),
                base_util_pct: rng.between(30.0, 45.0),
                next_replica_ms,
                next_instance: 1,
            });
        }

        // Training arrivals to match the planned training GPU-hours in the window.
        let training_cap = training_cap(params, f64::from(capacity_gpus));
        let (job_gpu_hours, job_rows) = training_job_means(training_cap);
        let on_days = training_on[WARMUP_DAYS as usize..]
            .iter()
            .filter(|&&on| on)
            .count()
            .max(1);
        let training_jobs_per_day = plan.planned_gpu_hours[0] / job_gpu_hours / on_days as f64;

        let mut sim = ClusterSim {
            name: Arc::from(plan.info.name.as_str()),
            params,
            gpu_type: params.gpu_type,
            capacity_milli: i64::from(capacity_gpus) * 1000,
            training_limit_milli: (f64::from(capacity_gpus) * params.training_limit_frac * MILLI_GPUS) as i64,
            training_cap,
            utc_offset_hours: plan.utc_offset_hours,
            rng,
            grid: Occupancy::new(((days + WARMUP_DAYS) * MS_PER_DAY / BUCKET_MS) as usize),
            origin_ms,
            window_start_ms,
            end_ms,
            job_id_base,
            next_job: 0,
            services,
            training_on,
            idle,
            preprocess_spike,
            eval_weekdays,
            training_jobs_per_day,
            target_cumulative_rows: Vec::new(),
            rows_written: 0,
            sweep_runs: 0,
            eval_step: 1000,
        };

        // Row targets: training and inference at their expected pace, bursts on an activity
        // curve (weekends, idle days, eval and preprocessing days) making up the rest.
        let mut expected_steady = Vec::with_capacity(days as usize);
        let mut activity = Vec::with_capacity(days as usize);
        for d in 0..days {
            let day_start = window_start_ms + d * MS_PER_DAY;
            let inference: f64 = sim
                .services
                .iter()
                .map(|s| {
                    f64::from(s.shape.base_lanes) * 24.0 / log_uniform_mean(REPLICA_LIFE_HOURS)
                        + f64::from(sim.peak_lanes_on(s.shape.peak_lanes, d, day_start))
                })
                .sum();
            let training = if sim.training_on[(d + WARMUP_DAYS) as usize] {
                training_jobs_per_day * job_rows
            } else {
                0.0
            };
            expected_steady.push(inference + training);
            let mut weight = if weekday(day_start) >= 5 { 0.35 } else { 1.0 };
            if sim.is_eval_day(day_start) {
                weight *= 1.6;
            }
            if sim.preprocess_spike[d as usize] {
                weight *= 1.8;
            }
            if sim.idle[d as usize] {
                weight = 0.03;
            }
            activity.push(weight);
        }
        let steady_total: f64 = expected_steady.iter().sum();
        let burst_rows = (plan.target_rows as f64 - steady_total).max(0.0);
        let activity_total: f64 = activity.iter().sum::<f64>().max(f64::MIN_POSITIVE);
        let (mut steady, mut active) = (0.0, 0.0);
        for (expected, weight) in expected_steady.iter().zip(&activity) {
            steady += expected;
            active += weight;
            sim.target_cumulative_rows
                .push(steady + burst_rows * active / activity_total);
        }
        if let Some(last) = sim.target_cumulative_rows.last_mut() {
            *last = plan.target_rows as f64;
        }
        sim
    }

    pub(super) fn is_eval_day(&self, day_start: i64) -> bool {
        self.eval_weekdays.contains(&weekday(day_start))
    }

    pub(super) fn peak_lanes_on(&self, lanes: u32, day: i64, day_start: i64) -> u32 {
        if day >= 0 && self.idle[day as usize] {
            lanes / 3
        } else if weekday(day_start) >= 5 {
            lanes.div_ceil(2)
        } else {
            lanes
        }
    }

    pub(super) fn next_job_id(&mut self) -> u64 {
        self.next_job += 1;
        self.job_id_base + self.next_job
    }

    /// The instant in `[day_start, day_start + 1 day)` at the given local hour of day.
    pub(super) fn at_local_hour(&self, day_start: i64, hour: f64) -> i64 {
        let midnight = day_start.div_euclid(MS_PER_DAY) * MS_PER_DAY;
        let t = midnight + to_ms(hour) - self.utc_offset_hours * 60 * MS_PER_MINUTE;
        day_start + (t - day_start).rem_euclid(MS_PER_DAY)
    }

    pub(super) fn local_hour(&self, ms: i64) -> f64 {
        (ms + self.utc_offset_hours * 60 * MS_PER_MINUTE).rem_euclid(MS_PER_DAY) as f64 / MS_PER_HOUR
    }

    fn bucket_floor(&self, ms: i64) -> usize {
        ((ms - self.origin_ms).max(0) / BUCKET_MS) as usize
    }

    fn bucket_ceil(&self, ms: i64) -> usize {
        (((ms - self.origin_ms).max(0) + BUCKET_MS - 1) / BUCKET_MS) as usize
    }

    /// Reserves `gpus` for `duration_ms` at the first start from `desired_ms` on (within
    /// `max_wait_ms`) where the cluster's whole load stays under `limit_milli` (at most the
    /// capacity) for the whole run; `None` if it never does before the wait or the log runs out.
    pub(super) fn place(
        &mut self,
        desired_ms: i64,
        duration_ms: i64,
        gpus: f64,
        max_wait_ms: i64,
        limit_milli: i64,
    ) -> Option<i64> {
        let milli = (gpus * MILLI_GPUS).round() as i64;
        let limit_milli = limit_milli.min(self.capacity_milli);
        if milli > limit_milli {
            return None;
        }
        let threshold = limit_milli - milli;
        let mut start = desired_ms.max(self.origin_ms);
        loop {
            if start >= self.end_ms || start > desired_ms + max_wait_ms {
                return None;
            }
            let lo = self.bucket_floor(start);
            let hi = self.bucket_ceil(start + duration_ms).min(self.grid.buckets).max(lo + 1);
            match self.grid.rightmost_above(lo, hi, threshold) {
                None => {
                    self.grid.add(lo, hi, milli);
                    return Some(start);
                }
                Some(full) => {
                    // Queue behind the last full bucket, a few seconds into the next one.
                    let jitter = i64::from(self.rng.int(0, 59)) * MS_PER_SECOND;
                    start = self.origin_ms + (full as i64 + 1) * BUCKET_MS + jitter;
                }
            }
        }
    }

    /// Writes the row if it reaches into the window; breaks a few rows on purpose.
    pub(super) fn push(&mut self, mut row: SampleRow, labeled: bool, out: &mut VecDeque<SampleRow>) {
        if row.end_ms.is_some_and(|end| end <= self.window_start_ms) {
            return;
        }
        if labeled {
            row.label = Some(row.class);
        }
        if self.rng.chance(DEFECT_RATE) {
            let defect = [
                Defect::UnparseableTime,
                Defect::NegativeGpus,
                Defect::EndBeforeStart,
                Defect::NanUtilization,
            ][self.rng.below(4)];
            match defect {
                Defect::UnparseableTime => {}
                Defect::NegativeGpus => row.gpus = -row.gpus,
                Defect::EndBeforeStart => row.end_ms = Some(row.start_ms - to_ms(self.rng.between(0.1, 6.0))),
                Defect::NanUtilization => row.gpu_util_pct = f64::NAN,
            }
            row.defect = Some(defect);
        }
        self.rows_written += 1;
        out.push_back(row);
    }

    /// A row of `job` run over `start_ms..end_ms` (censored past the log's end); the caller
    /// sets state and utilization.
    pub(super) fn row(&self, job_id: u64, job: Job, start_ms: i64, end_ms: i64) -> SampleRow {
        SampleRow {
            job_id,
            cluster: Arc::clone(&self.name),
            name: job.name,
            user: job.user,
            queue: job.queue,
            state: "COMPLETED",
            start_ms,
            end_ms: (end_ms <= self.end_ms).then_some(end_ms),
            gpus: job.gpus,
            gpu_type: self.gpu_type,
            gpu_util_pct: 0.0,
            label: None,
            class: job.class,
            defect: None,
        }
    }

    pub(super) fn simulate_day(&mut self, day: i64, out: &mut VecDeque<SampleRow>) {
        let day_start = self.window_start_ms + day * MS_PER_DAY;
        self.run_services(day, day_start, out);
        if self.training_on[(day + WARMUP_DAYS) as usize] {
            let arrivals = self.rng.poisson(self.training_jobs_per_day);
            for _ in 0..arrivals {
                let submit = day_start + i64::from(self.rng.int(0, 86_399)) * MS_PER_SECOND;
                self.training_job(submit, out);
            }
        }
        if day >= 0 {
            let target = self.target_cumulative_rows[day as usize].round() as i64;
            let quota = (target - self.rows_written as i64).max(0) as u64;
            self.burst_day(day, day_start, quota, out);
            if day as usize + 1 == self.target_cumulative_rows.len() {
                self.backfill(target.max(0) as u64, out);
            }
        }
    }

    /// Jobs dropped because the cluster was full are made up by sweeps submitted on days across
    /// the window where the queue had room (listed last, after the final day's rows).
    fn backfill(&mut self, target: u64, out: &mut VecDeque<SampleRow>) {
        let days = self.target_cumulative_rows.len() as u32;
        let budget = 64 + target.saturating_sub(self.rows_written);
        let mut cut_short = 0;
        while self.rows_written < target && cut_short < budget {
            let day = self.rng.int(0, days - 1);
            let day_start = self.window_start_ms + i64::from(day) * MS_PER_DAY;
            let size = u64::from(self.rng.int(4, 16)).min(target - self.rows_written);
            if self.idle[day as usize] || self.sweep(day_start, size, out) < size {
                cut_short += 1;
            }
        }
    }
}
