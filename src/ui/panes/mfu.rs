//! MFU & sensitivity: a slider per accelerator, the sensitivity table coloured against the
//! cheapest, and the MFU-versus-cost chart with the sliders and the MFU thresholds marked.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

use crate::app::App;
use crate::model::evaluate::MfuSource;
use crate::model::sensitivity::{CURVE_MFU_MAX_FRAC, CURVE_MFU_MIN_FRAC};
use crate::shared::format::{pct, usd_compact};
use crate::ui::scroll::ScrollWindow;
use crate::ui::theme::Theme;
use crate::ui::widgets::{fields_line, label, right, row, rows_from, track_of};

const NAME_WIDTH: u16 = 10;
const VALUE_WIDTH: u16 = 7;
const COST_WIDTH: u16 = 9;
const CELL_WIDTH: usize = 9;

/// A slider track's width in a body `body_width` wide, when it has room for one.
fn track_width(body_width: u16) -> Option<u16> {
    body_width
        .checked_sub(NAME_WIDTH + VALUE_WIDTH + COST_WIDTH + 1)
        .filter(|w| *w >= 5)
}

/// The slider track of accelerator `index` inside the pane's body, its lines scrolled by
/// `first_line`: for turning a click or drag into an MFU.
pub fn slider_track(body: Rect, index: usize, first_line: usize) -> Option<Rect> {
    let width = track_width(body.width)?;
    // Line 0 is the title line; slider `index` is on line index + 1.
    let row = (index + 1).checked_sub(first_line)?;
    if row >= usize::from(body.height) {
        return None;
    }
    Some(Rect {
        x: body.x + NAME_WIDTH + 1,
        y: body.y + row as u16,
        width,
        height: 1,
    })
}

/// The MFU at column `x` of a slider track.
pub fn mfu_at(track: Rect, x: u16) -> f64 {
    let offset = f64::from(x.saturating_sub(track.x).min(track.width.saturating_sub(1)));
    let frac = offset / f64::from(track.width.saturating_sub(1).max(1));
    CURVE_MFU_MIN_FRAC + frac * (CURVE_MFU_MAX_FRAC - CURVE_MFU_MIN_FRAC)
}

fn track(mfu: f64, width: usize) -> String {
    track_of(
        (mfu - CURVE_MFU_MIN_FRAC) / (CURVE_MFU_MAX_FRAC - CURVE_MFU_MIN_FRAC),
        width,
    )
}

pub fn render(app: &App, window: &mut ScrollWindow, theme: &Theme, frame: &mut Frame, body: Rect, focused: bool) {
    let plan = &app.plan;
    let mut lines = vec![Line::styled(
        format!(
            "{} on {} chips · {} FLOPs",
            crate::shared::format::si(plan.training.model_params),
            plan.training.chips,
            app.derived.evaluation.training.flops_rule
        ),
        theme.muted,
    )];
    for (i, choice) in plan.accelerators.iter().enumerate() {
        let selected = focused && i == app.cursors.accelerator;
        let style = if selected { theme.selected } else { theme.series(i) };
        let cost = app
            .derived
            .slider_cost_usd(&choice.id)
            .map_or_else(|| "no price".to_string(), usd_compact);
        let mut spans = vec![
            Span::styled(label(&choice.id, NAME_WIDTH as usize), style),
            Span::raw(" "),
        ];
        if let Some(width) = track_width(body.width) {
            spans.push(Span::styled(track(choice.mfu, usize::from(width)), theme.series(i)));
        }
        spans.push(Span::styled(right(&pct(choice.mfu), VALUE_WIDTH as usize), theme.title));
        spans.push(Span::styled(right(&cost, COST_WIDTH as usize), theme.base));
        lines.push(Line::from(spans));
    }
    lines.push(Line::raw(""));
    lines.extend(sensitivity_lines(app, theme, body.width));
    // The text scrolls; the chart takes the rows it leaves, when it leaves enough.
    let selected = focused.then_some(1 + app.cursors.accelerator);
    let used = super::scrolled(frame, body, lines, selected, window);
    let chart_area = rows_from(body, used + 1);
    if chart_area.height >= 6 && chart_area.width >= 20 {
        chart(app, theme, frame, chart_area);
    }
}

/// The table of run costs: accelerators × the plan's MFU points and the slider.
fn sensitivity_lines(app: &App, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let training = &app.derived.evaluation.training;
    let points = &training.mfu_points;
    let columns = ((width as usize).saturating_sub(NAME_WIDTH as usize) / CELL_WIDTH).min(points.len() + 1);
    let mut header = vec![Span::styled(label("run cost", NAME_WIDTH as usize), theme.title)];
    for mfu in points.iter().take(columns) {
        header.push(Span::styled(
            right(&format!("@{:.0}%", mfu * 100.0), CELL_WIDTH),
            theme.title,
        ));
    }
    if columns > points.len() {
        header.push(Span::styled(right("slider", CELL_WIDTH), theme.title));
    }
    let cost = |accelerator: &str, column: usize| -> Option<f64> {
        training
            .runs
            .iter()
            .find(|r| {
                r.accelerator == accelerator
                    && match points.get(column) {
                        Some(&mfu) => r.mfu_source == MfuSource::Point && (r.mfu - mfu).abs() < 1e-12,
                        None => r.mfu_source == MfuSource::Slider,
                    }
            })
            .map(|r| r.cost_usd)
    };
    let accelerators: Vec<&str> = app.plan.accelerators.iter().map(|a| a.id.as_str()).collect();
    let cheapest: Vec<Option<f64>> = (0..=points.len())
        .map(|c| {
            accelerators
                .iter()
                .filter_map(|a| cost(a, c))
                .min_by(|a, b| a.total_cmp(b))
        })
        .collect();
    let mut lines = vec![Line::from(header)];
    for (i, accelerator) in accelerators.iter().enumerate() {
        let mut spans = vec![Span::styled(label(accelerator, NAME_WIDTH as usize), theme.series(i))];
        for c in 0..columns {
            // Columns past the MFU points are the slider's.
            let column = c.min(points.len());
            let (text, style) = match (cost(accelerator, column), cheapest[column]) {
                (Some(v), Some(min)) => {
                    let ratio = v / min;
                    let (mark, style) = if ratio <= 1.0 + 1e-9 {
                        ("*", theme.good)
                    } else if ratio <= 1.2 {
                        (" ", theme.warn)
                    } else {
                        (" ", theme.bad)
                    };
                    (format!("{}{mark}", usd_compact(v)), style)
                }
                _ => ("—".to_string(), theme.muted),
            };
            spans.push(Span::styled(right(&text, CELL_WIDTH), style));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::styled("* cheapest; amber: within 20 %".to_string(), theme.muted));
    lines
}

fn chart(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let curves = &app.derived.curves;
    let (mut low, mut high) = (f64::MAX, 0.0f64);
    for curve in curves {
        for &(_, cost) in &curve.points {
            low = low.min(cost);
            high = high.max(cost);
        }
    }
    if curves.is_empty() || high.partial_cmp(&low) != Some(std::cmp::Ordering::Greater) {
        return;
    }
    let thresholds = &app.derived.evaluation.thresholds;
    let marks = [
        (thresholds.mfu_floor_frac, "floor"),
        (thresholds.trainium2_abandon_mfu_frac, "Trn2"),
        (thresholds.custom_silicon_reservation_min_mfu_frac, "reserve"),
    ];
    let threshold_points: Vec<[(f64, f64); 2]> = marks.iter().map(|(x, _)| [(*x, low), (*x, high)]).collect();
    let slider_points: Vec<Vec<(f64, f64)>> = curves.iter().map(|c| vec![c.slider]).collect();
    let mut datasets = Vec::new();
    for points in &threshold_points {
        datasets.push(
            Dataset::default()
                .graph_type(GraphType::Line)
                .marker(Marker::Braille)
                .style(theme.muted)
                .data(points),
        );
    }
    for (i, curve) in curves.iter().enumerate() {
        datasets.push(
            Dataset::default()
                .name(curve.accelerator.clone())
                .graph_type(GraphType::Line)
                .marker(Marker::Braille)
                .style(theme.series(i))
                .data(&curve.points),
        );
    }
    for (i, points) in slider_points.iter().enumerate() {
        datasets.push(
            Dataset::default()
                .graph_type(GraphType::Scatter)
                .marker(Marker::Block)
                .style(theme.series(i))
                .data(points),
        );
    }
    let label_area = row(area, area.height - 1);
    let chart_area = Rect {
        height: area.height - 1,
        ..area
    };
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .style(theme.muted)
                .bounds([CURVE_MFU_MIN_FRAC, CURVE_MFU_MAX_FRAC])
                .labels(vec![
                    Span::raw(format!("{:.0}%", CURVE_MFU_MIN_FRAC * 100.0)),
                    Span::raw("MFU"),
                    Span::raw(format!("{:.0}%", CURVE_MFU_MAX_FRAC * 100.0)),
                ]),
        )
        .y_axis(
            Axis::default()
                .style(theme.muted)
                .bounds([low, high])
                .labels(vec![Span::raw(usd_compact(low)), Span::raw(usd_compact(high))]),
        )
        .style(Style::default());
    frame.render_widget(chart, chart_area);
    let legend = marks
        .iter()
        .map(|(x, name)| (format!("┊{:.0}% {name} ", x * 100.0), theme.muted))
        .collect();
    frame.render_widget(Paragraph::new(fields_line(legend, label_area.width)), label_area);
}
