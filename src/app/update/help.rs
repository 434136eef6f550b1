//! Keys of the help screen and of the reading overlay: both scroll a list.

use crate::app::key::{Key, KeyCode};
use crate::app::{App, Effect, Overlay};

/// Arrows, j/k and pages scroll; any other key closes.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let (Overlay::Help { scroll } | Overlay::ReadNotices { scroll }) = &mut app.overlay else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => *scroll += 1,
        KeyCode::PageDown => *scroll += 10,
        KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
        _ => app.overlay = Overlay::None,
    }
    Vec::new()
}
