//! Workloads: class mix per cluster, utilization over time with dips marked, the cluster as
//! GPU cells shaded by busy time, stranded spend and flags; drill into a cluster, a class, a job.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::{App, FleetStatus, WorkloadsView, class_jobs, cluster_classes};
use crate::model::fleet::{AuditReport, ClusterAudit, JobLine};
use crate::model::format::{or_dash, pct, thousands, usd_compact};
use crate::model::workload::WorkloadClass;
use crate::ui::theme::Theme;
use crate::ui::widgets::{EIGHTHS, fields_line, label, right, scroll_to};

const NAME_WIDTH: usize = 14;

pub fn render(app: &App, theme: &Theme, frame: &mut Frame, body: Rect, focused: bool) {
    let Some(fleet) = &app.fleet else {
        let text = match &app.fleet_status {
            FleetStatus::Working { what, .. } => format!("{what}…"),
            FleetStatus::Failed { message } => message.clone(),
            FleetStatus::Idle => "no logs: open one with the file picker".to_string(),
        };
        frame.render_widget(
            Paragraph::new(text)
                .style(theme.muted)
                .wrap(ratatui::widgets::Wrap { trim: true }),
            body,
        );
        return;
    };
    let report = &fleet.report;
    // The selected row's line, to keep on screen: the cluster list starts on line 3, a
    // cluster's classes and a class's jobs after their headings.
    let selected_line = match app.workloads_view {
        WorkloadsView::Fleet => Some(3 + app.cursors.cluster),
        WorkloadsView::Cluster { .. } => Some(3 + app.cursors.drill_row),
        WorkloadsView::Class { class, .. } => Some(rules_shown(report, class) + 4 + app.cursors.drill_row),
        WorkloadsView::Job { .. } => None,
    };
    let lines = match app.workloads_view {
        WorkloadsView::Fleet => fleet_lines(app, report, theme, body, focused),
        WorkloadsView::Cluster { cluster } => cluster_lines(app, report, cluster, theme, body.width, focused),
        WorkloadsView::Class { cluster, class } => class_lines(app, report, cluster, class, theme, body.width, focused),
        WorkloadsView::Job { cluster, class, job } => job_lines(app, cluster, class, job, theme),
    };
    frame.render_widget(
        Paragraph::new(lines).scroll(scroll_to(selected_line, body.height)),
        body,
    );
}

fn class_style(class: WorkloadClass, theme: &Theme) -> Style {
    match class {
        WorkloadClass::Training => theme.training,
        WorkloadClass::Inference => theme.inference,
        WorkloadClass::Burst => theme.burst,
    }
}

/// Glyphs tell the classes apart without colour.
fn class_glyph(class: WorkloadClass) -> char {
    match class {
        WorkloadClass::Training => '█',
        WorkloadClass::Inference => '▓',
        WorkloadClass::Burst => '░',
    }
}

fn summary_lines(report: &AuditReport, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let mut lines = vec![
        fields_line(
            vec![
                (format!("{:.0} days · ", report.window.days), theme.muted),
                (format!("{} jobs · ", thousands(report.jobs_total as f64)), theme.muted),
            ],
            width,
        ),
        fields_line(
            vec![
                (format!("{} GPU-h · ", thousands(report.gpu_hours_total)), theme.muted),
                (
                    format!("{} rows set aside", thousands(report.rows_rejected_total as f64)),
                    theme.muted,
                ),
            ],
            width,
        ),
    ];
    if let Some(measured) = &report.measured_utilization {
        lines.push(fields_line(
            vec![
                (
                    format!("DCGM {:.0} % measured · ", measured.mean_util_frac * 100.0),
                    theme.title,
                ),
                (
                    format!("{} GPU series", thousands(measured.gpu_series as f64)),
                    theme.muted,
                ),
            ],
            width,
        ));
    }
    lines
}

/// Words wrapped to the width, for flags and notes.
fn wrapped(text: &str, width: u16, style: Style) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let fresh = line.trim().is_empty();
        if !fresh && line.chars().count() + 1 + word.chars().count() > width as usize {
            lines.push(Line::styled(std::mem::take(&mut line), style));
            line.push_str("  ");
        } else if !fresh {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.trim().is_empty() {
        lines.push(Line::styled(line, style));
    }
    lines
}

fn mix_bar(cluster: &ClusterAudit, width: usize, theme: &Theme) -> Vec<Span<'static>> {
    let total = cluster.gpu_hours.max(f64::MIN_POSITIVE);
    let mut spans = Vec::new();
    let mut used = 0;
    for (k, class) in WorkloadClass::ALL.into_iter().enumerate() {
        let share = cluster.classes.get(class).gpu_hours / total;
        let cells = if k == 2 {
            width.saturating_sub(used)
        } else {
            ((share * width as f64).round() as usize).min(width - used)
        };
        used += cells;
        if cells > 0 && share > 0.0 {
            spans.push(Span::styled(
                class_glyph(class).to_string().repeat(cells),
                class_style(class, theme),
            ));
        } else if cells > 0 {
            spans.push(Span::raw(" ".repeat(cells)));
        }
    }
    spans
}

fn fleet_lines(app: &App, report: &AuditReport, theme: &Theme, body: Rect, focused: bool) -> Vec<Line<'static>> {
    let width = body.width;
    let mut lines = summary_lines(report, theme, width);
    let mut legend = vec![Span::styled("mix ", theme.title)];
    for class in WorkloadClass::ALL {
        legend.push(Span::styled(class_glyph(class).to_string(), class_style(class, theme)));
        legend.push(Span::styled(format!(" {} ", class.label()), theme.muted));
    }
    lines.push(Line::from(legend));
    let bar_width = (width as usize).saturating_sub(NAME_WIDTH + 1 + 7 + 10);
    for (i, cluster) in report.clusters.iter().enumerate() {
        let selected = i == app.cursors.cluster;
        let name_style = if selected && focused {
            theme.selected
        } else {
            theme.base
        };
        let mut spans = vec![
            Span::styled(label(&cluster.name, NAME_WIDTH), name_style),
            Span::raw(" "),
        ];
        if bar_width >= 4 {
            spans.extend(mix_bar(cluster, bar_width, theme));
        }
        let util_style = if cluster.utilization_frac
            < app
                .derived
                .evaluation
                .thresholds
                .permanent_allocation_min_utilization_frac
        {
            theme.bad
        } else {
            theme.good
        };
        spans.push(Span::styled(right(&pct(cluster.utilization_frac), 7), util_style));
        spans.push(Span::styled(
            right(&usd_compact(cluster.stranded_usd_per_month), 10),
            theme.warn,
        ));
        lines.push(Line::from(spans));
    }
    lines.push(fields_line(
        vec![
            (label("", NAME_WIDTH + 1 + bar_width), theme.muted),
            (right("util", 7), theme.muted),
            (right("idle $/mo", 10), theme.muted),
        ],
        width,
    ));
    let total: f64 = report.clusters.iter().map(|c| c.stranded_usd_per_month).sum();
    lines.push(Line::styled("stranded spend (paid, idle)", theme.title));
    lines.push(fields_line(
        vec![
            (format!("{}/month", usd_compact(total)), theme.warn),
            (format!(" · {}/year", usd_compact(total * 12.0)), theme.warn),
        ],
        width,
    ));
    if let Some(cluster) = report.clusters.get(app.cursors.cluster) {
        lines.push(Line::raw(""));
        lines.push(Line::styled(cluster.name.clone(), theme.title));
        lines.push(fields_line(
            vec![
                (
                    format!(
                        "{} GPUs ({}) ",
                        thousands(cluster.capacity_gpus),
                        cluster.capacity_source
                    ),
                    theme.muted,
                ),
                (
                    format!("· peak {} ", thousands(cluster.peak_concurrent_gpus)),
                    theme.muted,
                ),
                (format!("· p95 {}", thousands(cluster.p95_concurrent_gpus)), theme.muted),
            ],
            width,
        ));
        match (&cluster.measured, &cluster.log) {
            (Some(measured), Some(log)) => lines.push(fields_line(
                vec![
                    (format!("util {} DCGM ", pct(measured.mean_util_frac)), theme.title),
                    (format!("· log {} ", pct(log.utilization_frac)), theme.muted),
                    (format!("· {}", measured.metric), theme.muted),
                ],
                width,
            )),
            _ => lines.push(fields_line(
                vec![(
                    format!(
                        "util {} from {}",
                        pct(cluster.utilization_frac),
                        cluster.utilization_source.label()
                    ),
                    theme.muted,
                )],
                width,
            )),
        }
        if let Some(line) = pending_line(cluster, theme, width) {
            lines.push(line);
        }
        let remaining = body
            .height
            .saturating_sub(lines.len() as u16 + 1 + cluster.flags.len() as u16);
        let chart_rows = (remaining / 2).clamp(2, 14);
        lines.extend(utilization_chart(
            app,
            cluster,
            theme,
            width as usize,
            chart_rows as usize,
        ));
        let cell_rows = remaining.saturating_sub(chart_rows + 3).clamp(1, 12);
        lines.extend(gpu_cells(cluster, theme, width as usize, cell_rows as usize));
        for flag in &cluster.flags {
            lines.extend(wrapped(&format!("⚑ {flag}"), width, theme.warn));
        }
    }
    lines
}

/// The cluster's jobs that never started, when it has any: demand it did not meet.
fn pending_line(cluster: &ClusterAudit, theme: &Theme, width: u16) -> Option<Line<'static>> {
    let pending = &cluster.pending;
    if pending.is_empty() {
        return None;
    }
    Some(fields_line(
        vec![
            (
                format!("pending {} jobs ", thousands(pending.jobs() as f64)),
                theme.warn,
            ),
            (format!("· {} GPUs ", thousands(pending.gpus())), theme.warn),
            (
                format!("· {} GPU-h asked", thousands(pending.gpu_hours_requested())),
                theme.muted,
            ),
        ],
        width,
    ))
}

/// Hourly utilized GPUs against capacity, one column per bucket of hours; buckets under the
/// utilization threshold are drawn in the warning colour and marked ▾ below.
fn utilization_chart(
    app: &App,
    cluster: &ClusterAudit,
    theme: &Theme,
    width: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    let series = &cluster.hourly.utilized_gpus;
    let columns = width.saturating_sub(5);
    if series.is_empty() || columns < 4 || cluster.capacity_gpus <= 0.0 {
        return Vec::new();
    }
    let per_column = series.len().div_ceil(columns).max(1);
    let fracs: Vec<f64> = series
        .chunks(per_column)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64 / cluster.capacity_gpus)
        .collect();
    let threshold = app
        .derived
        .evaluation
        .thresholds
        .permanent_allocation_min_utilization_frac;
    let mut lines = vec![Line::styled(
        format!(
            "utilization, {} h/column, ▾ < {:.0} %",
            per_column * cluster.hourly.hours_per_point as usize,
            threshold * 100.0
        ),
        theme.muted,
    )];
    for r in (0..rows).rev() {
        let axis = match r {
            _ if r == rows - 1 => "100%",
            0 => "  0%",
            _ => "    ",
        };
        let mut spans = vec![Span::styled(format!("{axis} "), theme.muted)];
        for &frac in &fracs {
            let eighths = ((frac.clamp(0.0, 1.0) * rows as f64 * 8.0).round() as usize).saturating_sub(r * 8);
            let glyph = EIGHTHS[eighths.min(8)];
            let style = if frac < threshold { theme.bad } else { theme.good };
            spans.push(Span::styled(glyph.to_string(), style));
        }
        lines.push(Line::from(spans));
    }
    let dips: String = fracs.iter().map(|&f| if f < threshold { '▾' } else { ' ' }).collect();
    lines.push(Line::from(vec![Span::raw("     "), Span::styled(dips, theme.bad)]));
    lines
}

/// The cluster as cells of GPUs, packed from the first: a cell is as dark as the share of
/// hours its GPUs were busy, so the light cells are the capacity paid for and idle.
fn gpu_cells(cluster: &ClusterAudit, theme: &Theme, width: usize, rows: usize) -> Vec<Line<'static>> {
    let busy = &cluster.hourly.busy_gpus;
    if busy.is_empty() || cluster.capacity_gpus <= 0.0 || width < 8 {
        return Vec::new();
    }
    let slots = (width * rows).min(cluster.capacity_gpus.ceil() as usize).max(1);
    let gpus_per_cell = (cluster.capacity_gpus / slots as f64).ceil().max(1.0);
    let cells = (cluster.capacity_gpus / gpus_per_cell).ceil() as usize;
    let mut lines = vec![Line::styled(
        format!("GPUs, 1 cell = {gpus_per_cell:.0}: █ busy ░ idle"),
        theme.muted,
    )];
    let shades: Vec<(char, Style)> = (0..cells)
        .map(|k| {
            let level = (k as f64 + 0.5) * gpus_per_cell;
            let busy_frac = busy.iter().filter(|&&b| b >= level).count() as f64 / busy.len() as f64;
            match busy_frac {
                f if f >= 0.75 => ('█', theme.good),
                f if f >= 0.5 => ('▓', theme.good),
                f if f >= 0.25 => ('▒', theme.warn),
                f if f > 0.0 => ('░', theme.bad),
                _ => ('·', theme.idle),
            }
        })
        .collect();
    for chunk in shades.chunks(width) {
        lines.push(Line::from(
            chunk
                .iter()
                .map(|(c, s)| Span::styled(c.to_string(), *s))
                .collect::<Vec<_>>(),
        ));
    }
    lines
}

fn cluster_lines(
    app: &App,
    report: &AuditReport,
    index: usize,
    theme: &Theme,
    width: u16,
    focused: bool,
) -> Vec<Line<'static>> {
    let Some(cluster) = report.clusters.get(index) else {
        return Vec::new();
    };
    let mut lines = vec![
        Line::styled(format!("{} ▸ classes", cluster.name), theme.title),
        fields_line(
            vec![
                (format!("{} GPUs · ", thousands(cluster.capacity_gpus)), theme.muted),
                (format!("util {} · ", pct(cluster.utilization_frac)), theme.muted),
                (format!("{}/h · ", usd_compact(cluster.usd_per_gpu_hour)), theme.muted),
                (
                    format!("stranded {}/mo", usd_compact(cluster.stranded_usd_per_month)),
                    theme.warn,
                ),
            ],
            width,
        ),
        fields_line(
            vec![
                (label("class", 10), theme.title),
                (right("jobs", 8), theme.title),
                (right("GPU-h", 10), theme.title),
                (right("share", 8), theme.title),
                (right("util", 8), theme.title),
            ],
            width,
        ),
    ];
    for (row, class) in cluster_classes(app, index).into_iter().enumerate() {
        let s = cluster.classes.get(class);
        let style = if focused && row == app.cursors.drill_row {
            theme.selected
        } else {
            class_style(class, theme)
        };
        lines.push(fields_line(
            vec![
                (label(class.label(), 10), style),
                (right(&thousands(s.jobs as f64), 8), theme.base),
                (right(&thousands(s.gpu_hours), 10), theme.base),
                (right(&pct(s.gpu_hours_share), 8), theme.base),
                (
                    right(&s.mean_util_frac.map_or_else(|| "—".to_string(), pct), 8),
                    theme.base,
                ),
            ],
            width,
        ));
    }
    if !cluster.pending.is_empty() {
        lines.push(Line::raw(""));
        lines.push(fields_line(
            vec![
                (label("never started", 14), theme.title),
                (right("jobs", 8), theme.title),
                (right("GPUs", 8), theme.title),
                (right("GPU-h asked", 12), theme.title),
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
                    (label(class.label(), 14), class_style(class, theme)),
                    (right(&thousands(p.jobs as f64), 8), theme.base),
                    (right(&thousands(p.gpus), 8), theme.base),
                    (right(&thousands(p.gpu_hours_requested), 12), theme.base),
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
                format!("at {} utilized", pct(cluster.non_training_utilization_frac)),
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
    lines
}

/// Labels decide whichever class they name, so that rule shows under every class.
fn shows_rule(rule: &crate::model::fleet::RuleUse, class: WorkloadClass) -> bool {
    rule.class == class.label() || rule.class == "labels"
}

fn rules_shown(report: &AuditReport, class: WorkloadClass) -> usize {
    report.rules.iter().filter(|r| shows_rule(r, class)).count()
}

fn class_lines(
    app: &App,
    report: &AuditReport,
    cluster: usize,
    class: WorkloadClass,
    theme: &Theme,
    width: u16,
    focused: bool,
) -> Vec<Line<'static>> {
    let name = report.clusters.get(cluster).map_or("?", |c| c.name.as_str());
    let mut lines = vec![Line::styled(
        format!("{name} ▸ {} ▸ rules (whole fleet)", class.label()),
        theme.title,
    )];
    for rule in report.rules.iter().filter(|r| shows_rule(r, class)) {
        lines.push(fields_line(
            vec![
                (label(&rule.rule, 22), theme.base),
                (right(&thousands(rule.jobs as f64), 8), theme.muted),
                (right(&format!("{} GPU-h", thousands(rule.gpu_hours)), 14), theme.muted),
            ],
            width,
        ));
    }
    lines.push(Line::raw(""));
    lines.push(fields_line(
        vec![
            (label("largest jobs", 23), theme.title),
            (right("GPUs", 6), theme.title),
            (right("GPU-h", 9), theme.title),
            (right("util", 8), theme.title),
            ("  user".to_string(), theme.title),
        ],
        width,
    ));
    for (row, job) in class_jobs(app, cluster, class).into_iter().enumerate() {
        let style = if focused && row == app.cursors.drill_row {
            theme.selected
        } else {
            theme.base
        };
        lines.push(fields_line(
            vec![
                (label(&job_title(job), 23), style),
                (right(&thousands(job.max_gpus), 6), theme.base),
                (right(&thousands(job.gpu_hours), 9), theme.base),
                (
                    right(&job.mean_util_frac.map_or_else(|| "–".to_string(), pct), 8),
                    theme.base,
                ),
                (format!("  {}", or_dash(job.user.as_deref())), theme.muted),
            ],
            width,
        ));
    }
    lines
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

fn job_lines(app: &App, cluster: usize, class: WorkloadClass, job: usize, theme: &Theme) -> Vec<Line<'static>> {
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
