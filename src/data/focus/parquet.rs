//! FOCUS exports in Parquet: only the columns gpuplan reads are decoded, each from whatever
//! type the writer chose (text, timestamps, dates, floats, integers; `Tags` as JSON text, a
//! key/value map or a struct). Column types this build cannot decode (DECIMAL, for one) are
//! refused by name before any data is read, and a decoder that fails on a damaged file is
//! caught: a truncated file is an error, never a crash.

use crate::data::error::DataError;
use crate::data::readers::panic_guard::without_panics;
use std::path::Path;

use polars::prelude::*;

use super::{BillLine, Cell, Columns, FocusError, FocusRead, MAX_ERRORS, Role, Seen, build_line, summary};

/// A role's column, ready to read row by row.
enum View {
    Text(StringChunked),
    Number(Float64Chunked),
    /// Epoch values and how many of them make a millisecond (or, negative, how many
    /// milliseconds one of them is).
    Time(Int64Chunked, i64),
    Tags(Vec<Option<String>>),
}

impl View {
    fn len(&self) -> usize {
        match self {
            View::Text(ca) => ca.len(),
            View::Number(ca) => ca.len(),
            View::Time(ca, _) => ca.len(),
            View::Tags(values) => values.len(),
        }
    }

    fn cell(&self, row: usize) -> Cell<'_> {
        match self {
            View::Text(ca) => ca.get(row).map_or(Cell::Null, Cell::Text),
            View::Number(ca) => ca.get(row).map_or(Cell::Null, Cell::Number),
            View::Time(ca, per_ms) => ca.get(row).map_or(Cell::Null, |v| {
                Cell::TimeMs(if *per_ms > 0 {
                    v.div_euclid(*per_ms)
                } else {
                    v.saturating_mul(-per_ms)
                })
            }),
            View::Tags(values) => Cell::Tag(values.get(row).cloned().flatten()),
        }
    }
}

/// Whether this build decodes a Parquet column of this type (the others would abort).
fn decodable(dtype: &ArrowDataType) -> bool {
    use ArrowDataType as A;
    match dtype {
        A::Null
        | A::Boolean
        | A::Int8
        | A::Int16
        | A::Int32
        | A::Int64
        | A::UInt8
        | A::UInt16
        | A::UInt32
        | A::UInt64
        | A::Float32
        | A::Float64
        | A::Utf8
        | A::LargeUtf8
        | A::Utf8View
        | A::Binary
        | A::LargeBinary
        | A::BinaryView
        | A::Date32
        | A::Date64 => true,
        A::Timestamp(_, zone) => TimeZone::opt_try_new(zone.clone()).is_ok(),
        A::Dictionary(_, values, _) => matches!(values.as_ref(), A::Utf8 | A::LargeUtf8 | A::Utf8View),
        A::List(field) | A::LargeList(field) | A::Map(field, _) => decodable(&field.dtype),
        A::Struct(fields) => fields.iter().all(|f| decodable(&f.dtype)),
        _ => false,
    }
}

pub(super) fn read(path: &Path, file: &str, tag_key: &str) -> Result<FocusRead, Vec<FocusError>> {
    let fail = |message: String| vec![FocusError::file(file, message)];
    let damaged = |why: String| fail(format!("not a readable Parquet file (truncated or damaged?): {why}"));
    let opened = std::fs::File::open(path).map_err(|e| fail(format!("cannot read the bill: {e}")))?;
    without_panics(|| crate::data::readers::parquet_pages::refuse_before_decoding(path))
        .map_err(|e| damaged(e.to_string()))?
        .map_err(|e| fail(e.to_string()))?;
    let mut reader = ParquetReader::new(opened);
    let schema = without_panics(|| reader.schema())
        .map_err(|e| damaged(e.to_string()))?
        .map_err(|e| damaged(e.to_string()))?;
    let names: Vec<String> = schema.iter_names().map(|n| n.to_string()).collect();
    let columns = Columns::find(&names).map_err(|e| fail(e.to_string()))?;
    let mut projection = Vec::new();
    for (role, index) in columns.used() {
        let Some((_, field)) = schema.get_at_index(index) else {
            continue;
        };
        if !decodable(&field.dtype) {
            return Err(vec![FocusError {
                field: Some(columns.name(role)),
                ..FocusError::file(
                    file,
                    format!(
                        "a Parquet column of type {:?}, which gpuplan cannot decode: export it as text, a float or a timestamp",
                        field.dtype
                    ),
                )
            }]);
        }
        projection.push(index);
    }
    projection.sort_unstable();
    projection.dedup();
    let frame = without_panics(|| reader.with_projection(Some(projection)).finish())
        .map_err(|e| damaged(e.to_string()))?
        .map_err(|e| damaged(e.to_string()))?;

    let mut views: Vec<(Role, View)> = Vec::new();
    for (role, _) in columns.used() {
        let name = columns.name(role);
        let column = frame
            .column(&name)
            .map_err(|e| fail(format!("column {name}: {e}")))?
            .as_materialized_series()
            .rechunk();
        let view = view_of(role, &column, tag_key).map_err(|message| {
            vec![FocusError {
                field: Some(name.clone()),
                ..FocusError::file(file, message.to_string())
            }]
        })?;
        // A damaged file can decode into columns of different lengths.
        if view.len() != frame.height() {
            return Err(damaged(format!(
                "column {name} has {} values for {} rows",
                view.len(),
                frame.height()
            )));
        }
        views.push((role, view));
    }

    let mut seen = Seen::default();
    let mut lines: Vec<BillLine> = Vec::with_capacity(frame.height());
    let mut errors = Vec::new();
    for row in 0..frame.height() {
        let cell = |role: Role| -> Result<Cell<'_>, String> {
            Ok(views
                .iter()
                .find(|(r, _)| *r == role)
                .map_or(Cell::Null, |(_, view)| view.cell(row)))
        };
        match build_line(&cell, tag_key, &mut seen) {
            Ok(line) => lines.push(line),
            Err((role, message)) => errors.push(FocusError {
                row: Some(row as u64 + 1),
                field: Some(columns.name(role)),
                ..FocusError::file(file, message)
            }),
        }
        if errors.len() >= MAX_ERRORS {
            errors.push(FocusError::file(file, format!("stopped after {MAX_ERRORS} errors")));
            break;
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let rows = frame.height() as u64;
    Ok(FocusRead {
        lines,
        file: summary(file, "parquet", &names, rows, 0, seen, &columns),
    })
}

/// A role's column as a view, or why its type does not fit the role.
fn view_of(role: Role, column: &Series, tag_key: &str) -> Result<View, DataError> {
    let err = DataError::Frame;
    let text = |s: &Series| -> Result<View, DataError> {
        Ok(View::Text(
            s.cast(&DataType::String).map_err(err)?.str().map_err(err)?.clone(),
        ))
    };
    let dtype = column.dtype();
    match role {
        Role::Start | Role::End | Role::BillingStart | Role::BillingEnd => match dtype {
            DataType::Datetime(unit, _) => {
                let per_ms = match unit {
                    TimeUnit::Nanoseconds => 1_000_000,
                    TimeUnit::Microseconds => 1_000,
                    TimeUnit::Milliseconds => 1,
                };
                let values = column.cast(&DataType::Int64).map_err(err)?;
                Ok(View::Time(values.i64().map_err(err)?.clone(), per_ms))
            }
            DataType::Date => {
                let values = column
                    .cast(&DataType::Int32)
                    .map_err(err)?
                    .cast(&DataType::Int64)
                    .map_err(err)?;
                Ok(View::Time(values.i64().map_err(err)?.clone(), -86_400_000))
            }
            DataType::String | DataType::Null => text(column),
            other => Err(DataError::ColumnType {
                dtype: other.clone(),
                expected: "timestamps or text",
            }),
        },
        Role::Billed | Role::Effective | Role::Quantity => match dtype {
            DataType::String | DataType::Null => text(column),
            d if d.is_primitive_numeric() => {
                let values = column.cast(&DataType::Float64).map_err(err)?;
                Ok(View::Number(values.f64().map_err(err)?.clone()))
            }
            other => Err(DataError::ColumnType {
                dtype: other.clone(),
                expected: "decimal numbers or text",
            }),
        },
        Role::Tags => match dtype {
            DataType::List(inner) if matches!(inner.as_ref(), DataType::Struct(_)) => {
                Ok(View::Tags(tags_from_pairs(column, tag_key).map_err(err)?))
            }
            DataType::Struct(fields) => {
                let Some(field) = fields.iter().find(|f| f.name().as_str() == tag_key) else {
                    return Ok(View::Tags(vec![None; column.len()]));
                };
                let values = column
                    .struct_()
                    .map_err(err)?
                    .field_by_name(field.name())
                    .map_err(err)?;
                let values = values.cast(&DataType::String).map_err(err)?;
                Ok(View::Tags(
                    values
                        .str()
                        .map_err(err)?
                        .iter()
                        .map(|v| v.map(str::trim).filter(|v| !v.is_empty()).map(str::to_string))
                        .collect(),
                ))
            }
            DataType::String | DataType::Null => text(column),
            other => Err(DataError::ColumnType {
                dtype: other.clone(),
                expected: "a JSON object as text or a key/value map",
            }),
        },
        _ => match dtype {
            DataType::List(_) | DataType::Struct(_) => Err(DataError::ColumnType {
                dtype: dtype.clone(),
                expected: "text",
            }),
            _ => text(column),
        },
    }
}

/// `Tags` as a list of {key, value} pairs per row (a Parquet MAP): each row's value of `key`.
fn tags_from_pairs(column: &Series, key: &str) -> PolarsResult<Vec<Option<String>>> {
    let lists = column.list()?;
    let mut out = Vec::with_capacity(column.len());
    for row in 0..lists.len() {
        let Some(pairs) = lists.get_as_series(row) else {
            out.push(None);
            continue;
        };
        let pairs = pairs.struct_()?;
        let fields = pairs.fields_as_series();
        let find = |name: &str| fields.iter().find(|f| f.name().as_str().eq_ignore_ascii_case(name));
        let (Some(keys), Some(values)) = (find("key"), find("value")) else {
            out.push(None);
            continue;
        };
        let keys = keys.cast(&DataType::String)?;
        let values = values.cast(&DataType::String)?;
        let found = keys
            .str()?
            .iter()
            .zip(values.str()?.iter())
            .find(|(k, _)| *k == Some(key))
            .and_then(|(_, v)| v.map(str::trim).filter(|v| !v.is_empty()).map(str::to_string));
        out.push(found);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::read_focus;
    use super::*;

    /// Three lines with typed columns: UTC timestamps in microseconds, float costs, and
    /// `Tags` as a key/value map, as a warehouse export writes them.
    fn typed_frame() -> DataFrame {
        let start = Column::new(
            "ChargePeriodStart".into(),
            [1_782_864_000_000_000i64, 1_782_867_600_000_000, 0],
        )
        .cast(&DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)))
        .expect("timestamps");
        let end = Column::new(
            "ChargePeriodEnd".into(),
            [1_782_867_600_000_000i64, 1_782_871_200_000_000, 0],
        )
        .cast(&DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)))
        .expect("timestamps");
        let pairs = df!(
            "row" => [0u32, 0, 1, 2],
            "key" => ["team", "cluster", "team", "cluster"],
            "value" => ["ml", "us-east-h100", "infra", "eu-west-a100"],
        )
        .expect("pairs")
        .lazy()
        .group_by_stable([col("row")])
        .agg([as_struct(vec![col("key"), col("value")]).alias("Tags")])
        .collect()
        .expect("tags");
        let mut frame = DataFrame::new(
            3,
            vec![
                start,
                end,
                Column::new("BilledCost".into(), [98.32, 0.0, -10.0]),
                Column::new("EffectiveCost".into(), [98.32, 61.2, -10.0]),
                Column::new("ChargeCategory".into(), ["Usage", "Usage", "Credit"]),
                Column::new("CommitmentDiscountStatus".into(), [None, Some("Unused"), None]),
                Column::new("ConsumedQuantity".into(), [Some(8i64), None, None]),
                Column::new("ConsumedUnit".into(), [Some("GPU-Hours"), None, None]),
            ],
        )
        .expect("frame");
        frame
            .with_column(pairs.column("Tags").expect("tags").clone())
            .expect("tags column");
        frame
    }

    fn write(frame: &mut DataFrame) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("bill.parquet");
        let file = std::fs::File::create(&path).expect("create");
        ParquetWriter::new(file).finish(frame).expect("write parquet");
        (dir, path)
    }

    #[test]
    fn typed_columns_and_map_tags_read_as_text_would() {
        let (_dir, path) = write(&mut typed_frame());
        let read = read_focus(&path, "cluster").expect("reads");
        assert_eq!(read.file.format, "parquet");
        assert_eq!(read.lines.len(), 3);
        let first = &read.lines[0];
        assert_eq!(first.charge_period_start_ms, 1_782_864_000_000);
        assert_eq!(first.charge_period_end_ms, 1_782_867_600_000);
        assert_eq!(first.billed_cost_usd, 98.32);
        assert_eq!(first.consumed_hours, Some((crate::model::bill::HoursUnit::Gpu, 8.0)));
        assert_eq!(first.cluster_tag.as_deref(), Some("us-east-h100"));
        assert_eq!(read.lines[1].cluster_tag, None, "no cluster key");
        assert_eq!(
            read.lines[1].commitment_discount_status,
            Some(crate::model::bill::UsageStatus::Unused)
        );
        assert_eq!(read.lines[2].cluster_tag.as_deref(), Some("eu-west-a100"));
    }

    #[test]
    fn a_truncated_or_damaged_file_is_an_error_not_a_crash() {
        let (dir, path) = write(&mut typed_frame());
        let bytes = std::fs::read(&path).expect("read");
        for cut in [bytes.len() - 8, bytes.len() / 2, 12, 4] {
            let truncated = dir.path().join(format!("cut-{cut}.parquet"));
            std::fs::write(&truncated, &bytes[..cut]).expect("write");
            let errors = read_focus(&truncated, "cluster").expect_err("truncated");
            assert!(
                errors[0].message.contains("not a readable Parquet file"),
                "cut at {cut}: {}",
                errors[0]
            );
        }
        // Bytes changed in the middle: whatever the decoder makes of it, no panic escapes.
        for offset in (8..bytes.len() - 8).step_by(97) {
            let mut damaged = bytes.clone();
            for b in &mut damaged[offset..(offset + 16).min(bytes.len() - 8)] {
                *b ^= 0x5a;
            }
            let damaged_path = dir.path().join("damaged.parquet");
            std::fs::write(&damaged_path, &damaged).expect("write");
            let _ = read_focus(&damaged_path, "cluster");
        }
    }

    #[test]
    fn a_bad_value_names_its_row_and_column() {
        let mut frame = typed_frame();
        frame
            .with_column(Column::new("BilledCost".into(), ["1", "x", "3"]))
            .expect("text costs");
        let (_dir, path) = write(&mut frame);
        let errors = read_focus(&path, "cluster").expect_err("bad cost");
        let shown = errors[0].to_string();
        assert!(shown.ends_with("row 2: BilledCost: 'x' is not a decimal number (write 1234.5: no currency sign, thousands separator or unit)"), "{shown}");
    }
}
