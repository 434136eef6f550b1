//! The plan's file: saving it, and the file changing on disk under the workbench.

use super::{banner, replace_plan};
use crate::app::{App, Banner, BannerLevel, Conflict, Effect, Overlay};
use crate::model::plan::Plan;

/// What the status says while another program's write of the plan file settles.
pub(super) const BEING_WRITTEN: &str = "the plan file is being written: waiting";

/// True when `path` is the open plan's file (paths compared absolute).
pub(super) fn is_plan_file(app: &App, path: &std::path::Path) -> bool {
    let absolute = |p: &std::path::Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    app.plan_file
        .path
        .as_deref()
        .is_some_and(|open| absolute(open) == absolute(path))
}

pub(super) fn file_stem(app: &App) -> String {
    app.plan_file
        .path
        .as_ref()
        .and_then(|p| p.file_stem())
        .map_or_else(|| "plan".to_string(), |s| s.to_string_lossy().to_string())
}

/// Why the plan cannot be written as it stands, if it cannot: a file gpuplan would refuse to
/// open is never saved.
pub(super) fn unsavable(app: &App) -> Option<String> {
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

/// The plan as a save writes it: with every source the workbench reads (its logs with their
/// mapping and layout, the Prometheus, Slurm or warehouse it asks), so the file opened alone
/// shows the same picture. The shipped sample, read because nothing named a log, is not named.
pub(super) fn plan_to_save(app: &App) -> Box<Plan> {
    let mut plan = app.plan.clone();
    let logs = &app.logs;
    if !logs.shipped_sample && (!logs.paths.is_empty() || !logs.missing.is_empty()) {
        let mapping = logs.mapping.as_ref().map(|m| m.display().to_string());
        plan.logs = logs
            .paths
            .iter()
            .chain(&logs.missing)
            .map(|path| crate::model::plan::LogSource {
                path: path.display().to_string(),
                mapping: mapping.clone(),
                format: logs.input_format.clone(),
                time_origin: logs.time_origin.clone(),
            })
            .collect();
    }
    if let Some(prometheus) = &logs.prometheus {
        plan.prometheus = Some(prometheus.clone());
    }
    if let Some(slurm) = &logs.slurm {
        plan.slurm = Some(slurm.as_ref().clone());
    }
    if let Some(warehouse) = &logs.warehouse {
        plan.warehouse = Some(warehouse.as_ref().clone());
    }
    Box::new(plan)
}

pub(super) fn save(app: &mut App) -> Vec<Effect> {
    if let Some(why) = unsavable(app) {
        app.quit_after_save = false;
        banner(app, BannerLevel::Error, why);
        return Vec::new();
    }
    // A second save in a row after "read-only" is the confirmation to replace it.
    let confirmed = app.replace_read_only.take();
    match &app.plan_file.path {
        Some(path) => vec![Effect::SavePlan {
            path: path.clone(),
            plan: plan_to_save(app),
            original_text: app.plan_file.text.clone(),
            replace_read_only: confirmed.as_ref() == Some(path),
        }],
        None => {
            // No file yet: ask where, `plan.toml` in the current folder unless typed otherwise.
            app.overlay = Overlay::SaveAs {
                text: "plan.toml".to_string(),
                error: None,
                choices: Vec::new(),
            };
            Vec::new()
        }
    }
}

pub(super) fn plan_changed_on_disk(app: &mut App, plan: Plan, text: String) -> Vec<Effect> {
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
        } else if app.banner.as_ref().is_some_and(|b| b.text == BEING_WRITTEN) {
            app.banner = None;
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
    // With nothing unsaved, a choice the save asked for is settled by the file as it now is.
    if matches!(app.overlay, Overlay::Conflict(_)) {
        app.overlay = Overlay::None;
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

pub(super) fn plan_being_written(app: &mut App) -> Vec<Effect> {
    banner(app, BannerLevel::Warning, BEING_WRITTEN.to_string());
    Vec::new()
}

/// A save refused because the file changed under it: the user chooses, as when the watcher
/// reports the change first, even with nothing unsaved (the save was asked for).
pub(super) fn save_found_change(app: &mut App, path: &std::path::Path, plan: Plan, text: String) -> Vec<Effect> {
    app.quit_after_save = false;
    let shown = path
        .file_name()
        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().to_string());
    banner(
        app,
        BannerLevel::Warning,
        format!("not saved: {shown} changed on disk since it was read"),
    );
    app.overlay = Overlay::Conflict(Box::new(Conflict {
        theirs: plan,
        theirs_text: text,
    }));
    Vec::new()
}

/// A save refused because the file is read-only: the next save, if it comes next, replaces it.
pub(super) fn plan_read_only(app: &mut App, path: std::path::PathBuf) -> Vec<Effect> {
    app.quit_after_save = false;
    let shown = path
        .file_name()
        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().to_string());
    let key = app.key_hint(crate::app::command::CommandId::Save);
    banner(
        app,
        BannerLevel::Warning,
        format!("{shown} is read-only: press {key} again to replace it"),
    );
    app.replace_read_only = Some(path);
    Vec::new()
}
