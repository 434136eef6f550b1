//! Column-mapping files (TOML): read, checked, every problem with file, line and column.

use std::path::Path;

use super::diagnostic::Diagnostic;
use crate::data::mapping::Mapping;

pub fn read_mapping(path: &Path) -> Result<Mapping, Vec<Diagnostic>> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| vec![Diagnostic::file(&shown, format!("cannot read the mapping: {e}"))])?;
    let mapping: Mapping = toml::from_str(&text).map_err(|e| vec![Diagnostic::toml(&shown, &text, &e)])?;
    let problems = mapping.problems();
    if problems.is_empty() {
        return Ok(mapping);
    }
    Err(problems
        .into_iter()
        .map(|(key, message)| {
            let span = crate::config::locate::locate_key_path(&text, &key);
            Diagnostic::at(&shown, &text, span, Some(key), message)
        })
        .collect())
}
