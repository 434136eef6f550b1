//! The MSTL methods' forecasts kept by what they read: a forecast is a function of the method,
//! the history's points and the seasons, so one fitted once is served again instead of fitted
//! again (a growth, price or MFU step, the policy backtest run for every board, a reopened
//! log). Nothing here can change an answer: a key is an XXH3-128 hash of every input bit, and
//! a kept forecast serves any horizon up to its own length (the methods' points ahead do not
//! depend on how far ahead they are asked: `memo_serves_a_shorter_horizon_exactly`).
//!
//! The memo is the process's, bounded (`MAX_KEPT_POINTS`); what was fitted since it was last
//! asked is drained for the read cache to keep beside a log (`pipeline::kept_fits`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use super::ForecastMethod;

/// A change to any method's arithmetic bumps this, so forecasts kept by an older build are
/// never served (the read cache also keys its files by gpuplan's version).
pub const FIT_FORMAT: u32 = 1;

/// At most this many points are kept in memory (8 bytes each: 64 MiB); past it the memo starts
/// over.
const MAX_KEPT_POINTS: usize = 8 << 20;

/// What a forecast read, hashed.
pub type FitKey = u128;

#[derive(Default)]
struct Memo {
    kept: HashMap<FitKey, Arc<[f64]>>,
    points: usize,
    /// Fitted here since the last drain.
    fresh: HashSet<FitKey>,
}

static MEMO: Mutex<Option<Memo>> = Mutex::new(None);

fn memo() -> MutexGuard<'static, Option<Memo>> {
    // A thread that panicked while holding the lock left a map that is still whole.
    MEMO.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The key of `method` fitted on `history` with seasons of `periods` points.
pub fn fit_key(method: ForecastMethod, history: &[f64], periods: &[usize]) -> FitKey {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&FIT_FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(method.code().as_bytes());
    h.update(&(periods.len() as u64).to_le_bytes());
    for p in periods {
        h.update(&(*p as u64).to_le_bytes());
    }
    h.update(&(history.len() as u64).to_le_bytes());
    for v in history {
        h.update(&v.to_bits().to_le_bytes());
    }
    h.digest128()
}

/// The first `horizon` points of the forecast kept for `key`, when one that long is kept.
pub fn kept(key: FitKey, horizon: usize) -> Option<Vec<f64>> {
    let guard = memo();
    let points = guard.as_ref()?.kept.get(&key)?;
    (points.len() >= horizon).then(|| points[..horizon].to_vec())
}

/// Keeps `points` for `key` (a longer forecast replaces a shorter one); `fresh` marks it for
/// the next drain.
fn insert(key: FitKey, points: &[f64], fresh: bool) {
    let mut guard = memo();
    let memo = guard.get_or_insert_with(Memo::default);
    if memo.kept.get(&key).is_some_and(|p| p.len() >= points.len()) {
        return;
    }
    if memo.points + points.len() > MAX_KEPT_POINTS {
        *memo = Memo::default();
    }
    if let Some(old) = memo.kept.insert(key, Arc::from(points)) {
        memo.points -= old.len();
    }
    memo.points += points.len();
    if fresh {
        memo.fresh.insert(key);
    }
}

/// Keeps a forecast just fitted.
pub fn keep(key: FitKey, points: &[f64]) {
    insert(key, points, true);
}

/// Takes in forecasts kept before (the read cache's, for a reopened log).
pub fn restore(entries: impl IntoIterator<Item = (FitKey, Vec<f64>)>) {
    for (key, points) in entries {
        if points.iter().all(|v| v.is_finite()) {
            insert(key, &points, false);
        }
    }
}

/// The forecasts fitted since the last drain, for the read cache.
pub fn drain_fresh() -> Vec<(FitKey, Arc<[f64]>)> {
    let mut guard = memo();
    let Some(memo) = guard.as_mut() else {
        return Vec::new();
    };
    let fresh: Vec<FitKey> = memo.fresh.drain().collect();
    fresh
        .into_iter()
        .filter_map(|key| memo.kept.get(&key).map(|p| (key, p.clone())))
        .collect()
}
