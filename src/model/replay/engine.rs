//! The event loop: arrivals in submit order, a binary heap of completions, a queue of overflow
//! deadlines; each pool scheduled after the events at an instant. Memory follows the jobs, not
//! the window.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use super::metrics::ClassAcc;
use super::outcome::{JobRun, NeverStarted};
use super::queue::{PoolQueue, Reservation, Waiting, reservation};
use super::validate::Checked;
use super::{ReplayJob, ReplayPolicy, ReplayWindow, Routing, Topology, class_index, pool_of};
use crate::model::workload::WorkloadClass;

/// What the loop hands to the report.
pub(super) struct EngineState {
    /// Indexed `pool * 3 + class_index`.
    pub accs: Vec<ClassAcc>,
    pub pool_max_queue_len: Vec<u64>,
    pub class_max_queue_len: [u64; 3],
    pub never_started: Vec<NeverStarted>,
    pub inference_slo_ms: i64,
    /// Every run segment, when asked for.
    pub runs: Option<Vec<JobRun>>,
}

/// A job holding GPUs in a pool.
#[derive(Debug, Clone, Copy)]
struct Running {
    seq: u32,
    job: u32,
    pool: u32,
    gpus: u32,
    class: WorkloadClass,
    start_ms: i64,
    remaining_ms: i64,
    /// Bumped when the slot is freed, so stale completion events are skipped.
    generation: u32,
}

#[derive(Default)]
struct PoolState {
    gpus: u32,
    free_gpus: u32,
    has_overflow: bool,
    queue: PoolQueue,
    /// (end, slot): the running jobs in order of end, for the head's EASY reservation.
    running_by_end: BTreeSet<(i64, u32)>,
    /// Burst jobs may be preempted here: the policy asks for it and inference jobs come to this
    /// pool. Elsewhere no inference head ever looks for them, and they are not kept.
    preempts: bool,
    /// (start, slot): running burst jobs, newest started last, for preemption.
    running_bursts: BTreeSet<(i64, u32)>,
    running_burst_gpus: u64,
    dirty: bool,
    /// The head's EASY reservation, keyed by the head's seq. Still right after completions (a job
    /// ending at its known end frees what the reservation counted on) and after backfill starts
    /// (which keep to it); any other start or a preemption drops it.
    reservation: Option<(u32, Reservation)>,
    /// Something may have loosened backfill (GPUs freed, a job left the queue) since the last pass.
    scan_stale: bool,
    /// Jobs queued since the last backfill pass.
    fresh: Vec<(u32, WorkloadClass)>,
}

struct Engine<'a> {
    jobs: &'a [ReplayJob],
    policy: &'a ReplayPolicy,
    window: ReplayWindow,
    pools: Vec<PoolState>,
    slots: Vec<Running>,
    free_slots: Vec<u32>,
    /// (end, slot, generation), packed by `completion_key` so the heap compares one integer.
    completions: BinaryHeap<Reverse<u128>>,
    /// (deadline, seq, pool, job): a waiting job leaves for overflow at its deadline. Every
    /// deadline is its queueing instant plus one fixed wait, so they come in order of time and a
    /// queue holds them; those due at an instant are sorted (`expiring`) before they are applied.
    deadlines: VecDeque<(i64, u32, u32, u32)>,
    expiring: Vec<(i64, u32, u32, u32)>,
    dirty: Vec<usize>,
    picks: Vec<(u32, Waiting)>,
    class_waiting: [u64; 3],
    state: EngineState,
}

pub(super) fn run(
    jobs: &[ReplayJob],
    topology: &Topology,
    policy: &ReplayPolicy,
    window: ReplayWindow,
    checked: &Checked,
    trace: bool,
) -> EngineState {
    let pools = topology
        .pools
        .iter()
        .enumerate()
        .map(|(index, pool)| PoolState {
            preempts: policy.preempt_burst_for_inference && receives_inference(topology.routing, index),
            gpus: pool.gpus,
            free_gpus: pool.gpus,
            has_overflow: pool.overflow.is_some(),
            queue: PoolQueue::new(policy.inference_first),
            scan_stale: true,
            ..PoolState::default()
        })
        .collect::<Vec<_>>();
    let mut engine = Engine {
        jobs,
        policy,
        window,
        slots: Vec::new(),
        free_slots: Vec::new(),
        completions: BinaryHeap::new(),
        deadlines: VecDeque::new(),
        expiring: Vec::new(),
        dirty: Vec::new(),
        picks: Vec::new(),
        class_waiting: [0; 3],
        state: EngineState {
            accs: (0..pools.len() * 3).map(|_| ClassAcc::new(window)).collect(),
            pool_max_queue_len: vec![0; pools.len()],
            class_max_queue_len: [0; 3],
            never_started: Vec::new(),
            inference_slo_ms: policy.inference_start_slo_ms,
            runs: trace.then(Vec::new),
        },
        pools,
    };
    let job_at = |seq: usize| {
        checked
            .order
            .as_ref()
            .map_or(Some(seq), |o| o.get(seq).map(|&i| i as usize))
    };
    let mut next_seq = 0usize;
    loop {
        let next_arrival = job_at(next_seq).and_then(|i| jobs.get(i)).map(|j| j.submit_ms);
        let next_end = engine.completions.peek().map(|&Reverse(key)| completion_of(key).0);
        let next_deadline = engine.deadlines.front().map(|&(t, _, _, _)| t);
        let Some(now_ms) = [next_arrival, next_end, next_deadline].into_iter().flatten().min() else {
            break;
        };
        // Completions first: GPUs freed at an instant are usable by jobs arriving at it.
        while let Some(&Reverse(key)) = engine.completions.peek() {
            let (end_ms, slot, generation) = completion_of(key);
            if end_ms > now_ms {
                break;
            }
            engine.completions.pop();
            engine.finish(slot, generation, now_ms);
        }
        while let Some(index) = job_at(next_seq) {
            match jobs.get(index) {
                Some(job) if job.submit_ms <= now_ms => {
                    engine.arrive(next_seq as u32, index as u32, topology, now_ms);
                    next_seq += 1;
                }
                _ => break,
            }
        }
        engine.schedule_dirty(now_ms);
        // Deadlines after scheduling: a job that can start at its deadline instant starts here.
        // In (deadline, seq, pool, job) order, as a heap of them would give.
        let mut expiring = std::mem::take(&mut engine.expiring);
        expiring.clear();
        while engine.deadlines.front().is_some_and(|d| d.0 <= now_ms) {
            expiring.extend(engine.deadlines.pop_front());
        }
        expiring.sort_unstable();
        let mut expired = false;
        for &(deadline_ms, seq, pool, job) in &expiring {
            expired |= engine.expire(seq, pool as usize, job, deadline_ms, now_ms);
        }
        engine.expiring = expiring;
        if expired {
            engine.schedule_dirty(now_ms);
        }
    }
    for acc in &mut engine.state.accs {
        acc.waiting.finish(window);
    }
    engine.state
}

/// (end, slot, generation) as one integer in the same order: the end's sign bit flipped so that
/// negative times sort first.
fn completion_key(end_ms: i64, slot: u32, generation: u32) -> u128 {
    let end = (end_ms as u64) ^ (1 << 63);
    (u128::from(end) << 64) | (u128::from(slot) << 32) | u128::from(generation)
}

fn completion_of(key: u128) -> (i64, u32, u32) {
    let end_ms = ((key >> 64) as u64 ^ (1 << 63)) as i64;
    (end_ms, (key >> 32) as u32, key as u32)
}

/// Whether inference jobs may be routed to pool `index`.
fn receives_inference(routing: Routing, index: usize) -> bool {
    match routing {
        Routing::Home => true,
        Routing::ByClass { inference, .. } => inference == index,
    }
}

impl Engine<'_> {
    fn acc(&mut self, pool: usize, class: WorkloadClass) -> &mut ClassAcc {
        &mut self.state.accs[pool * 3 + class_index(class)]
    }

    fn mark_dirty(&mut self, pool: usize) {
        if !self.pools[pool].dirty {
            self.pools[pool].dirty = true;
            self.dirty.push(pool);
        }
    }

    fn arrive(&mut self, seq: u32, index: u32, topology: &Topology, now_ms: i64) {
        let job = self.jobs[index as usize];
        let pool = pool_of(topology.routing, &job);
        let window = self.window;
        let acc = self.acc(pool, job.class);
        acc.jobs += 1;
        acc.arrivals_in_window += u64::from((window.start_ms..window.end_ms).contains(&job.submit_ms));
        acc.jobs_submit_is_start += u64::from(job.submit_is_start);
        let waiting = Waiting {
            job: index,
            gpus: job.gpus,
            class: job.class,
            remaining_ms: job.duration_ms,
            started: false,
            deadline_ms: None,
        };
        let state = &self.pools[pool];
        if job.gpus > state.gpus {
            if state.has_overflow {
                self.record_wait(pool, waiting, now_ms);
                self.run_on_overflow(pool, waiting, now_ms);
            } else {
                self.acc(pool, job.class).jobs_never_started += 1;
                self.state.never_started.push(NeverStarted {
                    id: job.id,
                    class: job.class,
                    gpus: job.gpus,
                    pool,
                });
            }
            return;
        }
        if state.queue.would_be_head(job.class) && job.gpus <= state.free_gpus {
            self.start(pool, seq, waiting, now_ms);
        } else {
            self.enqueue(pool, seq, waiting, now_ms);
        }
    }

    fn enqueue(&mut self, pool: usize, seq: u32, mut waiting: Waiting, now_ms: i64) {
        if self.pools[pool].has_overflow
            && let Some(after_ms) = self.policy.overflow_after_wait_ms
        {
            let deadline_ms = now_ms.saturating_add(after_ms);
            waiting.deadline_ms = Some(deadline_ms);
            debug_assert!(self.deadlines.back().is_none_or(|d| d.0 <= deadline_ms));
            self.deadlines.push_back((deadline_ms, seq, pool as u32, waiting.job));
        }
        self.pools[pool].queue.push(seq, waiting);
        if self.policy.backfill {
            self.pools[pool].fresh.push((seq, waiting.class));
        }
        self.queue_changed(pool, waiting.class, now_ms, true);
        self.mark_dirty(pool);
    }

    /// Keeps queue lengths, their maxima and their time integrals after a push or a removal.
    fn queue_changed(&mut self, pool: usize, class: WorkloadClass, now_ms: i64, pushed: bool) {
        let window = self.window;
        let acc = self.acc(pool, class);
        let count = if pushed {
            acc.waiting.count() + 1
        } else {
            acc.waiting.count().saturating_sub(1)
        };
        acc.waiting.set(now_ms, count, window);
        acc.max_queue_len = acc.max_queue_len.max(count);
        let ci = class_index(class);
        let class_count = &mut self.class_waiting[ci];
        *class_count = if pushed {
            *class_count + 1
        } else {
            class_count.saturating_sub(1)
        };
        self.state.class_max_queue_len[ci] = self.state.class_max_queue_len[ci].max(*class_count);
        let pool_len = self.pools[pool].queue.len() as u64;
        self.state.pool_max_queue_len[pool] = self.state.pool_max_queue_len[pool].max(pool_len);
    }

    fn record_wait(&mut self, pool: usize, waiting: Waiting, now_ms: i64) {
        if waiting.started {
            return;
        }
        let submit_ms = self.jobs[waiting.job as usize].submit_ms;
        self.acc(pool, waiting.class).waits_ms.push(now_ms - submit_ms);
    }

    fn run_on_overflow(&mut self, pool: usize, waiting: Waiting, now_ms: i64) {
        let window = self.window;
        let end_ms = now_ms.saturating_add(waiting.remaining_ms);
        let gpus = i128::from(waiting.gpus);
        let acc = self.acc(pool, waiting.class);
        acc.jobs_on_overflow += 1;
        acc.overflow_gpu_ms += gpus * i128::from(waiting.remaining_ms);
        acc.overflow_gpu_ms_in_window += gpus * i128::from(window.overlap_ms(now_ms, end_ms));
        let id = self.jobs[waiting.job as usize].id;
        if let Some(runs) = &mut self.state.runs {
            runs.push(JobRun {
                id,
                pool,
                start_ms: now_ms,
                end_ms,
                on_overflow: true,
                preempted: false,
            });
        }
    }

    fn start(&mut self, pool: usize, seq: u32, waiting: Waiting, now_ms: i64) {
        self.record_wait(pool, waiting, now_ms);
        let running = Running {
            seq,
            job: waiting.job,
            pool: pool as u32,
            gpus: waiting.gpus,
            class: waiting.class,
            start_ms: now_ms,
            remaining_ms: waiting.remaining_ms,
            generation: 0,
        };
        let slot = match self.free_slots.pop() {
            Some(slot) => {
                let generation = self.slots[slot as usize].generation;
                self.slots[slot as usize] = Running { generation, ..running };
                slot
            }
            None => {
                self.slots.push(running);
                (self.slots.len() - 1) as u32
            }
        };
        let generation = self.slots[slot as usize].generation;
        let end_ms = now_ms.saturating_add(waiting.remaining_ms);
        self.completions.push(Reverse(completion_key(end_ms, slot, generation)));
        let state = &mut self.pools[pool];
        state.free_gpus -= waiting.gpus;
        state.reservation = None;
        if self.policy.backfill {
            state.running_by_end.insert((end_ms, slot));
        }
        if state.preempts && waiting.class == WorkloadClass::Burst {
            state.running_bursts.insert((now_ms, slot));
            state.running_burst_gpus += u64::from(waiting.gpus);
        }
    }

    /// Frees a slot's GPUs at `now_ms` and books the GPU time it held.
    fn release(&mut self, slot: u32, now_ms: i64) -> Running {
        let running = self.slots[slot as usize];
        self.slots[slot as usize].generation = running.generation.wrapping_add(1);
        self.free_slots.push(slot);
        let pool = running.pool as usize;
        let state = &mut self.pools[pool];
        state.free_gpus += running.gpus;
        state.scan_stale = true;
        let end_ms = running.start_ms.saturating_add(running.remaining_ms);
        state.running_by_end.remove(&(end_ms, slot));
        if state.preempts && state.running_bursts.remove(&(running.start_ms, slot)) {
            state.running_burst_gpus -= u64::from(running.gpus);
        }
        let window = self.window;
        let gpus = i128::from(running.gpus);
        let acc = self.acc(pool, running.class);
        acc.run_gpu_ms += gpus * i128::from(now_ms - running.start_ms);
        acc.run_gpu_ms_in_window += gpus * i128::from(window.overlap_ms(running.start_ms, now_ms));
        self.mark_dirty(pool);
        let id = self.jobs[running.job as usize].id;
        if let Some(runs) = &mut self.state.runs {
            let preempted = now_ms < end_ms;
            runs.push(JobRun {
                id,
                pool,
                start_ms: running.start_ms,
                end_ms: now_ms,
                on_overflow: false,
                preempted,
            });
        }
        running
    }

    fn finish(&mut self, slot: u32, generation: u32, now_ms: i64) {
        if self
            .slots
            .get(slot as usize)
            .is_some_and(|r| r.generation == generation)
        {
            self.release(slot, now_ms);
        }
    }

    /// Stops a running burst job; it keeps the work up to its last checkpoint and waits again.
    fn preempt(&mut self, slot: u32, now_ms: i64) {
        let running = self.release(slot, now_ms);
        let pool = running.pool as usize;
        // GPUs came back before the end the reservation counted on.
        self.pools[pool].reservation = None;
        let elapsed_ms = now_ms - running.start_ms;
        let lost_ms = elapsed_ms % self.policy.checkpoint_interval_ms.max(1);
        let acc = self.acc(pool, running.class);
        acc.preemptions += 1;
        acc.redone_gpu_ms += i128::from(running.gpus) * i128::from(lost_ms);
        let waiting = Waiting {
            job: running.job,
            gpus: running.gpus,
            class: running.class,
            remaining_ms: running.remaining_ms - (elapsed_ms - lost_ms),
            started: true,
            deadline_ms: None,
        };
        self.enqueue(pool, running.seq, waiting, now_ms);
    }

    /// A waiting job whose overflow deadline came: it runs on overflow now. False if it had
    /// already left the queue (started, or a later requeue with another deadline).
    fn expire(&mut self, seq: u32, pool: usize, job: u32, deadline_ms: i64, now_ms: i64) -> bool {
        let class = self.jobs[job as usize].class;
        let queue = &mut self.pools[pool].queue;
        if queue.get(seq, class).is_none_or(|w| w.deadline_ms != Some(deadline_ms)) {
            return false;
        }
        let Some(waiting) = queue.remove(seq, class) else {
            return false;
        };
        self.queue_changed(pool, class, now_ms, false);
        self.record_wait(pool, waiting, now_ms);
        self.run_on_overflow(pool, waiting, now_ms);
        self.pools[pool].scan_stale = true;
        self.mark_dirty(pool);
        true
    }

    fn schedule_dirty(&mut self, now_ms: i64) {
        while let Some(pool) = self.dirty.pop() {
            // The flag stays up while the pool is scheduled: a preemption inside the pass needs
            // no second pass, the pass itself goes on.
            self.schedule(pool, now_ms);
            self.pools[pool].dirty = false;
        }
    }

    /// FIFO in priority order, preemption for an inference head, then EASY backfill.
    fn schedule(&mut self, pool: usize, now_ms: i64) {
        loop {
            let state = &self.pools[pool];
            let Some((seq, head)) = state.queue.head() else {
                return;
            };
            if head.gpus <= state.free_gpus {
                self.take_and_start(pool, seq, head.class, now_ms);
                continue;
            }
            let preemptible = u64::from(state.free_gpus) + state.running_burst_gpus;
            if self.policy.preempt_burst_for_inference
                && head.class == WorkloadClass::Inference
                && preemptible >= u64::from(head.gpus)
            {
                while self.pools[pool].free_gpus < head.gpus {
                    let Some(&(_, slot)) = self.pools[pool].running_bursts.last() else {
                        break;
                    };
                    self.preempt(slot, now_ms);
                }
                if self.pools[pool].free_gpus >= head.gpus {
                    continue;
                }
            }
            break;
        }
        if self.policy.backfill {
            self.backfill(pool, now_ms);
        }
    }

    fn take_and_start(&mut self, pool: usize, seq: u32, class: WorkloadClass, now_ms: i64) {
        if let Some(waiting) = self.pools[pool].queue.remove(seq, class) {
            self.queue_changed(pool, class, now_ms, false);
            self.start(pool, seq, waiting, now_ms);
        }
    }

    fn backfill(&mut self, pool: usize, now_ms: i64) {
        let state = &mut self.pools[pool];
        let free_gpus = state.free_gpus;
        let mut fresh = std::mem::take(&mut state.fresh);
        let full = std::mem::replace(&mut state.scan_stale, false);
        let mut picks = std::mem::take(&mut self.picks);
        picks.clear();
        if let Some((head_seq, head)) = state.queue.head()
            && free_gpus > 0
            && state.queue.min_gpus().is_some_and(|min| min <= free_gpus)
        {
            let cached = state.reservation.filter(|&(seq, _)| seq == head_seq).map(|(_, r)| r);
            let (mut reserved, full) = match cached {
                Some(r) => (Some(r), full),
                None => {
                    let slots = &self.slots;
                    let running = state
                        .running_by_end
                        .iter()
                        .map(|&(end_ms, slot)| (end_ms, slots[slot as usize].gpus));
                    // A new reservation: every candidate is looked at again.
                    (reservation(free_gpus, head.gpus, running), true)
                }
            };
            if let Some(r) = &mut reserved {
                state
                    .queue
                    .backfill_picks(now_ms, free_gpus, r, full, &mut fresh, &mut picks);
            }
            for &(seq, waiting) in &picks {
                self.take_and_start(pool, seq, waiting.class, now_ms);
            }
            self.pools[pool].reservation = reserved.map(|r| (head_seq, r));
        }
        fresh.clear();
        self.pools[pool].fresh = fresh;
        self.picks = picks;
    }
}

#[cfg(test)]
mod tests {
    use super::{completion_key, completion_of};

    #[test]
    fn packed_completions_sort_as_their_tuples_and_unpack_whole() {
        let mut tuples = Vec::new();
        for end_ms in [i64::MIN / 2, -3_600_000, -1, 0, 1, 59_999, 1 << 53] {
            for slot in [0, 1, 7, u32::MAX] {
                for generation in [0, 2, u32::MAX] {
                    tuples.push((end_ms, slot, generation));
                }
            }
        }
        let mut by_key = tuples.clone();
        by_key.sort_by_key(|&(e, s, g)| completion_key(e, s, g));
        tuples.sort();
        assert_eq!(by_key, tuples);
        for &(e, s, g) in &tuples {
            assert_eq!(completion_of(completion_key(e, s, g)), (e, s, g));
        }
    }
}
