//! What reading the logs said, in one list: each file's warnings (runs listed twice, bytes
//! that are not UTF-8, a damaged cache, a log changed while read) and the rows set aside by
//! reason, with example rows. The banner counts them, the Workloads pane lists the first, and
//! the reading overlay (`W`) lists them all, as `gpuplan audit` prints them.

use super::Fleet;
use crate::data::read_cache::CHANGED_WHILE_READ;
use crate::shared::format::thousands;

/// Example rows shown per reason a row was set aside.
const EXAMPLES_PER_REASON: usize = 3;

/// One thing reading said.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadNotice {
    /// The file it is about, as the header names it ("the logs" for several).
    pub file: String,
    pub text: String,
    /// Rows that show it: `file:line  detail`.
    pub examples: Vec<String>,
}

impl Fleet {
    /// Every warning of every file, then the rows set aside by reason, largest first.
    pub fn read_notices(&self) -> Vec<ReadNotice> {
        let name = |path: &str| {
            std::path::Path::new(path)
                .file_name()
                .map_or_else(|| path.to_string(), |n| n.to_string_lossy().to_string())
        };
        let mut notices: Vec<ReadNotice> = self
            .files
            .iter()
            .flat_map(|file| {
                file.warnings.iter().map(|w| ReadNotice {
                    file: name(&file.path),
                    text: w.clone(),
                    examples: Vec::new(),
                })
            })
            .collect();
        let report = &self.report;
        let mut reasons: Vec<_> = report.rows_rejected.iter().filter(|(_, n)| **n > 0).collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1));
        for (reason, count) in reasons {
            let samples: Vec<_> = report.rejected_samples.iter().filter(|s| s.reason == *reason).collect();
            let mut files: Vec<String> = samples.iter().map(|s| name(&s.file)).collect();
            files.dedup();
            let file = match files.as_slice() {
                [one] => one.clone(),
                _ => "the logs".to_string(),
            };
            notices.push(ReadNotice {
                file,
                text: format!(
                    "{} row{} set aside: {}",
                    thousands(*count as f64),
                    if *count == 1 { "" } else { "s" },
                    reason.label()
                ),
                examples: samples
                    .iter()
                    .take(EXAMPLES_PER_REASON)
                    .map(|s| match s.line {
                        0 => format!("{}  {}", name(&s.file), s.detail),
                        line => format!("{}:{line}  {}", name(&s.file), s.detail),
                    })
                    .collect(),
            });
        }
        notices
    }

    /// Whether a log changed while it was read (its figures may mix old and new rows).
    pub fn changed_while_read(&self) -> bool {
        self.files
            .iter()
            .any(|f| f.warnings.iter().any(|w| w.contains(CHANGED_WHILE_READ)))
    }
}

/// The banner's line for `notices`: how many and the key that lists them first (a narrow
/// screen cuts the end), then the first.
pub fn banner_text(notices: &[ReadNotice], key_hint: &str) -> Option<String> {
    let first = notices.first()?;
    Some(format!(
        "reading said {} thing{} ({key_hint} lists them): {}: {}",
        notices.len(),
        if notices.len() == 1 { "" } else { "s" },
        first.file,
        first.text
    ))
}
