//! `gpuplan check`: every rule, one line each; exit 1 when any fails.

use std::path::Path;

use super::{Failure, Format, load_plan};
use crate::model::catalog::Catalog;
use crate::model::checks::{CheckStatus, overall_status};
use crate::model::evaluate::evaluate;

pub fn run(catalog: &Catalog, plan_path: Option<&Path>, format: Format, strict: bool) -> Result<(), Failure> {
    let (plan, _) = load_plan(catalog, plan_path)?;
    let evaluation = evaluate(&plan, catalog);
    match format {
        Format::Json => {
            let json = serde_json::json!({ "plan": evaluation.plan, "status": overall_status(&evaluation.checks), "checks": evaluation.checks });
            println!("{}", serde_json::to_string_pretty(&json).unwrap_or_default());
        }
        Format::Table | Format::Markdown => {
            for c in &evaluation.checks {
                println!("{}", super::report::check_line(c));
            }
        }
    }
    let worst = overall_status(&evaluation.checks);
    if worst == CheckStatus::Fail || (strict && worst == CheckStatus::Warn) {
        return Err(Failure::ChecksFailed);
    }
    Ok(())
}
