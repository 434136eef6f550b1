//! Terminal events into the app's terms.

use crossterm::event::{KeyCode as TermKey, KeyEvent, KeyEventKind, KeyModifiers};

use crate::app::key::{Key, KeyCode};

/// The app's key for a terminal key press; None for releases and keys the app has no name for.
pub fn key_of(event: KeyEvent) -> Option<Key> {
    if event.kind == KeyEventKind::Release {
        return None;
    }
    let code = match event.code {
        TermKey::Char(c) => KeyCode::Char(c),
        TermKey::Enter => KeyCode::Enter,
        TermKey::Esc => KeyCode::Esc,
        TermKey::Tab => KeyCode::Tab,
        TermKey::BackTab => KeyCode::BackTab,
        TermKey::Backspace => KeyCode::Backspace,
        TermKey::Delete => KeyCode::Delete,
        TermKey::Up => KeyCode::Up,
        TermKey::Down => KeyCode::Down,
        TermKey::Left => KeyCode::Left,
        TermKey::Right => KeyCode::Right,
        TermKey::Home => KeyCode::Home,
        TermKey::End => KeyCode::End,
        TermKey::PageUp => KeyCode::PageUp,
        TermKey::PageDown => KeyCode::PageDown,
        TermKey::F(n) => KeyCode::F(n),
        _ => return None,
    };
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    let alt = event.modifiers.contains(KeyModifiers::ALT);
    let is_char = matches!(code, KeyCode::Char(_));
    Some(Key {
        code: match code {
            KeyCode::Char(c) if ctrl => KeyCode::Char(c.to_ascii_lowercase()),
            other => other,
        },
        ctrl,
        alt,
        // A shifted character arrives as itself ('L', '?'); shift matters for other keys.
        shift: !is_char && event.modifiers.contains(KeyModifiers::SHIFT) && code != KeyCode::BackTab,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_arrows_and_control_letters() {
        let shift_right = KeyEvent::new(TermKey::Right, KeyModifiers::SHIFT);
        assert_eq!(key_of(shift_right), Some(Key::shift(KeyCode::Right)));
        let ctrl_s = KeyEvent::new(TermKey::Char('s'), KeyModifiers::CONTROL);
        assert_eq!(key_of(ctrl_s), Some(Key::ctrl('s')));
        let capital = KeyEvent::new(TermKey::Char('L'), KeyModifiers::SHIFT);
        assert_eq!(key_of(capital), Some(Key::char('L')));
        let backtab = KeyEvent::new(TermKey::BackTab, KeyModifiers::SHIFT);
        assert_eq!(key_of(backtab), Some(Key::plain(KeyCode::BackTab)));
    }
}
