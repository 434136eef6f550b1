//! Every rule on both sides of its threshold, the decision matrix's branches and the
//! readiness checklist, driven through the default plan with one value changed at a time.

use gpuplan::config::catalog::builtin;
use gpuplan::config::plan_file::default_plan;
use gpuplan::model::catalog::{Catalog, Term};
use gpuplan::model::checks::CheckStatus;
use gpuplan::model::evaluate::{Evaluation, evaluate};
use gpuplan::model::plan::{ClusterCost, Plan};
use gpuplan::model::recommend::ReadinessStatus;
use gpuplan::model::workload::WorkloadClass;

fn catalog() -> Catalog {
    builtin().catalog
}

fn plan() -> Plan {
    default_plan(&catalog()).expect("default plan")
}

fn evaluated(change: impl FnOnce(&mut Plan)) -> Evaluation {
    let mut p = plan();
    change(&mut p);
    let catalog = catalog();
    assert!(p.problems(&catalog).is_empty(), "{:?}", p.problems(&catalog));
    evaluate(&p, &catalog)
}

fn status(e: &Evaluation, rule: &str, subject: &str) -> CheckStatus {
    e.checks
        .iter()
        .find(|c| c.rule == rule && c.subject == subject)
        .unwrap_or_else(|| panic!("no {rule} check on {subject}: {:#?}", e.checks))
        .status
}

fn either_side(
    rule: &str,
    subject: &str,
    below: impl FnOnce(&mut Plan),
    above: impl FnOnce(&mut Plan),
) -> (CheckStatus, CheckStatus) {
    (
        status(&evaluated(below), rule, subject),
        status(&evaluated(above), rule, subject),
    )
}

#[test]
fn mfu_floor_and_trainium2_abandon() {
    let set = |i: usize, mfu: f64| move |p: &mut Plan| p.accelerators[i].mfu = mfu;
    assert_eq!(
        either_side("mfu_floor", "h100-sxm", set(0, 0.24), set(0, 0.25)),
        (CheckStatus::Fail, CheckStatus::Pass)
    );
    assert_eq!(
        either_side("trainium2_abandon", "trainium2", set(2, 0.29), set(2, 0.30)),
        (CheckStatus::Fail, CheckStatus::Pass)
    );
}

#[test]
fn network_wait_checkpoint_transit_and_cpbt() {
    assert_eq!(
        either_side(
            "network_wait",
            "training",
            |p| p.reliability.network_wait_frac = 0.21,
            |p| p.reliability.network_wait_frac = 0.20
        ),
        (CheckStatus::Fail, CheckStatus::Pass)
    );
    // 3 % of a 4-hour MTBI is 7.2 minutes.
    assert_eq!(
        either_side(
            "spot_checkpoint",
            "training",
            |p| p.reliability.checkpoint_minutes = Some(7.3),
            |p| p.reliability.checkpoint_minutes = Some(7.1)
        ),
        (CheckStatus::Fail, CheckStatus::Pass)
    );
    let partial_spot = evaluated(|p| p.reliability.spot_frac = 0.5);
    assert_eq!(status(&partial_spot, "spot_checkpoint", "training"), CheckStatus::Warn);
    assert_eq!(
        either_side(
            "inference_transit",
            "h100-sxm",
            |p| p.inference.transit_ms = 81.0,
            |p| p.inference.transit_ms = 80.0
        ),
        (CheckStatus::Fail, CheckStatus::Pass)
    );
    // ($80,000 + $6,000) / 57.3B tokens is $1,501 per billion; / 57.4B is $1,498.
    assert_eq!(
        either_side(
            "cpbt",
            "70B",
            |p| p.inference.tokens_per_month = 57.3e9,
            |p| p.inference.tokens_per_month = 57.4e9
        ),
        (CheckStatus::Fail, CheckStatus::Pass)
    );
}

#[test]
fn bare_metal_rules() {
    assert_eq!(
        either_side(
            "bare_metal_inference",
            "h100-sxm",
            |p| p.inference.requests_per_s = 10.5,
            |p| p.inference.requests_per_s = 10.0
        ),
        (CheckStatus::Warn, CheckStatus::Pass)
    );
    let cluster = |util: f64, term: Term| {
        move |p: &mut Plan| {
            p.clusters = vec![ClusterCost {
                name: "c".into(),
                accelerator: "h100-sxm".into(),
                gpus: 8.0,
                usd_per_gpu_hour: 2.0,
                term,
                deployment: gpuplan::model::deployment::Deployment::Vm,
                utilization_frac: Some(util),
                price_source: None,
                price_as_of: None,
                commitment_ends: None,
                models: Vec::new(),
            }]
        }
    };
    assert_eq!(
        either_side(
            "permanent_allocation_utilization",
            "c",
            cluster(0.39, Term::OneYear),
            cluster(0.40, Term::OneYear)
        ),
        (CheckStatus::Warn, CheckStatus::Pass)
    );
    assert_eq!(
        either_side(
            "bare_metal_tco",
            "c",
            cluster(0.71, Term::OneYear),
            cluster(0.70, Term::OneYear)
        ),
        (CheckStatus::Warn, CheckStatus::Pass)
    );
}

#[test]
fn reservations_need_bakeoffs() {
    // A 1-year TPU v5e reservation: custom silicon needs a bake-off above 40 %.
    let reserve = |bakeoff: Option<f64>| {
        move |p: &mut Plan| {
            p.accelerators[1].term = Term::OneYear;
            p.accelerators[1].usd_per_chip_hour = Some(1.0);
            p.accelerators[1].bakeoff_mfu = bakeoff;
        }
    };
    assert_eq!(
        either_side(
            "custom_silicon_reservation",
            "tpu-v5e",
            reserve(Some(0.40)),
            reserve(Some(0.41))
        ),
        (CheckStatus::Fail, CheckStatus::Pass)
    );
    // 1,024 chips × $1 × 8,760 h = $8.97M, above $500k: every candidate needs a bake-off.
    let missing = evaluated(reserve(Some(0.5)));
    assert_eq!(status(&missing, "reservation_bakeoff", "tpu-v5e"), CheckStatus::Fail);
    let all = evaluated(|p| {
        reserve(Some(0.5))(p);
        for c in &mut p.accelerators {
            c.bakeoff_mfu.get_or_insert(0.5);
        }
    });
    assert_eq!(status(&all, "reservation_bakeoff", "tpu-v5e"), CheckStatus::Pass);
    // Small enough not to need one: 8 chips × $1 × 8,760 h = $70k.
    let small = evaluated(|p| {
        reserve(Some(0.5))(p);
        p.training.chips = 8;
    });
    assert_eq!(status(&small, "reservation_bakeoff", "tpu-v5e"), CheckStatus::Pass);
}

fn recommended(e: &Evaluation, class: WorkloadClass) -> String {
    e.recommendations
        .iter()
        .find(|r| r.class == class)
        .map(|r| r.silicon.clone())
        .expect("recommendation")
}

#[test]
fn the_decision_matrix_follows_the_workload() {
    assert_eq!(
        recommended(
            &evaluated(|p| p.workload.custom_cuda_kernels = true),
            WorkloadClass::Training
        ),
        "h100-sxm"
    );
    assert_eq!(
        recommended(&evaluated(|p| p.workload.massive_batch = true), WorkloadClass::Training),
        "tpu-v5e",
        "standard transformer at massive batch"
    );
    assert_eq!(
        recommended(
            &evaluated(|p| p.workload.massive_batch = true),
            WorkloadClass::Inference
        ),
        "tpu-v5e"
    );
    // Inside AWS with $10M of compute the port is amortized (> $2M).
    assert_eq!(
        recommended(&evaluated(|p| p.workload.aws_native = true), WorkloadClass::Training),
        "trainium2"
    );
    // Below the abandon threshold Trainium2 is not recommended even inside AWS.
    let low_mfu = evaluated(|p| {
        p.workload.aws_native = true;
        p.accelerators[2].mfu = 0.28;
    });
    assert_ne!(recommended(&low_mfu, WorkloadClass::Training), "trainium2");
    // Outside AWS, no Trainium2: the cheapest other run.
    assert_ne!(recommended(&evaluated(|_| {}), WorkloadClass::Training), "trainium2");
}

#[test]
fn the_readiness_checklist_reflects_the_plan() {
    let default = evaluated(|_| {});
    assert_eq!(default.readiness.len(), 10);
    let status_of = |e: &Evaluation, item: u8| {
        e.readiness
            .iter()
            .find(|i| i.item == item)
            .map(|i| i.status)
            .expect("item")
    };
    assert_eq!(status_of(&default, 3), ReadinessStatus::Missing);
    assert_eq!(
        status_of(&default, 7),
        ReadinessStatus::Missing,
        "15-minute checkpoints on 100 % spot"
    );
    let ready = evaluated(|p| {
        p.workload.abstraction_layer = true;
        p.reliability.checkpoint_minutes = Some(5.0);
    });
    assert_eq!(status_of(&ready, 3), ReadinessStatus::Done);
    assert_eq!(status_of(&ready, 7), ReadinessStatus::Done);
    let no_spot = evaluated(|p| p.reliability.spot_frac = 0.0);
    assert_eq!(status_of(&no_spot, 7), ReadinessStatus::NotApplicable);
    let nvidia_only = evaluated(|p| {
        p.accelerators.truncate(1);
        p.migration = None;
    });
    assert_eq!(status_of(&nvidia_only, 9), ReadinessStatus::NotApplicable);
}
