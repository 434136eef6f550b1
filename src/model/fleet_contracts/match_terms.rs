//! What every match of a plan's fleet shares beyond the demand: the month, when the new
//! capacity is needed, what preemption makes spot redo, and each class's largest gang.

use crate::model::contracts::{CapabilityRequirement, MatchRequest};
use crate::model::fleet::AuditReport;
use crate::model::plan::{DEFAULT_NEEDED_WITHIN_WEEKS, Plan};
use crate::model::workload::WorkloadClass;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchTerms {
    pub hours_per_month: f64,
    /// Offers with a longer stated lead time are left out.
    pub needed_within_weeks: f64,
    /// Spot hours bought per hour of work: 1 when the plan's reliability figures give none.
    pub spot_hours_per_work_hour: f64,
    /// The most GPUs one run of each class held (`WorkloadClass as usize`), in today's GPUs.
    pub largest_run_gpus: [f64; 3],
}

impl MatchTerms {
    pub fn of(plan: &Plan, audit: &AuditReport) -> MatchTerms {
        let reliability = &plan.reliability;
        MatchTerms {
            hours_per_month: plan.hours_per_month,
            needed_within_weeks: plan
                .moving
                .as_ref()
                .and_then(|m| m.needed_within_weeks)
                .unwrap_or(DEFAULT_NEEDED_WITHIN_WEEKS),
            spot_hours_per_work_hour: reliability
                .spot_hours_per_work_hour(reliability.mtbi_hours)
                .unwrap_or(1.0),
            largest_run_gpus: WorkloadClass::ALL.map(|class| audit.classes.get(class).largest_run_gpus),
        }
    }

    /// The class's largest gang in GPUs of an accelerator `factor` times as fast as today's
    /// (1 for a class that runs no gangs): whole GPUs, a hair of float error never rounding up.
    pub fn gang_gpus(&self, class: WorkloadClass, factor: f64) -> f64 {
        if class != WorkloadClass::Training {
            return 1.0;
        }
        let factor = if factor.is_finite() && factor > 0.0 {
            factor
        } else {
            1.0
        };
        (self.largest_run_gpus[class as usize] * factor - 1e-9).ceil().max(1.0)
    }

    /// The matcher's request for a class's demand on one accelerator: burst alone may take
    /// spot (priced with its preemption), training alone needs 80 GB and its largest gang
    /// (`gang_gpus`, in the accelerator's GPUs) joined.
    pub fn request<'a>(
        &self,
        class: WorkloadClass,
        hourly_gpus: &'a [f64],
        hours_per_point: f64,
        accelerator_id: &'a str,
        gang_gpus: f64,
    ) -> MatchRequest<'a> {
        let requirement = if class == WorkloadClass::Training {
            CapabilityRequirement::training(gang_gpus.max(1.0))
        } else {
            CapabilityRequirement::NONE
        };
        MatchRequest {
            hourly_gpus,
            hours_per_point,
            accelerator_id,
            tolerates_preemption: class == WorkloadClass::Burst,
            requirement,
            hours_per_month: self.hours_per_month,
            consolidated_usd: None,
            needed_within_weeks: Some(self.needed_within_weeks),
            spot_hours_per_work_hour: self.spot_hours_per_work_hour,
        }
    }
}
