//! Inference: ETIC, cost per billion tokens against the $1,500 line, the break-even volume
//! against the API with today's volume marked, and cost per billion tokens per accelerator.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::app::field::INFERENCE_FIELDS;
use crate::model::inference::Breakeven;
use crate::shared::format::{si, usd, usd_compact};
use crate::ui::scroll::ScrollWindow;
use crate::ui::theme::Theme;
use crate::ui::widgets::{fields_line, hbar, label, right};

pub fn render(app: &App, window: &mut ScrollWindow, theme: &Theme, frame: &mut Frame, body: Rect, focused: bool) {
    let width = body.width;
    let inf = &app.derived.evaluation.inference;
    let limit = app.derived.evaluation.thresholds.cpbt_max_usd_per_billion_tokens;
    let mut lines = vec![Line::styled(
        format!(
            "{} · {} · {}",
            inf.accelerator,
            app.plan.inference.model_class,
            app.plan.inference.deployment.label()
        ),
        theme.muted,
    )];
    // The labels take the room they need, up to what the value column leaves.
    let fixed = [
        "ETIC per million tokens",
        "cost per billion tokens",
        "break-even vs API",
    ];
    let longest = INFERENCE_FIELDS
        .iter()
        .map(|f| f.label(&app.plan).chars().count())
        .chain(fixed.iter().map(|l| l.chars().count()))
        .max()
        .unwrap_or(28);
    let label_width = longest.min((width as usize).saturating_sub(12)).max(12);
    let selected_line = focused.then_some(lines.len() + app.cursors.inference_field);
    for (i, field) in INFERENCE_FIELDS.iter().enumerate() {
        let value = field.get(&app.plan).map_or_else(|| "—".to_string(), |v| field.show(v));
        let style = if focused && i == app.cursors.inference_field {
            theme.selected
        } else {
            theme.base
        };
        lines.push(fields_line(
            vec![
                (label(&field.label(&app.plan), label_width), style),
                (right(&value, 10), theme.title),
            ],
            width,
        ));
    }
    lines.push(Line::raw(""));
    lines.push(fields_line(
        vec![
            (label("ETIC per million tokens", label_width), theme.base),
            (
                right(&format!("${:.4}", inf.etic_usd_per_million_tokens), 10),
                theme.title,
            ),
        ],
        width,
    ));
    let (cpbt_text, cpbt_style) = match inf.cost_per_billion_tokens_usd {
        Some(v) if v > limit => (usd(v), theme.bad),
        Some(v) => (usd(v), theme.good),
        None => ("no volume".to_string(), theme.muted),
    };
    lines.push(fields_line(
        vec![
            (label("cost per billion tokens", label_width), theme.base),
            (right(&cpbt_text, 10), cpbt_style),
        ],
        width,
    ));
    lines.push(Line::styled(
        format!(
            "  the line for {} models: {}",
            app.plan.inference.model_class,
            usd(limit)
        ),
        theme.muted,
    ));
    lines.push(Line::raw(""));
    lines.extend(breakeven_lines(app, theme, width, label_width));
    lines.push(Line::raw(""));
    lines.extend(across_lines(app, theme, width, limit));
    super::scrolled(frame, body, lines, selected_line, window);
}

/// Today's volume against the break-even on one axis: ▲ today, │ break-even.
fn breakeven_lines(app: &App, theme: &Theme, width: u16, label_width: usize) -> Vec<Line<'static>> {
    let inf = &app.derived.evaluation.inference;
    let mut lines = Vec::new();
    match inf.breakeven {
        Breakeven::TokensPerMonth { tokens } => {
            let today = inf.tokens_per_month;
            let pays = today >= tokens;
            lines.push(fields_line(
                vec![
                    (label("break-even vs API", label_width), theme.base),
                    (right(&format!("{}/mo", si(tokens)), 10), theme.title),
                ],
                width,
            ));
            let axis_width = (width as usize).saturating_sub(2).max(4);
            let max = today.max(tokens) * 1.25;
            let at = |v: f64| ((v / max) * (axis_width - 1) as f64).round() as usize;
            let mut axis: Vec<char> = vec!['─'; axis_width];
            let (be, now) = (at(tokens).min(axis_width - 1), at(today).min(axis_width - 1));
            axis[be] = '│';
            axis[now] = '▲';
            lines.push(Line::from(vec![
                Span::raw(" "),
                Span::styled(
                    axis.into_iter().collect::<String>(),
                    if pays { theme.good } else { theme.warn },
                ),
            ]));
            lines.push(fields_line(
                vec![
                    (format!(" ▲ today {} ", si(today)), theme.title),
                    (format!("│ break-even {}", si(tokens)), theme.muted),
                ],
                width,
            ));
            let verdict = if pays {
                format!(
                    "self-hosting saves {}/mo",
                    usd_compact(inf.api_usd_per_month_at_volume - inf.dedicated_usd_per_month_at_volume)
                )
            } else {
                format!(
                    "the API is cheaper by {}/mo",
                    usd_compact(inf.dedicated_usd_per_month_at_volume - inf.api_usd_per_month_at_volume)
                )
            };
            lines.push(Line::styled(verdict, if pays { theme.good } else { theme.warn }));
        }
        Breakeven::ApiNotDearer { .. } => {
            lines.push(Line::styled(
                "the API costs no more per token than self-hosting: no volume breaks even",
                theme.warn,
            ));
        }
    }
    lines
}

fn across_lines(app: &App, theme: &Theme, width: u16, limit: f64) -> Vec<Line<'static>> {
    let rows = &app.derived.inference_across;
    let mut lines = vec![Line::styled("cost per billion tokens by accelerator", theme.title)];
    let max = rows
        .iter()
        .filter_map(|r| r.cost_per_billion_tokens_usd)
        .fold(limit, f64::max);
    let bar_width = (width as usize).saturating_sub(10 + 1 + 9 + 1);
    for (i, row) in rows.iter().enumerate() {
        let Some(cpbt) = row.cost_per_billion_tokens_usd else {
            continue;
        };
        let style = if cpbt > limit { theme.bad } else { theme.good };
        let mut spans = vec![
            Span::styled(label(&row.accelerator, 10), theme.series(i)),
            Span::raw(" "),
        ];
        if bar_width >= 4 {
            spans.push(Span::styled(hbar(cpbt / max, bar_width), style));
        }
        spans.push(Span::styled(right(&usd_compact(cpbt), 9), style));
        spans.push(Span::styled(if row.is_plan { "" } else { "~" }, theme.muted));
        lines.push(Line::from(spans));
    }
    lines.push(Line::styled("~ scaled by price and memory bandwidth", theme.muted));
    lines
}
