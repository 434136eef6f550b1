//! `gpuplan audit`: classify the logs' jobs and show the stranded spend (docs/economics.md, "The audit").

mod document;
mod known;
mod sections;

use std::path::PathBuf;

use serde::Serialize;

use super::progress::CliObserver;
use super::{Failure, Format, load_plan_if_given, pipeline_failure};
use crate::config::diagnostic::Diagnostic;
use crate::data::audit::{AuditReport, AuditSettings, WindowSpec};
use crate::data::readers::load::FileSummary;
use crate::model::catalog::Catalog;
use crate::model::forecast::IncompleteTail;
use crate::model::plan::Plan;
use crate::pipeline::bill::Bill;
use crate::pipeline::report::ReportInput;
use crate::pipeline::sources::{Given, Sources};
use crate::pipeline::{Audited, Pipeline};
use crate::present::document::{Block, Document, render_markdown, render_text};

pub use document::{SPARKLINE_MAX_COLUMNS, days_per_column, document, points_per_column, source_tag, sparkline};

#[derive(Debug, Clone, Default)]
pub struct AuditArgs {
    pub logs: Vec<PathBuf>,
    pub mapping: Option<PathBuf>,
    pub input_format: Option<String>,
    /// `--time-origin`: YYYY-MM-DD or RFC 3339.
    pub time_origin: Option<String>,
    pub plan: Option<PathBuf>,
    pub format: Format,
    pub days: Option<f64>,
    pub all_time: bool,
    pub since: Option<String>,
    pub until: Option<String>,
    pub cost_per_gpu_hour: Option<f64>,
    /// `--input-tz`: the clock offset of nvidia-smi recordings the plan's `[hosts]` leaves out.
    pub input_tz: Option<String>,
    pub prometheus: super::prometheus_args::PrometheusArgs,
    /// `--slurm` and its settings: the jobs read from Slurm's accounting through sacct.
    pub slurm: super::slurm_args::SlurmArgs,
    /// `--warehouse-*` and `--explain-sql`: the runs audited in a database, as SQL.
    pub warehouse: super::warehouse_args::WarehouseArgs,
    /// FinOps FOCUS cost exports to set against the audit.
    pub bill: Vec<PathBuf>,
}

/// The JSON document: the logs read and their audit, the bill when given. A bill alone has
/// no log: `inputs` is empty and the audit's keys are absent.
#[derive(Serialize)]
struct JsonAudit<'a> {
    inputs: Vec<ReportInput>,
    #[serde(flatten)]
    report: Option<&'a AuditReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bill: Option<&'a Bill>,
    /// The log's last days that fall far below its level where it ends (an export written
    /// while jobs still ran): null when none; absent without a log.
    #[serde(skip_serializing_if = "Option::is_none")]
    incomplete_tail: Option<Option<IncompleteTail>>,
}

/// `--time-origin` as RFC 3339 (a date is its midnight, UTC).
pub fn time_origin(text: &str) -> Result<String, Failure> {
    let ms = parse_instant("--time-origin", text)?;
    let latest = crate::data::canonical::latest_time_ms();
    if !(crate::data::canonical::EARLIEST_TIME_MS..=latest).contains(&ms) {
        return Err(Diagnostic::file(
            "--time-origin",
            format!("'{text}' is outside 2000 to today: every time read from it would be set aside as out of range"),
        )
        .into());
    }
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .ok_or_else(|| Diagnostic::file("--time-origin", format!("'{text}' is out of range")).into())
}

fn parse_instant(flag: &str, text: &str) -> Result<i64, Failure> {
    let parsed = chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.timestamp_millis())
        .or_else(|_| {
            chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map(|d| d.and_hms_opt(0, 0, 0).map_or(0, |t| t.and_utc().timestamp_millis()))
        });
    parsed.map_err(|_| {
        Diagnostic::file(
            flag,
            format!("'{text}' is not a date: expected YYYY-MM-DD or RFC 3339 (2024-03-01T00:00:00Z)"),
        )
        .into()
    })
}

fn settings(
    args: &AuditArgs,
    catalog: &Catalog,
    plan: Option<&crate::model::plan::Plan>,
) -> Result<AuditSettings, Failure> {
    let window = WindowSpec {
        days: if args.all_time {
            None
        } else {
            Some(args.days.unwrap_or(90.0))
        },
        since_ms: args.since.as_deref().map(|s| parse_instant("--since", s)).transpose()?,
        until_ms: args.until.as_deref().map(|s| parse_instant("--until", s)).transpose()?,
    };
    let mut settings = AuditSettings::for_plan(catalog, plan, window, args.cost_per_gpu_hour);
    settings.input_utc_offset_min = args
        .input_tz
        .as_deref()
        .map(|text| {
            crate::model::plan::parse_utc_offset_min(text).map_err(|e| Diagnostic::file("--input-tz", e.to_string()))
        })
        .transpose()?;
    Ok(settings)
}

/// The logs an audit reads: the flags, else the plan's `[[logs]]`; empty when neither names a
/// log nor a Prometheus.
fn given_sources(args: &AuditArgs, plan: Option<&Plan>) -> Result<Sources, Failure> {
    let given = Given {
        logs: args.logs.clone(),
        mapping: args.mapping.clone(),
        input_format: args.input_format.clone(),
        time_origin: args.time_origin.as_deref().map(time_origin).transpose()?,
        prometheus: args.prometheus.resolve(plan),
        slurm: args.slurm.resolve(plan)?,
        warehouse: args.warehouse.resolve(plan, !args.logs.is_empty())?,
    };
    Sources::resolve(given, plan).map_err(pipeline_failure)
}

/// The logs an audit reads: the flags, else the plan's `[[logs]]`, else (with no Prometheus
/// either) the shipped sample, said on stderr.
pub fn sources(args: &AuditArgs, plan: Option<&Plan>) -> Result<Sources, Failure> {
    let mut sources = given_sources(args, plan)?;
    let plan_shown = args
        .plan
        .as_ref()
        .map_or_else(|| "the plan".to_string(), |p| p.display().to_string());
    if sources.is_empty() && !sources.missing.is_empty() {
        // Nothing left to audit: the shipped sample in their place would be another fleet.
        return Err(Failure::Input(
            sources
                .missing
                .iter()
                .map(|path| {
                    Diagnostic::file(
                        &path.display().to_string(),
                        format!("not found (named by {plan_shown} [[logs]]): no log left to audit"),
                    )
                })
                .collect(),
        ));
    }
    for note in sources.missing_notes(&plan_shown) {
        eprintln!("warning: {note}");
    }
    if let Some(note) = sources.or_sample().map_err(pipeline_failure)? {
        eprintln!("{note}");
    }
    Ok(sources)
}

/// Loads the logs (or, with Prometheus and no logs, the pods kube-state-metrics saw) and
/// audits them through the pipeline, with each cluster's utilization measured by DCGM where it
/// can be: what `gpuplan audit` prints and `check` reads.
pub fn audit_logs(pipeline: &mut Pipeline, plan: Option<&Plan>, args: &AuditArgs) -> Result<Audited, Failure> {
    let sources = sources(args, plan)?;
    let settings = settings(args, pipeline.catalog(), plan)?;
    if super::warehouse_args::explain_if_asked(&args.warehouse, pipeline, &sources, &settings)? {
        return Err(Failure::Explained);
    }
    let mut observer = CliObserver::default();
    let audited = pipeline
        .audit(&sources, &settings, &mut observer)
        .map_err(pipeline_failure)?;
    if let Some(failure) = &audited.measure_failure {
        return Err(pipeline_failure(failure.clone().into_error()));
    }
    observer.finish_audit(audited);
    Ok(audited.clone())
}

pub fn run(catalog: &Catalog, args: AuditArgs) -> Result<(), Failure> {
    let given_plan = load_plan_if_given(catalog, args.plan.as_deref())?;
    if !args.bill.is_empty() && given_sources(&args, given_plan.as_ref())?.is_empty() {
        return run_bill_alone(&args, given_plan.as_ref());
    }
    let plan = match given_plan {
        Some(plan) => plan,
        None => {
            // As the report, the replay and the workbench do: the built-in plan, which prices
            // the shipped sample's four clusters, so every command tells the same story.
            eprintln!(
                "no plan given: using the built-in plan ({}); clusters it does not list are priced at the fallback rate",
                crate::config::plan_file::DEFAULT_PLAN_NAME
            );
            crate::config::plan_file::default_plan(catalog).map_err(Failure::Input)?
        }
    };
    let mut pipeline = crate::cli::new_pipeline(catalog);
    let Audited { report, files, .. } = audit_logs(&mut pipeline, Some(&plan), &args)?;
    let bill = if args.bill.is_empty() {
        None
    } else {
        Some(crate::pipeline::bill::bill(&args.bill, Some(&plan), Some(&report)).map_err(pipeline_failure)?)
    };
    let tail = pipeline.incomplete_tail(&plan).map_err(pipeline_failure)?;
    print_audit(args.format, Some((&report, tail)), &files, bill.as_ref());
    Ok(())
}

/// The flags that say how to read or window a log, when given.
fn log_flag(args: &AuditArgs) -> Option<&'static str> {
    [
        ("--mapping", args.mapping.is_some()),
        ("--input-format", args.input_format.is_some()),
        ("--days", args.days.is_some()),
        ("--all-time", args.all_time),
        ("--since", args.since.is_some()),
        ("--until", args.until.is_some()),
        ("--cost-per-gpu-hour", args.cost_per_gpu_hour.is_some()),
    ]
    .into_iter()
    .find_map(|(flag, given)| given.then_some(flag))
}

/// `--bill` with no log and no Prometheus: the bill alone, over its own billing period, set
/// against nothing (not the shipped sample, whose window is not the bill's).
fn run_bill_alone(args: &AuditArgs, plan: Option<&Plan>) -> Result<(), Failure> {
    if let Some(flag) = log_flag(args) {
        return Err(Diagnostic::file(
            flag,
            "reads or windows a log, and no log was given: a bill alone is read over its own billing period \
             (give the log to audit it beside the bill)",
        )
        .into());
    }
    let bill = crate::pipeline::bill::bill(&args.bill, plan, None).map_err(pipeline_failure)?;
    eprintln!("no log given: reading the bill alone, over its own billing period, compared with nothing");
    print_audit(args.format, None, &[], Some(&bill));
    Ok(())
}

/// Prints the audit (when a log was audited) and the bill (when given) in `format`.
fn print_audit(
    format: Format,
    audited: Option<(&AuditReport, Option<IncompleteTail>)>,
    files: &[FileSummary],
    bill: Option<&Bill>,
) {
    let report = audited.as_ref().map(|(r, _)| *r);
    let incomplete_tail = audited.as_ref().map(|(_, tail)| tail.clone());
    let document = || {
        let mut doc = match report {
            Some(report) => {
                let mut doc = document(report, files);
                if let Some(Some(tail)) = &incomplete_tail
                    && let Some(first) = doc.sections.first_mut()
                {
                    first
                        .blocks
                        .push(Block::Note(format!("⚑ Incomplete tail: {}.", tail.said())));
                }
                doc
            }
            None => Document {
                title: "gpuplan audit".into(),
                sections: Vec::new(),
            },
        };
        if let Some(bill) = bill {
            doc.sections.push(super::bill::section(bill));
        }
        doc
    };
    let out = match format {
        Format::Json => {
            let inputs = files.iter().map(ReportInput::of).collect();
            let json = JsonAudit {
                inputs,
                report,
                bill,
                incomplete_tail: incomplete_tail.clone(),
            };
            serde_json::to_string_pretty(&json).unwrap_or_default() + "\n"
        }
        Format::Table => render_text(&document()),
        Format::Markdown => render_markdown(&document()),
    };
    print!("{out}");
}

/// Audits the logs under the plan (`--plan`, else the built-in one), computes `figure` on the
/// audit and prints it in the asked format: `gpuplan forecast`, `backtest` and `replay`.
pub fn print_on_audit<T: Serialize>(
    catalog: &Catalog,
    args: &AuditArgs,
    figure: impl FnOnce(&mut Pipeline, &Plan) -> Result<T, crate::pipeline::error::PipelineError>,
    document: fn(&T) -> crate::present::document::Document,
) -> Result<(), Failure> {
    let (plan, _) = super::load_plan(catalog, args.plan.as_deref())?;
    let mut pipeline = crate::cli::new_pipeline(catalog);
    audit_logs(&mut pipeline, Some(&plan), args)?;
    let report = figure(&mut pipeline, &plan).map_err(pipeline_failure)?;
    super::progress::print_timings(&pipeline);
    print!(
        "{}",
        match args.format {
            Format::Json => serde_json::to_string_pretty(&report).unwrap_or_default() + "\n",
            Format::Table => render_text(&document(&report)),
            Format::Markdown => render_markdown(&document(&report)),
        }
    );
    Ok(())
}
