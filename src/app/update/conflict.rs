//! Keys of the conflict dialog: the plan file changed on disk under unsaved edits.

use super::plan_file::{file_stem, plan_to_save, save};
use super::{banner, push_undo, refresh_comparison, replace_plan};
use crate::app::key::{Key, KeyCode};
use crate::app::{App, BannerLevel, Effect, Overlay};

/// O overwrites theirs with mine, K keeps mine as a copy, T takes theirs, C compares the two.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let Overlay::Conflict(conflict) = &app.overlay else {
        return Vec::new();
    };
    let conflict = conflict.clone();
    match key.code {
        // Capitals: the dialog opens unasked, and a key meant for a pane must not choose.
        // Keep mine, written over theirs.
        KeyCode::Char('O') => {
            app.overlay = Overlay::None;
            app.plan_file.text = Some(conflict.theirs_text.clone());
            save(app)
        }
        // Keep mine as a copy; the file stays theirs.
        KeyCode::Char('K') => {
            app.overlay = Overlay::None;
            let name = format!("{}-mine", file_stem(app));
            vec![Effect::SavePlanAs {
                name,
                plan: plan_to_save(app),
                pick_free_name: true,
            }]
        }
        KeyCode::Char('T') => {
            app.overlay = Overlay::None;
            push_undo(app, app.plan.clone());
            app.plan_file.text = Some(conflict.theirs_text.clone());
            let effects = replace_plan(app, conflict.theirs.clone());
            app.modified = false;
            banner(
                app,
                BannerLevel::Info,
                "took the file's version; undo brings your edits back".to_string(),
            );
            effects
        }
        KeyCode::Char('C') => {
            app.compare = vec![("on disk".to_string(), conflict.theirs.clone())];
            refresh_comparison(app);
            app.overlay = Overlay::Compare {
                from_conflict: Some(conflict),
                scroll: 0,
            };
            Vec::new()
        }
        _ => Vec::new(),
    }
}
