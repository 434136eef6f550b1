//! Keys of the save-as overlay: typing a name to save the plan under.

use super::edit_text;
use super::plan_file::unsavable;
use crate::app::error::InputError;
use crate::app::key::{Key, KeyCode};
use crate::app::{App, Effect, Overlay};

/// Enter saves under the typed name unless the name or the plan can't be saved; Esc also
/// drops a quit that was waiting for the save.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let cannot_save = unsavable(app);
    let Overlay::SaveAs { text, error } = &mut app.overlay else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Enter => match valid_plan_name(text) {
            Ok(_) if cannot_save.is_some() => *error = cannot_save,
            Ok(name) => {
                app.overlay = Overlay::None;
                return vec![Effect::SavePlanAs {
                    name,
                    plan: Box::new(app.plan.clone()),
                    pick_free_name: false,
                }];
            }
            Err(e) => *error = Some(e.to_string()),
        },
        KeyCode::Esc => {
            app.overlay = Overlay::None;
            app.quit_after_save = false;
        }
        _ => edit_text(text, key),
    }
    Vec::new()
}

/// A plan name is a file name in the plans folder: letters, digits, `-`, `_`, `.`.
fn valid_plan_name(text: &str) -> Result<String, InputError> {
    let name = text.trim().trim_end_matches(".toml").to_string();
    if name.is_empty() {
        return Err(InputError::NoName);
    }
    if name.starts_with('.')
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(InputError::BadName { name });
    }
    Ok(name)
}
