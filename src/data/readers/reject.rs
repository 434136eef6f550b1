//! Rows a reader could not use: counted by reason, with a sample kept for the user.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::model::fleet::{RejectReason, RejectedRow};

/// How many sample rows are kept per reason.
pub const SAMPLES_PER_REASON: usize = 5;

/// Counts per reason and the first few rows of each.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quarantine {
    pub counts: BTreeMap<RejectReason, u64>,
    pub samples: Vec<RejectedRow>,
}

impl Quarantine {
    pub fn add(&mut self, row: RejectedRow) {
        let count = self.counts.entry(row.reason).or_insert(0);
        *count += 1;
        if *count as usize <= SAMPLES_PER_REASON {
            self.samples.push(row);
        }
    }

    /// Counts rows rejected in bulk (e.g. by a vectorized filter) with their first samples.
    pub fn add_many(&mut self, reason: RejectReason, count: u64, samples: Vec<RejectedRow>) {
        if count == 0 {
            return;
        }
        *self.counts.entry(reason).or_insert(0) += count;
        let kept = self.samples.iter().filter(|s| s.reason == reason).count();
        self.samples
            .extend(samples.into_iter().take(SAMPLES_PER_REASON.saturating_sub(kept)));
    }

    pub fn merge(&mut self, other: Quarantine) {
        for (reason, count) in other.counts {
            let samples = other.samples.iter().filter(|s| s.reason == reason).cloned().collect();
            self.add_many(reason, count, samples);
        }
    }

    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: u64, reason: RejectReason) -> RejectedRow {
        RejectedRow {
            file: "f.csv".into(),
            line,
            reason,
            detail: String::new(),
        }
    }

    #[test]
    fn counts_every_row_but_keeps_a_few_samples_per_reason() {
        let mut q = Quarantine::default();
        for line in 0..12 {
            q.add(row(line, RejectReason::NegativeGpus));
        }
        q.add(row(99, RejectReason::EndBeforeStart));
        assert_eq!(q.counts[&RejectReason::NegativeGpus], 12);
        assert_eq!(q.total(), 13);
        assert_eq!(q.samples.len(), SAMPLES_PER_REASON + 1);
    }

    #[test]
    fn merging_adds_counts_and_caps_samples() {
        let mut a = Quarantine::default();
        let mut b = Quarantine::default();
        for line in 0..4 {
            a.add(row(line, RejectReason::UnparseableTime));
            b.add(row(100 + line, RejectReason::UnparseableTime));
        }
        a.merge(b);
        assert_eq!(a.counts[&RejectReason::UnparseableTime], 8);
        assert_eq!(a.samples.len(), SAMPLES_PER_REASON);
    }
}
