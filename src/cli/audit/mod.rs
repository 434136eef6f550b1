//! `gpuplan audit`: classify the logs' jobs and show the stranded spend (docs/economics.md, "The audit").

mod document;
mod sections;

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::progress::{LARGE_INPUT_BYTES, Progress};
use super::{Failure, Format, load_plan_if_given};
use crate::config::diagnostic::Diagnostic;
use crate::data::audit::fleet_source::{FleetSource, attach_measurements};
use crate::data::audit::{AuditReport, AuditSettings, WindowSpec};
use crate::data::readers::load::{FileSummary, LoadError, expand_inputs};
use crate::data::readers::mapping::Mapping;
use crate::model::catalog::Catalog;
use crate::model::fleet::Window;
use crate::model::plan::Plan;
use crate::model::plan::PrometheusSource;
use crate::present::document::{render_markdown, render_text};
use crate::runtime::prometheus::client::{PrometheusClient, PrometheusError};
use crate::runtime::prometheus::pull::{PullProgress, UtilizationPull, pull_cluster_utilization, pull_pods};
use crate::shared::format::thousands;

pub use document::{SPARKLINE_MAX_COLUMNS, days_per_column, document, points_per_column, source_tag, sparkline};

#[derive(Debug, Clone, Default)]
pub struct AuditArgs {
    pub logs: Vec<PathBuf>,
    pub mapping: Option<PathBuf>,
    pub input_format: Option<String>,
    pub plan: Option<PathBuf>,
    pub format: Format,
    pub days: Option<f64>,
    pub all_time: bool,
    pub since: Option<String>,
    pub until: Option<String>,
    pub cost_per_gpu_hour: Option<f64>,
    pub prometheus: super::prometheus_args::PrometheusArgs,
    /// FinOps FOCUS cost exports to set against the audit.
    pub bill: Vec<PathBuf>,
}

#[derive(Serialize)]
struct JsonAudit<'a> {
    inputs: Vec<JsonInput<'a>>,
    #[serde(flatten)]
    report: &'a AuditReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    bill: Option<&'a super::bill::BillAudit>,
}

#[derive(Serialize)]
struct JsonInput<'a> {
    path: &'a str,
    format: &'a str,
    rows: usize,
    rejected: u64,
    warnings: &'a [String],
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

pub fn read_mapping(path: &Path) -> Result<Mapping, Failure> {
    crate::config::mapping_file::read_mapping(path).map_err(Failure::Input)
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
    Ok(AuditSettings::for_plan(catalog, plan, window, args.cost_per_gpu_hour))
}

/// Loads the logs (or, with Prometheus and no logs, the pods kube-state-metrics saw) and
/// audits them, with each cluster's utilization measured by DCGM where it can be: what
/// `gpuplan audit` prints, and what the report's contract matching reads.
pub fn audit_logs(
    catalog: &Catalog,
    plan: Option<&Plan>,
    args: &AuditArgs,
) -> Result<(AuditReport, Vec<FileSummary>), Failure> {
    audit_with_source(catalog, plan, args).map(|(_, report, files)| (report, files))
}

/// As `audit_logs`, keeping what was read (a replay reads the jobs again from it).
pub fn audit_with_source(
    catalog: &Catalog,
    plan: Option<&Plan>,
    args: &AuditArgs,
) -> Result<(FleetSource, AuditReport, Vec<FileSummary>), Failure> {
    let mapping = args.mapping.as_deref().map(read_mapping).transpose()?;
    let prometheus = args.prometheus.resolve(plan);
    let mut logs = args.logs.clone();
    if logs.is_empty() {
        logs = plan
            .map(|p| p.logs.iter().map(|l| PathBuf::from(&l.path)).collect())
            .unwrap_or_default();
    }
    let rules = catalog
        .classification
        .as_ref()
        .ok_or_else(|| Diagnostic::file("catalogs/classification.toml", "no classification rules loaded"))?;
    let mut settings = settings(args, catalog, plan)?;
    if let Some(mapping) = &mapping {
        for (cluster, patterns) in &mapping.hosts {
            settings
                .host_patterns
                .entry(cluster.clone())
                .or_default()
                .extend(patterns.iter().cloned());
        }
    }
    let (source, progress) = match (&prometheus, logs.is_empty()) {
        (Some(prometheus), true) => pods_from_prometheus(prometheus, rules, &mut settings, args)?,
        _ => {
            if logs.is_empty() {
                let sample = crate::config::sample_log::sample_log_path()
                    .map_err(|e| Diagnostic::file("sample log", e.to_string()))?;
                eprintln!("no log given: auditing the shipped sample {}", sample.display());
                logs.push(sample);
            }
            read_logs(&logs, args, mapping.as_ref(), rules, prometheus.is_some())?
        }
    };
    let fail = |e: LoadError| Diagnostic::from(&e);
    let (mut report, files) = source.audit(rules, &settings).map_err(fail)?;
    if let Some(prometheus) = &prometheus {
        let hosts = source
            .host_map(&settings)
            .map_err(|e| Diagnostic::file("[hosts]", e.to_string()))?;
        let pull = pull_utilization(prometheus, &report.window, &hosts, &progress)?;
        attach_measurements(&mut report, &pull.measurements, &settings);
        report.measurement_notes.extend(pull.notes);
        report.measurement_notes.push(format!(
            "{} queries to {}, {} bytes received",
            pull.queries,
            crate::runtime::prometheus::client::shown_url(&prometheus.url),
            thousands(pull.bytes_received as f64)
        ));
    }
    let rows = source
        .rows_read()
        .unwrap_or((report.runs_total + report.rows_rejected_total) as usize);
    let elapsed = progress.elapsed().as_secs_f64();
    progress.finish(&format!("audited {} rows in {elapsed:.1} s", thousands(rows as f64)));
    for file in &files {
        for warning in &file.warnings {
            eprintln!("warning: {}: {warning}", file.path);
        }
    }
    Ok((source, report, files))
}

/// Reads job logs, with a progress line for large ones, or when a Prometheus pull follows.
fn read_logs(
    logs: &[PathBuf],
    args: &AuditArgs,
    mapping: Option<&Mapping>,
    rules: &crate::model::workload::ClassificationRules,
    pulls_after: bool,
) -> Result<(FleetSource, Progress), Failure> {
    let inputs = expand_inputs(logs).map_err(|e| Diagnostic::from(&e))?;
    let bytes: u64 = inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    // A folder (partitioned Parquet) has no size to show a bar of: a spinner and the phase.
    let progress = Progress::start(
        bytes > LARGE_INPUT_BYTES || inputs.iter().any(|p| p.is_dir()) || pulls_after,
        &format!("reading {} MB", bytes / 1_000_000),
        bytes,
    );
    let fail = |e: LoadError| Diagnostic::from(&e);
    let source = FleetSource::read(&inputs, args.input_format.as_deref(), mapping, rules).map_err(fail)?;
    progress.phase(match (&source, source.rows_read()) {
        (FleetSource::Partitioned { partitions, .. }, _) => {
            format!("auditing {} cluster partitions one at a time", partitions.len())
        }
        (_, rows) => {
            let rows = rows.unwrap_or(0) as f64;
            format!(
                "read {} rows ({:.0} rows/s); classifying and aggregating",
                thousands(rows),
                rows / progress.elapsed().as_secs_f64().max(1e-9)
            )
        }
    });
    Ok((source, progress))
}

fn prometheus_failure(e: PrometheusError) -> Failure {
    Diagnostic::file(&format!("prometheus {}", e.url), e.message).into()
}

/// A Kubernetes fleet from Prometheus alone: kube-state-metrics' pods over the window as runs.
/// The window is fixed here (the pull needs it before any job is known): `--since`/`--until`,
/// else the last `--days` (90) to now.
fn pods_from_prometheus(
    prometheus: &PrometheusSource,
    rules: &crate::model::workload::ClassificationRules,
    settings: &mut AuditSettings,
    args: &AuditArgs,
) -> Result<(FleetSource, Progress), Failure> {
    if args.all_time {
        return Err(Diagnostic::file(
            "--all-time",
            "with Prometheus and no job log there is no log to span: give --since (and --until) or --days",
        )
        .into());
    }
    let now_ms = chrono::Utc::now().timestamp_millis();
    let end_ms = settings.window.until_ms.unwrap_or(now_ms);
    let days = settings.window.days.unwrap_or(90.0);
    let start_ms = settings
        .window
        .since_ms
        .unwrap_or(end_ms - (days * 86_400_000.0) as i64);
    if end_ms <= start_ms {
        return Err(Diagnostic::file("--since", "the window is empty: --since must come before --until").into());
    }
    settings.window = WindowSpec {
        days: None,
        since_ms: Some(start_ms),
        until_ms: Some(end_ms),
    };
    let window = Window::from_ms(start_ms, end_ms);
    let progress = Progress::start(true, "pulling pods from kube-state-metrics", 0);
    let client = PrometheusClient::connect(prometheus).map_err(prometheus_failure)?;
    let mut tick = |p: PullProgress| {
        progress.phase(format!(
            "pods from {}: query {} of {}",
            client.shown_url(),
            p.done,
            p.total
        ))
    };
    let pods = pull_pods(&client, prometheus, &window, &mut tick).map_err(prometheus_failure)?;
    let origin = format!("prometheus {} (kube-state-metrics)", client.shown_url());
    let source = FleetSource::from_runs(&pods.runs, &origin, rules).map_err(|e| Diagnostic::from(&e))?;
    for note in pods.notes {
        eprintln!("{note}");
    }
    Ok((source, progress))
}

/// Each cluster's hourly DCGM utilization over the audit window, with progress.
fn pull_utilization(
    prometheus: &PrometheusSource,
    window: &Window,
    hosts: &crate::data::audit::host_map::HostMap,
    progress: &Progress,
) -> Result<UtilizationPull, Failure> {
    let client = PrometheusClient::connect(prometheus).map_err(prometheus_failure)?;
    let mut tick = |p: PullProgress| {
        progress.phase(format!(
            "pulling utilization from {}: query {} of {}",
            client.shown_url(),
            p.done,
            p.total
        ))
    };
    pull_cluster_utilization(&client, prometheus, window, hosts, &mut tick).map_err(prometheus_failure)
}

pub fn run(catalog: &Catalog, args: AuditArgs) -> Result<(), Failure> {
    let mut plan = load_plan_if_given(catalog, args.plan.as_deref())?;
    if plan.is_none() {
        // As the report, the replay and the workbench do: the built-in plan, which prices the
        // shipped sample's four clusters, so every command tells the same story.
        eprintln!(
            "no plan given: using the built-in plan ({}); clusters it does not list are priced at the fallback rate",
            crate::config::plan_file::DEFAULT_PLAN_NAME
        );
        plan = Some(crate::config::plan_file::default_plan(catalog).map_err(Failure::Input)?);
    }
    let (report, files) = audit_logs(catalog, plan.as_ref(), &args)?;
    let bill = if args.bill.is_empty() {
        None
    } else {
        Some(super::bill::bill_audit(&args.bill, plan.as_ref(), &report)?)
    };
    let document = |report: &AuditReport, files: &[FileSummary]| {
        let mut doc = document(report, files);
        if let Some(bill) = &bill {
            doc.sections.push(super::bill::section(bill));
        }
        doc
    };
    let out = match args.format {
        Format::Json => {
            let inputs = files
                .iter()
                .map(|f| JsonInput {
                    path: &f.path,
                    format: f.format,
                    rows: f.rows,
                    rejected: f.rejected,
                    warnings: &f.warnings,
                })
                .collect();
            serde_json::to_string_pretty(&JsonAudit {
                inputs,
                report: &report,
                bill: bill.as_ref(),
            })
            .unwrap_or_default()
                + "\n"
        }
        Format::Table => render_text(&document(&report, &files)),
        Format::Markdown => render_markdown(&document(&report, &files)),
    };
    print!("{out}");
    Ok(())
}
