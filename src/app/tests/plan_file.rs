//! The plan file under the workbench: saving, quitting with edits, and edits made on disk
//! while it is open (reloaded, or kept apart when unsaved edits would be lost).

use super::*;

#[test]
fn quitting_with_unsaved_edits_asks_first() {
    let mut app = app();
    assert_eq!(run(&mut app, CommandId::Quit), vec![Effect::Quit]);
    let mut app = self::app();
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::Increase);
    assert!(run(&mut app, CommandId::Quit).is_empty());
    assert_eq!(app.overlay, Overlay::ConfirmQuit);
    assert!(press(&mut app, Key::char('n')).is_empty());
    assert!(!app.quit);
    run(&mut app, CommandId::Quit);
    let effects = press(&mut app, Key::char('s'));
    assert!(matches!(effects[..], [Effect::SavePlan { .. }]));
    assert!(!app.quit, "not before the save lands");
    // A failed save keeps the workbench and the edits.
    update(
        &mut app,
        Action::Failed {
            message: "plan.toml: not saved: disk full".to_string(),
        },
    );
    assert!(!app.quit);
    assert!(app.modified);
    run(&mut app, CommandId::Quit);
    press(&mut app, Key::char('s'));
    let effects = update(
        &mut app,
        Action::PlanSaved {
            path: PathBuf::from("/plans/seed.toml"),
            text: "saved".to_string(),
            note: None,
        },
    );
    assert_eq!(effects, vec![Effect::Quit]);
    assert!(app.quit);
}

#[test]
fn save_carries_the_original_text_for_a_format_preserving_write() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::Increase);
    let effects = run(&mut app, CommandId::Save);
    match &effects[..] {
        [
            Effect::SavePlan {
                path,
                plan,
                original_text,
                replace_read_only: false,
            },
        ] => {
            assert_eq!(path, &PathBuf::from("/plans/seed.toml"));
            assert_eq!(plan.accelerators[0].mfu, app.plan.accelerators[0].mfu);
            assert_eq!(original_text.as_deref(), Some("original"));
        }
        other => panic!("{other:?}"),
    }
    update(
        &mut app,
        Action::PlanSaved {
            path: PathBuf::from("/plans/seed.toml"),
            text: "saved".to_string(),
            note: None,
        },
    );
    assert!(!app.modified);
}

#[test]
fn an_edit_on_disk_reloads_when_nothing_is_unsaved() {
    let mut app = app();
    let mut theirs = app.plan.clone();
    theirs.accelerators[0].mfu = 0.30;
    let before = h100_cost(&app);
    update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(theirs),
            text: "theirs".to_string(),
        },
    );
    assert_eq!(app.plan.accelerators[0].mfu, 0.30);
    assert!((h100_cost(&app) - before * 0.45 / 0.30).abs() < 1e-6 * before);
    assert!(!app.modified);
}

#[test]
fn an_edit_on_disk_with_unsaved_edits_loses_nothing() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::IncreaseCoarse);
    let mine = app.plan.clone();
    let mut theirs = app.plan.clone();
    theirs.accelerators[1].mfu = 0.20;
    update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(theirs.clone()),
            text: "theirs".to_string(),
        },
    );
    assert!(matches!(app.overlay, Overlay::Conflict(_)));
    assert_eq!(app.plan, mine, "mine stays on screen");
    // A lower-case key meant for a pane chooses nothing. Compare, then back to the choice.
    press(&mut app, Key::char('c'));
    assert!(matches!(app.overlay, Overlay::Conflict(_)));
    press(&mut app, Key::char('C'));
    assert!(matches!(
        app.overlay,
        Overlay::Compare {
            from_conflict: Some(_),
            ..
        }
    ));
    assert_eq!(app.compare[0].1, theirs);
    let comparison = app.comparison.as_ref().expect("a comparison");
    assert_eq!(comparison.labels, ["this plan *", "on disk"]);
    assert!(
        comparison.inputs.iter().any(|i| i.key_path == "accelerators[1].mfu"),
        "{:?}",
        comparison.inputs
    );
    press(&mut app, Key::plain(KeyCode::Esc));
    assert!(matches!(app.overlay, Overlay::Conflict(_)));
    // Take theirs: mine is one undo away.
    press(&mut app, Key::char('T'));
    assert_eq!(app.plan, theirs);
    run(&mut app, CommandId::Undo);
    assert_eq!(app.plan, mine);
}

#[test]
fn keeping_mine_over_theirs_saves_against_their_text() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::Increase);
    let mut theirs = app.plan.clone();
    theirs.name = "renamed elsewhere".to_string();
    update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(theirs),
            text: "their text".to_string(),
        },
    );
    let effects = press(&mut app, Key::char('O'));
    match &effects[..] {
        [Effect::SavePlan { original_text, .. }] => assert_eq!(original_text.as_deref(), Some("their text")),
        other => panic!("{other:?}"),
    }
    // Or as a copy.
    let mut app = self::app();
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::Increase);
    let mut theirs = app.plan.clone();
    theirs.name = "x".to_string();
    update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(theirs),
            text: "t".to_string(),
        },
    );
    let effects = press(&mut app, Key::char('K'));
    assert!(matches!(&effects[..], [Effect::SavePlanAs { name, pick_free_name: true, .. }] if name == "seed-mine"));
}

#[test]
fn an_invalid_file_on_disk_keeps_the_last_good_plan_with_a_banner() {
    let mut app = app();
    let plan = app.plan.clone();
    update(
        &mut app,
        Action::PlanInvalidOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            message: "seed.toml:12:7: accelerators[0].mfu: expected a number".to_string(),
        },
    );
    assert_eq!(app.plan, plan);
    let banner = app.banner.as_ref().expect("banner");
    assert_eq!(banner.level, BannerLevel::Error);
    assert!(banner.text.contains("seed.toml:12:7"));
    // Putting the file back as it was clears the error.
    update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(plan.clone()),
            text: "original".to_string(),
        },
    );
    assert!(app.disk_error.is_none());
    assert_ne!(app.banner.as_ref().map(|b| b.level.clone()), Some(BannerLevel::Error));
}

#[test]
fn a_report_about_another_file_is_ignored() {
    let mut app = app();
    let mut theirs = app.plan.clone();
    theirs.name = "another plan".to_string();
    update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/old.toml"),
            plan: Box::new(theirs),
            text: "other".to_string(),
        },
    );
    assert_eq!(app.plan.name, "Seed worked examples");
}

#[test]
fn a_plan_that_would_not_load_is_not_saved() {
    let mut app = app();
    app.plan.accelerators[0].id = "no-such-chip".to_string();
    app.derived.refresh_plan(&app.plan, &app.catalog);
    let effects = run(&mut app, CommandId::Save);
    assert!(effects.is_empty());
    assert!(app.banner.as_ref().is_some_and(|b| b.text.starts_with("not saved")));
}

#[test]
fn undoing_back_to_the_saved_plan_is_not_an_unsaved_edit() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::Increase);
    assert!(app.modified);
    run(&mut app, CommandId::Undo);
    assert!(!app.modified);
    assert_eq!(run(&mut app, CommandId::Quit), vec![Effect::Quit]);
}

#[test]
fn a_read_only_plan_is_replaced_only_on_a_second_save_in_a_row() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::Increase);
    let save_replaces = |effects: &[Effect]| match effects {
        [Effect::SavePlan { replace_read_only, .. }] => *replace_read_only,
        other => panic!("{other:?}"),
    };
    assert!(!save_replaces(&run(&mut app, CommandId::Save)));
    update(
        &mut app,
        Action::PlanReadOnly {
            path: PathBuf::from("/plans/seed.toml"),
        },
    );
    let banner = app.banner.as_ref().expect("banner");
    assert_eq!(banner.text, "seed.toml is read-only: press Ctrl-S again to replace it");
    assert!(app.modified, "the edit is kept");
    // Anything else in between withdraws the confirmation.
    run(&mut app, CommandId::Down);
    assert!(!save_replaces(&run(&mut app, CommandId::Save)));
    update(
        &mut app,
        Action::PlanReadOnly {
            path: PathBuf::from("/plans/seed.toml"),
        },
    );
    assert!(save_replaces(&run(&mut app, CommandId::Save)));
    // Once only: the save after that asks again.
    assert!(!save_replaces(&run(&mut app, CommandId::Save)));
}

#[test]
fn a_save_that_finds_the_file_changed_asks_and_quits_nothing() {
    for modified in [true, false] {
        let mut app = app();
        if modified {
            run(&mut app, CommandId::FocusMfu);
            run(&mut app, CommandId::Increase);
        }
        app.quit_after_save = true;
        let mine = app.plan.clone();
        let mut theirs = app.plan.clone();
        theirs.clusters.clear();
        update(
            &mut app,
            Action::SaveFoundChange {
                path: PathBuf::from("/plans/seed.toml"),
                plan: Box::new(theirs.clone()),
                text: "half of theirs".to_string(),
            },
        );
        assert!(
            matches!(&app.overlay, Overlay::Conflict(c) if c.theirs == theirs),
            "{:?}",
            app.overlay
        );
        assert_eq!(app.plan, mine, "nothing is taken unasked");
        assert!(!app.quit_after_save);
        assert!(
            app.banner
                .as_ref()
                .is_some_and(|b| b.text.starts_with("not saved: seed.toml changed"))
        );
        // Writing mine over theirs is a save against their text.
        let effects = press(&mut app, Key::char('O'));
        match &effects[..] {
            [Effect::SavePlan { original_text, .. }] => assert_eq!(original_text.as_deref(), Some("half of theirs")),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_plan_being_written_is_waited_for_and_the_whole_file_settles_the_choice() {
    let mut app = app();
    let plan = app.plan.clone();
    update(
        &mut app,
        Action::PlanBeingWritten {
            path: PathBuf::from("/plans/seed.toml"),
        },
    );
    assert_eq!(app.plan, plan);
    let banner = app.banner.as_ref().expect("banner");
    assert_eq!(banner.text, "the plan file is being written: waiting");
    // The writer put back what was there: the wait is over, nothing to reload.
    update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(plan.clone()),
            text: "original".to_string(),
        },
    );
    assert!(app.banner.is_none());
    // A save with nothing unsaved asked about the half file; the whole one then settles it.
    let mut half = plan.clone();
    half.clusters.clear();
    update(
        &mut app,
        Action::SaveFoundChange {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(half),
            text: "half".to_string(),
        },
    );
    let mut whole = plan.clone();
    whole.name = "rewritten".to_string();
    update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(whole.clone()),
            text: "whole".to_string(),
        },
    );
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.plan, whole);
    assert_eq!(app.plan_file.text.as_deref(), Some("whole"));
    // Another file being written is not ours to wait for.
    app.banner = None;
    update(
        &mut app,
        Action::PlanBeingWritten {
            path: PathBuf::from("/plans/other.toml"),
        },
    );
    assert!(app.banner.is_none());
}

#[test]
fn a_settled_conflict_leaves_no_on_disk_column() {
    for settle in ['O', 'K', 'T'] {
        let mut app = app();
        run(&mut app, CommandId::FocusMfu);
        run(&mut app, CommandId::IncreaseCoarse);
        let mut theirs = app.plan.clone();
        theirs.accelerators[1].mfu = 0.20;
        update(
            &mut app,
            Action::PlanChangedOnDisk {
                path: PathBuf::from("/plans/seed.toml"),
                plan: Box::new(theirs),
                text: "theirs".to_string(),
            },
        );
        press(&mut app, Key::char('C'));
        assert_eq!(app.comparison.as_ref().expect("a comparison").labels[1], "on disk");
        press(&mut app, Key::plain(KeyCode::Esc));
        press(&mut app, Key::char(settle));
        assert!(!matches!(app.overlay, Overlay::Conflict(_)), "{settle}");
        assert!(
            app.compare.iter().all(|(label, _)| label != "on disk"),
            "{settle}: {:?}",
            app.compare.iter().map(|(l, _)| l).collect::<Vec<_>>()
        );
        assert!(
            app.comparison
                .as_ref()
                .is_none_or(|c| c.labels.iter().all(|l| l != "on disk")),
            "{settle}"
        );
    }
}
