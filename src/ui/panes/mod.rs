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

use super::scroll::ViewState;
use super::theme::Theme;
use super::widgets::{inner, pane_block};
use crate::app::{App, PaneId};

pub fn render(pane: PaneId, app: &App, view: &mut ViewState, theme: &Theme, frame: &mut Frame, area: Rect) {
    let focused = app.focus == pane;
    let title = format!("{} {}", pane.index() + 1, pane.title());
    frame.render_widget(pane_block(&title, focused, theme), area);
    let body = inner(area);
    if body.width == 0 || body.height == 0 {
        return;
    }
    match pane {
        PaneId::Workloads => workloads::render(app, view.workloads(app.workloads_view), theme, frame, body, focused),
        PaneId::Mfu => mfu::render(app, theme, frame, body, focused),
        PaneId::Inference => inference::render(app, theme, frame, body, focused),
        PaneId::Risk => risk::render(app, theme, frame, body, focused),
        PaneId::Contracts => contracts::render(app, theme, frame, body, focused),
        PaneId::Forecast => forecast::render(app, theme, frame, body, focused),
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

/// A slider's track on screen, when its pane is shown and wide enough.
pub fn slider_track_on(areas: &crate::ui::layout::Areas, field: crate::app::field::Field) -> Option<Rect> {
    use crate::app::field::{Field, ForecastField};
    let pane_body = |id: PaneId| areas.panes.iter().find(|(p, _)| *p == id).map(|(_, r)| inner(*r));
    match field {
        Field::Mfu(i) => mfu::slider_track(pane_body(PaneId::Mfu)?, i),
        Field::Forecast(ForecastField::Growth(class)) => forecast::growth_track(pane_body(PaneId::Forecast)?, class),
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
