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

use crate::app::Action;
use crate::config::plan_file::read_plan_text;
use crate::model::catalog::Catalog;

/// Editors write in bursts (temp file, rename, chmod); one read after the burst settles.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

pub struct PlanWatcher {
    /// Dropping the watcher stops its events, which ends the debounce thread.
    _watcher: RecommendedWatcher,
    pub path: PathBuf,
}

pub fn watch_plan(path: &Path, catalog: Catalog, results: Sender<Action>) -> Result<PlanWatcher, String> {
    let path = std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let folder = path
        .parent()
        .ok_or_else(|| format!("{}: no parent folder to watch", path.display()))?
        .to_path_buf();
    let name = path.file_name().map(|n| n.to_os_string());
    let (tx, rx) = mpsc::channel::<()>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && !matches!(event.kind, EventKind::Access(_))
            && event
                .paths
                .iter()
                .any(|p| p.file_name().map(|n| n.to_os_string()) == name)
        {
            let _ = tx.send(());
        }
    })
    .map_err(|e| format!("cannot watch {}: {e}", folder.display()))?;
    watcher
        .watch(&folder, RecursiveMode::NonRecursive)
        .map_err(|e| format!("cannot watch {}: {e}", folder.display()))?;
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
        .map_err(|e| format!("cannot start the file watcher: {e}"))?;
    Ok(PlanWatcher {
        _watcher: watcher,
        path,
    })
}

/// The plan file as it now is on disk, for the app.
pub fn read_changed_plan(path: &Path, catalog: &Catalog) -> Action {
    let shown = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => match read_plan_text(&shown, &text, catalog) {
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
