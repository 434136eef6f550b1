//! One `sacct` call: started in a process group of its own, its output read as it comes (rows
//! counted for progress), and the whole group stopped when it takes too long or prints more
//! than a piece may hold, even when something it started still holds its output open.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

use super::command::{SACCT_ENVIRONMENT, shown_command};
use super::error::SlurmError;

/// What one call printed: its text and how many lines of it were rows (not the header).
#[derive(Debug, Clone, Default)]
pub struct CallOutput {
    pub text: String,
    pub rows: u64,
    /// The call exited but a process it started kept its output open: that process was
    /// stopped `OUTPUT_AFTER_EXIT` later, and what the call had written was read.
    pub lingered: bool,
}

/// How long a call's output may stay open after the call itself exited (a process it left
/// behind holding the pipe) before that process is stopped and the output taken as it is.
pub const OUTPUT_AFTER_EXIT: Duration = Duration::from_secs(2);

/// The most a call's error output is kept of: sacct's own words, not a flood.
const MAX_STDERR_BYTES: u64 = 16 * 1024;

/// How often the call is looked at for an end, a timeout and progress.
const POLL: Duration = Duration::from_millis(50);

/// How long a stopped group is given to end on SIGTERM before it is sent SIGKILL.
const GRACE: Duration = Duration::from_secs(1);

/// The started call and its process group (the group's id is the call's pid): stopped as a
/// whole, so a wrapper's own children (`srun`, `ssh`, a `sleep` in a script) go with it.
struct Group {
    child: Child,
    reaped: bool,
}

impl Group {
    fn pgid(&self) -> libc::pid_t {
        // A pid always fits pid_t: the kernel handed it out as one.
        libc::pid_t::try_from(self.child.id()).unwrap_or(libc::pid_t::MAX)
    }

    fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        let status = self.child.try_wait()?;
        self.reaped |= status.is_some();
        Ok(status)
    }

    /// SIGTERM to every process of the group, SIGKILL after `GRACE` to whatever is left.
    fn stop(&mut self) {
        let pgid = self.pgid();
        // SAFETY: killpg only sends a signal; the group is the one this call started.
        unsafe { libc::killpg(pgid, libc::SIGTERM) };
        let given_up = Instant::now() + GRACE;
        while Instant::now() < given_up {
            let _ = self.try_wait();
            // SAFETY: signal 0 only asks whether any process of the group is left.
            if self.reaped && unsafe { libc::killpg(pgid, 0) } != 0 {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: as above; the group's id stays reserved while any member (even a zombie) is left.
        unsafe { libc::killpg(pgid, libc::SIGKILL) };
        let _ = self.child.wait();
        self.reaped = true;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.reaped {
            self.stop();
        }
    }
}

/// Runs `program args` under the environment sacct is read in, reading its output as it comes;
/// `on_rows` hears the rows read so far. The call and everything it started are stopped after
/// `timeout` (counted until its output is closed, not only until it exits) or past `max_bytes`.
pub fn run_sacct(
    program: &str,
    args: &[String],
    timeout: Duration,
    max_bytes: u64,
    on_rows: &mut dyn FnMut(u64),
) -> Result<CallOutput, SlurmError> {
    let command = shown_command(program, args);
    let child = Command::new(program)
        .args(args)
        .envs(SACCT_ENVIRONMENT)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| SlurmError::CannotStart {
            command: command.clone(),
            why: e.to_string(),
        })?;
    let mut group = Group { child, reaped: false };
    let rows = Arc::new(AtomicU64::new(0));
    let too_large = Arc::new(AtomicBool::new(false));
    let stdout = group.child.stdout.take().map(|out| {
        let (rows, too_large) = (rows.clone(), too_large.clone());
        read_on_a_thread(move || read_rows(out, max_bytes, &rows, &too_large))
    });
    let stderr = group.child.stderr.take().map(|err| {
        read_on_a_thread(move || {
            let mut text = String::new();
            let _ = err.take(MAX_STDERR_BYTES).read_to_string(&mut text);
            text
        })
    });
    let (mut stdout, mut stderr) = (Pending::from(stdout), Pending::from(stderr));
    let deadline = Instant::now() + timeout;
    let mut told = 0;
    let mut status = None;
    let mut exited_at: Option<Instant> = None;
    let mut lingered = false;
    loop {
        let now = rows.load(Ordering::Relaxed);
        if now != told {
            told = now;
            on_rows(now);
        }
        if too_large.load(Ordering::Relaxed) {
            group.stop();
            return Err(SlurmError::TooLarge { command, max_bytes });
        }
        if status.is_none() {
            status = match group.try_wait() {
                Ok(status) => status,
                Err(e) => {
                    group.stop();
                    return Err(SlurmError::CannotStart {
                        command,
                        why: e.to_string(),
                    });
                }
            };
        }
        stdout.poll();
        stderr.poll();
        if status.is_some() && exited_at.is_none() {
            exited_at = Some(Instant::now());
        }
        // Exited, its output still open: something it started holds the pipe. What it wrote is
        // in; the group goes, which closes the pipe.
        if !lingered
            && exited_at.is_some_and(|at| at.elapsed() >= OUTPUT_AFTER_EXIT)
            && !(stdout.done() && stderr.done())
        {
            group.stop();
            lingered = true;
        }
        if let (Some(status), true, true) = (status, stdout.done(), stderr.done()) {
            break finish(
                command,
                status,
                stdout.take(),
                stderr.take(),
                &rows,
                &too_large,
                max_bytes,
                on_rows,
            )
            .map(|output| CallOutput { lingered, ..output });
        }
        if Instant::now() >= deadline {
            // Its output may still be held open by a process it started: the group goes.
            group.stop();
            return Err(SlurmError::TimedOut {
                command,
                seconds: timeout.as_secs(),
            });
        }
        std::thread::sleep(POLL);
    }
}

/// The call ended and its output closed: its rows, or why not.
#[allow(clippy::too_many_arguments)]
fn finish(
    command: String,
    status: ExitStatus,
    text: String,
    stderr: String,
    rows: &AtomicU64,
    too_large: &AtomicBool,
    max_bytes: u64,
    on_rows: &mut dyn FnMut(u64),
) -> Result<CallOutput, SlurmError> {
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
    Ok(CallOutput {
        text,
        rows,
        lingered: false,
    })
}

/// Runs `read` on its own thread; its text comes back on the channel, so the caller never
/// blocks on a pipe past its deadline.
fn read_on_a_thread(read: impl FnOnce() -> String + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = channel();
    std::thread::spawn(move || {
        let _ = sender.send(read());
    });
    receiver
}

/// One output being read: still coming, or read in full.
enum Pending {
    Reading(Receiver<String>),
    Read(String),
}

impl From<Option<Receiver<String>>> for Pending {
    fn from(receiver: Option<Receiver<String>>) -> Self {
        receiver.map_or(Pending::Read(String::new()), Pending::Reading)
    }
}

impl Pending {
    fn poll(&mut self) {
        if let Pending::Reading(receiver) = self {
            match receiver.try_recv() {
                Ok(text) => *self = Pending::Read(text),
                Err(TryRecvError::Disconnected) => *self = Pending::Read(String::new()),
                Err(TryRecvError::Empty) => {}
            }
        }
    }

    fn done(&self) -> bool {
        matches!(self, Pending::Read(_))
    }

    fn take(&mut self) -> String {
        match std::mem::replace(self, Pending::Read(String::new())) {
            Pending::Read(text) => text,
            Pending::Reading(_) => String::new(),
        }
    }
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
