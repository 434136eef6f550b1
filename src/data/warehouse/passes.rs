//! How an audit is split into passes: as asked (`[warehouse] passes`), or, asked nothing, as the
//! engine's memory needs. An audit groups every run into its job, so the engine holds every job
//! at once; past its memory it spills (DuckDB: about a gigabyte a million runs) or fails. Where
//! the engine reports its memory limit (DuckDB), passes are chosen so that a pass's runs fit it.
//! Each pass reads a range of the job ids where they are numbers (the engine skips the row
//! groups outside it), a hash share of them otherwise (every pass reads the whole source).

use arrow_array::RecordBatch;

use super::SentQuery;
use super::answer_rows::Rows;
use super::connect::Warehouse;
use super::error::WarehouseError;
use super::sql::{AuditSql, Pass};
use crate::model::plan::MAX_PASSES;

/// The engine memory a run needs in one pass, planned: DuckDB 1.4 held 2 million runs of
/// `bench/warehouse_log.py` in a 2 GB limit without spilling (about 1 KB a run: the jobs'
/// grouping, the sweep, the rows read), and half again as a margin.
pub const ENGINE_BYTES_PER_RUN: u64 = 1_500;

/// What the engine needs whatever the runs (its buffers for reading and grouping with a
/// thread a core): DuckDB runs out of memory on the smallest audit under a few megabytes.
pub const ENGINE_BASE_BYTES: u64 = 64 << 20;

/// The passes of an audit of `runs` runs: `asked` when given (one: a single statement); asked
/// nothing, as many as the engine's memory limit needs, where it reports one. Empty for one
/// statement. The statements that read the range or the limit are added to `queries`.
pub(super) fn plan(
    warehouse: &mut Warehouse,
    query: &AuditSql<'_>,
    asked: Option<u32>,
    runs: u64,
    queries: &mut Vec<SentQuery>,
) -> Result<Vec<Pass>, WarehouseError> {
    // An engine that cannot split an audit is never asked its memory (asked for passes, it is
    // told so by the statements), nor is a source without job ids: its rows are numbered in
    // each statement afresh, and a row could fall in two passes or none.
    let splits = query.dialect.job_share("job_id", 2).is_some();
    let of = match asked {
        Some(of) => of,
        None => match query.dialect.memory_limit_query() {
            Some(sql) if splits && query.fields.job_id_mapped => {
                let limit = memory_limit(&warehouse.query("memory limit", sql)?)?;
                queries.push(SentQuery {
                    step: "memory limit",
                    sql: sql.to_string(),
                });
                limit.map_or(1, |bytes| passes_for(runs, bytes))
            }
            _ => 1,
        },
    };
    if of <= 1 {
        return Ok(Vec::new());
    }
    let Some(sql) = query.job_range_query().filter(|_| splits) else {
        return Ok(Pass::hashed(of));
    };
    let range = job_range(&warehouse.query("job ids", &sql)?)?;
    queries.push(SentQuery { step: "job ids", sql });
    Ok(match range {
        Some((min, max)) => Pass::id_ranges(of, min, max),
        None => Pass::hashed(of),
    })
}

/// The passes `runs` need under `limit_bytes` of engine memory: `ENGINE_BYTES_PER_RUN` each in
/// what `ENGINE_BASE_BYTES` leaves, at most `MAX_PASSES`. One where nothing is left: passes
/// cannot help, and the engine says what it lacks.
pub fn passes_for(runs: u64, limit_bytes: u64) -> u32 {
    let Some(free) = limit_bytes.checked_sub(ENGINE_BASE_BYTES).filter(|&free| free > 0) else {
        return 1;
    };
    let need = u128::from(runs) * u128::from(ENGINE_BYTES_PER_RUN);
    need.div_ceil(u128::from(free)).clamp(1, u128::from(MAX_PASSES)) as u32
}

/// The engine's memory limit in bytes (`memory_limit_query`: `667.5 MiB`, `18.8 GiB`, `2GB`);
/// None for one that is not a size (no limit).
fn memory_limit(batches: &[RecordBatch]) -> Result<Option<u64>, WarehouseError> {
    let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) else {
        return Ok(None);
    };
    let text = Rows::new("memory limit", batch).text("memory_limit", 0)?;
    Ok(text.as_deref().and_then(bytes_of_size))
}

/// `667.5 MiB`, `2GB`, `1.0 GiB`, `512 bytes` in bytes; None for anything else.
fn bytes_of_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "byte" | "bytes" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "pb" => 1e15,
        "kib" => 1024.0,
        "mib" => 1024f64.powi(2),
        "gib" => 1024f64.powi(3),
        "tib" => 1024f64.powi(4),
        "pib" => 1024f64.powi(5),
        _ => return None,
    };
    let bytes = number * scale;
    (bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// The smallest and largest job id (`job_range_query`), None where no row has one.
fn job_range(batches: &[RecordBatch]) -> Result<Option<(f64, f64)>, WarehouseError> {
    let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) else {
        return Ok(None);
    };
    let rows = Rows::new("job ids", batch);
    Ok(match (rows.f64("min_job_id", 0)?, rows.f64("max_job_id", 0)?) {
        (Some(min), Some(max)) if min.is_finite() && max.is_finite() && min <= max => Some((min, max)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_engines_write_them() {
        assert_eq!(bytes_of_size("667.5 MiB"), Some(699_924_480));
        assert_eq!(bytes_of_size("1.8 GiB"), Some(1_932_735_283));
        assert_eq!(bytes_of_size("2GB"), Some(2_000_000_000));
        assert_eq!(bytes_of_size(" 512 bytes "), Some(512));
        // DuckDB's "no limit".
        assert!(bytes_of_size("16383.9 PiB").is_some_and(|bytes| bytes > 10u64.pow(19)));
        for odd in ["", "unlimited", "-1", "1.8 parsecs", "NaN GiB", "0 B"] {
            assert_eq!(bytes_of_size(odd), None, "{odd:?}");
        }
    }

    #[test]
    fn passes_fit_the_engine_s_memory() {
        // DuckDB's default on this machine (80 % of 23 GiB): 2 and 10 million runs in one.
        let default = bytes_of_size("18.8 GiB").expect("a size");
        assert_eq!(passes_for(2_000_000, default), 1);
        assert_eq!(passes_for(10_000_000, default), 1);
        // 300 million runs under 2 GB and 1 GiB: a pass's runs fit what the base leaves.
        assert_eq!(passes_for(300_000_000, 2_000_000_000), 233);
        let one_gib = 1 << 30;
        let passes = passes_for(300_000_000, one_gib);
        let per_pass = 300_000_000u64.div_ceil(u64::from(passes)) * ENGINE_BYTES_PER_RUN;
        assert!(per_pass + ENGINE_BASE_BYTES <= one_gib, "{passes} passes");
        // Bounded both ways; under the base, one (the engine says what it lacks).
        assert_eq!(passes_for(0, one_gib), 1);
        assert_eq!(passes_for(u64::MAX, one_gib), MAX_PASSES);
        assert_eq!(passes_for(300_000_000, 2 << 20), 1);
    }
}
