//! Keys of the quit confirmation: unsaved edits and a quit request.

use super::plan_file::save;
use crate::app::key::{Key, KeyCode};
use crate::app::{App, Effect, Overlay};

/// y quits, s saves and then quits, n or Esc stays.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    match key.code {
        KeyCode::Char('y' | 'Y') => {
            app.quit = true;
            vec![Effect::Quit]
        }
        KeyCode::Char('s' | 'S') => {
            app.overlay = Overlay::None;
            let effects = save(app);
            // Quit only when the save has landed (see PlanSaved); a failure keeps the edits.
            // A plan without a file asks for a name first; quitting waits for that too.
            app.quit_after_save = matches!(effects.first(), Some(Effect::SavePlan { .. }))
                || matches!(app.overlay, Overlay::SaveAs { .. });
            effects
        }
        KeyCode::Char('n' | 'N') | KeyCode::Esc => {
            app.overlay = Overlay::None;
            Vec::new()
        }
        _ => Vec::new(),
    }
}
