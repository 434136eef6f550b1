//! Carries out what the app asks for and reports back as actions.

use std::path::{Path, PathBuf};

use crossbeam_channel::Sender;

use super::error::RuntimeError;
use super::watcher::{PlanWatcher, watch_plan};
use super::worker::{ExportTarget, Job, Worker};
use crate::app::{Action, App, Effect};
use crate::config::error::ConfigError;
use crate::config::paths::data_dir;
use crate::config::plan_file::{read_plan_file_text, read_plan_text};
use crate::model::catalog::Catalog;
use crate::model::plan::Plan;

/// Log and plan file extensions the file picker lists.
const PICKABLE: [&str; 8] = ["csv", "tsv", "parquet", "json", "ndjson", "jsonl", "txt", "toml"];
const PICK_DEPTH: usize = 3;
const PICK_LIMIT: usize = 2_000;

pub struct Runtime {
    pub worker: Worker,
    pub watcher: Option<PlanWatcher>,
    pub results: Sender<Action>,
    pub catalog: Catalog,
}

impl Runtime {
    /// Runs the effects; effects that finish at once feed their result back through `update`.
    pub fn execute(&mut self, app: &mut App, view: &mut crate::ui::ViewState, effects: Vec<Effect>) {
        let mut queue = effects;
        while !queue.is_empty() {
            let mut next = Vec::new();
            for effect in queue {
                // The view's own state: nothing to run, the next frame shows it.
                if let Effect::Scroll { pane, by } = effect {
                    view.scroll(pane, by);
                    continue;
                }
                if let Some(action) = self.run(app, effect) {
                    next.extend(crate::app::update(app, action));
                }
            }
            queue = next;
        }
    }

    fn run(&mut self, app: &App, effect: Effect) -> Option<Action> {
        match effect {
            Effect::LoadFleet {
                generation,
                logs,
                settings,
            } => {
                self.worker.submit(Job::Load {
                    generation,
                    logs,
                    settings,
                });
                None
            }
            Effect::Reaudit { generation, settings } => {
                self.worker.submit(Job::Reaudit { generation, settings });
                None
            }
            Effect::ExportReport { plan, unsaved_edits } => {
                self.worker.submit(Job::Export {
                    plan,
                    target: export_target(app, unsaved_edits),
                });
                None
            }
            Effect::Replay { generation, plan } => {
                self.worker.submit(Job::Replay { generation, plan });
                None
            }
            Effect::Compare { generation, plans } => {
                self.worker.submit(Job::Compare { generation, plans });
                None
            }
            Effect::FitForecast {
                generation,
                horizon_days,
                plan,
            } => {
                self.worker.submit(Job::FitForecast {
                    generation,
                    horizon_days,
                    plan,
                });
                None
            }
            Effect::SavePlan {
                path,
                plan,
                original_text,
                replace_read_only,
            } => Some(if !replace_read_only && crate::config::atomic::is_read_only(&path) {
                Action::PlanReadOnly { path }
            } else {
                save(&path, &plan, original_text.as_deref(), &self.catalog)
            }),
            Effect::SavePlanAs {
                name,
                plan,
                pick_free_name,
            } => Some(match data_dir() {
                Some(dir) => {
                    let folder = dir.join("plans");
                    let candidates = std::iter::once(name.clone())
                        .chain((2..100).filter(|_| pick_free_name).map(|n| format!("{name}-{n}")));
                    let free = candidates
                        .map(|n| folder.join(format!("{n}.toml")))
                        .find(|p| !p.exists());
                    match free {
                        Some(path) => save_new(&path, &plan, app.plan_file.text.as_deref()),
                        None => Action::Failed {
                            message: format!(
                                "{} exists: save under another name",
                                folder.join(format!("{name}.toml")).display()
                            ),
                        },
                    }
                }
                None => Action::Failed {
                    message: "no data folder (set GPUPLAN_DATA_DIR) to save plans in".to_string(),
                },
            }),
            Effect::SavePlanTo { typed, plan } => Some(save_to(&typed, &plan, app.plan_file.text.as_deref())),
            Effect::CompleteSavePath { typed } => {
                let here = std::env::current_dir().unwrap_or_default();
                let found = crate::config::save_path::complete(&typed, &here);
                Some(Action::SavePathCompleted {
                    typed,
                    text: found.text,
                    choices: found.choices,
                })
            }
            Effect::OpenPlan { path } => Some(match read(&path, &self.catalog) {
                Ok((plan, text)) => {
                    super::remember_plan(&path);
                    // Edits a stopped workbench kept for this plan, offered once it is open.
                    if let Some(found) = super::recovery::find(Some(&path), &app.logs.paths, &plan, &self.catalog) {
                        let _ = self.results.send(found);
                    }
                    Action::PlanOpened {
                        path,
                        plan: Box::new(plan),
                        text,
                    }
                }
                Err(e) => Action::Failed { message: e.to_string() },
            }),
            Effect::LoadComparePlan { path } => Some(match read(&path, &self.catalog) {
                Ok((plan, _)) => Action::ComparePlanLoaded {
                    label: path
                        .file_name()
                        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().to_string()),
                    plan: Box::new(plan),
                },
                Err(e) => Action::Failed { message: e.to_string() },
            }),
            Effect::WatchPlan { path } => {
                if self
                    .watcher
                    .as_ref()
                    .is_some_and(|w| std::path::absolute(&path).ok().as_ref() == Some(&w.path))
                {
                    return None;
                }
                match watch_plan(&path, self.catalog.clone(), self.results.clone()) {
                    Ok(watcher) => {
                        self.watcher = Some(watcher);
                        None
                    }
                    Err(message) => Some(Action::Failed {
                        message: format!("{message}; edits on disk will not show until reopened"),
                    }),
                }
            }
            Effect::ListFiles => {
                let results = self.results.clone();
                let catalog = self.catalog.clone();
                std::thread::spawn(move || {
                    let files = list_files(Path::new("."), &catalog);
                    let _ = results.send(Action::FilesListed { files });
                });
                None
            }
            Effect::RemoveRecovery { path } => {
                crate::config::recovery::remove_recovery(&path)
                    .err()
                    .map(|e| Action::Failed {
                        message: format!("{}: not removed: {e}", path.display()),
                    })
            }
            Effect::Quit | Effect::Scroll { .. } => None,
        }
    }
}

fn read(path: &Path, catalog: &Catalog) -> Result<(Plan, String), RuntimeError> {
    let text = std::fs::read_to_string(path).map_err(|source| RuntimeError::CannotReadPlan {
        path: path.to_path_buf(),
        source,
    })?;
    let plan = read_plan_file_text(path, &text, catalog).map_err(RuntimeError::InvalidPlan)?;
    Ok((plan, text))
}

/// What the save of a plan against `original_text` found on disk in its place: the file as it
/// now is for the app's conflict dialog, or why that file does not read.
fn found_on_disk(path: &Path, catalog: &Catalog) -> Action {
    match super::watcher::read_changed_plan(path, catalog) {
        Action::PlanChangedOnDisk { path, plan, text } => Action::SaveFoundChange { path, plan, text },
        Action::PlanInvalidOnDisk { message, .. } => Action::Failed {
            message: format!(
                "not saved: the file changed on disk and does not read ({message}); fix it, or save under another name"
            ),
        },
        other => other,
    }
}

/// Writes the plan atomically; with the file's text, only the values that changed are
/// rewritten and the planner's comments and layout stay, and the file must still be that text
/// right before the rename: another program's write since is never replaced.
fn save(path: &Path, plan: &Plan, original_text: Option<&str>, catalog: &Catalog) -> Action {
    let expected_hash = original_text.map(|t| crate::config::atomic::content_hash(t.as_bytes()));
    match write_plan(path, plan, original_text, expected_hash) {
        Err(ConfigError::ChangedOnDisk { .. }) => found_on_disk(path, catalog),
        other => saved(path, other),
    }
}

/// Writes the plan to a new file (save as): nothing there to have changed.
fn save_new(path: &Path, plan: &Plan, original_text: Option<&str>) -> Action {
    saved(path, write_plan(path, plan, original_text, None))
}

/// Save as, to a typed path: refused back to the dialog when its folder is missing or the file
/// exists; the path kept absolute, so the banner and the quit name where it went.
fn save_to(typed: &str, plan: &Plan, original_text: Option<&str>) -> Action {
    let here = std::env::current_dir().unwrap_or_default();
    match crate::config::save_path::save_target(typed, &here) {
        Ok(path) => save_new(&path, plan, original_text),
        Err(message) => Action::SavePathRefused {
            typed: typed.to_string(),
            message,
        },
    }
}

fn saved(path: &Path, written: Result<(String, Option<String>), ConfigError>) -> Action {
    let shown = path.display().to_string();
    match written {
        Ok((text, note)) => {
            super::remember_plan(path);
            Action::PlanSaved {
                path: path.to_path_buf(),
                text,
                note,
            }
        }
        Err(e @ ConfigError::CannotReplace { .. }) => Action::Failed {
            message: format!("{shown}: not saved (the file on disk is unchanged): {e}"),
        },
        Err(e) => Action::Failed {
            message: format!("{shown}: not saved: {e}"),
        },
    }
}

/// The text written and a note when the file's layout could not be kept.
fn write_plan(
    path: &Path,
    plan: &Plan,
    original_text: Option<&str>,
    expected_hash: Option<u64>,
) -> Result<(String, Option<String>), ConfigError> {
    // The data it names, relative to where it is written when below its folder.
    let plan = crate::config::plan_sources::anchor_written(plan, path);
    let (text, note) = crate::config::plan_file::render_for_save(original_text, &plan)?;
    if let Some(folder) = path.parent()
        && !folder.as_os_str().is_empty()
    {
        std::fs::create_dir_all(folder).map_err(|source| ConfigError::CannotCreate {
            path: folder.to_path_buf(),
            source,
        })?;
    }
    crate::config::atomic::write_atomically_unless_changed(path, text.as_bytes(), expected_hash)?;
    Ok((text, note))
}

/// Log and plan files under `root`, a few folders deep, skipping build and VCS folders.
/// The largest TOML file read to see whether it is a plan: plans are kilobytes.
const MAX_PLAN_BYTES: u64 = 4 << 20;

/// Whether a `.toml` file reads as a plan: `Cargo.toml` or a catalog is not offered as one.
fn reads_as_plan(path: &Path, catalog: &Catalog) -> bool {
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_PLAN_BYTES);
    small
        && std::fs::read_to_string(path)
            .is_ok_and(|text| read_plan_text(&path.display().to_string(), &text, catalog).is_ok())
}

/// Log files and the `.toml` files that read as plans, up to `PICK_DEPTH` folders below `root`.
pub fn list_files(root: &Path, catalog: &Catalog) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![(root.to_path_buf(), 0usize)];
    while let Some((folder, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            if name.starts_with('.') || name == "target" || name == "node_modules" {
                continue;
            }
            if path.is_dir() {
                if depth < PICK_DEPTH {
                    folders.push((path, depth + 1));
                }
            } else if path
                .extension()
                .is_some_and(|e| PICKABLE.iter().any(|p| e.eq_ignore_ascii_case(p)))
                && (!path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")) || reads_as_plan(&path, catalog))
            {
                found.push(path.strip_prefix("./").map(Path::to_path_buf).unwrap_or(path));
                if found.len() >= PICK_LIMIT {
                    return found;
                }
            }
        }
    }
    found.sort();
    found
}

/// Where the workbench's export goes: `<plan file stem>.report.json` and `.report.md` beside
/// the plan file; for the built-in plan, `gpuplan.report.json` and `.md` in the data folder's
/// `reports/` (never the current folder, which may be a checkout). Absolute, so the banner says
/// where. The report names the plan file as the workbench was given it, as `gpuplan report
/// --plan` does.
pub fn export_target(app: &App, unsaved_edits: bool) -> ExportTarget {
    let (folder, stem, plan_file) = match &app.plan_file.path {
        Some(path) => (
            path.parent().map(Path::to_path_buf).unwrap_or_default(),
            path.file_stem()
                .map_or_else(|| "plan".to_string(), |s| s.to_string_lossy().to_string()),
            path.display().to_string(),
        ),
        None => (
            data_dir().map_or_else(PathBuf::new, |d| d.join("reports")),
            "gpuplan".to_string(),
            crate::config::plan_file::DEFAULT_PLAN_NAME.to_string(),
        ),
    };
    let folder = std::path::absolute(&folder).unwrap_or(folder);
    ExportTarget {
        json: folder.join(format!("{stem}.report.json")),
        markdown: folder.join(format!("{stem}.report.md")),
        plan_file,
        unsaved_edits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_toml_files_that_read_as_plans_are_offered() {
        let folder = tempfile::tempdir().expect("tempdir");
        let root = folder.path();
        std::fs::write(root.join("jobs.csv"), "job_id\n1\n").expect("log");
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"x\"\n").expect("cargo");
        std::fs::write(root.join("broken.toml"), "[[clusters\n").expect("broken");
        std::fs::write(root.join("q3.toml"), crate::config::plan_file::DEFAULT_PLAN_TOML).expect("plan");
        let catalog = crate::config::catalog::builtin().catalog;
        let names: Vec<String> = list_files(root, &catalog)
            .iter()
            .map(|p| {
                p.file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(names, ["jobs.csv", "q3.toml"]);
    }
}
