//! Runs asking more GPUs than their cluster holds: a 999,999-GPU job on a 192-GPU cluster is a
//! typo or garbage, and counted it would make the peak, the utilization and the stranded spend
//! impossible. Such a run is kept out of every figure (its GPUs counted as none, its row kept so
//! the classes and the origins stay in step) and named in its file's warnings.
//!
//! The bound is the plan's capacity for the cluster; for a cluster the plan gives none, a run
//! above both `UNPLANNED_MIN_GPUS` and `UNPLANNED_P99_FACTOR` times the 99th percentile of that
//! cluster's other runs (its largest left out, so one outlier never vouches for itself however
//! few runs the cluster has; a cluster of large gangs is not judged by another's small jobs), and
//! any run past `PLAUSIBLE_CLUSTER_GPUS`. One grouping finds each cluster's largest run first, so a
//! log with nothing too large costs one pass.

use polars::prelude::*;

use super::AuditSettings;
use super::classify::JOB_KEY;
use super::job_details::{RunOrigins, WantedRun};
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::data::readers::load::FileSummary;

/// Without a capacity in the plan, a run is believed up to this many GPUs whatever the others.
pub const UNPLANNED_MIN_GPUS: f64 = 1_024.0;
/// Without a capacity in the plan, a run is believed up to this many times the 99th percentile
/// of the cluster's other runs.
pub const UNPLANNED_P99_FACTOR: f64 = 8.0;
/// No run is believed past this many GPUs without a plan that says its cluster holds them: the
/// largest clusters built by 2026 hold 100,000 to 200,000 GPUs, and a run of a million is a
/// typo, whatever else the log holds.
pub const PLAUSIBLE_CLUSTER_GPUS: f64 = 200_000.0;
/// Jobs named in a file's warning; their runs and the rest are counted.
const NAMED: usize = 3;
/// Runs whose job ids are read back from the logs to name them.
const READ_BACK: usize = 64;

/// A run kept out of the figures.
#[derive(Debug, Clone, PartialEq)]
pub struct OversizedRun {
    pub row: usize,
    pub cluster: String,
    pub gpus: f64,
    /// The plan's capacity, or `None` when the bound came from the other runs.
    pub capacity_gpus: Option<f64>,
    pub bound_gpus: f64,
}

fn err(e: PolarsError) -> DataError {
    DataError::Frame(e)
}

/// Each cluster's largest run and run count, in one grouping: most logs stop here.
fn cluster_maxima(runs: &DataFrame) -> Result<Vec<(String, f64)>, DataError> {
    let maxima = runs
        .clone()
        .lazy()
        .group_by([col(c::CLUSTER)])
        .agg([col(c::GPUS).max()])
        .collect()
        .map_err(err)?;
    let clusters = maxima.column(c::CLUSTER).map_err(err)?.str().map_err(err)?.clone();
    let most = maxima.column(c::GPUS).map_err(err)?.f64().map_err(err)?.clone();
    Ok(clusters
        .iter()
        .zip(most.iter())
        .map(|(cluster, most)| (cluster.unwrap_or("").to_string(), most.unwrap_or(0.0)))
        .collect())
}

/// The largest GPUs a run of `cluster`, which the plan gives no capacity, may ask: the larger
/// of `UNPLANNED_MIN_GPUS` and `UNPLANNED_P99_FACTOR` times the 99th percentile of the
/// cluster's other runs (its largest run left out, so one outlier never vouches for itself,
/// however few runs there are; a fleet of large gangs sets a large bound), and never above
/// `PLAUSIBLE_CLUSTER_GPUS`.
fn unplanned_bound(runs: &DataFrame, cluster: &str) -> Result<f64, DataError> {
    let p99 = runs
        .clone()
        .lazy()
        .filter(col(c::CLUSTER).eq(lit(cluster.to_string())))
        .select([col(c::GPUS)
            .drop_nulls()
            .sort(SortOptions::default())
            .slice(lit(0), len() - lit(1))
            .quantile(lit(0.99), QuantileMethod::Nearest)])
        .collect()
        .map_err(err)?
        .column(c::GPUS)
        .map_err(err)?
        .f64()
        .map_err(err)?
        .get(0)
        .unwrap_or(0.0);
    let p99 = if p99.is_finite() { p99 } else { 0.0 };
    Ok((p99 * UNPLANNED_P99_FACTOR).clamp(UNPLANNED_MIN_GPUS, PLAUSIBLE_CLUSTER_GPUS))
}

/// The runs whose GPUs exceed their cluster's bound, in row order.
pub fn oversized_runs(runs: &DataFrame, settings: &AuditSettings) -> Result<Vec<OversizedRun>, DataError> {
    if runs.height() == 0 {
        return Ok(Vec::new());
    }
    let capacity_of = |cluster: &str| {
        settings
            .clusters
            .iter()
            .find(|c| c.name == cluster)
            .and_then(|c| c.capacity_gpus)
            .filter(|c| *c > 0.0)
    };
    // Each cluster whose largest run passes its bound, with that bound.
    let mut over_bound: Vec<(String, Option<f64>, f64)> = Vec::new();
    for (cluster, most) in cluster_maxima(runs)? {
        let capacity = capacity_of(&cluster);
        let bound = match capacity {
            Some(capacity) => capacity,
            None if most <= UNPLANNED_MIN_GPUS => continue,
            None => unplanned_bound(runs, &cluster)?,
        };
        if most > bound {
            over_bound.push((cluster, capacity, bound));
        }
    }
    if over_bound.is_empty() {
        return Ok(Vec::new());
    }
    let clusters = runs.column(c::CLUSTER).map_err(err)?.str().map_err(err)?.clone();
    let gpus = runs.column(c::GPUS).map_err(err)?.f64().map_err(err)?.clone();
    Ok(clusters
        .iter()
        .zip(gpus.iter())
        .enumerate()
        .filter_map(|(row, (cluster, gpus))| {
            let (cluster, capacity_gpus, bound_gpus) =
                over_bound.iter().find(|(name, _, _)| Some(name.as_str()) == cluster)?;
            let gpus = gpus?;
            (gpus > *bound_gpus).then(|| OversizedRun {
                row,
                cluster: cluster.clone(),
                gpus,
                capacity_gpus: *capacity_gpus,
                bound_gpus: *bound_gpus,
            })
        })
        .collect())
}

/// The runs with the oversized ones' GPUs counted as none.
pub fn without_oversized(runs: &DataFrame, oversized: &[OversizedRun]) -> Result<DataFrame, DataError> {
    let mut zeroed = vec![false; runs.height()];
    for run in oversized {
        zeroed[run.row] = true;
    }
    let gpus = runs.column(c::GPUS).map_err(err)?.f64().map_err(err)?;
    let kept: Float64Chunked = gpus
        .iter()
        .zip(zeroed)
        .map(|(value, zero)| if zero { Some(0.0) } else { value })
        .collect();
    let mut out = runs.clone();
    out.with_column(kept.with_name(c::GPUS.into()).into_column())
        .map_err(err)?;
    Ok(out)
}

/// Each oversized run named in the warnings of the file it came from (the first file when its
/// origin is unknown): the job id, its GPUs and the bound.
pub fn tell_files(runs: &DataFrame, origins: &RunOrigins, oversized: &[OversizedRun], files: &mut [FileSummary]) {
    let lines = runs.column(c::SOURCE_LINE).ok().and_then(|l| l.u64().ok().cloned());
    let keys = runs.column(JOB_KEY).ok().and_then(|k| k.u64().ok().cloned());
    // Enough runs read back to name a few jobs, however many runs are too large.
    let wanted: Vec<WantedRun> = oversized
        .iter()
        .take(READ_BACK)
        .filter_map(|run| {
            Some(WantedRun {
                row: run.row,
                line: lines.as_ref()?.get(run.row)?,
                key: keys.as_ref()?.get(run.row)?,
            })
        })
        .collect();
    let texts = origins.read_back(&wanted);
    let file_of = |row: usize| {
        origins
            .files
            .iter()
            .find(|f| f.rows.contains(&row))
            .map(|f| f.path.display().to_string())
    };
    let mut by_file: std::collections::BTreeMap<Option<String>, Vec<&OversizedRun>> = Default::default();
    for run in oversized {
        by_file.entry(file_of(run.row)).or_default().push(run);
    }
    for (shown, runs_of_file) in by_file {
        // Each job named once (its runs may all be too large), the first few of the file.
        let mut named: Vec<(String, String)> = Vec::new();
        for run in &runs_of_file {
            let job = texts.get(&run.row).and_then(|t| t.job_id.clone()).map_or_else(
                || format!("the run at line {}", line_of(runs, run.row)),
                |id| format!("job {id}"),
            );
            if named.len() == NAMED || named.iter().any(|(named_job, _)| *named_job == job) {
                continue;
            }
            let bound = match run.capacity_gpus {
                Some(capacity) => format!("cluster {}'s capacity of {capacity} GPUs in the plan", run.cluster),
                None => format!(
                    "{} GPUs (the larger of {UNPLANNED_MIN_GPUS} and {UNPLANNED_P99_FACTOR}x the 99th percentile of the \
                     cluster's other runs, at most {PLAUSIBLE_CLUSTER_GPUS}; the plan gives cluster {} no capacity)",
                    run.bound_gpus, run.cluster
                ),
            };
            let said = format!("{job} asks {} GPUs, more than {bound}", run.gpus);
            named.push((job, said));
        }
        let runs_count = runs_of_file.len();
        let warning = format!(
            "{}: {runs_count} run{} kept out of GPU-hours, peaks, utilization and stranded spend",
            named.into_iter().map(|(_, said)| said).collect::<Vec<_>>().join("; "),
            if runs_count == 1 { "" } else { "s" }
        );
        let index = shown
            .and_then(|shown| files.iter().position(|s| s.path == shown))
            .unwrap_or(0);
        if let Some(summary) = files.get_mut(index) {
            summary.warnings.push(warning);
        }
    }
}

fn line_of(runs: &DataFrame, row: usize) -> String {
    runs.column(c::SOURCE_LINE)
        .ok()
        .and_then(|l| l.u64().ok()?.get(row))
        .map_or_else(|| "?".to_string(), |l| l.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::audit_settings::{ClusterPricing, WindowSpec};
    use crate::model::catalog::Term;

    fn settings() -> AuditSettings {
        let catalog = crate::config::catalog::builtin().catalog;
        let mut settings = AuditSettings::for_plan(&catalog, None, WindowSpec::default(), None);
        settings.clusters = vec![ClusterPricing {
            name: "planned".into(),
            capacity_gpus: Some(192.0),
            usd_per_gpu_hour: 2.0,
            source: "test".into(),
            term: Term::OneYear,
            models: Vec::new(),
        }];
        settings
    }

    fn runs(rows: &[(&str, f64)]) -> DataFrame {
        df!(
            c::CLUSTER => rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            c::GPUS => rows.iter().map(|r| r.1).collect::<Vec<_>>(),
        )
        .expect("frame")
    }

    #[test]
    fn a_run_above_its_cluster_s_planned_capacity_is_oversized() {
        let frame = runs(&[("planned", 192.0), ("planned", 999_999.0), ("planned", 8.0)]);
        let found = oversized_runs(&frame, &settings()).expect("found");
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].row, found[0].capacity_gpus), (1, Some(192.0)));
        let capped = without_oversized(&frame, &found).expect("capped");
        let gpus: Vec<Option<f64>> = capped
            .column(c::GPUS)
            .expect("gpus")
            .f64()
            .expect("f64")
            .iter()
            .collect();
        assert_eq!(gpus, vec![Some(192.0), Some(0.0), Some(8.0)]);
    }

    #[test]
    fn without_a_planned_capacity_the_clusters_own_runs_set_the_bound() {
        // 199 runs of 64 GPUs: the bound is the larger of 1,024 and 8 × 64; 1,024 GPUs are
        // believed regardless, 4,096 are not.
        let mut rows: Vec<(&str, f64)> = vec![("unplanned", 64.0); 199];
        rows.extend([("unplanned", 1_024.0), ("unplanned", 4_096.0)]);
        let found = oversized_runs(&runs(&rows), &settings()).expect("found");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].row, found[0].capacity_gpus), (200, None));
        assert_eq!(found[0].bound_gpus, UNPLANNED_MIN_GPUS);
        // A fleet of large runs: 2,048 GPUs are ordinary when the others hold 512.
        let mut rows: Vec<(&str, f64)> = vec![("unplanned", 512.0); 99];
        rows.push(("unplanned", 2_048.0));
        assert!(oversized_runs(&runs(&rows), &settings()).expect("found").is_empty());
        // A cluster of 2,048-GPU gangs beside a cluster of small jobs is judged by its own runs.
        let mut rows: Vec<(&str, f64)> = vec![("small", 8.0); 500];
        rows.extend(vec![("gangs", 2_048.0); 50]);
        assert!(oversized_runs(&runs(&rows), &settings()).expect("found").is_empty());
    }
}
