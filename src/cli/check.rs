//! `gpuplan check`: every rule, one line each; exit 1 when any fails.

use std::path::{Path, PathBuf};

use super::audit::{AuditArgs, audit_logs};
use super::{Failure, Format, load_plan};
use crate::data::audit::AuditReport;
use crate::model::catalog::Catalog;
use crate::model::catalog::Term;
use crate::model::checks::{CheckStatus, overall_status};
use crate::model::deployment::Deployment;
use crate::model::evaluate::evaluate;
use crate::model::plan::{ClusterCost, Plan};

pub fn run(
    catalog: &Catalog,
    plan_path: Option<&Path>,
    logs: &[PathBuf],
    format: Format,
    strict: bool,
) -> Result<(), Failure> {
    let (mut plan, _) = load_plan(catalog, plan_path)?;
    if !logs.is_empty() || !plan.logs.is_empty() {
        let args = AuditArgs {
            logs: logs.to_vec(),
            ..AuditArgs::default()
        };
        let mut pipeline = crate::cli::new_pipeline(catalog);
        let audited = audit_logs(&mut pipeline, Some(&plan), &args)?;
        apply_audited_utilization(&mut plan, &audited.report);
    }
    let evaluation = evaluate(&plan, catalog);
    match format {
        Format::Json => {
            let json = serde_json::json!({ "plan": evaluation.plan, "status": overall_status(&evaluation.checks), "checks": evaluation.checks });
            println!("{}", serde_json::to_string_pretty(&json).unwrap_or_default());
        }
        Format::Table | Format::Markdown => {
            for c in &evaluation.checks {
                println!("{}", crate::present::report::check_line(c));
            }
        }
    }
    let worst = overall_status(&evaluation.checks);
    if worst == CheckStatus::Fail || (strict && worst == CheckStatus::Warn) {
        return Err(Failure::ChecksFailed);
    }
    Ok(())
}

/// `gpuplan check --judgment`: the board's checks of its own conclusions on the logs (the
/// shipped sample without any), one line each; exit 1 when any fails.
pub fn run_judgment(
    catalog: &Catalog,
    plan_path: Option<&Path>,
    logs: &[PathBuf],
    format: Format,
) -> Result<(), Failure> {
    let warehouse = super::warehouse_args::WarehouseArgs::default();
    let inputs = super::report::ReportInputs {
        logs,
        bill: &[],
        warehouse: &warehouse,
    };
    let Some(report) = super::report::report_of(catalog, plan_path, inputs)? else {
        return Ok(());
    };
    let Some(waterfall) = report.waterfall else {
        return Err(Failure::from(crate::config::diagnostic::Diagnostic::file(
            "check --judgment",
            "no board to check: no cluster of the logs could be matched (gpuplan report says why)",
        )));
    };
    let checks = &waterfall.checks;
    match format {
        Format::Json => {
            let json = serde_json::json!({ "holds": checks.iter().all(|c| c.holds), "checks": checks });
            println!("{}", serde_json::to_string_pretty(&json).unwrap_or_default());
        }
        Format::Table | Format::Markdown => {
            for c in checks {
                let mark = if c.holds { "ok  " } else { "FAIL" };
                println!("{mark} {:<24} {}", c.id, c.detail);
            }
        }
    }
    if checks.iter().any(|c| !c.holds) {
        return Err(Failure::ChecksFailed);
    }
    Ok(())
}

/// Gives the plan's clusters the utilization the logs show. A cluster of the logs the plan
/// does not list is checked as a permanent (1-year) VM allocation at the audit's price: what
/// most fleets are, and what the 40 % rule is about.
fn apply_audited_utilization(plan: &mut Plan, audit: &AuditReport) {
    for audited in &audit.clusters {
        match plan.clusters.iter_mut().find(|c| c.name == audited.name) {
            Some(cluster) => cluster.utilization_frac = Some(audited.utilization_frac),
            None => plan.clusters.push(ClusterCost {
                name: audited.name.clone(),
                accelerator: plan.inference.accelerator.clone(),
                gpus: audited.capacity_gpus,
                usd_per_gpu_hour: audited.usd_per_gpu_hour,
                term: Term::OneYear,
                deployment: Deployment::Vm,
                utilization_frac: Some(audited.utilization_frac),
                price_source: Some(audited.price_source.clone()),
                price_as_of: None,
                commitment_ends: None,
                models: Vec::new(),
            }),
        }
    }
}
