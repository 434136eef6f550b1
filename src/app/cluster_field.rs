//! A plan cluster's values the Workloads pane edits in its cluster drill: the price per
//! GPU-hour, the capacity in GPUs, the contract term and the deployment. A term or a deployment
//! is a choice among the model's own (`Term::ALL`, `Deployment::ALL`): edited as its place in
//! that list, so a step is the next choice, and typed by name.

use super::error::InputError;
use crate::model::catalog::Term;
use crate::model::deployment::Deployment;
use crate::model::plan::{ClusterCost, Plan};
use crate::shared::format::{gpu_count, usd};

/// Far beyond any real GPU's hourly price, so a typo cannot reach the plan.
pub const MAX_USD_PER_GPU_HOUR: f64 = 10_000.0;
/// A cent: a price must be above 0 (`Plan::problems`), and a step down stops here, not at 0.
pub const MIN_USD_PER_GPU_HOUR: f64 = 0.01;
/// Far beyond any real cluster.
pub const MAX_CLUSTER_GPUS: f64 = 10_000_000.0;

/// A value of `plan.clusters[i]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterField {
    UsdPerGpuHour(usize),
    Gpus(usize),
    Term(usize),
    Deployment(usize),
}

impl ClusterField {
    /// The editable values of `plan.clusters[i]`, in the order the pane lists them.
    pub fn all(i: usize) -> [ClusterField; 4] {
        [
            ClusterField::UsdPerGpuHour(i),
            ClusterField::Gpus(i),
            ClusterField::Term(i),
            ClusterField::Deployment(i),
        ]
    }

    pub fn cluster(self) -> usize {
        match self {
            ClusterField::UsdPerGpuHour(i)
            | ClusterField::Gpus(i)
            | ClusterField::Term(i)
            | ClusterField::Deployment(i) => i,
        }
    }

    fn of(self, plan: &Plan) -> Option<&ClusterCost> {
        plan.clusters.get(self.cluster())
    }

    /// The key in the plan file, as validation and diagnostics spell it.
    pub fn key(self) -> &'static str {
        match self {
            ClusterField::UsdPerGpuHour(_) => "usd_per_gpu_hour",
            ClusterField::Gpus(_) => "gpus",
            ClusterField::Term(_) => "term",
            ClusterField::Deployment(_) => "deployment",
        }
    }

    pub fn key_path(self) -> String {
        format!("clusters[{}].{}", self.cluster(), self.key())
    }

    pub fn label(self, plan: &Plan) -> String {
        let name = self.of(plan).map_or("?", |c| c.name.as_str());
        match self {
            ClusterField::UsdPerGpuHour(_) => format!("price per GPU-hour of '{name}', USD"),
            ClusterField::Gpus(_) => format!("GPUs of '{name}'"),
            ClusterField::Term(_) => format!("contract term of '{name}'"),
            ClusterField::Deployment(_) => format!("deployment of '{name}'"),
        }
    }

    pub fn get(self, plan: &Plan) -> Option<f64> {
        let cluster = self.of(plan)?;
        match self {
            ClusterField::UsdPerGpuHour(_) => Some(cluster.usd_per_gpu_hour),
            ClusterField::Gpus(_) => Some(cluster.gpus),
            ClusterField::Term(_) => Term::ALL.iter().position(|t| *t == cluster.term).map(|i| i as f64),
            ClusterField::Deployment(_) => Deployment::ALL
                .iter()
                .position(|d| *d == cluster.deployment)
                .map(|i| i as f64),
        }
    }

    /// Sets a value already within bounds; false when the cluster no longer exists.
    pub fn set(self, plan: &mut Plan, value: f64) -> bool {
        let Some(cluster) = plan.clusters.get_mut(self.cluster()) else {
            return false;
        };
        let choice = |count: usize| (value.round().max(0.0) as usize).min(count - 1);
        match self {
            // Steps land on round numbers: $4.55, not $4.5500000001.
            ClusterField::UsdPerGpuHour(_) => cluster.set_usd_per_gpu_hour((value * 1e9).round() / 1e9),
            // A count as typed, fractions kept (shared GPUs), without float noise.
            ClusterField::Gpus(_) => cluster.set_gpus((value * 1e6).round() / 1e6),
            ClusterField::Term(_) => cluster.term = Term::ALL[choice(Term::ALL.len())],
            ClusterField::Deployment(_) => cluster.deployment = Deployment::ALL[choice(Deployment::ALL.len())],
        }
        true
    }

    /// What the plan file's validation allows (`Plan::problems`: a price above 0, at least one
    /// GPU), short of sizes no real cluster has.
    pub fn bounds(self) -> (f64, f64) {
        match self {
            ClusterField::UsdPerGpuHour(_) => (MIN_USD_PER_GPU_HOUR, MAX_USD_PER_GPU_HOUR),
            ClusterField::Gpus(_) => (1.0, MAX_CLUSTER_GPUS),
            ClusterField::Term(_) => (0.0, (Term::ALL.len() - 1) as f64),
            ClusterField::Deployment(_) => (0.0, (Deployment::ALL.len() - 1) as f64),
        }
    }

    /// (fine, coarse) steps added, or None for the price, which steps by a share as other money.
    pub fn added_steps(self) -> Option<(f64, f64)> {
        match self {
            ClusterField::UsdPerGpuHour(_) => None,
            // A GPU, or a node of eight.
            ClusterField::Gpus(_) => Some((1.0, 8.0)),
            // The next choice either way.
            ClusterField::Term(_) | ClusterField::Deployment(_) => Some((1.0, 1.0)),
        }
    }

    /// The value as the entry dialog offers it: it reads back as the same value.
    pub fn editable_text(self, value: f64) -> String {
        match self {
            ClusterField::Term(_) | ClusterField::Deployment(_) => self.show(value),
            _ => format!("{value}"),
        }
    }

    pub fn show(self, value: f64) -> String {
        let choice = |count: usize| (value.round().max(0.0) as usize).min(count - 1);
        match self {
            ClusterField::UsdPerGpuHour(_) => {
                let cents = (value * 100.0).round() / 100.0;
                let money = if value >= 100.0 || (value - cents).abs() < 1e-9 {
                    usd(value)
                } else {
                    format!("${value:.4}")
                };
                format!("{money}/h")
            }
            ClusterField::Gpus(_) if value == 1.0 => "1 GPU".to_string(),
            ClusterField::Gpus(_) => format!("{} GPUs", gpu_count(value)),
            ClusterField::Term(_) => Term::ALL[choice(Term::ALL.len())].label().to_string(),
            ClusterField::Deployment(_) => Deployment::ALL[choice(Deployment::ALL.len())].label().to_string(),
        }
    }

    /// Reads a term or a deployment by name (`1-year`, `1 year`; `bare metal`, `bare-metal`);
    /// None for the values typed as numbers.
    pub fn parse_choice(self, text: &str) -> Option<Result<f64, InputError>> {
        let typed = text.trim();
        let wanted = squeezed(typed);
        let names: Vec<&str> = match self {
            ClusterField::Term(_) => Term::ALL.iter().map(|t| t.label()).collect(),
            ClusterField::Deployment(_) => Deployment::ALL.iter().map(|d| d.label()).collect(),
            _ => return None,
        };
        let found = names.iter().position(|name| squeezed(name) == wanted).or_else(|| {
            // `metal` for bare metal, as people say it.
            (matches!(self, ClusterField::Deployment(_)) && wanted == "metal").then_some(1)
        });
        Some(found.map(|i| i as f64).ok_or_else(|| InputError::NotAChoice {
            text: typed.to_string(),
            choices: names.join(", "),
        }))
    }
}

/// Lower case without spaces, hyphens or underscores: `On Demand` and `on-demand` read alike.
fn squeezed(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::catalog::builtin;
    use crate::config::plan_file::default_plan;

    fn plan() -> Plan {
        default_plan(&builtin().catalog).expect("the built-in plan")
    }

    #[test]
    fn each_value_reads_and_writes_its_own_cluster() {
        let mut plan = plan();
        let last = plan.clusters.len() - 1;
        assert!(ClusterField::Gpus(last).set(&mut plan, 144.0));
        assert!(ClusterField::UsdPerGpuHour(last).set(&mut plan, 7.224));
        assert!(ClusterField::Term(last).set(&mut plan, 3.0));
        assert!(ClusterField::Deployment(last).set(&mut plan, 1.0));
        let cluster = &plan.clusters[last];
        assert_eq!(cluster.gpus, 144.0);
        assert_eq!(cluster.usd_per_gpu_hour, 7.224);
        assert_eq!(cluster.term, Term::OneYear);
        assert_eq!(cluster.deployment, Deployment::BareMetal);
        assert_eq!(ClusterField::Term(last).get(&plan), Some(3.0));
        assert_eq!(ClusterField::Deployment(last).get(&plan), Some(1.0));
        assert_eq!(plan.clusters[0], self::plan().clusters[0], "the others stay");
        assert!(!ClusterField::Gpus(last + 1).set(&mut plan, 8.0), "no such cluster");
        assert_eq!(ClusterField::Gpus(last + 1).get(&plan), None);
    }

    #[test]
    fn terms_and_deployments_are_typed_by_name_and_shown_as_named() {
        let term = ClusterField::Term(0);
        assert_eq!(term.parse_choice("1-year"), Some(Ok(3.0)));
        assert_eq!(term.parse_choice(" On Demand "), Some(Ok(1.0)));
        assert_eq!(term.parse_choice("3 year"), Some(Ok(4.0)));
        let refused = term.parse_choice("forever").expect("a choice").expect_err("not a term");
        assert_eq!(
            refused.to_string(),
            "'forever' is not one of: spot, on-demand, monthly, 1-year, 3-year"
        );
        let deployment = ClusterField::Deployment(0);
        assert_eq!(deployment.parse_choice("bare-metal"), Some(Ok(1.0)));
        assert_eq!(deployment.parse_choice("metal"), Some(Ok(1.0)));
        assert_eq!(deployment.parse_choice("VM"), Some(Ok(0.0)));
        assert_eq!(deployment.show(1.0), "bare metal");
        for (i, t) in Term::ALL.iter().enumerate() {
            let text = term.editable_text(i as f64);
            assert_eq!(text, t.label());
            assert_eq!(term.parse_choice(&text), Some(Ok(i as f64)));
        }
        assert_eq!(
            ClusterField::Gpus(0).parse_choice("12"),
            None,
            "numbers read as numbers"
        );
    }

    #[test]
    fn prices_show_their_cents_or_their_fraction_of_a_cent() {
        let price = ClusterField::UsdPerGpuHour(0);
        assert_eq!(price.show(6.88), "$6.88/h");
        assert_eq!(price.show(5.815154), "$5.8152/h");
        assert_eq!(price.show(1_250.0), "$1,250/h");
        assert_eq!(ClusterField::Gpus(0).show(1.0), "1 GPU");
        assert_eq!(ClusterField::Gpus(0).show(1_024.0), "1,024 GPUs");
    }
}
