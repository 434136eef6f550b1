//! Watches the plan file for edits made elsewhere. Editors save by writing a new file and
//! renaming it over the old, so the folder is watched and events are filtered by name. Events
//! within the debounce window collapse into one read, and a file is read only once it has
//! settled: two looks at least 200 ms apart find the same size, mtime and content hash, and no
//! writer holds it open (where the system says so). A program writing the file in place, in
//! pieces, is waited for; the file is parsed whole, here, off the UI thread, and the app gets
//! either the new plan or the error to show.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::Sender;
use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::error::RuntimeError;
use crate::app::Action;
use crate::config::plan_file::read_plan_file_text;
use crate::model::catalog::Catalog;

/// Editors write in bursts (temp file, rename, chmod); one read after the burst settles.
pub const DEBOUNCE: Duration = Duration::from_millis(150);
/// Two looks this far apart that find the file the same: nobody is writing it.
pub const SETTLE: Duration = Duration::from_millis(200);
/// How long a write in progress is waited for before the wait is given up (the writer's
/// closing the file starts another).
pub const MOST_WAIT: Duration = Duration::from_secs(10);
/// Where inotify reports a writer closing the file, a file written but not yet closed is
/// still being written; elsewhere only the looks tell.
const CLOSES_REPORTED: bool = cfg!(any(target_os = "linux", target_os = "android"));

/// What an event says about the plan file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Its bytes changed in place: a writer holds it open until it closes.
    Written,
    /// A writer closed it.
    Closed,
    /// Renamed over, created or removed: another file now, which no writer of the old one holds.
    Replaced,
    /// Its mode or times changed.
    Changed,
}

impl Seen {
    fn of(kind: &EventKind) -> Option<Seen> {
        match kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write)) if CLOSES_REPORTED => Some(Seen::Closed),
            EventKind::Access(_) => None,
            EventKind::Modify(ModifyKind::Data(_)) if CLOSES_REPORTED => Some(Seen::Written),
            EventKind::Create(_) | EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_)) => {
                Some(Seen::Replaced)
            }
            _ => Some(Seen::Changed),
        }
    }
}

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
    let (tx, rx) = mpsc::channel::<Seen>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && let Some(seen) = Seen::of(&event.kind)
            && event
                .paths
                .iter()
                .any(|p| p.file_name().is_some_and(|n| names.iter().any(|name| name == n)))
        {
            let _ = tx.send(seen);
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
            let mut settling = Settling {
                file,
                events: rx,
                writer_open: false,
            };
            while let Ok(seen) = settling.events.recv() {
                settling.note(seen);
                // None: the watcher was replaced (another plan opened), or the app is gone.
                let Some(action) = settling.settle(&results, &catalog) else {
                    return;
                };
                if results.send(action).is_err() {
                    return;
                }
            }
        })
        .map_err(RuntimeError::CannotStartWatcher)?;
    Ok(PlanWatcher {
        _watcher: watcher,
        path,
    })
}

/// The plan file at one look: the same look twice, 200 ms apart, and the file has settled.
#[derive(Debug, PartialEq, Eq)]
struct Look {
    len: u64,
    modified: Option<SystemTime>,
    hash: u64,
}

/// The file's bytes as read, and its look (or why it cannot be read, by kind).
struct Snapshot {
    bytes: std::io::Result<Vec<u8>>,
    look: Result<Look, std::io::ErrorKind>,
}

impl Snapshot {
    fn take(path: &Path) -> Snapshot {
        let bytes = std::fs::read(path);
        let look = match (&bytes, &std::fs::metadata(path)) {
            (Ok(bytes), Ok(meta)) => Ok(Look {
                len: meta.len(),
                modified: meta.modified().ok(),
                hash: crate::config::atomic::content_hash(bytes),
            }),
            (Err(e), _) | (_, Err(e)) => Err(e.kind()),
        };
        Snapshot { bytes, look }
    }
}

/// The debounce thread's view of the plan file: its events, and whether a writer has it open.
struct Settling {
    file: PathBuf,
    events: mpsc::Receiver<Seen>,
    writer_open: bool,
}

impl Settling {
    fn note(&mut self, seen: Seen) {
        match seen {
            Seen::Written => self.writer_open = true,
            Seen::Closed | Seen::Replaced => self.writer_open = false,
            Seen::Changed => {}
        }
    }

    /// Takes in the events until `until`; false when the watcher is gone.
    fn take_events_until(&mut self, until: Instant) -> bool {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return true;
            }
            match self.events.recv_timeout(left) {
                Ok(seen) => self.note(seen),
                Err(mpsc::RecvTimeoutError::Timeout) => return true,
                Err(mpsc::RecvTimeoutError::Disconnected) => return false,
            }
        }
    }

    /// Waits for the file to settle and reads it whole; while it changes, the app is told
    /// once that it is being written. None when the watcher or the app is gone.
    fn settle(&mut self, results: &Sender<Action>, catalog: &Catalog) -> Option<Action> {
        let started = Instant::now();
        if !self.take_events_until(started + DEBOUNCE) {
            return None;
        }
        let mut last = Snapshot::take(&self.file);
        let mut told = false;
        loop {
            if !self.take_events_until(Instant::now() + SETTLE) {
                return None;
            }
            let now = Snapshot::take(&self.file);
            if !self.writer_open && now.look == last.look {
                return Some(plan_from_bytes(&self.file, now.bytes, catalog));
            }
            if started.elapsed() >= MOST_WAIT {
                // A close the watcher missed must not hold every later reload: the next change
                // starts a wait of its own.
                self.writer_open = false;
                return Some(Action::PlanInvalidOnDisk {
                    path: self.file.clone(),
                    message: format!(
                        "{}: still being written after {} s: not reloaded; it reloads once the writer is done",
                        self.file.display(),
                        MOST_WAIT.as_secs()
                    ),
                });
            }
            if !told {
                results
                    .send(Action::PlanBeingWritten {
                        path: self.file.clone(),
                    })
                    .ok()?;
                told = true;
            }
            last = now;
        }
    }
}

/// The plan file as it now is on disk, for the app.
pub fn read_changed_plan(path: &Path, catalog: &Catalog) -> Action {
    plan_from_bytes(path, std::fs::read(path), catalog)
}

/// The plan in `bytes`, read whole from `path`, or the error the app shows.
fn plan_from_bytes(path: &Path, bytes: std::io::Result<Vec<u8>>, catalog: &Catalog) -> Action {
    let shown = path.display().to_string();
    let text = bytes.and_then(|b| {
        String::from_utf8(b).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()))
    });
    match text {
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

    #[test]
    fn a_plan_written_in_place_in_two_halves_is_read_once_whole() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("plan.toml");
        std::fs::write(&path, DEFAULT_PLAN_TOML).expect("plan");
        let catalog = crate::config::catalog::builtin().catalog;
        let (results, actions) = crossbeam_channel::unbounded();
        let _watcher = watch_plan(&path, catalog, results).expect("watch");
        let whole = DEFAULT_PLAN_TOML.replacen("name = \"", "name = \"rewritten ", 1);
        // Up to the first [[clusters]]: a plan that parses, without the clusters.
        let half = whole.find("[[clusters]]").expect("clusters");
        let mut writer = std::fs::File::create(&path).expect("open in place");
        writer.write_all(&whole.as_bytes()[..half]).expect("first half");
        writer.flush().expect("flush");
        match actions.recv_timeout(Duration::from_secs(5)) {
            Ok(Action::PlanBeingWritten { .. }) => {}
            other => panic!("expected the wait to be told, got {other:?}"),
        }
        // Held open, unchanged for longer than the settle: still not read.
        std::thread::sleep(Duration::from_millis(800));
        assert!(actions.try_recv().is_err(), "the half file must not be read");
        writer.write_all(&whole.as_bytes()[half..]).expect("the rest");
        drop(writer);
        match actions.recv_timeout(Duration::from_secs(5)) {
            Ok(Action::PlanChangedOnDisk { text, plan, .. }) => {
                assert_eq!(text, whole);
                assert_eq!(plan.clusters.len(), 4);
            }
            other => panic!("expected the whole plan, got {other:?}"),
        }
    }
}
