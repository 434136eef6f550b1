//! The audit's jobs as replay input (`model::replay::ReplayJob`): each job's runs clipped to
//! the window, as the audit counts them, its class by the same rules, the cluster it ran on.
//!
//! A job's duration is its GPU-time over its largest GPU count (in the replay's units), so a
//! replay of today's clusters runs the audit's GPU-hours, to the millisecond per job, even when
//! a job's attempts held different counts. The canonical logs carry no submit time yet: the first start stands in, and every
//! job says so (`submit_is_start`), so today's waits read as zero by construction.

use polars::prelude::*;
use rayon::prelude::*;

use super::classify::features::with_run_features;
use super::classify::{JOB_KEY, JobClasses, classify_jobs};
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::model::fleet::Window;
use crate::model::replay::ReplayJob;
use crate::model::split::{UNITS_PER_GPU, gpu_units};
use crate::model::workload::ClassificationRules;

/// The jobs to replay; `home` indexes the cluster names given.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetJobs {
    pub jobs: Vec<ReplayJob>,
}

fn err(e: PolarsError) -> DataError {
    DataError::Frame(e)
}

/// A job as its runs are summed: 40 bytes, ten million at once, as a `ReplayJob` is.
#[derive(Clone, Copy)]
struct JobSoFar {
    first_start_ms: i64,
    /// The earliest submit time the job's runs give; `i64::MAX` for none.
    submit_ms: i64,
    gpu_ms: f64,
    /// The largest GPU count of a run inside the window; zero until one is seen.
    max_gpus: f64,
    cluster: u32,
}

/// The jobs with GPU time inside `window`, each homed on its cluster's index in `clusters`
/// (the audit's clusters, in its order).
pub fn fleet_jobs(
    runs: &DataFrame,
    rules: &ClassificationRules,
    window: &Window,
    clusters: &[String],
    audited: Option<&JobClasses>,
) -> Result<FleetJobs, DataError> {
    let runs = if runs.column(JOB_KEY).is_ok() {
        runs.clone()
    } else {
        with_run_features(runs.clone().lazy(), rules)?.collect().map_err(err)?
    };
    // The audit's classes when it ran on these runs under this window; else classify here.
    let classified;
    let classes = match audited.filter(|c| c.job_of_run.len() == runs.height()) {
        Some(classes) => classes,
        None => {
            classified = classify_jobs(&runs, rules, window.end_ms)?;
            &classified
        }
    };
    // Chunked as read: the iterators below walk the chunks, so no column is copied whole.
    let one = |name: &str| -> Result<Series, DataError> {
        Ok(runs.column(name).map_err(err)?.as_materialized_series().clone())
    };
    let starts = one(c::START)?.cast(&DataType::Int64).map_err(err)?;
    let ends = one(c::END)?.cast(&DataType::Int64).map_err(err)?;
    let gpus = one(c::GPUS)?;
    let cluster_col = one(c::CLUSTER)?;
    // Logs read before submit times were kept have no column: every job then waits from its start.
    let submits = match runs.column(c::SUBMIT) {
        Ok(column) => Some(column.as_materialized_series().cast(&DataType::Int64).map_err(err)?),
        Err(_) => None,
    };
    let submits = submits.as_ref().map(|s| s.i64()).transpose().map_err(err)?;
    let (starts, ends, gpus, cluster_col) = (
        starts.i64().map_err(err)?,
        ends.i64().map_err(err)?,
        gpus.f64().map_err(err)?,
        cluster_col.str().map_err(err)?,
    );
    let home_of: foldhash::HashMap<&str, u32> = clusters
        .iter()
        .enumerate()
        .map(|(i, c)| (c.as_str(), i as u32))
        .collect();
    let mut jobs = vec![
        JobSoFar {
            first_start_ms: i64::MAX,
            submit_ms: i64::MAX,
            gpu_ms: 0.0,
            max_gpus: 0.0,
            cluster: 0,
        };
        classes.class.len()
    ];
    // One pass over the columns side by side (iterators, not a lookup per cell); runs of one
    // cluster come together, so the last cluster's home is kept.
    let mut last_cluster: Option<(&str, Option<u32>)> = None;
    let mut submit_values = submits.map(|s| s.iter());
    for (row, (((start, end), count), cluster)) in starts
        .iter()
        .zip(ends.iter())
        .zip(gpus.iter())
        .zip(cluster_col.iter())
        .enumerate()
    {
        let submit = submit_values.as_mut().and_then(|values| values.next().flatten());
        let (Some(start), Some(count), Some(cluster)) = (start, count, cluster) else {
            continue;
        };
        let home = match last_cluster {
            Some((name, home)) if name == cluster => home,
            _ => {
                let home = home_of.get(cluster).copied();
                last_cluster = Some((cluster, home));
                home
            }
        };
        let Some(home) = home else {
            continue;
        };
        let from = start.max(window.start_ms);
        let to = end.unwrap_or(window.end_ms).min(window.end_ms);
        let Some(job) = classes.job_of_run.get(row).and_then(|&j| jobs.get_mut(j as usize)) else {
            continue;
        };
        // A run of no length inside the window (started and deleted in the same instant) is a
        // job the audit counts: replayed as one that holds its GPUs for no time.
        let instant_inside = end == Some(start) && from == start && start < window.end_ms;
        if (to <= from && !instant_inside) || count <= 0.0 {
            continue;
        }
        if from < job.first_start_ms {
            job.first_start_ms = from;
            job.cluster = home;
        }
        if let Some(submit) = submit {
            job.submit_ms = job.submit_ms.min(submit);
        }
        job.gpu_ms += count * (to - from) as f64;
        job.max_gpus = job.max_gpus.max(count);
    }
    // Built in the summing vector's own memory (the two records are the same size, so the
    // standard library's in-place collect reuses it): one ten-million-job array, not two.
    let replay_jobs: Vec<ReplayJob> = jobs
        .into_iter()
        .enumerate()
        .filter(|(_, job)| job.max_gpus > 0.0)
        .filter_map(|(id, job)| {
            // One class per job: the summing vector was sized by the classes.
            let class = *classes.class.get(id)?;
            Some(replay_job(
                id as u64,
                JobSums {
                    first_start_ms: job.first_start_ms,
                    submit_ms: Some(job.submit_ms).filter(|&s| s != i64::MAX),
                    gpu_ms: job.gpu_ms,
                    max_gpus: job.max_gpus,
                    class,
                    home: job.cluster,
                },
                window,
            ))
        })
        .collect();
    Ok(in_submit_order(replay_jobs))
}

/// One job's runs in the window summed: what its replay needs.
#[derive(Debug, Clone, Copy)]
pub struct JobSums {
    pub first_start_ms: i64,
    /// The earliest submit time its runs give.
    pub submit_ms: Option<i64>,
    /// GPUs × milliseconds inside the window.
    pub gpu_ms: f64,
    pub max_gpus: f64,
    pub class: crate::model::workload::WorkloadClass,
    pub home: u32,
}

/// A job as the replay takes it: its largest GPU count in the replay's units, a duration that
/// runs its GPU-time to the millisecond, and a submit the log saw inside the window (else its
/// first start, said by `submit_is_start`).
pub fn replay_job(id: u64, sums: JobSums, window: &Window) -> ReplayJob {
    let units = gpu_units(sums.max_gpus);
    // From the rounded units, so units × duration is the job's GPU-time to the ms.
    let duration_ms = (sums.gpu_ms * UNITS_PER_GPU / f64::from(units)).round() as i64;
    // A submit inside the window and before the first start is a wait the log saw; one
    // before the window (the job queued or ran before it) is not replayed.
    let submit = sums
        .submit_ms
        .filter(|&s| s >= window.start_ms && s <= sums.first_start_ms);
    ReplayJob {
        id,
        submit_ms: submit.unwrap_or(sums.first_start_ms),
        gpus: units,
        duration_ms,
        class: sums.class,
        home: sums.home,
        submit_is_start: submit.is_none(),
    }
}

/// The jobs in submit order (job order among equal submits, as a stable sort by submit would
/// give), sorted once on both cores: each replay then reads the jobs front to back instead of
/// sorting an index of its own and following it about ten million scattered jobs.
pub fn in_submit_order(mut jobs: Vec<ReplayJob>) -> FleetJobs {
    jobs.shrink_to_fit();
    jobs.par_sort_unstable_by_key(|job| (job.submit_ms, job.id));
    FleetJobs { jobs }
}
