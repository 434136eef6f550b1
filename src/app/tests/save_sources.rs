//! A save names the data the workbench reads; a plan with no file asks where to go; a plan
//! whose logs are missing shows its own figures and no stand-in fleet.

use super::*;

fn saved_plan(effects: &[Effect]) -> &Plan {
    match effects {
        [Effect::SavePlan { plan, .. }] | [Effect::SavePlanTo { plan, .. }] => plan,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_save_names_the_logs_mapping_and_layout_the_workbench_reads() {
    let mut app = app_on(
        LogInputs {
            paths: vec![PathBuf::from("runs/jobs.csv")],
            mapping: Some(PathBuf::from("runs/jobs.mapping.toml")),
            input_format: Some("csv".to_string()),
            time_origin: Some("2025-01-06T00:00:00Z".to_string()),
            missing: vec![PathBuf::from("/gone/old.csv")],
            ..LogInputs::default()
        },
        Some("/plans/seed.toml"),
    );
    assert!(app.plan.logs.is_empty());
    let effects = run(&mut app, CommandId::Save);
    let logs = &saved_plan(&effects).logs;
    let named: Vec<(&str, Option<&str>, Option<&str>)> = logs
        .iter()
        .map(|l| (l.path.as_str(), l.mapping.as_deref(), l.format.as_deref()))
        .collect();
    assert_eq!(
        named,
        [
            ("runs/jobs.csv", Some("runs/jobs.mapping.toml"), Some("csv")),
            // A log missing when the plan was opened stays named: the save does not drop it.
            ("/gone/old.csv", Some("runs/jobs.mapping.toml"), Some("csv")),
        ]
    );
    // `--time-origin` is a source too: a plan of relative seconds reopens on the same origin.
    assert!(
        logs.iter()
            .all(|l| l.time_origin.as_deref() == Some("2025-01-06T00:00:00Z")),
        "{logs:?}"
    );
}

#[test]
fn a_save_names_the_live_sources_and_never_the_shipped_sample() {
    let prometheus = crate::model::plan::PrometheusSource {
        url: "http://prometheus:9090".to_string(),
        cluster_label: "cluster".to_string(),
        step_seconds: 3600,
        timeout_seconds: 30,
        token_env: None,
    };
    let mut app = app_on(
        LogInputs {
            paths: vec![PathBuf::from("/shipped/jobs-90d.csv")],
            shipped_sample: true,
            prometheus: Some(prometheus.clone()),
            ..LogInputs::default()
        },
        Some("/plans/seed.toml"),
    );
    let effects = run(&mut app, CommandId::Save);
    let plan = saved_plan(&effects);
    assert!(plan.logs.is_empty(), "{:?}", plan.logs);
    assert_eq!(plan.prometheus, Some(prometheus));
}

#[test]
fn ctrl_s_without_a_plan_file_asks_for_a_path_and_tab_completes_it() {
    let mut app = app_on(
        LogInputs {
            paths: vec![PathBuf::from("jobs.csv")],
            ..LogInputs::default()
        },
        None,
    );
    assert!(run(&mut app, CommandId::Save).is_empty());
    assert!(matches!(&app.overlay, Overlay::SaveAs { text, .. } if text == "plan.toml"));
    press(&mut app, Key::ctrl('u'));
    for c in "scen".chars() {
        press(&mut app, Key::char(c));
    }
    assert_eq!(
        press(&mut app, Key::plain(KeyCode::Tab)),
        vec![Effect::CompleteSavePath {
            typed: "scen".to_string()
        }]
    );
    update(
        &mut app,
        Action::SavePathCompleted {
            typed: "scen".to_string(),
            text: "scenarios/".to_string(),
            choices: Vec::new(),
        },
    );
    assert!(matches!(&app.overlay, Overlay::SaveAs { text, .. } if text == "scenarios/"));
    // A completion of text typed on since is dropped.
    update(
        &mut app,
        Action::SavePathCompleted {
            typed: "scen".to_string(),
            text: "scenery/".to_string(),
            choices: Vec::new(),
        },
    );
    assert!(matches!(&app.overlay, Overlay::SaveAs { text, .. } if text == "scenarios/"));
    for c in "q3".chars() {
        press(&mut app, Key::char(c));
    }
    let effects = press(&mut app, Key::plain(KeyCode::Enter));
    assert!(matches!(&effects[..], [Effect::SavePlanTo { typed, .. }] if typed == "scenarios/q3"));
    assert_eq!(saved_plan(&effects).logs[0].path, "jobs.csv");
    // A folder that is not there: the dialog again, the reason in it.
    update(
        &mut app,
        Action::SavePathRefused {
            typed: "scenarios/q3".to_string(),
            message: "not saved: the folder scenarios does not exist".to_string(),
        },
    );
    assert!(
        matches!(&app.overlay, Overlay::SaveAs { text, error: Some(e), .. } if text == "scenarios/q3" && e.contains("does not exist"))
    );
    press(&mut app, Key::plain(KeyCode::Esc));
    update(
        &mut app,
        Action::PlanSaved {
            path: PathBuf::from("/work/plan.toml"),
            text: "saved".to_string(),
            note: None,
        },
    );
    assert_eq!(app.written, Some(PathBuf::from("/work/plan.toml")));
    assert_eq!(app.plan_file.path, Some(PathBuf::from("/work/plan.toml")));
    assert!(matches!(&app.banner, Some(b) if b.text.contains("/work/plan.toml")));
}

#[test]
fn a_plan_whose_logs_are_all_missing_reads_no_stand_in_fleet() {
    let mut app = app_on(
        LogInputs {
            missing: vec![PathBuf::from("/gone/jobs.csv")],
            ..LogInputs::default()
        },
        Some("/plans/seed.toml"),
    );
    let effects = app.start();
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::LoadFleet { .. })),
        "{effects:?}"
    );
    assert!(matches!(&app.fleet_status, FleetStatus::Failed { message } if message.contains("/gone/jobs.csv")));
    // The plan's own figures are still there.
    assert!(app.derived.problems.is_empty());
}
