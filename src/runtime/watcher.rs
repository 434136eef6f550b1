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
/// A plan that parses but has lost a whole section its last read had (`[[clusters]]`, `[[logs]]`,
/// `[forecast]`) is most often a file written in pieces, closed between them: it is held this
/// long, "being written" on screen, and read if it still stands. A section deleted on purpose
/// shows this much later.
pub const LOST_SECTION_WAIT: Duration = Duration::from_secs(8);
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
    // What the plan holds now, read before anything can change it.
    let sections = sections_of(&std::fs::read(&file));
    thread::Builder::new()
        .name("gpuplan-watch".to_string())
        .spawn(move || {
            let mut settling = Settling {
                file,
                events: rx,
                writer_open: false,
                sections,
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
    /// The top-level sections of the plan last read (or found at the start).
    sections: Option<std::collections::BTreeSet<String>>,
}

/// The top-level sections of a plan's bytes; None when they do not parse as TOML.
fn sections_of(bytes: &std::io::Result<Vec<u8>>) -> Option<std::collections::BTreeSet<String>> {
    let text = std::str::from_utf8(bytes.as_ref().ok()?).ok()?;
    let table: toml::Table = text.parse().ok()?;
    Some(table.keys().cloned().collect())
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

    /// Tells the app, once a wait, that the file is being written; false when the app is gone.
    fn tell_being_written(&self, results: &Sender<Action>, told: &mut bool) -> bool {
        if *told {
            return true;
        }
        *told = true;
        results
            .send(Action::PlanBeingWritten {
                path: self.file.clone(),
            })
            .is_ok()
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
        // Since when a settled file that lost a section has been held.
        let mut held_since: Option<Instant> = None;
        loop {
            if !self.take_events_until(Instant::now() + SETTLE) {
                return None;
            }
            let now = Snapshot::take(&self.file);
            if !self.writer_open && now.look == last.look {
                let found = sections_of(&now.bytes);
                let lost = matches!((&self.sections, &found), (Some(had), Some(has)) if !had.is_subset(has));
                if lost && held_since.is_none_or(|since| since.elapsed() < LOST_SECTION_WAIT) {
                    held_since.get_or_insert_with(Instant::now);
                    if !self.tell_being_written(results, &mut told) {
                        return None;
                    }
                    last = now;
                    continue;
                }
                if found.is_some() {
                    self.sections = found;
                }
                return Some(plan_from_bytes(&self.file, now.bytes, catalog));
            }
            held_since = None;
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
            if !self.tell_being_written(results, &mut told) {
                return None;
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

    /// The shipped plan in a folder of its own, and the built-in catalog.
    fn shipped_plan() -> (tempfile::TempDir, PathBuf, Catalog) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("plan.toml");
        std::fs::write(&path, DEFAULT_PLAN_TOML).expect("plan");
        (dir, path, crate::config::catalog::builtin().catalog)
    }

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
        let (_dir, path, catalog) = shipped_plan();
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

    /// Issue 67, finding 9: the first half written and closed, the rest appended 4 s later (as
    /// `head -n … > plan.toml; sleep 4; tail -n … >> plan.toml` does). The half parses but has
    /// lost `[[clusters]]`: it is held as being written, never shown, and the whole is read.
    #[test]
    fn a_half_plan_closed_between_its_halves_is_held_not_shown() {
        use std::io::Write;
        let (_dir, path, catalog) = shipped_plan();
        let (results, actions) = crossbeam_channel::unbounded();
        let _watcher = watch_plan(&path, catalog.clone(), results).expect("watch");
        let whole = DEFAULT_PLAN_TOML.replacen("name = \"", "name = \"rewritten ", 1);
        let half = whole.find("[[clusters]]").expect("clusters");
        assert!(
            read_plan_file_text(&path, &whole[..half], &catalog).is_ok(),
            "the half must parse for the fault to bite"
        );
        std::fs::write(&path, &whole[..half]).expect("first half, closed");
        std::thread::sleep(Duration::from_secs(4));
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(&whole.as_bytes()[half..]))
            .expect("the rest");
        let deadline = Instant::now() + Duration::from_secs(8);
        loop {
            match actions.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(Action::PlanBeingWritten { .. }) => {}
                Ok(Action::PlanChangedOnDisk { text, plan, .. }) => {
                    assert_eq!(plan.clusters.len(), 4, "a half plan was shown");
                    assert_eq!(text, whole);
                    break;
                }
                other => panic!("expected the whole plan, got {other:?}"),
            }
        }
    }

    /// A section deleted on purpose is read, only later.
    #[test]
    fn a_section_deleted_on_purpose_is_read_after_the_hold() {
        let (_dir, path, catalog) = shipped_plan();
        let (results, actions) = crossbeam_channel::unbounded();
        let _watcher = watch_plan(&path, catalog, results).expect("watch");
        let cut = DEFAULT_PLAN_TOML[..DEFAULT_PLAN_TOML.find("[[clusters]]").expect("clusters")].to_string();
        let started = Instant::now();
        std::fs::write(&path, &cut).expect("clusters deleted");
        loop {
            match actions.recv_timeout(LOST_SECTION_WAIT + Duration::from_secs(5)) {
                Ok(Action::PlanBeingWritten { .. }) => {}
                Ok(Action::PlanChangedOnDisk { plan, .. }) => {
                    assert!(plan.clusters.is_empty());
                    assert!(started.elapsed() >= LOST_SECTION_WAIT, "{:?}", started.elapsed());
                    break;
                }
                other => panic!("expected the cut plan, got {other:?}"),
            }
        }
    }
}
