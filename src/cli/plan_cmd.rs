//! `gpuplan plan new` and `gpuplan plan validate`.

use std::path::{Path, PathBuf};

use super::Failure;
use super::audit::{AuditArgs, audit_logs};
use crate::config::atomic::write_atomically;
use crate::config::diagnostic::Diagnostic;
use crate::config::plan_file::{DEFAULT_PLAN_TOML, default_plan, read_plan, read_plan_text};
use crate::config::plan_from_logs::{ObservedCluster, ObservedModel, plan_from_logs};
use crate::model::catalog::Catalog;

pub fn new(output: Option<&Path>, force: bool) -> Result<(), Failure> {
    let written = write_plan(output, force, DEFAULT_PLAN_TOML)?;
    if let Some(shown) = written {
        eprintln!("wrote {shown}: the seeds' worked examples; edit it and run `gpuplan report --plan {shown}`");
    }
    Ok(())
}

/// Writes `text` to `output` (standard output when absent), refusing to replace a file
/// without `force`; the path written, if any.
fn write_plan(output: Option<&Path>, force: bool, text: &str) -> Result<Option<String>, Failure> {
    let Some(path) = output.filter(|p| p.as_os_str() != "-") else {
        print!("{text}");
        return Ok(None);
    };
    let shown = path.display().to_string();
    if path.exists() && !force {
        return Err(Diagnostic::file(&shown, "already exists; pass --force to replace it").into());
    }
    write_atomically(path, text.as_bytes()).map_err(|e| Diagnostic::file(&shown, format!("cannot write: {e}")))?;
    Ok(Some(shown))
}

/// `gpuplan plan new --logs`: audits the logs over their whole span with a plan that lists no
/// cluster, so each is priced as the accelerator its log names, and writes the built-in plan
/// with those clusters and logs in place of its own.
pub fn new_from_logs(
    catalog: &Catalog,
    logs: &[PathBuf],
    mapping: Option<PathBuf>,
    output: Option<&Path>,
    force: bool,
) -> Result<(), Failure> {
    let mut plan = default_plan(catalog).map_err(Failure::Input)?;
    plan.clusters.clear();
    plan.logs.clear();
    let args = AuditArgs {
        logs: logs.to_vec(),
        mapping: mapping.clone(),
        all_time: true,
        ..AuditArgs::default()
    };
    let mut pipeline = crate::cli::new_pipeline(catalog);
    let audited = audit_logs(&mut pipeline, Some(&plan), &args)?;
    let clusters: Vec<ObservedCluster> = audited
        .report
        .clusters
        .iter()
        .map(|c| ObservedCluster {
            name: c.name.clone(),
            capacity_gpus: c.capacity_gpus,
            accelerator: c.priced_as.clone(),
            gpu_type: c.gpu_type.clone(),
            usd_per_gpu_hour: c.usd_per_gpu_hour,
            price_source: c.price_source.clone(),
            models: c
                .models
                .iter()
                .map(|m| ObservedModel {
                    model: m.model.clone(),
                    gpus: m.gpus,
                    usd_per_gpu_hour: m.usd_per_gpu_hour,
                    at_fallback_rate: m.at_fallback_rate,
                    price_source: m.price_source.clone(),
                })
                .collect(),
        })
        .collect();
    // Paths as Ctrl-S writes them: relative to the plan's folder where the data sits below it,
    // absolute otherwise (the plan read from any folder finds them). Node lists are not logs:
    // what they said is in the clusters' models.
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let plan_folder = output
        .filter(|p| p.as_os_str() != "-")
        .map(|p| absolute(p).parent().map(Path::to_path_buf).unwrap_or_default());
    let shown = |p: &Path| match &plan_folder {
        Some(folder) => crate::config::plan_sources::written_path(&absolute(p), folder),
        None => absolute(p).display().to_string(),
    };
    let mapping = mapping.as_deref().map(shown);
    let log_paths: Vec<(String, Option<String>)> = logs
        .iter()
        .filter(|p| !crate::data::readers::node_list::is_node_list(p))
        .map(|p| (shown(p), mapping.clone()))
        .collect();
    let text = plan_from_logs(DEFAULT_PLAN_TOML, &clusters, &log_paths)
        .map_err(|e| Diagnostic::file("(built-in plan)", e.to_string()))?;
    // What is written must read back as a plan: a check, not a hope.
    read_plan_text("(the plan written from the logs)", &text, catalog).map_err(Failure::Input)?;
    let assumed = clusters.iter().filter(|c| c.accelerator.is_none()).count();
    if let Some(shown) = write_plan(output, force, &text)? {
        eprintln!(
            "wrote {shown}: {} from the logs, each sized as the audit sized it (node list, else observed peak) at a catalog list price to confirm{}; then run `gpuplan report --plan {shown}`",
            match clusters.len() {
                1 => "1 cluster".to_string(),
                n => format!("{n} clusters"),
            },
            if assumed > 0 {
                format!(" ({assumed} whose GPU type the catalog does not know, written as H100s)")
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

pub fn validate(catalog: &Catalog, file: &Path) -> Result<(), Failure> {
    read_plan(file, catalog).map_err(Failure::Input)?;
    println!("{}: ok", file.display());
    Ok(())
}
