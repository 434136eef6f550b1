//! The replay against queueing theory: Erlang C values, and M/M/c replays that must match Erlang C
//! and Little's law.

use super::tests::{SplitMix64, fifo, job, single};
use super::*;

/// P(wait) by the textbook factorial formula, for small c only (an independent check).
fn erlang_c_by_factorials(c: u32, a: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 0.0;
    for k in 0..c {
        sum += term;
        term *= a / f64::from(k + 1);
    }
    // term is now a^c / c!.
    let top = term * f64::from(c) / (f64::from(c) - a);
    top / (sum + top)
}

#[test]
fn erlang_c_known_values() {
    // M/M/1: P(wait) = ρ.
    for rho in [0.1, 0.5, 0.9] {
        assert!((erlang_c_wait_probability(1, rho).unwrap_or(f64::NAN) - rho).abs() < 1e-15);
    }
    // c = 2, a = 1: B = 1/5, C = 2·(1/5) / (2 − 0.8) = 1/3.
    assert!((erlang_c_wait_probability(2, 1.0).unwrap_or(f64::NAN) - 1.0 / 3.0).abs() < 1e-15);
    // c = 10, a = 8: 0.4092 (call-centre tables).
    assert!((erlang_c_wait_probability(10, 8.0).unwrap_or(f64::NAN) - 0.4092).abs() < 5e-5);
    for (c, a) in [(3, 2.5), (16, 8.0), (16, 15.2), (20, 12.0)] {
        let recursion = erlang_c_wait_probability(c, a).unwrap_or(f64::NAN);
        assert!((recursion - erlang_c_by_factorials(c, a)).abs() < 1e-12, "c={c} a={a}");
    }
    // Factorials overflow f64 at c = 171; the recursion does not.
    let big = erlang_c_wait_probability(5000, 4950.0).unwrap_or(f64::NAN);
    assert!(big > 0.0 && big < 1.0);
    assert_eq!(erlang_c_wait_probability(4, 4.0), Some(1.0));
    assert_eq!(erlang_c_wait_probability(0, 1.0), None);
    assert_eq!(erlang_c_wait_probability(2, f64::NAN), None);
    // W_q: M/M/1 with λ = 0.5, μ = 1 → ρ/(μ − λ) = 1; c = 2, λ = μ = 1 → (1/3)/(2 − 1).
    assert!((erlang_c_mean_wait(1, 0.5, 1.0).unwrap_or(f64::NAN) - 1.0).abs() < 1e-15);
    assert!((erlang_c_mean_wait(2, 1.0, 1.0).unwrap_or(f64::NAN) - 1.0 / 3.0).abs() < 1e-15);
    assert_eq!(erlang_c_mean_wait(2, 2.0, 1.0), None);
    assert_eq!(erlang_c_mean_wait(2, 1.0, 0.0), None);
}

/// One load level of the M/M/c comparison.
#[derive(Debug, Clone, Copy)]
pub(super) struct MmcRow {
    pub c: u32,
    pub rho: f64,
    pub jobs: u64,
    pub theory_wait_frac: f64,
    pub replay_wait_frac: f64,
    pub theory_wait_ms: f64,
    pub replay_wait_ms: f64,
    /// Time-weighted mean number waiting, and λ·W_q from the replay's own arrivals and waits.
    pub replay_lq: f64,
    pub little_lq: f64,
}

impl MmcRow {
    pub fn wait_frac_error(&self) -> f64 {
        self.replay_wait_frac / self.theory_wait_frac - 1.0
    }
    pub fn wait_ms_error(&self) -> f64 {
        self.replay_wait_ms / self.theory_wait_ms - 1.0
    }
    pub fn little_error(&self) -> f64 {
        self.replay_lq / self.little_lq - 1.0
    }
}

const MEAN_SERVICE_MS: f64 = 3_600_000.0;

/// Poisson arrivals and exponential service (mean 1 h, in whole ms) of single-GPU jobs on `c`
/// GPUs at load `rho`, replayed FIFO (backfill cannot change single-GPU jobs).
pub(super) fn mmc_row(c: u32, rho: f64, jobs: u64, seed: u64) -> MmcRow {
    let mut rng = SplitMix64(seed);
    let lambda_per_ms = rho * f64::from(c) / MEAN_SERVICE_MS;
    let mut clock_ms = 0.0;
    let list: Vec<ReplayJob> = (0..jobs)
        .map(|id| {
            clock_ms += -(1.0 - rng.next_f64()).ln() / lambda_per_ms;
            let service_ms = (-(1.0 - rng.next_f64()).ln() * MEAN_SERVICE_MS).round() as i64;
            job(id, clock_ms.round() as i64, 1, service_ms, WorkloadClass::Training)
        })
        .collect();
    let end_ms = list.last().map_or(1, |j| j.submit_ms + 1);
    let window = ReplayWindow { start_ms: 0, end_ms };
    let outcome = replay(&list, &single(c, None), &fifo(), window).expect("M/M/c replay");
    let pool = &outcome.pools[0];
    let replay_wait_ms = pool.wait.mean_ms.unwrap_or(f64::NAN);
    let arrivals_per_ms = pool.arrivals_per_hour / 3_600_000.0;
    MmcRow {
        c,
        rho,
        jobs,
        theory_wait_frac: erlang_c_wait_probability(c, rho * f64::from(c)).unwrap_or(f64::NAN),
        replay_wait_frac: pool.wait.waited_frac.unwrap_or(f64::NAN),
        theory_wait_ms: erlang_c_mean_wait(c, lambda_per_ms, 1.0 / MEAN_SERVICE_MS).unwrap_or(f64::NAN),
        replay_wait_ms,
        replay_lq: pool.mean_waiting_jobs,
        little_lq: arrivals_per_ms * replay_wait_ms,
    }
}

pub(super) fn mmc_table() -> Vec<MmcRow> {
    // Sizes from a seed sweep: the standard error of W_q is about 1.3 % at these sizes (waits are
    // rare at 0.5 and long-correlated at 0.95), so 3 % is over two standard errors.
    [(0.5, 12_000_000, 1), (0.8, 4_000_000, 2), (0.95, 8_000_000, 3)]
        .into_iter()
        .map(|(rho, jobs, seed)| mmc_row(16, rho, jobs, seed))
        .collect()
}

pub(super) fn format_table(rows: &[MmcRow]) -> String {
    let mut out = String::from(
        "  c   rho      jobs  P(wait) theory  P(wait) replay   err %   W_q theory min  W_q replay min   err %  \
         L_q replay  lambda*W_q   err %\n",
    );
    for r in rows {
        out.push_str(&format!(
            "{:>3} {:>5.2} {:>9} {:>15.5} {:>15.5} {:>7.2} {:>16.4} {:>15.4} {:>7.2} {:>11.4} {:>11.4} {:>7.3}\n",
            r.c,
            r.rho,
            r.jobs,
            r.theory_wait_frac,
            r.replay_wait_frac,
            100.0 * r.wait_frac_error(),
            r.theory_wait_ms / 60_000.0,
            r.replay_wait_ms / 60_000.0,
            100.0 * r.wait_ms_error(),
            r.replay_lq,
            r.little_lq,
            100.0 * r.little_error(),
        ));
    }
    out
}

#[test]
fn mmc_replay_matches_erlang_c_and_littles_law() {
    let rows = mmc_table();
    let table = format_table(&rows);
    // Shown with --nocapture, so the numbers can be quoted.
    println!("{table}");
    for r in &rows {
        assert!(
            r.wait_frac_error().abs() < 0.03,
            "P(wait) off at rho {}:\n{table}",
            r.rho
        );
        assert!(r.wait_ms_error().abs() < 0.03, "W_q off at rho {}:\n{table}", r.rho);
        assert!(
            r.little_error().abs() < 0.01,
            "Little's law off at rho {}:\n{table}",
            r.rho
        );
    }
}

#[test]
fn backfill_cannot_change_single_gpu_jobs_but_does_change_mixed_ones() {
    // With one GPU per job the head always fits when anything is free, so EASY adds nothing.
    let mut rng = SplitMix64(5);
    let mut submit_ms = 0;
    let mut jobs: Vec<ReplayJob> = (0..50_000)
        .map(|id| {
            submit_ms += rng.below(400) as i64;
            job(id, submit_ms, 1, 1 + rng.below(4_000) as i64, WorkloadClass::Training)
        })
        .collect();
    let w = ReplayWindow {
        start_ms: 0,
        end_ms: submit_ms + 1,
    };
    let easy = ReplayPolicy {
        backfill: true,
        ..fifo()
    };
    let plain = replay(&jobs, &single(8, None), &fifo(), w).expect("fifo");
    let backfilled = replay(&jobs, &single(8, None), &easy, w).expect("easy");
    assert_eq!(plain.pools[0].wait, backfilled.pools[0].wait);
    assert!(
        plain.pools[0].wait.waited_frac.is_some_and(|f| f > 0.1),
        "the test needs a queue"
    );
    // Mixed sizes: backfill must cut the mean wait.
    for j in jobs.iter_mut().step_by(3) {
        j.gpus = 8;
    }
    let plain = replay(&jobs, &single(8, None), &fifo(), w).expect("fifo");
    let backfilled = replay(&jobs, &single(8, None), &easy, w).expect("easy");
    let mean = |o: &ReplayOutcome| o.pools[0].wait.mean_ms.unwrap_or(f64::NAN);
    assert!(
        mean(&backfilled) < mean(&plain),
        "{} vs {}",
        mean(&backfilled),
        mean(&plain)
    );
}
