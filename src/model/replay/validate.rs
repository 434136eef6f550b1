//! Input checks: every bad input becomes a typed error before the event loop runs.

use super::{MAX_ABS_TIME_MS, ReplayError, ReplayJob, ReplayPolicy, ReplayWindow, Routing, Topology, pool_of};
use crate::model::workload::WorkloadClass;

/// What the event loop needs from the checks.
pub(super) struct Checked {
    /// Job indices in submit order (ties keep input order); None when the input is already sorted.
    pub order: Option<Vec<u32>>,
}

pub(super) fn check(
    jobs: &[ReplayJob],
    topology: &Topology,
    policy: &ReplayPolicy,
    window: ReplayWindow,
) -> Result<Checked, ReplayError> {
    if window.end_ms <= window.start_ms {
        return Err(ReplayError::EmptyWindow {
            start_ms: window.start_ms,
            end_ms: window.end_ms,
        });
    }
    check_policy(policy)?;
    check_topology(topology)?;
    if u32::try_from(jobs.len()).is_err() {
        return Err(ReplayError::TooManyJobs { count: jobs.len() });
    }
    let mut jobs_per_pool = vec![0u64; topology.pools.len()];
    let mut sorted = true;
    let mut last_submit_ms = i64::MIN;
    for job in jobs {
        if job.gpus == 0 {
            return Err(ReplayError::ZeroGpuJob { job_id: job.id });
        }
        let in_range = |ms: i64| (-MAX_ABS_TIME_MS..=MAX_ABS_TIME_MS).contains(&ms);
        if job.duration_ms < 0 || !in_range(job.duration_ms) || !in_range(job.submit_ms) {
            return Err(ReplayError::InvalidJobTime { job_id: job.id });
        }
        let pool = pool_of(topology.routing, job);
        match jobs_per_pool.get_mut(pool) {
            Some(count) => *count += 1,
            None => {
                return Err(ReplayError::HomeOutOfRange {
                    job_id: job.id,
                    home: job.home,
                });
            }
        }
        sorted &= job.submit_ms >= last_submit_ms;
        last_submit_ms = job.submit_ms;
    }
    for (pool, count) in topology.pools.iter().zip(&jobs_per_pool) {
        if pool.gpus == 0 && pool.overflow.is_none() && *count > 0 {
            return Err(ReplayError::ZeroGpuPool {
                pool: pool.name.clone(),
            });
        }
    }
    let order = if sorted {
        None
    } else {
        // Indices fit u32 (checked above); a stable sort keeps input order among equal submits.
        let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
        order.sort_by_key(|&i| jobs.get(i as usize).map_or(i64::MAX, |j| j.submit_ms));
        Some(order)
    };
    Ok(Checked { order })
}

fn check_policy(policy: &ReplayPolicy) -> Result<(), ReplayError> {
    if policy.preempt_burst_for_inference && !policy.inference_first {
        return Err(ReplayError::InvalidPolicy {
            reason: "burst preemption for inference needs inference_first",
        });
    }
    if policy.preempt_burst_for_inference && policy.checkpoint_interval_ms <= 0 {
        return Err(ReplayError::InvalidPolicy {
            reason: "the checkpoint interval must be above zero to preempt",
        });
    }
    if policy.inference_start_slo_ms < 0 {
        return Err(ReplayError::InvalidPolicy {
            reason: "the inference start SLO must not be negative",
        });
    }
    if policy
        .overflow_after_wait_ms
        .is_some_and(|ms| !(0..=super::MAX_ABS_TIME_MS).contains(&ms))
    {
        return Err(ReplayError::InvalidPolicy {
            reason: "the overflow wait must be between zero and 2^53 ms",
        });
    }
    Ok(())
}

fn check_topology(topology: &Topology) -> Result<(), ReplayError> {
    if topology.pools.is_empty() {
        return Err(ReplayError::NoPools);
    }
    let price_ok = |usd: f64| usd.is_finite() && usd >= 0.0;
    for pool in &topology.pools {
        let overflow_ok = pool.overflow.as_ref().is_none_or(|o| price_ok(o.usd_per_gpu_hour));
        if !price_ok(pool.usd_per_gpu_hour) || !overflow_ok {
            return Err(ReplayError::InvalidPrice {
                pool: pool.name.clone(),
            });
        }
    }
    if let Routing::ByClass {
        training,
        inference,
        burst,
    } = topology.routing
    {
        let targets = [
            (WorkloadClass::Training, training),
            (WorkloadClass::Inference, inference),
            (WorkloadClass::Burst, burst),
        ];
        for (class, pool_index) in targets {
            if pool_index >= topology.pools.len() {
                return Err(ReplayError::RoutingOutOfRange { class, pool_index });
            }
        }
    }
    Ok(())
}
