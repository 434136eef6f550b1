//! Runs listed more than once (the same cluster, job id and start: two overlapping exports, a
//! row repeated by a script) are counted once, the first kept; copies that disagree on their
//! GPUs or end are said, with one example, in the warnings of the file that repeated them.
//! Rows of one job and start with names of different stems are its parallel tasks (PAI's
//! worker, parameter server and evaluator), not copies.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use polars::prelude::*;

use super::load::FileSummary;
use crate::data::audit::classify::features::{job_key, stem_key};
use crate::data::audit::classify::grouping::JobRuns;
use crate::data::audit::classify::{JOB_KEY, STEM_KEY};
use crate::data::audit::job_details::{RunOrigins, WantedRun};
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::model::fleet::iso_utc;

/// Runs of one job compared pairwise; more are looked up by their start and name.
const LINEAR_SCAN_RUNS: usize = 16;

/// One run dropped as a copy of an earlier one: its row and the row it repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Repeat {
    row: usize,
    first: usize,
    /// Its GPUs or end differ from the first's.
    conflicting: bool,
}

/// Each row's job key: the reader's `job_key` column, or computed from cluster and job id.
fn keys_of(jobs: &DataFrame) -> Result<Vec<u64>, DataError> {
    if let Ok(keys) = jobs.column(JOB_KEY) {
        return Ok(keys.u64()?.iter().map(|k| k.unwrap_or(0)).collect());
    }
    let clusters = jobs.column(c::CLUSTER)?.str()?.clone();
    let ids = jobs.column(c::JOB_ID)?.str()?.clone();
    Ok(clusters
        .iter()
        .zip(ids.iter())
        .map(|(cluster, id)| job_key(cluster, id.unwrap_or("")))
        .collect())
}

/// Each row's name as its stem key (the reader's `stem_key` column, or computed), `None`
/// unnamed.
fn names_of(jobs: &DataFrame) -> Result<Vec<Option<u64>>, DataError> {
    if let Ok(keys) = jobs.column(STEM_KEY) {
        return Ok(keys.u64()?.iter().collect());
    }
    let Ok(names) = jobs.column(c::NAME) else {
        return Ok(vec![None; jobs.height()]);
    };
    let names = names.str()?.clone();
    let clusters = jobs.column(c::CLUSTER)?.str()?.clone();
    Ok(clusters
        .iter()
        .zip(names.iter())
        .map(|(cluster, name)| name.map(|name| stem_key(cluster, name)))
        .collect())
}

/// The later copies of runs with the same job key, start and name stem, in row order.
fn copies_of(jobs: &DataFrame) -> Result<Vec<Repeat>, DataError> {
    if jobs.height() < 2 {
        return Ok(Vec::new());
    }
    let keys = keys_of(jobs)?;
    let starts = c::int64_column(jobs, c::START)?;
    let ends = c::int64_column(jobs, c::END)?;
    let gpus = jobs.column(c::GPUS)?.f64()?.clone();
    let names = names_of(jobs)?;
    let grouped = JobRuns::of(jobs.height(), |row| keys[row]);
    let mut copies = Vec::new();
    for span in &grouped.spans {
        let rows = grouped.rows_of(span);
        if rows.len() < 2 {
            continue;
        }
        // A job of many runs (an array, a long trace's one id) is looked up, not scanned.
        let mut seen: HashMap<(Option<i64>, Option<u64>), usize> = HashMap::new();
        for (at, &row) in rows.iter().enumerate() {
            let row = row as usize;
            let identity = (starts.get(row), names[row]);
            let first = if rows.len() <= LINEAR_SCAN_RUNS {
                rows[..at]
                    .iter()
                    .map(|&earlier| earlier as usize)
                    .find(|&earlier| (starts.get(earlier), names[earlier]) == identity)
            } else {
                match seen.entry(identity) {
                    Entry::Occupied(first) => Some(*first.get()),
                    Entry::Vacant(slot) => {
                        slot.insert(row);
                        None
                    }
                }
            };
            let Some(first) = first else { continue };
            let conflicting = gpus.get(row) != gpus.get(first) || ends.get(row) != ends.get(first);
            copies.push(Repeat {
                row,
                first,
                conflicting,
            });
        }
    }
    copies.sort_unstable_by_key(|copy| copy.row);
    Ok(copies)
}

/// The job id of `row`: the frame's, or read back from its log.
fn job_id_of(jobs: &DataFrame, origins: &RunOrigins, row: usize) -> Option<String> {
    if let Ok(ids) = jobs.column(c::JOB_ID)
        && let Ok(ids) = ids.str()
    {
        return ids.get(row).map(str::to_string);
    }
    let line = jobs.column(c::SOURCE_LINE).ok()?.u64().ok()?.get(row)?;
    let key = jobs.column(JOB_KEY).ok()?.u64().ok()?.get(row)?;
    origins
        .read_back(&[WantedRun { row, line, key }])
        .remove(&row)
        .and_then(|text| text.job_id)
}

/// What a file is told of its copies: how many, and one that disagreed.
fn warning_of(jobs: &DataFrame, origins: &RunOrigins, copies: &[Repeat]) -> Result<String, DataError> {
    let mut text = format!(
        "{} run{} listed more than once (same cluster, job id, name and start): counted once, the first kept",
        copies.len(),
        if copies.len() == 1 { "" } else { "s" }
    );
    let conflicting: Vec<&Repeat> = copies.iter().filter(|copy| copy.conflicting).collect();
    if let Some(example) = conflicting.first() {
        let gpus = jobs.column(c::GPUS)?.f64()?.clone();
        let starts = c::int64_column(jobs, c::START)?;
        let ends = c::int64_column(jobs, c::END)?;
        let job = job_id_of(jobs, origins, example.first).map_or_else(|| "a job".to_string(), |id| format!("job {id}"));
        let at = starts.get(example.first).map_or_else(|| "?".to_string(), iso_utc);
        let (kept_gpus, other_gpus) = (gpus.get(example.first), gpus.get(example.row));
        let differ = if kept_gpus != other_gpus {
            format!(
                "with {} and {} GPUs",
                kept_gpus.map_or("?".to_string(), |g| g.to_string()),
                other_gpus.map_or("?".to_string(), |g| g.to_string())
            )
        } else {
            let end = |row: usize| ends.get(row).map_or_else(|| "no end".to_string(), iso_utc);
            format!("with ends {} and {}", end(example.first), end(example.row))
        };
        text.push_str(&format!(
            "; {} disagree{} on GPUs or end: {job} at {at} listed twice {differ}: kept the first",
            conflicting.len(),
            if conflicting.len() == 1 { "s" } else { "" }
        ));
    }
    Ok(text)
}

/// Drops the later copies of every run listed more than once, keeping `origins` in step with
/// the rows left and telling each file that repeated a run.
pub fn drop_copied_runs(
    jobs: &mut DataFrame,
    origins: &mut RunOrigins,
    files: &mut [FileSummary],
) -> Result<(), DataError> {
    let copies = copies_of(jobs)?;
    if copies.is_empty() {
        return Ok(());
    }
    // Told per file, before the rows move.
    let file_of = |row: usize| origins.files.iter().position(|f| f.rows.contains(&row));
    let mut by_file: std::collections::BTreeMap<Option<usize>, Vec<Repeat>> = Default::default();
    for copy in &copies {
        by_file.entry(file_of(copy.row)).or_default().push(*copy);
    }
    for (file, file_copies) in &by_file {
        let warning = warning_of(jobs, origins, file_copies)?;
        let shown = file
            .and_then(|f| origins.files.get(f))
            .map(|f| f.path.display().to_string());
        let index = shown
            .and_then(|shown| files.iter().position(|s| s.path == shown))
            .unwrap_or(0);
        if let Some(summary) = files.get_mut(index) {
            summary.warnings.push(warning);
        }
    }
    let mut keep = vec![true; jobs.height()];
    for copy in &copies {
        keep[copy.row] = false;
    }
    // Each file's rows move down by the copies dropped before and inside it.
    let dropped_before = |row: usize| copies.partition_point(|copy| copy.row < row);
    for origin in &mut origins.files {
        let (start, end) = (origin.rows.start, origin.rows.end);
        origin.rows = start - dropped_before(start)..end - dropped_before(end);
    }
    if !origins.kept.is_empty() {
        let mut row = 0;
        origins.kept.retain(|_| {
            row += 1;
            keep.get(row - 1).copied().unwrap_or(true)
        });
    }
    for (file, file_copies) in by_file {
        if let Some(summary) = file
            .and_then(|f| origins.files.get(f))
            .map(|f| f.path.display().to_string())
            .and_then(|shown| files.iter_mut().find(|s| s.path == shown))
        {
            summary.rows = summary.rows.saturating_sub(file_copies.len());
        }
    }
    let mask: BooleanChunked = keep.into_iter().collect();
    *jobs = jobs.filter(&mask)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(rows: &[(&str, i64, f64, &str)]) -> DataFrame {
        let ms = |v: i64| v * 1000;
        df!(
            c::CLUSTER => rows.iter().map(|_| "a").collect::<Vec<_>>(),
            c::JOB_ID => rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            c::START => rows.iter().map(|r| ms(r.1)).collect::<Vec<_>>(),
            c::END => rows.iter().map(|r| ms(r.1 + 3600)).collect::<Vec<_>>(),
            c::GPUS => rows.iter().map(|r| r.2).collect::<Vec<_>>(),
            c::NAME => rows.iter().map(|r| r.3).collect::<Vec<_>>(),
        )
        .expect("frame")
    }

    #[test]
    fn a_run_listed_twice_is_kept_once_and_a_disagreement_named() {
        let mut jobs = frame(&[
            ("42", 1_735_876_800, 64.0, "train"),
            ("7", 1_735_876_800, 8.0, "serve"),
            ("42", 1_735_876_800, 256.0, "train"),
        ]);
        let mut origins = RunOrigins::default();
        let mut files = vec![FileSummary {
            path: "jobs.csv".into(),
            format: "csv",
            rows: 3,
            rejected: 0,
            warnings: Vec::new(),
            notes: Vec::new(),
        }];
        drop_copied_runs(&mut jobs, &mut origins, &mut files).expect("dropped");
        assert_eq!(jobs.height(), 2);
        let gpus: Vec<Option<f64>> = jobs.column(c::GPUS).expect("gpus").f64().expect("f64").iter().collect();
        assert_eq!(gpus, vec![Some(64.0), Some(8.0)]);
        assert_eq!(files[0].warnings.len(), 1, "{:?}", files[0].warnings);
        assert!(
            files[0].warnings[0]
                .contains("job 42 at 2025-01-03T04:00:00Z listed twice with 64 and 256 GPUs: kept the first"),
            "{}",
            files[0].warnings[0]
        );
    }

    #[test]
    fn runs_of_one_job_at_different_starts_are_all_kept() {
        let mut jobs = frame(&[
            ("42", 1_735_876_800, 64.0, "train"),
            ("42", 1_735_880_400, 64.0, "train"),
        ]);
        let mut files = Vec::new();
        drop_copied_runs(&mut jobs, &mut RunOrigins::default(), &mut files).expect("kept");
        assert_eq!(jobs.height(), 2);
        // A job's parallel tasks at one start (PAI's worker and evaluator) are no copies.
        let mut tasks = frame(&[
            ("j", 1_735_876_800, 2.0, "worker"),
            ("j", 1_735_876_800, 1.0, "evaluator"),
        ]);
        drop_copied_runs(&mut tasks, &mut RunOrigins::default(), &mut files).expect("kept");
        assert_eq!(tasks.height(), 2);
    }
}
