//! `gpuplan audit`: classify the logs' jobs and show the stranded spend (docs/economics.md, "The audit").

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
use crate::model::fleet::{ClusterAudit, MeasuredUtilization, PendingClass};
use crate::model::format::{or_dash, pct, thousands, truncated, usd};
use crate::model::plan::Plan;
use crate::model::plan::PrometheusSource;
use crate::model::utilization::UtilizationSource;
use crate::model::workload::WorkloadClass;
use crate::present::document::{Align, Block, Document, Section, Table, render_markdown, render_text};
use crate::runtime::prometheus::client::{PrometheusClient, PrometheusError};
use crate::runtime::prometheus::pull::{PullProgress, UtilizationPull, pull_cluster_utilization, pull_pods};

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
                let sample =
                    crate::config::sample_log::sample_log_path().map_err(|e| Diagnostic::file("sample log", e))?;
                eprintln!("no log given: auditing the shipped sample {}", sample.display());
                logs.push(sample);
            }
            read_logs(&logs, args, mapping.as_ref(), rules, prometheus.is_some())?
        }
    };
    let fail = |e: LoadError| Diagnostic::file(&e.path, e.message);
    let (mut report, files) = source.audit(rules, &settings).map_err(fail)?;
    if let Some(prometheus) = &prometheus {
        let hosts = source.host_map(&settings).map_err(|e| Diagnostic::file("[hosts]", e))?;
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
    let inputs = expand_inputs(logs).map_err(|e| Diagnostic::file(&e.path, e.message))?;
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
    let fail = |e: LoadError| Diagnostic::file(&e.path, e.message);
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
    let source =
        FleetSource::from_runs(&pods.runs, &origin, rules).map_err(|e| Diagnostic::file(&e.path, e.message))?;
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

/// Daily means as a sparkline: one character a day, full block at capacity.
/// Columns of the day sparkline: with the cluster's name it fits 120 columns.
pub const SPARKLINE_MAX_COLUMNS: usize = 96;

/// Days per sparkline column for a window of `hours`: one, or as many as keep it within
/// `SPARKLINE_MAX_COLUMNS` (a ten-year log is 39 days a column, not 3,653 columns).
pub fn days_per_column(hours: usize) -> usize {
    hours.div_ceil(24).div_ceil(SPARKLINE_MAX_COLUMNS).max(1)
}

/// Series points in one sparkline column: `days_per_column` days of points of
/// `hours_per_point` hours (at least one point).
pub fn points_per_column(points: usize, hours_per_point: u32) -> usize {
    let hours_per_point = hours_per_point.max(1) as usize;
    let days = days_per_column(points.saturating_mul(hours_per_point));
    (days * 24).div_ceil(hours_per_point).max(1)
}

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// One column per `days_per_column` days: the mean share of capacity in use.
pub fn sparkline(points: &[f64], hours_per_point: u32, capacity: f64) -> String {
    points
        .chunks(points_per_column(points.len(), hours_per_point))
        .map(|day| {
            let mean = day.iter().sum::<f64>() / day.len().max(1) as f64;
            let level = if capacity > 0.0 {
                (mean / capacity).clamp(0.0, 1.0)
            } else {
                0.0
            };
            BARS[((level * 7.0).round() as usize).min(7)]
        })
        .collect()
}

/// The cluster table's short name for where a utilization figure came from.
pub fn source_tag(source: UtilizationSource) -> &'static str {
    match source {
        UtilizationSource::Measured => "dcgm",
        UtilizationSource::JobLog => "log",
        UtilizationSource::Allocation => "alloc",
    }
}

/// Each measured cluster: the hardware's figures beside the log's, and where they came from.
fn measured_clusters_section(r: &AuditReport) -> Option<Section> {
    let measured: Vec<_> = r
        .clusters
        .iter()
        .filter_map(|c| Some((c, c.measured.as_ref()?, c.log.as_ref()?)))
        .collect();
    if measured.is_empty() && r.measurement_notes.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        ("cluster", Align::Left),
        ("GPU series", Align::Right),
        ("hours", Align::Right),
        ("util dcgm", Align::Right),
        ("util log", Align::Right),
        ("non-training", Align::Right),
        ("stranded dcgm", Align::Right),
        ("stranded log", Align::Right),
    ]);
    let mut origins = Vec::new();
    for (c, m, log) in &measured {
        table.row(vec![
            c.name.clone(),
            thousands(m.gpu_series as f64),
            thousands(m.hours_measured as f64),
            pct(m.mean_util_frac),
            pct(log.utilization_frac),
            format!(
                "{} / {}",
                pct(m.non_training_util_frac),
                pct(log.non_training_utilization_frac)
            ),
            usd(c.stranded_usd_per_month),
            usd(log.stranded_usd_per_month),
        ]);
        origins.push((c.name.clone(), format!("{} from {}", m.metric, m.origin)));
    }
    let mut blocks = Vec::new();
    if !measured.is_empty() {
        blocks.push(Block::Table(table));
        blocks.push(Block::Note(
            "Measured: the mean over the cluster's GPU series of each hour's mean; non-training: measured / log, \
             each measured hour weighed by its minutes without training. The stranded spend uses the measured figure."
                .into(),
        ));
        blocks.push(Block::Facts(origins));
    }
    if !r.measurement_notes.is_empty() {
        blocks.push(Block::Facts(
            r.measurement_notes
                .iter()
                .map(|n| ("note".to_string(), n.clone()))
                .collect(),
        ));
    }
    Some(Section {
        title: "Utilization measured per cluster (DCGM)".into(),
        blocks,
    })
}

fn util_text(u: Option<f64>) -> String {
    u.map_or("-".to_string(), pct)
}

/// What DCGM measured, beside what the job log reports for the same window.
fn measured_section(m: &MeasuredUtilization, r: &AuditReport) -> Section {
    let capacity: f64 = r.clusters.iter().map(|c| c.capacity_gpus).sum();
    let reported = r
        .clusters
        .iter()
        .map(|c| c.utilization_frac * c.capacity_gpus)
        .sum::<f64>();
    let hours_per_point = r.window.resolution.hours_per_point;
    let by_day: String = m
        .hourly_util_frac
        .chunks(points_per_column(m.hourly_util_frac.len(), hours_per_point))
        .map(|day| {
            let values: Vec<f64> = day.iter().flatten().copied().collect();
            if values.is_empty() {
                ' '
            } else {
                let mean = values.iter().sum::<f64>() / values.len() as f64;
                BARS[((mean.clamp(0.0, 1.0) * 7.0).round() as usize).min(7)]
            }
        })
        .collect();
    let mut facts = vec![
        (
            "measured".into(),
            format!(
                "{} mean over {} GPU series on {} hosts ({} samples)",
                pct(m.mean_util_frac),
                thousands(m.gpu_series as f64),
                thousands(m.hosts as f64),
                thousands(m.samples as f64)
            ),
        ),
        (
            "job log".into(),
            if capacity > 0.0 {
                format!("{} of capacity across clusters", pct(reported / capacity))
            } else {
                "-".to_string()
            },
        ),
        ("by day".into(), by_day),
    ];
    for host in &m.hosts_below_threshold {
        facts.push((
            host.host.clone(),
            format!(
                "{} over {} GPU series: below {}",
                pct(host.mean_util_frac),
                host.gpu_series,
                pct(m.threshold_frac)
            ),
        ));
    }
    Section {
        title: "Measured utilization (DCGM)".into(),
        blocks: vec![
            Block::Facts(facts),
            Block::Note(
                "Samples name hosts, not clusters: the measured figures are the fleet's; a GPU sampled more often weighs the same as the others."
                    .into(),
            ),
        ],
    }
}

/// The largest jobs the text and Markdown list per cluster and class (the JSON has all the
/// audit kept).
const TOP_JOBS_SHOWN: usize = 5;

/// The widest line of the largest-jobs table.
const TOP_JOBS_COLUMNS: usize = 120;

/// The text columns of the largest-jobs table (cluster, class, job, name, user, queue, state),
/// each the width of its widest value until the line would pass `TOP_JOBS_COLUMNS` with the
/// numbers' widths (`other_chars`); then the widest shrinks first, none below its floor.
fn fit_widths(natural: [usize; 7], other_chars: usize) -> [usize; 7] {
    const FLOORS: [usize; 7] = [8, 9, 10, 12, 6, 6, 7];
    let mut widths: [usize; 7] = std::array::from_fn(|i| natural[i].max(FLOORS[i].min(natural[i])));
    // The indent and two spaces between the ten columns.
    let budget = TOP_JOBS_COLUMNS.saturating_sub(2 + 2 * 9 + other_chars);
    while widths.iter().sum::<usize>() > budget {
        let Some(widest) = (0..7).filter(|&i| widths[i] > FLOORS[i]).max_by_key(|&i| widths[i]) else {
            break;
        };
        widths[widest] -= 1;
    }
    widths
}

/// The end of a long id, which tells jobs apart (`…019_10238`), with `…` before it.
fn id_tail(id: &str, max_chars: usize) -> String {
    let count = id.chars().count();
    if count <= max_chars {
        return id.to_string();
    }
    let tail: String = id.chars().skip(count + 1 - max_chars).collect();
    format!("…{tail}")
}

fn pending_row(cluster: &str, class: WorkloadClass, p: &PendingClass) -> Vec<String> {
    vec![
        cluster.to_string(),
        class.label().to_string(),
        thousands(p.jobs as f64),
        thousands(p.gpus),
        thousands(p.gpu_hours_requested),
        p.gpu_hours_basis.label().to_string(),
    ]
}

/// Jobs that asked for GPUs and never started, per cluster and class: when there are any.
fn pending_section(r: &AuditReport) -> Option<Section> {
    if r.pending.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        ("cluster", Align::Left),
        ("class", Align::Left),
        ("jobs", Align::Right),
        ("GPUs", Align::Right),
        ("GPU-hours asked", Align::Right),
        ("counted as", Align::Left),
    ]);
    for c in &r.clusters {
        for class in WorkloadClass::ALL {
            let p = c.pending.get(class);
            if p.jobs > 0 {
                table.row(pending_row(&c.name, class, p));
            }
        }
    }
    // The fleet's lines when they add something: several clusters, or jobs of clusters that
    // ran nothing in the window.
    let with_pending = r.clusters.iter().filter(|c| !c.pending.is_empty()).count();
    let in_clusters: u64 = r.clusters.iter().map(|c| c.pending.jobs()).sum();
    if with_pending > 1 || in_clusters != r.pending.jobs() {
        for class in WorkloadClass::ALL {
            let p = r.pending.get(class);
            if p.jobs > 0 {
                table.row(pending_row("fleet", class, p));
            }
        }
    }
    let without: u64 = WorkloadClass::ALL
        .iter()
        .map(|&c| r.pending.get(c).jobs_without_hours)
        .sum();
    let mut blocks = vec![
        Block::Table(table),
        Block::Note(
            "Jobs that waited in the window and never started (Slurm PENDING, pods never scheduled, rows\n\
             with a submit time and no start), classed by the same rules; not rejected rows, not in the GPU-hours\n\
             that ran. GPU-hours asked: time limit × GPUs where the log gives one, else the wait in the window\n\
             (from submit, or the window's start, to cancellation or the window's end) × GPUs."
                .into(),
        ),
    ];
    if without > 0 {
        blocks.push(Block::Facts(vec![(
            "no GPU-hours".into(),
            format!(
                "{} jobs give neither a time limit nor a submit time: counted in jobs and GPUs only",
                thousands(without as f64)
            ),
        )]));
    }
    Some(Section {
        title: "Pending demand (jobs that never started)".into(),
        blocks,
    })
}

/// The largest jobs of each cluster and class, with what the log says of them.
fn top_jobs_section(r: &AuditReport) -> Option<Section> {
    if r.top_jobs.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        ("cluster", Align::Left),
        ("class", Align::Left),
        ("job", Align::Left),
        ("name", Align::Left),
        ("user", Align::Left),
        ("queue", Align::Left),
        ("state", Align::Left),
        ("GPUs", Align::Right),
        ("GPU-h", Align::Right),
        ("util", Align::Right),
    ]);
    let mut group: Option<(&str, WorkloadClass)> = None;
    let mut shown = 0;
    let mut rows: Vec<([String; 7], [String; 3])> = Vec::new();
    for job in &r.top_jobs {
        let this = (job.cluster.as_str(), job.class);
        if group != Some(this) {
            group = Some(this);
            shown = 0;
        }
        shown += 1;
        if shown > TOP_JOBS_SHOWN {
            continue;
        }
        let text = |value: &Option<String>| or_dash(value.as_deref());
        rows.push((
            [
                job.cluster.clone(),
                job.class.label().to_string(),
                text(&job.job_id),
                text(&job.name),
                text(&job.user),
                text(&job.queue),
                text(&job.state),
            ],
            [
                thousands(job.max_gpus),
                thousands(job.gpu_hours),
                job.mean_util_frac.map_or_else(|| "–".to_string(), pct),
            ],
        ));
    }
    let width = |cell: &str| cell.chars().count();
    let natural: [usize; 7] = std::array::from_fn(|i| {
        rows.iter()
            .map(|(texts, _)| width(&texts[i]))
            .chain([width(&table.headers[i])])
            .max()
            .unwrap_or(0)
    });
    let numbers: usize = (0..3)
        .map(|i| {
            rows.iter()
                .map(|(_, numbers)| width(&numbers[i]))
                .chain([width(&table.headers[7 + i])])
                .max()
                .unwrap_or(0)
        })
        .sum();
    let widths = fit_widths(natural, numbers);
    for (texts, numbers) in rows {
        let mut cells: Vec<String> = texts
            .iter()
            .enumerate()
            // Ids differ at their end (`…019_10238`): cut from the front; the rest from the back.
            .map(|(i, t)| {
                if i == 2 {
                    id_tail(t, widths[i])
                } else {
                    truncated(t, widths[i])
                }
            })
            .collect();
        cells.extend(numbers);
        table.row(cells);
    }
    Some(Section {
        title: format!("Top jobs ({TOP_JOBS_SHOWN} per cluster and class by GPU-hours)"),
        blocks: vec![
            Block::Table(table),
            Block::Note(format!(
                "GPUs: the most a run held; GPU-h and util (GPU-hour weighted): its runs in the window.\n\
                 state: its last run's; – where the log has no such column. The JSON lists {} a group, with log lines.",
                crate::data::audit::top_jobs::TOP_JOBS_PER_CLASS
            )),
        ],
    })
}

pub fn document(r: &AuditReport, files: &[FileSummary]) -> Document {
    let mut inputs = Table::new(&[
        ("input", Align::Left),
        ("format", Align::Left),
        ("rows", Align::Right),
        ("rejected", Align::Right),
    ]);
    for f in files {
        inputs.row(vec![
            f.path.clone(),
            f.format.to_string(),
            thousands(f.rows as f64),
            thousands(f.rejected as f64),
        ]);
    }
    let mut overview = vec![
        Block::Table(inputs),
        Block::Facts(vec![
            (
                "window".into(),
                format!("{} to {} ({:.1} days)", r.window.start, r.window.end, r.window.days),
            ),
            (
                "jobs".into(),
                format!(
                    "{} ({} runs)",
                    thousands(r.jobs_total as f64),
                    thousands(r.runs_total as f64)
                ),
            ),
            (
                "GPU-hours".into(),
                format!("{} ({})", thousands(r.gpu_hours_total), r.gpu_hours_counting),
            ),
        ]),
    ];
    if let Some(note) = r.window.resolution.note(r.window.days) {
        overview.push(Block::Note(format!("Resolution: {note}.")));
    }
    let mut classes = Table::new(&[
        ("class", Align::Left),
        ("jobs", Align::Right),
        ("GPU-hours", Align::Right),
        ("share", Align::Right),
        ("mean util", Align::Right),
    ]);
    for class in WorkloadClass::ALL {
        let s = r.classes.get(class);
        classes.row(vec![
            class.label().into(),
            thousands(s.jobs as f64),
            thousands(s.gpu_hours),
            pct(s.gpu_hours_share),
            util_text(s.mean_util_frac),
        ]);
    }
    let mut clusters = Table::new(&[
        ("cluster", Align::Left),
        ("GPUs", Align::Right),
        ("train/infer/burst", Align::Left),
        ("alloc", Align::Right),
        ("util", Align::Right),
        ("from", Align::Left),
        ("peak", Align::Right),
        ("p95", Align::Right),
        ("cost/month", Align::Right),
        ("stranded/month", Align::Right),
    ]);
    let mut series = Vec::new();
    let mut flags = Vec::new();
    for c in &r.clusters {
        let mix: Vec<String> = WorkloadClass::ALL
            .iter()
            .map(|&k| format!("{:.0}", c.classes.get(k).gpu_hours_share * 100.0))
            .collect();
        clusters.row(vec![
            c.name.clone(),
            format!(
                "{}{}",
                thousands(c.capacity_gpus),
                if c.capacity_source == "plan" { "" } else { "*" }
            ),
            format!("{} %", mix.join("/")),
            pct(c.allocation_frac),
            pct(c.utilization_frac),
            source_tag(c.utilization_source).to_string(),
            thousands(c.peak_concurrent_gpus),
            thousands(c.p95_concurrent_gpus),
            usd(c.monthly_cost_usd),
            usd(c.stranded_usd_per_month),
        ]);
        series.push((
            c.name.clone(),
            sparkline(&c.hourly.utilized_gpus, c.hourly.hours_per_point, c.capacity_gpus),
        ));
        for flag in &c.flags {
            flags.push((c.name.clone(), flag.clone()));
        }
    }
    let stranded: f64 = r.clusters.iter().map(|c| c.stranded_usd_per_month).sum();
    let mut cluster_blocks = vec![
        Block::Table(clusters),
        Block::Note("* capacity not in the plan: the observed peak is used. Stranded = monthly cost × non-training time share × (1 − mean utilization in non-training time). from: dcgm = measured by DCGM, log = the job log's utilization column, alloc = neither, allocation counted as use.".into()),
        Block::Facts(vec![("stranded spend".into(), format!("{} per month across clusters", usd(stranded)))]),
    ];
    if let Some(note) = fallback_price_note(r) {
        cluster_blocks.push(Block::Note(note));
    }
    if !flags.is_empty() {
        cluster_blocks.push(Block::Facts(flags));
    }
    let mut sections = vec![
        Section {
            title: "Inputs".into(),
            blocks: overview,
        },
        Section {
            title: "Classes".into(),
            blocks: vec![Block::Table(classes)],
        },
        Section {
            title: "Clusters".into(),
            blocks: cluster_blocks,
        },
        Section {
            title: match days_per_column(r.clusters.iter().map(|c| c.hourly.hours() as usize).max().unwrap_or(0)) {
                1 => "Utilization by day (▁ idle … █ at capacity)".into(),
                days => format!("Utilization, {days} days a column (▁ idle … █ at capacity)"),
            },
            blocks: vec![Block::Facts(series)],
        },
    ];
    if let Some(section) = pending_section(r) {
        sections.push(section);
    }
    if let Some(section) = top_jobs_section(r) {
        sections.push(section);
    }
    if let Some(section) = measured_clusters_section(r) {
        sections.push(section);
    }
    if let Some(m) = &r.measured_utilization {
        sections.push(measured_section(m, r));
    }
    let mut rules = Table::new(&[
        ("rule", Align::Left),
        ("class", Align::Left),
        ("jobs", Align::Right),
        ("GPU-hours", Align::Right),
    ]);
    for u in &r.rules {
        rules.row(vec![
            u.rule.clone(),
            u.class.clone(),
            thousands(u.jobs as f64),
            thousands(u.gpu_hours),
        ]);
    }
    let mut rule_blocks = vec![Block::Table(rules)];
    if let Some(a) = &r.label_agreement {
        let mut matrix = Table::new(&[
            ("label \\ rules", Align::Left),
            ("training", Align::Right),
            ("inference", Align::Right),
            ("burst", Align::Right),
        ]);
        for class in WorkloadClass::ALL {
            let row = a.matrix[class as usize];
            matrix.row(vec![
                class.label().into(),
                thousands(row[0] as f64),
                thousands(row[1] as f64),
                thousands(row[2] as f64),
            ]);
        }
        rule_blocks.push(Block::Note(format!(
            "Rules agree with the log's labels on {} of {} labeled jobs:",
            pct(a.agreement_frac),
            thousands(a.labeled_jobs as f64)
        )));
        rule_blocks.push(Block::Table(matrix));
    }
    sections.push(Section {
        title: "Classification rules".into(),
        blocks: rule_blocks,
    });
    if r.rows_rejected_total > 0 {
        let mut counts = Table::new(&[("reason", Align::Left), ("rows", Align::Right)]);
        for (reason, count) in &r.rows_rejected {
            counts.row(vec![reason.label().into(), thousands(*count as f64)]);
        }
        let mut samples = Table::new(&[("where", Align::Left), ("reason", Align::Left), ("row", Align::Left)]);
        for s in &r.rejected_samples {
            samples.row(vec![
                format!("{}:{}", s.file, s.line),
                s.reason.label().into(),
                s.detail.clone(),
            ]);
        }
        sections.push(Section {
            title: format!("Rejected rows ({})", thousands(r.rows_rejected_total as f64)),
            blocks: vec![Block::Table(counts), Block::Table(samples)],
        });
    }
    Document {
        title: "gpuplan audit".into(),
        sections,
    }
}

/// The clusters the plan does not price, and the rate they were priced at instead.
fn fallback_price_note(r: &AuditReport) -> Option<String> {
    let unpriced: Vec<&ClusterAudit> = r.clusters.iter().filter(|c| c.price_source != "plan").collect();
    let first = unpriced.first()?;
    let names: Vec<&str> = unpriced.iter().map(|c| c.name.as_str()).collect();
    Some(format!(
        "Not in the plan, priced at {}/GPU-h ({}): {}. Add them to the plan's [[clusters]] with their real price.",
        usd(first.usd_per_gpu_hour),
        first.price_source,
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_day_sparkline_fits_the_terminal_whatever_the_window() {
        assert_eq!(sparkline(&vec![1.0; 90 * 24], 1, 2.0).chars().count(), 90);
        let ten_years = vec![1.0; 3653 * 24];
        let line = sparkline(&ten_years, 1, 2.0);
        assert!(
            line.chars().count() <= SPARKLINE_MAX_COLUMNS,
            "{}",
            line.chars().count()
        );
        assert_eq!(days_per_column(3653 * 24), 39);
        assert_eq!(days_per_column(0), 1);
        // Ten thousand years in points of 2,680 hours: still one line that fits.
        let ten_millennia = vec![1.0; 32_709];
        assert!(sparkline(&ten_millennia, 2_680, 2.0).chars().count() <= SPARKLINE_MAX_COLUMNS);
    }
}
