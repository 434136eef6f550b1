//! One `sacct` call: started, its output read as it comes (rows counted for progress), stopped
//! when it takes too long or prints more than a piece may hold.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::command::{SACCT_ENVIRONMENT, shown_command};
use super::error::SlurmError;

/// What one call printed: its text and how many lines of it were rows (not the header).
#[derive(Debug, Clone, Default)]
pub struct CallOutput {
    pub text: String,
    pub rows: u64,
}

/// The most a call's error output is kept of: sacct's own words, not a flood.
const MAX_STDERR_BYTES: u64 = 16 * 1024;

/// How often the call is looked at for an end, a timeout and progress.
const POLL: Duration = Duration::from_millis(50);

/// Runs `program args` under the environment sacct is read in, reading its output as it comes;
/// `on_rows` hears the rows read so far. Stopped after `timeout` or past `max_bytes`.
pub fn run_sacct(
    program: &str,
    args: &[String],
    timeout: Duration,
    max_bytes: u64,
    on_rows: &mut dyn FnMut(u64),
) -> Result<CallOutput, SlurmError> {
    let command = shown_command(program, args);
    let mut child = Command::new(program)
        .args(args)
        .envs(SACCT_ENVIRONMENT)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| SlurmError::CannotStart {
            command: command.clone(),
            why: e.to_string(),
        })?;
    let rows = Arc::new(AtomicU64::new(0));
    let too_large = Arc::new(AtomicBool::new(false));
    let stdout = child.stdout.take().map(|out| {
        let (rows, too_large) = (rows.clone(), too_large.clone());
        std::thread::spawn(move || read_rows(out, max_bytes, &rows, &too_large))
    });
    let stderr = child.stderr.take().map(|err| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.take(MAX_STDERR_BYTES).read_to_string(&mut text);
            text
        })
    });
    let started = Instant::now();
    let mut told = 0;
    let status = loop {
        let now = rows.load(Ordering::Relaxed);
        if now != told {
            told = now;
            on_rows(now);
        }
        if too_large.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(SlurmError::TooLarge { command, max_bytes });
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SlurmError::TimedOut {
                    command,
                    seconds: timeout.as_secs(),
                });
            }
            Ok(None) => std::thread::sleep(POLL),
            Err(e) => {
                let _ = child.kill();
                return Err(SlurmError::CannotStart {
                    command,
                    why: e.to_string(),
                });
            }
        }
    };
    let text = stdout.and_then(|t| t.join().ok()).unwrap_or_default();
    let stderr = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    if too_large.load(Ordering::Relaxed) {
        return Err(SlurmError::TooLarge { command, max_bytes });
    }
    if !status.success() {
        return Err(SlurmError::Failed {
            command,
            status: status.code(),
            stderr: stderr.trim().to_string(),
        });
    }
    let rows = rows.load(Ordering::Relaxed);
    on_rows(rows);
    Ok(CallOutput { text, rows })
}

/// Reads lines until the end (or `max_bytes`), counting every line after the first non-empty
/// one (the header) as a row. Bytes that are not UTF-8 (a job name in Latin-1) are replaced.
fn read_rows(out: impl Read, max_bytes: u64, rows: &AtomicU64, too_large: &AtomicBool) -> String {
    let mut reader = BufReader::with_capacity(1 << 16, out);
    let mut text = String::new();
    let mut line = Vec::new();
    let mut header_seen = false;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if text.len() as u64 + line.len() as u64 > max_bytes {
            too_large.store(true, Ordering::Relaxed);
            break;
        }
        let shown = String::from_utf8_lossy(&line);
        if !shown.trim().is_empty() {
            if header_seen {
                rows.fetch_add(1, Ordering::Relaxed);
            }
            header_seen = true;
        }
        text.push_str(&shown);
    }
    text
}
