//! Label values the log uses that `[labels]` does not know. Each job carries its label's code
//! (`JobClasses::unknown_label`, `UNKNOWN_LABEL_BASE` and up); the audit's one pass sums their
//! GPU-hours in the window beside the rules' (`run_totals`), and here they get their text back
//! (`classify::label_names`). Their jobs are classified by the rules like unlabeled ones; the
//! audit lists each value, so a trace's own vocabulary is never dropped without a word.

use std::collections::HashMap;

use super::classify::UNKNOWN_LABEL_BASE;
use super::classify::vocabulary::UNKNOWN_LABELS;
use crate::model::fleet::{UnknownLabel, merge_unknown_labels};

/// Each unknown label with its jobs (with a run in the window) and their GPU-hours in the
/// window, largest GPU-hours first.
pub fn named(jobs: &HashMap<u32, u64>, gpu_hours: &HashMap<u32, f64>) -> Vec<UnknownLabel> {
    merge_unknown_labels(jobs.iter().map(|(&code, &jobs)| UnknownLabel {
        label: UNKNOWN_LABELS.name_of(code - UNKNOWN_LABEL_BASE),
        jobs,
        gpu_hours: gpu_hours.get(&code).copied().unwrap_or(0.0).max(0.0),
    }))
}
