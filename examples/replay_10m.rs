//! Times the replay on 10 million synthetic jobs (a year) through "today" (four clusters, each job
//! on its home) and a proposed split (training, inference and burst pools, with overflow).
//!
//! cargo build --release --example replay_10m
//! /usr/bin/time -v target/release/examples/replay_10m [jobs] [duration scale]

use std::time::Instant;

use gpuplan::model::replay::{Overflow, Pool, ReplayJob, ReplayPolicy, ReplayWindow, Routing, Topology, replay};
use gpuplan::model::workload::WorkloadClass;

const HOUR_MS: f64 = 3_600_000.0;

struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn exp(&mut self, mean: f64) -> f64 {
        -(1.0 - self.next_f64()).ln() * mean
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next_u64() % items.len() as u64) as usize]
    }
}

/// A year of jobs: 2 % training (8–256 GPUs, mean 1.5 h), 50 % inference (1–8 GPUs, mean 30 min),
/// 48 % burst (1–32 GPUs, mean 20 min): about 5,450 GPUs busy on average at 10 M jobs (78 % of
/// the 7,000 GPUs); `scale` multiplies durations (2.0: an overloaded fleet, the backfill's worst
/// case, with queues of hundreds of thousands).
fn synthetic_jobs(count: u64, scale: f64) -> (Vec<ReplayJob>, ReplayWindow) {
    let mut rng = SplitMix64(2024);
    let year_ms = 365.0 * 24.0 * HOUR_MS;
    let gap_ms = year_ms / count as f64;
    let mut clock_ms = 0.0;
    let jobs = (0..count)
        .map(|id| {
            clock_ms += rng.exp(gap_ms);
            let roll = rng.next_f64();
            let (class, gpus, mean_h) = if roll < 0.02 {
                (WorkloadClass::Training, rng.pick(&[8, 16, 32, 32, 64, 128, 256]), 1.5)
            } else if roll < 0.52 {
                (WorkloadClass::Inference, rng.pick(&[1, 1, 2, 4, 8]), 0.5)
            } else {
                (WorkloadClass::Burst, rng.pick(&[1, 2, 4, 8, 16, 32]), 1.0 / 3.0)
            };
            ReplayJob {
                id,
                submit_ms: clock_ms as i64,
                gpus,
                duration_ms: rng.exp(scale * mean_h * HOUR_MS).max(1.0) as i64,
                class,
                home: (rng.next_u64() % 4) as u32,
                submit_is_start: false,
            }
        })
        .collect();
    (
        jobs,
        ReplayWindow {
            start_ms: 0,
            end_ms: year_ms as i64,
        },
    )
}

fn pool(name: &str, gpus: u32, overflow: Option<(f64, &str)>) -> Pool {
    Pool {
        name: name.to_string(),
        gpus,
        usd_per_gpu_hour: 2.0,
        overflow: overflow.map(|(usd, label)| Overflow {
            usd_per_gpu_hour: usd,
            label: label.to_string(),
        }),
    }
}

fn main() {
    let count = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000u64);
    let scale = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(1.0f64);
    let started = Instant::now();
    let (jobs, window) = synthetic_jobs(count, scale);
    println!(
        "generated {} jobs in {:.2} s",
        jobs.len(),
        started.elapsed().as_secs_f64()
    );
    let today = Topology {
        pools: (0..4).map(|i| pool(&format!("cluster-{i}"), 1750, None)).collect(),
        routing: Routing::Home,
    };
    let proposed = Topology {
        pools: vec![
            pool("training", 3600, None),
            pool("inference", 1200, Some((4.0, "on-demand"))),
            pool("burst", 2200, Some((1.5, "spot"))),
        ],
        routing: Routing::ByClass {
            training: 0,
            inference: 1,
            burst: 2,
        },
    };
    let policy = ReplayPolicy {
        backfill: true,
        inference_first: true,
        preempt_burst_for_inference: true,
        checkpoint_interval_ms: 30 * 60_000,
        inference_start_slo_ms: 5 * 60_000,
        overflow_after_wait_ms: Some(30 * 60_000),
    };
    let replays = Instant::now();
    for (name, topology) in [("today", &today), ("proposed", &proposed)] {
        let t0 = Instant::now();
        match replay(&jobs, topology, &policy, window) {
            Ok(outcome) => {
                println!("{name}: replayed in {:.2} s", t0.elapsed().as_secs_f64());
                for p in &outcome.pools {
                    println!(
                        "  {:<10} allocated {:>6.3} wait p95 {:>9} ms  p99 {:>9} ms  overflow {:>10.0} GPU-h  preempt {:>6}  \
                         L_q {:>8.2}  max queue {:>6}",
                        p.name,
                        p.allocated_frac.unwrap_or(0.0),
                        p.wait.p95_ms.unwrap_or(0),
                        p.wait.p99_ms.unwrap_or(0),
                        p.overflow_gpu_hours,
                        p.preemptions,
                        p.mean_waiting_jobs,
                        p.max_queue_len,
                    );
                }
                println!("  total ${:.0}/month", outcome.totals.total_usd_per_month);
            }
            Err(err) => println!("{name}: {err}"),
        }
    }
    println!("both replays: {:.2} s", replays.elapsed().as_secs_f64());
}
