//! The expressions that turn a log's mapped columns into canonical fields: text, numbers, GPU
//! counts, time limits, job ids and line numbers.

use polars::prelude::*;

use super::scan::first_line_number;
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::data::places::ROW;
use crate::data::readers::detect::LogFormat;
use crate::data::readers::mapping::Mapping;
use crate::data::readers::slurm::parse_elapsed_ms;

pub(super) fn null_text() -> Expr {
    lit(NULL).cast(DataType::String)
}

pub(super) fn text_field(field: &str, mapping: &Mapping) -> Expr {
    if let Some(value) = mapping.constants.get(field) {
        return lit(value.clone());
    }
    match mapping.columns.get(field) {
        Some(source) => col(source.as_str()).cast(DataType::String),
        None => null_text(),
    }
}

pub(super) fn is_numeric(dtype: &DataType) -> bool {
    dtype.is_primitive_numeric() || matches!(dtype, DataType::Boolean)
}

/// A numeric field as f64: numbers cast, text parsed (non-strict: bad text becomes null and
/// is then quarantined because the raw value was present).
pub(super) fn number_field(field: &str, mapping: &Mapping, schema: &Schema) -> Result<Expr, DataError> {
    if let Some(value) = mapping.constants.get(field) {
        let number: f64 = value.trim().parse().map_err(|_| DataError::ConstantNotNumber {
            field: field.to_string(),
            value: value.clone(),
        })?;
        return Ok(lit(number));
    }
    Ok(match mapping.columns.get(field) {
        Some(source) => match schema.get(source.as_str()) {
            Some(dtype) if is_numeric(dtype) && *dtype != DataType::Boolean => {
                col(source.as_str()).cast(DataType::Float64)
            }
            Some(dtype) if !can_hold_a_number(dtype) => {
                return Err(DataError::LogColumnType {
                    field: field.to_string(),
                    column: source.clone(),
                    dtype: dtype.to_string(),
                    expected: "a number",
                });
            }
            _ => col(source.as_str()).cast(DataType::String).cast(DataType::Float64),
        },
        None => lit(NULL).cast(DataType::Float64),
    })
}

/// Whether a column of `dtype` can carry a number as text (strings, categories, an all-null
/// column): a BOOLEAN, a list, a struct, binary or a time cannot, and read as text it gives
/// numbers nobody wrote ("true" is no GPU count).
fn can_hold_a_number(dtype: &DataType) -> bool {
    matches!(dtype, DataType::String | DataType::Null)
        || matches!(dtype, DataType::Categorical(..) | DataType::Enum(..))
}

/// GPUs per unit of the `gpus` column when the log splits them (Kubernetes: num_gpu × gpu_milli).
pub(super) fn gpu_multiplier(mapping: &Mapping, schema: &Schema) -> Expr {
    match &mapping.gpu_multiplier {
        Some(source) => match schema.get(source.as_str()) {
            Some(dtype) if is_numeric(dtype) => col(source.as_str()).cast(DataType::Float64),
            _ => col(source.as_str()).cast(DataType::String).cast(DataType::Float64),
        },
        None => lit(1.0),
    }
}

pub(super) fn raw_present(field: &str, mapping: &Mapping) -> Expr {
    if mapping.constants.contains_key(field) {
        return lit(true);
    }
    match mapping.columns.get(field) {
        Some(source) => col(source.as_str()).is_not_null(),
        None => lit(false),
    }
}

/// A time limit column as hours: bare numbers in the mapping's unit, Slurm's `[D-]HH:MM:SS`
/// as a duration; anything else (`UNLIMITED`, garbage) null: a time limit only sizes the
/// demand of jobs that never started, so a bad one costs no row.
pub(super) fn time_limit_field(mapping: &Mapping, schema: &Schema) -> Expr {
    let Some(source) = mapping.columns.get("time_limit") else {
        return lit(NULL).cast(DataType::Float64);
    };
    let hours_per_unit = mapping.units.time_limit.hours_per_unit();
    if schema.get(source.as_str()).is_some_and(is_numeric) {
        return col(source.as_str()).cast(DataType::Float64) * lit(hours_per_unit);
    }
    col(source.as_str()).map(
        move |column| {
            let values = column.cast(&DataType::String)?;
            let hours: Float64Chunked = values
                .str()?
                .iter()
                .map(|v| {
                    let v = v?.trim();
                    match v.parse::<f64>() {
                        Ok(n) if n.is_finite() && n >= 0.0 => Some(n * hours_per_unit),
                        Ok(_) => None,
                        Err(_) => parse_elapsed_ms(v).ok().flatten().map(|ms| ms as f64 / c::MS_PER_HOUR),
                    }
                })
                .collect();
            Ok(hours.into_column())
        },
        |_, field| Ok(Field::new(field.name().clone(), DataType::Float64)),
    )
}

/// The job id (the mapped column, else `row-LINE`) and the source line of each row of a scan.
pub(super) fn id_and_line(mapping: &Mapping, format: LogFormat) -> (Expr, Expr) {
    let line = (col(ROW).cast(DataType::UInt64) + lit(first_line_number(format, mapping))).alias(c::SOURCE_LINE);
    let job_id = if mapping.columns.contains_key("job_id") {
        text_field("job_id", mapping)
    } else {
        concat_str([lit("row-"), line.clone().cast(DataType::String)], "", false)
    };
    (job_id, line)
}

/// The text columns a reader in full detail gives (job id, cluster, name, user, queue, state)
/// and the source line, from a scan through an applied mapping: to read chosen rows back.
pub(crate) fn text_exprs(mapping: &Mapping, format: LogFormat) -> Vec<Expr> {
    let (job_id, line) = id_and_line(mapping, format);
    vec![
        job_id.alias(c::JOB_ID),
        text_field("cluster", mapping).alias(c::CLUSTER),
        text_field("name", mapping).alias(c::NAME),
        text_field("user", mapping).alias(c::USER),
        text_field("queue", mapping).alias(c::QUEUE),
        text_field("state", mapping).alias(c::STATE),
        line,
    ]
}
