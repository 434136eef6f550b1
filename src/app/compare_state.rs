//! The compare view's rows. The plan-only rows come at once, from the model function the
//! pipeline's comparison starts from; the fleet, board and replay rows need the logs, so the
//! worker runs `Pipeline::compare` (the one `gpuplan diff` runs) and its rows replace these.
//! Until they land, the last ones stay, marked as being recomputed.

use super::{App, Effect};
use crate::model::compare::{PlanComparison, compare_plans};
use crate::model::plan::Plan;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompareState {
    pub generation: u64,
    /// The worker is computing the rows that need the logs.
    pub working: bool,
    /// Why the worker's comparison failed, when it did.
    pub error: Option<String>,
    /// Plans that lack some rows, and why (a split that could not be replayed).
    pub warnings: Vec<String>,
}

/// The lines of the compare view above, between and below its rows: its title line, the
/// blank line and the title of the inputs.
pub const COMPARE_TITLE_LINES: usize = 3;

impl App {
    /// The current plan, then the plans compared with it.
    pub fn compared_plans(&self) -> Vec<(String, Plan)> {
        let mine = if self.modified { "this plan *" } else { "this plan" };
        std::iter::once((mine.to_string(), self.plan.clone()))
            .chain(self.compare.iter().cloned())
            .collect()
    }

    /// Recomputes the comparison after the plan or the plans compared changed: the plan rows
    /// now, and with logs the worker asked for every row.
    pub fn refresh_comparison(&mut self) -> Option<Effect> {
        if self.compare.is_empty() {
            self.comparison = None;
            self.comparing.working = false;
            return None;
        }
        let plans = self.compared_plans();
        let mut comparison = compare_plans(&plans, &self.catalog);
        // The logs' rows of the last comparison of the same plans stay until the newer land.
        if let Some(old) = &self.comparison
            && old.labels.get(1..) == comparison.labels.get(1..)
        {
            let kept: Vec<_> = old
                .outputs
                .iter()
                .filter(|o| !comparison.outputs.iter().any(|n| n.key == o.key))
                .cloned()
                .collect();
            comparison.outputs.extend(kept);
        }
        self.comparison = Some(comparison);
        self.request_comparison()
    }

    /// Asks the worker for the whole comparison, when there are logs to compare the plans on.
    pub fn request_comparison(&mut self) -> Option<Effect> {
        if self.compare.is_empty() || self.fleet.is_none() {
            return None;
        }
        self.comparing.generation += 1;
        self.comparing.working = true;
        // A new comparison is under way: the last one's failure is no longer the news.
        self.comparing.error = None;
        Some(Effect::Compare {
            generation: self.comparing.generation,
            plans: self.compared_plans(),
        })
    }

    /// The worker's comparison landed.
    pub fn comparison_loaded(&mut self, comparison: PlanComparison, warnings: Vec<String>) {
        self.comparison = Some(comparison);
        self.comparing.working = false;
        self.comparing.error = None;
        self.comparing.warnings = warnings;
    }

    /// The lines the compare view has to scroll through.
    pub fn comparison_lines(&self) -> usize {
        self.comparison.as_ref().map_or(0, |c| {
            c.outputs.len() + c.inputs.len() + self.comparing.warnings.len() + COMPARE_TITLE_LINES
        })
    }
}
