//! Keys of the comparison overlay: plans side by side.

use crate::app::key::{Key, KeyCode};
use crate::app::{App, Effect, Overlay, RecoveryStep};

/// Lines a page key moves: about a screen of 80×24.
const PAGE_LINES: usize = 15;
/// The rows an 80×24 screen shows under the column titles: scrolled to the end, the last of
/// them fill the view there (a taller screen shows more, from the same first row).
const SMALLEST_VIEW_LINES: usize = 19;

/// Esc or q returns to the conflict or recovery offer it was opened from (or closes); ↑↓, j/k,
/// pages, Home and End scroll the rows; ←→ and h/l the compared plans, when not all fit.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let last_scroll = app.comparison_lines().saturating_sub(SMALLEST_VIEW_LINES);
    let last_column = app.compare.len();
    let Overlay::Compare {
        from_conflict,
        scroll,
        column,
    } = &mut app.overlay
    else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc | KeyCode::Char('q') => {
            app.overlay = match from_conflict.take() {
                Some(conflict) => Overlay::Conflict(conflict),
                None => match app
                    .recovery
                    .as_deref_mut()
                    .filter(|r| r.step == RecoveryStep::Comparing)
                {
                    Some(recovery) => {
                        recovery.step = RecoveryStep::Offered;
                        Overlay::Recover
                    }
                    None => Overlay::None,
                },
            };
        }
        KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => *scroll = (*scroll + 1).min(last_scroll),
        KeyCode::PageUp => *scroll = scroll.saturating_sub(PAGE_LINES),
        KeyCode::PageDown => *scroll = (*scroll + PAGE_LINES).min(last_scroll),
        KeyCode::Home => *scroll = 0,
        KeyCode::End => *scroll = last_scroll,
        KeyCode::Left | KeyCode::Char('h') => *column = column.saturating_sub(1),
        KeyCode::Right | KeyCode::Char('l') => *column = (*column + 1).min(last_column),
        _ => {}
    }
    Vec::new()
}
