//! The fleet view: every cluster's class mix, utilization and stranded spend, and the
//! selected cluster's utilization chart, GPU cells and flags.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Listing, class_glyph, wrapped};
use crate::app::App;
use crate::model::fleet::{AuditReport, ClusterAudit, RejectReason, SpendParts};
use crate::model::workload::WorkloadClass;
use crate::shared::format::{count_of, gpu_count, pct, thousands, usd_compact};
use crate::ui::theme::Theme;
use crate::ui::widgets::{EIGHTHS, fields_line, flowed_fields, label, right};

const NAME_WIDTH: usize = 14;

fn summary_lines(report: &AuditReport, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let mut lines = vec![fields_line(
        vec![
            (format!("{:.0} days · ", report.window.days), theme.muted),
            (format!("{} jobs · ", thousands(report.jobs_total as f64)), theme.muted),
        ],
        width,
    )];
    // Flowed, not cut: what was set aside shows at every width.
    lines.extend(flowed_fields(
        vec![
            (format!("{} GPU-h · ", thousands(report.gpu_hours_total)), theme.muted),
            (set_aside_text(report), theme.muted),
        ],
        width,
        2,
    ));
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
                theme.class_style(class),
            ));
        } else if cells > 0 {
            spans.push(Span::raw(" ".repeat(cells)));
        }
    }
    spans
}

pub(super) fn fleet_lines(app: &App, report: &AuditReport, theme: &Theme, body: Rect, focused: bool) -> Listing {
    let width = body.width;
    let mut lines = summary_lines(report, theme, width);
    let mut legend = vec![Span::styled("mix ", theme.title)];
    for class in WorkloadClass::ALL {
        legend.push(Span::styled(class_glyph(class).to_string(), theme.class_style(class)));
        legend.push(Span::styled(format!(" {} ", class.label()), theme.muted));
    }
    lines.push(Line::from(legend));
    let bar_width = (width as usize).saturating_sub(NAME_WIDTH + 1 + 7 + 10);
    let mut selected_line = None;
    for (i, cluster) in report.clusters.iter().enumerate() {
        let selected = i == app.cursors.cluster;
        if selected {
            selected_line = Some(lines.len());
        }
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
            right(&stranded_text(&cluster.spend_parts), 10),
            theme.warn,
        ));
        lines.push(Line::from(spans));
    }
    lines.push(fields_line(
        vec![
            (label("", NAME_WIDTH + 1 + bar_width), theme.muted),
            (right("util", 7), theme.muted),
            (right("stranded", 10), theme.muted),
        ],
        width,
    ));
    let stranded = report.stranded_usd_per_month();
    lines.push(Line::styled("stranded spend (paid, not working)", theme.title));
    let mut fields = if stranded.all_unknown() {
        vec![("unknown: no utilization tells idle from busy".to_string(), theme.warn)]
    } else {
        vec![
            (format!("{}/month", usd_compact(stranded.total)), theme.warn),
            (format!(" · {}/year", usd_compact(stranded.total * 12.0)), theme.warn),
        ]
    };
    if stranded.unknown > 0 && stranded.known > 0 {
        fields.push((
            format!(
                " · unknown on {}",
                count_of(stranded.unknown as u64, "cluster", "clusters")
            ),
            theme.muted,
        ));
    }
    lines.push(fields_line(fields, width));
    // What reading said, under the fleet's figures and above the selected cluster's detail.
    if let Some(fleet) = &app.fleet {
        lines.extend(crate::ui::read_notices::pane_lines(
            app,
            &fleet.read_notices(),
            theme,
            width,
        ));
    }
    if let Some(cluster) = report.clusters.get(app.cursors.cluster) {
        lines.push(Line::raw(""));
        lines.push(Line::styled(cluster.name.clone(), theme.title));
        // Flowed, not cut: the peak and p95 show at every width.
        lines.extend(flowed_fields(
            vec![
                (
                    format!(
                        "{} GPUs ({}) ",
                        gpu_count(cluster.capacity_gpus),
                        cluster.capacity_source
                    ),
                    theme.muted,
                ),
                (
                    format!("· peak {} ", gpu_count(cluster.peak_concurrent_gpus)),
                    theme.muted,
                ),
                (format!("· p95 {}", gpu_count(cluster.p95_concurrent_gpus)), theme.muted),
            ],
            width,
            2,
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
            _ => {
                let mut fields = vec![(
                    format!(
                        "util {} from {}",
                        pct(cluster.utilization_frac),
                        cluster.utilization_source.label()
                    ),
                    theme.muted,
                )];
                // A source was asked and did not measure it: say why beside the log's figure.
                if let Some(why) = &cluster.unmeasured {
                    fields.push((format!(" · not measured: {why}"), theme.warn));
                }
                lines.push(fields_line(fields, width));
            }
        }
        // Wrapped, never cut: the parts must be seen to add up to what is paid.
        let parts = &cluster.spend_parts;
        let split = match (parts.allocated_idle_usd_per_month, parts.busy_usd_per_month) {
            (Some(idle), Some(busy)) => format!("+ allocated idle {} + busy {}", usd_compact(idle), usd_compact(busy)),
            // Without utilization, what the jobs held cannot be split.
            _ => format!(
                "+ allocated {} (idle and busy unknown: no utilization)",
                usd_compact(parts.allocated_usd_per_month)
            ),
        };
        let paid = format!(
            "paid {}/mo = never allocated {} {split}",
            usd_compact(cluster.monthly_cost_usd),
            usd_compact(parts.never_allocated_usd_per_month)
        );
        lines.extend(wrapped(&paid, width, theme.warn));
        lines.push(fields_line(
            vec![(
                format!(
                    "non-training idle (seed 001) {}/mo",
                    usd_compact(cluster.non_training_idle_usd_per_month)
                ),
                theme.muted,
            )],
            width,
        ));
        if cluster.price_source != "plan" {
            let price = usd_compact(cluster.usd_per_gpu_hour);
            let text = match (&cluster.priced_as, cluster.capacity_source.as_str()) {
                (_, "node list") => format!(
                    "⚑ not in the plan: {price}/GPU-h over the node list's accelerators, at list prices (assumed)"
                ),
                // Each model sized to its own peak and priced at its own rate: the lines below.
                _ if cluster.models.len() > 1 => format!(
                    "⚑ not in the plan: {price}/GPU-h over its {} models, each sized to its own peak and priced \
                     at its list price or the fallback (assumed)",
                    cluster.models.len()
                ),
                (Some(accelerator), _) => {
                    format!("⚑ not in the plan: {accelerator} list price, {price}/GPU-h (assumed)")
                }
                (None, _) => format!("⚑ not in the plan: fallback {price}/GPU-h (H100 rate)"),
            };
            lines.extend(wrapped(&text, width, theme.warn));
        }
        lines.extend(model_lines(cluster, theme, width));
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
        // The GPU cells only where they fit beside the flags: a flag is never pushed off.
        let cell_rows = remaining.saturating_sub(chart_rows + 3).min(12);
        if cell_rows >= 2 {
            lines.extend(gpu_cells(cluster, theme, width as usize, cell_rows as usize));
        }
        for flag in &cluster.flags {
            lines.extend(wrapped(&format!("⚑ {flag}"), width, theme.warn));
        }
    }
    Listing {
        lines,
        selected: selected_line,
    }
}

/// Each GPU model of a cluster holding several: its GPUs, price, GPU-hours and peak (a
/// cluster of one model says it in its price line).
fn model_lines(cluster: &ClusterAudit, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    if cluster.models.len() < 2 {
        return Vec::new();
    }
    let mut lines: Vec<Line<'static>> = cluster
        .models
        .iter()
        .map(|m| {
            let price = match m.at_fallback_rate {
                false => format!("{}/GPU-h", usd_compact(m.usd_per_gpu_hour)),
                true => format!("{}/GPU-h fallback", usd_compact(m.usd_per_gpu_hour)),
            };
            fields_line(
                vec![
                    (format!("  {} ", m.model), theme.title),
                    (format!("{} GPUs × {price} ", thousands(m.gpus)), theme.base),
                    (
                        format!("· {} GPU-h · peak {}", thousands(m.gpu_hours), thousands(m.peak_gpus)),
                        theme.muted,
                    ),
                ],
                width,
            )
        })
        .collect();
    if let Some(spread) = &cluster.models_spread {
        lines.extend(wrapped(&format!("  {spread}"), width, theme.muted));
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
/// hours its GPUs were allocated, so the light cells are the capacity paid for and never allocated.
fn gpu_cells(cluster: &ClusterAudit, theme: &Theme, width: usize, rows: usize) -> Vec<Line<'static>> {
    let busy = &cluster.hourly.busy_gpus;
    if busy.is_empty() || cluster.capacity_gpus <= 0.0 || width < 8 {
        return Vec::new();
    }
    let slots = (width * rows).min(cluster.capacity_gpus.ceil() as usize).max(1);
    let gpus_per_cell = (cluster.capacity_gpus / slots as f64).ceil().max(1.0);
    let cells = (cluster.capacity_gpus / gpus_per_cell).ceil() as usize;
    let mut lines = vec![Line::styled(
        format!("GPUs, 1 cell = {gpus_per_cell:.0}: █ allocated ░ never allocated"),
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

/// A cluster's stranded spend a month as the list shows it: "unknown" where no utilization
/// splits what its jobs held into idle and busy.
fn stranded_text(parts: &SpendParts) -> String {
    parts
        .stranded_usd_per_month
        .map_or_else(|| "unknown".to_string(), usd_compact)
}

/// The rows kept out of the figures: CPU-only rows (no GPU) named as such, apart from rows that
/// could not be read.
fn set_aside_text(report: &AuditReport) -> String {
    let cpu_only = report.rows_rejected.get(&RejectReason::CpuOnly).copied().unwrap_or(0);
    let unread = report.rows_rejected_total.saturating_sub(cpu_only);
    match (unread, cpu_only) {
        (_, 0) => format!("{} set aside", count_of(unread, "row", "rows")),
        (0, cpu) => format!("{} apart", count_of(cpu, "CPU-only row", "CPU-only rows")),
        (unread, cpu) => format!(
            "{} set aside · {} CPU-only apart",
            count_of(unread, "row", "rows"),
            thousands(cpu as f64)
        ),
    }
}
