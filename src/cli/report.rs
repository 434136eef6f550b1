//! `gpuplan report`: every number of the plan as a terminal table, Markdown or JSON, from the
//! pipeline (the workbench's export is the same document).

use std::path::{Path, PathBuf};

use super::export::{UTILIZATION_SVG, write_svgs};
use super::progress::CliObserver;
use super::warehouse_args::WarehouseArgs;
use super::{Failure, Format, load_plan};
use crate::model::catalog::Catalog;
use crate::pipeline::report::{Report, ReportRequest};
use crate::pipeline::sources::{Given, Sources};
use crate::present::charts::mfu_rules;
use crate::present::report::{report_markdown, report_text};

/// What the report reads beside the plan: logs, FOCUS bills, a warehouse.
pub struct ReportInputs<'a> {
    pub logs: &'a [PathBuf],
    pub bill: &'a [PathBuf],
    pub warehouse: &'a WarehouseArgs,
}

/// The plan's report on its inputs (the shipped sample where none is given), with progress
/// and warnings on stderr; None when `--explain-sql` printed the statements instead.
pub fn report_of(
    catalog: &Catalog,
    plan_path: Option<&Path>,
    inputs: ReportInputs<'_>,
) -> Result<Option<Report>, Failure> {
    let ReportInputs { logs, bill, warehouse } = inputs;
    let (plan, plan_file) = load_plan(catalog, plan_path)?;
    let warehouse_source = warehouse.resolve(Some(&plan), !logs.is_empty())?;
    let given = Given {
        logs: logs.to_vec(),
        prometheus: super::prometheus_args::PrometheusArgs::default().resolve(Some(&plan)),
        // A plan whose jobs live in Slurm's accounting ([slurm]) is read from it, unless its
        // runs live in a warehouse.
        slurm: (logs.is_empty() && warehouse_source.is_none())
            .then(|| plan.slurm.clone())
            .flatten(),
        warehouse: warehouse_source,
        ..Given::default()
    };
    let mut sources = Sources::resolve(given, Some(&plan)).map_err(super::pipeline_failure)?;
    // A log the plan names that is not there is said; the report goes on without it.
    for note in sources.missing_notes(&plan_file) {
        eprintln!("warning: {note}");
    }
    // No log at all: the shipped sample, as the workbench opens it (one front door). A sample
    // that cannot be written out (a read-only data folder) leaves the plan's report, said.
    match sources.or_sample() {
        Ok(Some(note)) => eprintln!("{note}"),
        Ok(None) => {}
        Err(e) => eprintln!("warning: {e}; the report goes on without logs"),
    }
    let has_logs = !sources.logs.is_empty() || sources.slurm.is_some() || sources.warehouse.is_some();
    let mut pipeline = crate::cli::new_pipeline(catalog);
    let settings = crate::pipeline::report::report_settings(&pipeline, &plan);
    if super::warehouse_args::explain_if_asked(warehouse, &pipeline, &sources, &settings)? {
        return Ok(None);
    }
    let mut observer = CliObserver::default();
    let request = ReportRequest {
        plan: &plan,
        plan_file: &plan_file,
        sources: has_logs.then_some(&sources),
        unsaved_edits: false,
        bill,
        missing_logs: &sources.missing,
    };
    let report = pipeline
        .report(&request, &mut observer)
        .map_err(super::pipeline_failure)?;
    if let Some(audited) = pipeline.audited() {
        observer.finish_audit(audited);
    }
    super::progress::print_timings(&pipeline);
    if let Some(why) = &report.replay_error {
        eprintln!("warning: no replay: {why}");
    }
    Ok(Some(report))
}

pub fn run(
    catalog: &Catalog,
    plan_path: Option<&Path>,
    inputs: ReportInputs<'_>,
    format: Format,
    svg_dir: Option<&Path>,
) -> Result<(), Failure> {
    let Some(report) = report_of(catalog, plan_path, inputs)? else {
        return Ok(());
    };
    if let Some(dir) = svg_dir {
        let rules = mfu_rules(&report.evaluation.thresholds);
        for path in write_svgs(
            dir,
            &report.curves,
            &rules,
            report.audit.as_ref(),
            report.replay.as_ref(),
            report.waterfall.as_ref(),
            report.forecast.as_ref(),
        )? {
            eprintln!("wrote {}", path.display());
        }
        if report.audit.is_none() {
            eprintln!("no logs audited, so no {UTILIZATION_SVG}: add [[logs]] to the plan or pass --logs");
        }
    }
    let out = match format {
        Format::Json => report.to_json(),
        Format::Table => report_text(&report),
        Format::Markdown => report_markdown(&report),
    };
    print!("{out}");
    Ok(())
}
