//! `gpuplan plan new` and `gpuplan plan validate`.

use std::path::Path;

use super::Failure;
use crate::config::atomic::write_atomically;
use crate::config::diagnostic::Diagnostic;
use crate::config::plan_file::{DEFAULT_PLAN_TOML, read_plan};
use crate::model::catalog::Catalog;

pub fn new(output: Option<&Path>, force: bool) -> Result<(), Failure> {
    let Some(path) = output else {
        print!("{DEFAULT_PLAN_TOML}");
        return Ok(());
    };
    let shown = path.display().to_string();
    if path.exists() && !force {
        return Err(Diagnostic::file(&shown, "already exists; pass --force to replace it").into());
    }
    write_atomically(path, DEFAULT_PLAN_TOML.as_bytes())
        .map_err(|e| Diagnostic::file(&shown, format!("cannot write: {e}")))?;
    eprintln!("wrote {shown}: the seeds' worked examples; edit it and run `gpuplan report --plan {shown}`");
    Ok(())
}

pub fn validate(catalog: &Catalog, file: &Path) -> Result<(), Failure> {
    read_plan(file, catalog).map_err(Failure::Input)?;
    println!("{}: ok", file.display());
    Ok(())
}
