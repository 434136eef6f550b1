//! How a face follows a long step: the command line draws a progress line on stderr, the
//! workbench puts the phase in its status line.

pub trait Observer {
    /// A read or pull begins: what it is, the bytes to read (0: unknown) and whether it is
    /// long enough to be worth a progress line.
    fn started(&mut self, _what: &str, _bytes: u64, _long: bool) {}
    /// What the step is doing now.
    fn phase(&mut self, _what: String) {}
    /// Something the user should read once (a source's note).
    fn note(&mut self, _text: String) {}
}

/// Follows nothing: tests, benchmarks, and steps nobody watches.
pub struct Quiet;

impl Observer for Quiet {}
