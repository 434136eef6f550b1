//! `gpuplan replay`: the logs' jobs replayed through today's clusters and through the proposed
//! split (training, inference and burst pools), side by side: waits, SLO misses, utilization,
//! stranded and overflow GPU-hours, cost.

use super::Failure;
use super::audit::{AuditArgs, print_on_audit};
use crate::model::catalog::Catalog;
use crate::present::replay::document;

pub fn run(catalog: &Catalog, args: AuditArgs) -> Result<(), Failure> {
    print_on_audit(
        catalog,
        &args,
        |pipeline, plan| {
            let contracts = pipeline.contracts(plan);
            pipeline.replay(plan, contracts.as_ref()).cloned()
        },
        document,
    )
}
