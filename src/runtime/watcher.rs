//! Watches the plan file for edits made elsewhere. Editors save by writing a new file and
//! renaming it over the old, so the folder is watched and events are filtered by name. Events
//! within the debounce window collapse into one read; the file is parsed here, off the UI
//! thread, and the app gets either the new plan or the error to show.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use crossbeam_channel::Sender;
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::error::RuntimeError;
use crate::app::Action;
use crate::config::plan_file::read_plan_file_text;
use crate::model::catalog::Catalog;

/// Editors write in bursts (temp file, rename, chmod); one read after the burst settles.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

pub struct PlanWatcher {
    /// Dropping the watcher stops its events, which ends the debounce thread.
    _watcher: RecommendedWatcher,
    pub path: PathBuf,
}

pub fn watch_plan(path: &Path, catalog: Catalog, results: Sender<Action>) -> Result<PlanWatcher, RuntimeError> {
    let path = std::path::absolute(path).map_err(|source| RuntimeError::NoAbsolutePath {
        path: path.to_path_buf(),
        source,
    })?;
    let folder = path
        .parent()
        .ok_or_else(|| RuntimeError::NoFolderToWatch { path: path.clone() })?
        .to_path_buf();
    // A plan kept as a link is edited where it lives: watch that folder too.
    let linked = crate::config::atomic::save_target(&path);
    let linked = std::path::absolute(&linked).unwrap_or(linked);
    let linked_folder = linked.parent().map(Path::to_path_buf).filter(|f| *f != folder);
    let names: Vec<_> = [path.file_name(), linked.file_name()]
        .into_iter()
        .flatten()
        .map(|n| n.to_os_string())
        .collect();
    let (tx, rx) = mpsc::channel::<()>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && !matches!(event.kind, EventKind::Access(_))
            && event
                .paths
                .iter()
                .any(|p| p.file_name().is_some_and(|n| names.iter().any(|name| name == n)))
        {
            let _ = tx.send(());
        }
    })
    .map_err(|source| RuntimeError::CannotWatch {
        folder: folder.clone(),
        source,
    })?;
    for folder in std::iter::once(&folder).chain(&linked_folder) {
        watcher
            .watch(folder, RecursiveMode::NonRecursive)
            .map_err(|source| RuntimeError::CannotWatch {
                folder: folder.clone(),
                source,
            })?;
    }
    let file = path.clone();
    thread::Builder::new()
        .name("gpuplan-watch".to_string())
        .spawn(move || {
            while rx.recv().is_ok() {
                loop {
                    match rx.recv_timeout(DEBOUNCE) {
                        Ok(()) => {}
                        Err(mpsc::RecvTimeoutError::Timeout) => break,
                        // The watcher was replaced (another plan opened): report nothing.
                        Err(mpsc::RecvTimeoutError::Disconnected) => return,
                    }
                }
                if results.send(read_changed_plan(&file, &catalog)).is_err() {
                    break;
                }
            }
        })
        .map_err(RuntimeError::CannotStartWatcher)?;
    Ok(PlanWatcher {
        _watcher: watcher,
        path,
    })
}

/// The plan file as it now is on disk, for the app.
pub fn read_changed_plan(path: &Path, catalog: &Catalog) -> Action {
    let shown = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => match read_plan_file_text(path, &text, catalog) {
            Ok(plan) => Action::PlanChangedOnDisk {
                path: path.to_path_buf(),
                plan: Box::new(plan),
                text,
            },
            Err(diagnostics) => Action::PlanInvalidOnDisk {
                path: path.to_path_buf(),
                message: diagnostics.iter().map(|d| d.headline()).collect::<Vec<_>>().join("; "),
            },
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Action::PlanInvalidOnDisk {
            path: path.to_path_buf(),
            message: format!("{shown}: the file is gone (moved or deleted); save to write it again"),
        },
        Err(e) => Action::PlanInvalidOnDisk {
            path: path.to_path_buf(),
            message: format!("{shown}: cannot read: {e}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::plan_file::DEFAULT_PLAN_TOML;

    #[cfg(unix)]
    #[test]
    fn a_plan_kept_as_a_link_is_watched_where_it_lives() {
        let dir = tempfile::tempdir().expect("tempdir");
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).expect("folder");
        let real = shared.join("team.toml");
        std::fs::write(&real, DEFAULT_PLAN_TOML).expect("plan");
        let link = dir.path().join("plan.toml");
        std::os::unix::fs::symlink(&real, &link).expect("link");
        let catalog = crate::config::catalog::builtin().catalog;
        let (results, actions) = crossbeam_channel::unbounded();
        let _watcher = watch_plan(&link, catalog, results).expect("watch");
        // Edited where it lives, as another editor would, with a new name for the plan.
        let edited = DEFAULT_PLAN_TOML.replacen("name = \"", "name = \"edited ", 1);
        assert_ne!(edited, DEFAULT_PLAN_TOML);
        std::fs::write(&real, &edited).expect("edit");
        match actions.recv_timeout(Duration::from_secs(5)) {
            Ok(Action::PlanChangedOnDisk { text, .. }) => assert_eq!(text, edited),
            other => panic!("expected the edited plan, got {other:?}"),
        }
    }
}
