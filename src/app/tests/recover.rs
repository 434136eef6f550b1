//! The recovery offer: edits a workbench stopped by a signal or a panic kept for the plan,
//! offered back on its next open as Recover, Discard or Diff.

use super::*;

fn recovery_of(app: &App, mfu: f64) -> Recovery {
    let mut plan = app.plan.clone();
    plan.accelerators[0].mfu = mfu;
    Recovery {
        path: PathBuf::from("/plans/.seed.toml.gpuplan-recover"),
        plan_path: app.plan_file.path.clone(),
        plan,
        step: RecoveryStep::Offered,
    }
}

fn offered(mfu: f64) -> App {
    let mut app = app();
    let recovery = recovery_of(&app, mfu);
    assert!(update(&mut app, Action::RecoveryFound(Box::new(recovery))).is_empty());
    assert_eq!(app.overlay, Overlay::Recover);
    app
}

#[test]
fn recover_loads_the_kept_edits_as_unsaved_edits_and_undo_drops_them() {
    let mut app = offered(0.52);
    let on_disk = app.plan.clone();
    // A lower-case key meant for a pane chooses nothing.
    assert!(press(&mut app, Key::char('r')).is_empty());
    assert_eq!(app.overlay, Overlay::Recover);
    let effects = press(&mut app, Key::char('R'));
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::SavePlan { .. } | Effect::RemoveRecovery { .. })),
        "nothing written or removed until the user saves: {effects:?}"
    );
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.plan.accelerators[0].mfu, 0.52);
    assert!(app.modified, "recovered edits are unsaved edits");
    assert_eq!(app.saved, on_disk);
    assert_eq!(app.recovery.as_ref().map(|r| r.step), Some(RecoveryStep::Recovered));
    run(&mut app, CommandId::Undo);
    assert_eq!(app.plan, on_disk);
    assert!(!app.modified);
}

#[test]
fn discard_removes_the_recovery_file_and_keeps_the_plan_on_disk() {
    let mut app = offered(0.52);
    let on_disk = app.plan.clone();
    let effects = press(&mut app, Key::char('D'));
    assert_eq!(
        effects,
        vec![Effect::RemoveRecovery {
            path: PathBuf::from("/plans/.seed.toml.gpuplan-recover")
        }]
    );
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.plan, on_disk);
    assert!(!app.modified);
    assert_eq!(app.recovery, None);
}

#[test]
fn diff_shows_the_kept_edits_beside_the_plan_on_disk_and_esc_returns_to_the_offer() {
    let mut app = offered(0.52);
    press(&mut app, Key::char('C'));
    assert!(matches!(
        app.overlay,
        Overlay::Compare {
            from_conflict: None,
            ..
        }
    ));
    let comparison = app.comparison.as_ref().expect("a comparison");
    assert_eq!(comparison.labels, ["this plan", "recovered"]);
    assert!(
        comparison.inputs.iter().any(|i| i.key_path == "accelerators[0].mfu"),
        "{:?}",
        comparison.inputs
    );
    press(&mut app, Key::plain(KeyCode::Esc));
    assert_eq!(app.overlay, Overlay::Recover);
    assert_eq!(app.recovery.as_ref().map(|r| r.step), Some(RecoveryStep::Offered));
    press(&mut app, Key::char('R'));
    assert_eq!(app.plan.accelerators[0].mfu, 0.52);
}

#[test]
fn esc_puts_the_decision_off_and_the_file_stays() {
    let mut app = offered(0.52);
    let effects = press(&mut app, Key::plain(KeyCode::Esc));
    assert!(effects.is_empty());
    assert_eq!(app.overlay, Overlay::None);
    assert!(!app.modified);
    assert_eq!(app.recovery.as_ref().map(|r| r.step), Some(RecoveryStep::Offered));
    // Quitting now is a clean quit with nothing unsaved.
    assert_eq!(run(&mut app, CommandId::Quit), vec![Effect::Quit]);
}

#[test]
fn a_recovery_file_of_another_plan_is_not_offered() {
    let mut app = app();
    let mut recovery = recovery_of(&app, 0.52);
    recovery.plan_path = Some(PathBuf::from("/plans/other.toml"));
    update(&mut app, Action::RecoveryFound(Box::new(recovery)));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.recovery, None);
}
