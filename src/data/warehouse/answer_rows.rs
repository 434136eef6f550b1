//! An answer's values read by column and row, whatever integer, decimal, float or text type the
//! engine chose for them: the warehouse's answers (`answers`, `passes`) read through it.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;

use super::error::WarehouseError;

/// One batch's columns, read by name and row. The names are lower-cased once a batch: a
/// totals answer runs to millions of rows, each read a score of times.
pub(super) struct Rows<'a> {
    part: &'static str,
    batch: &'a RecordBatch,
    names: Vec<String>,
}

impl<'a> Rows<'a> {
    pub(super) fn new(part: &'static str, batch: &'a RecordBatch) -> Rows<'a> {
        let names = (batch.schema().fields().iter())
            .map(|f| f.name().to_ascii_lowercase())
            .collect();
        Rows { part, batch, names }
    }

    /// The index of the column `name` in the batch (names compared lower-cased).
    pub(super) fn index(&self, name: &str) -> Result<usize, WarehouseError> {
        self.names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| WarehouseError::Answer {
                part: self.part,
                column: name.to_string(),
                found: "no such column".to_string(),
            })
    }

    /// A text value of the column at `index`, borrowed from the batch.
    pub(super) fn str_at(&self, index: usize, row: usize) -> Result<Option<&'a str>, WarehouseError> {
        let array = self.batch.column(index).as_ref();
        if array.is_null(row) {
            return Ok(None);
        }
        Ok(Some(match array.data_type() {
            DataType::Utf8 => array.as_string::<i32>().value(row),
            DataType::LargeUtf8 => array.as_string::<i64>().value(row),
            DataType::Utf8View => array.as_string_view().value(row),
            DataType::Null => return Ok(None),
            _ => return Err(self.wrong(&self.names[index], array)),
        }))
    }

    fn wrong(&self, name: &str, array: &dyn Array) -> WarehouseError {
        WarehouseError::Answer {
            part: self.part,
            column: name.to_string(),
            found: array.data_type().to_string(),
        }
    }

    pub(super) fn f64(&self, name: &str, row: usize) -> Result<Option<f64>, WarehouseError> {
        self.f64_at(self.index(name)?, row)
    }

    pub(super) fn f64_at(&self, index: usize, row: usize) -> Result<Option<f64>, WarehouseError> {
        let array = self.batch.column(index).as_ref();
        if array.is_null(row) {
            return Ok(None);
        }
        Ok(Some(match array.data_type() {
            DataType::Float64 => array.as_primitive::<Float64Type>().value(row),
            DataType::Float32 => f64::from(array.as_primitive::<Float32Type>().value(row)),
            DataType::Decimal128(_, scale) => {
                array.as_primitive::<Decimal128Type>().value(row) as f64 / 10f64.powi(i32::from(*scale))
            }
            DataType::Null => return Ok(None),
            _ => return self.i64_at(index, row).map(|v| v.map(|v| v as f64)),
        }))
    }

    pub(super) fn i64(&self, name: &str, row: usize) -> Result<Option<i64>, WarehouseError> {
        self.i64_at(self.index(name)?, row)
    }

    pub(super) fn i64_at(&self, index: usize, row: usize) -> Result<Option<i64>, WarehouseError> {
        let array = self.batch.column(index).as_ref();
        if array.is_null(row) {
            return Ok(None);
        }
        Ok(Some(match array.data_type() {
            DataType::Int64 => array.as_primitive::<Int64Type>().value(row),
            DataType::Int32 => i64::from(array.as_primitive::<Int32Type>().value(row)),
            DataType::Int16 => i64::from(array.as_primitive::<Int16Type>().value(row)),
            DataType::Int8 => i64::from(array.as_primitive::<Int8Type>().value(row)),
            DataType::UInt32 => i64::from(array.as_primitive::<UInt32Type>().value(row)),
            DataType::UInt64 => i64::try_from(array.as_primitive::<UInt64Type>().value(row)).unwrap_or(i64::MAX),
            DataType::Decimal128(_, scale) => {
                let value = array.as_primitive::<Decimal128Type>().value(row) / 10i128.pow(u32::from(*scale as u8));
                i64::try_from(value).unwrap_or(i64::MAX)
            }
            DataType::Float64 => array.as_primitive::<Float64Type>().value(row) as i64,
            DataType::Null => return Ok(None),
            _ => return Err(self.wrong(&self.names[index], array)),
        }))
    }

    /// A text value, owned.
    pub(super) fn text(&self, name: &str, row: usize) -> Result<Option<String>, WarehouseError> {
        Ok(self.str_at(self.index(name)?, row)?.map(str::to_string))
    }
}
