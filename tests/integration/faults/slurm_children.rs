//! Faults: a sacct wrapper whose own children outlive it. A script stands in for sacct (the
//! fault IS the misbehaving wrapper): it starts a grandchild that inherits its stdout and then
//! hangs, or exits while the grandchild still holds the pipe. gpuplan must return within
//! `--slurm-timeout` plus slack, say the command and the deadline, and leave no process of the
//! call's group alive.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The stand-in's processes, by the pids it wrote: killed when the test ends, passed or failed.
struct Stragglers {
    pid_files: Vec<PathBuf>,
}

impl Stragglers {
    fn pids(&self) -> Vec<libc::pid_t> {
        self.pid_files
            .iter()
            .filter_map(|file| std::fs::read_to_string(file).ok())
            .filter_map(|text| text.trim().parse().ok())
            .collect()
    }
}

impl Drop for Stragglers {
    fn drop(&mut self) {
        for pid in self.pids().into_iter().filter(|&pid| alive(pid)) {
            // SAFETY: only a pid this test's stand-in wrote, and only while it is still running.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Whether `pid` is a process that still runs (a zombie waiting for its parent does not).
fn alive(pid: libc::pid_t) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name's closing parenthesis.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// Processes still running whose process group is `pgid`.
fn group_members(pgid: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let rest = stat.rsplit_once(')')?.1.split_whitespace().collect::<Vec<_>>();
                    // After the name: state, ppid, pgrp.
                    Some(rest.first()? != &"Z" && rest.get(2)?.parse::<libc::pid_t>().ok()? == pgid)
                })
                .unwrap_or(false)
        })
        .collect()
}

/// A stand-in sacct in `dir`: writes its own pid and its grandchild's, then runs `tail`.
fn stand_in(dir: &Path, tail: &str) -> (String, Stragglers) {
    use std::os::unix::fs::PermissionsExt;
    let (own, grandchild) = (dir.join("sacct.pid"), dir.join("grandchild.pid"));
    let script = dir.join("sacct");
    let body = format!(
        "#!/bin/sh\necho $$ > '{own}'\nsleep 300 &\necho $! > '{grandchild}'\n{tail}\n",
        own = own.display(),
        grandchild = grandchild.display(),
    );
    std::fs::write(&script, body).expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("executable");
    (
        script.display().to_string(),
        Stragglers {
            pid_files: vec![own, grandchild],
        },
    )
}

/// Runs the audit on the stand-in with a 2 s timeout; checks the time, the message and that
/// the call's group is gone.
fn audit_is_stopped_with_its_group(tail: &str) {
    let home = tempfile::tempdir().expect("tempdir");
    let (sacct, stragglers) = stand_in(home.path(), tail);
    let started = Instant::now();
    let run = common::gpuplan_in(
        home.path(),
        &[
            "audit",
            "--slurm",
            "--slurm-sacct",
            &sacct,
            "--slurm-timeout",
            "2",
            "--days",
            "1",
        ],
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(20), "took {took:?}; stderr: {}", run.stderr);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(run.stderr.contains("did not finish within 2 s"), "{}", run.stderr);
    assert!(run.stderr.contains(&sacct), "the command is named: {}", run.stderr);
    let pids = stragglers.pids();
    assert_eq!(pids.len(), 2, "the stand-in wrote both pids");
    // The signals are sent before gpuplan answers; the kernel may take a moment to end them.
    let patience = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|&pid| alive(pid)) && Instant::now() < patience {
        std::thread::sleep(Duration::from_millis(50));
    }
    for pid in &pids {
        assert!(!alive(*pid), "process {pid} of the sacct call is still running");
    }
    // The script was its group's leader: no member of that group is left.
    assert_eq!(group_members(pids[0]), Vec::<libc::pid_t>::new());
}

#[test]
fn a_hanging_wrapper_and_its_grandchild_are_stopped_at_the_timeout() {
    audit_is_stopped_with_its_group("sleep 300");
}

#[test]
fn a_wrapper_gone_while_its_grandchild_holds_the_output_does_not_hold_gpuplan() {
    audit_is_stopped_with_its_group("exit 0");
}

/// Issue 67, finding 10: a wrapper that printed its whole output and exited 0 while a process
/// it started keeps the pipe (was: held to the 300 s default deadline). The call's output is
/// read 2 s after it exited, the lingering process is stopped, and that is said in the input's
/// warnings and on standard error.
#[test]
fn a_wrapper_done_while_its_grandchild_holds_the_pipe_is_read_at_once_and_said() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().expect("tempdir");
    let live = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/slurm/live-22.05.txt");
    let grandchild = home.path().join("grandchild.pid");
    let script = home.path().join("sacct");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat '{live}'\nsleep 300 &\necho $! > '{}'\nexit 0\n",
            grandchild.display()
        ),
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("executable");
    let sacct = script.display().to_string();
    let started = Instant::now();
    let run = common::gpuplan_in(
        home.path(),
        &[
            "audit",
            "--slurm",
            "--slurm-sacct",
            &sacct,
            "--slurm-clusters",
            "gpt",
            "--since",
            "2026-11-20",
            "--until",
            "2026-11-26",
            "--format",
            "json",
        ],
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(30), "took {took:?}: {}", run.stderr);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let said = "exited while a process it started kept its output open";
    assert!(run.stderr.contains(said), "{}", run.stderr);
    let audit: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(audit["jobs_total"], 8, "every row it wrote was read");
    assert!(
        audit.to_string().contains(said),
        "the input's warnings say it: {}",
        run.stdout
    );
    let pid: libc::pid_t = std::fs::read_to_string(&grandchild)
        .expect("the grandchild's pid")
        .trim()
        .parse()
        .expect("a pid");
    let patience = Instant::now() + Duration::from_secs(5);
    while alive(pid) && Instant::now() < patience {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(pid), "the lingering process {pid} is still running");
}
