//! Risk: the probability-weighted table with editable probabilities and impacts, the Monte
//! Carlo spread of the training run's cost, and every rule check with pass, warn or fail.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::app::field::Field;
use crate::model::checks::CheckStatus;
use crate::shared::format::{pct, usd_compact};
use crate::ui::scroll::ScrollWindow;
use crate::ui::theme::Theme;
use crate::ui::widgets::{fields_line, label, right, status_glyph, status_style, wrap_words};

pub fn render(app: &App, window: &mut ScrollWindow, theme: &Theme, frame: &mut Frame, body: Rect, focused: bool) {
    let width = body.width;
    let risk = &app.derived.evaluation.risk;
    let selected = focused.then(|| app.selected_field()).flatten();
    // The names take the room they need, up to what the numbers leave.
    let longest = risk
        .rows
        .iter()
        .map(|r| r.scenario.chars().count())
        .max()
        .unwrap_or(0)
        .max("scenario".len());
    let name_width = longest.min((width as usize).saturating_sub(7 + 8 + 9)).max(8);
    let mut lines = vec![fields_line(
        vec![
            (label("scenario", name_width), theme.title),
            (right("p", 7), theme.title),
            (right("impact", 8), theme.title),
            (right("weighted", 9), theme.title),
        ],
        width,
    )];
    let mut selected_line = None;
    for (i, row) in risk.rows.iter().enumerate() {
        if matches!(selected, Some(Field::RiskProbability(r) | Field::RiskImpact(r)) if r == i) {
            selected_line = Some(lines.len());
        }
        let cell = |field: Field| {
            if selected == Some(field) {
                theme.selected
            } else {
                theme.base
            }
        };
        // A name longer than its column goes on, whole words, on the row's second line.
        let mut name = wrap_words(&row.scenario, name_width).into_iter();
        let first = name.next().unwrap_or_default();
        let rest: Vec<String> = name.collect();
        lines.push(fields_line(
            vec![
                (label(&first, name_width), theme.base),
                (right(&pct(row.probability), 7), cell(Field::RiskProbability(i))),
                (right(&usd_compact(row.impact_usd), 8), cell(Field::RiskImpact(i))),
                (right(&usd_compact(row.exposure_usd), 9), theme.warn),
            ],
            width,
        ));
        let continued = if rest.is_empty() {
            String::new()
        } else {
            format!("{} · ", rest.join(" "))
        };
        // Cut with … where even the second line is too narrow.
        let second = format!("  {continued}per {} × {}", row.unit.label(), row.expected_count);
        lines.push(Line::styled(
            label(&second, width as usize).trim_end().to_string(),
            theme.muted,
        ));
    }
    lines.push(fields_line(
        vec![
            (label("weighted exposure", name_width + 15), theme.title),
            (right(&usd_compact(risk.weighted_exposure_usd), 9), theme.warn),
        ],
        width,
    ));
    lines.push(Line::raw(""));
    if let Some(mc) = &risk.monte_carlo {
        lines.push(Line::styled(
            format!(
                "Monte Carlo: {} run at its MFU slider {}, {} draws",
                mc.accelerator,
                pct(mc.mfu_frac),
                mc.draws
            ),
            theme.title,
        ));
        // The other accelerators' sliders move the MFU pane, not this: say so where it is read.
        if app.plan.accelerators.len() > 1 {
            lines.push(Line::styled(
                format!("  only {}'s slider moves it", mc.accelerator),
                theme.muted,
            ));
        }
        lines.push(fields_line(
            vec![
                (format!("P50 {}  ", usd_compact(mc.p50)), theme.base),
                (format!("P90 {}  ", usd_compact(mc.p90)), theme.warn),
                (format!("P99 {}", usd_compact(mc.p99)), theme.bad),
            ],
            width,
        ));
        lines.push(Line::raw(""));
    }
    let checks = &app.derived.evaluation.checks;
    let count = |s: CheckStatus| checks.iter().filter(|c| c.status == s).count();
    lines.push(fields_line(
        vec![
            ("checks ".to_string(), theme.title),
            (format!("✓{} ", count(CheckStatus::Pass)), theme.good),
            (format!("!{} ", count(CheckStatus::Warn)), theme.warn),
            (format!("✗{}", count(CheckStatus::Fail)), theme.bad),
        ],
        width,
    ));
    let mut ordered: Vec<_> = checks.iter().collect();
    ordered.sort_by_key(|c| std::cmp::Reverse(c.status));
    for check in ordered {
        lines.push(Line::from(vec![
            Span::styled(
                format!("{} ", status_glyph(check.status)),
                status_style(check.status, theme),
            ),
            Span::styled(format!("{} ", check.rule), status_style(check.status, theme)),
            Span::styled(check.subject.clone(), theme.muted),
        ]));
    }
    super::scrolled(frame, body, lines, selected_line, window);
}
