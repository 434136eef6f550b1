//! Logs that are not regular files (docs/hardening.md): a named pipe (`mkfifo`) or a pipe given
//! as a path (`<(zcat jobs.csv.gz)`, `/dev/stdin`) can be read once only, and opening a named
//! pipe nobody writes to blocks for ever. Such an input is read once, as a stream, into a file of
//! its own name in a folder of this process's (removed at exit), and every later step reads that
//! file. A pipe with no writer is refused after `WRITER_PATIENCE`; a character device (a
//! terminal, `/dev/zero`) or a socket is refused at once, naming the kind.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::data::error::DataError;

/// How long a pipe may stay silent before it is taken as one nobody writes to.
pub const WRITER_PATIENCE: Duration = Duration::from_secs(10);

/// The pipes read so far and the files they were read into: each is read once.
static SPOOLED: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());

/// `path` itself when it is a regular file, a folder or not there (later steps say so); else
/// the file a pipe was read into, or why it cannot be read.
pub fn readable_path(path: &Path) -> Result<PathBuf, DataError> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(path.to_path_buf());
    };
    let kind = meta.file_type();
    if kind.is_file() || kind.is_dir() {
        return Ok(path.to_path_buf());
    }
    if kind.is_char_device() || kind.is_block_device() || kind.is_socket() {
        let what = if kind.is_char_device() {
            "a character device (a terminal or a device such as /dev/zero)"
        } else if kind.is_block_device() {
            "a block device"
        } else {
            "a socket"
        };
        return Err(DataError::NotAFile {
            kind: what,
            detail: "give a file, a folder, or a pipe that a program writes the log into".to_string(),
        });
    }
    let mut spooled = SPOOLED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, copy)) = spooled.iter().find(|(original, _)| original == path) {
        return Ok(copy.clone());
    }
    let copy = spool(path)?;
    spooled.push((path.to_path_buf(), copy.clone()));
    Ok(copy)
}

/// Reads the pipe at `path` to its end into a file of the same name in this process's folder.
fn spool(path: &Path) -> Result<PathBuf, DataError> {
    let io = |e: std::io::Error| DataError::NotAFile {
        kind: "a pipe",
        detail: format!("reading it failed: {e}"),
    };
    // Opened without blocking: a named pipe with no writer would hold `open` for ever.
    let mut pipe = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io)?;
    if !wait_for_data(&pipe, WRITER_PATIENCE) {
        return Err(DataError::NotAFile {
            kind: "a pipe",
            detail: format!(
                "nothing was written to it within {} s: start the program that writes the log first, or give a file",
                WRITER_PATIENCE.as_secs()
            ),
        });
    }
    set_blocking(&pipe).map_err(io)?;
    let folder = spool_folder().map_err(io)?;
    let name = path.file_name().map_or_else(|| "stream".into(), |n| n.to_os_string());
    let copy = folder.join(name);
    let mut out = File::create(&copy).map_err(io)?;
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        match pipe.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => out.write_all(&buffer[..n]).map_err(io)?,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        }
    }
    out.flush().map_err(io)?;
    Ok(copy)
}

/// Whether the pipe has data (or its writer closed after writing) within `patience`.
fn wait_for_data(pipe: &File, patience: Duration) -> bool {
    use std::os::fd::AsRawFd;
    let mut poll = libc::pollfd {
        fd: pipe.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = i32::try_from(patience.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: one valid pollfd for a file descriptor this function borrows.
    let ready = unsafe { libc::poll(&mut poll, 1, millis) };
    ready > 0 && poll.revents & (libc::POLLIN | libc::POLLHUP) != 0
}

fn set_blocking(pipe: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = pipe.as_raw_fd();
    // SAFETY: fcntl on a file descriptor this function borrows, with integer arguments.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// This process's folder for pipes read to their end, removed when the process exits.
fn spool_folder() -> std::io::Result<PathBuf> {
    let folder = spool_folder_path();
    if !folder.exists() {
        std::fs::create_dir_all(&folder)?;
        // SAFETY: registers a plain function with no arguments to run at exit.
        unsafe {
            libc::atexit(remove_spool_folder);
        }
    }
    Ok(folder)
}

fn spool_folder_path() -> PathBuf {
    std::env::temp_dir().join(format!("gpuplan-pipes-{}", std::process::id()))
}

extern "C" fn remove_spool_folder() {
    let _ = std::fs::remove_dir_all(spool_folder_path());
}
