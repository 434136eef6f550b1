//! Engineering migration break-even (docs/economics.md, "Migration break-even"): when a port off NVIDIA pays back.

use serde::Serialize;

/// EMB = Hours_eng × Rate_eng_hr / (C_H100_run − C_custom_run), in runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MigrationBreakeven {
    /// The engineering cost is recovered after this many runs.
    Runs { runs: f64 },
    /// A run on the target is not cheaper than on the incumbent: the port never pays back.
    NeverPaysBack { saving_usd_per_run: f64 },
}

pub fn migration_breakeven(
    engineering_hours: f64,
    engineering_usd_per_hour: f64,
    incumbent_run_usd: f64,
    target_run_usd: f64,
) -> MigrationBreakeven {
    let saving_usd_per_run = incumbent_run_usd - target_run_usd;
    if saving_usd_per_run <= 0.0 {
        return MigrationBreakeven::NeverPaysBack { saving_usd_per_run };
    }
    MigrationBreakeven::Runs {
        runs: engineering_hours * engineering_usd_per_hour / saving_usd_per_run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engineering_cost_over_saving_per_run() {
        let emb = migration_breakeven(1_000.0, 150.0, 2.3e6, 2.0e6);
        assert_eq!(emb, MigrationBreakeven::Runs { runs: 0.5 });
    }

    #[test]
    fn a_dearer_target_never_pays_back() {
        let emb = migration_breakeven(1_000.0, 150.0, 2.0e6, 2.3e6);
        assert!(matches!(emb, MigrationBreakeven::NeverPaysBack { .. }));
        let equal = migration_breakeven(1_000.0, 150.0, 2.0e6, 2.0e6);
        assert!(matches!(equal, MigrationBreakeven::NeverPaysBack { .. }));
    }
}
