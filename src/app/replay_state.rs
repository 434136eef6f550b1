//! The replay the Contracts pane shows: today's clusters against the split, rerun on the
//! worker when what it consumes (the split's pools and scheduling) changes, the last result kept on
//! screen until the newer one lands.

use super::{App, Effect};
use crate::model::saving_drivers::board_inputs;
use crate::model::split::{ReplayReport, ReplaySetup};
use crate::model::waterfall::{Waterfall, waterfall};
use crate::model::workload::WorkloadClass;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayState {
    pub generation: u64,
    /// What the latest request replays (pools and scheduling); None after a new audit.
    pub requested: Option<ReplaySetup>,
    pub result: Option<ReplayReport>,
    pub working: bool,
    pub error: Option<String>,
}

impl App {
    /// Asks for a replay when there is an audit and what the replay consumes (the split's pools
    /// and scheduling, `ReplaySetup`, compared whole) changed since the last request.
    pub fn request_replay(&mut self) -> Option<Effect> {
        let fleet = self.fleet.as_ref()?;
        let setup = ReplaySetup::of(&self.plan, self.derived.contracts.as_ref(), &fleet.report);
        if self.replay.requested.as_ref() == Some(&setup) {
            return None;
        }
        self.replay.requested = Some(setup);
        self.replay.generation += 1;
        self.replay.working = true;
        Some(Effect::Replay {
            generation: self.replay.generation,
            plan: Box::new(self.plan.clone()),
        })
    }

    /// What the board's headline still waits for while a background step runs (a re-audit,
    /// the replay's split, the forecast's demand): its figures until then are drawn as waiting,
    /// not current.
    pub fn board_pending(&self) -> Option<&'static str> {
        if self.fleet.is_some() && matches!(self.fleet_status, super::FleetStatus::Working { .. }) {
            Some("auditing again")
        } else if self.replay.working {
            Some("replaying the jobs")
        } else if self.forecast.working {
            Some("fitting the forecast")
        } else {
            None
        }
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
        // The demand driver's spread: the forecast shown for this plan, else assumed (said so);
        // each class bought as the purchase the Contracts pane recommends.
        let inputs = board_inputs(
            contracts,
            &self.plan,
            &self.catalog,
            self.forecast.shown.as_ref(),
            self.forecast.commitments.as_ref(),
        );
        Some(waterfall(
            contracts,
            replay,
            &why_not,
            self.derived.stay.as_ref(),
            &inputs,
        ))
    }

    /// The GPUs the last replay gave a class's pool (the contract matcher's base), for a pool
    /// the plan does not size.
    pub fn replayed_pool_gpus(&self, class: WorkloadClass) -> Option<f64> {
        self.replay
            .result
            .as_ref()?
            .split_pools
            .iter()
            .find(|p| p.class == class)
            .map(|p| p.gpus)
    }
}
