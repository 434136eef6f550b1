//! Column-mapping files (TOML): read, checked, every problem with file, line and column.

use std::path::Path;

use super::diagnostic::Diagnostic;
use crate::data::readers::mapping::Mapping;

pub fn read_mapping(path: &Path) -> Result<Mapping, Vec<Diagnostic>> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| vec![Diagnostic::file(&shown, format!("cannot read the mapping: {e}"))])?;
    let mapping: Mapping = toml::from_str(&text).map_err(|e| vec![Diagnostic::toml(&shown, &text, &e)])?;
    let problems = mapping.problems();
    if problems.is_empty() {
        let mut mapping = mapping;
        mapping.origin = Some(origin(&shown, &text, &mapping));
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

/// The line of every key a log can prove wrong: the columns, the constants, the multiplier.
fn origin(
    file: &str,
    text: &str,
    mapping: &crate::data::readers::mapping::Mapping,
) -> crate::data::readers::mapping::MappingOrigin {
    let keys = mapping
        .columns
        .keys()
        .map(|k| format!("columns.{k}"))
        .chain(mapping.constants.keys().map(|k| format!("constants.{k}")))
        .chain(["gpu_multiplier".to_string(), "units.time".to_string()]);
    let key_lines = keys
        .filter_map(|key| {
            let span = crate::config::locate::locate_key_path(text, &key)?;
            let (line, _) = crate::config::diagnostic::line_column(text, span.start);
            Some((key, line))
        })
        .collect();
    crate::data::readers::mapping::MappingOrigin {
        file: file.to_string(),
        key_lines,
    }
}
