//! Plan files: reading with located errors, the commented default plan, atomic saving.

use std::path::Path;

use super::atomic::write_atomically;
use super::diagnostic::Diagnostic;
use super::error::ConfigError;
use super::locate::{backticked_name, locate_key_path};
use crate::model::catalog::Catalog;
use crate::model::plan::Plan;

/// The default plan: the seeds' worked examples, with a comment on every field.
pub const DEFAULT_PLAN_TOML: &str = include_str!("../../sample-data/plans/default.toml");
pub const DEFAULT_PLAN_NAME: &str = "(built-in) sample-data/plans/default.toml";

/// Parses plan text. The first error is returned with its line, column and key: a plan
/// with an unknown key or a wrong type is refused, never half-read.
pub fn parse_plan(file: &str, text: &str) -> Result<Plan, Diagnostic> {
    toml::from_str::<Plan>(text).map_err(|e| {
        let message = e.message().trim().to_string();
        let span = e.span();
        // Unknown and missing fields name the field; a wrong value sits after its `key =`.
        let named = backticked_name(&message)
            .filter(|_| message.contains("unknown field") || message.contains("missing field"))
            .map(str::to_string);
        let key = named.or_else(|| span.clone().and_then(|s| key_before(text, s.start)));
        Diagnostic::at(file, text, span, key, message)
    })
}

/// The bare key of a `key = value` line whose value starts at `value_offset`.
fn key_before(text: &str, value_offset: usize) -> Option<String> {
    let line_start = text.get(..value_offset)?.rfind('\n').map_or(0, |i| i + 1);
    let (key, _) = text.get(line_start..value_offset)?.split_once('=')?;
    let key = key.trim();
    (!key.is_empty() && !key.starts_with('[')).then(|| key.to_string())
}

/// Parses and validates: every problem of the plan's values, each located.
pub fn read_plan_text(file: &str, text: &str, catalog: &Catalog) -> Result<Plan, Vec<Diagnostic>> {
    let plan = parse_plan(file, text).map_err(|d| vec![d])?;
    let mut problems = plan.problems(catalog);
    problems.extend(
        crate::data::audit::host_map::host_table_problems(&crate::model::plan::host_patterns(&plan.hosts))
            .into_iter()
            .chain(crate::model::plan::utc_offset_problems(&plan.hosts))
            .map(|(key_path, message)| crate::model::plan::PlanProblem { key_path, message }),
    );
    if problems.is_empty() {
        return Ok(plan);
    }
    Err(problems
        .into_iter()
        .map(|p| {
            Diagnostic::at(
                file,
                text,
                locate_key_path(text, &p.key_path),
                Some(p.key_path),
                p.message,
            )
        })
        .collect())
}

/// Reads a plan file; errors name the file and, where they have one, the place in it.
pub fn read_plan(path: &Path, catalog: &Catalog) -> Result<Plan, Vec<Diagnostic>> {
    let shown = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| vec![Diagnostic::file(&shown, format!("cannot read the plan: {e}"))])?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let valid = String::from_utf8_lossy(&e.as_bytes()[..offset]).into_owned();
        vec![Diagnostic::at(
            &shown,
            &valid,
            Some(offset..offset),
            None,
            "expected UTF-8 text (TOML files are UTF-8)",
        )]
    })?;
    read_plan_file_text(path, &text, catalog)
}

/// A plan file's text as read from `path`: validated, with what it names beside it (its
/// `users_csv`, relative to its folder) read in, and its `[[logs]]` taken from its folder. Every face reads plan files through here, so a
/// plan means the same in the workbench and on the command line.
pub fn read_plan_file_text(path: &Path, text: &str, catalog: &Catalog) -> Result<Plan, Vec<Diagnostic>> {
    let shown = path.display().to_string();
    let mut plan = read_plan_text(&shown, text, catalog)?;
    attach_user_latencies(&mut plan, &shown, path.parent()).map_err(|d| vec![d])?;
    super::plan_sources::anchor_read(&mut plan, path);
    Ok(plan)
}

/// The largest `users_csv` read: a table of cities is kilobytes.
const MAX_USERS_CSV_BYTES: u64 = 16 << 20;

/// Reads the CSV of user latencies the plan names, relative to the plan's folder.
fn attach_user_latencies(plan: &mut Plan, plan_file: &str, folder: Option<&Path>) -> Result<(), Diagnostic> {
    let Some(name) = plan.inference.users_csv.clone() else {
        return Ok(());
    };
    let path = folder.map_or_else(|| Path::new(&name).to_path_buf(), |f| f.join(&name));
    let shown = path.display().to_string();
    let named_by = format!("named by {plan_file} [inference] users_csv");
    let size = std::fs::metadata(&path)
        .map_err(|e| Diagnostic::file(&shown, format!("cannot read the user latencies ({named_by}): {e}")))?
        .len();
    if size > MAX_USERS_CSV_BYTES {
        return Err(Diagnostic::file(
            &shown,
            format!("{size} bytes: expected a small table of user locations ({named_by})"),
        ));
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Diagnostic::file(&shown, format!("cannot read the user latencies as UTF-8 text: {e}")))?;
    plan.inference.users_measured =
        crate::data::readers::user_latency_csv::read_user_latencies(&text).map_err(|p| Diagnostic {
            file: shown.clone(),
            line: Some(p.line),
            column: None,
            key: p.column.map(|c| format!("field {c}")),
            message: p.message,
            source_line: text.lines().nth(p.line.saturating_sub(1)).map(str::to_string),
        })?;
    Ok(())
}

/// The built-in default plan.
pub fn default_plan(catalog: &Catalog) -> Result<Plan, Vec<Diagnostic>> {
    read_plan_text(DEFAULT_PLAN_NAME, DEFAULT_PLAN_TOML, catalog)
}

/// Plan as TOML text (comments are not kept by this path).
pub fn plan_to_toml(plan: &Plan) -> Result<String, ConfigError> {
    Ok(toml::to_string(plan)?)
}

/// The text a save writes: the plan file's own text with only the changed values rewritten
/// when there is one, else the whole plan. When the file's layout cannot be kept, the whole
/// plan is written rather than losing the edit, and the note says why.
pub fn render_for_save(original_text: Option<&str>, plan: &Plan) -> Result<(String, Option<String>), ConfigError> {
    match original_text.map(|original| super::plan_edit::render_preserving(original, plan)) {
        Some(Ok(text)) => Ok((text, None)),
        Some(Err(why)) => Ok((
            plan_to_toml(plan)?,
            Some(format!("written whole, without its comments: {why}")),
        )),
        None => Ok((plan_to_toml(plan)?, None)),
    }
}

/// Saves a plan atomically: the old file or the new one, never half of each.
pub fn save_plan(path: &Path, plan: &Plan) -> Result<(), Diagnostic> {
    let shown = path.display().to_string();
    let text = plan_to_toml(plan).map_err(|e| Diagnostic::file(&shown, e.to_string()))?;
    write_atomically(path, text.as_bytes()).map_err(|e| Diagnostic::file(&shown, format!("cannot save the plan: {e}")))
}
