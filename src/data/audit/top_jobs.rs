//! The largest jobs of each cluster and class by GPU-hours in the window, to drill into from
//! the audit: one pass over the jobs keeps a dozen per group (and the jobs tied with the
//! twelfth), one pass over the runs reads only theirs, and their ids, names, users, queues and
//! states are read back from the logs for those runs alone (`job_details`), unless the frame
//! holds them. Jobs with equal GPU-hours rank by job id, as the warehouse's statement ranks
//! them: the same log gives the same list in memory and in an engine.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use polars::prelude::*;

use super::classify::{JOB_KEY, JobClasses, rule_name};
use super::job_details::{RunOrigins, RunText, WantedRun};
use crate::data::canonical::{self as c, MS_PER_HOUR};
use crate::data::error::DataError;
use crate::model::fleet::{JobLine, Window};
use crate::model::workload::{ClassificationRules, WorkloadClass};

/// How many of the largest jobs of each cluster and class the audit keeps for drilling into.
pub const TOP_JOBS_PER_CLASS: usize = 12;

pub struct TopJobInputs<'a> {
    pub runs: &'a DataFrame,
    pub jobs: &'a JobClasses,
    /// For each job: its cluster's index in `cluster_names` + 1, 0 when outside the window.
    pub job_cluster: &'a [u32],
    /// For each job: its GPU-hours in the window, to rank by.
    pub job_window_gpu_hours: &'a [f64],
    pub cluster_names: &'a [String],
    pub rules: &'a ClassificationRules,
    pub window: &'a Window,
    /// Where the runs came from, to read the chosen jobs' details back.
    pub origins: Option<&'a RunOrigins>,
}

/// At most this many jobs tied with a group's twelfth are read to break the tie by job id;
/// past it, the first seen in the log are (a log of thousands of identical jobs).
const TIED_JOBS_READ: usize = 4096;

/// A job in a group's first ranking: more GPU-hours first, then the job seen first in the log.
#[derive(Debug, Clone, Copy)]
struct Ranked {
    gpu_hours: f64,
    job: u32,
}

impl Ord for Ranked {
    /// Greater is worse: a max-heap of a group's kept jobs has the one to drop on top.
    fn cmp(&self, other: &Ranked) -> Ordering {
        other
            .gpu_hours
            .total_cmp(&self.gpu_hours)
            .then(self.job.cmp(&other.job))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Ranked) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Ranked) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked {}

/// Keeps `candidate` among a group's `count` best.
fn keep(group: &mut BinaryHeap<Ranked>, candidate: Ranked, count: usize) {
    if group.len() < count {
        group.push(candidate);
    } else if group.peek().is_some_and(|worst| candidate < *worst) {
        group.pop();
        group.push(candidate);
    }
}

/// Each group's candidates: its `TOP_JOBS_PER_CLASS` best and the jobs tied with the last of
/// them (up to `TIED_JOBS_READ`), as (group, job) pairs.
fn candidates(input: &TopJobInputs, classes: usize) -> Vec<(usize, u32)> {
    let group_of = |job: usize| {
        let cluster = input.job_cluster[job];
        (cluster != 0).then(|| (cluster as usize - 1) * classes + input.jobs.class[job] as usize)
    };
    let mut groups: Vec<BinaryHeap<Ranked>> = vec![BinaryHeap::new(); input.cluster_names.len() * classes];
    for job in 0..input.job_cluster.len() {
        if let Some(group) = group_of(job) {
            let gpu_hours = input.job_window_gpu_hours[job];
            keep(
                &mut groups[group],
                Ranked {
                    gpu_hours,
                    job: job as u32,
                },
                TOP_JOBS_PER_CLASS,
            );
        }
    }
    // A full group's last kept GPU-hours: jobs tied with it are candidates too.
    let last_kept: Vec<Option<f64>> = groups
        .iter()
        .map(|g| g.peek().map(|r| r.gpu_hours).filter(|_| g.len() == TOP_JOBS_PER_CLASS))
        .collect();
    let mut chosen: Vec<(usize, u32)> = Vec::new();
    for (group, ranked) in groups.iter().enumerate() {
        chosen.extend(ranked.iter().map(|r| (group, r.job)));
    }
    if last_kept.iter().any(Option::is_some) {
        let mut tied = vec![0usize; last_kept.len()];
        for job in 0..input.job_cluster.len() {
            let Some(group) = group_of(job) else { continue };
            let Some(last) = last_kept[group] else { continue };
            let gpu_hours = input.job_window_gpu_hours[job];
            if gpu_hours == last && tied[group] < TIED_JOBS_READ && !groups[group].iter().any(|r| r.job == job as u32) {
                tied[group] += 1;
                chosen.push((group, job as u32));
            }
        }
    }
    chosen
}

/// The largest jobs by GPU-hours of each cluster and class, with the line of their first run
/// in the window; by cluster, class, then GPU-hours.
pub fn top_jobs(input: &TopJobInputs) -> Result<Vec<JobLine>, DataError> {
    let err = DataError::Frame;
    let classes = WorkloadClass::ALL.len();
    let mut chosen: HashMap<u32, JobLine> = HashMap::new();
    let mut is_chosen = vec![0u64; input.job_cluster.len().div_ceil(64)];
    for (group, job) in candidates(input, classes) {
        let cluster = &input.cluster_names[group / classes];
        is_chosen[job as usize / 64] |= 1 << (job % 64);
        chosen.insert(
            job,
            JobLine {
                cluster: cluster.clone(),
                class: input.jobs.class[job as usize],
                rule: rule_name(input.rules, input.jobs.rule[job as usize]),
                job_id: None,
                name: None,
                user: None,
                queue: None,
                state: None,
                runs: 0,
                max_gpus: 0.0,
                // Ranked and shown by the sum the candidates were chosen by (the class totals'
                // own): a sum of the runs below in another order could differ in its last bit
                // and undo a tie.
                gpu_hours: input.job_window_gpu_hours[job as usize],
                mean_util_frac: None,
                first_start_ms: i64::MAX,
                source_line: None,
            },
        );
    }
    let (start_col, end_col) = (
        c::int64_column(input.runs, c::START)?,
        c::int64_column(input.runs, c::END)?,
    );
    let gpus_col = input.runs.column(c::GPUS).map_err(err)?.f64().map_err(err)?;
    let line_col = input.runs.column(c::SOURCE_LINE).ok().and_then(|s| s.u64().ok());
    let util_col = input.runs.column(c::GPU_UTIL_FRAC).ok().and_then(|s| s.f64().ok());
    let key_col = input.runs.column(JOB_KEY).ok().and_then(|s| s.u64().ok());
    let cluster_col = input.runs.column(c::CLUSTER).map_err(err)?.str().map_err(err)?;
    let (window_start, window_end) = (input.window.start_ms, input.window.end_ms);
    // Each chosen job's runs in the window, with their start, and its utilization sums.
    let mut job_runs: HashMap<u32, Vec<(i64, WantedRun)>> = HashMap::new();
    let mut util_sums: HashMap<u32, (f64, f64)> = HashMap::new();
    for (row, &job) in input.jobs.job_of_run.iter().enumerate() {
        if is_chosen[job as usize / 64] & (1 << (job % 64)) == 0 {
            continue;
        }
        let (Some(line), Some(start), Some(_)) = (chosen.get_mut(&job), start_col.get(row), cluster_col.get(row))
        else {
            // A run with no cluster counts nowhere, as in `run_totals`.
            continue;
        };
        let end = end_col.get(row).unwrap_or(window_end);
        if start > window_end || end < window_start {
            continue;
        }
        let gpus = gpus_col.get(row).unwrap_or(0.0);
        // As `run_totals` and the warehouse's statement compute a run's GPU-hours.
        let gpu_hours = gpus * (end.min(window_end) - start.max(window_start)) as f64 / MS_PER_HOUR;
        line.runs += 1;
        line.max_gpus = line.max_gpus.max(gpus);
        let source_line = line_col.and_then(|lines| lines.get(row));
        if start < line.first_start_ms {
            line.first_start_ms = start;
            line.source_line = source_line;
        }
        if let Some(util) = util_col.and_then(|u| u.get(row)) {
            let sums = util_sums.entry(job).or_insert((0.0, 0.0));
            sums.0 += util * gpu_hours;
            sums.1 += gpu_hours;
        }
        job_runs.entry(job).or_default().push((
            start,
            WantedRun {
                row,
                line: source_line.unwrap_or(0),
                key: key_col.and_then(|k| k.get(row)).unwrap_or(0),
            },
        ));
    }
    for (job, (util_gpu_hours, weight)) in util_sums {
        if let Some(line) = chosen.get_mut(&job)
            && weight > 0.0
        {
            line.mean_util_frac = Some(util_gpu_hours / weight);
        }
    }
    let wanted: Vec<WantedRun> = job_runs.values().flatten().map(|(_, run)| *run).collect();
    let all_texts = run_texts(input, &wanted)?;
    for (job, mut runs) in job_runs {
        let Some(line) = chosen.get_mut(&job) else { continue };
        runs.sort_by_key(|(start, run)| (*start, run.row));
        let texts: Vec<&RunText> = runs.iter().filter_map(|(_, run)| all_texts.get(&run.row)).collect();
        // Who and what from the first run that says; the state from the last run.
        let first = |field: fn(&RunText) -> &Option<String>| texts.iter().find_map(|t| field(t).clone());
        line.job_id = first(|t| &t.job_id);
        line.name = first(|t| &t.name);
        line.user = first(|t| &t.user);
        line.queue = first(|t| &t.queue);
        line.state = runs
            .last()
            .and_then(|(_, run)| all_texts.get(&run.row))
            .and_then(|t| t.state.clone());
    }
    // In the order the jobs were first seen: a full tie (no ids read) keeps the first.
    let mut candidates: Vec<(u32, JobLine)> = chosen.into_iter().collect();
    candidates.sort_by_key(|(job, _)| *job);
    Ok(largest_per_group(
        candidates.into_iter().map(|(_, line)| line).collect(),
    ))
}

/// Each cluster and class's `TOP_JOBS_PER_CLASS` largest of `lines`, ranked by GPU-hours,
/// then job id as text (a job with none last), then as they came; shown by GPU-hours, then
/// first start, then job id. One ranking for a file's audit and a warehouse's, whose passes'
/// dozens it also cuts as they come (the dozen of the dozens is the whole's).
pub fn largest_per_group(mut lines: Vec<JobLine>) -> Vec<JobLine> {
    lines.sort_by(|a, b| {
        (a.cluster.as_str(), a.class as u8)
            .cmp(&(b.cluster.as_str(), b.class as u8))
            .then(b.gpu_hours.total_cmp(&a.gpu_hours))
            .then(a.job_id.is_none().cmp(&b.job_id.is_none()))
            .then(a.job_id.cmp(&b.job_id))
    });
    let mut kept: Vec<JobLine> = Vec::new();
    let mut in_group = 0;
    for line in lines {
        let same = kept
            .last()
            .is_some_and(|last| last.cluster == line.cluster && last.class == line.class);
        in_group = if same { in_group + 1 } else { 1 };
        if in_group <= TOP_JOBS_PER_CLASS {
            kept.push(line);
        }
    }
    kept.sort_by(|a, b| {
        (a.cluster.as_str(), a.class as u8)
            .cmp(&(b.cluster.as_str(), b.class as u8))
            .then(b.gpu_hours.total_cmp(&a.gpu_hours))
            .then(a.first_start_ms.cmp(&b.first_start_ms))
            .then(a.job_id.cmp(&b.job_id))
            .then(a.source_line.cmp(&b.source_line))
    });
    kept
}

/// The log's text for the chosen runs: from the frame when it holds the text columns (a log
/// read in full detail), else read back from the files, else none.
fn run_texts(input: &TopJobInputs, wanted: &[WantedRun]) -> Result<HashMap<usize, RunText>, DataError> {
    let runs = input.runs;
    if runs.column(c::JOB_ID).is_err() {
        return Ok(input.origins.map(|o| o.read_back(wanted)).unwrap_or_default());
    }
    let err = DataError::Frame;
    let text = |name: &str| -> Result<Option<StringChunked>, DataError> {
        match runs.column(name) {
            Ok(column) => Ok(Some(
                column.cast(&DataType::String).map_err(err)?.str().map_err(err)?.clone(),
            )),
            Err(_) => Ok(None),
        }
    };
    let (ids, names, users, queues, states) = (
        text(c::JOB_ID)?,
        text(c::NAME)?,
        text(c::USER)?,
        text(c::QUEUE)?,
        text(c::STATE)?,
    );
    let get = |column: &Option<StringChunked>, row: usize| {
        column
            .as_ref()
            .and_then(|c| c.get(row))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    Ok(wanted
        .iter()
        .map(|run| {
            (
                run.row,
                RunText {
                    job_id: get(&ids, run.row),
                    name: get(&names, run.row),
                    user: get(&users, run.row),
                    queue: get(&queues, run.row),
                    state: get(&states, run.row),
                },
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_keeps_its_largest_jobs_ties_to_the_first_seen() {
        let mut heap = BinaryHeap::new();
        let ranked = |gpu_hours, job| Ranked { gpu_hours, job };
        for candidate in [
            ranked(5.0, 0),
            ranked(9.0, 1),
            ranked(5.0, 2),
            ranked(7.0, 3),
            ranked(1.0, 4),
        ] {
            keep(&mut heap, candidate, 3);
        }
        let kept: Vec<u32> = heap.into_sorted_vec().into_iter().map(|r| r.job).collect();
        // Best first: 9 GPU-hours, 7, then the first of the two with 5.
        assert_eq!(kept, [1, 3, 0]);
    }

    /// One cluster's training jobs: 5,000 of 10 GPU-hours and the last of 11. The candidates
    /// are the twelve kept and the jobs tied with the twelfth, each once, at most
    /// `TIED_JOBS_READ` of them; a group not full reads no ties.
    #[test]
    fn a_group_s_candidates_are_its_best_and_its_ties_each_once() {
        let jobs = 5_000usize;
        let mut hours = vec![10.0; jobs];
        hours[jobs - 1] = 11.0;
        let classes = JobClasses {
            job_of_run: Vec::new(),
            class: vec![WorkloadClass::Training; jobs],
            rule: vec![0; jobs],
            rule_class: vec![None; jobs],
            label_class: vec![None; jobs],
            unknown_label: HashMap::new(),
        };
        let rules = crate::config::catalog::builtin()
            .catalog
            .classification
            .expect("built-in rules");
        let (runs, window, names) = (DataFrame::default(), Window::from_ms(0, 1), vec!["c".to_string()]);
        let job_cluster = vec![1u32; jobs];
        let input = TopJobInputs {
            runs: &runs,
            jobs: &classes,
            job_cluster: &job_cluster,
            job_window_gpu_hours: &hours,
            cluster_names: &names,
            rules: &rules,
            window: &window,
            origins: None,
        };
        let chosen = candidates(&input, WorkloadClass::ALL.len());
        assert_eq!(chosen.len(), TOP_JOBS_PER_CLASS + TIED_JOBS_READ);
        let distinct: std::collections::HashSet<u32> = chosen.iter().map(|&(_, job)| job).collect();
        assert_eq!(distinct.len(), chosen.len());
        assert!(distinct.contains(&(jobs as u32 - 1)));
        // Eleven jobs: the group is not full, nothing is tied with a twelfth.
        let few = TopJobInputs {
            job_cluster: &job_cluster[..11],
            ..input
        };
        assert_eq!(candidates(&few, WorkloadClass::ALL.len()).len(), 11);
    }
}
