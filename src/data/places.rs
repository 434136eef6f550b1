//! Where a problem is, as the data layer names it: a key of the column mapping (`MappingPlace`)
//! and a row of a file (the `__row` column scans number rows in). Nothing here imports another
//! module of ours, so `error` can name both.

/// The row index column of a scan.
pub(crate) const ROW: &str = "__row";

/// A key of a mapping: its file and 1-based line when it was read from one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappingPlace {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub key: String,
}

impl std::fmt::Display for MappingPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = &self.key;
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "the mapping {file}:{line} ({key})"),
            (Some(file), None) => write!(f, "the mapping {file} ({key})"),
            (None, _) => write!(f, "the mapping's {key}"),
        }
    }
}
