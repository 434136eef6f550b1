//! The Forecast pane on the shipped sample: a growth step reshapes the kept fits in the same
//! update (no refit), shows what `gpuplan forecast` and the report compute for the same plan,
//! undoes as one edit and is saved; a horizon step asks the worker for a refit, and a stale fit
//! is dropped.

use std::sync::OnceLock;

use gpuplan::app::command::CommandId;
use gpuplan::app::field::{Field, ForecastField};
use gpuplan::app::key::{Key, KeyCode};
use gpuplan::app::{Action, App, Effect, PaneId, update};
use gpuplan::config::plan_file::{parse_plan, render_for_save};
use gpuplan::model::forecast::ForecastScope;
use gpuplan::model::workload::WorkloadClass;
use gpuplan::pipeline::Pipeline;
use gpuplan::pipeline::observer::Quiet;
use gpuplan::runtime::sample_workbench;
use gpuplan::runtime::worker::sources_of;

fn loaded() -> App {
    static LOADED: OnceLock<App> = OnceLock::new();
    LOADED
        .get_or_init(|| sample_workbench(None).expect("the sample audits"))
        .clone()
}

fn command(app: &mut App, id: CommandId) -> Vec<Effect> {
    update(app, Action::Command(id))
}

/// The app on the Forecast pane with the cursor on `field`.
fn on(field: Field) -> App {
    let mut app = loaded();
    update(&mut app, Action::FocusPane(PaneId::Forecast));
    let row = app.forecast_fields().iter().position(|f| *f == field).expect("a row");
    app.cursors.forecast_row = row;
    app
}

fn inference_last_mean(app: &App) -> f64 {
    let shown = app.forecast.shown.as_ref().expect("a forecast on screen");
    let inference = shown
        .classes
        .iter()
        .find(|c| c.class == WorkloadClass::Inference)
        .expect("inference");
    inference.forecast.daily.last().expect("days").mean_gpus
}

const INFERENCE_GROWTH: Field = Field::Forecast(ForecastField::Growth(WorkloadClass::Inference));

#[test]
fn the_workbench_fits_the_plans_horizon_once_the_fleet_lands() {
    let app = loaded();
    let fits = app.forecast.fits.as_ref().expect("fitted on load");
    assert_eq!(fits.horizon_days, 365);
    let shown = app.forecast.shown.as_ref().expect("shaped");
    assert_eq!(shown.classes.len(), 3);
    assert!(!app.forecast.working);
}

#[test]
fn a_growth_step_reshapes_in_the_same_update_without_a_refit_and_undoes_as_one_edit() {
    let mut app = on(INFERENCE_GROWTH);
    let before = inference_last_mean(&app);
    let fits_before = app.forecast.fits.clone();
    let start = app.field_value(INFERENCE_GROWTH).expect("the fit's factor");
    let mut effects = Vec::new();
    for _ in 0..5 {
        effects.extend(command(&mut app, CommandId::Increase));
    }
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::FitForecast { .. })),
        "a growth step must not refit: {effects:?}"
    );
    assert_eq!(app.forecast.fits, fits_before);
    let growth = app.plan.forecast.as_ref().and_then(|f| f.growth.inference);
    let expected = ((start + 0.5) * 10.0).round() / 10.0;
    assert_eq!(growth, Some(expected), "five tenth-steps from the fit's ×{start}");
    let after = inference_last_mean(&app);
    assert!(
        after > before,
        "×{expected} a year must raise the year's last day: {before} -> {after}"
    );
    assert!(app.modified, "a growth step is an unsaved edit");
    command(&mut app, CommandId::Undo);
    assert_eq!(app.plan.forecast, None, "five steps of one slider undo together");
    assert!((inference_last_mean(&app) - before).abs() < 1e-9);
}

#[test]
fn the_workbench_shows_what_the_pipeline_computes_for_the_same_plan() {
    let mut app = on(INFERENCE_GROWTH);
    for _ in 0..3 {
        command(&mut app, CommandId::IncreaseCoarse);
    }
    let mut pipeline = Pipeline::new(app.catalog.clone());
    let settings = app.audit_settings();
    pipeline
        .audit(&sources_of(&app.logs), &settings, &mut Quiet)
        .expect("the sample audits");
    let report = pipeline
        .forecast(&app.plan, None, ForecastScope::Fleet)
        .expect("forecast");
    assert_eq!(Some(&report), app.forecast.shown.as_ref());
}

#[test]
fn typing_fitted_gives_the_trend_back_to_the_fit() {
    let mut app = on(INFERENCE_GROWTH);
    command(&mut app, CommandId::Increase);
    assert!(app.plan.forecast.as_ref().and_then(|f| f.growth.inference).is_some());
    command(&mut app, CommandId::Edit);
    for _ in 0..10 {
        update(&mut app, Action::Key(Key::plain(KeyCode::Backspace)));
    }
    for c in "fitted".chars() {
        update(&mut app, Action::Key(Key::char(c)));
    }
    update(&mut app, Action::Key(Key::plain(KeyCode::Enter)));
    assert_eq!(app.plan.forecast.as_ref().and_then(|f| f.growth.inference), None);
}

#[test]
fn a_horizon_step_asks_for_a_refit_and_a_stale_fit_is_dropped() {
    let mut app = on(Field::Forecast(ForecastField::HorizonMonths));
    let effects = command(&mut app, CommandId::Increase);
    let generation = match effects.iter().find(|e| matches!(e, Effect::FitForecast { .. })) {
        Some(Effect::FitForecast {
            generation,
            horizon_days,
            ..
        }) => {
            assert_eq!(*horizon_days, 395, "13 months of 365/12 days");
            *generation
        }
        _ => panic!("no refit asked for: {effects:?}"),
    };
    assert!(app.forecast.working);
    // The old fits stay on screen, shaped by the new plan, until the new ones land.
    assert_eq!(app.forecast.shown.as_ref().map(|s| s.horizon_days), Some(365));
    let old = app.forecast.fits.clone().expect("fits");
    update(
        &mut app,
        Action::ForecastFitted {
            generation: generation - 1,
            fits: Box::new(old),
            selection: Vec::new(),
        },
    );
    assert!(app.forecast.working, "a superseded fit must not land");
    update(
        &mut app,
        Action::ForecastFailed {
            generation,
            message: "no audit".into(),
        },
    );
    assert!(!app.forecast.working);
    assert_eq!(app.forecast.error.as_deref(), Some("no audit"));
}

#[test]
fn growth_and_horizon_are_saved_in_the_plan_file_and_read_back() {
    let mut app = on(INFERENCE_GROWTH);
    command(&mut app, CommandId::IncreaseCoarse);
    app.cursors.forecast_row = 0;
    command(&mut app, CommandId::Increase);
    let original = app.plan_file.text.clone();
    let (text, note) = render_for_save(original.as_deref(), &app.plan).expect("renders");
    assert_eq!(note, None, "the built-in plan's own layout is kept");
    assert!(text.contains("[forecast]"), "{text}");
    let back = parse_plan("saved.toml", &text).expect("reads back");
    assert_eq!(back.forecast, app.plan.forecast);
    assert_eq!(back.forecast.as_ref().map(|f| f.horizon_months), Some(13));
    // An added table leaves the [training] run out, as the plan without it did.
    assert_eq!(back.forecast.as_ref().map(|f| f.training_run), Some(false));
}

#[test]
fn keeping_the_logs_incomplete_tail_asks_for_a_refit_and_only_that_once() {
    let mut app = loaded();
    assert!(
        app.request_forecast().is_none(),
        "the horizon's fit is already asked for"
    );
    let mut forecast = app.plan.forecast.clone().unwrap_or_default();
    forecast.keep_incomplete_tail = true;
    app.plan.forecast = Some(forecast);
    assert!(
        matches!(
            app.request_forecast(),
            Some(Effect::FitForecast { horizon_days: 365, .. })
        ),
        "a plan that keeps the tail is fitted with it"
    );
    assert!(app.request_forecast().is_none(), "asked once");
}
