//! What the workbench draws around the plan's numbers: a training run's cost as a function of
//! MFU for each accelerator, and the plan's inference cost carried to the other accelerators.

use serde::Serialize;

use super::catalog::Catalog;
use super::evaluate::{MfuSource, training_run};
use super::inference::{cost_per_billion_tokens_usd, etic_usd_per_million_tokens};
use super::plan::Plan;

/// The MFU axis of the cost curves: realistic training runs sit between these (docs/economics.md, "Accelerator reference figures").
pub const CURVE_MFU_MIN_FRAC: f64 = 0.10;
pub const CURVE_MFU_MAX_FRAC: f64 = 0.70;
const CURVE_STEP_FRAC: f64 = 0.01;

/// One accelerator's training-run cost across the MFU axis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostCurve {
    pub accelerator: String,
    /// (MFU as a fraction, run cost in USD), MFU ascending.
    pub points: Vec<(f64, f64)>,
    /// The plan's slider position and the cost there.
    pub slider: (f64, f64),
}

/// The cost of the plan's training run on each of its accelerators, MFU 10 % to 70 %.
pub fn cost_curves(plan: &Plan, catalog: &Catalog) -> Vec<CostCurve> {
    let steps = ((CURVE_MFU_MAX_FRAC - CURVE_MFU_MIN_FRAC) / CURVE_STEP_FRAC).round() as usize;
    plan.accelerators
        .iter()
        .filter_map(|choice| {
            let slider = training_run(plan, catalog, choice, choice.mfu, MfuSource::Slider)?;
            let points = (0..=steps)
                .filter_map(|i| {
                    let mfu = CURVE_MFU_MIN_FRAC + i as f64 * CURVE_STEP_FRAC;
                    training_run(plan, catalog, choice, mfu, MfuSource::Point).map(|run| (mfu, run.cost_usd))
                })
                .collect();
            Some(CostCurve {
                accelerator: slider.accelerator.clone(),
                points,
                slider: (slider.mfu, slider.cost_usd),
            })
        })
        .collect()
}

/// The plan's inference service priced on another accelerator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InferenceOnAccelerator {
    pub accelerator: String,
    /// True for the plan's own inference accelerator: its figures are the plan's, unscaled.
    pub is_plan: bool,
    pub cluster_usd_per_month: f64,
    pub throughput_tokens_per_hour: f64,
    pub etic_usd_per_million_tokens: f64,
    pub cost_per_billion_tokens_usd: Option<f64>,
}

/// The plan's inference cost on each of its accelerators. The service keeps its node count;
/// a node's cost scales with the accelerator's chip-hour price (the plan's price for it) and
/// its throughput with memory bandwidth, since decoding is bandwidth-bound. An estimate to
/// rank accelerators, not a measurement: the plan's own accelerator row is exact.
pub fn inference_across_accelerators(plan: &Plan, catalog: &Catalog) -> Vec<InferenceOnAccelerator> {
    let inf = &plan.inference;
    let base = catalog.accelerator(&inf.accelerator);
    let price_of = |id: &str| -> Option<f64> {
        let choice = plan.accelerators.iter().find(|c| {
            catalog
                .accelerator(&c.id)
                .is_some_and(|a| a.id == id || a.answers_to(id))
        })?;
        choice.resolve_price(catalog).ok().map(|p| p.usd_per_chip_hour())
    };
    let base_node_usd_per_hour = base.and_then(|a| price_of(&a.id).map(|p| p * f64::from(a.chips_per_node)));
    let mut rows = Vec::new();
    for choice in &plan.accelerators {
        let Some(accelerator) = catalog.accelerator(&choice.id) else {
            continue;
        };
        let is_plan = base.is_some_and(|b| b.id == accelerator.id);
        let (cluster_usd_per_month, throughput) = if is_plan {
            (
                f64::from(inf.nodes) * inf.node_usd_per_month,
                inf.throughput_tokens_per_hour,
            )
        } else {
            let (Some(base), Some(base_node_usd_per_hour), Some(price)) =
                (base, base_node_usd_per_hour, price_of(&accelerator.id))
            else {
                continue;
            };
            let node_usd_per_hour = price * f64::from(accelerator.chips_per_node);
            let node_ratio = node_usd_per_hour / base_node_usd_per_hour;
            let bandwidth_ratio = (accelerator.memory_bandwidth_tbps * f64::from(accelerator.chips_per_node))
                / (base.memory_bandwidth_tbps * f64::from(base.chips_per_node));
            (
                f64::from(inf.nodes) * inf.node_usd_per_month * node_ratio,
                inf.throughput_tokens_per_hour * bandwidth_ratio,
            )
        };
        rows.push(InferenceOnAccelerator {
            accelerator: accelerator.id.clone(),
            is_plan,
            cluster_usd_per_month,
            throughput_tokens_per_hour: throughput,
            etic_usd_per_million_tokens: etic_usd_per_million_tokens(
                cluster_usd_per_month / plan.hours_per_month,
                throughput,
                inf.mem_fragmentation_frac,
            ),
            cost_per_billion_tokens_usd: cost_per_billion_tokens_usd(
                cluster_usd_per_month,
                inf.energy_usd_per_month,
                inf.tokens_per_month,
            ),
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::catalog::builtin;
    use crate::config::plan_file::default_plan;

    #[test]
    fn curves_fall_as_mfu_rises_and_pass_through_the_slider() {
        let catalog = builtin().catalog;
        let plan = default_plan(&catalog).expect("default plan");
        let curves = cost_curves(&plan, &catalog);
        assert_eq!(curves.len(), plan.accelerators.len());
        for curve in &curves {
            assert!(
                curve.points.windows(2).all(|w| w[1].1 < w[0].1),
                "{}",
                curve.accelerator
            );
            let (mfu, cost) = curve.slider;
            let near = curve
                .points
                .iter()
                .find(|(m, _)| (m - mfu).abs() < 1e-9)
                .expect("slider on the grid");
            assert!((near.1 - cost).abs() / cost < 1e-9);
        }
    }

    #[test]
    fn the_plan_accelerator_row_is_the_plan_itself() {
        let catalog = builtin().catalog;
        let plan = default_plan(&catalog).expect("default plan");
        let rows = inference_across_accelerators(&plan, &catalog);
        let own = rows.iter().find(|r| r.is_plan).expect("plan row");
        assert_eq!(own.cluster_usd_per_month, 80_000.0);
        assert_eq!(own.throughput_tokens_per_hour, 100e6);
        // (80,000 + 6,000) / 60e9 tokens * 1e9 = $1,433.33 per billion.
        let cpbt = own.cost_per_billion_tokens_usd.expect("volume > 0");
        assert!((cpbt - 1433.333).abs() < 0.01, "{cpbt}");
        assert!(rows.len() > 1);
    }
}
