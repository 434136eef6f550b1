//! The replay as a document: today's clusters and the proposed split side by side (waits, SLO
//! misses, utilization, stranded and overflow GPU-hours, cost).

use crate::model::replay::ClassOutcome;
use crate::model::split::ReplayReport;
use crate::model::workload::WorkloadClass;
use crate::present::document::{Align, Block, Document, Section, Table};
use crate::shared::format::{pct, thousands, usd};

fn wait_text(ms: Option<f64>) -> String {
    crate::shared::format::wait_text(ms, false)
}

fn class_row(fleet: &str, c: &ClassOutcome) -> Vec<String> {
    let w = &c.wait;
    vec![
        fleet.to_string(),
        thousands(c.jobs as f64),
        w.waited_frac.map_or("-".to_string(), pct),
        wait_text(w.p50_ms.map(|v| v as f64)),
        wait_text(w.p95_ms.map(|v| v as f64)),
        wait_text(w.p99_ms.map(|v| v as f64)),
        wait_text(w.mean_ms),
        w.over_slo_frac.map_or("-".to_string(), pct),
        thousands(c.overflow_gpu_hours_in_window),
        thousands(c.jobs_never_started as f64),
    ]
}

pub fn document(r: &ReplayReport) -> Document {
    Document {
        title: "gpuplan replay".into(),
        sections: sections(r),
    }
}

/// The replay as sections of a document: `replay` prints them, `report --logs` appends them.
pub fn sections(r: &ReplayReport) -> Vec<Section> {
    let mut pools = Table::new(&[
        ("fleet", Align::Left),
        ("pool", Align::Left),
        ("GPUs", Align::Right),
        ("allocated", Align::Right),
        ("never allocated GPU-h", Align::Right),
        ("overflow GPU-h", Align::Right),
        ("cost/month", Align::Right),
    ]);
    for (fleet, outcome) in [("today", &r.today), ("split", &r.split)] {
        for p in &outcome.pools {
            pools.row(vec![
                fleet.to_string(),
                match &p.overflow_label {
                    Some(label) => format!("{} (+{label})", p.name),
                    None => p.name.clone(),
                },
                thousands(f64::from(p.gpus)),
                p.allocated_frac.map_or("-".to_string(), pct),
                thousands(p.never_allocated_gpu_hours),
                thousands(p.overflow_gpu_hours_in_window),
                usd(p.total_usd_per_month),
            ]);
        }
    }
    let mut totals = Vec::new();
    for (fleet, o) in [("today", &r.today), ("split", &r.split)] {
        totals.push((
            fleet.to_string(),
            format!(
                "{}/month: {} GPUs {} allocated, {} GPU-h never allocated, {} GPU-h on overflow",
                usd(o.totals.total_usd_per_month),
                thousands(o.totals.gpus as f64),
                o.totals.allocated_frac.map_or("-".to_string(), pct),
                thousands(o.totals.never_allocated_gpu_hours),
                thousands(o.totals.overflow_gpu_hours)
            ),
        ));
    }
    let mut sources: Vec<(String, String)> = r
        .split_pools
        .iter()
        .map(|p| {
            let overflow = match (&p.overflow_label, p.overflow_usd_per_gpu_hour) {
                (Some(label), Some(price)) => format!("; overflow {label} at {}/GPU-h", usd_rate(price)),
                _ => "; no overflow".to_string(),
            };
            (
                format!("{} pool", p.class.label()),
                format!(
                    "{} GPUs at {}/GPU-h from {}{overflow}",
                    thousands(p.gpus),
                    usd_rate(p.usd_per_gpu_hour),
                    p.source
                ),
            )
        })
        .collect();
    if let Some(g) = &r.gang_sizing {
        let (kept, other) = if g.gang_kept {
            (g.gang_gpus, g.base_gpus)
        } else {
            (g.base_gpus, g.gang_gpus)
        };
        sources.push((
            "gang sizing".to_string(),
            format!(
                "{} pool of {} GPUs (term-mix base): {} of its GPU-hours on overflow, {}/month; of {} GPUs (its \
                 largest gang): {}, {}/month; kept {} GPUs, not {}",
                g.class.label(),
                thousands(g.base_gpus),
                pct(g.base_overflow_frac),
                usd(g.base_usd_per_month),
                thousands(g.gang_gpus),
                pct(g.gang_overflow_frac),
                usd(g.gang_usd_per_month),
                thousands(kept),
                thousands(other)
            ),
        ));
    }
    sources.push((
        "policy".to_string(),
        format!(
            "gang scheduling; {}; inference first{}; in the split a job waiting {} runs on its pool's overflow",
            if r.policy.backfill {
                "FIFO with EASY backfill"
            } else {
                "FIFO"
            },
            if r.policy.preempt_burst_for_inference {
                ", in the split preempting burst (work since its last checkpoint redone)"
            } else {
                ""
            },
            wait_text(r.policy.overflow_after_wait_ms.map(|v| v as f64))
        ),
    ));
    let mut waits = Table::new(&[
        ("class", Align::Left),
        ("fleet", Align::Left),
        ("jobs", Align::Right),
        ("waited", Align::Right),
        ("p50", Align::Right),
        ("p95", Align::Right),
        ("p99", Align::Right),
        ("mean", Align::Right),
        ("over SLO", Align::Right),
        ("overflow GPU-h", Align::Right),
        ("never", Align::Right),
    ]);
    for class in WorkloadClass::ALL {
        for (fleet, outcome) in [("today", &r.today), ("split", &r.split)] {
            if let Some(c) = outcome.classes.iter().find(|c| c.class == class) {
                let mut row = class_row(fleet, c);
                row.insert(
                    0,
                    if fleet == "today" {
                        class.label().to_string()
                    } else {
                        String::new()
                    },
                );
                waits.row(row);
            }
        }
    }
    let mut wait_blocks = vec![Block::Table(waits)];
    wait_blocks.push(Block::Note(format!(
        "Waits from submit to start. Over SLO: inference starts that waited longer than {}.{}",
        wait_text(Some(r.policy.inference_start_slo_ms as f64)),
        if r.jobs_submit_is_start > 0 {
            format!(
                " {} of {} jobs have no submit time in the log: their first start stands in, so today's waits read as \
                 zero by construction.",
                thousands(r.jobs_submit_is_start as f64),
                thousands(r.jobs as f64)
            )
        } else {
            String::new()
        }
    )));
    let mut sections = vec![
        Section {
            title: format!(
                "Replay of {} jobs, {} to {}",
                thousands(r.jobs as f64),
                r.window_start,
                r.window_end
            ),
            blocks: vec![Block::Facts(totals), Block::Facts(sources)],
        },
        Section {
            title: "Pools".into(),
            blocks: vec![Block::Table(pools)],
        },
        Section {
            title: "Waits by class".into(),
            blocks: wait_blocks,
        },
    ];
    let never: Vec<_> = r.today.never_started.iter().chain(&r.split.never_started).collect();
    if !never.is_empty() {
        let mut table = Table::new(&[
            ("fleet", Align::Left),
            ("job", Align::Right),
            ("class", Align::Left),
            ("GPUs", Align::Right),
            ("pool", Align::Left),
        ]);
        for (fleet, outcome) in [("today", &r.today), ("split", &r.split)] {
            for job in outcome.never_started.iter().take(50) {
                table.row(vec![
                    fleet.to_string(),
                    job.id.to_string(),
                    job.class.label().to_string(),
                    thousands(f64::from(job.gpus)),
                    outcome.pools.get(job.pool).map_or_else(String::new, |p| p.name.clone()),
                ]);
            }
        }
        sections.push(Section {
            title: format!("Jobs that could never start ({})", thousands(never.len() as f64)),
            blocks: vec![
                Block::Table(table),
                Block::Note("Larger than their pool, which has no overflow: listed, never dropped (the first 50 of each fleet here, all in --format json).".into()),
            ],
        });
    }
    sections
}

fn usd_rate(usd_per_hour: f64) -> String {
    format!("${usd_per_hour:.2}")
}
