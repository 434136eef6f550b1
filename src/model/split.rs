//! The two fleets a replay compares (seed 001's argument, tested on the user's jobs): today's
//! clusters at their capacities, each job where it ran, against a proposed split into a
//! training pool, an inference fleet and a burst pool, each on its matched terms with the
//! shorter-term tier above its base as overflow.
//!
//! The engine counts whole units; logs carry fractional GPUs (shared GPUs, MIG slices), so
//! pools and jobs are given in thousandths of a GPU and outcomes are turned back into GPUs.

use serde::Serialize;

use super::contracts::{MixRole, MixRow};
use super::fleet::AuditReport;
use super::fleet_contracts::{ContractsReport, TodayPriceGroup, class_demand};
use super::plan::{Plan, ReplayPlan};
use super::replay::{
    ClassOutcome, Overflow, Pool, ReplayError, ReplayJob, ReplayOutcome, ReplayPolicy, ReplayWindow, Routing, Topology,
    replay,
};
use super::workload::WorkloadClass;

/// Replay units per GPU: a job of 0.25 GPUs holds 250.
pub const UNITS_PER_GPU: f64 = 1000.0;
const MS_PER_MINUTE: f64 = 60_000.0;

/// GPUs as replay units, rounded up so a job never shrinks (at least one unit).
pub fn gpu_units(gpus: f64) -> u32 {
    (gpus * UNITS_PER_GPU).ceil().clamp(1.0, f64::from(u32::MAX)) as u32
}

/// One pool of the split, and where its size and prices came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolChoice {
    pub class: WorkloadClass,
    pub gpus: f64,
    pub usd_per_gpu_hour: f64,
    /// `plan` ([replay]) or what the contract matcher chose.
    pub source: String,
    /// The shorter-term tier above the base, when the matcher put one there.
    pub overflow_label: Option<String>,
    pub overflow_usd_per_gpu_hour: Option<f64>,
    /// The size that holds the class's largest gang, when `gpus` cannot: the replay tries
    /// both and keeps the cheaper (`GangSizing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gang_gpus: Option<f64>,
}

/// The training pool at its term-mix base and at the size that holds its largest gang, each
/// replayed: the split keeps the one that leaves fewer jobs unstarted, then the cheaper.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GangSizing {
    pub class: WorkloadClass,
    pub base_gpus: f64,
    pub gang_gpus: f64,
    pub base_usd_per_month: f64,
    pub gang_usd_per_month: f64,
    /// Share of the class's GPU-hours (pool and overflow) run on overflow with each size.
    pub base_overflow_frac: f64,
    pub gang_overflow_frac: f64,
    /// True when the pool that holds the gang was kept.
    pub gang_kept: bool,
}

/// A pool's committed GPUs and prices, in today's GPUs: the term-mix step's groups (one per
/// accelerator the class ran on) carried back from delivered capability to GPUs of their
/// clusters.
struct PoolTerms {
    gpus: f64,
    usd_per_gpu_hour: Option<f64>,
    source: Option<String>,
    overflow_label: Option<String>,
    overflow_usd_per_gpu_hour: Option<f64>,
}

fn pool_terms(groups: &[TodayPriceGroup]) -> PoolTerms {
    let mut gpus = 0.0;
    let mut committed_usd_per_hour = 0.0;
    let mut overflow_gpus = 0.0;
    let mut overflow_usd_per_hour = 0.0;
    let mut source = None;
    let mut overflow_label = None;
    for group in groups {
        let share = group.delivered_frac.max(f64::MIN_POSITIVE);
        // No offer prices the group's accelerator: the term-mix step keeps its peak at today's
        // price on today's term, and so does its pool (never a pool of nothing).
        if group.best_mix.is_empty() {
            let raw_gpus = group.peak_gpus / share;
            gpus += raw_gpus;
            committed_usd_per_hour += raw_gpus * group.today_effective_usd_per_gpu_hour * share;
            source.get_or_insert_with(|| {
                format!(
                    "its peak kept at today's price on today's term ({})",
                    group.note.as_deref().unwrap_or("no offer matched")
                )
            });
            continue;
        }
        for row in &group.best_mix {
            let raw_gpus = row.gpus / share;
            let usd_per_raw_gpu_hour = row.effective_usd_per_gpu_hour * share;
            match row.role {
                MixRole::Base => {
                    gpus += raw_gpus;
                    committed_usd_per_hour += raw_gpus * usd_per_raw_gpu_hour;
                    source.get_or_insert_with(|| base_source(row));
                }
                MixRole::Burst => {
                    overflow_gpus += raw_gpus.max(f64::MIN_POSITIVE);
                    overflow_usd_per_hour += raw_gpus.max(f64::MIN_POSITIVE) * usd_per_raw_gpu_hour;
                    overflow_label.get_or_insert_with(|| row.term.label().to_string());
                }
            }
        }
    }
    PoolTerms {
        gpus,
        usd_per_gpu_hour: (gpus > 0.0).then(|| committed_usd_per_hour / gpus),
        source,
        overflow_label,
        overflow_usd_per_gpu_hour: (overflow_gpus > 0.0).then(|| overflow_usd_per_hour / overflow_gpus),
    }
}

fn base_source(row: &MixRow) -> String {
    format!(
        "term mix at today's prices: committed base, {} {}",
        row.term.label(),
        row.deployment.label()
    )
}

/// The class's peak concurrent GPUs over the fleet's hours.
fn class_peak(audit: &AuditReport, class: WorkloadClass) -> f64 {
    class_demand(audit, class).into_iter().fold(0.0, f64::max)
}

/// The GPU-hour-weighted price of today's clusters: what a pool costs when no offer is matched.
fn fleet_price(audit: &AuditReport) -> f64 {
    let capacity: f64 = audit.clusters.iter().map(|c| c.capacity_gpus).sum();
    if capacity <= 0.0 {
        return 0.0;
    }
    audit
        .clusters
        .iter()
        .map(|c| c.capacity_gpus * c.usd_per_gpu_hour)
        .sum::<f64>()
        / capacity
}

/// Each class's pool: the plan's size when it gives one, else the committed base of the
/// class's term mix at today's prices (the waterfall's step before the split), so the split
/// is weighed at today's prices; today's fleet price when nothing was matched. A training pool
/// is never smaller than the largest gang it must run.
pub fn split_pools(plan: &ReplayPlan, contracts: Option<&ContractsReport>, audit: &AuditReport) -> Vec<PoolChoice> {
    WorkloadClass::ALL
        .iter()
        .map(|&class| {
            let matched = contracts.and_then(|c| c.class(class));
            let terms = matched.map(|m| pool_terms(&m.today_prices));
            let planned = match class {
                WorkloadClass::Training => plan.training_gpus,
                WorkloadClass::Inference => plan.inference_gpus,
                WorkloadClass::Burst => plan.burst_gpus,
            };
            let (gpus, source) = match (planned, &terms) {
                (Some(gpus), _) => (gpus, "plan ([replay])".to_string()),
                (None, Some(t)) if t.gpus > 0.0 => (
                    t.gpus.ceil(),
                    t.source
                        .clone()
                        .unwrap_or_else(|| "term mix at today's prices".to_string()),
                ),
                (None, Some(_)) => (
                    0.0,
                    "term mix at today's prices: no committed base, all on the shorter term".to_string(),
                ),
                (None, None) => (
                    class_peak(audit, class).ceil(),
                    "the class's peak (no offer matched)".to_string(),
                ),
            };
            // A training pool smaller than its largest gang sends every such gang to overflow:
            // the replay also tries a pool that holds one whole (`replay_fleets`).
            let gang = audit.classes.get(class).largest_run_gpus.ceil();
            let gang_gpus =
                (class == WorkloadClass::Training && planned.is_none() && gpus > 0.0 && gpus < gang).then_some(gang);
            PoolChoice {
                class,
                gpus,
                usd_per_gpu_hour: terms
                    .as_ref()
                    .and_then(|t| t.usd_per_gpu_hour)
                    .unwrap_or_else(|| fleet_price(audit)),
                source,
                overflow_label: terms.as_ref().and_then(|t| t.overflow_label.clone()),
                overflow_usd_per_gpu_hour: terms.as_ref().and_then(|t| t.overflow_usd_per_gpu_hour),
                gang_gpus,
            }
        })
        .collect()
}

pub fn today_topology(audit: &AuditReport) -> Topology {
    Topology {
        pools: audit
            .clusters
            .iter()
            .map(|c| Pool {
                name: c.name.clone(),
                gpus: (c.capacity_gpus * UNITS_PER_GPU)
                    .round()
                    .clamp(0.0, f64::from(u32::MAX)) as u32,
                usd_per_gpu_hour: c.usd_per_gpu_hour / UNITS_PER_GPU,
                overflow: None,
            })
            .collect(),
        routing: Routing::Home,
    }
}

/// The split: one pool per class, in `WorkloadClass::ALL` order.
pub fn split_topology(pools: &[PoolChoice]) -> Topology {
    Topology {
        pools: pools
            .iter()
            .map(|p| Pool {
                name: format!("{} pool", p.class.label()),
                gpus: (p.gpus * UNITS_PER_GPU).round().clamp(0.0, f64::from(u32::MAX)) as u32,
                usd_per_gpu_hour: p.usd_per_gpu_hour / UNITS_PER_GPU,
                overflow: p
                    .overflow_label
                    .clone()
                    .zip(p.overflow_usd_per_gpu_hour)
                    .map(|(label, usd)| Overflow {
                        usd_per_gpu_hour: usd / UNITS_PER_GPU,
                        label,
                    }),
            })
            .collect(),
        routing: Routing::ByClass {
            training: 0,
            inference: 1,
            burst: 2,
        },
    }
}

/// How both fleets schedule: the plan's [replay] choices; a preempted burst job loses the work
/// since its last checkpoint (the plan's checkpoint interval).
pub fn policy(plan: &ReplayPlan, checkpoint_interval_minutes: f64) -> ReplayPolicy {
    let interval_ms = (checkpoint_interval_minutes * MS_PER_MINUTE).max(1.0) as i64;
    ReplayPolicy {
        backfill: plan.backfill,
        inference_first: true,
        preempt_burst_for_inference: plan.preempt_burst,
        checkpoint_interval_ms: interval_ms,
        inference_start_slo_ms: (plan.inference_start_slo_minutes * MS_PER_MINUTE) as i64,
        overflow_after_wait_ms: Some((plan.overflow_after_wait_minutes * MS_PER_MINUTE) as i64),
    }
}

fn class_in_gpus(c: &mut ClassOutcome) {
    let k = UNITS_PER_GPU;
    c.gpu_ms_run = (c.gpu_ms_run as f64 / k).round() as u64;
    c.gpu_hours_run /= k;
    c.allocated_gpu_hours_in_window /= k;
    c.overflow_gpu_ms = (c.overflow_gpu_ms as f64 / k).round() as u64;
    c.overflow_gpu_hours /= k;
    c.overflow_gpu_hours_in_window /= k;
    c.redone_gpu_hours /= k;
}

/// An outcome counted in replay units, in GPUs (costs and shares are unchanged by the unit).
pub fn outcome_in_gpus(mut outcome: ReplayOutcome) -> ReplayOutcome {
    let k = UNITS_PER_GPU;
    outcome.classes.iter_mut().for_each(class_in_gpus);
    for pool in &mut outcome.pools {
        pool.classes.iter_mut().for_each(class_in_gpus);
        pool.gpus = (f64::from(pool.gpus) / k).round() as u32;
        pool.gpu_ms_run = (pool.gpu_ms_run as f64 / k).round() as u64;
        pool.gpu_hours_run /= k;
        pool.allocated_gpu_hours_in_window /= k;
        pool.committed_gpu_hours /= k;
        pool.never_allocated_gpu_hours /= k;
        pool.overflow_gpu_ms = (pool.overflow_gpu_ms as f64 / k).round() as u64;
        pool.overflow_gpu_hours /= k;
        pool.overflow_gpu_hours_in_window /= k;
        pool.redone_gpu_hours /= k;
    }
    let t = &mut outcome.totals;
    t.gpus = (t.gpus as f64 / k).round() as u64;
    t.gpu_ms_run = (t.gpu_ms_run as f64 / k).round() as u64;
    t.gpu_hours_run /= k;
    t.allocated_gpu_hours_in_window /= k;
    t.committed_gpu_hours /= k;
    t.never_allocated_gpu_hours /= k;
    t.overflow_gpu_ms = (t.overflow_gpu_ms as f64 / k).round() as u64;
    t.overflow_gpu_hours /= k;
    t.redone_gpu_hours /= k;
    for job in &mut outcome.never_started {
        job.gpus = (f64::from(job.gpus) / k).ceil() as u32;
    }
    outcome
}

/// Both replays and what they were given.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayReport {
    pub window_start: String,
    pub window_end: String,
    pub jobs: usize,
    /// Jobs whose first start stands in for their submit time (no submit column).
    pub jobs_submit_is_start: u64,
    pub policy: ReplayPolicy,
    pub split_pools: Vec<PoolChoice>,
    /// A pool too small for its class's largest gang, tried again at the gang's size.
    pub gang_sizing: Option<GangSizing>,
    pub today: ReplayOutcome,
    pub split: ReplayOutcome,
}

/// Which fleet a replay failed on, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitError {
    pub fleet: &'static str,
    pub error: ReplayError,
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.fleet, self.error)
    }
}

/// What a replay consumes beyond the audit's jobs and clusters: the split's pools and how both
/// fleets schedule. Compared whole, it decides whether a replay runs again: a plan edit that
/// leaves it equal (a slider elsewhere) replays nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplaySetup {
    pub pools: Vec<PoolChoice>,
    pub policy: ReplayPolicy,
}

impl ReplaySetup {
    /// The plan's [replay] pools (else the contract matcher's bases) and scheduling.
    pub fn of(plan: &Plan, contracts: Option<&ContractsReport>, audit: &AuditReport) -> ReplaySetup {
        let replay_plan = plan.replay.clone().unwrap_or_default();
        ReplaySetup {
            pools: split_pools(&replay_plan, contracts, audit),
            policy: policy(&replay_plan, plan.reliability.checkpoint_interval_minutes),
        }
    }
}

/// The audited jobs through today's clusters (nothing preempted: the log shows the jobs as they
/// ran) and through the plan's split.
pub fn replay_fleets(jobs: &[ReplayJob], audit: &AuditReport, setup: &ReplaySetup) -> Result<ReplayReport, SplitError> {
    let policy = setup.policy;
    let pools = setup.pools.clone();
    let window = ReplayWindow {
        start_ms: audit.window.start_ms,
        end_ms: audit.window.end_ms,
    };
    let today_policy = ReplayPolicy {
        preempt_burst_for_inference: false,
        ..policy
    };
    // A pool too small for its largest gang is also replayed at the gang's size.
    let gang_pools: Option<(usize, Vec<PoolChoice>)> = pools.iter().position(|p| p.gang_gpus.is_some()).map(|index| {
        let mut raised = pools.clone();
        let pool = &mut raised[index];
        pool.gpus = pool.gang_gpus.unwrap_or(pool.gpus);
        (index, raised)
    });
    // The fleets replay the same jobs independently: one on each core.
    let (today, (split, split_gang)) = rayon::join(
        || replay(jobs, &today_topology(audit), &today_policy, window),
        || {
            rayon::join(
                || replay(jobs, &split_topology(&pools), &policy, window),
                || {
                    gang_pools
                        .as_ref()
                        .map(|(_, raised)| replay(jobs, &split_topology(raised), &policy, window))
                },
            )
        },
    );
    let today = today.map(outcome_in_gpus).map_err(|error| SplitError {
        fleet: "today's clusters",
        error,
    })?;
    let in_gpus = |outcome: Result<ReplayOutcome, ReplayError>| {
        outcome.map(outcome_in_gpus).map_err(|error| SplitError {
            fleet: "the split",
            error,
        })
    };
    let mut split = in_gpus(split)?;
    let mut pools = pools;
    let mut gang_sizing = None;
    if let (Some((index, raised)), Some(split_gang)) = (gang_pools, split_gang) {
        let split_gang = in_gpus(split_gang)?;
        let class = pools[index].class;
        let overflow_frac = |outcome: &ReplayOutcome| {
            outcome
                .classes
                .iter()
                .find(|c| c.class == class)
                .map(|c| (c.overflow_gpu_hours, c.gpu_hours_run + c.overflow_gpu_hours))
                .filter(|&(_, all)| all > 0.0)
                .map_or(0.0, |(overflow, all)| (overflow / all).clamp(0.0, 1.0))
        };
        let sizing = GangSizing {
            class,
            base_gpus: pools[index].gpus,
            gang_gpus: raised[index].gpus,
            base_usd_per_month: split.totals.total_usd_per_month,
            gang_usd_per_month: split_gang.totals.total_usd_per_month,
            base_overflow_frac: overflow_frac(&split),
            gang_overflow_frac: overflow_frac(&split_gang),
            // Fewer jobs left unstarted wins first: a pool that starts less looks cheaper for it.
            gang_kept: (
                split_gang.totals.jobs_never_started,
                split_gang.totals.total_usd_per_month,
            ) < (split.totals.jobs_never_started, split.totals.total_usd_per_month),
        };
        if sizing.gang_kept {
            split = split_gang;
            pools = raised;
            pools[index].source = format!(
                "{}, raised to hold its largest gang ({:.0} GPUs: it starts more jobs or costs less, replayed)",
                pools[index].source, sizing.gang_gpus
            );
        }
        gang_sizing = Some(sizing);
    }
    Ok(ReplayReport {
        window_start: audit.window.start.clone(),
        window_end: audit.window.end.clone(),
        jobs: jobs.len(),
        jobs_submit_is_start: jobs.iter().filter(|j| j.submit_is_start).count() as u64,
        policy,
        split_pools: pools,
        gang_sizing,
        today,
        split,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractional_gpus_replay_in_units_and_come_back_in_gpus() {
        let hour = 3_600_000;
        let jobs = [
            ReplayJob {
                id: 0,
                submit_ms: 0,
                gpus: gpu_units(0.25),
                duration_ms: 2 * hour,
                class: WorkloadClass::Inference,
                home: 0,
                submit_is_start: true,
            },
            ReplayJob {
                id: 1,
                submit_ms: 0,
                gpus: gpu_units(1.0),
                duration_ms: hour,
                class: WorkloadClass::Burst,
                home: 0,
                submit_is_start: true,
            },
        ];
        let topology = Topology {
            pools: vec![Pool {
                name: "a".into(),
                gpus: gpu_units(2.0),
                usd_per_gpu_hour: 3.0 / UNITS_PER_GPU,
                overflow: None,
            }],
            routing: Routing::Home,
        };
        let policy = policy(&ReplayPlan::default(), 60.0);
        let window = ReplayWindow {
            start_ms: 0,
            end_ms: 4 * hour,
        };
        let outcome = outcome_in_gpus(replay(&jobs, &topology, &policy, window).expect("replays"));
        let pool = &outcome.pools[0];
        assert_eq!(pool.gpus, 2);
        assert!((pool.gpu_hours_run - 1.5).abs() < 1e-12, "{}", pool.gpu_hours_run);
        assert!((pool.committed_gpu_hours - 8.0).abs() < 1e-12);
        assert!((pool.never_allocated_gpu_hours - 6.5).abs() < 1e-12);
        assert!((pool.allocated_frac.expect("util") - 1.5 / 8.0).abs() < 1e-12);
        // Two GPUs at $3 for a 730-hour month, whatever the unit.
        assert!((pool.committed_usd_per_month - 2.0 * 3.0 * 730.0).abs() < 1e-6);
        assert_eq!(gpu_units(0.0001), 1);
    }
}
