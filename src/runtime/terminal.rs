//! The terminal in raw mode on the alternate screen, given back on every way out: normal
//! exit, error, a signal (runtime::signals) and panic (the hook restores it before the message
//! prints, and keeps the unsaved edits in their recovery file).

use std::io::{self, Stdout, Write};
use std::sync::Mutex;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Tui = Terminal<CrosstermBackend<Stdout>>;

/// Raw mode off, mouse tracking off, the normal screen back, the cursor shown. Errors are
/// ignored: a hung-up terminal cannot be restored, and the way out must go on.
pub fn restore() {
    let _ = disable_raw_mode();
    let mut out = io::stdout();
    let _ = execute!(out, DisableMouseCapture, LeaveAlternateScreen, crossterm::cursor::Show);
    let _ = out.flush();
}

/// Owns the terminal; dropping it restores the screen.
pub struct TerminalGuard {
    pub terminal: Tui,
}

impl TerminalGuard {
    pub fn enter() -> io::Result<TerminalGuard> {
        install_panic_hook();
        enable_raw_mode()?;
        let mut out = io::stdout();
        if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture, crossterm::cursor::Hide) {
            restore();
            return Err(e);
        }
        match Terminal::new(CrosstermBackend::new(out)) {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// The message of the last panic off the UI thread, for the error the worker reports.
pub fn last_panic() -> Option<String> {
    LAST_PANIC.lock().ok().and_then(|m| m.clone())
}

/// A panic on the UI thread gives the screen back, prints its message on the normal screen and
/// ends the process. A panic elsewhere (the worker, Polars' pool) is kept for the worker to
/// report as a failed job, and prints nothing over the screen.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some("main") {
            restore();
            // Best effort and panic-free: a panic inside this hook would abort the process.
            let written = super::recovery::write_kept();
            previous(info);
            if let Some(line) = super::recovery::farewell(written) {
                let _ = writeln!(io::stderr(), "{line}");
            }
            std::process::exit(101);
        }
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(info.to_string());
        }
    }));
}
