//! Keys of the command palette, and what its chosen entry does.

use super::{command, edit_text};
use crate::app::key::{Key, KeyCode};
use std::path::PathBuf;

use crate::app::palette::{PaletteMode, PaletteState, PaletteTarget, matches};
use crate::app::{App, Effect, Overlay, PaneId, WorkloadsView};

/// Up/Down/Tab move the selection, Enter runs the selected entry, other keys filter; the
/// selection stays within the entries that match.
pub(super) fn key_pressed(app: &mut App, key: Key) -> Vec<Effect> {
    let Overlay::Palette(state) = &mut app.overlay else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc => app.overlay = Overlay::None,
        KeyCode::Up => state.selected = state.selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Tab => state.selected += 1,
        KeyCode::Enter => {
            let state = state.clone();
            app.overlay = Overlay::None;
            if let Some(target) = typed_path(app, &state) {
                return run_palette_target(app, target);
            }
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

/// A path typed into the file picker or the compare list, opened as typed: an absolute one
/// (`/…`, `~/…`), or one that matches no listed file (`data/jo` with `data/jobs.csv` listed
/// opens the listed file). `~/` is the home folder.
fn typed_path(app: &App, state: &PaletteState) -> Option<PaletteTarget> {
    let typed = state.query.trim();
    if typed.is_empty() || state.mode == PaletteMode::All {
        return None;
    }
    let looks_like_a_path = typed.starts_with('/') || typed.starts_with('~');
    if !looks_like_a_path && !matches(app, state).is_empty() {
        return None;
    }
    let path = match typed.strip_prefix("~/") {
        Some(rest) => {
            std::env::var_os("HOME").map_or_else(|| PathBuf::from(typed), |home| PathBuf::from(home).join(rest))
        }
        None => PathBuf::from(typed),
    };
    let plan = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    Some(match state.mode {
        PaletteMode::Compare => PaletteTarget::ComparePlan(path),
        _ if plan => PaletteTarget::OpenPlan(path),
        _ => PaletteTarget::OpenLog(path),
    })
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
