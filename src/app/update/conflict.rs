//! Keys of the conflict dialog: the plan file changed on disk under unsaved edits.

use super::plan_file::{file_stem, plan_to_save, save};
use super::{banner, push_undo, refresh_comparison, replace_plan};
use crate::app::key::{Key, KeyCode};
use crate::app::{App, BannerLevel, Effect, Overlay};

/// The compare view's column of the file's version while a conflict is open.
pub const ON_DISK: &str = "on disk";

/// O overwrites theirs with mine, K keeps mine as a copy, T takes theirs, C compares the two.
/// Once O, K or T settles the conflict, the file's version leaves the comparison.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let Overlay::Conflict(conflict) = &app.overlay else {
        return Vec::new();
    };
    let conflict = conflict.clone();
    let mut effects = settle(app, key, conflict);
    if !matches!(app.overlay, Overlay::Conflict(_) | Overlay::Compare { .. })
        && app.compare.iter().any(|(label, _)| label == ON_DISK)
    {
        app.compare.retain(|(label, _)| label != ON_DISK);
        effects.extend(refresh_comparison(app));
    }
    effects
}

fn settle(app: &mut App, key: Key, conflict: Box<crate::app::Conflict>) -> Vec<Effect> {
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
            app.compare = vec![(ON_DISK.to_string(), conflict.theirs.clone())];
            let effects = refresh_comparison(app);
            app.overlay = Overlay::Compare {
                from_conflict: Some(conflict),
                scroll: 0,
                column: 0,
            };
            effects
        }
        _ => Vec::new(),
    }
}
