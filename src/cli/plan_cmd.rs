//! `gpuplan plan new` and `gpuplan plan validate`.

use std::path::{Path, PathBuf};

use super::Failure;
use super::audit::{AuditArgs, audit_logs};
use crate::config::atomic::write_atomically;
use crate::config::diagnostic::Diagnostic;
use crate::config::plan_file::{DEFAULT_PLAN_TOML, default_plan, read_plan, read_plan_text};
use crate::config::plan_from_logs::{ObservedCluster, plan_from_logs};
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
            peak_gpus: c.peak_concurrent_gpus,
            accelerator: c.priced_as.clone(),
            gpu_type: c.gpu_type.clone(),
            usd_per_gpu_hour: c.usd_per_gpu_hour,
            price_source: c.price_source.clone(),
        })
        .collect();
    // Paths as the plan will read them whatever the folder it is used from.
    let absolute = |p: &Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    let mapping = mapping.as_deref().map(absolute);
    let log_paths: Vec<(String, Option<String>)> = logs.iter().map(|p| (absolute(p), mapping.clone())).collect();
    let text = plan_from_logs(DEFAULT_PLAN_TOML, &clusters, &log_paths)
        .map_err(|e| Diagnostic::file("(built-in plan)", e.to_string()))?;
    // What is written must read back as a plan: a check, not a hope.
    read_plan_text("(the plan written from the logs)", &text, catalog).map_err(Failure::Input)?;
    let assumed = clusters.iter().filter(|c| c.accelerator.is_none()).count();
    if let Some(shown) = write_plan(output, force, &text)? {
        eprintln!(
            "wrote {shown}: {} from the logs, each with its observed peak and a catalog list price to confirm{}; then run `gpuplan report --plan {shown}`",
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
