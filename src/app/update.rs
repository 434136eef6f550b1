//! The one mutation path: every key, click and runtime result goes through `update`.

use super::command::CommandId;
use super::field::{Field, INFERENCE_FIELDS};
use super::key::{Key, KeyCode};
use super::palette::{PaletteMode, PaletteState, PaletteTarget, matches};
use super::{
    Action, App, AuditInputs, Banner, BannerLevel, Conflict, Effect, FleetStatus, Overlay, PaneId, WorkloadsView,
};
use crate::model::plan::Plan;
use crate::model::workload::WorkloadClass;

const UNDO_DEPTH: usize = 500;

fn is_step(id: CommandId) -> bool {
    matches!(
        id,
        CommandId::Increase | CommandId::Decrease | CommandId::IncreaseCoarse | CommandId::DecreaseCoarse
    )
}

pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    // Steps of one field in a row undo together; anything else in between ends the run.
    // (Keys are judged by the command they become, in `command`.)
    if !matches!(action, Action::Key(_) | Action::Command(_) | Action::SetField { .. }) {
        app.history.last_field = None;
    }
    match action {
        Action::Key(key) => key_pressed(app, key),
        Action::Command(id) => command(app, id),
        Action::FocusPane(pane) => {
            app.focus = pane;
            Vec::new()
        }
        Action::Scroll { pane, lines } => {
            app.focus = pane;
            let id = if lines < 0 { CommandId::Up } else { CommandId::Down };
            (0..lines.unsigned_abs()).flat_map(|_| command(app, id)).collect()
        }
        Action::SetField { field, value } => {
            // A click on a slider also selects it.
            if let Field::Mfu(index) = field {
                app.focus = PaneId::Mfu;
                app.cursors.accelerator = index;
            }
            edit(app, field, value)
        }
        Action::FleetStarted { generation, what } => {
            if generation == app.generation {
                app.fleet_status = FleetStatus::Working { generation, what };
            }
            Vec::new()
        }
        Action::FleetLoaded { generation, fleet } => {
            if generation == app.generation {
                let names =
                    |f: &crate::app::Fleet| f.report.clusters.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
                if app.fleet.as_ref().map(names) != Some(names(&fleet)) {
                    // Drills point at clusters by position: other clusters, start from the fleet.
                    app.workloads_view = WorkloadsView::Fleet;
                    app.cursors.drill_row = 0;
                }
                if let Some(warning) = &fleet.warning {
                    banner(
                        app,
                        BannerLevel::Error,
                        format!("{warning} — the logs' own figures stand until it answers"),
                    );
                }
                app.fleet = Some(*fleet);
                app.fleet_status = FleetStatus::Idle;
                app.derived
                    .refresh_contracts(&app.plan, &app.catalog, app.fleet.as_ref().map(|f| &f.report));
                clamp_cursors(app);
                // A new audit: the replay runs again on its jobs.
                app.replay.requested = None;
                return app.request_replay().into_iter().collect();
            }
            Vec::new()
        }
        Action::ReplayLoaded { generation, report } => {
            if generation == app.replay.generation {
                app.replay.result = Some(*report);
                app.replay.working = false;
                app.replay.error = None;
            }
            Vec::new()
        }
        Action::ReplayFailed { generation, message } => {
            if generation == app.replay.generation {
                app.replay.working = false;
                app.replay.error = Some(message);
            }
            Vec::new()
        }
        Action::FleetFailed { generation, message } => {
            if generation == app.generation {
                app.fleet_status = FleetStatus::Failed {
                    message: message.clone(),
                };
                banner(app, BannerLevel::Error, message);
            }
            Vec::new()
        }
        Action::PlanChangedOnDisk { path, .. } | Action::PlanInvalidOnDisk { path, .. }
            if !is_plan_file(app, &path) =>
        {
            Vec::new()
        }
        Action::PlanChangedOnDisk { plan, text, .. } => plan_changed_on_disk(app, *plan, text),
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
        Action::ComparePlanLoaded { label, plan } => {
            app.compare.retain(|(l, _)| *l != label);
            app.compare.push((label, *plan));
            refresh_comparison(app);
            let from_conflict = match std::mem::replace(&mut app.overlay, Overlay::None) {
                Overlay::Compare { from_conflict, .. } => from_conflict,
                _ => None,
            };
            app.overlay = Overlay::Compare {
                from_conflict,
                scroll: 0,
            };
            Vec::new()
        }
        Action::FilesListed { files } => {
            app.known_files = files;
            Vec::new()
        }
    }
}

/// True when `path` is the open plan's file (paths compared absolute).
fn is_plan_file(app: &App, path: &std::path::Path) -> bool {
    let absolute = |p: &std::path::Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    app.plan_file
        .path
        .as_deref()
        .is_some_and(|open| absolute(open) == absolute(path))
}

fn banner(app: &mut App, level: BannerLevel, text: String) {
    app.banner = Some(Banner { level, text });
}

fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let cannot_save = unsavable(app);
    match &mut app.overlay {
        Overlay::Entry { field, text, error } => {
            let field = *field;
            match key.code {
                KeyCode::Enter => match field.parse_input(text) {
                    Ok(value) => {
                        app.overlay = Overlay::None;
                        app.history.last_field = None;
                        return edit(app, field, value);
                    }
                    Err(e) => *error = Some(e),
                },
                KeyCode::Esc => app.overlay = Overlay::None,
                _ => edit_text(text, key),
            }
            Vec::new()
        }
        Overlay::SaveAs { text, error } => {
            match key.code {
                KeyCode::Enter => match valid_plan_name(text) {
                    Ok(_) if cannot_save.is_some() => *error = cannot_save,
                    Ok(name) => {
                        app.overlay = Overlay::None;
                        return vec![Effect::SavePlanAs {
                            name,
                            plan: Box::new(app.plan.clone()),
                            pick_free_name: false,
                        }];
                    }
                    Err(e) => *error = Some(e),
                },
                KeyCode::Esc => {
                    app.overlay = Overlay::None;
                    app.quit_after_save = false;
                }
                _ => edit_text(text, key),
            }
            Vec::new()
        }
        Overlay::Palette(state) => {
            match key.code {
                KeyCode::Esc => app.overlay = Overlay::None,
                KeyCode::Up => state.selected = state.selected.saturating_sub(1),
                KeyCode::Down | KeyCode::Tab => state.selected += 1,
                KeyCode::Enter => {
                    let state = state.clone();
                    app.overlay = Overlay::None;
                    let chosen = matches(app, &state).into_iter().nth(state.selected);
                    return chosen.map(|e| run_palette_target(app, e.target)).unwrap_or_default();
                }
                _ => {
                    edit_text(&mut state.query, key);
                    state.selected = 0;
                }
            }
            if let Overlay::Palette(state) = &app.overlay {
                let count = matches(app, state).len();
                if let Overlay::Palette(state) = &mut app.overlay {
                    state.selected = state.selected.min(count.saturating_sub(1));
                }
            }
            Vec::new()
        }
        Overlay::ConfirmQuit => match key.code {
            KeyCode::Char('y' | 'Y') => {
                app.quit = true;
                vec![Effect::Quit]
            }
            KeyCode::Char('s' | 'S') => {
                app.overlay = Overlay::None;
                let effects = save(app);
                // Quit only when the save has landed (see PlanSaved); a failure keeps the edits.
                // A plan without a file asks for a name first; quitting waits for that too.
                app.quit_after_save = matches!(effects.first(), Some(Effect::SavePlan { .. }))
                    || matches!(app.overlay, Overlay::SaveAs { .. });
                effects
            }
            KeyCode::Char('n' | 'N') | KeyCode::Esc => {
                app.overlay = Overlay::None;
                Vec::new()
            }
            _ => Vec::new(),
        },
        Overlay::Conflict(conflict) => {
            let conflict = conflict.clone();
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
                        plan: Box::new(app.plan.clone()),
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
                    app.compare = vec![("on disk".to_string(), conflict.theirs.clone())];
                    refresh_comparison(app);
                    app.overlay = Overlay::Compare {
                        from_conflict: Some(conflict),
                        scroll: 0,
                    };
                    Vec::new()
                }
                _ => Vec::new(),
            }
        }
        Overlay::Compare { from_conflict, scroll } => {
            match key.code {
                KeyCode::Esc | KeyCode::Char('q') => {
                    app.overlay = match from_conflict.take() {
                        Some(conflict) => Overlay::Conflict(conflict),
                        None => Overlay::None,
                    };
                }
                KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
                KeyCode::Down | KeyCode::Char('j') => *scroll += 1,
                KeyCode::PageUp => *scroll = scroll.saturating_sub(20),
                KeyCode::PageDown => *scroll += 20,
                _ => {}
            }
            Vec::new()
        }
        Overlay::Help { scroll } => {
            match key.code {
                KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
                KeyCode::Down | KeyCode::Char('j') => *scroll += 1,
                KeyCode::PageDown => *scroll += 10,
                KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
                _ => app.overlay = Overlay::None,
            }
            Vec::new()
        }
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

fn file_stem(app: &App) -> String {
    app.plan_file
        .path
        .as_ref()
        .and_then(|p| p.file_stem())
        .map_or_else(|| "plan".to_string(), |s| s.to_string_lossy().to_string())
}

/// A plan name is a file name in the plans folder: letters, digits, `-`, `_`, `.`.
fn valid_plan_name(text: &str) -> Result<String, String> {
    let name = text.trim().trim_end_matches(".toml").to_string();
    if name.is_empty() {
        return Err("type a name".to_string());
    }
    if name.starts_with('.')
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(format!(
            "'{name}' can't be a file name: use letters, digits, '-', '_' and '.'"
        ));
    }
    Ok(name)
}

fn command(app: &mut App, id: CommandId) -> Vec<Effect> {
    if !is_step(id) {
        app.history.last_field = None;
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
        CommandId::Up => {
            move_cursor(app, -1);
            Vec::new()
        }
        CommandId::Down => {
            move_cursor(app, 1);
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
                drill(app);
            } else {
                begin_entry(app);
            }
            Vec::new()
        }
        CommandId::Back => {
            if app.focus == PaneId::Workloads && app.workloads_view != WorkloadsView::Fleet {
                back(app);
            } else {
                app.banner = None;
            }
            Vec::new()
        }
        CommandId::Save => save(app),
        CommandId::SaveAs => {
            app.overlay = Overlay::SaveAs {
                text: file_stem(app),
                error: None,
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
    }
}

fn focus(app: &mut App, pane: PaneId) -> Vec<Effect> {
    app.focus = pane;
    Vec::new()
}

fn run_palette_target(app: &mut App, target: PaletteTarget) -> Vec<Effect> {
    match target {
        PaletteTarget::Command(id) => command(app, id),
        PaletteTarget::Accelerator(i) => {
            app.focus = PaneId::Mfu;
            app.cursors.accelerator = i;
            Vec::new()
        }
        PaletteTarget::Cluster(i) => {
            app.focus = PaneId::Workloads;
            app.cursors.cluster = i;
            app.cursors.drill_row = 0;
            app.workloads_view = WorkloadsView::Cluster { cluster: i };
            Vec::new()
        }
        PaletteTarget::OpenPlan(path) => vec![Effect::OpenPlan { path }],
        PaletteTarget::ComparePlan(path) => vec![Effect::LoadComparePlan { path }],
        PaletteTarget::OpenLog(path) => {
            app.logs.paths = vec![path];
            app.workloads_view = WorkloadsView::Fleet;
            app.cursors.cluster = 0;
            vec![app.request_fleet()]
        }
        PaletteTarget::Theme(i) => {
            app.theme = i.min(app.theme_names.len().saturating_sub(1));
            Vec::new()
        }
    }
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

fn move_cursor(app: &mut App, by: isize) {
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
                let count = cluster_classes(app, cluster).len();
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
    }
}

fn drill(app: &mut App) {
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
            None => app.workloads_view,
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
    let before = app.plan.clone();
    if !field.set(&mut app.plan, value) {
        return Vec::new();
    }
    if app.plan == before {
        return Vec::new();
    }
    if app.history.last_field != Some(field) {
        push_undo(app, before);
    }
    app.history.last_field = Some(field);
    app.modified = app.plan != app.saved;
    app.derived.refresh_plan(&app.plan, &app.catalog);
    refresh_comparison(app);
    app.request_replay().into_iter().collect()
}

/// The current plan against the plans being compared, when there are any.
fn refresh_comparison(app: &mut App) {
    if app.compare.is_empty() {
        app.comparison = None;
        return;
    }
    let mine = if app.modified { "this plan *" } else { "this plan" };
    let plans: Vec<(String, Plan)> = std::iter::once((mine.to_string(), app.plan.clone()))
        .chain(app.compare.iter().cloned())
        .collect();
    app.comparison = Some(crate::model::compare::compare_plans(&plans, &app.catalog));
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

/// Recomputes after the plan changed in any way; audits again when what the audit read of the
/// plan changed (clusters' capacity and price, the month, thresholds).
fn recompute(app: &mut App) -> Vec<Effect> {
    app.derived.refresh_plan(&app.plan, &app.catalog);
    refresh_comparison(app);
    clamp_cursors(app);
    let stale = app
        .audited_for
        .as_ref()
        .is_some_and(|inputs| *inputs != AuditInputs::of(&app.plan));
    app.derived
        .refresh_contracts(&app.plan, &app.catalog, app.fleet.as_ref().map(|f| &f.report));
    // A re-audit brings its own replay when it lands.
    if stale {
        vec![app.request_reaudit()]
    } else {
        app.request_replay().into_iter().collect()
    }
}

fn clamp_cursors(app: &mut App) {
    let clusters = cluster_count(app);
    let contract_classes = app.derived.contracts.as_ref().map_or(0, |c| c.classes.len());
    let c = &mut app.cursors;
    c.accelerator = c.accelerator.min(app.plan.accelerators.len().saturating_sub(1));
    c.contract_class = c.contract_class.min(contract_classes.saturating_sub(1));
    c.risk_cell = c.risk_cell.min((app.plan.risks.len() * 2).saturating_sub(1));
    c.cluster = c.cluster.min(clusters.saturating_sub(1));
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
}

/// Why the plan cannot be written as it stands, if it cannot: a file gpuplan would refuse to
/// open is never saved.
fn unsavable(app: &App) -> Option<String> {
    let problems = &app.derived.problems;
    (!problems.is_empty()).then(|| {
        format!(
            "not saved: {}",
            problems
                .iter()
                .map(|p| format!("{}: {}", p.key_path, p.message))
                .collect::<Vec<_>>()
                .join("; ")
        )
    })
}

fn save(app: &mut App) -> Vec<Effect> {
    if let Some(why) = unsavable(app) {
        app.quit_after_save = false;
        banner(app, BannerLevel::Error, why);
        return Vec::new();
    }
    match &app.plan_file.path {
        Some(path) => vec![Effect::SavePlan {
            path: path.clone(),
            plan: Box::new(app.plan.clone()),
            original_text: app.plan_file.text.clone(),
        }],
        None => {
            app.overlay = Overlay::SaveAs {
                text: app
                    .plan
                    .name
                    .to_lowercase()
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join("-"),
                error: None,
            };
            Vec::new()
        }
    }
}

fn plan_changed_on_disk(app: &mut App, plan: Plan, text: String) -> Vec<Effect> {
    let was_invalid = app.disk_error.take().is_some();
    if was_invalid
        && matches!(
            app.banner,
            Some(Banner {
                level: BannerLevel::Error,
                ..
            })
        )
    {
        app.banner = None;
    }
    if app.plan_file.text.as_deref() == Some(text.as_str()) {
        // Our own save coming back, a touch that changed nothing, or the file put back as it was.
        if was_invalid {
            banner(app, BannerLevel::Info, "the plan file reads again".to_string());
        }
        return Vec::new();
    }
    if app.modified && plan != app.plan {
        // A save-and-quit in flight waits for the user's choice.
        app.quit_after_save = false;
        app.overlay = Overlay::Conflict(Box::new(Conflict {
            theirs: plan,
            theirs_text: text,
        }));
        return Vec::new();
    }
    app.plan_file.text = Some(text);
    let effects = replace_plan(app, plan);
    if matches!(
        app.banner,
        Some(Banner {
            level: BannerLevel::Error,
            ..
        })
    ) {
        app.banner = None;
    }
    banner(
        app,
        BannerLevel::Info,
        "reloaded: the plan file changed on disk".to_string(),
    );
    effects
}
