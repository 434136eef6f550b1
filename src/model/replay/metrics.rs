//! Accumulators filled by the event loop, and the summaries made from them: exact integer
//! GPU-milliseconds, wait percentiles, and time-weighted queue lengths in fixed buckets.

use super::outcome::WaitSummary;
use super::{QUEUE_SERIES_BUCKETS, ReplayWindow};

/// Start of bucket `i` (0..=QUEUE_SERIES_BUCKETS) of the window; integer, so buckets tile exactly.
pub(super) fn bucket_start_ms(window: ReplayWindow, i: usize) -> i64 {
    let span = i128::from(window.len_ms());
    let offset = span * i as i128 / QUEUE_SERIES_BUCKETS as i128;
    window
        .start_ms
        .saturating_add(i64::try_from(offset).unwrap_or(i64::MAX))
}

/// Time integral of a count (jobs waiting) over the window, total and per bucket.
#[derive(Debug, Clone)]
pub(super) struct CountIntegral {
    last_ms: i64,
    count: u64,
    /// Job-milliseconds per bucket.
    bucket_job_ms: Vec<i128>,
    total_job_ms: i128,
}

impl CountIntegral {
    pub fn new(window: ReplayWindow) -> Self {
        CountIntegral {
            last_ms: window.start_ms,
            count: 0,
            bucket_job_ms: vec![0; QUEUE_SERIES_BUCKETS],
            total_job_ms: 0,
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn bucket_job_ms(&self) -> &[i128] {
        &self.bucket_job_ms
    }

    pub fn total_job_ms(&self) -> i128 {
        self.total_job_ms
    }

    /// The count becomes `count` at `now_ms` (times never go backwards).
    pub fn set(&mut self, now_ms: i64, count: u64, window: ReplayWindow) {
        self.advance(now_ms, window);
        self.count = count;
    }

    fn advance(&mut self, now_ms: i64, window: ReplayWindow) {
        let from_ms = self.last_ms.max(window.start_ms);
        let to_ms = now_ms.min(window.end_ms);
        self.last_ms = self.last_ms.max(now_ms);
        if self.count == 0 || to_ms <= from_ms {
            return;
        }
        let count = i128::from(self.count);
        self.total_job_ms += count * i128::from(to_ms - from_ms);
        // Largest bucket whose start <= from_ms: floor((from - start) × N / span), exactly.
        let span = i128::from(window.len_ms());
        let offset = i128::from(from_ms - window.start_ms);
        let first = usize::try_from(offset * QUEUE_SERIES_BUCKETS as i128 / span).unwrap_or(0);
        let mut at_ms = from_ms;
        for (i, slot) in self.bucket_job_ms.iter_mut().enumerate().skip(first) {
            if at_ms >= to_ms {
                break;
            }
            let edge_ms = bucket_start_ms(window, i + 1).min(to_ms);
            if edge_ms > at_ms {
                *slot += count * i128::from(edge_ms - at_ms);
                at_ms = edge_ms;
            }
        }
    }

    /// Adds another integral's job-milliseconds (merging pools into a topology-wide view).
    pub fn add(&mut self, other: &CountIntegral) {
        for (into, from) in self.bucket_job_ms.iter_mut().zip(&other.bucket_job_ms) {
            *into += from;
        }
        self.total_job_ms += other.total_job_ms;
    }

    /// Closes the integral at the window's end.
    pub fn finish(&mut self, window: ReplayWindow) {
        self.advance(window.end_ms, window);
    }
}

/// Mean count per bucket from summed job-milliseconds (a zero-width bucket reads 0).
pub(super) fn bucket_means(window: ReplayWindow, bucket_job_ms: &[i128]) -> Vec<f64> {
    bucket_job_ms
        .iter()
        .enumerate()
        .map(|(i, &job_ms)| {
            let width_ms = bucket_start_ms(window, i + 1) - bucket_start_ms(window, i);
            if width_ms > 0 {
                job_ms as f64 / width_ms as f64
            } else {
                0.0
            }
        })
        .collect()
}

/// Everything counted for one class in one pool.
#[derive(Debug, Clone)]
pub(super) struct ClassAcc {
    pub jobs: u64,
    pub jobs_on_overflow: u64,
    pub jobs_never_started: u64,
    pub jobs_submit_is_start: u64,
    pub arrivals_in_window: u64,
    /// Wait to first start (in the pool or on overflow), one per started job.
    pub waits_ms: Vec<i64>,
    pub max_queue_len: u64,
    pub waiting: CountIntegral,
    pub run_gpu_ms: i128,
    pub run_gpu_ms_in_window: i128,
    pub overflow_gpu_ms: i128,
    pub overflow_gpu_ms_in_window: i128,
    pub preemptions: u64,
    pub redone_gpu_ms: i128,
}

impl ClassAcc {
    pub fn new(window: ReplayWindow) -> Self {
        ClassAcc {
            jobs: 0,
            jobs_on_overflow: 0,
            jobs_never_started: 0,
            jobs_submit_is_start: 0,
            arrivals_in_window: 0,
            waits_ms: Vec::new(),
            max_queue_len: 0,
            waiting: CountIntegral::new(window),
            run_gpu_ms: 0,
            run_gpu_ms_in_window: 0,
            overflow_gpu_ms: 0,
            overflow_gpu_ms_in_window: 0,
            preemptions: 0,
            redone_gpu_ms: 0,
        }
    }
}

/// Nearest-rank percentile (`pct` in 1..=100) of `samples`, reordering them.
fn percentile(samples: &mut [i64], pct: usize) -> Option<i64> {
    if samples.is_empty() {
        return None;
    }
    let rank = (samples.len() * pct).div_ceil(100).max(1);
    let (_, value, _) = samples.select_nth_unstable(rank - 1);
    Some(*value)
}

/// Summary of waits (reorders `waits_ms`); `slo_ms` counts waits above it when given.
pub(super) fn summarize_waits(waits_ms: &mut [i64], slo_ms: Option<i64>) -> WaitSummary {
    let started = waits_ms.len() as u64;
    let share = |count: u64| (started > 0).then(|| count as f64 / started as f64);
    let total_ms: i128 = waits_ms.iter().map(|&w| i128::from(w)).sum();
    let waited = waits_ms.iter().filter(|&&w| w > 0).count() as u64;
    let over_slo = slo_ms.map(|slo| waits_ms.iter().filter(|&&w| w > slo).count() as u64);
    WaitSummary {
        p50_ms: percentile(waits_ms, 50),
        p95_ms: percentile(waits_ms, 95),
        p99_ms: percentile(waits_ms, 99),
        max_ms: waits_ms.iter().copied().max(),
        mean_ms: (started > 0).then(|| total_ms as f64 / started as f64),
        waited_frac: share(waited),
        over_slo_frac: over_slo.and_then(share),
    }
}

/// GPU-milliseconds to GPU-hours, converted once from the exact integer.
pub(super) fn gpu_hours(gpu_ms: i128) -> f64 {
    gpu_ms as f64 / super::MS_PER_HOUR
}

/// Saturating conversion for exact totals reported as integers.
pub(super) fn to_u64(value: i128) -> u64 {
    u64::try_from(value.max(0)).unwrap_or(u64::MAX)
}
