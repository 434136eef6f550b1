//! Logs read from the pieces of one window (`sacct` called once per piece) made into one: a
//! job that ran across a boundary is printed by every piece it touches, and is one job.

use std::collections::HashSet;

use super::SacctLog;

impl SacctLog {
    /// Adds the log of the next piece: a run already read (same cluster, job id and start) and
    /// a pending job already read (same cluster and job id) are kept once; returns how many
    /// rows of `piece` were such repeats. Two runs of a requeued job keep their own starts and
    /// stay two runs.
    pub fn absorb(&mut self, piece: SacctLog) -> u64 {
        let mut runs: HashSet<(String, String, i64)> = self
            .runs
            .iter()
            .map(|r| (r.cluster.clone(), r.job_id.clone(), r.start_ms))
            .collect();
        let mut pending: HashSet<(String, String)> = self
            .pending
            .iter()
            .map(|p| (p.cluster.clone(), p.job_id.clone()))
            .collect();
        let mut repeats = 0;
        for run in piece.runs {
            if runs.insert((run.cluster.clone(), run.job_id.clone(), run.start_ms)) {
                self.runs.push(run);
            } else {
                repeats += 1;
            }
        }
        for job in piece.pending {
            if pending.insert((job.cluster.clone(), job.job_id.clone())) {
                self.pending.push(job);
            } else {
                repeats += 1;
            }
        }
        // A job pending in one piece may have started by another: the run is what counts.
        let started: HashSet<(&str, &str)> = self
            .runs
            .iter()
            .map(|r| (r.cluster.as_str(), r.job_id.as_str()))
            .collect();
        self.pending
            .retain(|p| !started.contains(&(p.cluster.as_str(), p.job_id.as_str())));
        self.quarantine.merge(piece.quarantine);
        self.not_started += piece.not_started;
        self.step_rows_folded += piece.step_rows_folded;
        self.duplicate_rows += piece.duplicate_rows;
        for (host, cluster) in piece.hosts {
            self.hosts.entry(host).or_insert(cluster);
        }
        self.host_problems.extend(piece.host_problems);
        repeats
    }
}
