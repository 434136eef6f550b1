//! Keys of the recovery offer: edits an earlier workbench kept when a signal or a panic stopped it.

use super::{banner, push_undo, recompute, refresh_comparison};
use crate::app::key::{Key, KeyCode};
use crate::app::{App, BannerLevel, Effect, Overlay, Recovery, RecoveryStep};

/// A recovery file for the plan on screen: offered at once. One for a plan no longer open (an
/// open that was refused) is left for its next open.
pub(super) fn found(app: &mut App, recovery: Recovery) -> Vec<Effect> {
    if recovery.plan_path != app.plan_file.path {
        return Vec::new();
    }
    app.recovery = Some(Box::new(Recovery {
        step: RecoveryStep::Offered,
        ..recovery
    }));
    app.quit_after_save = false;
    app.overlay = Overlay::Recover;
    Vec::new()
}

/// R loads the kept edits as unsaved edits, D deletes the file, C compares it with the plan on
/// disk, Esc decides later (the file stays).
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let Some(recovery) = app.recovery.as_deref_mut() else {
        app.overlay = Overlay::None;
        return Vec::new();
    };
    let shown = recovery.path.display().to_string();
    match key.code {
        // Capitals: the offer opens unasked, and a key meant for a pane must not choose.
        KeyCode::Char('R') => {
            recovery.step = RecoveryStep::Recovered;
            let recovered = recovery.plan.clone();
            app.overlay = Overlay::None;
            // Undo goes back to the file's version; nothing is written until the user saves.
            push_undo(app, app.plan.clone());
            app.plan = recovered;
            app.modified = app.plan != app.saved;
            let effects = recompute(app);
            banner(
                app,
                BannerLevel::Info,
                format!("recovered the unsaved edits kept in {shown}: save to keep them, undo to drop them"),
            );
            effects
        }
        KeyCode::Char('D') => {
            let path = recovery.path.clone();
            app.recovery = None;
            app.overlay = Overlay::None;
            banner(app, BannerLevel::Info, format!("discarded the edits kept in {shown}"));
            vec![Effect::RemoveRecovery { path }]
        }
        KeyCode::Char('C') => {
            recovery.step = RecoveryStep::Comparing;
            app.compare = vec![("recovered".to_string(), recovery.plan.clone())];
            let effects = refresh_comparison(app);
            app.overlay = Overlay::Compare {
                from_conflict: None,
                scroll: 0,
                column: 0,
            };
            effects
        }
        KeyCode::Esc => {
            app.overlay = Overlay::None;
            banner(
                app,
                BannerLevel::Warning,
                format!("the unsaved edits stay in {shown}: the plan's next open offers them again"),
            );
            Vec::new()
        }
        _ => Vec::new(),
    }
}
