//! The real binary in a pseudo-terminal, its output fed to a vt100 screen: shared by the
//! end-to-end test and the start-up benchmark.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};

/// Killed on drop, so a failed assertion leaves no process behind.
pub struct Workbench {
    parser: Arc<Mutex<vt100::Parser>>,
    /// Every byte the program wrote: the screen alone cannot tell what was written after an
    /// event (the terminal restored after a signal rather than before).
    written: Arc<Mutex<Vec<u8>>>,
    keys: Box<dyn Write + Send>,
    pub child: Box<dyn Child + Send + Sync>,
}

impl Workbench {
    /// Starts `gpuplan ARGS` on a `cols`×`rows` terminal with config and data folders in `home`.
    pub fn start(args: &[&std::ffi::OsStr], home: &Path, cols: u16, rows: u16) -> Workbench {
        Workbench::start_in(args, home, None, cols, rows)
    }

    /// `start`, run from the folder `cwd` when given (relative paths typed are taken from it).
    pub fn start_in(args: &[&std::ffi::OsStr], home: &Path, cwd: Option<&Path>, cols: u16, rows: u16) -> Workbench {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_gpuplan"));
        command.args(args);
        command.env("TERM", "xterm-256color");
        command.env("GPUPLAN_CONFIG_DIR", home.join("config"));
        command.env("GPUPLAN_DATA_DIR", home.join("data"));
        command.env_remove("NO_COLOR");
        if let Some(folder) = cwd {
            command.cwd(folder);
        }
        let child = pair.slave.spawn_command(command).expect("gpuplan starts");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let keys = pair.master.take_writer().expect("writer");
        let size = |n: u16| NonZeroU16::new(n.max(1)).expect("non-zero");
        let parser = Arc::new(Mutex::new(vt100::Parser::new(size(rows), size(cols), 0)));
        let written = Arc::new(Mutex::new(Vec::new()));
        let (feed, record) = (Arc::clone(&parser), Arc::clone(&written));
        thread::spawn(move || {
            let mut buffer = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                if let Ok(mut w) = record.lock() {
                    w.extend_from_slice(&buffer[..n]);
                }
                if let Ok(mut p) = feed.lock() {
                    p.process(&buffer[..n]);
                }
            }
        });
        Workbench {
            parser,
            written,
            keys,
            child,
        }
    }

    /// How many bytes the program has written so far.
    #[allow(dead_code)]
    pub fn written_len(&self) -> usize {
        self.written.lock().map(|w| w.len()).unwrap_or(0)
    }

    /// What the program wrote from byte `from` on.
    #[allow(dead_code)]
    pub fn written_since(&self, from: usize) -> Vec<u8> {
        self.written
            .lock()
            .map(|w| w.get(from..).unwrap_or_default().to_vec())
            .unwrap_or_default()
    }

    /// Sends `signal` to the program, still running.
    #[allow(dead_code)]
    pub fn signal(&self, signal: i32) {
        let pid = self.child.process_id().expect("pid") as i32;
        // SAFETY: kill(2) on the pid of our own child, not yet waited for.
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "kill({pid}, {signal})");
    }

    /// Whether the program is still drawing on the alternate screen (a TUI that exits cleanly
    /// leaves it and restores the terminal). The start-up benchmark, which shares this file,
    /// does not ask.
    #[allow(dead_code)]
    pub fn on_alternate_screen(&self) -> bool {
        self.parser
            .lock()
            .map(|p| p.screen().alternate_screen())
            .unwrap_or(false)
    }

    pub fn text(&self) -> String {
        self.parser.lock().map(|p| p.screen().contents()).unwrap_or_default()
    }

    /// Waits until `ready` holds for the screen text, or fails showing the screen.
    pub fn wait_for(&self, what: &str, patience: Duration, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.text();
            if ready(&text) {
                return text;
            }
            assert!(
                start.elapsed() < patience,
                "timed out waiting for {what}; the screen:\n{text}"
            );
            thread::sleep(Duration::from_micros(200));
        }
    }

    pub fn press(&mut self, keys: &[u8]) {
        self.keys.write_all(keys).expect("keys");
        self.keys.flush().expect("flush");
    }

    /// Waits for the process to end; its exit status.
    pub fn wait_exit(&mut self, patience: Duration) -> portable_pty::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(start.elapsed() < patience, "gpuplan did not exit");
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Workbench {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
