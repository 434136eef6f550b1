//! The decision matrix of docs/economics.md ("Decision matrix") as a recommendation per workload class, and
//! seed 002's implementation-readiness checklist as a status list.

use serde::{Deserialize, Serialize};

use super::catalog::Catalog;
use super::checks::{Check, CheckStatus};
use super::evaluate::{MfuSource, TrainingReport};
use super::plan::Plan;
use super::thresholds::Thresholds;
use super::transit::transit_by_location;
use super::workload::WorkloadClass;

/// Compute spend above which a Trainium2 migration's cost is amortized (seed 002, section 3).
const TRAINIUM2_AMORTIZATION_USD: f64 = 2e6;

/// What the plan says about its workloads, for the decision matrix and the checklist.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadProfile {
    /// Deeply nested custom CUDA kernels (only NVIDIA runs them).
    #[serde(default)]
    pub custom_cuda_kernels: bool,
    /// A standard transformer architecture (compiles well for TPU and Trainium).
    #[serde(default = "yes")]
    pub standard_transformer: bool,
    /// Massive batches (large-batch serving and training suit TPU pods).
    #[serde(default)]
    pub massive_batch: bool,
    /// Training from scratch inside an AWS-native ecosystem.
    #[serde(default)]
    pub aws_native: bool,
    /// Ray/KubeRay or another layer decouples applications from GPU architectures.
    #[serde(default)]
    pub abstraction_layer: bool,
    /// Latency-tolerant inference is routed to cheaper silicon, real-time to premium GPUs.
    #[serde(default)]
    pub inference_routing: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recommendation {
    pub class: WorkloadClass,
    /// An accelerator id of the catalog, or a description when no single chip fits.
    pub silicon: String,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadinessStatus {
    Done,
    Missing,
    NotApplicable,
}

impl ReadinessStatus {
    pub fn label(self) -> &'static str {
        match self {
            ReadinessStatus::Done => "done",
            ReadinessStatus::Missing => "missing",
            ReadinessStatus::NotApplicable => "n/a",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadinessItem {
    pub item: u8,
    pub title: &'static str,
    pub status: ReadinessStatus,
    /// Why it has this status, or what would make it done.
    pub detail: String,
}

fn slider_cost(training: &TrainingReport, id: &str) -> Option<f64> {
    training
        .runs
        .iter()
        .find(|r| r.mfu_source == MfuSource::Slider && r.accelerator == id)
        .map(|r| r.cost_usd)
}

fn cheapest_at_sliders(training: &TrainingReport, filter: impl Fn(&str) -> bool) -> Option<(String, f64)> {
    training
        .runs
        .iter()
        .filter(|r| r.mfu_source == MfuSource::Slider && filter(&r.accelerator))
        .min_by(|a, b| a.cost_usd.total_cmp(&b.cost_usd))
        .map(|r| (r.accelerator.clone(), r.cost_usd))
}

/// The decision matrix per class (docs/economics.md, "Decision matrix").
pub fn recommendations(
    plan: &Plan,
    catalog: &Catalog,
    training: &TrainingReport,
    th: &Thresholds,
) -> Vec<Recommendation> {
    let w = &plan.workload;
    let is_nvidia = |id: &str| catalog.accelerator(id).is_some_and(|a| !a.custom_silicon);
    let in_plan = |prefix: &str| plan.accelerators.iter().find(|c| c.id.starts_with(prefix));
    let money = crate::shared::format::usd_compact;

    let training_pick = if w.custom_cuda_kernels {
        cheapest_at_sliders(training, is_nvidia).map(|(id, cost)| {
            (
                id,
                format!(
                    "deeply nested custom CUDA kernels run only on NVIDIA; cheapest NVIDIA run at the sliders: {}",
                    money(cost)
                ),
            )
        })
    } else if let Some(trn) = in_plan("trainium").filter(|_| w.aws_native) {
        let spend = plan.board.annual_gpu_spend_usd;
        if spend > TRAINIUM2_AMORTIZATION_USD && trn.mfu >= th.trainium2_abandon_mfu_frac {
            slider_cost(training, &trn.id).map(|cost| {
                (
                    trn.id.clone(),
                    format!(
                        "AWS-native training with the port amortized over {} of compute (> $2M); run at the slider: {}",
                        money(spend),
                        money(cost)
                    ),
                )
            })
        } else {
            None
        }
    } else if let Some(tpu) = in_plan("tpu").filter(|_| w.standard_transformer && w.massive_batch) {
        slider_cost(training, &tpu.id).map(|cost| {
            (
                tpu.id.clone(),
                format!(
                    "standard transformer at massive batch: the TPU's case; run at the slider: {}",
                    money(cost)
                ),
            )
        })
    } else {
        None
    };
    // Trainium2 is the matrix's answer only inside AWS with the port amortized.
    let training_pick = training_pick.or_else(|| {
        cheapest_at_sliders(training, |id| !id.starts_with("trainium")).map(|(id, cost)| {
            (
                id,
                format!(
                    "no special constraint: the cheapest run at the sliders' MFU ({}) outside Trainium2",
                    money(cost)
                ),
            )
        })
    });
    let mut out = Vec::new();
    if let Some((silicon, reason)) = training_pick {
        out.push(Recommendation {
            class: WorkloadClass::Training,
            silicon,
            reason,
        });
    }
    let inference = match in_plan("tpu") {
        Some(tpu) if w.standard_transformer && w.massive_batch && !w.custom_cuda_kernels => Recommendation {
            class: WorkloadClass::Inference,
            silicon: tpu.id.clone(),
            reason: "inference-heavy standard transformer at massive batch: TPU v5e".into(),
        },
        _ => Recommendation {
            class: WorkloadClass::Inference,
            silicon: plan.inference.accelerator.clone(),
            reason: inference_location_reason(plan, th.inference_max_transit_ms),
        },
    };
    out.push(inference);
    out.push(Recommendation {
        class: WorkloadClass::Burst,
        silicon: "whatever is free".into(),
        reason: "sweeps, evals and preprocessing tolerate preemption: spot or a monthly term, released after".into(),
    });
    out
}

fn check_status(checks: &[Check], rule: &str) -> Option<CheckStatus> {
    checks.iter().filter(|c| c.rule == rule).map(|c| c.status).max()
}

fn item(item: u8, title: &'static str, status: ReadinessStatus, detail: impl Into<String>) -> ReadinessItem {
    ReadinessItem {
        item,
        title,
        status,
        detail: detail.into(),
    }
}

/// Seed 002's ten-item implementation-readiness checklist, derived from the plan and its checks.
pub fn readiness(plan: &Plan, catalog: &Catalog, checks: &[Check]) -> Vec<ReadinessItem> {
    use ReadinessStatus::{Done, Missing, NotApplicable};
    let w = &plan.workload;
    let custom: Vec<&str> = plan
        .accelerators
        .iter()
        .filter(|c| catalog.accelerator(&c.id).is_some_and(|a| a.custom_silicon))
        .map(|c| c.id.as_str())
        .collect();
    let measured = plan.accelerators.iter().any(|c| c.bakeoff_mfu.is_some());
    let reservation = check_status(checks, "reservation_bakeoff");
    let spot = check_status(checks, "spot_checkpoint");
    let mfu_floor = check_status(checks, "mfu_floor");
    vec![
        item(
            1,
            "Establish baseline MFU metrics",
            if measured { Done } else { Missing },
            if measured {
                "measured MFU recorded (bakeoff_mfu)"
            } else {
                "instrument every training loop to log MFU; record it as bakeoff_mfu"
            },
        ),
        match reservation {
            None => item(
                2,
                "5 %-scale silicon bake-offs before reservations > $500k",
                NotApplicable,
                "no 1- or 3-year reservation in the plan",
            ),
            Some(CheckStatus::Fail) => item(
                2,
                "5 %-scale silicon bake-offs before reservations > $500k",
                Missing,
                "a reservation above the limit lacks a bake-off on every candidate",
            ),
            Some(_) => item(
                2,
                "5 %-scale silicon bake-offs before reservations > $500k",
                Done,
                "reservations are below the limit or every candidate has a bake-off",
            ),
        },
        item(
            3,
            "Deploy hardware abstraction layers",
            if w.abstraction_layer { Done } else { Missing },
            if w.abstraction_layer {
                "Ray/KubeRay layer in place"
            } else {
                "integrate Ray or KubeRay; set [workload] abstraction_layer = true"
            },
        ),
        item(
            4,
            "Implement dynamic inference routing",
            if w.inference_routing { Done } else { Missing },
            if w.inference_routing {
                "latency-tolerant inference routed to cheaper silicon"
            } else {
                "route asynchronous inference to cheaper silicon; set [workload] inference_routing = true"
            },
        ),
        match check_status(checks, "network_wait") {
            Some(CheckStatus::Pass) if plan.reliability.network_wait_frac > 0.0 => item(
                5,
                "Audit interconnect topologies",
                Done,
                "measured network wait within budget",
            ),
            Some(CheckStatus::Pass) => item(
                5,
                "Audit interconnect topologies",
                Missing,
                "measure NCCL network wait (network_wait_frac) on the multi-node clusters",
            ),
            _ => item(
                5,
                "Audit interconnect topologies",
                Missing,
                "network wait above the limit: fix placement groups, EFA, non-blocking topology",
            ),
        },
        if plan.inference.tokens_per_month > 0.0 {
            item(
                6,
                "Calculate internal cost per billion tokens",
                Done,
                "CPBT computed from the plan's volume",
            )
        } else {
            item(
                6,
                "Calculate internal cost per billion tokens",
                Missing,
                "give inference.tokens_per_month to compute CPBT",
            )
        },
        match (plan.reliability.spot_frac > 0.0, spot) {
            (false, _) => item(
                7,
                "Checkpoints under 3 % of MTBI on spot",
                NotApplicable,
                "no spot capacity in the plan",
            ),
            (true, Some(CheckStatus::Pass)) => item(
                7,
                "Checkpoints under 3 % of MTBI on spot",
                Done,
                "checkpoint time within the limit",
            ),
            (true, _) => item(
                7,
                "Checkpoints under 3 % of MTBI on spot",
                Missing,
                "make checkpoints faster or run fewer spot nodes",
            ),
        },
        if plan.inference.mem_fragmentation_frac <= 0.20 {
            item(
                8,
                "Evaluate memory fragmentation",
                Done,
                "KV-cache fragmentation at or under 20 %",
            )
        } else {
            item(
                8,
                "Evaluate memory fragmentation",
                Missing,
                "audit the serving engine's KV-cache management (fragmentation above 20 %)",
            )
        },
        match (custom.is_empty(), &plan.migration) {
            (true, _) => item(
                9,
                "Quantify engineering migration costs",
                NotApplicable,
                "no non-NVIDIA silicon in the plan",
            ),
            (false, Some(_)) => item(
                9,
                "Quantify engineering migration costs",
                Done,
                "[migration] gives the engineering hours and rate",
            ),
            (false, None) => item(
                9,
                "Quantify engineering migration costs",
                Missing,
                format!("add [migration] with the hours to port to {}", custom.join(", ")),
            ),
        },
        match mfu_floor {
            Some(CheckStatus::Pass) => item(
                10,
                "MFU threshold governance",
                Done,
                "every accelerator's MFU clears the floor",
            ),
            Some(_) => item(
                10,
                "MFU threshold governance",
                Missing,
                "a job below the MFU floor must be flagged and suspended",
            ),
            None => item(
                10,
                "MFU threshold governance",
                NotApplicable,
                "no accelerator in the plan",
            ),
        },
    ]
}

/// Where to serve from: with measured users, the location of least transit over the top 80 %
/// of users (and whether it is within the limit); else the rule itself.
fn inference_location_reason(plan: &Plan, limit_ms: f64) -> String {
    let accelerator = &plan.inference.accelerator;
    let figures = transit_by_location(&plan.inference.user_latencies());
    let Some(best) = figures.iter().min_by(|a, b| a.one_way_ms.total_cmp(&b.one_way_ms)) else {
        return format!(
            "right-sized {accelerator} near the users: one-way transit under {limit_ms:.0} ms matters more than a faster GPU"
        );
    };
    let from = best.from.as_deref().unwrap_or("the inference cluster");
    if best.one_way_ms <= limit_ms {
        format!(
            "right-sized {accelerator} served from {from}: {:.0} ms one way over the top {:.0} % of users, under {limit_ms:.0} ms",
            best.one_way_ms,
            best.users_covered_frac * 100.0
        )
    } else {
        format!(
            "right-sized {accelerator} in more regions: even {from} is {:.0} ms one way over the top {:.0} % of users, above {limit_ms:.0} ms",
            best.one_way_ms,
            best.users_covered_frac * 100.0
        )
    }
}
