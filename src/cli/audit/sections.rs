//! The audit document's optional sections: measured utilization, pending jobs, top jobs.

use super::document::{BARS, points_per_column, source_tag};
use super::known::{PerMonthText, known_sum, known_usd};
use crate::data::audit::AuditReport;
use crate::model::fleet::{MeasuredUtilization, PendingClass, SpendParts};
use crate::model::utilization::UtilizationSource;
use crate::model::workload::WorkloadClass;
use crate::present::document::{Align, Block, Section, Table};
use crate::shared::format::{or_dash, pct, thousands, truncated, usd};

/// Each measured cluster: the hardware's figures beside the log's, and where they came from.
pub(super) fn measured_clusters_section(r: &AuditReport) -> Option<Section> {
    let measured: Vec<_> = r
        .clusters
        .iter()
        .filter_map(|c| Some((c, c.measured.as_ref()?, c.log.as_ref()?)))
        .collect();
    if measured.is_empty() && r.measurement_notes.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        ("cluster", Align::Left),
        ("GPU series", Align::Right),
        ("hours", Align::Right),
        ("util dcgm", Align::Right),
        ("util log", Align::Right),
        ("non-training", Align::Right),
        ("non-training idle dcgm", Align::Right),
        ("non-training idle log", Align::Right),
    ]);
    let mut origins = Vec::new();
    for (c, m, log) in &measured {
        table.row(vec![
            c.name.clone(),
            thousands(m.gpu_series as f64),
            thousands(m.hours_measured as f64),
            pct(m.mean_util_frac),
            pct(log.utilization_frac),
            format!(
                "{} / {}",
                pct(m.non_training_util_frac),
                pct(log.non_training_utilization_frac)
            ),
            usd(c.non_training_idle_usd_per_month),
            usd(log.non_training_idle_usd_per_month),
        ]);
        origins.push((c.name.clone(), format!("{} from {}", m.metric, m.origin)));
    }
    let mut blocks = Vec::new();
    if !measured.is_empty() {
        blocks.push(Block::Table(table));
        blocks.push(Block::Note(
            "Measured: the mean over the cluster's GPU series of each hour's mean; non-training: measured / log, \
             each measured hour weighed by its minutes without training. The spend's idle and busy parts use the measured figure."
                .into(),
        ));
        blocks.push(Block::Facts(origins));
    }
    if !r.measurement_notes.is_empty() {
        blocks.push(Block::Facts(
            r.measurement_notes
                .iter()
                .map(|n| ("note".to_string(), n.clone()))
                .collect(),
        ));
    }
    Some(Section {
        title: "Utilization measured per cluster (DCGM)".into(),
        blocks,
    })
}

/// What DCGM measured, beside what the job log reports for the same window.
pub(super) fn measured_section(m: &MeasuredUtilization, r: &AuditReport) -> Section {
    let capacity: f64 = r.clusters.iter().map(|c| c.capacity_gpus).sum();
    let reported = r
        .clusters
        .iter()
        .map(|c| c.utilization_frac * c.capacity_gpus)
        .sum::<f64>();
    let hours_per_point = r.window.resolution.hours_per_point;
    let by_day: String = m
        .hourly_util_frac
        .chunks(points_per_column(m.hourly_util_frac.len(), hours_per_point))
        .map(|day| {
            let values: Vec<f64> = day.iter().flatten().copied().collect();
            if values.is_empty() {
                ' '
            } else {
                let mean = values.iter().sum::<f64>() / values.len() as f64;
                BARS[((mean.clamp(0.0, 1.0) * 7.0).round() as usize).min(7)]
            }
        })
        .collect();
    let mut facts = vec![
        (
            "measured".into(),
            format!(
                "{} mean over {} GPU series on {} hosts ({} samples)",
                pct(m.mean_util_frac),
                thousands(m.gpu_series as f64),
                thousands(m.hosts as f64),
                thousands(m.samples as f64)
            ),
        ),
        (
            "job log".into(),
            if capacity > 0.0 {
                format!("{} of capacity across clusters", pct(reported / capacity))
            } else {
                "-".to_string()
            },
        ),
        ("by day".into(), by_day),
    ];
    for host in &m.hosts_below_threshold {
        facts.push((
            host.host.clone(),
            format!(
                "{} over {} GPU series: below {}",
                pct(host.mean_util_frac),
                host.gpu_series,
                pct(m.threshold_frac)
            ),
        ));
    }
    Section {
        title: "Measured utilization (DCGM)".into(),
        blocks: vec![
            Block::Facts(facts),
            Block::Note(
                "Samples name hosts, not clusters: the measured figures are the fleet's; a GPU sampled more often weighs the same as the others."
                    .into(),
            ),
        ],
    }
}

/// The largest jobs the text and Markdown list per cluster and class (the JSON has all the
/// audit kept).
const TOP_JOBS_SHOWN: usize = 5;

/// The widest line of the largest-jobs table.
const TOP_JOBS_COLUMNS: usize = 120;

/// The text columns of the largest-jobs table (cluster, class, job, name, user, queue, state),
/// each the width of its widest value until the line would pass `TOP_JOBS_COLUMNS` with the
/// numbers' widths (`other_chars`); then the widest shrinks first, none below its floor.
fn fit_widths(natural: [usize; 7], other_chars: usize) -> [usize; 7] {
    const FLOORS: [usize; 7] = [8, 9, 10, 12, 6, 6, 7];
    let mut widths: [usize; 7] = std::array::from_fn(|i| natural[i].max(FLOORS[i].min(natural[i])));
    // The indent and two spaces between the ten columns.
    let budget = TOP_JOBS_COLUMNS.saturating_sub(2 + 2 * 9 + other_chars);
    while widths.iter().sum::<usize>() > budget {
        let Some(widest) = (0..7).filter(|&i| widths[i] > FLOORS[i]).max_by_key(|&i| widths[i]) else {
            break;
        };
        widths[widest] -= 1;
    }
    widths
}

/// The end of a long id, which tells jobs apart (`…019_10238`), with `…` before it.
fn id_tail(id: &str, max_chars: usize) -> String {
    let count = id.chars().count();
    if count <= max_chars {
        return id.to_string();
    }
    let tail: String = id.chars().skip(count + 1 - max_chars).collect();
    format!("…{tail}")
}

fn pending_row(cluster: &str, class: WorkloadClass, p: &PendingClass) -> Vec<String> {
    vec![
        cluster.to_string(),
        class.label().to_string(),
        thousands(p.jobs as f64),
        thousands(p.gpus),
        thousands(p.gpu_hours_requested),
        p.gpu_hours_basis.label().to_string(),
    ]
}

/// Jobs that asked for GPUs and never started, per cluster and class: when there are any.
pub(super) fn pending_section(r: &AuditReport) -> Option<Section> {
    if r.pending.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        ("cluster", Align::Left),
        ("class", Align::Left),
        ("jobs", Align::Right),
        ("GPUs", Align::Right),
        ("GPU-hours asked", Align::Right),
        ("counted as", Align::Left),
    ]);
    for c in &r.clusters {
        for class in WorkloadClass::ALL {
            let p = c.pending.get(class);
            if p.jobs > 0 {
                table.row(pending_row(&c.name, class, p));
            }
        }
    }
    // The fleet's lines when they add something: several clusters, or jobs of clusters that
    // ran nothing in the window.
    let with_pending = r.clusters.iter().filter(|c| !c.pending.is_empty()).count();
    let in_clusters: u64 = r.clusters.iter().map(|c| c.pending.jobs()).sum();
    if with_pending > 1 || in_clusters != r.pending.jobs() {
        for class in WorkloadClass::ALL {
            let p = r.pending.get(class);
            if p.jobs > 0 {
                table.row(pending_row("fleet", class, p));
            }
        }
    }
    let without: u64 = WorkloadClass::ALL
        .iter()
        .map(|&c| r.pending.get(c).jobs_without_hours)
        .sum();
    let mut blocks = vec![
        Block::Table(table),
        Block::Note(
            "Jobs that waited in the window and never started (Slurm PENDING, pods never scheduled, rows\n\
             with a submit time and no start), classed by the same rules; not rejected rows, not in the GPU-hours\n\
             that ran. GPU-hours asked: time limit × GPUs where the log gives one, else the wait in the window\n\
             (from submit, or the window's start, to cancellation or the window's end) × GPUs."
                .into(),
        ),
    ];
    if without > 0 {
        blocks.push(Block::Facts(vec![(
            "no GPU-hours".into(),
            format!(
                "{} jobs give neither a time limit nor a submit time: counted in jobs and GPUs only",
                thousands(without as f64)
            ),
        )]));
    }
    Some(Section {
        title: "Pending demand (jobs that never started)".into(),
        blocks,
    })
}

/// The largest jobs of each cluster and class, with what the log says of them.
pub(super) fn top_jobs_section(r: &AuditReport) -> Option<Section> {
    if r.top_jobs.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        ("cluster", Align::Left),
        ("class", Align::Left),
        ("job", Align::Left),
        ("name", Align::Left),
        ("user", Align::Left),
        ("queue", Align::Left),
        ("state", Align::Left),
        ("GPUs", Align::Right),
        ("GPU-h", Align::Right),
        ("util", Align::Right),
    ]);
    let mut group: Option<(&str, WorkloadClass)> = None;
    let mut shown = 0;
    let mut rows: Vec<([String; 7], [String; 3])> = Vec::new();
    for job in &r.top_jobs {
        let this = (job.cluster.as_str(), job.class);
        if group != Some(this) {
            group = Some(this);
            shown = 0;
        }
        shown += 1;
        if shown > TOP_JOBS_SHOWN {
            continue;
        }
        let text = |value: &Option<String>| or_dash(value.as_deref());
        rows.push((
            [
                job.cluster.clone(),
                job.class.label().to_string(),
                text(&job.job_id),
                text(&job.name),
                text(&job.user),
                text(&job.queue),
                text(&job.state),
            ],
            [
                thousands(job.max_gpus),
                thousands(job.gpu_hours),
                job.mean_util_frac.map_or_else(|| "–".to_string(), pct),
            ],
        ));
    }
    let width = |cell: &str| cell.chars().count();
    let natural: [usize; 7] = std::array::from_fn(|i| {
        rows.iter()
            .map(|(texts, _)| width(&texts[i]))
            .chain([width(&table.headers[i])])
            .max()
            .unwrap_or(0)
    });
    let numbers: usize = (0..3)
        .map(|i| {
            rows.iter()
                .map(|(_, numbers)| width(&numbers[i]))
                .chain([width(&table.headers[7 + i])])
                .max()
                .unwrap_or(0)
        })
        .sum();
    let widths = fit_widths(natural, numbers);
    for (texts, numbers) in rows {
        let mut cells: Vec<String> = texts
            .iter()
            .enumerate()
            // Ids differ at their end (`…019_10238`): cut from the front; the rest from the back.
            .map(|(i, t)| {
                if i == 2 {
                    id_tail(t, widths[i])
                } else {
                    truncated(t, widths[i])
                }
            })
            .collect();
        cells.extend(numbers);
        table.row(cells);
    }
    Some(Section {
        title: format!("Top jobs ({TOP_JOBS_SHOWN} per cluster and class by GPU-hours)"),
        blocks: vec![
            Block::Table(table),
            Block::Note(format!(
                "GPUs: the most a run held; GPU-h and util (GPU-hour weighted): its runs in the window.\n\
                 state: its last run's; – where the log has no such column. The JSON lists {} a group, with log lines.",
                crate::data::audit::top_jobs::TOP_JOBS_PER_CLASS
            )),
        ],
    })
}

/// Each cluster's month of paid capacity in its three parts and the stranded spend they make,
/// beside seed 001's reading under its own name.
pub(super) fn spend_parts_section(r: &AuditReport) -> Option<Section> {
    if r.clusters.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        ("cluster", Align::Left),
        ("cost/month", Align::Right),
        ("never allocated", Align::Right),
        ("allocated idle", Align::Right),
        ("busy", Align::Right),
        ("busy from", Align::Left),
        ("stranded", Align::Right),
        ("non-training idle (seed 001)", Align::Right),
    ]);
    for c in &r.clusters {
        let parts = &c.spend_parts;
        table.row(vec![
            c.name.clone(),
            usd(c.monthly_cost_usd),
            usd(parts.never_allocated_usd_per_month),
            known_usd(parts.allocated_idle_usd_per_month),
            known_usd(parts.busy_usd_per_month),
            source_tag(parts.busy_source).to_string(),
            known_usd(parts.stranded_usd_per_month),
            usd(c.non_training_idle_usd_per_month),
        ]);
    }
    let sum = |f: fn(&SpendParts) -> Option<f64>| known_sum(r.clusters.iter().map(|c| f(&c.spend_parts)));
    let mut blocks = vec![
        Block::Table(table),
        Block::Facts(vec![
            (
                "never allocated".into(),
                sum(|p| Some(p.never_allocated_usd_per_month)).per_month_text("(capacity no job held)"),
            ),
            (
                "allocated idle".into(),
                sum(|p| p.allocated_idle_usd_per_month).per_month_text("(held by a job, not working)"),
            ),
            ("busy".into(), sum(|p| p.busy_usd_per_month).per_month_text("(working)")),
            (
                "stranded".into(),
                sum(|p| p.stranded_usd_per_month).per_month_text("(never allocated + allocated idle)"),
            ),
        ]),
        Block::Note(
            "Paid = never allocated + allocated idle + busy, per cluster. Never allocated rests on the job log (capacity \
             less the GPUs its jobs held); idle and busy on the column `busy from` names (dcgm = measured, log = the job \
             log's utilization, alloc = neither: what the jobs held cannot be split, so idle, busy and stranded are \
             unknown). Stranded spend is never allocated + allocated idle. Seed 001's reading, kept under its own name, \
             is the non-training idle: the idle share of the minutes without training, which leaves out idle GPUs \
             beside a training job and counts inference GPUs held for latency as idle."
                .into(),
        ),
    ];
    if r.clusters
        .iter()
        .any(|c| c.spend_parts.busy_source == UtilizationSource::Allocation)
    {
        blocks.push(Block::Note(
            "Clusters without utilization cannot split what their jobs held into busy and idle: give the log a utilization column or a DCGM source.".into(),
        ));
    }
    Some(Section {
        title: "Paid capacity by what it did".into(),
        blocks,
    })
}
