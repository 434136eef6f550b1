//! A pool's waiting jobs in priority order, and the EASY backfill rule over them.

use std::collections::BTreeMap;

use super::BACKFILL_SCAN_DEPTH;
use crate::model::workload::WorkloadClass;

/// A job waiting for GPUs. Keyed by its position in submit order, so a requeued (preempted) job
/// goes back to its original place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Waiting {
    pub job: u32,
    pub gpus: u32,
    pub class: WorkloadClass,
    pub remaining_ms: i64,
    /// Started before (a preempted burst job): its queue wait was already recorded.
    pub started: bool,
    /// When it leaves for overflow if still waiting.
    pub deadline_ms: Option<i64>,
}

/// The waiting jobs of one pool: inference first (when asked), then everything else, each FIFO.
#[derive(Debug, Default)]
pub(super) struct PoolQueue {
    inference_first: bool,
    inference: BTreeMap<u32, Waiting>,
    main: BTreeMap<u32, Waiting>,
    /// (GPUs asked, jobs waiting with that size), by size: its first says whether anything could
    /// fit. A sorted vector: a pool's queue holds few distinct sizes.
    sizes: Vec<(u32, u32)>,
}

impl PoolQueue {
    pub fn new(inference_first: bool) -> Self {
        PoolQueue {
            inference_first,
            ..PoolQueue::default()
        }
    }

    fn lane(&self, class: WorkloadClass) -> &BTreeMap<u32, Waiting> {
        if self.inference_first && class == WorkloadClass::Inference {
            &self.inference
        } else {
            &self.main
        }
    }

    fn lane_mut(&mut self, class: WorkloadClass) -> &mut BTreeMap<u32, Waiting> {
        if self.inference_first && class == WorkloadClass::Inference {
            &mut self.inference
        } else {
            &mut self.main
        }
    }

    pub fn len(&self) -> usize {
        self.inference.len() + self.main.len()
    }

    /// True when a job of `class` arriving now would be at the head of the priority order.
    pub fn would_be_head(&self, class: WorkloadClass) -> bool {
        if self.inference_first && class == WorkloadClass::Inference {
            self.inference.is_empty()
        } else {
            self.len() == 0
        }
    }

    pub fn push(&mut self, seq: u32, waiting: Waiting) {
        match self.sizes.binary_search_by_key(&waiting.gpus, |&(gpus, _)| gpus) {
            Ok(at) => self.sizes[at].1 += 1,
            Err(at) => self.sizes.insert(at, (waiting.gpus, 1)),
        }
        self.lane_mut(waiting.class).insert(seq, waiting);
    }

    pub fn remove(&mut self, seq: u32, class: WorkloadClass) -> Option<Waiting> {
        let waiting = self.lane_mut(class).remove(&seq)?;
        if let Ok(at) = self.sizes.binary_search_by_key(&waiting.gpus, |&(gpus, _)| gpus) {
            self.sizes[at].1 -= 1;
            if self.sizes[at].1 == 0 {
                self.sizes.remove(at);
            }
        }
        Some(waiting)
    }

    pub fn get(&self, seq: u32, class: WorkloadClass) -> Option<&Waiting> {
        self.lane(class).get(&seq)
    }

    /// Every waiting job in priority order.
    fn ordered(&self) -> impl Iterator<Item = (&u32, &Waiting)> {
        self.inference.iter().chain(self.main.iter())
    }

    pub fn head(&self) -> Option<(u32, Waiting)> {
        self.ordered().next().map(|(&seq, &w)| (seq, w))
    }

    /// Fewest GPUs any waiting job asks for.
    pub fn min_gpus(&self) -> Option<u32> {
        self.sizes.first().map(|&(gpus, _)| gpus)
    }

    /// Priority of a waiting job: lane (inference first when asked), then submit order.
    fn priority(&self, seq: u32, class: WorkloadClass) -> (bool, u32) {
        (!(self.inference_first && class == WorkloadClass::Inference), seq)
    }

    /// Jobs after the head that may start now at `now_ms` with `free_gpus` free, given the head's
    /// `reservation`: each fits now and either ends by the shadow time or uses no more than the
    /// extra GPUs (which it then takes from `reservation`).
    ///
    /// Looked at: the first `BACKFILL_SCAN_DEPTH` waiting jobs after the head when `full`, and the
    /// jobs queued since the last pass (`fresh`), wherever they are. A pass that follows only
    /// arrivals need not look at the others again: nothing that could admit them has changed.
    pub fn backfill_picks(
        &self,
        now_ms: i64,
        free_gpus: u32,
        reservation: &mut Reservation,
        full: bool,
        fresh: &mut [(u32, WorkloadClass)],
        picks: &mut Vec<(u32, Waiting)>,
    ) {
        picks.clear();
        let mut free = free_gpus;
        let Some((head_seq, _)) = self.head() else {
            return;
        };
        // No waiting job asks for fewer GPUs than this: with fewer free, none can be admitted.
        let fewest = self.min_gpus().unwrap_or(0).max(1);
        // Beyond this key the full scan did not look (None: it looked at everything it needed).
        let mut scanned_to = None;
        if full {
            let mut looked = 0;
            for (&seq, w) in self.ordered().skip(1).take(BACKFILL_SCAN_DEPTH) {
                if free < fewest {
                    return;
                }
                looked += 1;
                scanned_to = Some(self.priority(seq, w.class));
                if admit(now_ms, w, &mut free, reservation) {
                    picks.push((seq, *w));
                }
            }
            if looked < BACKFILL_SCAN_DEPTH {
                return;
            }
        }
        fresh.sort_unstable_by_key(|&(seq, class)| self.priority(seq, class));
        let mut last = None;
        for &(seq, class) in fresh.iter() {
            let key = self.priority(seq, class);
            if free < fewest || last == Some(key) || seq == head_seq || scanned_to.is_some_and(|to| key <= to) {
                continue;
            }
            last = Some(key);
            if let Some(w) = self.get(seq, class)
                && admit(now_ms, w, &mut free, reservation)
            {
                picks.push((seq, *w));
            }
        }
    }
}

/// EASY's test for one job: fits now and ends by the shadow time, or fits in the extra GPUs.
fn admit(now_ms: i64, w: &Waiting, free: &mut u32, reservation: &mut Reservation) -> bool {
    if w.gpus > *free {
        return false;
    }
    if now_ms.saturating_add(w.remaining_ms) <= reservation.shadow_ms {
        *free -= w.gpus;
        return true;
    }
    if w.gpus <= reservation.extra_gpus {
        reservation.extra_gpus -= w.gpus;
        *free -= w.gpus;
        return true;
    }
    false
}

/// The head job's reservation under EASY: the earliest time enough GPUs are free for it (from the
/// running jobs' known ends), and how many GPUs beyond its need are free then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Reservation {
    pub shadow_ms: i64,
    pub extra_gpus: u32,
}

/// `running` yields (end, GPUs) in order of end. None when the running jobs can never free enough
/// (cannot happen for a job that fits its pool, but no panic if it does).
pub(super) fn reservation(
    free_gpus: u32,
    need_gpus: u32,
    running: impl Iterator<Item = (i64, u32)>,
) -> Option<Reservation> {
    let mut available = u64::from(free_gpus);
    let need = u64::from(need_gpus);
    let mut shadow_ms = None;
    for (end_ms, gpus) in running {
        match shadow_ms {
            // Jobs ending at the same instant as the shadow also free their GPUs then.
            Some(shadow) if end_ms > shadow => break,
            _ => {}
        }
        available += u64::from(gpus);
        if shadow_ms.is_none() && available >= need {
            shadow_ms = Some(end_ms);
        }
    }
    let shadow_ms = shadow_ms?;
    let extra_gpus = u32::try_from(available - need).unwrap_or(u32::MAX);
    Some(Reservation { shadow_ms, extra_gpus })
}
