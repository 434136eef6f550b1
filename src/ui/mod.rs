//! Drawing: `render(&App, &mut ViewState, &Theme, &mut Frame)` reads the app's state and changes
//! nothing of it; `ViewState` is the drawing's own memory between frames (scroll windows).

mod chrome;
mod compare;
pub mod layout;
mod overlays;
pub mod panes;
mod read_notices;
pub mod scroll;
pub mod theme;
pub mod widgets;

use ratatui::Frame;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use crate::app::App;
pub use scroll::ViewState;
use theme::Theme;

/// Below this, only a one-line request for more room is drawn.
const MIN_WIDTH: u16 = 24;
const MIN_HEIGHT: u16 = 6;

/// True when a terminal of this size shows the panes (not just a request for more room).
pub fn draws_panes(size: ratatui::layout::Rect) -> bool {
    size.width >= MIN_WIDTH && size.height >= MIN_HEIGHT
}

pub fn render(app: &App, view: &mut ViewState, theme: &Theme, frame: &mut Frame) {
    let size = frame.area();
    if !draws_panes(size) {
        let text = format!("gpuplan: {}×{} is too small", size.width, size.height);
        frame.render_widget(Paragraph::new(Line::styled(text, theme.base)), size);
        return;
    }
    let areas = layout::areas(size, app);
    chrome::header(app, theme, frame, areas.header);
    if let Some(banner) = areas.banner {
        chrome::banner(app, theme, frame, banner);
    }
    if let Some(tabs) = areas.tabs {
        chrome::tabs(app, theme, frame, tabs);
    }
    for (pane, area) in &areas.panes {
        panes::render(*pane, app, view, theme, frame, *area);
    }
    chrome::status(app, theme, frame, areas.status);
    overlays::render(app, theme, frame, size);
}
