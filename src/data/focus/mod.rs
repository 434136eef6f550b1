//! FinOps FOCUS cost exports (FOCUS 1.0 to 1.2, CSV or Parquet) into [`BillLine`]s.
//!
//! Columns read (names matched case-insensitively, any others ignored):
//! `ChargePeriodStart`, `ChargePeriodEnd`, `BilledCost`, `EffectiveCost`, `ChargeCategory`
//! (required); `BillingPeriodStart`, `BillingPeriodEnd`, `PricingCategory`,
//! `CommitmentDiscountStatus`, `CapacityReservationStatus`,
//! `ConsumedQuantity`, `ConsumedUnit`, `SkuId`, `ResourceId`, `ResourceName`, `RegionId`,
//! `ProviderName` (or `ServiceProviderName`), `BillingCurrency`, `Tags` (optional).
//!
//! CSV is read as text, every value parsed by its column (no type guessing: exports often
//! open with rows whose costs are empty). Empty, `NULL`, `NA` and `N/A` are null; a null
//! cost reads as 0 and is counted. A bad value is an error at its file, line and column
//! (1-based, the header is line 1); reading stops after ten. Memory stays bounded: only the
//! columns above are kept, a value may be at most 1 MiB, and a UTF-16, gzip, zip or binary
//! file is refused at once with what it looks like. Parquet columns may be text or typed
//! (timestamps, dates, floats, integers; `Tags` as JSON text or a key/value map); a
//! truncated or unreadable file is an error, never a crash.

mod csv;
mod parquet;
mod row;
pub mod values;

use std::fmt;
use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::model::bill::BillLine;
pub use row::guess_version;
use row::{Cell, Columns, Role, Seen, build_line};

/// A value may be at most this long (a 20 MB field is an error, not 20 MB held).
const MAX_FIELD_BYTES: usize = 1 << 20;
/// Reading stops after this many bad values.
const MAX_ERRORS: usize = 10;
/// A header with more columns is not a cost export.
const MAX_COLUMNS: usize = 10_000;

/// What one export held, for the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BillFile {
    pub path: String,
    pub format: &'static str,
    /// Data rows read (blank rows not counted).
    pub lines: u64,
    pub blank_rows: u64,
    /// The FOCUS version the columns suggest (`1.2`, `1.1`, `1.0`, `before 1.0`).
    pub focus_version: String,
    /// The columns that suggest it.
    pub version_columns: Vec<String>,
    /// `ProviderName`, or `ServiceProviderName` in files that name the provider so.
    pub provider_column: Option<String>,
    pub providers: Vec<String>,
    pub currencies: Vec<String>,
    pub regions: Vec<String>,
    /// Lines whose `BilledCost` or `EffectiveCost` was null, read as 0.
    pub null_costs: u64,
}

/// The lines of one export and what it held.
#[derive(Debug, Clone)]
pub struct FocusRead {
    pub lines: Vec<BillLine>,
    pub file: BillFile,
}

/// A bad export or value: the file, where in it (a CSV line and column, or a Parquet row),
/// the column's name, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FocusError {
    pub file: String,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub row: Option<u64>,
    pub field: Option<String>,
    pub message: String,
}

impl FocusError {
    fn file(file: &str, message: impl Into<String>) -> FocusError {
        FocusError {
            file: file.to_string(),
            line: None,
            column: None,
            row: None,
            field: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for FocusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}",
            crate::shared::format::file_place(&self.file, self.line, self.column)
        )?;
        if let Some(row) = self.row {
            write!(f, "row {row}: ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

/// What the start of a file says it is, when it cannot be a CSV or Parquet export.
fn refuse_by_content(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0x1f, 0x8b]) {
        return Some("gzip-compressed: decompress it first (gunzip), gpuplan reads .csv and .parquet");
    }
    if head.starts_with(b"PK\x03\x04") {
        return Some("a zip archive: extract the CSV or Parquet export first");
    }
    if head.starts_with(&[0xff, 0xfe]) || head.starts_with(&[0xfe, 0xff]) {
        return Some("UTF-16 text: save the export as UTF-8 CSV");
    }
    if head.contains(&0) {
        return Some("binary data (NUL bytes): expected a CSV or Parquet FOCUS export");
    }
    None
}

/// Reads a FOCUS export; `tag_key` is the `Tags` key naming a line's cluster.
pub fn read_focus(path: &Path, tag_key: &str) -> Result<FocusRead, Vec<FocusError>> {
    let file = path.display().to_string();
    let fail = |message: String| vec![FocusError::file(&file, message)];
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)
        .and_then(|f| f.take(4096).read_to_end(&mut head))
        .map_err(|e| fail(format!("cannot read the bill: {e}")))?;
    if head.starts_with(b"PAR1") {
        return parquet::read(path, &file, tag_key);
    }
    if let Some(why) = refuse_by_content(&head) {
        return Err(fail(why.to_string()));
    }
    let bom = if head.starts_with(&[0xef, 0xbb, 0xbf]) { 3 } else { 0 };
    if head[bom..].iter().all(u8::is_ascii_whitespace) {
        return Err(fail(
            "the file is empty: expected a FOCUS export with a header (ChargePeriodStart, BilledCost...)".into(),
        ));
    }
    read_csv(path, &file, tag_key, bom)
}

fn read_csv(path: &Path, file: &str, tag_key: &str, bom: usize) -> Result<FocusRead, Vec<FocusError>> {
    let fail = |message: String| vec![FocusError::file(file, message)];
    let opened = std::fs::File::open(path).map_err(|e| fail(format!("cannot read the bill: {e}")))?;
    let mut records = csv::Records::new(opened);
    records
        .skip_bytes(bom)
        .map_err(|e| fail(format!("cannot read the bill: {e}")))?;
    records.keep_first(MAX_COLUMNS, 1024);
    let record_error = |e: csv::RecordError| match e {
        csv::RecordError::Io(e) => FocusError::file(file, format!("cannot read the bill: {e}")),
        csv::RecordError::UnclosedQuote(at) => FocusError {
            line: Some(at.line),
            column: Some(at.column),
            ..FocusError::file(file, "a quoted value opened here is never closed")
        },
    };
    let mut record = csv::Record::default();
    let mut blank = 0;
    if records
        .next_record(&mut record, &mut blank)
        .map_err(|e| vec![record_error(e)])?
        .is_none()
    {
        return Err(fail("the file is empty: expected a FOCUS export with a header".into()));
    }
    if record.count > MAX_COLUMNS {
        return Err(fail(format!(
            "the header has {} columns: not a FOCUS export",
            record.count
        )));
    }
    let header_line = record.line;
    let mut names = Vec::with_capacity(record.count);
    for i in 0..record.count {
        let field = record.fields.get(i);
        let bytes = field.map_or(&[][..], |f| &f.bytes[..]);
        match std::str::from_utf8(bytes) {
            Ok(name) => names.push(name.trim().to_string()),
            Err(_) => {
                return Err(vec![FocusError {
                    line: Some(header_line),
                    column: field.map(|f| f.column),
                    ..FocusError::file(file, "the header is not UTF-8 text: save the export as UTF-8 CSV")
                }]);
            }
        }
    }
    if let [only] = names.as_slice()
        && let Some(separator) = [';', '\t', '|'].into_iter().find(|c| only.contains(*c))
    {
        return Err(fail(format!(
            "the header is one column holding {separator:?}: FOCUS CSV is comma-separated, save it so"
        )));
    }
    let columns = Columns::find(&names).map_err(|e| fail(e.to_string()))?;
    let mut keep = vec![false; names.len()];
    for (_, i) in columns.used() {
        keep[i] = true;
    }
    records.keep(keep, MAX_FIELD_BYTES);

    let mut seen = Seen::default();
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    let mut rows = 0u64;
    loop {
        match records.next_record(&mut record, &mut blank) {
            Ok(Some(())) => {}
            Ok(None) => break,
            Err(e) => {
                errors.push(record_error(e));
                break;
            }
        }
        rows += 1;
        if record.count != names.len() {
            errors.push(FocusError {
                line: Some(record.line),
                ..FocusError::file(
                    file,
                    format!(
                        "{} fields where the header (line {header_line}) has {}: a value with an unquoted comma?",
                        record.count,
                        names.len()
                    ),
                )
            });
        } else {
            let cell = |role: Role| -> Result<Cell<'_>, String> {
                let Some(field) = columns.index(role).and_then(|i| record.fields.get(i)) else {
                    return Ok(Cell::Null);
                };
                if field.too_long {
                    return Err(format!("a value longer than {} MiB", MAX_FIELD_BYTES >> 20));
                }
                std::str::from_utf8(&field.bytes)
                    .map(Cell::Text)
                    .map_err(|_| "not UTF-8 text: save the export as UTF-8 CSV".to_string())
            };
            match build_line(&cell, tag_key, &mut seen) {
                Ok(line) => lines.push(line),
                Err((role, message)) => {
                    let field = columns.index(role).and_then(|i| record.fields.get(i));
                    errors.push(FocusError {
                        line: Some(field.map_or(record.line, |f| f.line)),
                        column: field.map(|f| f.column),
                        field: Some(columns.name(role)),
                        ..FocusError::file(file, message)
                    });
                }
            }
        }
        if errors.len() >= MAX_ERRORS {
            errors.push(FocusError::file(file, format!("stopped after {MAX_ERRORS} errors")));
            break;
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(FocusRead {
        lines,
        file: summary(file, "csv", &names, rows, blank, seen, &columns),
    })
}

fn summary(
    file: &str,
    format: &'static str,
    names: &[String],
    rows: u64,
    blank: u64,
    seen: Seen,
    columns: &Columns,
) -> BillFile {
    let (focus_version, version_columns) = guess_version(names);
    BillFile {
        path: file.to_string(),
        format,
        lines: rows,
        blank_rows: blank,
        focus_version,
        version_columns,
        provider_column: columns.index(Role::Provider).map(|_| columns.name(Role::Provider)),
        providers: seen.providers.into_iter().collect(),
        currencies: seen.currencies.into_iter().collect(),
        regions: seen.regions.into_iter().collect(),
        null_costs: seen.null_costs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        (dir, path)
    }

    fn errors(bytes: &[u8]) -> Vec<String> {
        let (_dir, path) = write("bill.csv", bytes);
        match read_focus(&path, "cluster") {
            Ok(read) => panic!("expected errors, read {} lines", read.lines.len()),
            Err(errors) => errors
                .iter()
                .map(|e| e.to_string().replace(&path.display().to_string(), "bill.csv"))
                .collect(),
        }
    }

    const HEADER: &str = "ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,ChargeCategory,Tags\n";

    #[test]
    fn a_small_export_reads_with_its_tags_and_nulls() {
        let text = format!(
            "{HEADER}\n,,,,,\n2026-07-01T00:00:00Z,2026-07-01T01:00:00Z,12.2900000001,NULL,Usage,\"{{\"\"cluster\"\":\"\"east\"\"}}\"\n"
        );
        let (_dir, path) = write("bill.csv", text.as_bytes());
        let read = read_focus(&path, "cluster").expect("reads");
        assert_eq!(read.lines.len(), 1);
        let line = &read.lines[0];
        assert_eq!(line.billed_cost_usd, 12.2900000001);
        assert_eq!(line.effective_cost_usd, 0.0);
        assert_eq!(line.cluster_tag.as_deref(), Some("east"));
        assert_eq!((read.file.lines, read.file.blank_rows, read.file.null_costs), (1, 2, 1));
        assert_eq!(read.file.focus_version, "before 1.0");
    }

    #[test]
    fn a_byte_order_mark_and_crlf_lines_read_as_plain_csv() {
        let text = format!("\u{feff}{}", HEADER.replace('\n', "\r\n"))
            + "2026-07-01T00:00:00Z,2026-07-01T01:00:00Z,1,2,Credit,\r\n";
        let (_dir, path) = write("bill.csv", text.as_bytes());
        let read = read_focus(&path, "cluster").expect("reads");
        assert_eq!(read.lines.len(), 1);
        assert_eq!(
            read.lines[0].charge_category,
            crate::model::bill::ChargeCategory::Credit
        );
        assert_eq!(read.lines[0].effective_cost_usd, 2.0);
    }

    #[test]
    fn bad_values_are_named_by_line_column_and_column_name() {
        let text = format!(
            "{HEADER}2026-07-01T00:00:00Z,2026-07-01T01:00:00Z,$12.00,1,Usage,\n\
             2026-07-01T00:00:00Z,2026-06-01T01:00:00Z,1,1,Usage,\n\
             2026-07-01T00:00:00Z,2026-07-01T01:00:00Z,1,1,Refund,\n\
             2026-07-01T00:00:00Z,2026-07-01T01:00:00Z,1,1,Usage,{{oops\n\
             1,2\n"
        );
        let errors = errors(text.as_bytes());
        assert!(
            errors[0].starts_with("bill.csv:2:43: BilledCost: '$12.00' is not a decimal"),
            "{errors:?}"
        );
        assert!(
            errors[1].starts_with("bill.csv:3:22: ChargePeriodEnd: the charge period ends"),
            "{errors:?}"
        );
        assert!(
            errors[2].starts_with("bill.csv:4:47: ChargeCategory: 'Refund' is not one of"),
            "{errors:?}"
        );
        assert!(
            errors[3].starts_with("bill.csv:5:53: Tags: '{oops' is not a JSON object"),
            "{errors:?}"
        );
        assert!(
            errors[4].starts_with("bill.csv:6: 2 fields where the header"),
            "{errors:?}"
        );
    }

    #[test]
    fn billing_periods_and_providers_are_read_and_checked() {
        let text = "BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,\
                    ChargeCategory,ProviderName\n\
                    2023-01-01T00:00:00Z,2023-02-01T00:00:00Z,2023-01-01T00:00:00Z,2024-01-01T00:00:00Z,8760,0,Purchase,AWS\n\
                    ,,2023-01-01T00:00:00Z,2023-01-01T01:00:00Z,1,1,Usage,\n";
        let (_dir, path) = write("bill.csv", text.as_bytes());
        let read = read_focus(&path, "cluster").expect("reads");
        assert_eq!(
            read.lines[0].billing_period_ms,
            Some((1_672_531_200_000, 1_675_209_600_000))
        );
        assert_eq!(read.lines[0].provider.as_deref(), Some("AWS"));
        assert_eq!(
            (read.lines[1].billing_period_ms, read.lines[1].provider.as_deref()),
            (None, None)
        );

        let header = "BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,ChargeCategory\n";
        let errors = errors(
            format!(
                "{header}2023-02-01,2023-01-01,2023-01-01,2023-01-02,1,1,Usage\n\
                 2023-01-01,,2023-01-01,2023-01-02,1,1,Usage\n\
                 2023-01-01,2023-02-01T30:00:00Z,2023-01-01,2023-01-02,1,1,Usage\n"
            )
            .as_bytes(),
        );
        assert!(
            errors[0].starts_with("bill.csv:2:12: BillingPeriodEnd: the billing period ends (2023-01-01"),
            "{errors:?}"
        );
        assert!(
            errors[1].starts_with("bill.csv:3:12: BillingPeriodEnd: empty beside a BillingPeriodStart"),
            "{errors:?}"
        );
        assert!(
            errors[2].starts_with("bill.csv:4:12: BillingPeriodEnd: '2023-02-01T30:00:00Z' is not"),
            "{errors:?}"
        );
    }

    #[test]
    fn a_missing_column_lists_the_columns_the_file_has() {
        let errors = errors(b"ChargePeriodStart,ChargePeriodEnd,Cost\n");
        assert_eq!(
            errors,
            [
                "bill.csv: not a FOCUS cost export: no BilledCost, EffectiveCost, ChargeCategory columns; \
              the file has: ChargePeriodStart, ChargePeriodEnd, Cost"
            ]
        );
    }

    #[test]
    fn files_that_are_not_csv_text_are_refused_by_what_they_are() {
        assert!(errors(b"")[0].contains("the file is empty"));
        assert!(errors(b"\n\n  \n")[0].contains("the file is empty"));
        assert!(errors(b"\x1f\x8b\x08\x00")[0].contains("gzip"));
        assert!(errors(b"\xff\xfeC\x00h\x00")[0].contains("UTF-16"));
        assert!(errors(b"\x00\x01\x02garbage")[0].contains("binary data"));
        assert!(errors(b"ChargePeriodStart;BilledCost\n")[0].contains("one column holding ';'"));
        assert!(errors(b"\xc3\x28,\xa0\xa1\n")[0].contains("bill.csv:1:1: the header is not UTF-8"));
        let huge = format!("{HEADER}2026-07-01,2026-07-02,1,1,Usage,\"{}\"\n", "x".repeat(3 << 20));
        assert!(errors(huge.as_bytes())[0].contains("Tags: a value longer than 1 MiB"));
        let latin1 = format!("{HEADER}2026-07-01,2026-07-02,1,1,Usage,\"{{\"\"a\"\":\"\"é\"\"}}\"\n");
        let mut bytes = latin1.into_bytes();
        let at = bytes.iter().position(|&b| b == 0xc3).expect("é");
        bytes.splice(at..at + 2, [0xe9]);
        assert!(errors(&bytes)[0].contains("Tags: not UTF-8 text"));
    }
}
