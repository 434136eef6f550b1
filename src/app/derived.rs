//! Every number the panes show, computed from the plan (and the audited fleet) in one place,
//! synchronously: a slider step changes every pane in the same frame.

use crate::model::catalog::Catalog;
use crate::model::commitment_layers::{StayPlan, stay_with_providers};
use crate::model::evaluate::{Evaluation, evaluate};
use crate::model::fleet::AuditReport;
use crate::model::fleet_contracts::{ContractsReport, contracts_report};
use crate::model::plan::{Plan, PlanProblem};
use crate::model::sensitivity::{CostCurve, InferenceOnAccelerator, cost_curves, inference_across_accelerators};

#[derive(Debug, Clone)]
pub struct Derived {
    pub evaluation: Evaluation,
    pub curves: Vec<CostCurve>,
    pub inference_across: Vec<InferenceOnAccelerator>,
    /// Problems of the plan against the catalog; the numbers skip what they concern.
    pub problems: Vec<PlanProblem>,
    pub contracts: Option<ContractsReport>,
    /// Every cluster kept with its provider: the waterfall's "stay" beside "switch".
    pub stay: Option<StayPlan>,
}

impl Derived {
    pub fn compute(plan: &Plan, catalog: &Catalog, fleet: Option<&AuditReport>) -> Derived {
        Derived {
            evaluation: evaluate(plan, catalog),
            curves: cost_curves(plan, catalog),
            inference_across: inference_across_accelerators(plan, catalog),
            problems: plan.problems(catalog),
            contracts: None,
            stay: None,
        }
        .with_contracts(plan, catalog, fleet)
    }

    /// The contract matching of the fleet and, on it, staying with today's providers: what
    /// the pipeline's board computes the same way.
    fn with_contracts(mut self, plan: &Plan, catalog: &Catalog, fleet: Option<&AuditReport>) -> Derived {
        self.refresh_contracts(plan, catalog, fleet);
        self
    }

    /// Recomputes what depends on the plan alone and keeps the contract matching, which reads
    /// only the fleet, the clusters and the month.
    pub fn refresh_plan(&mut self, plan: &Plan, catalog: &Catalog) {
        self.evaluation = evaluate(plan, catalog);
        self.curves = cost_curves(plan, catalog);
        self.inference_across = inference_across_accelerators(plan, catalog);
        self.problems = plan.problems(catalog);
    }

    pub fn refresh_contracts(&mut self, plan: &Plan, catalog: &Catalog, fleet: Option<&AuditReport>) {
        self.contracts = fleet.and_then(|f| contracts_report(plan, catalog, f));
        self.stay = match (fleet, &self.contracts) {
            (Some(audit), Some(c)) => Some(stay_with_providers(&c.fleet, audit, catalog, c.hours_per_month)),
            _ => None,
        };
    }

    /// The run cost at the slider of the plan's accelerator `accelerator_id`.
    pub fn slider_cost_usd(&self, accelerator_id: &str) -> Option<f64> {
        self.curves
            .iter()
            .find(|c| c.accelerator == accelerator_id)
            .map(|c| c.slider.1)
    }
}
