//! The compare view: the current plan beside others, every row `gpuplan diff` shows (the plan's
//! outputs, then with logs the fleet, board and replay rows), each with its change against the
//! current plan, and the inputs that differ. Rows scroll (↑↓, pages, Home/End); when not every
//! plan fits, the current plan stays and ←→ scroll the others.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::theme::Theme;
use super::widgets::{inner, label, pane_block, right};
use crate::app::App;
use crate::model::compare::{OutputComparison, OutputUnit, PlanComparison};
use crate::shared::format::{pct, si, signed_fixed, thousands, usd, usd_compact};

/// The narrowest the columns get; wider screens give the keys, then the values, what their
/// text needs.
const MIN_KEY_WIDTH: usize = 28;
const MIN_VALUE_WIDTH: usize = 12;
const MAX_VALUE_WIDTH: usize = 40;
const DELTA_WIDTH: usize = 9;

/// How wide the key column and each plan's value column are drawn, and how many plans show.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Widths {
    key: usize,
    value: usize,
    columns: usize,
}

impl Widths {
    /// As many plans as fit at the narrowest (at least one), then the room left to the keys up
    /// to the longest, then to the values up to theirs.
    fn fit(body_width: usize, keys: usize, values: usize, plans: usize) -> Widths {
        let column = MIN_VALUE_WIDTH + DELTA_WIDTH;
        let columns = (body_width.saturating_sub(MIN_KEY_WIDTH) / column).clamp(1, plans.max(1));
        let spare = body_width.saturating_sub(MIN_KEY_WIDTH + columns * column);
        let key = (MIN_KEY_WIDTH + spare).min(keys.max(MIN_KEY_WIDTH));
        let spare = spare.saturating_sub(key - MIN_KEY_WIDTH);
        let value = (MIN_VALUE_WIDTH + spare / columns).min((values + 1).clamp(MIN_VALUE_WIDTH, MAX_VALUE_WIDTH));
        Widths { key, value, columns }
    }
}

/// The plans drawn, by index: all when they fit; else the current plan (the baseline) and the
/// compared ones from `first` on; one column shows the plan `first` alone.
fn shown_plans(columns: usize, plans: usize, first: usize) -> Vec<usize> {
    if columns >= plans {
        return (0..plans).collect();
    }
    if columns <= 1 {
        return vec![first.min(plans.saturating_sub(1))];
    }
    let first = first.min(plans - columns);
    std::iter::once(0).chain(1 + first..first + columns).collect()
}

fn show(unit: OutputUnit, value: f64) -> String {
    match unit {
        OutputUnit::Usd => usd_compact(value),
        OutputUnit::UsdPerYear => format!("{}/yr", usd_compact(value)),
        OutputUnit::UsdPerMillionTokens => format!("${value:.4}"),
        OutputUnit::UsdPerBillionTokens => usd(value),
        OutputUnit::TokensPerMonth => si(value),
        OutputUnit::Count => thousands(value),
        OutputUnit::Fraction => pct(value),
        OutputUnit::GpuHours => thousands(value),
        OutputUnit::Minutes => format!("{value:.1} min"),
    }
}

fn json_text(value: &Option<serde_json::Value>) -> String {
    match value {
        None => "—".to_string(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Right-aligned in a column, cut with … only when longer than it.
fn cell(text: &str, width: usize) -> String {
    let cut = if text.chars().count() >= width {
        label(text, width.saturating_sub(1))
    } else {
        text.to_string()
    };
    right(&cut, width)
}

/// A plan's name over its value and change: over the value when it fits there, else from the
/// value's left edge into the change's room, cut only when longer than both.
fn column_title(name: &str, value_width: usize) -> String {
    let whole = value_width + DELTA_WIDTH;
    if name.chars().count() < value_width {
        format!("{}{}", right(name, value_width), " ".repeat(DELTA_WIDTH))
    } else {
        format!("{} ", label(name, whole - 1))
    }
}

fn output_line(output: &OutputComparison, theme: &Theme, widths: Widths, shown: &[usize]) -> Line<'static> {
    let mut spans = vec![Span::styled(label(&output.label, widths.key), theme.base)];
    for &i in shown {
        let text = output
            .values
            .get(i)
            .copied()
            .flatten()
            .map_or_else(|| "—".to_string(), |v| show(output.unit, v));
        let delta = output.deltas.get(i).copied().flatten();
        let (delta_text, style) = match delta {
            Some(d) if d.absolute.abs() > 1e-9 => {
                let pct = d
                    .relative_pct
                    .map(|p| format!(" {}%", signed_fixed(p, 1)))
                    .unwrap_or_default();
                // Costs going down is good news; for counts the colour only marks a change.
                let style = match output.unit {
                    OutputUnit::Count => theme.warn,
                    _ if d.absolute < 0.0 => theme.good,
                    _ => theme.bad,
                };
                (pct, style)
            }
            _ => (String::new(), theme.base),
        };
        spans.push(Span::styled(cell(&text, widths.value), style));
        spans.push(Span::styled(format!("{delta_text:<DELTA_WIDTH$}"), style));
    }
    Line::from(spans)
}

/// What the rows that need the logs are waiting on, when they are.
fn status_line(app: &App, theme: &Theme) -> Option<Line<'static>> {
    let text = if app.fleet.is_none() {
        "fleet, board and replay rows: open logs to compare the plans on them".to_string()
    } else if let Some(error) = &app.comparing.error {
        format!("no fleet, board or replay rows: {error}")
    } else if app.comparing.working {
        "fleet, board and replay rows: recomputing…".to_string()
    } else {
        return None;
    };
    Some(Line::styled(text, theme.muted))
}

fn lines_of(
    app: &App,
    comparison: &PlanComparison,
    theme: &Theme,
    widths: Widths,
    shown: &[usize],
) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        "outputs (as gpuplan diff), with the change against the first plan",
        theme.title,
    )];
    lines.extend(status_line(app, theme));
    lines.extend(
        app.comparing
            .warnings
            .iter()
            .map(|w| Line::styled(format!("⚑ {w}"), theme.warn)),
    );
    lines.extend(comparison.outputs.iter().map(|o| output_line(o, theme, widths, shown)));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("inputs that differ ({})", comparison.inputs.len()),
        theme.title,
    ));
    for input in &comparison.inputs {
        let mut spans = vec![Span::styled(label(&input.key_path, widths.key), theme.muted)];
        for &i in shown {
            let value = input.values.get(i).cloned().flatten();
            spans.push(Span::styled(cell(&json_text(&value), widths.value), theme.warn));
            spans.push(Span::raw(" ".repeat(DELTA_WIDTH)));
        }
        lines.push(Line::from(spans));
    }
    lines
}

pub fn render(app: &App, theme: &Theme, frame: &mut Frame, size: Rect, scroll: usize, column: usize) {
    // Over the panes, between the title line and the key hints.
    let area = Rect {
        x: size.x,
        y: size.y + 1,
        width: size.width,
        height: size.height.saturating_sub(2),
    };
    frame.render_widget(Clear, area);
    let body = inner(area);
    let Some(comparison) = &app.comparison else {
        frame.render_widget(pane_block("Compare plans (Esc closes)", true, theme), area);
        frame.render_widget(
            Paragraph::new("no plan to compare: c picks one").style(theme.muted),
            body,
        );
        return;
    };
    let keys = comparison
        .outputs
        .iter()
        .map(|o| o.label.chars().count())
        .chain(comparison.inputs.iter().map(|i| i.key_path.chars().count()))
        .max()
        .unwrap_or(0);
    let values = comparison
        .inputs
        .iter()
        .flat_map(|i| i.values.iter().map(|v| json_text(v).chars().count()))
        .chain(comparison.labels.iter().map(|l| l.chars().count()))
        .max()
        .unwrap_or(0);
    let plans = comparison.labels.len();
    let widths = Widths::fit(body.width as usize, keys, values, plans);
    let shown = shown_plans(widths.columns, plans, column);
    let title = if shown.len() < plans {
        let others: Vec<String> = shown.iter().filter(|&&i| i > 0).map(|i| (i + 1).to_string()).collect();
        format!(
            "Compare plans (↑↓ rows · ←→ plans: {} of {plans} shown · Esc closes)",
            others.join(",")
        )
    } else {
        "Compare plans (↑↓ PgUp PgDn Home End · Esc closes)".to_string()
    };
    frame.render_widget(pane_block(&title, true, theme), area);
    let mut header = vec![Span::styled(label("", widths.key), theme.title)];
    for &i in &shown {
        header.push(Span::styled(
            column_title(&comparison.labels[i], widths.value),
            theme.title,
        ));
    }
    let lines = lines_of(app, comparison, theme, widths, &shown);
    // The column titles stay put; the rest scrolls.
    let [titles, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(body);
    frame.render_widget(Paragraph::new(Line::from(header)), titles);
    let scroll = scroll.min(lines.len().saturating_sub(1)) as u16;
    frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_plans_fit_at_80_columns_with_room_for_the_keys() {
        // 80 columns less the borders.
        let w = Widths::fit(78, 45, 40, 2);
        assert_eq!(w.columns, 2);
        assert_eq!(w.key + w.columns * (w.value + DELTA_WIDTH), 78);
        assert!(w.key >= MIN_KEY_WIDTH && w.value >= MIN_VALUE_WIDTH, "{w:?}");
        // Wide: keys whole, values up to their longest.
        let w = Widths::fit(198, 45, 30, 2);
        assert_eq!((w.key, w.value, w.columns), (45, 31, 2));
    }

    #[test]
    fn the_current_plan_stays_while_the_others_scroll() {
        assert_eq!(shown_plans(2, 2, 0), vec![0, 1]);
        assert_eq!(shown_plans(2, 4, 0), vec![0, 1]);
        assert_eq!(shown_plans(2, 4, 2), vec![0, 3]);
        assert_eq!(shown_plans(2, 4, 9), vec![0, 3]);
        assert_eq!(shown_plans(3, 4, 1), vec![0, 2, 3]);
        assert_eq!(shown_plans(1, 3, 1), vec![1]);
    }
}
