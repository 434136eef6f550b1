//! The command palette and file picker: one fuzzy list over commands, accelerators, clusters,
//! saved plans and log files, each entry with the key that runs it directly.

use std::path::{Path, PathBuf};

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::App;
use super::command::{COMMANDS, CommandId};

/// What the palette lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaletteMode {
    /// Everything.
    All,
    /// Log and plan files to open.
    Files,
    /// Plans to compare with the current one.
    Compare,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PaletteState {
    pub mode: PaletteMode,
    pub query: String,
    pub selected: usize,
}

impl PaletteState {
    pub fn new(mode: PaletteMode) -> PaletteState {
        PaletteState {
            mode,
            query: String::new(),
            selected: 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum PaletteTarget {
    Command(CommandId),
    Accelerator(usize),
    Cluster(usize),
    OpenPlan(PathBuf),
    OpenLog(PathBuf),
    ComparePlan(PathBuf),
    Theme(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub struct PaletteEntry {
    /// What kind of entry, e.g. `command`, `accelerator`.
    pub kind: &'static str,
    pub label: String,
    /// The key that runs it without the palette, when it has one.
    pub key_hint: String,
    pub target: PaletteTarget,
}

fn is_plan_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

fn all_entries(app: &App, mode: PaletteMode) -> Vec<PaletteEntry> {
    let mut entries = Vec::new();
    let plans = app
        .known_plans
        .iter()
        .chain(app.known_files.iter().filter(|p| is_plan_file(p)));
    match mode {
        PaletteMode::Compare => {
            let mut seen = std::collections::HashSet::new();
            for path in plans.filter(|p| seen.insert(p.to_path_buf())) {
                entries.push(PaletteEntry {
                    kind: "compare",
                    label: display(path),
                    key_hint: String::new(),
                    target: PaletteTarget::ComparePlan(path.clone()),
                });
            }
            return entries;
        }
        PaletteMode::Files => {}
        PaletteMode::All => {
            for command in COMMANDS {
                entries.push(PaletteEntry {
                    kind: "command",
                    label: command.title.to_string(),
                    key_hint: app.keymap.hint(command.id),
                    target: PaletteTarget::Command(command.id),
                });
            }
            for (i, accelerator) in app.plan.accelerators.iter().enumerate() {
                entries.push(PaletteEntry {
                    kind: "accelerator",
                    label: format!("MFU slider: {}", accelerator.id),
                    key_hint: app.keymap.hint(CommandId::FocusMfu),
                    target: PaletteTarget::Accelerator(i),
                });
            }
            if let Some(fleet) = &app.fleet {
                for (i, cluster) in fleet.report.clusters.iter().enumerate() {
                    entries.push(PaletteEntry {
                        kind: "cluster",
                        label: format!("Cluster: {}", cluster.name),
                        key_hint: app.keymap.hint(CommandId::FocusWorkloads),
                        target: PaletteTarget::Cluster(i),
                    });
                }
            }
            for (i, theme) in app.theme_names.iter().enumerate() {
                entries.push(PaletteEntry {
                    kind: "theme",
                    label: format!("Theme: {theme}"),
                    key_hint: app.keymap.hint(CommandId::NextTheme),
                    target: PaletteTarget::Theme(i),
                });
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    for path in app.known_plans.iter().chain(app.known_files.iter()) {
        if !seen.insert(path.clone()) {
            continue;
        }
        let (kind, target) = if is_plan_file(path) {
            ("plan", PaletteTarget::OpenPlan(path.clone()))
        } else {
            ("log", PaletteTarget::OpenLog(path.clone()))
        };
        entries.push(PaletteEntry {
            kind,
            label: display(path),
            key_hint: app.keymap.hint(CommandId::OpenFile),
            target,
        });
    }
    entries
}

/// How far commands, accelerators and clusters rank above files that match as well.
const FILE_PENALTY: i64 = 30;
/// A command found only by a word of its help ranks below what matches by name.
const HELP_MATCH_SCORE: i64 = 1;

/// The entries matching the query, best first; all of them, in list order, for an empty query.
pub fn matches(app: &App, state: &PaletteState) -> Vec<PaletteEntry> {
    let entries = all_entries(app, state.mode);
    if state.query.trim().is_empty() {
        return entries;
    }
    let matcher = SkimMatcherV2::default().ignore_case();
    let mut scored: Vec<(i64, usize, PaletteEntry)> = entries
        .into_iter()
        .enumerate()
        .filter_map(|(i, e)| {
            // Files match on their name (then their path), and rank after what is in the plan
            // and the fleet.
            let (haystack, bonus) = match e.target {
                PaletteTarget::OpenLog(_) | PaletteTarget::OpenPlan(_) | PaletteTarget::ComparePlan(_) => {
                    let name = Path::new(&e.label)
                        .file_name()
                        .map_or_else(|| e.label.clone(), |n| n.to_string_lossy().to_string());
                    (format!("{} {name} {}", e.kind, e.label), 0)
                }
                _ => (format!("{} {}", e.kind, e.label), FILE_PENALTY),
            };
            let query = state.query.trim();
            // A command is found by any word of its help too ("stranded" finds the Workloads
            // pane), after what matches by name: a word, not a scatter of letters in a sentence.
            let in_help = || match e.target {
                PaletteTarget::Command(id) => COMMANDS
                    .iter()
                    .find(|c| c.id == id)
                    .is_some_and(|c| c.help.to_lowercase().contains(&query.to_lowercase()))
                    .then_some(HELP_MATCH_SCORE),
                _ => None,
            };
            matcher
                .fuzzy_match(&haystack, query)
                .map(|s| s + bonus)
                .or_else(in_help)
                .map(|s| (s, i, e))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, _, e)| e).collect()
}
