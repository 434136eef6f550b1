//! Keys of the comparison overlay: plans side by side.

use crate::app::key::{Key, KeyCode};
use crate::app::{App, Effect, Overlay, RecoveryStep};

/// Esc or q returns to the conflict or recovery offer it was opened from (or closes); arrows, j/k and pages scroll.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let Overlay::Compare { from_conflict, scroll } = &mut app.overlay else {
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
        KeyCode::Down | KeyCode::Char('j') => *scroll += 1,
        KeyCode::PageUp => *scroll = scroll.saturating_sub(20),
        KeyCode::PageDown => *scroll += 20,
        _ => {}
    }
    Vec::new()
}
