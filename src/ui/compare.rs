//! The compare view: the current plan beside others, the inputs that differ highlighted, every
//! output with its delta against the current plan.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::theme::Theme;
use super::widgets::{inner, label, pane_block, right};
use crate::app::App;
use crate::model::compare::{OutputComparison, OutputUnit};
use crate::shared::format::{pct, si, signed_fixed, thousands, usd, usd_compact};

/// The narrowest the columns get; wider screens give them what their text needs.
const MIN_KEY_WIDTH: usize = 40;
const MIN_VALUE_WIDTH: usize = 18;
const DELTA_WIDTH: usize = 10;

/// How wide the key column and each plan's value column are drawn.
#[derive(Debug, Clone, Copy)]
struct Widths {
    key: usize,
    value: usize,
    columns: usize,
}

impl Widths {
    /// The key column as wide as its longest key (within two fifths of the screen), each plan's
    /// value as wide as its longest value (within what is left), as many plans as fit.
    fn fit(body_width: usize, keys: usize, values: usize, plans: usize) -> Widths {
        let key = keys.clamp(MIN_KEY_WIDTH, (body_width * 2 / 5).max(MIN_KEY_WIDTH));
        let left = body_width.saturating_sub(key);
        let columns = (left / (MIN_VALUE_WIDTH + DELTA_WIDTH)).clamp(1, plans.max(1));
        let value = (left / columns)
            .saturating_sub(DELTA_WIDTH)
            .clamp(MIN_VALUE_WIDTH, (values + 1).max(MIN_VALUE_WIDTH));
        Widths { key, value, columns }
    }
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
        label(text, width - 1)
    } else {
        text.to_string()
    };
    right(&cut, width)
}

fn output_line(output: &OutputComparison, theme: &Theme, widths: Widths) -> Line<'static> {
    let mut spans = vec![Span::styled(label(&output.label, widths.key), theme.base)];
    for (i, value) in output.values.iter().enumerate().take(widths.columns) {
        let text = value.map_or_else(|| "—".to_string(), |v| show(output.unit, v));
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
        spans.push(Span::styled(right(&text, widths.value), style));
        spans.push(Span::styled(format!("{delta_text:<DELTA_WIDTH$}"), style));
    }
    Line::from(spans)
}

pub fn render(app: &App, theme: &Theme, frame: &mut Frame, size: Rect, scroll: usize) {
    // Over the panes, between the title line and the key hints.
    let area = Rect {
        x: size.x,
        y: size.y + 1,
        width: size.width,
        height: size.height.saturating_sub(2),
    };
    frame.render_widget(Clear, area);
    frame.render_widget(pane_block("Compare plans (↑↓ scroll, Esc closes)", true, theme), area);
    let body = inner(area);
    let Some(comparison) = &app.comparison else {
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
    let widths = Widths::fit(body.width as usize, keys, values, comparison.labels.len());
    let mut header = vec![Span::styled(label("", widths.key), theme.title)];
    for name in comparison.labels.iter().take(widths.columns) {
        header.push(Span::styled(cell(name, widths.value), theme.title));
        header.push(Span::raw(" ".repeat(DELTA_WIDTH)));
    }
    let mut lines = vec![Line::styled(
        "outputs, with the change against the first plan",
        theme.title,
    )];
    for output in &comparison.outputs {
        lines.push(output_line(output, theme, widths));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("inputs that differ ({})", comparison.inputs.len()),
        theme.title,
    ));
    for input in &comparison.inputs {
        let mut spans = vec![Span::styled(label(&input.key_path, widths.key), theme.muted)];
        for value in input.values.iter().take(widths.columns) {
            spans.push(Span::styled(cell(&json_text(value), widths.value), theme.warn));
            spans.push(Span::raw(" ".repeat(DELTA_WIDTH)));
        }
        lines.push(Line::from(spans));
    }
    // The column titles stay put; the rest scrolls.
    let [titles, rest] = ratatui::layout::Layout::vertical([
        ratatui::layout::Constraint::Length(1),
        ratatui::layout::Constraint::Min(0),
    ])
    .areas(body);
    frame.render_widget(Paragraph::new(Line::from(header)), titles);
    let scroll = scroll.min(lines.len().saturating_sub(1)) as u16;
    frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), rest);
}
