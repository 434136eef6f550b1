//! The audit as a document: the overview, classes and clusters tables, the day sparklines,
//! and the sections of `sections.rs`, for the text and Markdown outputs.

use crate::data::audit::AuditReport;
use crate::data::readers::load::FileSummary;
use crate::model::fleet::ClusterAudit;
use crate::model::utilization::UtilizationSource;
use crate::model::workload::WorkloadClass;
use crate::present::document::{Align, Block, Document, Section, Table};
use crate::shared::format::{gpu_count, pct, thousands, usd};

use super::known::{PerMonthText, known_usd};
use super::sections::{
    measured_clusters_section, measured_section, pending_section, spend_parts_section, top_jobs_section,
};

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

pub(super) const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

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

fn util_text(u: Option<f64>) -> String {
    u.map_or("-".to_string(), pct)
}

pub fn document(r: &AuditReport, files: &[FileSummary]) -> Document {
    let mut inputs = Table::new(&[
        ("input", Align::Left),
        ("format", Align::Left),
        ("rows", Align::Right),
        ("set aside", Align::Right),
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
                gpu_count(c.capacity_gpus),
                if c.capacity_source == "plan" { "" } else { "*" }
            ),
            format!("{} %", mix.join("/")),
            pct(c.allocation_frac),
            pct(c.utilization_frac),
            source_tag(c.utilization_source).to_string(),
            gpu_count(c.peak_concurrent_gpus),
            gpu_count(c.p95_concurrent_gpus),
            usd(c.monthly_cost_usd),
            known_usd(c.spend_parts.stranded_usd_per_month),
        ]);
        series.push((
            c.name.clone(),
            sparkline(&c.hourly.utilized_gpus, c.hourly.hours_per_point, c.capacity_gpus),
        ));
        for flag in &c.flags {
            flags.push((c.name.clone(), flag.clone()));
        }
    }
    let stranded = r.stranded_usd_per_month();
    let mut cluster_blocks = vec![
        Block::Table(clusters),
        Block::Note(format!(
            "{}Stranded = never allocated + allocated idle: paid for and not working (\"Paid capacity by what it did\" splits each cluster's cost); unknown where no utilization tells idle from busy. from: dcgm = measured by DCGM, log = the job log's utilization column, alloc = neither.",
            match (
                r.clusters.iter().any(|c| c.capacity_source == "observed peak"),
                r.clusters.iter().any(|c| c.capacity_source == "node list"),
            ) {
                (true, true) =>
                    "* capacity not in the plan: a node list's GPUs where one is given, else the observed peak. ",
                (false, true) => "* capacity not in the plan: the node list's GPUs. ",
                (true, false) => "* capacity not in the plan: the observed peak is used. ",
                (false, false) => "",
            }
        )),
        Block::Facts(vec![(
            "stranded spend".into(),
            stranded.per_month_text("across clusters"),
        )]),
    ];
    if r.jobs_total > 0 && r.gpu_hours_total <= 0.0 {
        cluster_blocks.push(Block::Note(
            "The log holds no GPU job in the window: every job read 0 GPUs, so these clusters have no GPU capacity \
             to judge (the inputs' warnings name the column read as GPUs)."
                .into(),
        ));
    }
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
    if let Some(section) = spend_parts_section(r) {
        sections.insert(3, section);
    }
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
    if !r.unknown_labels.is_empty() {
        let mut unknown = Table::new(&[
            ("label", Align::Left),
            ("jobs", Align::Right),
            ("GPU-hours", Align::Right),
        ]);
        for u in &r.unknown_labels {
            unknown.row(vec![u.label.clone(), thousands(u.jobs as f64), thousands(u.gpu_hours)]);
        }
        rule_blocks.push(Block::Note(
            "Labels in the log that [labels] does not know: their jobs were classified by the rules. \
             Add each to a class in classification.toml, or to `unclassed`:"
                .into(),
        ));
        rule_blocks.push(Block::Table(unknown));
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
            // A row of a database has no line: 0 (the detail names its job).
            let place = if s.line == 0 {
                s.file.clone()
            } else {
                format!("{}:{}", s.file, s.line)
            };
            samples.row(vec![place, s.reason.label().into(), s.detail.clone()]);
        }
        sections.push(Section {
            title: format!("Rows set aside ({})", thousands(r.rows_rejected_total as f64)),
            blocks: vec![Block::Table(counts), Block::Table(samples)],
        });
    }
    Document {
        title: "gpuplan audit".into(),
        sections,
    }
}

/// The clusters the plan does not price, and what they were priced at instead: the list price
/// of the accelerator their log names, each with its source, or the fallback rate.
fn fallback_price_note(r: &AuditReport) -> Option<String> {
    let unpriced: Vec<&ClusterAudit> = r.clusters.iter().filter(|c| c.price_source != "plan").collect();
    if unpriced.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    for c in unpriced.iter().filter(|c| c.priced_as.is_some()) {
        parts.push(format!(
            "{} at {}/GPU-h ({})",
            c.name,
            usd(c.usd_per_gpu_hour),
            c.price_source
        ));
    }
    let fallback: Vec<&&ClusterAudit> = unpriced.iter().filter(|c| c.priced_as.is_none()).collect();
    if let Some(first) = fallback.first() {
        let names: Vec<&str> = fallback.iter().map(|c| c.name.as_str()).collect();
        parts.push(format!(
            "{} at the fallback {}/GPU-h ({})",
            names.join(", "),
            usd(first.usd_per_gpu_hour),
            first.price_source
        ));
    }
    Some(format!(
        "Not in the plan, so priced by assumption: {}. Add them to the plan's [[clusters]] with their real price (`gpuplan plan new --logs` writes a starting plan).",
        parts.join("; ")
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
