//! Unsaved edits kept where a dying workbench can still reach them: the text a save would write
//! now, updated as edits happen, written to the recovery file (config::recovery) when a signal
//! or a panic ends the workbench, and offered back on the next open of the plan.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, TryLockError};

use crate::app::{Action, App, Recovery, RecoveryStep};
use crate::config::plan_file::{read_plan_file_text, render_for_save};
use crate::config::recovery::{read_recovery, recovery_path, remove_recovery, write_recovery};
use crate::model::catalog::Catalog;
use crate::model::plan::Plan;

/// The recovery file and the plan text it would hold; None while there are no unsaved edits.
struct Kept {
    path: PathBuf,
    text: String,
}

/// A static, so the panic hook and the signal thread reach it without the app.
static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

fn set_kept(kept: Option<Kept>) {
    let mut slot = KEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    *slot = kept;
}

/// Follows the app's unsaved edits, rendering the plan only when it changed.
#[derive(Default)]
pub struct Keeper {
    last: Option<(Option<PathBuf>, Plan)>,
}

impl Keeper {
    /// Called after every batch of actions: keeps the text a save would write now.
    pub fn follow(&mut self, app: &App) {
        if !app.modified {
            if self.last.take().is_some() {
                set_kept(None);
            }
            return;
        }
        if self
            .last
            .as_ref()
            .is_some_and(|(path, plan)| *path == app.plan_file.path && *plan == app.plan)
        {
            return;
        }
        self.last = Some((app.plan_file.path.clone(), app.plan.clone()));
        let path = recovery_path(app.plan_file.path.as_deref(), &app.logs.paths);
        // The same text a save would write: the file's own layout with the values changed.
        let text = render_for_save(app.plan_file.text.as_deref(), &app.plan)
            .ok()
            .map(|(text, _)| text);
        set_kept(path.zip(text).map(|(path, text)| Kept { path, text }));
    }
}

/// Writes the unsaved edits to their recovery file: the file written, or why not; None when
/// there are none. Never panics and never waits on the lock (a panic hook calls it).
pub fn write_kept() -> Option<Result<PathBuf, String>> {
    let slot = match KEPT.try_lock() {
        Ok(slot) => slot,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(TryLockError::WouldBlock) => return Some(Err("the edits were being updated".to_string())),
    };
    let kept = slot.as_ref()?;
    Some(match write_recovery(&kept.path, &kept.text) {
        Ok(()) => Ok(kept.path.clone()),
        Err(e) => Err(format!("{}: {e}", kept.path.display())),
    })
}

/// What a dying workbench says on the normal screen about its edits.
pub fn farewell(written: Option<Result<PathBuf, String>>) -> Option<String> {
    Some(match written? {
        Ok(path) => format!(
            "gpuplan: the unsaved edits are kept in {}; the plan's next open offers them back",
            path.display()
        ),
        Err(why) => format!("gpuplan: the unsaved edits could not be kept: {why}"),
    })
}

/// After a clean quit (edits saved or dropped on request): the recovery file the user recovered
/// from goes. One only offered, or put off, stays for the next open.
pub fn clean_quit(app: &App) {
    if let Some(recovery) = app.recovery.as_deref()
        && recovery.step == RecoveryStep::Recovered
    {
        let _ = remove_recovery(&recovery.path);
    }
}

/// The recovery offer for a plan just opened, if its recovery file is there: the action that
/// opens it, or a warning when the file does not read. A file that holds what is on disk is
/// removed without asking.
pub fn find(plan_path: Option<&Path>, logs: &[PathBuf], on_disk: &Plan, catalog: &Catalog) -> Option<Action> {
    let path = recovery_path(plan_path, logs)?;
    let text = read_recovery(&path)?;
    match read_plan_file_text(&path, &text, catalog) {
        Ok(plan) if plan == *on_disk => {
            let _ = remove_recovery(&path);
            None
        }
        Ok(plan) => Some(Action::RecoveryFound(Box::new(Recovery {
            path,
            plan_path: plan_path.map(Path::to_path_buf),
            plan,
            step: RecoveryStep::Offered,
        }))),
        Err(diagnostics) => Some(Action::Failed {
            message: format!(
                "{}: kept edits that do not read, left as they are: {}",
                path.display(),
                diagnostics.first().map(|d| d.headline()).unwrap_or_default()
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::field::Field;
    use crate::app::{LogInputs, PlanFile, update};
    use crate::config::catalog::builtin;
    use crate::config::plan_file::{DEFAULT_PLAN_TOML, default_plan};

    // The one test of the static: what the signal path and the panic hook write.
    #[test]
    fn kept_edits_are_written_as_a_save_would_and_offered_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plan_path = dir.path().join("plan.toml");
        std::fs::write(&plan_path, DEFAULT_PLAN_TOML).expect("plan");
        let catalog = builtin().catalog;
        let on_disk = default_plan(&catalog).expect("plan");
        let file = PlanFile {
            path: Some(plan_path.clone()),
            text: Some(DEFAULT_PLAN_TOML.to_string()),
        };
        let mut app = App::new(catalog.clone(), on_disk.clone(), file, LogInputs::default());
        let mut keeper = Keeper::default();
        keeper.follow(&app);
        assert_eq!(write_kept(), None, "nothing unsaved, nothing written");

        update(
            &mut app,
            Action::SetField {
                field: Field::Mfu(0),
                value: 0.5,
            },
        );
        keeper.follow(&app);
        let recovery = dir.path().join(".plan.toml.gpuplan-recover");
        assert_eq!(write_kept(), Some(Ok(recovery.clone())));
        let kept = std::fs::read_to_string(&recovery).expect("recovery file");
        // The file's own layout, only the moved value rewritten.
        let changed: Vec<_> = DEFAULT_PLAN_TOML
            .lines()
            .zip(kept.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(changed, [("mfu = 0.45", "mfu = 0.5")], "{kept}");
        match find(Some(&plan_path), &[], &on_disk, &catalog) {
            Some(Action::RecoveryFound(found)) => {
                assert_eq!(found.path, recovery);
                assert_eq!(found.plan, app.plan);
            }
            other => panic!("{other:?}"),
        }

        // Back to what is on disk: nothing to keep, and a file holding the disk's plan goes.
        update(&mut app, Action::Command(crate::app::command::CommandId::Undo));
        keeper.follow(&app);
        assert_eq!(write_kept(), None);
        std::fs::write(&recovery, DEFAULT_PLAN_TOML).expect("recovery file");
        assert_eq!(find(Some(&plan_path), &[], &on_disk, &catalog), None);
        assert!(!recovery.exists());

        // One that does not read stays, and the banner says why.
        std::fs::write(&recovery, "mfu = fast").expect("recovery file");
        assert!(matches!(
            find(Some(&plan_path), &[], &on_disk, &catalog),
            Some(Action::Failed { .. })
        ));
        assert!(recovery.exists());
    }
}
