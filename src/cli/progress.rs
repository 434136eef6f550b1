//! A progress line on stderr for long loads: while delimited logs are read, a bar of the bytes
//! read with rows and rows/s; then the phase and elapsed time. Shown only when stderr is a
//! terminal and the input is large.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::data::readers::progress::READ_PROGRESS;
use crate::pipeline::Audited;
use crate::pipeline::observer::Observer;
use crate::shared::format::thousands;

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
}

impl Progress {
    /// Starts a ticker when `enabled` and stderr is a terminal; otherwise a silent stand-in.
    /// `total_bytes` sizes the bar of the read (0: no bar).
    pub fn start(enabled: bool, phase: &str, total_bytes: u64) -> Progress {
        READ_PROGRESS.reset();
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
        self.done.store(true, Ordering::Relaxed);
        if let Some(ticker) = self.ticker.take() {
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
    fn the_bar_shows_share_rows_and_rate() {
        let line = bar_line(50, 200, 1_000_000, 2.0);
        assert!(line.starts_with("[████████░"), "{line}");
        assert!(line.contains(" 25 %"), "{line}");
        assert!(line.contains("1,000,000 rows"), "{line}");
        assert!(line.contains("500,000 rows/s"), "{line}");
    }
}
