//! The user's key map, `keys.toml` in the config folder: command names to keys, merged over
//! the defaults. A bad entry is reported with file, line and key; the default stands.
//!
//! ```toml
//! [keys]
//! quit = "x"                          # one key
//! "value.increase" = ["right", "+"]   # or several
//! ```

use std::path::Path;

use crate::app::command::KeyMap;
use crate::config::diagnostic::Diagnostic;
use crate::config::locate::{key_segment, locate_key_path};

pub fn load_keymap(path: &Path) -> (KeyMap, Vec<Diagnostic>) {
    let file = path.display().to_string();
    let Ok(text) = std::fs::read_to_string(path) else {
        // No file: the defaults.
        return (KeyMap::default(), Vec::new());
    };
    parse_keymap(&file, &text)
}

pub fn parse_keymap(file: &str, text: &str) -> (KeyMap, Vec<Diagnostic>) {
    let mut warnings = Vec::new();
    let table: toml::Table = match toml::from_str(text) {
        Ok(table) => table,
        Err(e) => {
            warnings.push(Diagnostic::toml(file, text, &e));
            return (KeyMap::default(), warnings);
        }
    };
    let mut user = Vec::new();
    let keys = table.get("keys").and_then(toml::Value::as_table);
    for (name, value) in keys.into_iter().flatten() {
        let key_path = format!("keys.{}", key_segment(name));
        let list = match value {
            toml::Value::String(s) => vec![s.clone()],
            toml::Value::Array(items) => items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect(),
            other => {
                warnings.push(Diagnostic::at(
                    file,
                    text,
                    locate_key_path(text, &key_path),
                    Some(key_path),
                    format!("expected a key or a list of keys, found {}", other.type_str()),
                ));
                continue;
            }
        };
        user.push((name.clone(), list));
    }
    let (map, problems) = KeyMap::default().with_user_bindings(&user);
    for problem in problems {
        let key_path = format!("keys.{}", key_segment(problem.command_name()));
        warnings.push(Diagnostic::at(
            file,
            text,
            locate_key_path(text, &key_path),
            Some(key_path),
            problem.to_string(),
        ));
    }
    (map, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::command::CommandId;
    use crate::app::key::Key;

    #[test]
    fn user_keys_apply_and_mistakes_name_their_line() {
        let text = "[keys]\nquit = \"x\"\n\"plan.save\" = [\"ctrl-w\", \"F2\"]\nfly = \"z\"\n";
        let (map, warnings) = parse_keymap("keys.toml", text);
        assert_eq!(map.command_for(Key::char('x')), Some(CommandId::Quit));
        assert_eq!(map.command_for(Key::ctrl('w')), Some(CommandId::Save));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].to_string().contains("keys.toml:4:"), "{}", warnings[0]);
    }

    #[test]
    fn a_bad_key_is_placed_at_its_command_even_when_the_name_holds_a_colon() {
        // The command's line comes from the typed problem, not from splitting its message.
        let text = "[keys]\nquit = \"x\"\n\"plan.save\" = \"ctrl-\"\n\"a:b\" = \"q\"\n";
        let (_, warnings) = parse_keymap("keys.toml", text);
        let shown: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 2, "{shown:?}");
        assert!(
            shown[1].contains("keys.toml:3:") && shown[1].contains("plan.save: "),
            "{shown:?}"
        );
        assert!(
            shown[0].contains("keys.toml:4:") && shown[0].contains("'a:b' is not a command"),
            "{shown:?}"
        );
    }
}
