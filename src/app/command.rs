//! Every command of the workbench in one list: the key map, the palette, the help screen and
//! the key hints all read it, so a binding shows the same everywhere.

use std::collections::BTreeMap;

use super::error::InputError;
use super::key::{Key, KeyCode};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommandId {
    Quit,
    Help,
    Palette,
    NextPane,
    PrevPane,
    FocusWorkloads,
    FocusMfu,
    FocusInference,
    FocusRisk,
    FocusContracts,
    FocusForecast,
    Up,
    Down,
    PageUp,
    PageDown,
    ScrollTop,
    ScrollBottom,
    Zoom,
    Decrease,
    Increase,
    DecreaseCoarse,
    IncreaseCoarse,
    Edit,
    Drill,
    Back,
    Save,
    SaveAs,
    Undo,
    Redo,
    OpenFile,
    NextTheme,
    Reload,
    ReadNotices,
    Compare,
    ExportReport,
}

pub struct CommandSpec {
    pub id: CommandId,
    /// The stable name key maps use, e.g. `slider.increase`.
    pub name: &'static str,
    pub title: &'static str,
    /// What it does in the domain's words: the help shows it and the palette searches it.
    pub help: &'static str,
    pub default_keys: &'static [Key],
}

const fn k(code: KeyCode) -> Key {
    Key::plain(code)
}

pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        id: CommandId::Help,
        name: "help",
        title: "Help: every key binding",
        help: "every key, what each command does, and the mouse",
        default_keys: &[Key::char('?'), k(KeyCode::F(1))],
    },
    CommandSpec {
        id: CommandId::Palette,
        name: "palette",
        title: "Command palette",
        help: "find a command, an accelerator, a cluster, a theme or a file by any word of its help",
        default_keys: &[Key::char(':'), Key::ctrl('p')],
    },
    CommandSpec {
        id: CommandId::NextPane,
        name: "pane.next",
        title: "Next pane",
        help: "move the focus to the next pane",
        default_keys: &[k(KeyCode::Tab)],
    },
    CommandSpec {
        id: CommandId::PrevPane,
        name: "pane.previous",
        title: "Previous pane",
        help: "move the focus to the previous pane",
        default_keys: &[k(KeyCode::BackTab)],
    },
    CommandSpec {
        id: CommandId::FocusWorkloads,
        name: "pane.workloads",
        title: "Go to Workloads",
        help: "workload classes (training, inference, burst), clusters, utilization, paid capacity as never allocated, allocated idle and busy, stranded spend (paid, not working), rows set aside",
        default_keys: &[Key::char('1')],
    },
    CommandSpec {
        id: CommandId::FocusMfu,
        name: "pane.mfu",
        title: "Go to MFU & sensitivity",
        help: "MFU sliders per accelerator, the run's cost, the sensitivity table and the MFU-versus-cost chart",
        default_keys: &[Key::char('2')],
    },
    CommandSpec {
        id: CommandId::FocusInference,
        name: "pane.inference",
        title: "Go to Inference",
        help: "inference economics: cost per token, break-even against a serverless API, self-hosting saving",
        default_keys: &[Key::char('3')],
    },
    CommandSpec {
        id: CommandId::FocusRisk,
        name: "pane.risk",
        title: "Go to Risk",
        help: "probability-weighted risk, Monte Carlo P50/P90/P99 of the run, the failure rules and checks",
        default_keys: &[Key::char('4')],
    },
    CommandSpec {
        id: CommandId::FocusContracts,
        name: "pane.contracts",
        title: "Go to Contracts",
        help: "contract terms (monthly, year-long, build-to-order, spot), bare metal versus VM, the board's savings waterfall, range, causes and payback, the replay of a split",
        default_keys: &[Key::char('5')],
    },
    CommandSpec {
        id: CommandId::FocusForecast,
        name: "pane.forecast",
        title: "Go to Forecast",
        help: "demand forecast per class, growth, horizon, prediction intervals and commitment layers",
        default_keys: &[Key::char('6')],
    },
    CommandSpec {
        id: CommandId::Up,
        name: "cursor.up",
        title: "Select the row above",
        help: "the row above in the focused pane; with none above to select, the pane scrolls a line",
        default_keys: &[k(KeyCode::Up), Key::char('k')],
    },
    CommandSpec {
        id: CommandId::Down,
        name: "cursor.down",
        title: "Select the row below",
        help: "the row below in the focused pane; with none below to select, the pane scrolls a line",
        default_keys: &[k(KeyCode::Down), Key::char('j')],
    },
    CommandSpec {
        id: CommandId::PageUp,
        name: "scroll.page_up",
        title: "Scroll the pane a page up",
        help: "show the page above in the focused pane (the mouse wheel scrolls the pane under the pointer)",
        default_keys: &[k(KeyCode::PageUp)],
    },
    CommandSpec {
        id: CommandId::PageDown,
        name: "scroll.page_down",
        title: "Scroll the pane a page down",
        help: "show the page below in the focused pane: every line a pane computes is in reach",
        default_keys: &[k(KeyCode::PageDown)],
    },
    CommandSpec {
        id: CommandId::ScrollTop,
        name: "scroll.top",
        title: "Scroll to the pane's first line",
        help: "show the top of the focused pane",
        default_keys: &[k(KeyCode::Home)],
    },
    CommandSpec {
        id: CommandId::ScrollBottom,
        name: "scroll.bottom",
        title: "Scroll to the pane's last line",
        help: "show the end of the focused pane (the replay's today-versus-split table in Contracts)",
        default_keys: &[k(KeyCode::End)],
    },
    CommandSpec {
        id: CommandId::Zoom,
        name: "pane.zoom",
        title: "Zoom the focused pane",
        help: "enlarge the focused pane to the whole screen, and back (Esc also returns)",
        default_keys: &[Key::char('z')],
    },
    CommandSpec {
        id: CommandId::Decrease,
        name: "value.decrease",
        title: "Decrease the selected value (fine step)",
        help: "a slider or value one fine step down (MFU, price, GPUs, growth)",
        default_keys: &[k(KeyCode::Left), Key::char('h'), Key::char('-')],
    },
    CommandSpec {
        id: CommandId::Increase,
        name: "value.increase",
        title: "Increase the selected value (fine step)",
        help: "a slider or value one fine step up (MFU, price, GPUs, growth)",
        default_keys: &[k(KeyCode::Right), Key::char('l'), Key::char('+')],
    },
    CommandSpec {
        id: CommandId::DecreaseCoarse,
        name: "value.decrease_coarse",
        title: "Decrease the selected value (coarse step)",
        help: "a slider or value one coarse step down",
        default_keys: &[Key::shift(KeyCode::Left), Key::char('H'), Key::char('[')],
    },
    CommandSpec {
        id: CommandId::IncreaseCoarse,
        name: "value.increase_coarse",
        title: "Increase the selected value (coarse step)",
        help: "a slider or value one coarse step up",
        default_keys: &[Key::shift(KeyCode::Right), Key::char('L'), Key::char(']')],
    },
    CommandSpec {
        id: CommandId::Edit,
        name: "value.enter",
        title: "Type the selected value",
        help: "type a number (with k, M, B or %) for the selected value",
        default_keys: &[Key::char('e'), Key::char('=')],
    },
    CommandSpec {
        id: CommandId::Drill,
        name: "drill",
        title: "Drill into the selection",
        help: "open the selection's detail: a cluster, a class, a job, a check",
        default_keys: &[k(KeyCode::Enter)],
    },
    CommandSpec {
        id: CommandId::Back,
        name: "back",
        title: "Back out of a drill or dialog",
        help: "close a drill, a dialog or the palette",
        default_keys: &[k(KeyCode::Esc), k(KeyCode::Backspace)],
    },
    CommandSpec {
        id: CommandId::Save,
        name: "plan.save",
        title: "Save the plan",
        help: "write the plan file (TOML) naming the data it reads, atomically; asks a path when there is none",
        default_keys: &[Key::ctrl('s')],
    },
    CommandSpec {
        id: CommandId::SaveAs,
        name: "plan.save_as",
        title: "Save the plan to another file",
        help: "write the plan to a path you type (Tab completes; the folder must exist)",
        default_keys: &[Key::char('S')],
    },
    CommandSpec {
        id: CommandId::Undo,
        name: "edit.undo",
        title: "Undo the last edit",
        help: "take back the last edit",
        default_keys: &[Key::char('u'), Key::ctrl('z')],
    },
    CommandSpec {
        id: CommandId::Redo,
        name: "edit.redo",
        title: "Redo",
        help: "apply the edit undone last again",
        default_keys: &[Key::ctrl('r'), Key::ctrl('y')],
    },
    CommandSpec {
        id: CommandId::OpenFile,
        name: "file.open",
        title: "Open a log or plan file",
        help: "open a job log or a plan file by name",
        default_keys: &[Key::char('o'), Key::ctrl('o')],
    },
    CommandSpec {
        id: CommandId::Compare,
        name: "plan.compare",
        title: "Compare with another plan",
        help: "compare this plan with another plan file, as gpuplan diff does",
        default_keys: &[Key::char('c')],
    },
    CommandSpec {
        id: CommandId::Reload,
        name: "logs.reload",
        title: "Read the logs again",
        help: "read the logs again from disk",
        default_keys: &[Key::char('r')],
    },
    CommandSpec {
        id: CommandId::ReadNotices,
        name: "logs.notices",
        title: "What reading the logs said",
        help: "each file's warnings and the rows set aside, with example rows",
        default_keys: &[Key::char('W')],
    },
    CommandSpec {
        id: CommandId::ExportReport,
        name: "report.export",
        title: "Export the report files",
        help: "write the report files (JSON, Markdown) as gpuplan report does",
        default_keys: &[Key::char('X')],
    },
    CommandSpec {
        id: CommandId::NextTheme,
        name: "theme.next",
        title: "Next colour theme",
        help: "switch the colour theme",
        default_keys: &[Key::char('t')],
    },
    CommandSpec {
        id: CommandId::Quit,
        name: "quit",
        title: "Quit (asks first when the plan has unsaved edits)",
        help: "leave the workbench",
        default_keys: &[Key::char('q'), Key::ctrl('c')],
    },
];

pub fn spec(id: CommandId) -> &'static CommandSpec {
    COMMANDS.iter().find(|c| c.id == id).unwrap_or(&COMMANDS[0])
}

/// The bindings in force: the defaults, with a user's bindings for a command replacing its
/// defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyMap {
    bindings: BTreeMap<CommandId, Vec<Key>>,
}

impl Default for KeyMap {
    fn default() -> KeyMap {
        KeyMap {
            bindings: COMMANDS.iter().map(|c| (c.id, c.default_keys.to_vec())).collect(),
        }
    }
}

/// A user binding that could not be used; the default binding stands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindingProblem {
    #[error("'{name}' is not a command; the commands are: {}", command_names())]
    UnknownCommand { name: String },
    #[error("{command}: {problem}")]
    BadKey { command: String, problem: InputError },
}

impl BindingProblem {
    /// The command name the user wrote: the key of the entry in the key map.
    pub fn command_name(&self) -> &str {
        match self {
            BindingProblem::UnknownCommand { name } => name,
            BindingProblem::BadKey { command, .. } => command,
        }
    }
}

fn command_names() -> String {
    COMMANDS.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
}

impl KeyMap {
    /// Applies user bindings (command name → keys). Returns a problem per entry it could not use.
    pub fn with_user_bindings(mut self, user: &[(String, Vec<String>)]) -> (KeyMap, Vec<BindingProblem>) {
        let mut problems = Vec::new();
        for (name, keys) in user {
            let Some(command) = COMMANDS.iter().find(|c| c.name == name) else {
                problems.push(BindingProblem::UnknownCommand { name: name.clone() });
                continue;
            };
            let mut parsed = Vec::new();
            for key in keys {
                match Key::parse(key) {
                    Ok(key) => parsed.push(key),
                    Err(problem) => problems.push(BindingProblem::BadKey {
                        command: name.clone(),
                        problem,
                    }),
                }
            }
            if !parsed.is_empty() {
                // A key moves to its new command.
                for other in self.bindings.values_mut() {
                    other.retain(|k| !parsed.contains(k));
                }
                self.bindings.insert(command.id, parsed);
            }
        }
        (self, problems)
    }

    pub fn command_for(&self, key: Key) -> Option<CommandId> {
        self.bindings
            .iter()
            .find(|(_, keys)| keys.contains(&key))
            .map(|(id, _)| *id)
    }

    pub fn keys_for(&self, id: CommandId) -> &[Key] {
        self.bindings.get(&id).map_or(&[], Vec::as_slice)
    }

    /// The first binding of a command as the user types it, e.g. `Ctrl-S`; empty when unbound.
    pub fn hint(&self, id: CommandId) -> String {
        self.keys_for(id).first().map(ToString::to_string).unwrap_or_default()
    }

    /// Every binding of a command, e.g. `↑ k`.
    pub fn all_hints(&self, id: CommandId) -> String {
        self.keys_for(id)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice_by_default() {
        let mut seen = std::collections::HashSet::new();
        for command in COMMANDS {
            for key in command.default_keys {
                assert!(seen.insert(*key), "{key} is bound twice");
            }
        }
    }

    #[test]
    fn user_bindings_replace_defaults_and_report_mistakes() {
        let user = vec![
            ("quit".to_string(), vec!["x".to_string()]),
            ("nonsense".to_string(), vec!["y".to_string()]),
            ("help".to_string(), vec!["hyper-q".to_string()]),
        ];
        let (map, problems) = KeyMap::default().with_user_bindings(&user);
        assert_eq!(map.command_for(Key::char('x')), Some(CommandId::Quit));
        assert_eq!(map.command_for(Key::char('q')), None);
        assert_eq!(map.command_for(Key::char('?')), Some(CommandId::Help));
        assert_eq!(problems.len(), 2, "{problems:?}");
    }
}
