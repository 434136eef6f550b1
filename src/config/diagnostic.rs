//! A message about an input file that says where: file, line, column and key.

use std::fmt;
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    /// 1-based line and column (in characters), when the problem has a place in the file.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The key path, e.g. `accelerators[1].mfu`.
    pub key: Option<String>,
    pub message: String,
    /// The offending line of the file, shown under the message.
    pub source_line: Option<String>,
}

/// A log that cannot be read: the problem of its file, in the data layer's words.
impl From<&crate::data::readers::load::LoadError> for Diagnostic {
    fn from(e: &crate::data::readers::load::LoadError) -> Diagnostic {
        Diagnostic {
            line: e.line.and_then(|l| usize::try_from(l).ok()),
            ..Diagnostic::file(&e.path, e.error.to_string())
        }
    }
}

/// A FOCUS bill that cannot be read: its file, the CSV line and column or the Parquet row, and
/// the column's name.
impl From<&crate::data::focus::FocusError> for Diagnostic {
    fn from(e: &crate::data::focus::FocusError) -> Diagnostic {
        let key = match (e.row, &e.field) {
            (Some(row), Some(field)) => Some(format!("row {row}: {field}")),
            (Some(row), None) => Some(format!("row {row}")),
            (None, field) => field.clone(),
        };
        Diagnostic {
            file: e.file.clone(),
            line: e.line.and_then(|l| usize::try_from(l).ok()),
            column: e.column.and_then(|c| usize::try_from(c).ok()),
            key,
            message: e.message.clone(),
            source_line: None,
        }
    }
}

impl Diagnostic {
    /// A problem with a whole file (unreadable, missing).
    pub fn file(file: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            line: None,
            column: None,
            key: None,
            message: message.into(),
            source_line: None,
        }
    }

    /// A problem at a byte range of `text`.
    pub fn at(
        file: &str,
        text: &str,
        span: Option<Range<usize>>,
        key: Option<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        let (line, column, source_line) = match span {
            Some(span) => {
                let (line, column) = line_column(text, span.start);
                (Some(line), Some(column), text.lines().nth(line - 1).map(str::to_string))
            }
            None => (None, None, None),
        };
        Diagnostic {
            file: file.to_string(),
            line,
            column,
            key,
            message: message.into(),
            source_line,
        }
    }
}

impl Diagnostic {
    /// A TOML file that does not parse: where the parser stopped and why.
    pub fn toml(file: &str, text: &str, error: &toml::de::Error) -> Diagnostic {
        Diagnostic::at(file, text, error.span(), None, error.message().trim().to_string())
    }

    /// One line, for a banner: `file:line:column: key: message`, without the source excerpt.
    pub fn headline(&self) -> String {
        let mut text = self.file.clone();
        if let Some(line) = self.line {
            text.push_str(&format!(":{line}"));
            if let Some(column) = self.column {
                text.push_str(&format!(":{column}"));
            }
        }
        text.push_str(": ");
        if let Some(key) = &self.key {
            text.push_str(key);
            text.push_str(": ");
        }
        text.push_str(self.message.lines().next().unwrap_or_default());
        text
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}",
            crate::shared::format::file_place(&self.file, self.line.map(|l| l as u64), self.column.map(|c| c as u64))
        )?;
        if let Some(key) = &self.key {
            write!(f, "{key}: ")?;
        }
        write!(f, "{}", self.message)?;
        if let (Some(source_line), Some(column)) = (&self.source_line, self.column) {
            let gutter = self.line.map_or(0, |l| l.to_string().len());
            write!(f, "\n {:>gutter$} | {source_line}", self.line.unwrap_or(0))?;
            write!(f, "\n {:>gutter$} | {:>column$}", "", "^")?;
        }
        Ok(())
    }
}

/// 1-based line and character column of a byte offset.
pub fn line_column(text: &str, byte_offset: usize) -> (usize, usize) {
    let offset = byte_offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let text = "a = 1\nbé = \"x\"\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        // 'é' is two bytes but one column.
        assert_eq!(line_column(text, 10), (2, 4));
    }

    #[test]
    fn display_names_file_line_column_and_key_and_points_at_the_spot() {
        let text = "name = \"x\"\nmfu = \"high\"\n";
        let d = Diagnostic::at("plan.toml", text, Some(17..23), Some("mfu".into()), "expected a number");
        let shown = d.to_string();
        assert!(shown.starts_with("plan.toml:2:7: mfu: expected a number"), "{shown}");
        assert!(shown.contains("2 | mfu = \"high\""), "{shown}");
    }
}
