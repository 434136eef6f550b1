//! Where a plan's jobs come from when it names no log: Slurm's accounting, through `sacct`
//! (`[slurm]`), and the command line's flags over it.

use serde::{Deserialize, Serialize};

use super::Plan;

/// `sacct` as gpuplan runs it: which binary, which clusters, how the window is cut.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlurmSource {
    /// The sacct to run: a name looked up on PATH or a path.
    #[serde(default = "default_sacct")]
    pub sacct: String,
    /// Clusters to read (`sacct -M`); empty reads every cluster the accounting database holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clusters: Vec<String>,
    /// Days of the window one sacct call covers: a long window is read in such pieces, each
    /// answered quickly.
    #[serde(default = "default_piece_days")]
    pub piece_days: u32,
    /// Seconds one sacct call may take before it is stopped.
    #[serde(default = "default_sacct_timeout_seconds")]
    pub timeout_seconds: u32,
}

pub fn default_sacct() -> String {
    "sacct".to_string()
}

pub fn default_piece_days() -> u32 {
    7
}

pub fn default_sacct_timeout_seconds() -> u32 {
    300
}

impl Default for SlurmSource {
    fn default() -> SlurmSource {
        SlurmSource {
            sacct: default_sacct(),
            clusters: Vec::new(),
            piece_days: default_piece_days(),
            timeout_seconds: default_sacct_timeout_seconds(),
        }
    }
}

impl SlurmSource {
    /// What is wrong with these settings, as (key, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut problems = Vec::new();
        if self.sacct.trim().is_empty() {
            problems.push((
                "sacct".to_string(),
                "names no program: give `sacct` or a path".to_string(),
            ));
        }
        if !(1..=366).contains(&self.piece_days) {
            problems.push((
                "piece_days".to_string(),
                format!("{} is not from 1 to 366 days", self.piece_days),
            ));
        }
        if !(1..=86_400).contains(&self.timeout_seconds) {
            problems.push((
                "timeout_seconds".to_string(),
                format!("{} is not from 1 to 86,400 seconds (a day)", self.timeout_seconds),
            ));
        }
        for cluster in &self.clusters {
            if cluster.is_empty() || cluster.contains([',', ' ', '|']) {
                problems.push((
                    "clusters".to_string(),
                    format!("'{cluster}' is not a Slurm cluster name (no commas, spaces or pipes)"),
                ));
            }
        }
        problems
    }
}

/// Slurm settings given beside a plan (the command line's flags): each one given wins over the
/// plan's `[slurm]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlurmOverrides {
    /// `--slurm`: read the jobs from sacct even when the plan has no `[slurm]`.
    pub enabled: bool,
    pub sacct: Option<String>,
    pub clusters: Option<Vec<String>>,
    pub piece_days: Option<u32>,
    pub timeout_seconds: Option<u32>,
}

impl SlurmOverrides {
    /// The sacct to run: these settings over the plan's table; None when neither asks for one.
    pub fn resolve(&self, plan: Option<&Plan>) -> Option<SlurmSource> {
        let planned = plan.and_then(|p| p.slurm.clone());
        if !self.enabled && planned.is_none() {
            return None;
        }
        let mut source = planned.unwrap_or_default();
        if let Some(sacct) = &self.sacct {
            source.sacct = sacct.clone();
        }
        if let Some(clusters) = &self.clusters {
            source.clusters = clusters.clone();
        }
        if let Some(days) = self.piece_days {
            source.piece_days = days;
        }
        if let Some(seconds) = self.timeout_seconds {
            source.timeout_seconds = seconds;
        }
        Some(source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_win_over_the_plan_and_nothing_asked_is_none() {
        assert_eq!(SlurmOverrides::default().resolve(None), None);
        let on = SlurmOverrides {
            enabled: true,
            ..SlurmOverrides::default()
        };
        assert_eq!(on.resolve(None), Some(SlurmSource::default()));
        let catalog = crate::config::catalog::builtin().catalog;
        let mut plan = crate::config::plan_file::default_plan(&catalog).expect("default plan");
        plan.slurm = Some(SlurmSource {
            clusters: vec!["alpha".into()],
            piece_days: 3,
            ..SlurmSource::default()
        });
        let flags = SlurmOverrides {
            sacct: Some("/opt/slurm/bin/sacct".into()),
            timeout_seconds: Some(20),
            ..SlurmOverrides::default()
        };
        let resolved = flags.resolve(Some(&plan)).expect("the plan asks for sacct");
        assert_eq!(resolved.sacct, "/opt/slurm/bin/sacct");
        assert_eq!(resolved.clusters, vec!["alpha".to_string()]);
        assert_eq!((resolved.piece_days, resolved.timeout_seconds), (3, 20));
    }

    #[test]
    fn settings_out_of_range_are_named() {
        let bad = SlurmSource {
            sacct: " ".into(),
            clusters: vec!["a,b".into()],
            piece_days: 0,
            timeout_seconds: 0,
        };
        let keys: Vec<String> = bad.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["sacct", "piece_days", "timeout_seconds", "clusters"]);
        assert!(SlurmSource::default().problems().is_empty());
    }
}
