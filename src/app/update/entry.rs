//! Keys of the entry overlay: typing a value for one field.

use super::{clear, edit, edit_text};
use crate::app::key::{Key, KeyCode};
use crate::app::{App, Effect, Overlay};

/// Enter sets the value (or shows why it can't be read), Esc drops it, other keys type.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let Overlay::Entry { field, text, error } = &mut app.overlay else {
        return Vec::new();
    };
    let field = *field;
    match key.code {
        KeyCode::Enter if field.clears(text) => {
            app.overlay = Overlay::None;
            app.history.last_field = None;
            return clear(app, field);
        }
        KeyCode::Enter => match field.parse_input(text) {
            Ok(value) => {
                app.overlay = Overlay::None;
                app.history.last_field = None;
                return edit(app, field, value);
            }
            Err(e) => *error = Some(e.to_string()),
        },
        KeyCode::Esc => app.overlay = Overlay::None,
        _ => edit_text(text, key),
    }
    Vec::new()
}
