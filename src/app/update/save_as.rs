//! Keys of the save-as overlay: typing the path to save the plan to, Tab completing it.

use super::edit_text;
use super::plan_file::{file_stem, plan_to_save, unsavable};
use crate::app::key::{Key, KeyCode};
use crate::app::{App, Effect, Overlay};

/// Enter saves to the typed path unless the plan can't be saved (the runtime refuses a folder
/// that does not exist or a file that does, and the dialog opens again); Tab completes; Esc
/// also drops a quit that was waiting for the save.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let cannot_save = unsavable(app);
    let plan = (key.code == KeyCode::Enter).then(|| plan_to_save(app));
    let Overlay::SaveAs { text, error, choices } = &mut app.overlay else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Enter if text.trim().is_empty() => *error = Some("type a path to save the plan to".to_string()),
        KeyCode::Enter => match (cannot_save, plan) {
            (Some(why), _) => *error = Some(why),
            (None, Some(plan)) => {
                let typed = text.trim().to_string();
                app.overlay = Overlay::None;
                return vec![Effect::SavePlanTo { typed, plan }];
            }
            (None, None) => {}
        },
        KeyCode::Tab => return vec![Effect::CompleteSavePath { typed: text.clone() }],
        KeyCode::Esc => {
            app.overlay = Overlay::None;
            app.quit_after_save = false;
        }
        _ => {
            edit_text(text, key);
            *error = None;
            choices.clear();
        }
    }
    Vec::new()
}

/// What "save as" offers first: `plan.toml` in the current folder for a plan with no file,
/// else a copy beside the open plan.
pub(super) fn suggested_path(app: &App) -> String {
    match &app.plan_file.path {
        Some(path) => path
            .with_file_name(format!("{}-copy.toml", file_stem(app)))
            .display()
            .to_string(),
        None => "plan.toml".to_string(),
    }
}

/// The runtime could not save to the typed path: the dialog again, with the reason.
pub(super) fn refused(app: &mut App, typed: String, message: String) -> Vec<Effect> {
    app.overlay = Overlay::SaveAs {
        text: typed,
        error: Some(message),
        choices: Vec::new(),
    };
    Vec::new()
}

/// Tab's completion lands, unless the text was typed on since it was asked for.
pub(super) fn completed(app: &mut App, typed: &str, completed: String, found: Vec<String>) -> Vec<Effect> {
    if let Overlay::SaveAs { text, error, choices } = &mut app.overlay
        && text == typed
    {
        *text = completed;
        *error = None;
        *choices = found;
    }
    Vec::new()
}
