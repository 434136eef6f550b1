//! The plan's file: saving it, and the file changing on disk under the workbench.

use super::{banner, replace_plan};
use crate::app::{App, Banner, BannerLevel, Conflict, Effect, Overlay};
use crate::model::plan::Plan;

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

pub(super) fn save(app: &mut App) -> Vec<Effect> {
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
