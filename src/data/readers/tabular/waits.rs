//! A log with both a wait column and submit and start times: the waits are checked against
//! start − submit on the first piece, and a disagreement is told (the submit time is used).

use polars::prelude::*;

use super::err;
use super::fields::{id_and_line, number_field};
use super::times::time_field;
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::data::readers::detect::LogFormat;
use crate::data::readers::mapping::Mapping;

/// A wait within this of start − submit agrees (logs round to the second; some to the minute).
const WAIT_TOLERANCE_MS: i64 = 60_000;

/// A warning when the mapped wait column disagrees with start − submit on `first`'s rows.
pub(super) fn wait_disagreement(
    first: &DataFrame,
    format: LogFormat,
    mapping: &Mapping,
    schema: &Schema,
) -> Result<Option<String>, DataError> {
    let (Some(wait_column), true) = (mapping.columns.get("wait"), mapping.columns.contains_key("submit")) else {
        return Ok(None);
    };
    let lf = first.clone().lazy();
    let (_, line) = id_and_line(mapping, format);
    let checked = lf
        .clone()
        .select([
            time_field("submit", &lf, mapping, schema)?
                .cast(DataType::Int64)
                .alias("submit"),
            time_field("start", &lf, mapping, schema)?
                .cast(DataType::Int64)
                .alias("start"),
            (number_field("wait", mapping, schema)? * lit(1_000.0))
                .cast(DataType::Int64)
                .alias("wait"),
            line,
        ])
        .drop_nulls(None)
        .with_column({
            let gap = (col("start") - col("submit")) - col("wait");
            gap.clone()
                .gt(lit(WAIT_TOLERANCE_MS))
                .or(gap.lt(lit(-WAIT_TOLERANCE_MS)))
                .alias("differs")
        })
        .collect()
        .map_err(err)?;
    let differs = checked.column("differs").map_err(err)?.bool().map_err(err)?.clone();
    let count = differs.sum().unwrap_or(0) as usize;
    if count == 0 {
        return Ok(None);
    }
    let first_line = checked
        .filter(&differs)
        .map_err(err)?
        .column(c::SOURCE_LINE)
        .map_err(err)?
        .u64()
        .map_err(err)?
        .get(0)
        .unwrap_or(0);
    Ok(Some(format!(
        "column `{wait_column}` (waits in seconds) differs from start − submit by over a minute on {count} of {} rows \
         read first (first at line {first_line}): the submit time is used",
        checked.height()
    )))
}
