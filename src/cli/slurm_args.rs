//! The command line's Slurm flags, over a plan's `[slurm]` table.

use clap::Args;

use crate::model::plan::{Plan, SlurmOverrides, SlurmSource};

#[derive(Debug, Clone, Default, Args)]
pub struct SlurmArgs {
    /// Read the jobs from Slurm's accounting: run `sacct` over the window (default the last 90
    /// days), for every user and every cluster the database holds, instead of reading LOGS.
    #[arg(long)]
    pub slurm: bool,
    /// The sacct to run (default `sacct` on PATH).
    #[arg(long, value_name = "PATH")]
    pub slurm_sacct: Option<String>,
    /// Clusters to read, comma-separated (`sacct -M`; default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub slurm_clusters: Option<Vec<String>>,
    /// Days of the window one sacct call covers (default 7).
    #[arg(long, value_name = "DAYS")]
    pub slurm_piece_days: Option<u32>,
    /// Seconds one sacct call may take before it is stopped (default 300).
    #[arg(long, value_name = "SECONDS")]
    pub slurm_timeout: Option<u32>,
}

impl SlurmArgs {
    /// The flags as settings over a plan's `[slurm]`.
    pub fn overrides(&self) -> SlurmOverrides {
        SlurmOverrides {
            enabled: self.slurm,
            sacct: self.slurm_sacct.clone(),
            clusters: self.slurm_clusters.clone(),
            piece_days: self.slurm_piece_days,
            timeout_seconds: self.slurm_timeout,
        }
    }

    /// The sacct to run: the flags over the plan's table; None when neither asks for one. A
    /// setting given without `--slurm` and without a `[slurm]` table is a mistake, said here;
    /// settings out of range are the pipeline's to refuse (`Sources::resolve`), for both faces.
    pub fn resolve(&self, plan: Option<&Plan>) -> Result<Option<SlurmSource>, crate::config::diagnostic::Diagnostic> {
        let overrides = self.overrides();
        let resolved = overrides.resolve(plan);
        if resolved.is_none()
            && let Some(flag) = self.stray_flag()
        {
            return Err(crate::config::diagnostic::Diagnostic::file(
                flag,
                "sets how Slurm is read, and Slurm is not read: add --slurm (or a [slurm] table to the plan)",
            ));
        }
        Ok(resolved)
    }

    fn stray_flag(&self) -> Option<&'static str> {
        [
            ("--slurm-sacct", self.slurm_sacct.is_some()),
            ("--slurm-clusters", self.slurm_clusters.is_some()),
            ("--slurm-piece-days", self.slurm_piece_days.is_some()),
            ("--slurm-timeout", self.slurm_timeout.is_some()),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag))
    }
}
