//! The drill-down views: a cluster's classes, a class's rules and largest jobs, one job.

use ratatui::text::{Line, Span};

use super::{Listing, wrapped};
use crate::app::field::{ClusterField, Field};
use crate::app::{App, class_jobs, cluster_classes};
use crate::model::fleet::{AuditReport, ClusterAudit, JobLine};
use crate::model::workload::WorkloadClass;
use crate::shared::format::{gpu_count, or_dash, pct, thousands, usd_compact};
use crate::ui::theme::Theme;
use crate::ui::widgets::{cell, fields_line, label};

pub(super) fn cluster_lines(
    app: &App,
    report: &AuditReport,
    index: usize,
    theme: &Theme,
    width: u16,
    focused: bool,
) -> Listing {
    let Some(cluster) = report.clusters.get(index) else {
        return Listing::default();
    };
    let mut lines = vec![
        Line::styled(format!("{} ▸ classes", cluster.name), theme.title),
        fields_line(
            vec![
                (format!("{} GPUs · ", gpu_count(cluster.capacity_gpus)), theme.muted),
                (format!("util {} · ", pct(cluster.utilization_frac)), theme.muted),
                (format!("{}/h · ", usd_compact(cluster.usd_per_gpu_hour)), theme.muted),
                (
                    match cluster.spend_parts.stranded_usd_per_month {
                        Some(stranded) => format!("stranded {}/mo", usd_compact(stranded)),
                        None => "stranded unknown".to_string(),
                    },
                    theme.warn,
                ),
            ],
            width,
        ),
        fields_line(
            vec![
                (label("class", 10), theme.title),
                (cell("jobs", 8), theme.title),
                (cell("GPU-h", 10), theme.title),
                (cell("share", 8), theme.title),
                (cell("util", 8), theme.title),
            ],
            width,
        ),
    ];
    let mut selected_line = None;
    let classes = cluster_classes(app, index);
    for (row, &class) in classes.iter().enumerate() {
        if row == app.cursors.drill_row {
            selected_line = Some(lines.len());
        }
        let s = cluster.classes.get(class);
        let style = if focused && row == app.cursors.drill_row {
            theme.selected
        } else {
            theme.class_style(class)
        };
        lines.push(fields_line(
            vec![
                (label(class.label(), 10), style),
                (cell(&thousands(s.jobs as f64), 8), theme.base),
                (cell(&thousands(s.gpu_hours), 10), theme.base),
                (cell(&pct(s.gpu_hours_share), 8), theme.base),
                (
                    cell(&s.mean_util_frac.map_or_else(|| "—".to_string(), pct), 8),
                    theme.base,
                ),
            ],
            width,
        ));
    }
    lines.push(Line::raw(""));
    let plan_rows = plan_lines(app, cluster, index, theme, width, focused);
    if let Some(row) = plan_rows.selected {
        selected_line = Some(lines.len() + row);
    }
    lines.extend(plan_rows.lines);
    if !cluster.pending.is_empty() {
        lines.push(Line::raw(""));
        lines.push(fields_line(
            vec![
                (label("never started", 14), theme.title),
                (cell("jobs", 8), theme.title),
                (cell("GPUs", 8), theme.title),
                (cell("GPU-h asked", 12), theme.title),
            ],
            width,
        ));
        for class in WorkloadClass::ALL {
            let p = cluster.pending.get(class);
            if p.jobs == 0 {
                continue;
            }
            lines.push(fields_line(
                vec![
                    (label(class.label(), 14), theme.class_style(class)),
                    (cell(&thousands(p.jobs as f64), 8), theme.base),
                    (cell(&thousands(p.gpus), 8), theme.base),
                    (cell(&thousands(p.gpu_hours_requested), 12), theme.base),
                ],
                width,
            ));
        }
    }
    lines.push(Line::raw(""));
    lines.push(fields_line(
        vec![
            (
                format!("non-training time {} ", pct(cluster.non_training_time_frac)),
                theme.muted,
            ),
            (
                format!("at {} busy", pct(cluster.non_training_utilization_frac)),
                theme.muted,
            ),
        ],
        width,
    ));
    for flag in &cluster.flags {
        lines.extend(wrapped(&format!("⚑ {flag}"), width, theme.warn));
    }
    lines.push(Line::styled(
        format!(
            "{} the class for its rules and largest jobs",
            app.key_hint(crate::app::command::CommandId::Drill)
        ),
        theme.muted,
    ));
    Listing {
        lines,
        selected: selected_line,
    }
}

/// The plan's price, capacity, term and deployment of the cluster, each a row the cursor
/// reaches after the classes and edits in place; for a cluster the plan does not list, what the
/// audit assumed instead.
fn plan_lines(app: &App, cluster: &ClusterAudit, index: usize, theme: &Theme, width: u16, focused: bool) -> Listing {
    let fields = app.cluster_fields(index);
    let Some(planned) = app.plan_cluster(index).and_then(|i| app.plan.clusters.get(i)) else {
        // One row: Enter adds it to the plan as audited and opens its price.
        let selected = app.cursors.drill_row == cluster_classes(app, index).len();
        let at_fallback = cluster.models.iter().filter(|m| m.at_fallback_rate).count();
        let rate = match at_fallback {
            0 => "a list price",
            n if n == cluster.models.len() => "the fallback rate",
            _ => "partly at the fallback rate",
        };
        let price = format!("{}/GPU-h, {rate}", usd_compact(cluster.usd_per_gpu_hour));
        let text = format!(
            "not in the plan's [[clusters]]: audited as {} GPUs ({}) at {price} (assumed); {} adds it to the plan \
             to set its price, capacity, term and deployment",
            gpu_count(cluster.capacity_gpus),
            cluster.capacity_source,
            app.key_hint(crate::app::command::CommandId::Drill),
        );
        let style = if focused && selected {
            theme.selected
        } else {
            theme.warn
        };
        let lines = wrapped(&text, width, style);
        return Listing {
            selected: selected.then_some(0),
            lines,
        };
    };
    let first_row = cluster_classes(app, index).len();
    let mut listing = Listing::unselected(vec![Line::styled("as the plan buys it", theme.title)]);
    for (k, field) in fields.iter().enumerate() {
        let selected = first_row + k == app.cursors.drill_row;
        if selected {
            listing.selected = Some(listing.lines.len());
        }
        let name = match field {
            Field::Cluster(ClusterField::UsdPerGpuHour(_)) => "price per GPU-hour",
            Field::Cluster(ClusterField::Gpus(_)) => "capacity",
            Field::Cluster(ClusterField::Term(_)) => "term",
            Field::Cluster(ClusterField::Deployment(_)) => "deployment",
            _ => "",
        };
        let value = app
            .field_value(*field)
            .map_or_else(|| "—".to_string(), |v| field.show(v));
        let style = if focused && selected {
            theme.selected
        } else {
            theme.title
        };
        listing.lines.push(fields_line(
            vec![(label(name, 20), theme.base), (format!("◂ {value} ▸"), style)],
            width,
        ));
    }
    listing.lines.push(fields_line(
        vec![(
            format!(
                "paid {}/mo at this price and capacity",
                usd_compact(planned.usd_per_month(app.plan.hours_per_month))
            ),
            theme.muted,
        )],
        width,
    ));
    listing
}

/// Labels decide whichever class they name, so that rule shows under every class.
fn shows_rule(rule: &crate::model::fleet::RuleUse, class: WorkloadClass) -> bool {
    rule.class == class.label() || rule.class == "labels"
}

pub(super) fn class_lines(
    app: &App,
    report: &AuditReport,
    cluster: usize,
    class: WorkloadClass,
    theme: &Theme,
    width: u16,
    focused: bool,
) -> Listing {
    let name = report.clusters.get(cluster).map_or("?", |c| c.name.as_str());
    let mut lines = vec![Line::styled(
        format!("{name} ▸ {} ▸ rules (whole fleet)", class.label()),
        theme.title,
    )];
    for rule in report.rules.iter().filter(|r| shows_rule(r, class)) {
        lines.push(fields_line(
            vec![
                (label(&rule.rule, 22), theme.base),
                (cell(&thousands(rule.jobs as f64), 8), theme.muted),
                (cell(&format!("{} GPU-h", thousands(rule.gpu_hours)), 14), theme.muted),
            ],
            width,
        ));
    }
    lines.push(Line::raw(""));
    lines.push(fields_line(
        vec![
            (label("largest jobs", 23), theme.title),
            (cell("GPUs", 6), theme.title),
            (cell("GPU-h", 9), theme.title),
            (cell("util", 8), theme.title),
            ("  user".to_string(), theme.title),
        ],
        width,
    ));
    let mut selected_line = None;
    for (row, job) in class_jobs(app, cluster, class).into_iter().enumerate() {
        if row == app.cursors.drill_row {
            selected_line = Some(lines.len());
        }
        let style = if focused && row == app.cursors.drill_row {
            theme.selected
        } else {
            theme.base
        };
        lines.push(fields_line(
            vec![
                (label(&job_title(job), 23), style),
                (cell(&thousands(job.max_gpus), 6), theme.base),
                (cell(&thousands(job.gpu_hours), 9), theme.base),
                (
                    cell(&job.mean_util_frac.map_or_else(|| "–".to_string(), pct), 8),
                    theme.base,
                ),
                (format!("  {}", or_dash(job.user.as_deref())), theme.muted),
            ],
            width,
        ));
    }
    Listing {
        lines,
        selected: selected_line,
    }
}

/// What names a job in a list: its name, else its id, else its log line.
fn job_title(job: &JobLine) -> String {
    match (&job.name, &job.job_id, job.source_line) {
        (Some(name), _, _) => name.clone(),
        (None, Some(id), _) => id.clone(),
        (None, None, Some(line)) => format!("line {line}"),
        (None, None, None) => "?".to_string(),
    }
}

pub(super) fn job_lines(
    app: &App,
    cluster: usize,
    class: WorkloadClass,
    job: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let Some(line) = class_jobs(app, cluster, class).get(job).copied() else {
        return Vec::new();
    };
    let start = chrono::DateTime::from_timestamp_millis(line.first_start_ms).map_or_else(
        || line.first_start_ms.to_string(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    );
    let entries = [
        ("job", or_dash(line.job_id.as_deref())),
        ("name", or_dash(line.name.as_deref())),
        ("user", or_dash(line.user.as_deref())),
        ("queue", or_dash(line.queue.as_deref())),
        ("state", or_dash(line.state.as_deref())),
        ("cluster", line.cluster.clone()),
        ("class", line.class.label().to_string()),
        ("decided by", line.rule.clone()),
        (
            "log line",
            line.source_line.map_or_else(|| "?".to_string(), |l| l.to_string()),
        ),
        ("first start", start),
        ("runs", line.runs.to_string()),
        ("GPUs (max)", thousands(line.max_gpus)),
        ("GPU-hours", thousands(line.gpu_hours)),
        ("mean util", line.mean_util_frac.map_or_else(|| "–".to_string(), pct)),
    ];
    let mut lines = vec![Line::styled(
        format!("{} ▸ {} ▸ job", line.cluster, line.class.label()),
        theme.title,
    )];
    for (key, value) in entries {
        lines.push(Line::from(vec![
            Span::styled(label(key, 12), theme.muted),
            Span::styled(value, theme.base),
        ]));
    }
    lines
}
