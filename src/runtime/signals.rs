//! SIGTERM, SIGHUP, SIGINT and SIGQUIT as events of the workbench's loop, which then keeps the
//! unsaved edits, gives the terminal back and exits with 128 + the signal's number. (In raw
//! mode Ctrl-C is a key, the quit command; `kill -INT` still arrives here.)

use std::io::{self, Write};
use std::thread;

use crossbeam_channel::{Receiver, unbounded};
use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use signal_hook::iterator::Signals;

pub const HANDLED: [i32; 4] = [SIGTERM, SIGHUP, SIGINT, SIGQUIT];

/// The signal's name as `kill -l` says it.
pub fn name(signal: i32) -> &'static str {
    match signal {
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        SIGINT => "SIGINT",
        SIGQUIT => "SIGQUIT",
        _ => "a signal",
    }
}

/// The conventional exit status of a process ended by `signal`.
pub fn exit_status(signal: i32) -> i32 {
    128 + signal
}

/// Listens for the handled signals on a thread; each arrives on the returned channel. A second
/// signal while the loop has not answered the first (it is stuck) ends the process from here.
pub fn listen() -> io::Result<Receiver<i32>> {
    let mut signals = Signals::new(HANDLED)?;
    let (tx, rx) = unbounded();
    thread::Builder::new()
        .name("gpuplan-signals".to_string())
        .spawn(move || {
            let mut forwarded = false;
            for signal in signals.forever() {
                if !forwarded && tx.send(signal).is_ok() {
                    forwarded = true;
                    continue;
                }
                die(signal);
            }
        })?;
    Ok(rx)
}

/// Keeps the unsaved edits, restores the terminal, says where the edits went, and exits with
/// the signal's status.
pub fn die(signal: i32) -> ! {
    let written = super::recovery::write_kept();
    super::terminal::restore();
    let mut err = io::stderr();
    let _ = writeln!(err, "gpuplan: stopped by {}", name(signal));
    if let Some(line) = super::recovery::farewell(written) {
        let _ = writeln!(err, "{line}");
    }
    std::process::exit(exit_status(signal));
}
