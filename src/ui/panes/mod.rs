//! The six panes. Each draws inside its block and reads only the app.

mod contracts;
pub mod forecast;
mod forecast_fan;
mod inference;
pub mod layer_lines;
pub mod mfu;
mod replay_lines;
mod risk;
mod supply_lines;
mod workloads;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::scroll::{ScrollWindow, ViewState};
use super::theme::Theme;
use super::widgets::{inner, pane_block};
use crate::app::command::CommandId;
use crate::app::{App, PaneId};

pub fn render(pane: PaneId, app: &App, view: &mut ViewState, theme: &Theme, frame: &mut Frame, area: Rect) {
    let focused = app.focus == pane;
    let mut title = format!("{} {}", pane.index() + 1, pane.title());
    if app.zoomed && focused {
        title.push_str(&format!(" · zoomed, {} back", app.key_hint(CommandId::Zoom)));
    }
    frame.render_widget(pane_block(&title, focused, theme), area);
    let body = inner(area);
    if body.width == 0 || body.height == 0 {
        return;
    }
    let window = match pane {
        PaneId::Workloads => view.workloads(app.workloads_view),
        other => view.window(other),
    };
    match pane {
        PaneId::Workloads => workloads::render(app, window, theme, frame, body, focused),
        PaneId::Mfu => mfu::render(app, window, theme, frame, body, focused),
        PaneId::Inference => inference::render(app, window, theme, frame, body, focused),
        PaneId::Risk => risk::render(app, window, theme, frame, body, focused),
        PaneId::Contracts => contracts::render(app, window, theme, frame, body, focused),
        PaneId::Forecast => forecast::render(app, window, theme, frame, body, focused),
    }
    more_marks(window, theme, frame, area);
}

/// Draws `lines` in `area` through the pane's window, keeping line `selected` in view when it
/// moved; the rows the lines took (all of `area` when they scroll).
pub fn scrolled(
    frame: &mut Frame,
    area: Rect,
    lines: Vec<Line<'static>>,
    selected: Option<usize>,
    window: &mut ScrollWindow,
) -> u16 {
    let rows = lines.len().min(usize::from(area.height));
    let first = window.follow(selected, lines.len(), usize::from(area.height));
    let shown = Rect {
        height: u16::try_from(rows).unwrap_or(area.height),
        ..area
    };
    frame.render_widget(
        Paragraph::new(lines).scroll((u16::try_from(first).unwrap_or(u16::MAX), 0)),
        shown,
    );
    shown.height
}

/// `↑ N more` on the pane's top border and `↓ N more` on its bottom one, at the right, while
/// lines lie beyond the window.
fn more_marks(window: &ScrollWindow, theme: &Theme, frame: &mut Frame, area: Rect) {
    let marks = [
        (window.hidden_above(), '↑', area.y),
        (window.hidden_below(), '↓', area.y + area.height.saturating_sub(1)),
    ];
    for (count, arrow, y) in marks {
        if count == 0 || area.height < 2 {
            continue;
        }
        let text = format!(" {arrow} {count} more ");
        let width = text.chars().count() as u16;
        // Right-aligned on the border, clear of the corner; left out where the title needs it.
        if area.width < width + 4 + if y == area.y { 16 } else { 0 } {
            continue;
        }
        let mark = Rect::new(area.x + area.width - width - 2, y, width, 1);
        frame.render_widget(Paragraph::new(Line::from(Span::styled(text, theme.title))), mark);
    }
}

/// Every slider a click or drag can move: each accelerator's MFU, each class's growth.
pub fn sliders(app: &App) -> Vec<crate::app::field::Field> {
    use crate::app::field::{Field, ForecastField};
    (0..app.plan.accelerators.len())
        .map(Field::Mfu)
        .chain(crate::model::workload::WorkloadClass::ALL.map(|c| Field::Forecast(ForecastField::Growth(c))))
        .collect()
}

/// A slider's track on screen, when its pane is shown, wide enough and scrolled to show it.
pub fn slider_track_on(
    areas: &crate::ui::layout::Areas,
    view: &ViewState,
    field: crate::app::field::Field,
) -> Option<Rect> {
    use crate::app::field::{Field, ForecastField};
    let pane_body = |id: PaneId| areas.panes.iter().find(|(p, _)| *p == id).map(|(_, r)| inner(*r));
    match field {
        Field::Mfu(i) => mfu::slider_track(pane_body(PaneId::Mfu)?, i, view.shown(PaneId::Mfu).offset()),
        Field::Forecast(ForecastField::Growth(class)) => forecast::growth_track(
            pane_body(PaneId::Forecast)?,
            class,
            view.shown(PaneId::Forecast).offset(),
        ),
        _ => None,
    }
}

/// The value at column `x` of a slider's track.
pub fn slider_value_at(field: crate::app::field::Field, track: Rect, x: u16) -> f64 {
    match field {
        crate::app::field::Field::Mfu(_) => mfu::mfu_at(track, x),
        _ => forecast::growth_at(track, x),
    }
}
