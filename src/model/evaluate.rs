//! Every number the engine computes for a plan, in one serializable value. The report's
//! JSON is this value: a stable interface for scripts.

use serde::Serialize;

use super::board::{mfu_gain_recovered_usd, risk_adjusted_roi};
use super::catalog::Catalog;
use super::checkpoint::{
    checkpoint_overhead_frac, checkpoint_share_of_mtbi, checkpoint_write_seconds, expected_lost_frac,
    optimal_checkpoint_interval_minutes,
};
use super::checks::Check;
use super::inference::{
    Breakeven, DedicatedMonthlyCost, breakeven_volume, cost_per_billion_tokens_usd, etic_usd_per_million_tokens,
};
use super::migration::{MigrationBreakeven, migration_breakeven};
use super::monte_carlo::{BaseCost, TriangularRange, simulate_total_cost};
use super::plan::{AcceleratorChoice, Plan};
use super::recommend::{ReadinessItem, Recommendation, readiness, recommendations};
use super::references::reference_cost_usd;
use super::risk::{RiskScenario, RiskUnit, weighted_exposure_usd};
use super::rules::plan_checks;
use super::thresholds::Thresholds;
use super::training::{ChipHourPrice, RunInputs, run_cost, training_flops};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    pub plan: String,
    pub hours_per_month: f64,
    pub training: TrainingReport,
    pub inference: InferenceReport,
    pub reliability: ReliabilityReport,
    pub migration: Option<MigrationReport>,
    pub board: BoardReport,
    pub risk: RiskReport,
    pub thresholds: Thresholds,
    pub checks: Vec<Check>,
    /// The decision matrix per class (docs/economics.md, "Decision matrix").
    pub recommendations: Vec<Recommendation>,
    /// Seed 002's implementation-readiness checklist.
    pub readiness: Vec<ReadinessItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainingReport {
    pub model_params: f64,
    pub tokens: f64,
    pub flops: f64,
    /// "6·N·D" or "8·N·D" (with activation recomputation).
    pub flops_rule: String,
    pub chips: u32,
    pub mfu_points: Vec<f64>,
    pub runs: Vec<TrainingRun>,
}

/// Whether a run sits at one of the plan's table MFU points or at an accelerator's slider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MfuSource {
    Point,
    Slider,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainingRun {
    pub accelerator: String,
    pub mfu: f64,
    pub mfu_source: MfuSource,
    pub hours: f64,
    /// Chip-hours, called GPU-hours for every accelerator so tables compare.
    pub gpu_hours: f64,
    pub cost_usd: f64,
    pub usd_per_chip_hour: f64,
    pub price: String,
    /// The source document's figure for the same cell, where it quotes one.
    pub reference_cost_usd: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InferenceReport {
    pub accelerator: String,
    pub cluster_usd_per_month: f64,
    pub cluster_usd_per_hour: f64,
    pub etic_usd_per_million_tokens: f64,
    /// CPBT from monthly amortization and energy over today's volume; null at zero volume.
    pub cost_per_billion_tokens_usd: Option<f64>,
    pub tokens_per_month: f64,
    pub api_usd_per_month_at_volume: f64,
    pub dedicated_usd_per_month_at_volume: f64,
    /// V_be; null when the API is not dearer per token than running our own.
    pub breakeven_tokens_per_month: Option<f64>,
    pub breakeven: Breakeven,
    /// One-way transit to the users: the plan's figure, or per serving location the
    /// user-weighted mean over the top 80 % of measured users.
    pub transit_ms: f64,
    pub transit_by_location: Vec<crate::model::transit::LocationTransit>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReliabilityReport {
    pub checkpoint_minutes: f64,
    pub checkpoint_write_seconds_at_throughput: f64,
    pub checkpoint_interval_minutes: f64,
    pub checkpoint_overhead_frac: f64,
    pub checkpoint_share_of_mtbi: f64,
    pub mtbi_hours: f64,
    pub restore_minutes: f64,
    pub optimal_interval_minutes: f64,
    pub expected_lost_frac_at_interval: f64,
    pub expected_lost_frac_at_optimal: f64,
    pub network_wait_frac: f64,
    pub spot_frac: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MigrationReport {
    pub from: String,
    pub to: String,
    pub engineering_usd: f64,
    pub from_run_usd: f64,
    pub to_run_usd: f64,
    pub breakeven_runs: Option<f64>,
    pub breakeven: MigrationBreakeven,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardReport {
    /// The plan's `[board]` spend: the seed's worked example unless the planner set it.
    pub annual_gpu_spend_usd: f64,
    pub mfu_from_frac: f64,
    pub mfu_to_frac: f64,
    pub mfu_gain_recovered_usd_per_year: f64,
    pub risk_adjusted_roi: Option<f64>,
    /// With logs: the same MFU gain on the audited fleet's spend (today as paid, a year).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audited: Option<AuditedMfuGain>,
}

/// The MFU gain on what the audited fleet costs today.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditedMfuGain {
    pub annual_gpu_spend_usd: f64,
    pub mfu_gain_recovered_usd_per_year: f64,
}

impl BoardReport {
    /// Puts the MFU gain on the audited fleet's spend beside the plan's example.
    pub fn with_audited_spend(&mut self, today_usd_per_month: f64) {
        let annual_gpu_spend_usd = today_usd_per_month * 12.0;
        self.audited = (annual_gpu_spend_usd.is_finite() && annual_gpu_spend_usd > 0.0).then(|| AuditedMfuGain {
            annual_gpu_spend_usd,
            mfu_gain_recovered_usd_per_year: mfu_gain_recovered_usd(
                annual_gpu_spend_usd,
                self.mfu_from_frac,
                self.mfu_to_frac,
            ),
        });
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RiskRow {
    pub scenario: String,
    pub probability: f64,
    pub impact_usd: f64,
    pub unit: RiskUnit,
    pub weighted_usd_per_unit: f64,
    pub expected_count: f64,
    pub exposure_usd: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RiskReport {
    pub rows: Vec<RiskRow>,
    pub weighted_exposure_usd: f64,
    /// Total cost (the first accelerator's training run plus the risk rows) drawn many times;
    /// null when the plan has no accelerator or the inputs cannot be drawn.
    pub monte_carlo: Option<MonteCarloReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MonteCarloReport {
    /// The accelerator whose training run is the base cost.
    pub accelerator: String,
    /// The MFU the run is drawn around: the accelerator's slider.
    pub mfu_frac: f64,
    pub draws: usize,
    pub seed: u64,
    /// The analytic expected total, which the draws' mean approaches.
    pub expected_usd: f64,
    pub mean_usd: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

/// Evaluates a plan that has passed `Plan::problems` (unresolvable prices are skipped).
pub fn evaluate(plan: &Plan, catalog: &Catalog) -> Evaluation {
    let thresholds = catalog.thresholds.with_overrides(&plan.thresholds);
    let training = training_report(plan, catalog);
    let checks = plan_checks(plan, catalog, &thresholds, &training);
    let recommendations = recommendations(plan, catalog, &training, &thresholds);
    let readiness = readiness(plan, catalog, &checks);
    Evaluation {
        recommendations,
        readiness,
        plan: plan.name.clone(),
        hours_per_month: plan.hours_per_month,
        inference: inference_report(plan),
        reliability: reliability_report(plan),
        migration: migration_report(plan, &training),
        board: board_report(plan),
        risk: RiskReport {
            monte_carlo: monte_carlo_report(plan, &training),
            ..risk_report(&plan.risks)
        },
        training,
        thresholds,
        checks,
    }
}

/// One run of the plan's training job on `choice` at `mfu`; `None` when the price
/// or accelerator does not resolve.
pub fn training_run(
    plan: &Plan,
    catalog: &Catalog,
    choice: &AcceleratorChoice,
    mfu: f64,
    mfu_source: MfuSource,
) -> Option<TrainingRun> {
    let accelerator = catalog.accelerator(&choice.id)?;
    let price = choice.resolve_price(catalog).ok()?;
    let t = &plan.training;
    let chips = f64::from(t.chips);
    let cost = run_cost(&RunInputs {
        flops: training_flops(t.model_params, t.tokens, t.activation_recomputation),
        peak_dense_tflops: accelerator.bf16_dense_tflops,
        mfu_frac: mfu,
        chips,
        price: ChipHourPrice {
            compute_usd_per_chip_hour: price.usd_per_chip_hour(),
            network_usd_per_chip_hour: t.network_usd_per_chip_hour,
        },
        failure_overhead_frac: t.failure_overhead_frac,
    });
    let reference = (choice.usd_per_chip_hour.is_none())
        .then(|| {
            reference_cost_usd(
                &catalog.references,
                &accelerator.id,
                &choice.price_set,
                t.model_params,
                mfu,
            )
        })
        .flatten();
    Some(TrainingRun {
        accelerator: accelerator.id.clone(),
        mfu,
        mfu_source,
        hours: cost.wall_hours,
        gpu_hours: cost.chip_hours,
        cost_usd: cost.cost_usd,
        usd_per_chip_hour: price.usd_per_chip_hour(),
        price: price.describe(),
        reference_cost_usd: reference,
    })
}

fn training_report(plan: &Plan, catalog: &Catalog) -> TrainingReport {
    let t = &plan.training;
    let mut runs = Vec::new();
    for choice in &plan.accelerators {
        for &mfu in &t.mfu_points {
            runs.extend(training_run(plan, catalog, choice, mfu, MfuSource::Point));
        }
        runs.extend(training_run(plan, catalog, choice, choice.mfu, MfuSource::Slider));
    }
    TrainingReport {
        model_params: t.model_params,
        tokens: t.tokens,
        flops: training_flops(t.model_params, t.tokens, t.activation_recomputation),
        flops_rule: if t.activation_recomputation {
            "8·N·D"
        } else {
            "6·N·D"
        }
        .to_string(),
        chips: t.chips,
        mfu_points: t.mfu_points.clone(),
        runs,
    }
}

fn inference_report(plan: &Plan) -> InferenceReport {
    let inf = &plan.inference;
    let fixed = DedicatedMonthlyCost {
        nodes: f64::from(inf.nodes),
        node_usd_per_month: inf.node_usd_per_month,
        sre_usd_per_month: inf.sre_usd_per_month,
    };
    let cluster_usd_per_month = fixed.nodes * fixed.node_usd_per_month;
    let cluster_usd_per_hour = cluster_usd_per_month / plan.hours_per_month;
    let breakeven = breakeven_volume(fixed, inf.api_usd_per_1k_tokens, inf.internal_usd_per_1k_tokens);
    let thousands = inf.tokens_per_month / 1e3;
    InferenceReport {
        accelerator: inf.accelerator.clone(),
        cluster_usd_per_month,
        cluster_usd_per_hour,
        etic_usd_per_million_tokens: etic_usd_per_million_tokens(
            cluster_usd_per_hour,
            inf.throughput_tokens_per_hour,
            inf.mem_fragmentation_frac,
        ),
        cost_per_billion_tokens_usd: cost_per_billion_tokens_usd(
            cluster_usd_per_month,
            inf.energy_usd_per_month,
            inf.tokens_per_month,
        ),
        tokens_per_month: inf.tokens_per_month,
        api_usd_per_month_at_volume: thousands * inf.api_usd_per_1k_tokens,
        dedicated_usd_per_month_at_volume: fixed.total_usd_per_month() + thousands * inf.internal_usd_per_1k_tokens,
        breakeven_tokens_per_month: breakeven.tokens_per_month(),
        breakeven,
        transit_ms: inf.transit_ms,
        transit_by_location: crate::model::transit::transit_by_location(&inf.user_latencies()),
    }
}

fn reliability_report(plan: &Plan) -> ReliabilityReport {
    let rel = &plan.reliability;
    let checkpoint_minutes = rel.effective_checkpoint_minutes();
    let restore_minutes = rel.effective_restore_minutes();
    let optimal = optimal_checkpoint_interval_minutes(checkpoint_minutes, rel.mtbi_hours);
    ReliabilityReport {
        checkpoint_minutes,
        checkpoint_write_seconds_at_throughput: checkpoint_write_seconds(
            rel.checkpoint_size_gb,
            rel.checkpoint_write_gb_per_s,
        ),
        checkpoint_interval_minutes: rel.checkpoint_interval_minutes,
        checkpoint_overhead_frac: checkpoint_overhead_frac(checkpoint_minutes, rel.checkpoint_interval_minutes),
        checkpoint_share_of_mtbi: checkpoint_share_of_mtbi(checkpoint_minutes, rel.mtbi_hours),
        mtbi_hours: rel.mtbi_hours,
        restore_minutes,
        optimal_interval_minutes: optimal,
        expected_lost_frac_at_interval: expected_lost_frac(
            checkpoint_minutes,
            rel.checkpoint_interval_minutes,
            rel.mtbi_hours,
            restore_minutes,
        ),
        expected_lost_frac_at_optimal: expected_lost_frac(checkpoint_minutes, optimal, rel.mtbi_hours, restore_minutes),
        network_wait_frac: rel.network_wait_frac,
        spot_frac: rel.spot_frac,
    }
}

fn slider_run<'a>(training: &'a TrainingReport, accelerator_id: &str) -> Option<&'a TrainingRun> {
    training
        .runs
        .iter()
        .find(|r| r.mfu_source == MfuSource::Slider && r.accelerator.eq_ignore_ascii_case(accelerator_id))
}

fn migration_report(plan: &Plan, training: &TrainingReport) -> Option<MigrationReport> {
    let migration = plan.migration.as_ref()?;
    let from = slider_run(training, &migration.from)?;
    let to = slider_run(training, &migration.to)?;
    let breakeven = migration_breakeven(
        migration.engineering_hours,
        migration.engineering_usd_per_hour,
        from.cost_usd,
        to.cost_usd,
    );
    Some(MigrationReport {
        from: from.accelerator.clone(),
        to: to.accelerator.clone(),
        engineering_usd: migration.engineering_hours * migration.engineering_usd_per_hour,
        from_run_usd: from.cost_usd,
        to_run_usd: to.cost_usd,
        breakeven_runs: match breakeven {
            MigrationBreakeven::Runs { runs } => Some(runs),
            MigrationBreakeven::NeverPaysBack { .. } => None,
        },
        breakeven,
    })
}

fn board_report(plan: &Plan) -> BoardReport {
    let b = &plan.board;
    BoardReport {
        annual_gpu_spend_usd: b.annual_gpu_spend_usd,
        mfu_from_frac: b.mfu_from_frac,
        mfu_to_frac: b.mfu_to_frac,
        mfu_gain_recovered_usd_per_year: mfu_gain_recovered_usd(b.annual_gpu_spend_usd, b.mfu_from_frac, b.mfu_to_frac),
        audited: None,
        risk_adjusted_roi: b.roi.as_ref().and_then(|r| {
            risk_adjusted_roi(
                r.model_value_usd,
                r.hardware_tco_usd,
                r.migration_cost_usd,
                r.lockin_capital_risk_usd,
            )
        }),
    }
}

/// The seeded Monte Carlo of the first accelerator's run cost (with its MFU and price ranges,
/// when the plan gives them) plus every risk row.
fn monte_carlo_report(plan: &Plan, training: &TrainingReport) -> Option<MonteCarloReport> {
    let choice = plan.accelerators.first()?;
    let run = slider_run(training, &choice.id)?;
    let range = |r: &[f64; 3]| TriangularRange::new(r[0], r[1], r[2]);
    let network = plan.training.network_usd_per_chip_hour;
    let base = BaseCost {
        point_usd: run.cost_usd,
        point_mfu_frac: run.mfu,
        point_usd_per_chip_hour: run.usd_per_chip_hour + network,
        // The plan's spread around its most likely MFU, moved with the slider: the draws are
        // of the run the MFU pane prices, not of the MFU the range was written for.
        mfu_range: choice
            .mfu_range
            .as_ref()
            .map(range)
            .map(|r| r.moved_to(run.mfu, 1.0).unwrap_or(r)),
        // The drawn price is the compute price; the network premium rides on top of it.
        price_range: choice
            .price_range_usd_per_chip_hour
            .as_ref()
            .map(|r| TriangularRange::new(r[0] + network, r[1] + network, r[2] + network)),
    };
    let summary = simulate_total_cost(
        &base,
        &plan.risks,
        plan.monte_carlo.draws as usize,
        plan.monte_carlo.seed,
    )
    .ok()?;
    Some(MonteCarloReport {
        accelerator: run.accelerator.clone(),
        mfu_frac: run.mfu,
        draws: summary.draws,
        seed: summary.seed,
        expected_usd: summary.expected_usd,
        mean_usd: summary.mean_usd,
        p50: summary.p50_usd,
        p90: summary.p90_usd,
        p99: summary.p99_usd,
    })
}

pub fn risk_report(scenarios: &[RiskScenario]) -> RiskReport {
    RiskReport {
        rows: scenarios
            .iter()
            .map(|s| RiskRow {
                scenario: s.scenario.clone(),
                probability: s.probability,
                impact_usd: s.impact_usd,
                unit: s.unit,
                weighted_usd_per_unit: s.weighted_usd_per_unit(),
                expected_count: s.expected_count,
                exposure_usd: s.exposure_usd(),
            })
            .collect(),
        weighted_exposure_usd: weighted_exposure_usd(scenarios),
        monte_carlo: None,
    }
}
