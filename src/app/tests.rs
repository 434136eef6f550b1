//! The workbench driven by values: actions in, state and effects out. No terminal, no sleeps.

use super::command::CommandId;
use super::field::Field;
use super::key::{Key, KeyCode};
use super::*;
use crate::config::catalog::builtin;
use crate::config::plan_file::default_plan;

mod plan_file;
mod recover;
mod save_sources;
mod scrolling;

fn app() -> App {
    app_on(LogInputs::default(), Some("/plans/seed.toml"))
}

/// The workbench on the default plan, from the file `path` (None: a plan with no file yet),
/// reading `logs`.
fn app_on(logs: LogInputs, path: Option<&str>) -> App {
    let catalog = builtin().catalog;
    let plan = default_plan(&catalog).expect("default plan");
    App::new(
        catalog,
        plan,
        PlanFile {
            path: path.map(PathBuf::from),
            text: Some("original".to_string()),
        },
        logs,
    )
}

fn press(app: &mut App, key: Key) -> Vec<Effect> {
    update(app, Action::Key(key))
}

fn run(app: &mut App, id: CommandId) -> Vec<Effect> {
    update(app, Action::Command(id))
}

fn h100_cost(app: &App) -> f64 {
    app.derived.slider_cost_usd("h100-sxm").expect("h100 curve")
}

#[test]
fn start_reads_the_logs_and_watches_the_plan() {
    let mut app = app();
    let effects = app.start();
    assert!(matches!(effects[0], Effect::LoadFleet { generation: 1, .. }));
    assert!(effects.contains(&Effect::WatchPlan {
        path: PathBuf::from("/plans/seed.toml")
    }));
    assert!(matches!(app.fleet_status, FleetStatus::Working { generation: 1, .. }));
}

#[test]
fn a_slider_step_changes_the_cost_in_the_same_update() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    let before = h100_cost(&app);
    let mfu_before = app.plan.accelerators[0].mfu;
    let effects = press(&mut app, Key::plain(KeyCode::Right));
    assert!(effects.is_empty(), "{effects:?}");
    assert!((app.plan.accelerators[0].mfu - (mfu_before + 0.005)).abs() < 1e-12);
    let after = h100_cost(&app);
    // Cost is inversely proportional to MFU.
    assert!((after - before * mfu_before / (mfu_before + 0.005)).abs() < 1e-6 * before);
    assert!(app.modified);
    assert!(app.plan_title().contains('*'));
    // Evaluation, curves and sensitivity table agree.
    let run = app
        .derived
        .evaluation
        .training
        .runs
        .iter()
        .find(|r| r.accelerator == "h100-sxm" && r.mfu_source == crate::model::evaluate::MfuSource::Slider)
        .expect("slider run");
    assert!((run.cost_usd - after).abs() < 1e-6);
}

#[test]
fn coarse_steps_and_typed_values() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::Down);
    assert_eq!(app.cursors.accelerator, 1);
    run(&mut app, CommandId::IncreaseCoarse);
    assert!((app.plan.accelerators[1].mfu - 0.50).abs() < 1e-12);
    run(&mut app, CommandId::Edit);
    assert!(matches!(
        app.overlay,
        Overlay::Entry {
            field: Field::Mfu(1),
            ..
        }
    ));
    for _ in 0..4 {
        press(&mut app, Key::plain(KeyCode::Backspace));
    }
    for c in "abc".chars() {
        press(&mut app, Key::char(c));
    }
    press(&mut app, Key::plain(KeyCode::Enter));
    match &app.overlay {
        Overlay::Entry { error: Some(e), .. } => assert!(e.contains("not a number"), "{e}"),
        other => panic!("expected an error, got {other:?}"),
    }
    press(&mut app, Key::ctrl('u'));
    for c in "38.5".chars() {
        press(&mut app, Key::char(c));
    }
    press(&mut app, Key::plain(KeyCode::Enter));
    assert_eq!(app.overlay, Overlay::None);
    assert!((app.plan.accelerators[1].mfu - 0.385).abs() < 1e-12);
}

#[test]
fn held_slider_steps_undo_as_one_edit_and_redo_restores() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    let original = app.plan.clone();
    for _ in 0..10 {
        run(&mut app, CommandId::Increase);
    }
    run(&mut app, CommandId::Down);
    run(&mut app, CommandId::Decrease);
    assert_eq!(app.history.undo.len(), 2);
    run(&mut app, CommandId::Undo);
    run(&mut app, CommandId::Undo);
    assert_eq!(app.plan, original);
    let original_cost = h100_cost(&app);
    run(&mut app, CommandId::Redo);
    assert!(h100_cost(&app) < original_cost);
    assert!((app.plan.accelerators[0].mfu - 0.50).abs() < 1e-9);
}

#[test]
fn risk_edits_change_the_weighted_exposure() {
    let mut app = app();
    run(&mut app, CommandId::FocusRisk);
    let before = app.derived.evaluation.risk.weighted_exposure_usd;
    let p = app.plan.risks[0].probability;
    run(&mut app, CommandId::Increase);
    assert!((app.plan.risks[0].probability - (p + 0.01)).abs() < 1e-12);
    let row = &app.plan.risks[0];
    let expected = before + 0.01 * row.impact_usd * row.expected_count;
    assert!((app.derived.evaluation.risk.weighted_exposure_usd - expected).abs() < 1e-6);
    // The cursor walks probability then impact of each row.
    run(&mut app, CommandId::Down);
    assert_eq!(app.selected_field(), Some(Field::RiskImpact(0)));
}

#[test]
fn stale_audits_are_dropped_and_the_newest_wins() {
    let mut app = app();
    app.start();
    run(&mut app, CommandId::Reload);
    assert_eq!(app.generation, 2);
    update(
        &mut app,
        Action::FleetFailed {
            generation: 1,
            message: "old".to_string(),
        },
    );
    assert!(app.banner.is_none(), "a superseded result must not show");
    update(
        &mut app,
        Action::FleetFailed {
            generation: 2,
            message: "cannot read x.csv: no such file".to_string(),
        },
    );
    assert!(matches!(app.fleet_status, FleetStatus::Failed { .. }));
    assert_eq!(app.banner.as_ref().map(|b| b.level.clone()), Some(BannerLevel::Error));
}

#[test]
fn stepping_another_row_in_between_starts_a_new_undo_entry() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    press(&mut app, Key::plain(KeyCode::Right));
    press(&mut app, Key::plain(KeyCode::Down));
    press(&mut app, Key::plain(KeyCode::Up));
    press(&mut app, Key::plain(KeyCode::Right));
    assert_eq!(app.history.undo.len(), 2);
}

#[test]
fn the_palette_finds_commands_and_accelerators_fuzzily() {
    let mut app = app();
    // A file that matches about as well must not push the accelerator down.
    app.known_files = vec![PathBuf::from("tests/fixtures/broken/truncated.csv")];
    run(&mut app, CommandId::Palette);
    for c in "trn".chars() {
        press(&mut app, Key::char(c));
    }
    let Overlay::Palette(state) = &app.overlay else {
        panic!("palette closed")
    };
    let found = palette::matches(&app, state);
    assert!(
        found[0].label.contains("trainium2"),
        "{:?}",
        found.iter().map(|e| &e.label).collect::<Vec<_>>()
    );
    press(&mut app, Key::plain(KeyCode::Enter));
    assert_eq!(app.focus, PaneId::Mfu);
    assert_eq!(app.plan.accelerators[app.cursors.accelerator].id, "trainium2");
    // Commands carry their binding.
    run(&mut app, CommandId::Palette);
    for c in "save the".chars() {
        press(&mut app, Key::char(c));
    }
    let Overlay::Palette(state) = &app.overlay else {
        panic!("palette closed")
    };
    let found = palette::matches(&app, state);
    assert_eq!(found[0].key_hint, "Ctrl-S");
}

#[test]
fn the_file_picker_opens_a_typed_path() {
    let mut app = app();
    app.known_files = vec![PathBuf::from("sample-data/jobs-90d.csv")];
    // A log by its path, though the list does not hold it.
    run(&mut app, CommandId::OpenFile);
    for c in "/data/pods.csv".chars() {
        press(&mut app, Key::char(c));
    }
    let effects = press(&mut app, Key::plain(KeyCode::Enter));
    assert_eq!(app.logs.paths, [PathBuf::from("/data/pods.csv")]);
    assert!(matches!(effects.as_slice(), [Effect::LoadFleet { .. }]), "{effects:?}");
    // A plan by a name that matches nothing listed.
    run(&mut app, CommandId::OpenFile);
    for c in "q4.toml".chars() {
        press(&mut app, Key::char(c));
    }
    let effects = press(&mut app, Key::plain(KeyCode::Enter));
    assert!(
        matches!(effects.as_slice(), [Effect::OpenPlan { path }] if path == &PathBuf::from("q4.toml")),
        "{effects:?}"
    );
    // A name or a relative path that matches a listed file still picks it.
    run(&mut app, CommandId::OpenFile);
    for c in "sample-data/jo".chars() {
        press(&mut app, Key::char(c));
    }
    press(&mut app, Key::plain(KeyCode::Enter));
    assert_eq!(app.logs.paths, [PathBuf::from("sample-data/jobs-90d.csv")]);
}

#[test]
fn the_palette_finds_a_command_by_a_word_of_its_help() {
    let mut app = app();
    run(&mut app, CommandId::Palette);
    for c in "stranded".chars() {
        press(&mut app, Key::char(c));
    }
    let Overlay::Palette(state) = &app.overlay else {
        panic!("palette closed")
    };
    let found = palette::matches(&app, state);
    assert_eq!(
        found.first().map(|e| &e.target),
        Some(&palette::PaletteTarget::Command(CommandId::FocusWorkloads)),
        "{:?}",
        found.iter().map(|e| &e.label).collect::<Vec<_>>()
    );
    press(&mut app, Key::plain(KeyCode::Enter));
    assert_eq!(app.focus, PaneId::Workloads);
}

#[test]
fn text_dialogs_take_keys_that_are_commands_elsewhere() {
    let mut app = app();
    run(&mut app, CommandId::SaveAs);
    press(&mut app, Key::ctrl('u'));
    press(&mut app, Key::plain(KeyCode::Enter));
    assert!(matches!(&app.overlay, Overlay::SaveAs { error: Some(_), .. }));
    for c in "plans/q1x".chars() {
        press(&mut app, Key::char(c));
    }
    assert!(!app.quit);
    press(&mut app, Key::plain(KeyCode::Backspace));
    let effects = press(&mut app, Key::plain(KeyCode::Enter));
    assert!(matches!(&effects[..], [Effect::SavePlanTo { typed, .. }] if typed == "plans/q1"));
}

#[test]
fn help_lists_and_closes() {
    let mut app = app();
    press(&mut app, Key::char('?'));
    assert!(matches!(app.overlay, Overlay::Help { .. }));
    press(&mut app, Key::plain(KeyCode::Esc));
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn tab_cycles_panes_both_ways() {
    let mut app = app();
    for expected in [
        PaneId::Mfu,
        PaneId::Inference,
        PaneId::Risk,
        PaneId::Contracts,
        PaneId::Forecast,
        PaneId::Workloads,
    ] {
        press(&mut app, Key::plain(KeyCode::Tab));
        assert_eq!(app.focus, expected);
    }
    press(&mut app, Key::plain(KeyCode::BackTab));
    assert_eq!(app.focus, PaneId::Forecast);
}

#[test]
fn compare_shows_another_plan_and_follows_edits() {
    let mut app = app();
    let mut other = app.plan.clone();
    other.accelerators[0].mfu = 0.30;
    update(
        &mut app,
        Action::ComparePlanLoaded {
            label: "slow.toml".to_string(),
            plan: Box::new(other),
        },
    );
    assert!(matches!(
        app.overlay,
        Overlay::Compare {
            from_conflict: None,
            ..
        }
    ));
    let h100 = |app: &App| {
        app.comparison
            .as_ref()
            .expect("comparison")
            .outputs
            .iter()
            .find(|o| o.key.contains("h100-sxm") && o.key.contains("slider"))
            .map(|o| o.values.clone())
            .expect("h100 output")
    };
    let before = h100(&app);
    assert!(before[1] > before[0], "30 % MFU costs more: {before:?}");
    // An edit to the current plan moves its column.
    press(&mut app, Key::plain(KeyCode::Esc));
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::IncreaseCoarse);
    let after = h100(&app);
    assert!(after[0] < before[0]);
    assert_eq!(after[1], before[1]);
}

#[test]
fn only_what_the_audit_reads_of_the_plan_audits_again() {
    let mut app = app();
    app.start();
    let generation = app.generation;
    let mut mfu_only = app.plan.clone();
    mfu_only.accelerators[0].mfu = 0.40;
    let effects = update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(mfu_only.clone()),
            text: "mfu".to_string(),
        },
    );
    assert!(effects.is_empty(), "{effects:?}");
    let mut longer_month = mfu_only;
    longer_month.hours_per_month = 744.0;
    let effects = update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(longer_month),
            text: "month".to_string(),
        },
    );
    assert_eq!(
        effects,
        vec![Effect::Reaudit {
            generation: generation + 1,
            settings: app.audit_settings(),
        }]
    );
    assert_eq!(app.audit_settings().hours_per_month, 744.0);
}

#[test]
fn new_host_patterns_audit_again() {
    // The audit reads the plan's [hosts] (AuditSettings::for_plan); a hand-kept list of what
    // it reads once missed them, and the workbench kept the old audit.
    let mut app = app();
    app.start();
    let generation = app.generation;
    let mut with_hosts = app.plan.clone();
    with_hosts
        .hosts
        .insert("h100-train-a".to_string(), vec!["gpu[001-004]".to_string()].into());
    let effects = update(
        &mut app,
        Action::PlanChangedOnDisk {
            path: PathBuf::from("/plans/seed.toml"),
            plan: Box::new(with_hosts),
            text: "hosts".to_string(),
        },
    );
    assert!(
        matches!(effects.as_slice(), [Effect::Reaudit { generation: g, settings }] if *g == generation + 1 && settings.host_patterns.len() == 1),
        "{effects:?}"
    );
}

#[test]
fn only_actions_that_change_something_ask_for_a_frame() {
    let mut app = app();
    // F12 is bound to nothing; `q` is (quit).
    assert!(changes_nothing(&app, &Action::Key(Key::plain(KeyCode::F(12)))));
    assert!(!changes_nothing(&app, &Action::Key(Key::char('q'))));
    let stale = Action::FleetFailed {
        generation: app.generation + 1,
        message: "late".to_string(),
    };
    assert!(changes_nothing(&app, &stale));
    let (status, banner) = (app.fleet_status.clone(), app.banner.clone());
    update(&mut app, stale);
    assert_eq!(
        (app.fleet_status.clone(), app.banner.clone()),
        (status, banner),
        "a superseded result is dropped"
    );
    let current = Action::FleetFailed {
        generation: app.generation,
        message: "now".to_string(),
    };
    assert!(!changes_nothing(&app, &current));
    // With an overlay open, every key goes to it.
    app.overlay = Overlay::ConfirmQuit;
    assert!(!changes_nothing(&app, &Action::Key(Key::plain(KeyCode::F(12)))));
}

#[test]
fn export_asks_for_the_report_of_the_plan_on_screen_and_says_when_it_waits() {
    let mut app = app();
    app.start();
    // The audit asked by start() is still running: the export waits for it, and says so.
    let effects = run(&mut app, CommandId::ExportReport);
    assert_eq!(
        effects,
        vec![Effect::ExportReport {
            plan: Box::new(app.plan.clone()),
            unsaved_edits: false,
        }]
    );
    assert!(
        app.banner
            .as_ref()
            .is_some_and(|b| b.text.contains("waiting for the audit")),
        "{:?}",
        app.banner
    );
    run(&mut app, CommandId::FocusMfu);
    run(&mut app, CommandId::Increase);
    let effects = run(&mut app, CommandId::ExportReport);
    assert!(
        matches!(effects.as_slice(), [Effect::ExportReport { plan, unsaved_edits: true }] if **plan == app.plan),
        "{effects:?}"
    );
    update(
        &mut app,
        Action::ExportFailed {
            message: "cannot write x.report.json: denied".to_string(),
        },
    );
    assert!(app.banner.as_ref().is_some_and(|b| b.text.contains("denied")));
}

#[test]
fn a_cluster_value_typed_is_refused_where_the_plan_file_refuses_it() {
    use super::field::ClusterField;
    let app = app();
    for field in ClusterField::all(0).map(Field::Cluster) {
        for typed in [
            "-1", "-0.01", "0", "0.5", "1", "12.5", "136", "4.3344", "$6.88", "2k", "1e30", "vm", "1-year",
        ] {
            let raw: Option<f64> = typed.trim_start_matches('$').parse().ok();
            let mut candidate = app.plan.clone();
            match field.parse_input(typed) {
                Ok(value) => {
                    assert!(field.set(&mut candidate, value), "{typed}");
                    let problems: Vec<_> = candidate
                        .problems(&app.catalog)
                        .into_iter()
                        .filter(|p| p.key_path == field.key_path())
                        .collect();
                    assert!(
                        problems.is_empty(),
                        "{} = {typed} taken, but {problems:?}",
                        field.key_path()
                    );
                }
                // What the file's rules refuse is refused here too: written straight into the
                // plan, the same number fails validation at the same key.
                Err(_) => {
                    let cluster = &mut candidate.clusters[0];
                    let stored = match (field, raw) {
                        (Field::Cluster(ClusterField::UsdPerGpuHour(_)), Some(v)) if v < 0.0 => {
                            cluster.usd_per_gpu_hour = v;
                            true
                        }
                        (Field::Cluster(ClusterField::Gpus(_)), Some(v)) if v < 1.0 => {
                            cluster.gpus = v;
                            true
                        }
                        _ => false,
                    };
                    if stored {
                        assert!(
                            candidate
                                .problems(&app.catalog)
                                .iter()
                                .any(|p| p.key_path == field.key_path()),
                            "{typed}"
                        );
                    }
                }
            }
        }
    }
    let price = Field::Cluster(ClusterField::UsdPerGpuHour(0));
    let gpus = Field::Cluster(ClusterField::Gpus(0));
    assert!(price.parse_input("-0.01").is_err(), "a negative price");
    // A price of 0 made the board read "saving -$306k/yr" against a fleet that costs nothing.
    let refused = price.parse_input("0").expect_err("a price must be above 0");
    assert_eq!(
        refused.to_string(),
        "clusters[0].usd_per_gpu_hour must be between $0.01/h and $10,000/h"
    );
    assert_eq!(price.parse_input("0.01"), Ok(0.01));
    assert!(
        gpus.parse_input("0").is_err() && gpus.parse_input("-8").is_err(),
        "no GPUs"
    );
    // A capacity of shared GPUs (an observed peak of fractional requests) holds hundredths:
    // "65.59 GPUs shown as 66" and rounded up by `plan new` cost $4k a month that nobody owns.
    assert_eq!(gpus.parse_input("65.59"), Ok(65.59), "a fraction of GPUs is kept");
    assert!(
        gpus.parse_input("0.5").is_err(),
        "below one GPU, as the file refuses it"
    );
}

#[test]
fn a_clusters_price_or_capacity_audits_again_and_undo_does_too() {
    use super::field::ClusterField;
    use crate::model::catalog::Term;
    let mut app = app();
    app.start();
    let price = Field::Cluster(ClusterField::UsdPerGpuHour(0));
    let before = app.plan.clusters[0].usd_per_gpu_hour;
    let effects = update(
        &mut app,
        Action::SetField {
            field: price,
            value: 5.0,
        },
    );
    assert_eq!(app.plan.clusters[0].usd_per_gpu_hour, 5.0);
    assert!(app.modified);
    let [Effect::Reaudit { settings, .. }] = effects.as_slice() else {
        panic!("the audit prices the cluster: {effects:?}");
    };
    assert_eq!(settings.clusters[0].usd_per_gpu_hour, 5.0);
    // The term is one too: the below-40 % flag is for committed capacity only.
    let term = Field::Cluster(ClusterField::Term(0));
    let effects = update(
        &mut app,
        Action::SetField {
            field: term,
            value: 0.0,
        },
    );
    assert_eq!(app.plan.clusters[0].term, Term::Spot);
    let [Effect::Reaudit { settings, .. }] = effects.as_slice() else {
        panic!("the audit's flags read the term: {effects:?}");
    };
    assert_eq!(settings.clusters[0].term, Term::Spot);
    // The deployment is not an audit's input: no audit for it.
    let deployment = Field::Cluster(ClusterField::Deployment(0));
    let before_deployment = app.plan.clusters[0].deployment;
    let effects = update(
        &mut app,
        Action::SetField {
            field: deployment,
            value: if before_deployment == crate::model::deployment::Deployment::ALL[0] {
                1.0
            } else {
                0.0
            },
        },
    );
    assert_ne!(app.plan.clusters[0].deployment, before_deployment);
    assert!(effects.is_empty(), "{effects:?}");
    run(&mut app, CommandId::Undo);
    run(&mut app, CommandId::Undo);
    run(&mut app, CommandId::Undo);
    assert_eq!(app.plan.clusters[0].usd_per_gpu_hour, before);
    assert!(!app.modified);
    // Back to the price the last audit did not read: audit again.
    let effects = run(&mut app, CommandId::Redo);
    assert!(matches!(effects.as_slice(), [Effect::Reaudit { .. }]), "{effects:?}");
}

#[test]
fn without_logs_the_workloads_pane_edits_nothing() {
    let mut app = app();
    run(&mut app, CommandId::FocusWorkloads);
    assert_eq!(app.selected_field(), None);
    let plan = app.plan.clone();
    assert!(run(&mut app, CommandId::Increase).is_empty());
    assert_eq!(app.plan, plan);
}
