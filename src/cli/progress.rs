//! A progress line on stderr for long loads: the phase, elapsed time and, once known, rows/s.
//! Shown only when stderr is a terminal and the input is large.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Inputs above this size get a progress line.
pub const LARGE_INPUT_BYTES: u64 = 64 * 1024 * 1024;

pub struct Progress {
    phase: Arc<Mutex<String>>,
    done: Arc<AtomicBool>,
    started: Instant,
    ticker: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts a ticker when `enabled` and stderr is a terminal; otherwise a silent stand-in.
    pub fn start(enabled: bool, phase: &str) -> Progress {
        let phase = Arc::new(Mutex::new(phase.to_string()));
        let done = Arc::new(AtomicBool::new(false));
        let started = Instant::now();
        let ticker = (enabled && std::io::stderr().is_terminal()).then(|| {
            let (phase, done) = (phase.clone(), done.clone());
            std::thread::spawn(move || {
                let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
                let mut i = 0;
                while !done.load(Ordering::Relaxed) {
                    let text = phase.lock().map(|p| p.clone()).unwrap_or_default();
                    eprint!(
                        "\r\x1b[2K{} {text} {:.1} s",
                        frames[i % frames.len()],
                        started.elapsed().as_secs_f64()
                    );
                    let _ = std::io::stderr().flush();
                    i += 1;
                    std::thread::sleep(Duration::from_millis(120));
                }
                eprint!("\r\x1b[2K");
            })
        });
        Progress {
            phase,
            done,
            started,
            ticker,
        }
    }

    pub fn phase(&self, text: String) {
        if let Ok(mut phase) = self.phase.lock() {
            *phase = text;
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Stops the ticker and, when it was shown, leaves a summary line.
    pub fn finish(mut self, summary: &str) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
            eprintln!("{summary}");
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
    }
}
