//! Inference: services of long-lived replicas replaced by rolling deploys, and daytime replicas
//! that follow the users' hours.

use std::collections::VecDeque;
use std::f64::consts::PI;

use super::cluster::{ClusterSim, Job, round_tenth, to_ms};
use super::sizing::ServiceShape;
use super::tables::{LABEL_RATE, REPLICA_LIFE_HOURS};
use super::{SampleClass, SampleRow};
use crate::data::canonical::{MS_PER_DAY, MS_PER_MINUTE};

/// An inference service: its long-lived lanes of replicas, and the shape of its daytime ones.
pub(super) struct Service {
    pub(super) stem: String,
    pub(super) shape: ServiceShape,
    pub(super) queue: &'static str,
    pub(super) user: &'static str,
    /// Mean utilization of the long-lived replicas, percent.
    pub(super) base_util_pct: f64,
    /// When each long-lived lane starts its next replica.
    pub(super) next_replica_ms: Vec<i64>,
    pub(super) next_instance: u32,
}

impl ClusterSim {
    pub(super) fn run_services(&mut self, day: i64, day_start: i64, out: &mut VecDeque<SampleRow>) {
        let day_end = day_start + MS_PER_DAY;
        for s in 0..self.services.len() {
            let shape = self.services[s].shape;
            for lane in 0..shape.base_lanes as usize {
                while self.services[s].next_replica_ms[lane] < day_end {
                    let desired = self.services[s].next_replica_ms[lane];
                    let life = to_ms(self.rng.log_uniform(REPLICA_LIFE_HOURS.0, REPLICA_LIFE_HOURS.1));
                    let Some(start) = self.place(desired, life, shape.gpus, 60 * MS_PER_MINUTE, self.capacity_milli)
                    else {
                        self.services[s].next_replica_ms[lane] = desired + 60 * MS_PER_MINUTE;
                        continue;
                    };
                    // Rolling deploy: the next replica comes up before this one goes away.
                    self.services[s].next_replica_ms[lane] = start + life - to_ms(self.rng.between(0.03, 0.33));
                    let util = if life >= MS_PER_DAY {
                        self.services[s].base_util_pct + self.rng.between(-4.0, 4.0)
                    } else {
                        self.diurnal_util_pct(start + life / 2)
                    };
                    self.service_row(s, start, life, util.clamp(20.0, 70.0), out);
                }
            }
            if day < 0 {
                continue;
            }
            for _ in 0..self.peak_lanes_on(shape.peak_lanes, day, day_start) {
                let hour = self.rng.between(7.0, 10.0);
                let desired = self.at_local_hour(day_start, hour);
                let hours = self.rng.between(18.0, 23.0) - self.local_hour(desired);
                let life = to_ms(hours);
                if let Some(start) = self.place(desired, life, shape.gpus, 30 * MS_PER_MINUTE, self.capacity_milli) {
                    let util = self.rng.between(50.0, 70.0);
                    self.service_row(s, start, life, util, out);
                }
            }
        }
    }

    /// Load follows the users' day: lowest near 04:00 local, highest near 16:00.
    fn diurnal_util_pct(&mut self, ms: i64) -> f64 {
        let hour = self.local_hour(ms);
        let shape = 0.5 - 0.5 * (2.0 * PI * (hour - 4.0) / 24.0).cos();
        20.0 + 45.0 * shape + self.rng.between(-5.0, 5.0)
    }

    fn service_row(&mut self, s: usize, start: i64, life: i64, util_pct: f64, out: &mut VecDeque<SampleRow>) {
        let job_id = self.next_job_id();
        let service = &mut self.services[s];
        let name = format!("{}-{}", service.stem, service.next_instance);
        service.next_instance += 1;
        let job = Job {
            name,
            user: service.user,
            queue: service.queue,
            class: SampleClass::Inference,
            gpus: service.shape.gpus,
        };
        let mut row = self.row(job_id, job, start, start + life);
        row.state = match row.end_ms {
            None => "RUNNING",
            Some(_) => [("COMPLETED", 85), ("CANCELLED", 10), ("FAILED", 5)][self.rng.weighted(&[85, 10, 5])].0,
        };
        row.gpu_util_pct = round_tenth(util_pct);
        let labeled = self.rng.chance(LABEL_RATE);
        self.push(row, labeled, out);
    }
}
