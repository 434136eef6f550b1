//! Hand-worked schedules, overflow, errors and exact GPU-hours.

use super::*;

pub(super) fn job(id: u64, submit_ms: i64, gpus: u32, duration_ms: i64, class: WorkloadClass) -> ReplayJob {
    ReplayJob {
        id,
        submit_ms,
        gpus,
        duration_ms,
        class,
        home: 0,
        submit_is_start: false,
    }
}

pub(super) fn fifo() -> ReplayPolicy {
    ReplayPolicy {
        backfill: false,
        inference_first: false,
        preempt_burst_for_inference: false,
        checkpoint_interval_ms: 0,
        inference_start_slo_ms: 0,
        overflow_after_wait_ms: None,
    }
}

pub(super) fn pool(name: &str, gpus: u32, overflow_usd: Option<f64>) -> Pool {
    Pool {
        name: name.to_string(),
        gpus,
        usd_per_gpu_hour: 2.0,
        overflow: overflow_usd.map(|usd| Overflow {
            usd_per_gpu_hour: usd,
            label: "on-demand".to_string(),
        }),
    }
}

pub(super) fn single(gpus: u32, overflow_usd: Option<f64>) -> Topology {
    Topology {
        pools: vec![pool("p", gpus, overflow_usd)],
        routing: Routing::Home,
    }
}

fn window(start_ms: i64, end_ms: i64) -> ReplayWindow {
    ReplayWindow { start_ms, end_ms }
}

/// First start of each job id, in id order (ids are 1..=n in these tests).
fn starts(runs: &[JobRun], n: u64) -> Vec<i64> {
    (1..=n)
        .map(|id| {
            runs.iter()
                .filter(|r| r.id == id)
                .map(|r| r.start_ms)
                .min()
                .unwrap_or(-1)
        })
        .collect()
}

use crate::model::workload::WorkloadClass::{Burst, Inference, Training};

/// Pool of 5 GPUs, all training, times in ms.
///   J1 t0 2g d10 | J2 t1 4g d5 | J3 t2 2g d20 | J4 t3 1g d30 | J5 t4 2g d6 | J6 t5 1g d3
///
/// FIFO: J1 starts 0 (free 3). J2 needs 4: head, blocks everyone. At 10 J1 ends (free 5): J2
/// starts 10 (free 1); J3 needs 2, blocks. At 15 J2 ends (free 5): J3, J4, J5 start 15 (free 0),
/// J6 waits. J5 ends 21 (free 2): J6 starts 21.
///   → starts 0, 10, 15, 15, 15, 21
///
/// EASY: J2 blocked at 1; shadow = 10 (J1 ends; 3 + 2 = 5 free then), extra = 5 − 4 = 1.
///   t2 J3 2g ends 22 > 10 and 2 > extra 1: would delay J2, stays.
///   t3 J4 1g ends 33 > 10 but 1 <= extra 1: backfills on the extra GPU (extra 0, free 2).
///   t4 J5 2g ends 10 <= shadow: backfills (free 0). (J3 checked again: 2 > extra 0, stays.)
///   t5 J6: free 0, waits.
///   At 10 J1 and J5 end (free 4): J2 starts 10 on schedule (free 0). At 15 J2 ends (free 4):
///   J3 starts 15 (free 2), J6 starts 15.
///   → starts 0, 10, 15, 3, 4, 15 (J2 not delayed; J4, J5, J6 earlier)
#[test]
fn easy_backfill_changes_order_versus_fifo_by_hand() {
    let jobs = [
        job(1, 0, 2, 10, Training),
        job(2, 1, 4, 5, Training),
        job(3, 2, 2, 20, Training),
        job(4, 3, 1, 30, Training),
        job(5, 4, 2, 6, Training),
        job(6, 5, 1, 3, Training),
    ];
    let topology = single(5, None);
    let (_, fifo_runs) = replay_traced(&jobs, &topology, &fifo(), window(0, 100), true).expect("fifo");
    assert_eq!(starts(&fifo_runs, 6), vec![0, 10, 15, 15, 15, 21]);
    let easy = ReplayPolicy {
        backfill: true,
        ..fifo()
    };
    let (outcome, easy_runs) = replay_traced(&jobs, &topology, &easy, window(0, 100), true).expect("easy");
    assert_eq!(starts(&easy_runs, 6), vec![0, 10, 15, 3, 4, 15]);
    // Waits 0, 9, 13, 0, 0, 10: mean 32/6, three of six waited.
    let wait = &outcome.pools[0].wait;
    assert_eq!(wait.mean_ms, Some(32.0 / 6.0));
    assert_eq!(wait.waited_frac, Some(0.5));
    assert_eq!(wait.max_ms, Some(13));
}

/// Pool of 4 GPUs, inference first, preemption, checkpoints every 10 ms.
///   B1 burst t0 2g d100 → starts 0 (free 2).   B2 burst t5 2g d100 → starts 5 (free 0).
///   T1 training t6 2g d30 → waits.
///   I1 inference t27 2g d50: free 0, bursts hold 4 → preempt newest (B2, started 5): elapsed 22,
///     lost 22 mod 10 = 2, B2 requeued with 100 − 20 = 80 left. I1 starts 27 (wait 0), ends 77.
///   77: I1 ends; main queue B2 (submit 5) before T1: B2 starts 77, would end 157.
///   100: B1 ends: T1 starts 100, ends 130.
///   I2 inference t120 2g d10: free 0; B2 is the only burst (T1 is training, never preempted):
///     elapsed 43, lost 3, B2 requeued with 80 − 40 = 40 left. I2 starts 120, ends 130.
///   I3 inference t121 2g d5: free 0, no burst running → waits until 130 (wait 9).
///   130: I2, T1 end (free 4): I3 starts 130 (inference first), B2 starts 130, ends 170.
/// Preemptions 2, redone (2 + 3) ms × 2 GPUs = 10 GPU-ms; GPU-ms run = 590 of work + 10 redone.
#[test]
fn inference_first_preempts_newest_burst_by_hand() {
    let jobs = [
        job(1, 0, 2, 100, Burst),
        job(2, 5, 2, 100, Burst),
        job(3, 6, 2, 30, Training),
        job(4, 27, 2, 50, Inference),
        job(5, 120, 2, 10, Inference),
        job(6, 121, 2, 5, Inference),
    ];
    let policy = ReplayPolicy {
        inference_first: true,
        preempt_burst_for_inference: true,
        checkpoint_interval_ms: 10,
        inference_start_slo_ms: 5,
        ..fifo()
    };
    let (outcome, runs) = replay_traced(&jobs, &single(4, None), &policy, window(0, 200), true).expect("replay");
    let b2: Vec<(i64, i64, bool)> = runs
        .iter()
        .filter(|r| r.id == 2)
        .map(|r| (r.start_ms, r.end_ms, r.preempted))
        .collect();
    assert_eq!(b2, vec![(5, 27, true), (77, 120, true), (130, 170, false)]);
    assert_eq!(starts(&runs, 6), vec![0, 5, 100, 27, 120, 130]);
    let pool = &outcome.pools[0];
    assert_eq!(pool.preemptions, 2);
    assert_eq!(pool.gpu_ms_run, 600);
    assert!((pool.redone_gpu_hours - 10.0 / 3_600_000.0).abs() < 1e-18);
    let inference = &pool.classes[1];
    assert_eq!(inference.wait.max_ms, Some(9));
    // One of three inference starts waited longer than the 5 ms SLO.
    assert_eq!(inference.wait.over_slo_frac, Some(1.0 / 3.0));
    assert_eq!(pool.classes[0].wait.max_ms, Some(94));

    // Without preemption I1 waits for B1's end at 100 and goes before T1 (inference first).
    let no_preempt = ReplayPolicy {
        preempt_burst_for_inference: false,
        ..policy
    };
    let (outcome, runs) = replay_traced(&jobs, &single(4, None), &no_preempt, window(0, 200), true).expect("replay");
    assert_eq!(starts(&runs, 6)[3], 100);
    assert_eq!(outcome.pools[0].preemptions, 0);
    assert_eq!(outcome.pools[0].gpu_ms_run, 590);
}

#[test]
fn jobs_larger_than_the_pool_are_listed_or_overflow() {
    // Job 2 (8 GPUs) can never fit 4; job 3 behind it must not be blocked.
    let jobs = [
        job(1, 0, 2, 3_600_000, Training),
        job(2, 10, 8, 1_800_000, Burst),
        job(3, 20, 2, 1000, Training),
    ];
    let w = window(0, 7_200_000);
    let (outcome, runs) = replay_traced(&jobs, &single(4, None), &fifo(), w, true).expect("replay");
    assert_eq!(
        outcome.never_started,
        vec![NeverStarted {
            id: 2,
            class: Burst,
            gpus: 8,
            pool: 0
        }]
    );
    assert_eq!(outcome.totals.jobs_never_started, 1);
    assert_eq!(outcome.totals.jobs_started, 2);
    assert_eq!(starts(&runs, 3)[2], 20);
    assert_eq!(outcome.totals.overflow_gpu_hours, 0.0);

    let (outcome, runs) = replay_traced(&jobs, &single(4, Some(3.0)), &fifo(), w, true).expect("replay");
    assert!(outcome.never_started.is_empty());
    let burst = &outcome.pools[0].classes[2];
    assert_eq!(burst.jobs_on_overflow, 1);
    assert_eq!(burst.wait.max_ms, Some(0));
    assert_eq!(burst.overflow_gpu_hours, 4.0);
    assert_eq!(burst.overflow_usd, 12.0);
    assert!(runs.iter().any(|r| r.id == 2 && r.on_overflow && r.start_ms == 10));
    // 4 overflow GPU-hours in a 2-hour window, scaled to 730 hours at $3.
    assert!((outcome.pools[0].overflow_usd_per_month - 4.0 * 3.0 * 365.0).abs() < 1e-9);
    // Committed: 4 GPUs × $2 × 730 h.
    assert_eq!(outcome.pools[0].committed_usd_per_month, 5840.0);
}

#[test]
fn a_job_waiting_past_the_threshold_leaves_for_overflow() {
    // 2-GPU pool: job 1 holds both for 100 ms; job 2 would wait 100 but leaves after 30.
    let jobs = [
        job(1, 0, 2, 100, Training),
        job(2, 0, 1, 50, Burst),
        job(3, 10, 1, 5, Burst),
    ];
    let policy = ReplayPolicy {
        overflow_after_wait_ms: Some(30),
        ..fifo()
    };
    let (outcome, runs) = replay_traced(&jobs, &single(2, Some(5.0)), &policy, window(0, 1000), true).expect("ok");
    let overflow: Vec<(u64, i64)> = runs
        .iter()
        .filter(|r| r.on_overflow)
        .map(|r| (r.id, r.start_ms))
        .collect();
    assert_eq!(overflow, vec![(2, 30), (3, 40)]);
    let burst = &outcome.pools[0].classes[2];
    assert_eq!(burst.overflow_gpu_ms, 55);
    assert_eq!(burst.wait.max_ms, Some(30));
    assert_eq!(burst.jobs_on_overflow, 2);
}

#[test]
fn ten_years_apart_keeps_the_series_bounded() {
    let ten_years_ms = 10 * 365 * 24 * 3_600_000_i64;
    let jobs = [job(1, 0, 1, 1000, Training), job(2, ten_years_ms, 1, 1000, Training)];
    let w = window(0, ten_years_ms + 1000);
    let outcome = replay(&jobs, &single(1, None), &fifo(), w).expect("replay");
    for class in outcome.pools[0].classes.iter().chain(&outcome.classes) {
        assert_eq!(class.queue_series.mean_waiting_jobs.len(), QUEUE_SERIES_BUCKETS);
    }
    assert_eq!(outcome.totals.gpu_ms_run, 2000);
    assert!(outcome.pools[0].allocated_frac.is_some_and(|u| u > 0.0 && u < 1e-7));
}

#[test]
fn the_queue_series_is_a_time_weighted_mean() {
    // One GPU, window 0..2400 (10 ms buckets). Job 2 waits 0..1200, job 3 waits 600..2400:
    // buckets 0..59 hold 1 waiting, 60..119 hold 2, 120..239 hold 1.
    let jobs = [
        job(1, 0, 1, 1200, Training),
        job(2, 0, 1, 1200, Training),
        job(3, 600, 1, 5000, Training),
    ];
    let outcome = replay(&jobs, &single(1, None), &fifo(), window(0, 2400)).expect("replay");
    let series = &outcome.pools[0].classes[0].queue_series.mean_waiting_jobs;
    assert_eq!(series[0], 1.0);
    assert_eq!(series[59], 1.0);
    assert_eq!(series[60], 2.0);
    assert_eq!(series[119], 2.0);
    assert_eq!(series[120], 1.0);
    assert_eq!(series[239], 1.0);
    // L_q = (1200 + 1800) / 2400 job-ms per ms.
    assert_eq!(outcome.pools[0].mean_waiting_jobs, 1.25);
    // Busy the whole window: utilization exactly 1, nothing stranded.
    assert_eq!(outcome.pools[0].allocated_frac, Some(1.0));
    assert_eq!(outcome.pools[0].never_allocated_gpu_hours, 0.0);
}

/// Small deterministic generator for test inputs.
pub(super) struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

fn random_jobs(seed: u64, n: u64, clusters: u32) -> Vec<ReplayJob> {
    let mut rng = SplitMix64(seed);
    let mut submit_ms = 0;
    (0..n)
        .map(|id| {
            // Strictly increasing, so any reordering of the input sorts back the same way.
            submit_ms += 1 + rng.below(600_000) as i64;
            let class = WorkloadClass::ALL[rng.below(3) as usize];
            let gpus = [1, 2, 4, 8, 16, 64][rng.below(6) as usize];
            let duration_ms = rng.below(20 * 3_600_000) as i64 + 1;
            ReplayJob {
                home: rng.below(u64::from(clusters)) as u32,
                ..job(id, submit_ms, gpus, duration_ms, class)
            }
        })
        .collect()
}

#[test]
fn today_reproduces_gpu_hours_exactly() {
    let jobs = random_jobs(7, 20_000, 3);
    let expected_gpu_ms: u64 = jobs.iter().map(|j| u64::from(j.gpus) * j.duration_ms as u64).sum();
    let pools = vec![pool("a", 64, None), pool("b", 128, None), pool("c", 96, None)];
    let today = Topology {
        pools,
        routing: Routing::Home,
    };
    let w = window(0, jobs.last().map_or(1, |j| j.submit_ms));
    for policy in [
        fifo(),
        ReplayPolicy {
            backfill: true,
            inference_first: true,
            ..fifo()
        },
    ] {
        let outcome = replay(&jobs, &today, &policy, w).expect("replay");
        assert_eq!(outcome.totals.gpu_ms_run, expected_gpu_ms);
        assert_eq!(outcome.totals.jobs_started, 20_000);
        let per_pool: u64 = outcome.pools.iter().map(|p| p.gpu_ms_run).sum();
        assert_eq!(per_pool, expected_gpu_ms);
        let per_class: u64 = outcome.classes.iter().map(|c| c.gpu_ms_run).sum();
        assert_eq!(per_class, expected_gpu_ms);
        assert_eq!(outcome.totals.gpu_hours_run, expected_gpu_ms as f64 / 3_600_000.0);
    }
}

#[test]
fn unsorted_input_replays_like_sorted_input() {
    let jobs = random_jobs(11, 2_000, 1);
    let mut shuffled = jobs.clone();
    shuffled.reverse();
    let policy = ReplayPolicy {
        backfill: true,
        ..fifo()
    };
    let w = window(0, 1_000_000_000);
    let sorted = replay(&jobs, &single(64, None), &policy, w).expect("sorted");
    let unsorted = replay(&shuffled, &single(64, None), &policy, w).expect("unsorted");
    assert_eq!(sorted.pools[0].wait, unsorted.pools[0].wait);
    assert_eq!(
        sorted.pools[0].allocated_gpu_hours_in_window,
        unsorted.pools[0].allocated_gpu_hours_in_window
    );
}

#[test]
fn a_zero_gpu_pool_that_receives_jobs_is_an_error() {
    let jobs = [job(1, 0, 1, 10, Training)];
    let err = replay(&jobs, &single(0, None), &fifo(), window(0, 10)).expect_err("no GPUs");
    assert_eq!(err, ReplayError::ZeroGpuPool { pool: "p".to_string() });
    assert!(err.to_string().contains("pool p"));
    // Receiving no jobs is fine; with overflow every job runs there.
    let idle = Topology {
        pools: vec![pool("a", 4, None), pool("empty", 0, None)],
        routing: Routing::Home,
    };
    let outcome = replay(&jobs, &idle, &fifo(), window(0, 10)).expect("idle empty pool");
    assert_eq!(outcome.pools[1].allocated_frac, None);
    let outcome = replay(&jobs, &single(0, Some(4.0)), &fifo(), window(0, 10)).expect("cloud pool");
    assert_eq!(outcome.pools[0].jobs_on_overflow, 1);
}

#[test]
fn bad_inputs_are_typed_errors() {
    let ok = [job(1, 0, 1, 10, Training)];
    let w = window(0, 10);
    let run = |jobs: &[ReplayJob], topology: &Topology, policy: &ReplayPolicy, w| replay(jobs, topology, policy, w);
    assert!(matches!(
        run(&ok, &single(1, None), &fifo(), window(5, 5)),
        Err(ReplayError::EmptyWindow { .. })
    ));
    let away = [ReplayJob { home: 3, ..ok[0] }];
    assert_eq!(
        run(&away, &single(1, None), &fifo(), w),
        Err(ReplayError::HomeOutOfRange { job_id: 1, home: 3 })
    );
    let none = [ReplayJob { gpus: 0, ..ok[0] }];
    assert_eq!(
        run(&none, &single(1, None), &fifo(), w),
        Err(ReplayError::ZeroGpuJob { job_id: 1 })
    );
    let negative = [ReplayJob {
        duration_ms: -1,
        ..ok[0]
    }];
    assert_eq!(
        run(&negative, &single(1, None), &fifo(), w),
        Err(ReplayError::InvalidJobTime { job_id: 1 })
    );
    let huge = [ReplayJob {
        submit_ms: i64::MAX,
        ..ok[0]
    }];
    assert_eq!(
        run(&huge, &single(1, None), &fifo(), w),
        Err(ReplayError::InvalidJobTime { job_id: 1 })
    );
    let by_class = Topology {
        pools: vec![pool("a", 1, None)],
        routing: Routing::ByClass {
            training: 0,
            inference: 0,
            burst: 2,
        },
    };
    assert_eq!(
        run(&ok, &by_class, &fifo(), w),
        Err(ReplayError::RoutingOutOfRange {
            class: Burst,
            pool_index: 2
        })
    );
    let mut nan_price = single(1, None);
    nan_price.pools[0].usd_per_gpu_hour = f64::NAN;
    assert!(matches!(
        run(&ok, &nan_price, &fifo(), w),
        Err(ReplayError::InvalidPrice { .. })
    ));
    let preempt_alone = ReplayPolicy {
        preempt_burst_for_inference: true,
        checkpoint_interval_ms: 10,
        ..fifo()
    };
    assert!(matches!(
        run(&ok, &single(1, None), &preempt_alone, w),
        Err(ReplayError::InvalidPolicy { .. })
    ));
    assert_eq!(
        run(
            &ok,
            &Topology {
                pools: vec![],
                routing: Routing::Home
            },
            &fifo(),
            w
        ),
        Err(ReplayError::NoPools)
    );
}

#[test]
fn by_class_routing_splits_the_fleet() {
    let jobs = [
        job(1, 0, 4, 100, Training),
        job(2, 0, 1, 100, Inference),
        job(3, 0, 2, 100, Burst),
    ];
    let split = Topology {
        pools: vec![
            pool("train", 4, None),
            pool("serve", 1, None),
            pool("burst", 2, Some(9.0)),
        ],
        routing: Routing::ByClass {
            training: 0,
            inference: 1,
            burst: 2,
        },
    };
    let outcome = replay(&jobs, &split, &fifo(), window(0, 100)).expect("replay");
    let used: Vec<Option<f64>> = outcome.pools.iter().map(|p| p.allocated_frac).collect();
    assert_eq!(used, vec![Some(1.0), Some(1.0), Some(1.0)]);
    assert_eq!(outcome.classes[0].jobs, 1);
    assert_eq!(outcome.pools[2].classes[2].gpu_ms_run, 200);
}
