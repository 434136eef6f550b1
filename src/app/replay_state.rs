//! The replay the Contracts pane shows: today's clusters against the split, rerun on the
//! worker when the plan's pools (or what else the replay reads) change, the last result kept on
//! screen until the newer one lands.

use super::{App, Effect, Field};
use crate::model::plan::{Plan, ReplayPlan};
use crate::model::split::ReplayReport;
use crate::model::waterfall::{Waterfall, waterfall};

/// The parts of a plan a replay reads beyond the audit's (clusters, month): when they change,
/// the replay runs again. A change to the audit's inputs audits again, and every audit brings
/// its replay.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayInputs {
    replay: Option<ReplayPlan>,
    checkpoint_interval_minutes: f64,
}

impl ReplayInputs {
    pub fn of(plan: &Plan) -> ReplayInputs {
        ReplayInputs {
            replay: plan.replay.clone(),
            checkpoint_interval_minutes: plan.reliability.checkpoint_interval_minutes,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayState {
    pub generation: u64,
    /// What the latest request read of the plan; None after a new audit.
    pub requested: Option<ReplayInputs>,
    pub result: Option<ReplayReport>,
    pub working: bool,
    pub error: Option<String>,
}

impl App {
    /// Asks for a replay when there is an audit and the plan's replay inputs changed since the
    /// last request.
    pub fn request_replay(&mut self) -> Option<Effect> {
        self.fleet.as_ref()?;
        let inputs = ReplayInputs::of(&self.plan);
        if self.replay.requested.as_ref() == Some(&inputs) {
            return None;
        }
        self.replay.requested = Some(inputs);
        self.replay.generation += 1;
        self.replay.working = true;
        Some(Effect::Replay {
            generation: self.replay.generation,
            plan: Box::new(self.plan.clone()),
        })
    }

    /// The board's waterfall from the contract matching and, once it has landed for the plan
    /// on screen, the replay's split.
    pub fn waterfall(&self) -> Option<Waterfall> {
        let contracts = self.derived.contracts.as_ref()?;
        let replay = self.replay.result.as_ref().filter(|_| !self.replay.working);
        let why_not = match (&self.replay.error, self.replay.working) {
            (Some(e), _) => format!("the replay failed: {e}"),
            (None, true) => "replaying the jobs…".to_string(),
            (None, false) => "no replay yet".to_string(),
        };
        Some(waterfall(contracts, replay, &why_not))
    }

    /// A field's value: the plan's, or for a pool the plan does not size, the size the last
    /// replay used (the contract matcher's base).
    pub fn field_value(&self, field: Field) -> Option<f64> {
        field.get(&self.plan).or_else(|| match field {
            Field::ReplayPool(class) => self
                .replay
                .result
                .as_ref()?
                .split_pools
                .iter()
                .find(|p| p.class == class)
                .map(|p| p.gpus),
            _ => None,
        })
    }
}
