//! The rows as a lazy iterator: one cluster-day at a time, clusters in turn.

use std::collections::VecDeque;

use super::cluster::ClusterSim;
use super::sizing::plan_clusters;
use super::tables::WARMUP_DAYS;
use super::{SampleRow, SampleSpec};
use crate::data::canonical::MS_PER_SECOND;

pub(super) struct SampleRows {
    sims: Vec<ClusterSim>,
    days: i64,
    day: i64,
    cluster: usize,
    pending: VecDeque<SampleRow>,
    remaining: usize,
}

impl SampleRows {
    pub(super) fn new(spec: &SampleSpec) -> Self {
        let end_ms = spec.end_ms.div_euclid(MS_PER_SECOND) * MS_PER_SECOND;
        let plans = plan_clusters(spec);
        // Job ids `<cluster + 1><zero-padded sequence>`, unique across clusters.
        let width = (spec.jobs.max(1).ilog10() + 2).max(6);
        let stride = 10u64.checked_pow(width);
        let sims = plans
            .iter()
            .map(|plan| {
                let base = stride
                    .and_then(|s| s.checked_mul(u64::from(plan.index) + 1))
                    .unwrap_or(0);
                ClusterSim::new(plan, spec, end_ms, base)
            })
            .collect();
        SampleRows {
            sims,
            days: i64::from(spec.days),
            day: -WARMUP_DAYS,
            cluster: 0,
            pending: VecDeque::new(),
            remaining: spec.jobs,
        }
    }
}

impl Iterator for SampleRows {
    type Item = SampleRow;

    fn next(&mut self) -> Option<SampleRow> {
        loop {
            if self.remaining == 0 {
                return None;
            }
            if let Some(row) = self.pending.pop_front() {
                self.remaining -= 1;
                return Some(row);
            }
            if self.day >= self.days || self.sims.is_empty() {
                return None;
            }
            self.sims[self.cluster].simulate_day(self.day, &mut self.pending);
            self.cluster += 1;
            if self.cluster == self.sims.len() {
                self.cluster = 0;
                self.day += 1;
            }
        }
    }
}
