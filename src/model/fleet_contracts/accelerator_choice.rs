//! The waterfall's last step: each class on the accelerator and offers the catalog prices
//! cheapest for it. Every accelerator some offer prices is a candidate; demand from today's
//! clusters is carried over in the candidate's GPUs by what bounds the class's speed (dense
//! BF16 peak for training and burst, memory bandwidth for inference, whose decoding reads every
//! weight for each token), never below one whole GPU per running job, and in delivered
//! capability (a VM delivers less of the same GPU than bare metal).
//!
//! Training needs 80 GB and its largest gang joined (in one NVLink node, or over a fabric
//! between nodes the offer states); inference needs the plan's model to fit in one node at its
//! precision; burst takes whatever is cheapest, spot included (priced with the work preemption
//! makes it redo), because it survives preemption.

use std::collections::BTreeMap;

use serde::Serialize;

use super::fleet_today::{ClusterToday, carried_class_demand, hours_per_point};
use super::match_terms::MatchTerms;
use crate::model::catalog::{Accelerator, Catalog};
use crate::model::contracts::{ContractOffer, MatchResult, match_class};
use crate::model::fleet::AuditReport;
use crate::model::plan::InferencePlan;
use crate::model::workload::WorkloadClass;

/// How much of a candidate accelerator one GPU of today's accelerator is worth.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Normalization {
    pub from: String,
    /// figure(from) / figure(to) by `basis`; 1 when either figure is unknown.
    pub factor: f64,
    /// False when the catalog gives no figure for one side and the factor is taken as 1.
    pub known: bool,
    /// The figure carried by: "dense BF16 peak" or "memory bandwidth".
    pub basis: &'static str,
}

/// One accelerator considered for a class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcceleratorOption {
    pub accelerator: String,
    pub normalization: Vec<Normalization>,
    /// The best mix's cost, when the class can run on it.
    pub cost_usd_per_month: Option<f64>,
    /// Why the class cannot run on it.
    pub why_not: Option<String>,
    /// The class's largest gang in this accelerator's GPUs (1 for classes without gangs).
    pub gang_gpus: f64,
    #[serde(skip)]
    pub result: Option<MatchResult>,
}

/// The model the plan serves, in bytes of weights, and how that was read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServedModel {
    pub params: f64,
    pub bytes_per_param: f64,
    /// Weights plus the KV-cache fragmentation margin.
    pub required_gb: f64,
}

/// Parameters from a model class such as `70B`, `8b`, `1.5T` or `405B`.
pub fn params_of_model_class(model_class: &str) -> Option<f64> {
    let text = model_class.trim();
    let unit = text.chars().last()?;
    let scale = match unit.to_ascii_uppercase() {
        'M' => 1e6,
        'B' => 1e9,
        'T' => 1e12,
        _ => return None,
    };
    let number: f64 = text[..text.len() - unit.len_utf8()].trim().parse().ok()?;
    (number.is_finite() && number > 0.0).then_some(number * scale)
}

/// The plan's served model, when its class names a size.
pub fn served_model(inference: &InferencePlan) -> Option<ServedModel> {
    let params = params_of_model_class(&inference.model_class)?;
    let bytes_per_param = inference.precision.bytes_per_param();
    let required_gb = params * bytes_per_param / 1e9 * (1.0 + inference.mem_fragmentation_frac.max(0.0));
    Some(ServedModel {
        params,
        bytes_per_param,
        required_gb,
    })
}

/// Why the class cannot run on the accelerator, if it cannot.
fn unfit(class: WorkloadClass, accelerator: &Accelerator, model: Option<&ServedModel>) -> Option<String> {
    if class != WorkloadClass::Inference {
        return None;
    }
    let model = model?;
    let node_gb = accelerator.memory_gb * f64::from(accelerator.chips_per_node.max(1));
    (model.required_gb > node_gb).then(|| {
        format!(
            "the model needs {:.0} GB, a node of {} × {:.0} GB holds {:.0} GB",
            model.required_gb, accelerator.chips_per_node, accelerator.memory_gb, node_gb
        )
    })
}

/// Every accelerator the offers price, each with the class's cost on it or why not, cheapest
/// first; those the class cannot use after.
/// What every match of a class reads: today's fleet, its audit, the catalogs, the month.
pub struct MatchContext<'a> {
    pub fleet: &'a [ClusterToday],
    pub audit: &'a AuditReport,
    pub catalog: &'a Catalog,
    pub offers: &'a [ContractOffer],
    pub terms: MatchTerms,
    /// The plan's measured tokens per second per GPU, by accelerator name.
    pub measured_tokens_per_second: &'a BTreeMap<String, f64>,
}

pub fn accelerator_options(
    class: WorkloadClass,
    context: &MatchContext<'_>,
    model: Option<&ServedModel>,
) -> Vec<AcceleratorOption> {
    let MatchContext {
        fleet,
        audit,
        catalog,
        offers,
        terms,
        ..
    } = *context;
    let memory = |id: &str| catalog.accelerator(id).map(|a| a.memory_gb);
    let mut options: Vec<AcceleratorOption> = catalog
        .accelerators
        .iter()
        .filter(|a| offers.iter().any(|o| o.price_for(&a.id).is_some()))
        .map(|candidate| {
            let Carried {
                carries,
                gang_gpus,
                demand,
            } = carried_into(class, &candidate.id, context);
            let mut normalization: Vec<Normalization> = fleet
                .iter()
                .zip(&carries)
                .filter(|(c, _)| audit_has_class(audit, &c.name, class))
                .map(|(c, carry)| Normalization {
                    from: match c.models.len() {
                        0 | 1 => c.accelerator.clone(),
                        models => format!("{}'s {models} models", c.name),
                    },
                    factor: carry.factor,
                    known: carry.known,
                    basis: carry.basis,
                })
                .collect();
            normalization.sort_by(|a, b| a.from.cmp(&b.from));
            normalization.dedup_by(|a, b| a.from == b.from);
            if let Some(why) = unfit(class, candidate, model) {
                return AcceleratorOption {
                    accelerator: candidate.id.clone(),
                    normalization,
                    cost_usd_per_month: None,
                    why_not: Some(why),
                    gang_gpus,
                    result: None,
                };
            }
            let request = terms.request(class, &demand, hours_per_point(audit), &candidate.id, gang_gpus);
            match match_class(&request, offers, memory) {
                Ok(result) => AcceleratorOption {
                    accelerator: candidate.id.clone(),
                    normalization,
                    cost_usd_per_month: Some(result.cost_usd_per_month),
                    why_not: None,
                    gang_gpus,
                    result: Some(result),
                },
                Err(e) => AcceleratorOption {
                    accelerator: candidate.id.clone(),
                    normalization,
                    cost_usd_per_month: None,
                    why_not: Some(e.to_string()),
                    gang_gpus,
                    result: None,
                },
            }
        })
        .collect();
    options.sort_by(|a, b| match (a.cost_usd_per_month, b.cost_usd_per_month) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.accelerator.cmp(&b.accelerator),
    });
    options
}

/// Demand that never started, offered to the matcher beside what ran: each cluster's pending
/// GPU-hours for the class spread evenly over the window's hours, carried to `accelerator` as
/// the demand that ran is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingOffer {
    pub jobs: u64,
    pub gpu_hours_requested: f64,
    /// The best mix on the chosen accelerator with the pending demand added.
    pub cost_usd_per_month: f64,
    /// Over the mix without it.
    pub extra_usd_per_month: f64,
}

pub fn with_pending(
    class: WorkloadClass,
    accelerator: &str,
    context: &MatchContext<'_>,
    without_usd_per_month: f64,
) -> Option<PendingOffer> {
    let MatchContext {
        fleet,
        audit,
        catalog,
        offers,
        terms,
        ..
    } = *context;
    let jobs: u64 = audit.clusters.iter().map(|c| c.pending.get(class).jobs).sum();
    let requested: f64 = audit
        .clusters
        .iter()
        .map(|c| c.pending.get(class).gpu_hours_requested)
        .sum();
    if jobs == 0 || requested <= 0.0 {
        return None;
    }
    let Carried {
        carries,
        gang_gpus,
        mut demand,
    } = carried_into(class, accelerator, context);
    let weight = |i: usize| fleet[i].deployment.delivered_capability_frac() * carries[i].factor;
    let hours = demand.len().max(1) as f64;
    let extra: f64 = audit
        .clusters
        .iter()
        .enumerate()
        .map(|(i, c)| c.pending.get(class).gpu_hours_requested / hours * weight(i))
        .sum();
    for slot in &mut demand {
        *slot += extra;
    }
    let memory = |id: &str| catalog.accelerator(id).map(|a| a.memory_gb);
    let request = terms.request(class, &demand, hours_per_point(audit), accelerator, gang_gpus);
    let result = match_class(&request, offers, memory).ok()?;
    Some(PendingOffer {
        jobs,
        gpu_hours_requested: requested,
        cost_usd_per_month: result.cost_usd_per_month,
        extra_usd_per_month: result.cost_usd_per_month - without_usd_per_month,
    })
}

/// The plan's measured tokens per second of an accelerator, by any name the catalog knows it by.
fn measured(catalog: &Catalog, measured: &BTreeMap<String, f64>, id: &str) -> Option<f64> {
    measured
        .iter()
        .find(|(name, _)| catalog.accelerator(name).is_some_and(|a| a.id == id))
        .map(|(_, &tps)| tps)
        .filter(|tps| tps.is_finite() && *tps > 0.0)
}

/// How much of `to` one GPU of `from` is worth for a class, and by what figure.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Carry {
    factor: f64,
    /// False when the catalog lacks a figure for one side and the factor is taken as 1.
    known: bool,
    basis: &'static str,
}

/// Inference by the plan's measured tokens per second when both sides have one, else by memory
/// bandwidth, since decoding a token reads every weight; training and burst by dense BF16 peak.
fn carry(catalog: &Catalog, class: WorkloadClass, measured_tps: &BTreeMap<String, f64>, from: &str, to: &str) -> Carry {
    if class == WorkloadClass::Inference
        && let (Some(from), Some(to)) = (
            measured(catalog, measured_tps, from),
            measured(catalog, measured_tps, to),
        )
    {
        return Carry {
            factor: from / to,
            known: true,
            basis: "measured tokens per second",
        };
    }
    let inference = class == WorkloadClass::Inference;
    let figure = |id: &str| {
        catalog
            .accelerator(id)
            .map(|a| {
                if inference {
                    a.memory_bandwidth_tbps
                } else {
                    a.bf16_dense_tflops
                }
            })
            .filter(|p| p.is_finite() && *p > 0.0)
    };
    let (factor, known) = match (figure(from), figure(to)) {
        (Some(from), Some(to)) => (from / to, true),
        _ => (1.0, false),
    };
    Carry {
        factor,
        known,
        basis: if inference {
            "memory bandwidth"
        } else {
            "dense BF16 peak"
        },
    }
}

/// A cluster's carry: its models' carries weighed by their shares of its GPU-hours (its own
/// accelerator's where it holds one model); known only where every model's figure is.
fn cluster_carry(cluster: &ClusterToday, carry_from: impl Fn(&str) -> Carry) -> Carry {
    if cluster.models.len() < 2 {
        return carry_from(&cluster.accelerator);
    }
    let mut blended = Carry {
        factor: 0.0,
        known: true,
        basis: carry_from(&cluster.accelerator).basis,
    };
    for model in &cluster.models {
        let one = carry_from(&model.accelerator);
        blended.factor += model.gpu_hours_frac * one.factor;
        blended.known &= one.known && model.known;
    }
    blended
}

/// Today's clusters carried into `to`: each cluster's carry, the class's largest gang in `to`'s
/// GPUs (shrunk by the largest factor of the clusters it may have run on) and its demand.
struct Carried {
    carries: Vec<Carry>,
    gang_gpus: f64,
    demand: Vec<f64>,
}

fn carried_into(class: WorkloadClass, to: &str, context: &MatchContext<'_>) -> Carried {
    let MatchContext {
        fleet,
        audit,
        catalog,
        terms,
        measured_tokens_per_second,
        ..
    } = *context;
    let carries: Vec<Carry> = fleet
        .iter()
        .map(|c| cluster_carry(c, |from| carry(catalog, class, measured_tokens_per_second, from, to)))
        .collect();
    let gang_factor = fleet
        .iter()
        .zip(&carries)
        .filter(|(c, _)| audit_has_class(audit, &c.name, class))
        .map(|(_, carry)| carry.factor)
        .fold(0.0, f64::max);
    let demand = carried_class_demand(
        audit,
        class,
        |i| fleet[i].deployment.delivered_capability_frac(),
        |i| carries[i].factor,
    );
    Carried {
        gang_gpus: terms.gang_gpus(class, gang_factor),
        carries,
        demand,
    }
}

fn audit_has_class(audit: &AuditReport, cluster: &str, class: WorkloadClass) -> bool {
    audit
        .clusters
        .iter()
        .any(|c| c.name == cluster && c.classes.get(class).jobs > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_classes_read_as_parameter_counts() {
        assert_eq!(params_of_model_class("70B"), Some(70e9));
        assert_eq!(params_of_model_class(" 8b "), Some(8e9));
        assert_eq!(params_of_model_class("1.5T"), Some(1.5e12));
        assert_eq!(params_of_model_class("350M"), Some(350e6));
        assert_eq!(params_of_model_class("large"), None);
        assert_eq!(params_of_model_class("B"), None);
        assert_eq!(params_of_model_class("-7B"), None);
        assert_eq!(params_of_model_class("7€"), None);
    }

    fn accelerator(memory_gb: f64, chips_per_node: u32) -> Accelerator {
        Accelerator {
            id: "x".into(),
            name: "x".into(),
            vendor: "x".into(),
            custom_silicon: false,
            aliases: Vec::new(),
            bf16_dense_tflops: 197.0,
            fp8_dense_tflops: None,
            memory_gb,
            memory_bandwidth_tbps: 0.8,
            scale_up_gb_per_s: 100.0,
            interconnect: String::new(),
            chips_per_node,
            source: String::new(),
            as_of: String::new(),
        }
    }

    #[test]
    fn inference_moves_by_bandwidth_unless_both_sides_were_measured() {
        let catalog = crate::config::catalog::builtin().catalog;
        let none = BTreeMap::new();
        let h100_in_h200 = carry(&catalog, WorkloadClass::Inference, &none, "h100-sxm", "h200-sxm");
        assert!(h100_in_h200.known && (h100_in_h200.factor - 3.35 / 4.8).abs() < 1e-12);
        assert_eq!(h100_in_h200.basis, "memory bandwidth");
        // Training keeps the BF16 peaks: the two are the same silicon.
        let training = carry(&catalog, WorkloadClass::Training, &none, "h100-sxm", "h200-sxm");
        assert_eq!((training.factor, training.basis), (1.0, "dense BF16 peak"));
        // Measured on both, by names the catalog knows them by: their ratio.
        let measured = BTreeMap::from([("H100".to_string(), 2_400.0), ("h200-sxm".to_string(), 3_000.0)]);
        let both = carry(&catalog, WorkloadClass::Inference, &measured, "h100-sxm", "h200-sxm");
        assert!((both.factor - 0.8).abs() < 1e-12);
        assert_eq!(both.basis, "measured tokens per second");
        // One side measured is not a ratio: bandwidth again.
        let one = carry(&catalog, WorkloadClass::Inference, &measured, "h100-sxm", "b200");
        assert!((one.factor - 3.35 / 8.0).abs() < 1e-12);
        assert_eq!(one.basis, "memory bandwidth");
    }

    #[test]
    fn inference_needs_the_model_in_one_node_and_other_classes_do_not() {
        // 70B in bf16 with 15 % fragmentation: 161 GB.
        let model = ServedModel {
            params: 70e9,
            bytes_per_param: 2.0,
            required_gb: 70e9 * 2.0 / 1e9 * 1.15,
        };
        let tpu_like = accelerator(16.0, 8);
        let why = unfit(WorkloadClass::Inference, &tpu_like, Some(&model)).expect("does not fit");
        assert!(why.contains("161 GB") && why.contains("128 GB"), "{why}");
        assert_eq!(
            unfit(WorkloadClass::Inference, &accelerator(80.0, 8), Some(&model)),
            None
        );
        assert_eq!(unfit(WorkloadClass::Burst, &tpu_like, Some(&model)), None);
        assert_eq!(unfit(WorkloadClass::Inference, &tpu_like, None), None);
        // In int4 the same model is 40 GB and fits.
        let int4 = ServedModel {
            bytes_per_param: 0.5,
            required_gb: 70e9 * 0.5 / 1e9 * 1.15,
            ..model
        };
        assert_eq!(unfit(WorkloadClass::Inference, &tpu_like, Some(&int4)), None);
    }
}
