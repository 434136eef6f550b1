//! Plans side by side on the same logs: the one comparison `gpuplan diff` prints and the
//! workbench's compare view draws. The plan-only rows (training, inference, risk, checks) come
//! from `model::compare::compare_plans`; with logs, each plan audits them with its own clusters,
//! builds its board and replays their jobs, adding the fleet, board and replay rows.

use super::Pipeline;
use super::error::PipelineError;
use super::observer::Quiet;
use super::sources::Sources;
use crate::model::compare::waterfall_outputs;
use crate::model::compare::{FleetFigures, PlanComparison, compare_plans, fleet_outputs, replay_outputs};
use crate::model::plan::Plan;
use crate::model::split::ReplayReport;
use crate::model::waterfall::Waterfall;

/// A comparison, and what could not be compared (a plan whose jobs could not be replayed).
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    pub comparison: PlanComparison,
    /// One line per plan that lacks some rows, naming it and why.
    pub warnings: Vec<String>,
}

/// What one plan made of the logs.
#[derive(Default)]
struct Outcome {
    fleet: Option<FleetFigures>,
    replay: Option<ReplayReport>,
    waterfall: Option<Waterfall>,
}

impl Pipeline {
    /// Every row of the comparison of `plans` (the first is the baseline of each delta); with
    /// `sources`, each plan's fleet, board and replay on them. A source that cannot be read at
    /// all is an error; a plan whose audit or replay fails lacks those rows and says why.
    pub fn compare(&mut self, plans: &[(String, Plan)], sources: Option<&Sources>) -> Result<Compared, PipelineError> {
        let mut comparison = compare_plans(plans, self.catalog());
        let mut warnings = Vec::new();
        let Some(sources) = sources.filter(|s| !s.is_empty()) else {
            return Ok(Compared { comparison, warnings });
        };
        let mut outcomes: Vec<Outcome> = plans.iter().map(|_| Outcome::default()).collect();
        // The first plan last: its audit and replay stay the ones the pipeline keeps, which the
        // workbench (whose plan it is) reads next.
        let order = (1..plans.len()).chain((!plans.is_empty()).then_some(0));
        for i in order {
            let (label, plan) = &plans[i];
            let settings = super::report::report_settings(self, plan);
            let audited = self
                .audit(sources, &settings, &mut Quiet)
                .map(|audited| FleetFigures::of(&audited.report));
            let fleet = match audited {
                Ok(fleet) => fleet,
                // Logs that cannot be read at all stop the comparison, as they stop every command.
                Err(e) if !self.has_read() => return Err(e),
                Err(e) => {
                    warnings.push(format!("{label}: no audit, board or replay: {e}"));
                    continue;
                }
            };
            let board = self.board(plan);
            if let Some(why) = &board.replay_error {
                warnings.push(format!("{label}: no replay: {why}"));
            }
            outcomes[i] = Outcome {
                fleet: Some(fleet),
                replay: board.replay,
                waterfall: board.waterfall,
            };
        }
        let fleets: Vec<Option<FleetFigures>> = outcomes.iter().map(|o| o.fleet).collect();
        let waterfalls: Vec<Option<&Waterfall>> = outcomes.iter().map(|o| o.waterfall.as_ref()).collect();
        let replays: Vec<Option<&ReplayReport>> = outcomes.iter().map(|o| o.replay.as_ref()).collect();
        comparison.outputs.extend(fleet_outputs(&fleets));
        comparison.outputs.extend(waterfall_outputs(&waterfalls));
        comparison.outputs.extend(replay_outputs(&replays));
        Ok(Compared { comparison, warnings })
    }
}
