//! What reading the logs said (`app::read_notices`): the overlay that lists every notice with
//! its example rows, and the Workloads pane's lines that show the first few.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::theme::Theme;
use super::widgets::wrapped;
use crate::app::App;
use crate::app::command::CommandId;
use crate::app::read_notices::ReadNotice;

/// Notices the Workloads pane lists before pointing at the overlay.
const PANE_NOTICES: usize = 4;
/// Narrower than this (a pane of the grid), the pane gives the count and the key alone: the
/// banner names the first, the overlay lists them all.
const LIST_MIN_WIDTH: u16 = 60;

/// The overlay: each notice, its file, and its example rows; scrolled by `scroll` lines.
pub fn overlay(app: &App, theme: &Theme, frame: &mut Frame, size: Rect, scroll: usize) {
    let notices = app.fleet.as_ref().map(|f| f.read_notices()).unwrap_or_default();
    let area = super::overlays::centered(
        size,
        size.width.saturating_sub(4).max(40),
        size.height.saturating_sub(2),
    );
    let title = format!("What reading the logs said: {} (Esc closes)", notices.len());
    let body = super::overlays::dialog(frame, area, &title, theme);
    let mut lines: Vec<Line<'static>> = Vec::new();
    for notice in &notices {
        lines.extend(wrapped(
            &format!("⚑ {}: {}", notice.file, notice.text),
            body.width,
            theme.warn,
        ));
        for example in &notice.examples {
            lines.extend(wrapped(&format!("    {example}"), body.width, theme.muted));
        }
    }
    let scroll = scroll.min(lines.len().saturating_sub(1)) as u16;
    frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), body);
}

/// The Workloads pane's lines: the count and the key that lists them all, then, where the pane
/// is wide enough, the first notices, each whole.
pub fn pane_lines(app: &App, notices: &[ReadNotice], theme: &Theme, width: u16) -> Vec<Line<'static>> {
    if notices.is_empty() {
        return Vec::new();
    }
    let listed = width >= LIST_MIN_WIDTH;
    let mut lines = wrapped(
        &format!(
            "⚠ reading said {} thing{} ({} lists them with their rows){}",
            notices.len(),
            if notices.len() == 1 { "" } else { "s" },
            app.key_hint(CommandId::ReadNotices),
            if listed { ":" } else { "" }
        ),
        width,
        theme.warn,
    );
    if !listed {
        return lines;
    }
    let shown = if notices.len() == PANE_NOTICES + 1 {
        PANE_NOTICES + 1
    } else {
        PANE_NOTICES
    };
    for notice in notices.iter().take(shown) {
        lines.extend(wrapped(
            &format!("  {}: {}", notice.file, notice.text),
            width,
            theme.warn,
        ));
    }
    if notices.len() > shown {
        lines.extend(wrapped(
            &format!("  … {} more", notices.len() - shown),
            width,
            theme.muted,
        ));
    }
    lines
}
