//! The decision rules of docs/economics.md (from "The audit" to "Bare metal or VM") applied to a plan: each yields a check
//! with its value, threshold and the advice a planner acts on.

use super::catalog::Catalog;
use super::checkpoint::{checkpoint_share_of_mtbi, expected_lost_frac, optimal_checkpoint_interval_minutes};
use super::checks::{Check, CheckStatus, CheckUnit};
use super::deployment::{
    Deployment, bare_metal_recommended_for_inference, bare_metal_recommended_for_training, bare_metal_wins_on_tco,
    network_wait_halts_run,
};
use super::evaluate::{MfuSource, TrainingReport};
use super::inference::cost_per_billion_tokens_usd;
use super::plan::{Plan, ResolvedPrice};
use super::thresholds::Thresholds;
use super::transit::transit_by_location;
use crate::shared::format::{pct, si, thousands};

#[allow(clippy::too_many_arguments)]
fn check(
    rule: &str,
    subject: &str,
    status: CheckStatus,
    value: f64,
    threshold: f64,
    unit: CheckUnit,
    message: String,
) -> Check {
    Check {
        rule: rule.to_string(),
        subject: subject.to_string(),
        status,
        value: Some(value),
        threshold: Some(threshold),
        unit,
        message,
    }
}

fn pass_or(failed: bool, status: CheckStatus) -> CheckStatus {
    if failed { status } else { CheckStatus::Pass }
}

pub fn plan_checks(plan: &Plan, catalog: &Catalog, th: &Thresholds, training: &TrainingReport) -> Vec<Check> {
    let mut checks = Vec::new();
    accelerator_checks(plan, catalog, th, training, &mut checks);
    reliability_checks(plan, th, &mut checks);
    inference_checks(plan, th, &mut checks);
    cluster_checks(plan, th, &mut checks);
    checks
}

fn accelerator_checks(
    plan: &Plan,
    catalog: &Catalog,
    th: &Thresholds,
    training: &TrainingReport,
    out: &mut Vec<Check>,
) {
    let hours_per_month = plan.hours_per_month;
    let mut reservations = Vec::new();
    for choice in &plan.accelerators {
        let Some(accelerator) = catalog.accelerator(&choice.id) else {
            continue;
        };
        let id = accelerator.id.as_str();
        let below_floor = choice.mfu < th.mfu_floor_frac;
        out.push(check(
            "mfu_floor",
            id,
            pass_or(below_floor, CheckStatus::Fail),
            choice.mfu,
            th.mfu_floor_frac,
            CheckUnit::Frac,
            if below_floor {
                format!(
                    "MFU {} is below the floor: flag and suspend the job pending architectural review",
                    pct(choice.mfu)
                )
            } else {
                format!("MFU {} clears the floor", pct(choice.mfu))
            },
        ));
        if id.starts_with("trainium") {
            let abandon = choice.mfu < th.trainium2_abandon_mfu_frac;
            out.push(check(
                "trainium2_abandon",
                id,
                pass_or(abandon, CheckStatus::Fail),
                choice.mfu,
                th.trainium2_abandon_mfu_frac,
                CheckUnit::Frac,
                if abandon {
                    "abandon the migration and re-allocate the capital to H100-class capacity".to_string()
                } else {
                    "Trainium2 MFU is high enough to keep the migration".to_string()
                },
            ));
        }
        let resolved = choice.resolve_price(catalog).ok();
        if choice.term.is_reservation() {
            if accelerator.custom_silicon {
                let proven = choice
                    .bakeoff_mfu
                    .is_some_and(|m| m > th.custom_silicon_reservation_min_mfu_frac);
                out.push(Check {
                    rule: "custom_silicon_reservation".into(),
                    subject: id.to_string(),
                    status: pass_or(!proven, CheckStatus::Fail),
                    value: choice.bakeoff_mfu,
                    threshold: Some(th.custom_silicon_reservation_min_mfu_frac),
                    unit: CheckUnit::Frac,
                    message: match choice.bakeoff_mfu {
                        None => format!("no {} reservation of custom silicon without a 5 %-scale bake-off above {}: none is recorded (set bakeoff_mfu)", choice.term.label(), pct(th.custom_silicon_reservation_min_mfu_frac)),
                        Some(m) if !proven => format!("bake-off MFU {} does not prove the {} needed for a reservation", pct(m), pct(th.custom_silicon_reservation_min_mfu_frac)),
                        Some(m) => format!("bake-off MFU {} justifies the reservation", pct(m)),
                    },
                });
            }
            if let Some(price) = &resolved {
                let commitment_usd = price.usd_per_chip_hour()
                    * f64::from(plan.training.chips)
                    * choice.term.committed_hours(hours_per_month);
                reservations.push((id.to_string(), commitment_usd));
            }
        }
        if let (Some(ResolvedPrice::Catalog(price)), Some(run)) = (
            &resolved,
            training
                .runs
                .iter()
                .find(|r| r.accelerator == id && r.mfu_source == MfuSource::Slider),
        ) {
            let wants_metal = bare_metal_recommended_for_training(run.gpu_hours, th.bare_metal_min_training_gpu_hours);
            let on_vm = price.deployment == Deployment::Vm;
            out.push(check(
                "bare_metal_training",
                id,
                pass_or(wants_metal && on_vm, CheckStatus::Warn),
                run.gpu_hours,
                th.bare_metal_min_training_gpu_hours,
                CheckUnit::GpuHours,
                if wants_metal && on_vm {
                    format!(
                        "a {} GPU-hour run priced on a VM ({}): bare metal delivers 90-97 % against 65-85 %",
                        thousands(run.gpu_hours),
                        price.provider
                    )
                } else {
                    format!(
                        "{} suits a {} GPU-hour run",
                        price.deployment.label(),
                        thousands(run.gpu_hours)
                    )
                },
            ));
        }
    }
    let missing_bakeoffs: Vec<&str> = plan
        .accelerators
        .iter()
        .filter(|c| c.bakeoff_mfu.is_none())
        .map(|c| c.id.as_str())
        .collect();
    for (id, commitment_usd) in reservations {
        let needs = commitment_usd > th.bakeoff_required_above_usd;
        let failed = needs && !missing_bakeoffs.is_empty();
        out.push(check(
            "reservation_bakeoff",
            &id,
            pass_or(failed, CheckStatus::Fail),
            commitment_usd,
            th.bakeoff_required_above_usd,
            CheckUnit::Usd,
            if failed {
                format!(
                    "a reservation this size needs a 5 %-scale bake-off on every candidate; missing: {}",
                    missing_bakeoffs.join(", ")
                )
            } else if needs {
                "every candidate has a bake-off on record".to_string()
            } else {
                "below the size that requires bake-offs".to_string()
            },
        ));
    }
}

fn reliability_checks(plan: &Plan, th: &Thresholds, out: &mut Vec<Check>) {
    let rel = &plan.reliability;
    let halts = network_wait_halts_run(rel.network_wait_frac, th.network_wait_max_frac);
    out.push(check(
        "network_wait",
        "training",
        pass_or(halts, CheckStatus::Fail),
        rel.network_wait_frac,
        th.network_wait_max_frac,
        CheckUnit::Frac,
        if halts {
            "halt the run: the interconnect is the bottleneck (audit the topology, placement groups, EFA)".to_string()
        } else {
            "network wait within budget".to_string()
        },
    ));

    let checkpoint_minutes = rel.effective_checkpoint_minutes();
    let share = checkpoint_share_of_mtbi(checkpoint_minutes, rel.mtbi_hours);
    let optimal = optimal_checkpoint_interval_minutes(checkpoint_minutes, rel.mtbi_hours);
    let too_slow = share > th.checkpoint_max_share_of_mtbi;
    let all_spot = rel.spot_frac >= 1.0;
    out.push(check(
        "spot_checkpoint",
        "training",
        if !too_slow { CheckStatus::Pass } else if all_spot { CheckStatus::Fail } else { CheckStatus::Warn },
        share,
        th.checkpoint_max_share_of_mtbi,
        CheckUnit::Frac,
        if too_slow {
            format!(
                "a {checkpoint_minutes:.1}-minute checkpoint is {} of the {:.1}-hour MTBI: no 100 %-spot training; make checkpoints faster (size / NVMe throughput gives {:.0} s)",
                pct(share),
                rel.mtbi_hours,
                rel.checkpoint_size_gb / rel.checkpoint_write_gb_per_s
            )
        } else {
            format!("checkpoints take {} of the MTBI", pct(share))
        },
    ));

    let restore = rel.effective_restore_minutes();
    let lost_now = expected_lost_frac(
        checkpoint_minutes,
        rel.checkpoint_interval_minutes,
        rel.mtbi_hours,
        restore,
    );
    let lost_best = expected_lost_frac(checkpoint_minutes, optimal, rel.mtbi_hours, restore);
    let off = lost_now > lost_best * 1.1;
    out.push(check(
        "checkpoint_interval",
        "training",
        pass_or(off, CheckStatus::Warn),
        rel.checkpoint_interval_minutes,
        optimal,
        CheckUnit::Minutes,
        if off {
            format!(
                "checkpoint every {optimal:.0} min (Young/Daly) instead of {:.0}: expected loss falls from {} to {}",
                rel.checkpoint_interval_minutes,
                pct(lost_now),
                pct(lost_best)
            )
        } else {
            format!(
                "interval close to the Young/Daly optimum of {optimal:.0} min; expected loss {}",
                pct(lost_now)
            )
        },
    ));
}

/// Tokens a month the inference cluster can generate: its throughput over the plan's month,
/// less what memory fragmentation leaves unusable; none for a throughput that is not positive.
pub fn served_tokens_per_month(plan: &Plan) -> Option<f64> {
    let inf = &plan.inference;
    let tokens = inf.throughput_tokens_per_hour * plan.hours_per_month * (1.0 - inf.mem_fragmentation_frac);
    (tokens.is_finite() && tokens > 0.0).then_some(tokens)
}

fn inference_checks(plan: &Plan, th: &Thresholds, out: &mut Vec<Check>) {
    let inf = &plan.inference;
    let cluster_usd_per_month = f64::from(inf.nodes) * inf.node_usd_per_month;
    if let Some(cpbt) =
        cost_per_billion_tokens_usd(cluster_usd_per_month, inf.energy_usd_per_month, inf.tokens_per_month)
    {
        let high = cpbt > th.cpbt_max_usd_per_billion_tokens;
        out.push(check(
            "cpbt",
            &inf.model_class,
            pass_or(high, CheckStatus::Fail),
            cpbt,
            th.cpbt_max_usd_per_billion_tokens,
            CheckUnit::Usd,
            if high {
                "serving stack unoptimized: mandate dynamic batching and INT8/FP8 quantization".to_string()
            } else {
                "cost per billion tokens within the 70B-class budget".to_string()
            },
        ));
    }
    if let Some(capacity) = served_tokens_per_month(plan).filter(|_| inf.tokens_per_month > 0.0) {
        let short = capacity < inf.tokens_per_month;
        out.push(check(
            "inference_capacity",
            &inf.model_class,
            pass_or(short, CheckStatus::Fail),
            capacity,
            inf.tokens_per_month,
            CheckUnit::TokensPerMonth,
            if short {
                format!(
                    "the cluster serves {} tokens a month ({} tokens/h × {} h, less {} memory fragmentation), under the {} \
                     stated: add capacity or lower the volume before trusting its cost per token",
                    si(capacity),
                    si(inf.throughput_tokens_per_hour),
                    thousands(plan.hours_per_month),
                    pct(inf.mem_fragmentation_frac),
                    si(inf.tokens_per_month)
                )
            } else {
                format!(
                    "the cluster serves {} tokens a month after fragmentation, {} of it used",
                    si(capacity),
                    pct(inf.tokens_per_month / capacity)
                )
            },
        ));
    }
    out.extend(transit_checks(inf, th));
    let wants_metal =
        bare_metal_recommended_for_inference(inf.requests_per_s, th.bare_metal_min_inference_requests_per_s);
    let on_vm = inf.deployment == Deployment::Vm;
    out.push(check(
        "bare_metal_inference",
        &inf.accelerator,
        pass_or(wants_metal && on_vm, CheckStatus::Warn),
        inf.requests_per_s,
        th.bare_metal_min_inference_requests_per_s,
        CheckUnit::RequestsPerS,
        if wants_metal && on_vm {
            "steady traffic above the rate where bare metal pays: move serving off VMs".to_string()
        } else {
            format!("{} fits this request rate", inf.deployment.label())
        },
    ));
}

fn cluster_checks(plan: &Plan, th: &Thresholds, out: &mut Vec<Check>) {
    for cluster in &plan.clusters {
        let Some(util) = cluster.utilization_frac else { continue };
        if cluster.term.is_reservation() {
            let idle = util < th.permanent_allocation_min_utilization_frac;
            out.push(check(
                "permanent_allocation_utilization",
                &cluster.name,
                pass_or(idle, CheckStatus::Warn),
                util,
                th.permanent_allocation_min_utilization_frac,
                CheckUnit::Frac,
                if idle {
                    format!(
                        "{} utilization on a {} commitment: move intermittent work to a monthly term",
                        pct(util),
                        cluster.term.label()
                    )
                } else {
                    "utilization justifies the commitment".to_string()
                },
            ));
        }
        let metal_wins = bare_metal_wins_on_tco(util, th.bare_metal_min_sustained_utilization_frac);
        let mismatch = metal_wins == (cluster.deployment == Deployment::Vm);
        out.push(check(
            "bare_metal_tco",
            &cluster.name,
            pass_or(mismatch, CheckStatus::Warn),
            util,
            th.bare_metal_min_sustained_utilization_frac,
            CheckUnit::Frac,
            match (metal_wins, mismatch) {
                (true, true) => "sustained utilization this high wins on bare metal: move off VMs".to_string(),
                (false, true) => "utilization this low may pay for VM elasticity instead of bare metal".to_string(),
                (_, false) => format!("{} matches the utilization", cluster.deployment.label()),
            },
        ));
    }
}

/// One check per serving location with measured users (the user-weighted one-way transit over
/// the top 80 % of users), else the plan's single `transit_ms`.
fn transit_checks(inf: &crate::model::plan::InferencePlan, th: &Thresholds) -> Vec<Check> {
    let limit = th.inference_max_transit_ms;
    let figures = transit_by_location(&inf.user_latencies());
    if figures.is_empty() {
        let far = inf.transit_ms > limit;
        return vec![check(
            "inference_transit",
            &inf.accelerator,
            pass_or(far, CheckStatus::Fail),
            inf.transit_ms,
            limit,
            CheckUnit::Ms,
            if far {
                "distribute inference geographically: faster GPUs do not shorten network transit".to_string()
            } else {
                "users are close enough to the serving region".to_string()
            },
        )];
    }
    figures
        .iter()
        .map(|f| {
            let far = f.one_way_ms > limit;
            let slowest = f
                .worst_location
                .as_ref()
                .map_or(String::new(), |(place, ms)| format!("; slowest {place} at {ms:.0} ms"));
            let measured = format!(
                "{:.0} ms one way over {:.0} % of users ({}){slowest}",
                f.one_way_ms,
                f.users_covered_frac * 100.0,
                f.locations.join(", ")
            );
            check(
                "inference_transit",
                f.from.as_deref().unwrap_or(&inf.accelerator),
                pass_or(far, CheckStatus::Fail),
                f.one_way_ms,
                limit,
                CheckUnit::Ms,
                if far {
                    format!("{measured}: distribute inference geographically, a faster GPU does not shorten transit")
                } else {
                    format!("{measured}: users are close enough")
                },
            )
        })
        .collect()
}
