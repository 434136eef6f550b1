//! A progress line on stderr for long loads: while delimited logs are read, a bar of the bytes
//! read with rows and rows/s; then the phase and elapsed time. Shown only when stderr is a
//! terminal and the input is large; elsewhere a step still running after 30 s is said on a
//! line of its own.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::data::readers::progress::READ_PROGRESS;
use crate::pipeline::Audited;
use crate::pipeline::observer::Observer;
use crate::shared::format::{thousands, wait_text};

/// The pipeline followed on stderr: a progress line for long reads and pulls, notes as lines.
#[derive(Default)]
pub struct CliObserver {
    progress: Option<Progress>,
}

impl Observer for CliObserver {
    fn started(&mut self, what: &str, bytes: u64, long: bool) {
        self.progress = Some(Progress::start(long, what, bytes));
    }

    fn phase(&mut self, what: String) {
        if let Some(progress) = &self.progress {
            progress.phase(what);
        }
    }

    fn note(&mut self, text: String) {
        eprintln!("{text}");
    }
}

impl CliObserver {
    /// Ends the progress line with what the audit read, and prints each file's warnings.
    pub fn finish_audit(&mut self, audited: &Audited) {
        if let Some(progress) = self.progress.take() {
            let elapsed = progress.elapsed().as_secs_f64();
            progress.finish(&format!(
                "audited {} rows in {elapsed:.1} s",
                thousands(audited.rows_read as f64)
            ));
        }
        for file in &audited.files {
            for warning in &file.warnings {
                eprintln!("warning: {}: {warning}", file.path);
            }
        }
    }
}

pub struct Progress {
    phase: Arc<Mutex<String>>,
    done: Arc<AtomicBool>,
    started: Instant,
    ticker: Option<JoinHandle<()>>,
    /// Whether stderr is a terminal (a progress line) or not (notices of long steps).
    terminal: bool,
}

impl Progress {
    /// Starts, when `enabled`, a ticker where stderr is a terminal and a notice of long steps
    /// where it is not (`still_running`); otherwise a silent stand-in. `total_bytes` sizes the
    /// bar of the read (0: no bar).
    pub fn start(enabled: bool, phase: &str, total_bytes: u64) -> Progress {
        READ_PROGRESS.reset();
        let phase = Arc::new(Mutex::new(phase.to_string()));
        let done = Arc::new(AtomicBool::new(false));
        let started = Instant::now();
        let terminal = std::io::stderr().is_terminal();
        let ticker = enabled.then(|| {
            let (phase, done) = (phase.clone(), done.clone());
            if terminal {
                std::thread::spawn(move || tick(&phase, &done, started, total_bytes))
            } else {
                std::thread::spawn(move || still_running(&phase, &done, started))
            }
        });
        Progress {
            phase,
            done,
            started,
            ticker,
            terminal,
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

    /// Tells the thread to stop, waking it from its wait, and hands it back to be joined.
    fn stop(&mut self) -> Option<JoinHandle<()>> {
        self.done.store(true, Ordering::Relaxed);
        let ticker = self.ticker.take()?;
        ticker.thread().unpark();
        Some(ticker)
    }

    /// Stops the ticker and, when it was shown, leaves a summary line.
    pub fn finish(mut self, summary: &str) {
        if let Some(ticker) = self.stop() {
            let _ = ticker.join();
            if self.terminal {
                eprintln!("{summary}");
            }
        }
    }
}

/// The progress line on a terminal, redrawn every 120 ms until `done`.
fn tick(phase: &Mutex<String>, done: &AtomicBool, started: Instant, total_bytes: u64) {
    let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let mut i = 0;
    while !done.load(Ordering::Relaxed) {
        let text = phase.lock().map(|p| p.clone()).unwrap_or_default();
        let elapsed = started.elapsed().as_secs_f64();
        let (bytes, rows) = READ_PROGRESS.get();
        if total_bytes > 0 && bytes > 0 && bytes < total_bytes {
            eprint!("\r\x1b[2K{}", bar_line(bytes, total_bytes, rows, elapsed));
        } else {
            eprint!("\r\x1b[2K{} {text} {elapsed:.1} s", frames[i % frames.len()]);
        }
        let _ = std::io::stderr().flush();
        i += 1;
        std::thread::sleep(Duration::from_millis(120));
    }
    eprint!("\r\x1b[2K");
}

/// When stderr is no terminal (a script, a log), no line is redrawn; a long load says instead
/// that it is still working (`still_running_at`), so a source that stalls (a warehouse that
/// stops answering, a scheduler that hangs) is never a silent wait.
fn still_running(phase: &Mutex<String>, done: &AtomicBool, started: Instant) {
    let mut told = 0;
    while !done.load(Ordering::Relaxed) {
        std::thread::park_timeout(Duration::from_secs(1));
        let elapsed_s = started.elapsed().as_secs();
        if elapsed_s >= still_running_at(told) && !done.load(Ordering::Relaxed) {
            let text = phase.lock().map(|p| p.clone()).unwrap_or_default();
            let elapsed = wait_text(Some(elapsed_s as f64 * 1000.0), false);
            eprintln!("gpuplan: still working after {elapsed}: {text}");
            // Once, however late the thread woke (a machine suspended): the next one due.
            while still_running_at(told) <= elapsed_s {
                told += 1;
            }
        }
    }
}

/// The seconds at which a load still working is said; after the last, every as many again.
const STILL_RUNNING_AFTER_S: [u64; 3] = [30, 120, 600];

/// The second at which the `told`-th notice is due: 30, 120, 600, 1,200, 1,800, …
fn still_running_at(told: usize) -> u64 {
    let last = STILL_RUNNING_AFTER_S[STILL_RUNNING_AFTER_S.len() - 1];
    match STILL_RUNNING_AFTER_S.get(told) {
        Some(&at) => at,
        None => last * (told - STILL_RUNNING_AFTER_S.len() + 2) as u64,
    }
}

const BAR_CELLS: usize = 30;

/// `[██████░░░░] 45 %  4,512,000 rows  1,203,000 rows/s  3.8 s`
fn bar_line(bytes: u64, total_bytes: u64, rows: u64, elapsed_s: f64) -> String {
    let frac = (bytes as f64 / total_bytes as f64).clamp(0.0, 1.0);
    let filled = (frac * BAR_CELLS as f64).round() as usize;
    format!(
        "[{}{}] {:>3.0} %  {} rows  {} rows/s  {elapsed_s:.1} s",
        "█".repeat(filled),
        "░".repeat(BAR_CELLS - filled),
        frac * 100.0,
        thousands(rows as f64),
        thousands(rows as f64 / elapsed_s.max(1e-3)),
    )
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(ticker) = self.stop() {
            let _ = ticker.join();
        }
    }
}

/// Each pipeline step's time on standard error, when `GPUPLAN_TIMINGS` is set.
pub fn print_timings(pipeline: &crate::pipeline::Pipeline) {
    if std::env::var_os("GPUPLAN_TIMINGS").is_some() {
        for (step, seconds) in &pipeline.timings().steps {
            eprintln!("timing: {step}: {seconds:.3} s");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_step_is_said_at_30_s_2_min_10_min_then_every_10_min() {
        let due: Vec<u64> = (0..5).map(still_running_at).collect();
        assert_eq!(due, [30, 120, 600, 1_200, 1_800]);
    }

    #[test]
    fn the_bar_shows_share_rows_and_rate() {
        let line = bar_line(50, 200, 1_000_000, 2.0);
        assert!(line.starts_with("[████████░"), "{line}");
        assert!(line.contains(" 25 %"), "{line}");
        assert!(line.contains("1,000,000 rows"), "{line}");
        assert!(line.contains("500,000 rows/s"), "{line}");
    }
}
