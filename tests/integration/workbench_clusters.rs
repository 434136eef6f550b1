//! A cluster's price, capacity, term and deployment edited in the Workloads pane's cluster
//! drill on the shipped sample: keys step and type them as any other value, the plan file's
//! rules refuse what it would refuse, the audit runs again through the pipeline for a price or
//! a capacity, the contract matching follows a term or a deployment, undo brings the plan
//! back, and a save rewrites only the cluster's lines.

use std::sync::OnceLock;

use crate::common::settle;

use gpuplan::app::command::CommandId;
use gpuplan::app::field::{ClusterField, Field};
use gpuplan::app::key::{Key, KeyCode};
use gpuplan::app::{Action, App, Effect, Overlay, PaneId, WorkloadsView, cluster_classes, update};
use gpuplan::config::plan_edit::save_plan_preserving;
use gpuplan::config::plan_file::parse_plan;
use gpuplan::model::catalog::Term;
use gpuplan::model::deployment::Deployment;
use gpuplan::pipeline::Pipeline;
use gpuplan::runtime::sample_workbench;

fn loaded() -> App {
    static LOADED: OnceLock<App> = OnceLock::new();
    LOADED
        .get_or_init(|| sample_workbench(None).expect("the sample audits"))
        .clone()
}

fn command(app: &mut App, id: CommandId) -> Vec<Effect> {
    update(app, Action::Command(id))
}

fn press(app: &mut App, key: Key) -> Vec<Effect> {
    update(app, Action::Key(key))
}

fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
    press(app, Key::ctrl('u'));
    for c in text.chars() {
        press(app, Key::char(c));
    }
    press(app, Key::plain(KeyCode::Enter))
}

/// The sample's first cluster, `ap-south-h100`: its index in the plan.
fn ap_south(app: &App) -> usize {
    app.plan
        .clusters
        .iter()
        .position(|c| c.name == "ap-south-h100")
        .expect("the built-in plan lists it")
}

/// The workbench drilled into the first cluster with the cursor on one of its plan values,
/// reached by keys: Enter, then Down past the classes.
fn on(value: fn(usize) -> ClusterField) -> App {
    let mut app = loaded();
    update(&mut app, Action::FocusPane(PaneId::Workloads));
    press(&mut app, Key::plain(KeyCode::Enter));
    assert_eq!(app.workloads_view, WorkloadsView::Cluster { cluster: 0 });
    let wanted = Field::Cluster(value(ap_south(&app)));
    let rows = cluster_classes(&app, 0).len() + 4;
    for _ in 0..rows {
        if app.selected_field() == Some(wanted) {
            return app;
        }
        press(&mut app, Key::plain(KeyCode::Down));
    }
    panic!("{wanted:?} is not a row of the cluster drill");
}

fn stranded_usd_per_month(app: &App) -> f64 {
    app.fleet.as_ref().expect("a fleet").report.clusters[0]
        .spend_parts
        .stranded_usd_per_month
        .expect("the sample reports utilization")
}

#[test]
fn a_clusters_plan_values_are_rows_after_its_classes_and_enter_still_drills_into_a_class() {
    let mut app = loaded();
    press(&mut app, Key::plain(KeyCode::Enter));
    assert_eq!(app.selected_field(), None, "the cursor starts on the first class");
    let i = ap_south(&app);
    let classes = cluster_classes(&app, 0).len();
    let mut seen = Vec::new();
    for _ in 0..classes + 4 {
        seen.extend(app.selected_field());
        press(&mut app, Key::plain(KeyCode::Down));
    }
    assert_eq!(
        seen,
        ClusterField::all(i).map(Field::Cluster),
        "each value once, in order"
    );
    press(&mut app, Key::plain(KeyCode::Down));
    assert_eq!(
        app.selected_field(),
        Some(Field::Cluster(ClusterField::Deployment(i))),
        "the last row"
    );
    // Enter on a value types it, as on the other panes; on a class it drills in.
    press(&mut app, Key::plain(KeyCode::Enter));
    assert!(
        matches!(app.overlay, Overlay::Entry { field: Field::Cluster(ClusterField::Deployment(_)), ref text, .. } if text == "VM")
    );
    press(&mut app, Key::plain(KeyCode::Esc));
    for _ in 0..classes + 6 {
        press(&mut app, Key::plain(KeyCode::Up));
    }
    press(&mut app, Key::plain(KeyCode::Enter));
    assert!(matches!(app.workloads_view, WorkloadsView::Class { cluster: 0, .. }));
}

#[test]
fn a_price_step_audits_again_through_the_pipeline_and_every_figure_follows() {
    let mut app = on(ClusterField::UsdPerGpuHour);
    let i = ap_south(&app);
    let price = app.plan.clusters[i].usd_per_gpu_hour;
    let stranded = stranded_usd_per_month(&app);
    let generation = app.generation;
    let effects = press(&mut app, Key::plain(KeyCode::Right));
    assert!((app.plan.clusters[i].usd_per_gpu_hour - price * 1.05).abs() < 1e-9);
    assert!(app.modified && app.plan_title().contains('*'));
    let [
        Effect::Reaudit {
            generation: asked,
            settings,
        },
    ] = effects.as_slice()
    else {
        panic!("a price is what the audit reads: {effects:?}");
    };
    assert_eq!(*asked, generation + 1);
    let priced = settings
        .clusters
        .iter()
        .find(|c| c.name == "ap-south-h100")
        .expect("priced");
    assert_eq!(priced.usd_per_gpu_hour, app.plan.clusters[i].usd_per_gpu_hour);
    let mut pipeline = Pipeline::new(app.catalog.clone());
    settle(&mut app, &mut pipeline, effects);
    // Stranded spend is paid-for idle time: it scales with the price.
    let after = stranded_usd_per_month(&app);
    assert!(
        (after - stranded * 1.05).abs() < 1e-6 * stranded,
        "{stranded} -> {after}"
    );
    let cluster = &app.fleet.as_ref().expect("a fleet").report.clusters[0];
    assert_eq!(cluster.usd_per_gpu_hour, app.plan.clusters[i].usd_per_gpu_hour);
    // The same contract matching `gpuplan` computes for the same plan.
    assert_eq!(pipeline.contracts(&app.plan), app.derived.contracts);
}

#[test]
fn capacity_steps_by_a_gpu_or_a_node_zero_is_refused_and_a_fraction_is_kept() {
    let mut app = on(ClusterField::Gpus);
    let i = ap_south(&app);
    let gpus = app.plan.clusters[i].gpus;
    command(&mut app, CommandId::IncreaseCoarse);
    command(&mut app, CommandId::Decrease);
    assert_eq!(app.plan.clusters[i].gpus, gpus + 7.0);
    assert_eq!(app.history.undo.len(), 1, "steps of one value undo together");
    let mut pipeline = Pipeline::new(app.catalog.clone());
    let effects = command(&mut app, CommandId::Increase);
    settle(&mut app, &mut pipeline, effects);
    let cluster = &app.fleet.as_ref().expect("a fleet").report.clusters[0];
    assert_eq!(cluster.capacity_gpus, gpus + 8.0);
    let planned = app.plan.clusters[i].clone();
    for (typed, why) in [
        ("0", "clusters[3].gpus must be between 1 GPU and 10,000,000 GPUs"),
        ("-8", "clusters[3].gpus must be between 1 GPU and 10,000,000 GPUs"),
        ("many", "'many' is not a number"),
    ] {
        command(&mut app, CommandId::Edit);
        let effects = type_text(&mut app, typed);
        assert!(effects.is_empty(), "{typed}: {effects:?}");
        match &app.overlay {
            Overlay::Entry { error: Some(error), .. } => assert_eq!(error, why, "{typed}"),
            other => panic!("{typed} must be refused: {other:?}"),
        }
        assert_eq!(app.plan.clusters[i], planned, "{typed} never reaches the plan");
        press(&mut app, Key::plain(KeyCode::Esc));
    }
    // Steps stop at one GPU: never zero.
    for _ in 0..40 {
        command(&mut app, CommandId::DecreaseCoarse);
    }
    assert_eq!(app.plan.clusters[i].gpus, 1.0);
    assert!(app.plan.problems(&app.catalog).is_empty());
    // A capacity of shared GPUs is kept as typed, never rounded to a count.
    command(&mut app, CommandId::Edit);
    type_text(&mut app, "65.59");
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.plan.clusters[i].gpus, 65.59);
    assert!(app.plan.problems(&app.catalog).is_empty());
    command(&mut app, CommandId::Edit);
    type_text(&mut app, "2k");
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.plan.clusters[i].gpus, 2_000.0);
}

#[test]
fn a_negative_price_is_refused_and_never_stored() {
    let mut app = on(ClusterField::UsdPerGpuHour);
    let i = ap_south(&app);
    let price = app.plan.clusters[i].usd_per_gpu_hour;
    command(&mut app, CommandId::Edit);
    assert!(matches!(&app.overlay, Overlay::Entry { text, .. } if text == "6.88"));
    type_text(&mut app, "-2.50");
    match &app.overlay {
        Overlay::Entry { error: Some(error), .. } => assert_eq!(
            error,
            "clusters[3].usd_per_gpu_hour must be between $0.01/h and $10,000/h"
        ),
        other => panic!("a negative price must be refused: {other:?}"),
    }
    assert_eq!(app.plan.clusters[i].usd_per_gpu_hour, price);
    assert!(!app.modified);
    type_text(&mut app, "$5.25");
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.plan.clusters[i].usd_per_gpu_hour, 5.25);
}

#[test]
fn a_term_is_a_choice_that_moves_the_contract_matching_at_once_and_audits_again() {
    let mut app = on(ClusterField::Term);
    let i = ap_south(&app);
    assert_eq!(app.plan.clusters[i].term, Term::OnDemand);
    let today = |app: &App| {
        let contracts = app.derived.contracts.as_ref().expect("contracts");
        let cluster = contracts
            .fleet
            .iter()
            .find(|c| c.name == "ap-south-h100")
            .expect("today");
        (cluster.term, contracts.term_mix_usd_per_month)
    };
    let (term_before, _) = today(&app);
    let effects = press(&mut app, Key::plain(KeyCode::Right));
    assert_eq!(app.plan.clusters[i].term, Term::Monthly);
    assert!(
        effects.iter().any(|e| matches!(e, Effect::Reaudit { .. })),
        "the audit's commitment flag reads the term: {effects:?}"
    );
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::LoadFleet { .. })),
        "a term never reloads the fleet: {effects:?}"
    );
    let (term_after, _) = today(&app);
    assert_ne!(
        term_before, term_after,
        "the matching reads the plan's term in the same update"
    );
    // Steps stop at the ends of the list; typing takes a name.
    for _ in 0..10 {
        command(&mut app, CommandId::Increase);
    }
    assert_eq!(app.plan.clusters[i].term, Term::ThreeYear);
    command(&mut app, CommandId::Edit);
    type_text(&mut app, "forever");
    match &app.overlay {
        Overlay::Entry { error: Some(error), .. } => {
            assert_eq!(
                error,
                "'forever' is not one of: spot, on-demand, monthly, 1-year, 3-year"
            )
        }
        other => panic!("not a term: {other:?}"),
    }
    type_text(&mut app, "1 year");
    assert_eq!(app.plan.clusters[i].term, Term::OneYear);
}

#[test]
fn a_deployment_moves_the_delivered_price_and_undo_brings_the_plan_back() {
    let mut app = on(ClusterField::Deployment);
    let i = ap_south(&app);
    let original = app.plan.clone();
    let effective = |app: &App| {
        let contracts = app.derived.contracts.as_ref().expect("contracts");
        let cluster = contracts
            .fleet
            .iter()
            .find(|c| c.name == "ap-south-h100")
            .expect("today");
        (cluster.deployment, cluster.effective_usd_per_gpu_hour())
    };
    let (_, vm_price) = effective(&app);
    command(&mut app, CommandId::Increase);
    command(&mut app, CommandId::Increase);
    assert_eq!(app.plan.clusters[i].deployment, Deployment::BareMetal);
    let (deployment, metal_price) = effective(&app);
    assert_eq!(deployment, Deployment::BareMetal);
    assert!(metal_price < vm_price, "bare metal delivers more of each GPU-hour");
    assert!(app.modified);
    command(&mut app, CommandId::Undo);
    assert_eq!(app.plan, original);
    assert!(!app.modified, "back to the plan as opened");
    assert_eq!(effective(&app), (Deployment::Vm, vm_price));
    command(&mut app, CommandId::Redo);
    assert_eq!(app.plan.clusters[i].deployment, Deployment::BareMetal);
}

#[test]
fn a_save_after_cluster_edits_rewrites_only_their_lines_and_keeps_the_comments() {
    let mut app = on(ClusterField::UsdPerGpuHour);
    let i = ap_south(&app);
    let original = app.plan_file.text.clone().expect("the built-in plan's text");
    let folder = tempfile::tempdir().expect("a folder");
    let file = folder.path().join("plan.toml");
    std::fs::write(&file, &original).expect("the plan as written");
    app.plan_file.path = Some(file.clone());
    command(&mut app, CommandId::Edit);
    type_text(&mut app, "7.5");
    command(&mut app, CommandId::Down);
    command(&mut app, CommandId::IncreaseCoarse);
    command(&mut app, CommandId::Down);
    command(&mut app, CommandId::Increase);
    let effects = command(&mut app, CommandId::Save);
    let [
        Effect::SavePlan {
            path,
            plan,
            original_text,
            ..
        },
    ] = effects.as_slice()
    else {
        panic!("a save of the open file: {effects:?}");
    };
    assert_eq!((path, &**plan), (&file, &app.plan));
    // What the runtime does with the effect.
    save_plan_preserving(path, original_text.as_deref(), plan).expect("saved");
    let saved = std::fs::read_to_string(&file).expect("the saved file");
    let changed: Vec<(&str, &str)> = original.lines().zip(saved.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(original.lines().count(), saved.lines().count());
    assert_eq!(
        changed,
        [
            (
                "gpus = 136                       # 17 × p5.48xlarge on demand",
                "gpus = 144                       # 17 × p5.48xlarge on demand"
            ),
            (
                "usd_per_gpu_hour = 6.88          # $55.04/instance-h / 8 (the us-east-1 list price; Mumbai lists higher)",
                "usd_per_gpu_hour = 7.5           # $55.04/instance-h / 8 (the us-east-1 list price; Mumbai lists higher)"
            ),
            ("term = \"on-demand\"", "term = \"monthly\""),
        ]
    );
    assert_eq!(
        parse_plan("saved.toml", &saved).expect("reads back").clusters[i],
        app.plan.clusters[i]
    );
}
