//! The one mutation path: every key, click and runtime result goes through `update`.

mod compare;
mod confirm_quit;
mod conflict;
mod entry;
mod help;
mod palette;
mod plan_file;
mod recover;
mod save_as;

use plan_file::{is_plan_file, plan_being_written, plan_changed_on_disk, plan_read_only, save, save_found_change};

use super::command::CommandId;
use super::field::{Field, INFERENCE_FIELDS};
use super::key::{Key, KeyCode};
use super::palette::{PaletteMode, PaletteState};
use super::{Action, App, Banner, BannerLevel, Effect, FleetStatus, Overlay, PaneId, ScrollBy, WorkloadsView};
use crate::model::plan::{ClusterCost, Plan};
use crate::model::workload::WorkloadClass;

const UNDO_DEPTH: usize = 500;

fn is_step(id: CommandId) -> bool {
    matches!(
        id,
        CommandId::Increase | CommandId::Decrease | CommandId::IncreaseCoarse | CommandId::DecreaseCoarse
    )
}

/// Whether `update` would leave the app as it is, so the screen needs no new frame: a key that
/// no overlay takes and no command is bound to, a worker's result for a superseded request, a
/// change on disk to a file other than the plan's.
pub fn changes_nothing(app: &App, action: &Action) -> bool {
    match action {
        Action::Key(key) => app.overlay == Overlay::None && app.command_for(*key).is_none(),
        Action::FleetStarted { generation, .. }
        | Action::FleetLoaded { generation, .. }
        | Action::FleetFailed { generation, .. } => *generation != app.generation,
        Action::ReplayLoaded { generation, .. } | Action::ReplayFailed { generation, .. } => {
            *generation != app.replay.generation
        }
        Action::ComparisonLoaded { generation, .. } | Action::ComparisonFailed { generation, .. } => {
            *generation != app.comparing.generation
        }
        Action::ForecastFitted { generation, .. } | Action::ForecastFailed { generation, .. } => {
            *generation != app.forecast.generation
        }
        Action::PlanChangedOnDisk { path, .. }
        | Action::PlanInvalidOnDisk { path, .. }
        | Action::PlanBeingWritten { path } => !is_plan_file(app, path),
        _ => false,
    }
}

pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    // Steps of one field in a row undo together; anything else in between ends the run.
    // (Keys are judged by the command they become, in `command`.)
    if !matches!(action, Action::Key(_) | Action::Command(_) | Action::SetField { .. }) {
        app.history.last_field = None;
    }
    // Superseded results, unbound keys and other files' changes: one place decides.
    if changes_nothing(app, &action) {
        return Vec::new();
    }
    match action {
        Action::Key(key) => key_pressed(app, key),
        Action::Command(id) => command(app, id),
        Action::FocusPane(pane) => {
            app.focus = pane;
            Vec::new()
        }
        Action::Scroll { pane, lines } => vec![Effect::Scroll {
            pane,
            by: ScrollBy::Lines(lines),
        }],
        Action::SetField { field, value } => {
            // A click on a slider also selects it.
            if let Field::Mfu(index) = field {
                app.focus = PaneId::Mfu;
                app.cursors.accelerator = index;
            }
            if let Some(row) = app.forecast_fields().iter().position(|f| *f == field) {
                app.focus = PaneId::Forecast;
                app.cursors.forecast_row = row;
            }
            edit(app, field, value)
        }
        Action::FleetStarted { generation, what } => {
            app.fleet_status = FleetStatus::Working { generation, what };
            Vec::new()
        }
        Action::FleetLoaded { fleet, .. } => {
            let names = |f: &crate::app::Fleet| f.report.clusters.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
            if app.fleet.as_ref().map(names) != Some(names(&fleet)) {
                // Drills point at clusters by position: other clusters, start from the fleet.
                app.workloads_view = WorkloadsView::Fleet;
                app.cursors.drill_row = 0;
            }
            let notices = fleet.read_notices();
            if let Some(warning) = &fleet.warning {
                banner(
                    app,
                    BannerLevel::Error,
                    format!("{warning} — the logs' own figures stand until it answers"),
                );
            } else if let Some(text) =
                crate::app::read_notices::banner_text(&notices, &app.keymap.hint(CommandId::ReadNotices))
            {
                banner(app, BannerLevel::Warning, text);
            }
            app.fleet = Some(*fleet);
            app.fleet_status = FleetStatus::Idle;
            app.derived
                .refresh_contracts(&app.plan, &app.catalog, app.fleet.as_ref().map(|f| &f.report));
            clamp_cursors(app);
            // A new audit: the replay runs again on its jobs, the forecast fits its series.
            app.replay.requested = None;
            app.forecast.requested = None;
            app.request_forecast()
                .into_iter()
                .chain(app.request_replay())
                .chain(app.request_comparison())
                .collect()
        }
        Action::ComparisonLoaded {
            comparison, warnings, ..
        } => {
            app.comparison_loaded(*comparison, warnings);
            Vec::new()
        }
        Action::ComparisonFailed { message, .. } => {
            app.comparing.working = false;
            app.comparing.error = Some(message);
            Vec::new()
        }
        Action::ForecastFitted { fits, selection, .. } => {
            app.forecast_fitted(*fits, selection);
            Vec::new()
        }
        Action::ForecastFailed { message, .. } => {
            app.forecast.working = false;
            app.forecast.error = Some(message);
            Vec::new()
        }
        Action::ReplayLoaded { report, .. } => {
            app.replay.result = Some(*report);
            app.replay.working = false;
            app.replay.error = None;
            Vec::new()
        }
        Action::ReplayFailed { message, .. } => {
            app.replay.working = false;
            app.replay.error = Some(message);
            Vec::new()
        }
        Action::ReportExported { json, markdown } => {
            banner(
                app,
                BannerLevel::Info,
                format!("report written: {} and {}", json.display(), markdown.display()),
            );
            Vec::new()
        }
        Action::ExportFailed { message } => {
            banner(app, BannerLevel::Error, message);
            Vec::new()
        }
        Action::FleetFailed { message, .. } => {
            app.fleet_status = FleetStatus::Failed {
                message: message.clone(),
            };
            banner(app, BannerLevel::Error, message);
            Vec::new()
        }
        Action::PlanChangedOnDisk { plan, text, .. } => plan_changed_on_disk(app, *plan, text),
        Action::PlanBeingWritten { .. } => plan_being_written(app),
        Action::SaveFoundChange { path, plan, text } => save_found_change(app, &path, *plan, text),
        Action::PlanReadOnly { path } => plan_read_only(app, path),
        Action::PlanInvalidOnDisk { message, .. } => {
            app.disk_error = Some(message.clone());
            banner(
                app,
                BannerLevel::Error,
                format!("{message} — the last good plan stays on screen until the file is fixed"),
            );
            Vec::new()
        }
        Action::PlanOpened { path, plan, text } => {
            if app.modified {
                banner(
                    app,
                    BannerLevel::Warning,
                    "the plan has unsaved edits: save them (or undo them) before opening another".to_string(),
                );
                return Vec::new();
            }
            app.plan_file.path = Some(path.clone());
            app.plan_file.text = Some(text);
            app.history = Default::default();
            let effects = replace_plan(app, *plan);
            banner(app, BannerLevel::Info, format!("opened {}", path.display()));
            effects.into_iter().chain([Effect::WatchPlan { path }]).collect()
        }
        Action::PlanSaved { path, text, note } => {
            let moved = app.plan_file.path.as_ref() != Some(&path);
            app.plan_file.path = Some(path.clone());
            app.plan_file.text = Some(text);
            app.saved = app.plan.clone();
            app.modified = false;
            app.written = Some(path.clone());
            match note {
                Some(note) => banner(app, BannerLevel::Warning, format!("saved {}: {note}", path.display())),
                None => banner(app, BannerLevel::Info, format!("saved {}", path.display())),
            }
            if !app.known_plans.contains(&path) {
                app.known_plans.push(path.clone());
            }
            if app.quit_after_save {
                app.quit = true;
                return vec![Effect::Quit];
            }
            if moved {
                vec![Effect::WatchPlan { path }]
            } else {
                Vec::new()
            }
        }
        Action::Failed { message } => {
            app.quit_after_save = false;
            banner(app, BannerLevel::Error, message);
            Vec::new()
        }
        Action::SavePathRefused { typed, message } => save_as::refused(app, typed, message),
        Action::SavePathCompleted { typed, text, choices } => save_as::completed(app, &typed, text, choices),
        Action::ComparePlanLoaded { label, plan } => {
            app.compare.retain(|(l, _)| *l != label);
            app.compare.push((label, *plan));
            let effects = refresh_comparison(app);
            let from_conflict = match std::mem::replace(&mut app.overlay, Overlay::None) {
                Overlay::Compare { from_conflict, .. } => from_conflict,
                _ => None,
            };
            app.overlay = Overlay::Compare {
                from_conflict,
                scroll: 0,
                column: 0,
            };
            effects
        }
        Action::FilesListed { files } => {
            app.known_files = files;
            Vec::new()
        }
        Action::RecoveryFound(recovery) => recover::found(app, *recovery),
    }
}

fn banner(app: &mut App, level: BannerLevel, text: String) {
    app.banner = Some(Banner { level, text });
}

/// Each overlay owns its keys (`update/<overlay>.rs`); with none open, a key is a command.
fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    match app.overlay {
        Overlay::Entry { .. } => entry::key_pressed(app, key),
        Overlay::SaveAs { .. } => save_as::key_pressed(app, key),
        Overlay::Palette(_) => palette::key_pressed(app, key),
        Overlay::ConfirmQuit => confirm_quit::key_pressed(app, key),
        Overlay::Conflict(_) => conflict::key_pressed(app, key),
        Overlay::Recover => recover::key_pressed(app, key),
        Overlay::Compare { .. } => compare::key_pressed(app, key),
        Overlay::Help { .. } | Overlay::ReadNotices { .. } => help::key_pressed(app, key),
        Overlay::None => match app.command_for(key) {
            Some(id) => command(app, id),
            None => Vec::new(),
        },
    }
}

fn edit_text(text: &mut String, key: Key) {
    match key.code {
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Char('u') if key.ctrl => text.clear(),
        KeyCode::Char(c) if !key.ctrl && !key.alt && text.chars().count() < 200 => text.push(c),
        _ => {}
    }
}

fn command(app: &mut App, id: CommandId) -> Vec<Effect> {
    if !is_step(id) {
        app.history.last_field = None;
    }
    // Replacing a read-only file is confirmed by the very next command being a save.
    if id != CommandId::Save {
        app.replace_read_only = None;
    }
    match id {
        CommandId::Quit => {
            if app.modified {
                app.overlay = Overlay::ConfirmQuit;
                Vec::new()
            } else {
                app.quit = true;
                vec![Effect::Quit]
            }
        }
        CommandId::Help => {
            app.overlay = Overlay::Help { scroll: 0 };
            Vec::new()
        }
        CommandId::ReadNotices => {
            if app.fleet.as_ref().is_some_and(|f| !f.read_notices().is_empty()) {
                app.overlay = Overlay::ReadNotices { scroll: 0 };
            } else {
                banner(
                    app,
                    BannerLevel::Info,
                    "reading the logs said nothing to heed".to_string(),
                );
            }
            Vec::new()
        }
        CommandId::Palette => {
            app.overlay = Overlay::Palette(PaletteState::new(PaletteMode::All));
            vec![Effect::ListFiles]
        }
        CommandId::OpenFile => {
            app.overlay = Overlay::Palette(PaletteState::new(PaletteMode::Files));
            vec![Effect::ListFiles]
        }
        CommandId::Compare => {
            app.overlay = Overlay::Palette(PaletteState::new(PaletteMode::Compare));
            vec![Effect::ListFiles]
        }
        CommandId::NextPane => focus(app, app.focus.offset(1)),
        CommandId::PrevPane => focus(app, app.focus.offset(-1)),
        CommandId::FocusWorkloads => focus(app, PaneId::Workloads),
        CommandId::FocusMfu => focus(app, PaneId::Mfu),
        CommandId::FocusInference => focus(app, PaneId::Inference),
        CommandId::FocusRisk => focus(app, PaneId::Risk),
        CommandId::FocusContracts => focus(app, PaneId::Contracts),
        CommandId::FocusForecast => focus(app, PaneId::Forecast),
        CommandId::Up => move_cursor(app, -1),
        CommandId::Down => move_cursor(app, 1),
        CommandId::PageUp => scroll(app, ScrollBy::Pages(-1)),
        CommandId::PageDown => scroll(app, ScrollBy::Pages(1)),
        CommandId::ScrollTop => scroll(app, ScrollBy::Top),
        CommandId::ScrollBottom => scroll(app, ScrollBy::Bottom),
        CommandId::Zoom => {
            app.zoomed = !app.zoomed;
            Vec::new()
        }
        CommandId::Decrease => step(app, -1, false),
        CommandId::Increase => step(app, 1, false),
        CommandId::DecreaseCoarse => step(app, -1, true),
        CommandId::IncreaseCoarse => step(app, 1, true),
        CommandId::Edit => {
            begin_entry(app);
            Vec::new()
        }
        CommandId::Drill => {
            if app.focus == PaneId::Workloads {
                return drill(app);
            }
            begin_entry(app);
            Vec::new()
        }
        CommandId::Back => {
            // The innermost first: a drill, then the zoom, then the banner.
            if app.focus == PaneId::Workloads && app.workloads_view != WorkloadsView::Fleet {
                back(app);
            } else if app.zoomed {
                app.zoomed = false;
            } else {
                app.banner = None;
            }
            Vec::new()
        }
        CommandId::Save => save(app),
        CommandId::SaveAs => {
            app.overlay = Overlay::SaveAs {
                text: save_as::suggested_path(app),
                error: None,
                choices: Vec::new(),
            };
            Vec::new()
        }
        CommandId::Undo => undo(app),
        CommandId::Redo => redo(app),
        CommandId::NextTheme => {
            app.theme = (app.theme + 1) % app.theme_names.len().max(1);
            Vec::new()
        }
        CommandId::Reload => vec![app.request_fleet()],
        CommandId::ExportReport => {
            let waiting = match (&app.fleet_status, app.replay.working) {
                (FleetStatus::Working { .. }, _) => " (waiting for the audit to finish)",
                (_, true) => " (waiting for the replay to finish)",
                _ => "",
            };
            banner(app, BannerLevel::Info, format!("exporting the report{waiting}…"));
            vec![Effect::ExportReport {
                plan: Box::new(app.plan.clone()),
                unsaved_edits: app.modified,
            }]
        }
    }
}

fn focus(app: &mut App, pane: PaneId) -> Vec<Effect> {
    app.focus = pane;
    Vec::new()
}

fn cluster_count(app: &App) -> usize {
    app.fleet.as_ref().map_or(0, |f| f.report.clusters.len())
}

/// The classes a cluster drill lists: those with jobs.
pub fn cluster_classes(app: &App, cluster: usize) -> Vec<WorkloadClass> {
    let Some(c) = app.fleet.as_ref().and_then(|f| f.report.clusters.get(cluster)) else {
        return Vec::new();
    };
    WorkloadClass::ALL
        .into_iter()
        .filter(|class| c.classes.get(*class).jobs > 0)
        .collect()
}

/// The largest jobs of a cluster and class that the audit kept, largest first.
pub fn class_jobs(app: &App, cluster: usize, class: WorkloadClass) -> Vec<&crate::model::fleet::JobLine> {
    let Some(fleet) = &app.fleet else {
        return Vec::new();
    };
    let Some(name) = fleet.report.clusters.get(cluster).map(|c| &c.name) else {
        return Vec::new();
    };
    fleet
        .report
        .top_jobs
        .iter()
        .filter(|j| &j.cluster == name && j.class == class)
        .collect()
}

fn scroll(app: &App, by: ScrollBy) -> Vec<Effect> {
    vec![Effect::Scroll { pane: app.focus, by }]
}

/// Moves the focused pane's selection; where there is nothing further to select (the last
/// row, a job's detail), the pane scrolls a line instead, so the arrows reach every line.
fn move_cursor(app: &mut App, by: isize) -> Vec<Effect> {
    let before = app.cursors;
    let view = app.workloads_view;
    select(app, by);
    if app.cursors == before && app.workloads_view == view {
        scroll(app, ScrollBy::Lines(if by < 0 { -1 } else { 1 }))
    } else {
        Vec::new()
    }
}

fn select(app: &mut App, by: isize) {
    let moved = |value: usize, count: usize| -> usize {
        if count == 0 {
            0
        } else {
            (value as isize + by).clamp(0, count as isize - 1) as usize
        }
    };
    match app.focus {
        PaneId::Workloads => match app.workloads_view {
            WorkloadsView::Fleet => app.cursors.cluster = moved(app.cursors.cluster, cluster_count(app)),
            WorkloadsView::Cluster { cluster } => {
                let count = cluster_classes(app, cluster).len() + app.cluster_value_rows(cluster);
                app.cursors.drill_row = moved(app.cursors.drill_row, count);
            }
            WorkloadsView::Class { cluster, class } => {
                let count = class_jobs(app, cluster, class).len();
                app.cursors.drill_row = moved(app.cursors.drill_row, count);
            }
            WorkloadsView::Job { .. } => {}
        },
        PaneId::Mfu => app.cursors.accelerator = moved(app.cursors.accelerator, app.plan.accelerators.len()),
        PaneId::Risk => app.cursors.risk_cell = moved(app.cursors.risk_cell, app.risk_fields().len()),
        PaneId::Inference => app.cursors.inference_field = moved(app.cursors.inference_field, INFERENCE_FIELDS.len()),
        PaneId::Contracts => {
            let count = app.derived.contracts.as_ref().map_or(0, |c| c.classes.len());
            app.cursors.contract_class = moved(app.cursors.contract_class, count);
        }
        PaneId::Forecast => app.cursors.forecast_row = moved(app.cursors.forecast_row, app.forecast_fields().len()),
    }
}

fn drill(app: &mut App) -> Vec<Effect> {
    // A cluster the plan does not list: Enter on its one row adds it, as audited, to edit.
    if let WorkloadsView::Cluster { cluster } = app.workloads_view
        && app.cursors.drill_row >= cluster_classes(app, cluster).len()
        && app.plan_cluster(cluster).is_none()
    {
        return add_cluster_to_plan(app, cluster);
    }
    app.workloads_view = match app.workloads_view {
        WorkloadsView::Fleet if app.cursors.cluster < cluster_count(app) => {
            app.cursors.drill_row = 0;
            WorkloadsView::Cluster {
                cluster: app.cursors.cluster,
            }
        }
        WorkloadsView::Cluster { cluster } => match cluster_classes(app, cluster).get(app.cursors.drill_row) {
            Some(&class) => {
                app.cursors.drill_row = 0;
                WorkloadsView::Class { cluster, class }
            }
            // A plan value of the cluster: Enter types it, as on every other pane.
            None => {
                begin_entry(app);
                app.workloads_view
            }
        },
        WorkloadsView::Class { cluster, class } if app.cursors.drill_row < class_jobs(app, cluster, class).len() => {
            WorkloadsView::Job {
                cluster,
                class,
                job: app.cursors.drill_row,
            }
        }
        other => other,
    };
    Vec::new()
}

/// Adds an audited cluster the plan does not list to the plan's `[[clusters]]` as the audit
/// sized and priced it (its price marked as assumed, to confirm), one undo step, and opens its
/// price for typing: the planner prices the cluster where the board says its price is assumed.
fn add_cluster_to_plan(app: &mut App, cluster: usize) -> Vec<Effect> {
    let Some(added) = app
        .fleet
        .as_ref()
        .and_then(|f| f.report.clusters.get(cluster))
        .map(ClusterCost::as_audited)
    else {
        return Vec::new();
    };
    let before = app.plan.clone();
    app.plan.clusters.push(added);
    push_undo(app, before);
    app.history.last_field = None;
    app.modified = app.plan != app.saved;
    let effects = recompute(app);
    // The cursor on its price, the first of its values.
    app.cursors.drill_row = cluster_classes(app, cluster).len();
    begin_entry(app);
    effects
}

fn back(app: &mut App) {
    app.workloads_view = match app.workloads_view {
        WorkloadsView::Fleet | WorkloadsView::Cluster { .. } => WorkloadsView::Fleet,
        WorkloadsView::Class { cluster, class } => {
            app.cursors.drill_row = cluster_classes(app, cluster)
                .iter()
                .position(|c| *c == class)
                .unwrap_or(0);
            WorkloadsView::Cluster { cluster }
        }
        WorkloadsView::Job { cluster, class, job } => {
            app.cursors.drill_row = job;
            WorkloadsView::Class { cluster, class }
        }
    };
}

fn begin_entry(app: &mut App) {
    if let Some(field) = app.selected_field()
        && let Some(value) = app.field_value(field)
    {
        let text = field.editable_text(value);
        app.overlay = Overlay::Entry {
            field,
            text,
            error: None,
        };
    }
}

fn step(app: &mut App, count: i32, coarse: bool) -> Vec<Effect> {
    let Some(field) = app.selected_field() else {
        return Vec::new();
    };
    let Some(value) = app.field_value(field) else {
        return Vec::new();
    };
    edit(app, field, field.stepped(value, count, coarse))
}

fn push_undo(app: &mut App, plan: Plan) {
    app.history.undo.push(plan);
    if app.history.undo.len() > UNDO_DEPTH {
        app.history.undo.remove(0);
    }
    app.history.redo.clear();
}

/// Sets a plan value and recomputes every number that depends on it.
fn edit(app: &mut App, field: Field, value: f64) -> Vec<Effect> {
    change(app, field, |plan| field.set(plan, value))
}

/// Removes an optional plan value (a growth factor: the fitted trend stands again).
fn clear(app: &mut App, field: Field) -> Vec<Effect> {
    change(app, field, |plan| field.clear(plan))
}

/// Applies one edit of `field` to the plan, as one undo step with the steps of the same field
/// before it, and recomputes what depends on it.
fn change(app: &mut App, field: Field, apply: impl FnOnce(&mut Plan) -> bool) -> Vec<Effect> {
    let before = app.plan.clone();
    if !apply(&mut app.plan) {
        return Vec::new();
    }
    if app.plan == before {
        return Vec::new();
    }
    let clusters_changed = app.plan.clusters != before.clusters;
    if app.history.last_field != Some(field) {
        push_undo(app, before);
    }
    app.history.last_field = Some(field);
    app.modified = app.plan != app.saved;
    if clusters_changed {
        // The audit reads a cluster's price and capacity, the contract matching its term and
        // deployment: the whole recompute, which audits again when it must.
        return recompute(app);
    }
    app.derived.refresh_plan(&app.plan, &app.catalog);
    let compared = refresh_comparison(app);
    clamp_cursors(app);
    app.reshape_forecast();
    app.request_forecast()
        .into_iter()
        .chain(app.request_replay())
        .chain(compared)
        .collect()
}

/// The current plan against the plans being compared, when there are any; with logs, the
/// worker asked for the rows that need them.
fn refresh_comparison(app: &mut App) -> Vec<Effect> {
    app.refresh_comparison().into_iter().collect()
}

fn undo(app: &mut App) -> Vec<Effect> {
    let Some(previous) = app.history.undo.pop() else {
        banner(app, BannerLevel::Info, "nothing to undo".to_string());
        return Vec::new();
    };
    let current = std::mem::replace(&mut app.plan, previous);
    app.history.redo.push(current);
    app.modified = app.plan != app.saved;
    recompute(app)
}

fn redo(app: &mut App) -> Vec<Effect> {
    let Some(next) = app.history.redo.pop() else {
        banner(app, BannerLevel::Info, "nothing to redo".to_string());
        return Vec::new();
    };
    let current = std::mem::replace(&mut app.plan, next);
    app.history.undo.push(current);
    app.modified = app.plan != app.saved;
    recompute(app)
}

/// Replaces the plan wholesale (reload, open, take theirs) and recomputes.
fn replace_plan(app: &mut App, plan: Plan) -> Vec<Effect> {
    app.saved = plan.clone();
    app.plan = plan;
    app.modified = false;
    recompute(app)
}

/// Recomputes after the plan changed in any way; audits again when what the audit reads of the
/// plan (its `AuditSettings`, compared whole) changed.
fn recompute(app: &mut App) -> Vec<Effect> {
    app.derived.refresh_plan(&app.plan, &app.catalog);
    let compared = refresh_comparison(app);
    clamp_cursors(app);
    let stale = app
        .audited_for
        .as_ref()
        .is_some_and(|settings| *settings != app.audit_settings());
    app.derived
        .refresh_contracts(&app.plan, &app.catalog, app.fleet.as_ref().map(|f| &f.report));
    app.reshape_forecast();
    // A re-audit brings its own replay, forecast and comparison when it lands.
    if stale {
        vec![app.request_reaudit()]
    } else {
        app.request_forecast()
            .into_iter()
            .chain(app.request_replay())
            .chain(compared)
            .collect()
    }
}

fn clamp_cursors(app: &mut App) {
    let clusters = cluster_count(app);
    let contract_classes = app.derived.contracts.as_ref().map_or(0, |c| c.classes.len());
    let forecast_rows = app.forecast_fields().len();
    let c = &mut app.cursors;
    c.accelerator = c.accelerator.min(app.plan.accelerators.len().saturating_sub(1));
    c.contract_class = c.contract_class.min(contract_classes.saturating_sub(1));
    c.risk_cell = c.risk_cell.min((app.plan.risks.len() * 2).saturating_sub(1));
    c.cluster = c.cluster.min(clusters.saturating_sub(1));
    c.forecast_row = c.forecast_row.min(forecast_rows.saturating_sub(1));
    let valid_cluster = |i: usize| i < clusters;
    let view_ok = match app.workloads_view {
        WorkloadsView::Fleet => true,
        WorkloadsView::Cluster { cluster } | WorkloadsView::Class { cluster, .. } => valid_cluster(cluster),
        WorkloadsView::Job {
            cluster, class, job, ..
        } => valid_cluster(cluster) && job < class_jobs(app, cluster, class).len(),
    };
    if !view_ok {
        app.workloads_view = WorkloadsView::Fleet;
        app.cursors.drill_row = 0;
    }
    // A plan reloaded without the cluster takes its values' rows away.
    if let WorkloadsView::Cluster { cluster } = app.workloads_view {
        let rows = cluster_classes(app, cluster).len() + app.cluster_value_rows(cluster);
        app.cursors.drill_row = app.cursors.drill_row.min(rows.saturating_sub(1));
    }
}
