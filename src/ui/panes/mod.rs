//! The six panes. Each draws inside its block and reads only the app.

mod contracts;
mod forecast;
mod forecast_fan;
mod inference;
pub mod mfu;
mod replay_lines;
mod risk;
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
