//! Helpers shared by the integration tests: run the real binary, isolated from the
//! user's config folder.
#![allow(dead_code)]

pub mod pty;

use std::path::Path;
use std::process::{Command, Output};

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `gpuplan` with `args`, with config and data folders inside `home`.
pub fn gpuplan_in(home: &Path, args: &[&str]) -> Run {
    let output: Output = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(args)
        .env("GPUPLAN_CONFIG_DIR", home.join("config"))
        .env("GPUPLAN_DATA_DIR", home.join("data"))
        .env_remove("NO_COLOR")
        .output()
        .expect("the gpuplan binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `gpuplan` in a fresh temporary home.
pub fn gpuplan(args: &[&str]) -> Run {
    let home = tempfile::tempdir().expect("tempdir");
    gpuplan_in(home.path(), args)
}

/// The built-in default plan's text, to edit in tests.
pub fn default_plan_text() -> String {
    gpuplan::config::plan_file::DEFAULT_PLAN_TOML.to_string()
}
