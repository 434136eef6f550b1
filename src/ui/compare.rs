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
use crate::shared::format::{si, thousands, usd, usd_compact};

const KEY_WIDTH: usize = 40;
const VALUE_WIDTH: usize = 18;
const DELTA_WIDTH: usize = 10;

fn show(unit: OutputUnit, value: f64) -> String {
    match unit {
        OutputUnit::Usd => usd_compact(value),
        OutputUnit::UsdPerYear => format!("{}/yr", usd_compact(value)),
        OutputUnit::UsdPerMillionTokens => format!("${value:.4}"),
        OutputUnit::UsdPerBillionTokens => usd(value),
        OutputUnit::TokensPerMonth => si(value),
        OutputUnit::Count => thousands(value),
        OutputUnit::Fraction => format!("{:.1} %", value * 100.0),
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
fn cell(text: &str) -> String {
    let cut = if text.chars().count() >= VALUE_WIDTH {
        label(text, VALUE_WIDTH - 1)
    } else {
        text.to_string()
    };
    right(&cut, VALUE_WIDTH)
}

fn output_line(output: &OutputComparison, theme: &Theme, columns: usize) -> Line<'static> {
    let mut spans = vec![Span::styled(label(&output.label, KEY_WIDTH), theme.base)];
    for (i, value) in output.values.iter().enumerate().take(columns) {
        let text = value.map_or_else(|| "—".to_string(), |v| show(output.unit, v));
        let delta = output.deltas.get(i).copied().flatten();
        let (delta_text, style) = match delta {
            Some(d) if d.absolute.abs() > 1e-9 => {
                let pct = d.relative_pct.map(|p| format!(" {p:+.1}%")).unwrap_or_default();
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
        spans.push(Span::styled(right(&text, VALUE_WIDTH), style));
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
    let columns = ((body.width as usize).saturating_sub(KEY_WIDTH) / (VALUE_WIDTH + DELTA_WIDTH)).max(1);
    let mut header = vec![Span::styled(label("", KEY_WIDTH), theme.title)];
    for name in comparison.labels.iter().take(columns) {
        header.push(Span::styled(cell(name), theme.title));
        header.push(Span::raw(" ".repeat(DELTA_WIDTH)));
    }
    let mut lines = vec![Line::styled(
        "outputs, with the change against the first plan",
        theme.title,
    )];
    for output in &comparison.outputs {
        lines.push(output_line(output, theme, columns));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("inputs that differ ({})", comparison.inputs.len()),
        theme.title,
    ));
    for input in &comparison.inputs {
        let mut spans = vec![Span::styled(label(&input.key_path, KEY_WIDTH), theme.muted)];
        for value in input.values.iter().take(columns) {
            spans.push(Span::styled(cell(&json_text(value)), theme.warn));
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
