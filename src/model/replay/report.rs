//! Turns the event loop's accumulators into the outcome: per class in each pool, per pool, per
//! class across the topology, and totals. Integer GPU-milliseconds become hours once, here.

use super::engine::EngineState;
use super::metrics::{ClassAcc, bucket_means, gpu_hours, summarize_waits, to_u64};
use super::outcome::{ClassOutcome, PoolOutcome, QueueSeries, ReplayOutcome, TopologyTotals};
use super::{HOURS_PER_MONTH, ReplayWindow, Topology};
use crate::model::workload::WorkloadClass;

pub(super) fn build(mut state: EngineState, topology: &Topology, window: ReplayWindow) -> ReplayOutcome {
    let window_hours = window.hours();
    let mut pools = Vec::with_capacity(topology.pools.len());
    for (p, pool) in topology.pools.iter().enumerate() {
        let overflow_price = pool.overflow.as_ref().map_or(0.0, |o| o.usd_per_gpu_hour);
        let accs = &mut state.accs[p * 3..p * 3 + 3];
        let classes: Vec<ClassOutcome> = WorkloadClass::ALL
            .into_iter()
            .zip(accs.iter_mut())
            .map(|(class, acc)| {
                let overflow_usd = gpu_hours(acc.overflow_gpu_ms) * overflow_price;
                let max_len = acc.max_queue_len;
                class_outcome(class, acc, overflow_usd, max_len, state.inference_slo_ms, window)
            })
            .collect();
        let mut merged = ClassAcc::new(window);
        for acc in accs.iter() {
            merge(&mut merged, acc);
        }
        let wait = summarize_waits(&mut merged.waits_ms, None);
        let committed_gpu_hours = f64::from(pool.gpus) * window_hours;
        let busy = gpu_hours(merged.run_gpu_ms_in_window);
        let overflow_in_window = gpu_hours(merged.overflow_gpu_ms_in_window);
        let committed_usd_per_month = f64::from(pool.gpus) * pool.usd_per_gpu_hour * HOURS_PER_MONTH;
        let overflow_usd_per_month = overflow_in_window * overflow_price * HOURS_PER_MONTH / window_hours;
        pools.push(PoolOutcome {
            name: pool.name.clone(),
            gpus: pool.gpus,
            overflow_label: pool.overflow.as_ref().map(|o| o.label.clone()),
            jobs: merged.jobs,
            jobs_started: merged.waits_ms.len() as u64,
            jobs_on_overflow: merged.jobs_on_overflow,
            jobs_never_started: merged.jobs_never_started,
            wait,
            max_queue_len: state.pool_max_queue_len.get(p).copied().unwrap_or(0),
            mean_waiting_jobs: mean_waiting(&merged, window),
            arrivals_in_window: merged.arrivals_in_window,
            arrivals_per_hour: merged.arrivals_in_window as f64 / window_hours,
            gpu_ms_run: to_u64(merged.run_gpu_ms),
            gpu_hours_run: gpu_hours(merged.run_gpu_ms),
            allocated_gpu_hours_in_window: busy,
            committed_gpu_hours,
            allocated_frac: (pool.gpus > 0).then(|| busy / committed_gpu_hours),
            never_allocated_gpu_hours: (committed_gpu_hours - busy).max(0.0),
            overflow_gpu_ms: to_u64(merged.overflow_gpu_ms),
            overflow_gpu_hours: gpu_hours(merged.overflow_gpu_ms),
            overflow_gpu_hours_in_window: overflow_in_window,
            overflow_usd: gpu_hours(merged.overflow_gpu_ms) * overflow_price,
            committed_usd_per_month,
            overflow_usd_per_month,
            total_usd_per_month: committed_usd_per_month + overflow_usd_per_month,
            preemptions: merged.preemptions,
            redone_gpu_hours: gpu_hours(merged.redone_gpu_ms),
            classes,
        });
    }
    let classes = topology_classes(&mut state, &pools, window);
    let totals = totals(&pools, window_hours);
    ReplayOutcome {
        window_start_ms: window.start_ms,
        window_end_ms: window.end_ms,
        window_hours,
        pools,
        classes,
        totals,
        never_started: state.never_started,
    }
}

/// Per class across the topology: the pools' accumulators merged (overflow cost summed per pool,
/// since prices differ).
fn topology_classes(state: &mut EngineState, pools: &[PoolOutcome], window: ReplayWindow) -> Vec<ClassOutcome> {
    let pool_count = pools.len();
    WorkloadClass::ALL
        .into_iter()
        .enumerate()
        .map(|(ci, class)| {
            let mut merged = ClassAcc::new(window);
            for p in 0..pool_count {
                merge(&mut merged, &state.accs[p * 3 + ci]);
            }
            let overflow_usd = pools.iter().map(|pool| pool.classes[ci].overflow_usd).sum();
            let max_len = state.class_max_queue_len[ci];
            class_outcome(
                class,
                &mut merged,
                overflow_usd,
                max_len,
                state.inference_slo_ms,
                window,
            )
        })
        .collect()
}

fn merge(into: &mut ClassAcc, from: &ClassAcc) {
    into.jobs += from.jobs;
    into.jobs_on_overflow += from.jobs_on_overflow;
    into.jobs_never_started += from.jobs_never_started;
    into.jobs_submit_is_start += from.jobs_submit_is_start;
    into.arrivals_in_window += from.arrivals_in_window;
    into.waits_ms.extend_from_slice(&from.waits_ms);
    into.max_queue_len = into.max_queue_len.max(from.max_queue_len);
    into.waiting.add(&from.waiting);
    into.run_gpu_ms += from.run_gpu_ms;
    into.run_gpu_ms_in_window += from.run_gpu_ms_in_window;
    into.overflow_gpu_ms += from.overflow_gpu_ms;
    into.overflow_gpu_ms_in_window += from.overflow_gpu_ms_in_window;
    into.preemptions += from.preemptions;
    into.redone_gpu_ms += from.redone_gpu_ms;
}

fn mean_waiting(acc: &ClassAcc, window: ReplayWindow) -> f64 {
    acc.waiting.total_job_ms() as f64 / window.len_ms() as f64
}

fn class_outcome(
    class: WorkloadClass,
    acc: &mut ClassAcc,
    overflow_usd: f64,
    max_queue_len: u64,
    inference_slo_ms: i64,
    window: ReplayWindow,
) -> ClassOutcome {
    let slo_ms = (class == WorkloadClass::Inference).then_some(inference_slo_ms);
    let window_hours = window.hours();
    ClassOutcome {
        class,
        jobs: acc.jobs,
        jobs_started: acc.waits_ms.len() as u64,
        jobs_on_overflow: acc.jobs_on_overflow,
        jobs_never_started: acc.jobs_never_started,
        jobs_submit_is_start: acc.jobs_submit_is_start,
        wait: summarize_waits(&mut acc.waits_ms, slo_ms),
        max_queue_len,
        mean_waiting_jobs: mean_waiting(acc, window),
        arrivals_in_window: acc.arrivals_in_window,
        arrivals_per_hour: acc.arrivals_in_window as f64 / window_hours,
        gpu_ms_run: to_u64(acc.run_gpu_ms),
        gpu_hours_run: gpu_hours(acc.run_gpu_ms),
        allocated_gpu_hours_in_window: gpu_hours(acc.run_gpu_ms_in_window),
        overflow_gpu_ms: to_u64(acc.overflow_gpu_ms),
        overflow_gpu_hours: gpu_hours(acc.overflow_gpu_ms),
        overflow_gpu_hours_in_window: gpu_hours(acc.overflow_gpu_ms_in_window),
        overflow_usd,
        preemptions: acc.preemptions,
        redone_gpu_hours: gpu_hours(acc.redone_gpu_ms),
        queue_series: QueueSeries {
            window_start_ms: window.start_ms,
            window_end_ms: window.end_ms,
            mean_waiting_jobs: bucket_means(window, acc.waiting.bucket_job_ms()),
        },
    }
}

fn totals(pools: &[PoolOutcome], window_hours: f64) -> TopologyTotals {
    let sum_u64 = |f: fn(&PoolOutcome) -> u64| pools.iter().map(f).fold(0u64, u64::saturating_add);
    let sum_f64 = |f: fn(&PoolOutcome) -> f64| pools.iter().map(f).sum::<f64>();
    let gpus = pools.iter().map(|p| u64::from(p.gpus)).sum::<u64>();
    let committed_gpu_hours = gpus as f64 * window_hours;
    let busy = sum_f64(|p| p.allocated_gpu_hours_in_window);
    let gpu_ms_run = sum_u64(|p| p.gpu_ms_run);
    let overflow_gpu_ms = sum_u64(|p| p.overflow_gpu_ms);
    let committed_usd_per_month = sum_f64(|p| p.committed_usd_per_month);
    let overflow_usd_per_month = sum_f64(|p| p.overflow_usd_per_month);
    TopologyTotals {
        gpus,
        jobs: sum_u64(|p| p.jobs),
        jobs_started: sum_u64(|p| p.jobs_started),
        jobs_on_overflow: sum_u64(|p| p.jobs_on_overflow),
        jobs_never_started: sum_u64(|p| p.jobs_never_started),
        gpu_ms_run,
        gpu_hours_run: gpu_ms_run as f64 / super::MS_PER_HOUR,
        allocated_gpu_hours_in_window: busy,
        committed_gpu_hours,
        allocated_frac: (gpus > 0).then(|| busy / committed_gpu_hours),
        never_allocated_gpu_hours: sum_f64(|p| p.never_allocated_gpu_hours),
        overflow_gpu_ms,
        overflow_gpu_hours: overflow_gpu_ms as f64 / super::MS_PER_HOUR,
        overflow_usd: sum_f64(|p| p.overflow_usd),
        committed_usd_per_month,
        overflow_usd_per_month,
        total_usd_per_month: committed_usd_per_month + overflow_usd_per_month,
        preemptions: sum_u64(|p| p.preemptions),
        redone_gpu_hours: sum_f64(|p| p.redone_gpu_hours),
    }
}
