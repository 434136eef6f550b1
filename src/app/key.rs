//! Keys as the workbench understands them, independent of the terminal library: the runtime
//! translates terminal events into these, and key maps are written in their notation.

use std::fmt;

use super::error::InputError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyCode {
    Char(char),
    Enter,
    Esc,
    Tab,
    BackTab,
    Backspace,
    Delete,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    F(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
    /// Only for non-character keys: a shifted letter arrives as its capital.
    pub shift: bool,
}

impl Key {
    pub const fn plain(code: KeyCode) -> Key {
        Key {
            code,
            ctrl: false,
            alt: false,
            shift: false,
        }
    }

    pub const fn char(c: char) -> Key {
        Key::plain(KeyCode::Char(c))
    }

    pub const fn ctrl(c: char) -> Key {
        Key {
            code: KeyCode::Char(c),
            ctrl: true,
            alt: false,
            shift: false,
        }
    }

    pub const fn shift(code: KeyCode) -> Key {
        Key {
            code,
            ctrl: false,
            alt: false,
            shift: true,
        }
    }

    /// Parses the notation of key maps: `q`, `?`, `ctrl-p`, `shift-right`, `alt-x`, `enter`,
    /// `esc`, `tab`, `backtab`, `space`, `f5`, `pageup`.
    pub fn parse(text: &str) -> Result<Key, InputError> {
        let lowered = text.trim();
        if lowered.is_empty() {
            return Err(InputError::EmptyKey);
        }
        let mut key = Key::char(' ');
        let mut rest = lowered;
        loop {
            let lower = rest.to_ascii_lowercase();
            if let Some(r) = lower.strip_prefix("ctrl-").or_else(|| lower.strip_prefix("c-")) {
                key.ctrl = true;
                rest = &rest[rest.len() - r.len()..];
            } else if let Some(r) = lower.strip_prefix("alt-").or_else(|| lower.strip_prefix("a-")) {
                key.alt = true;
                rest = &rest[rest.len() - r.len()..];
            } else if let Some(r) = lower.strip_prefix("shift-").or_else(|| lower.strip_prefix("s-")) {
                key.shift = true;
                rest = &rest[rest.len() - r.len()..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        key.code = match (chars.next(), chars.next()) {
            (Some(c), None) => {
                if key.ctrl {
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pageup" | "pgup" => KeyCode::PageUp,
                "pagedown" | "pgdn" => KeyCode::PageDown,
                "space" => KeyCode::Char(' '),
                other => match other.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                    Some(n) if (1..=12).contains(&n) => KeyCode::F(n),
                    _ => {
                        return Err(InputError::NotAKey { text: text.to_string() });
                    }
                },
            },
        };
        // Terminals send Shift-Tab as BackTab and a shifted letter as its capital.
        if key.code == KeyCode::Tab && key.shift {
            key = Key::plain(KeyCode::BackTab);
        }
        if let KeyCode::Char(c) = key.code
            && key.shift
            && !key.ctrl
            && !key.alt
        {
            key.code = KeyCode::Char(c.to_ascii_uppercase());
        }
        if matches!(key.code, KeyCode::Char(_)) && !key.ctrl && !key.alt {
            key.shift = false;
        }
        Ok(key)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl-")?;
        }
        if self.alt {
            f.write_str("Alt-")?;
        }
        if self.shift {
            f.write_str("Shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) if self.ctrl => write!(f, "{}", c.to_ascii_uppercase()),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift-Tab"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Delete => f.write_str("Delete"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::F(n) => write!(f, "F{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_key_map_notation() {
        assert_eq!(Key::parse("q"), Ok(Key::char('q')));
        assert_eq!(Key::parse("ctrl-p"), Ok(Key::ctrl('p')));
        assert_eq!(Key::parse("Ctrl-P"), Ok(Key::ctrl('p')));
        assert_eq!(Key::parse("shift-right"), Ok(Key::shift(KeyCode::Right)));
        assert_eq!(Key::parse("space"), Ok(Key::char(' ')));
        assert_eq!(Key::parse("f5"), Ok(Key::plain(KeyCode::F(5))));
        assert_eq!(Key::parse("shift-tab"), Ok(Key::plain(KeyCode::BackTab)));
        assert_eq!(Key::parse("shift-a"), Ok(Key::char('A')));
        assert!(Key::parse("ctrl-").is_err());
        assert!(Key::parse("hyper-x").is_err());
    }

    #[test]
    fn displays_what_the_user_presses() {
        assert_eq!(Key::ctrl('s').to_string(), "Ctrl-S");
        assert_eq!(Key::shift(KeyCode::Left).to_string(), "Shift-←");
        assert_eq!(Key::char('?').to_string(), "?");
    }
}
