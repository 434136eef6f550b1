//! `replay.svg`: each class's queue over the window, today against the split, one panel a
//! class: what separating the workloads does to waiting, at a glance.

use super::chart::Axis;
use super::svg::{Frame, PALETTE, legend_entry, open};
use crate::model::replay::ReplayOutcome;
use crate::model::split::ReplayReport;
use crate::model::workload::WorkloadClass;
use crate::shared::format::{thousands, usd_compact};

const PANEL_HEIGHT: f64 = 220.0;

fn series(outcome: &ReplayOutcome, class: WorkloadClass) -> Vec<f64> {
    outcome
        .classes
        .iter()
        .find(|c| c.class == class)
        .map(|c| c.queue_series.mean_waiting_jobs.clone())
        .unwrap_or_default()
}

pub fn replay_svg(report: &ReplayReport) -> String {
    let height = 90.0 + PANEL_HEIGHT * 3.0;
    let mut out = String::new();
    open(
        &mut out,
        height,
        &format!(
            "Jobs waiting, today ({}/month) against the split ({}/month)",
            usd_compact(report.today.totals.total_usd_per_month),
            usd_compact(report.split.totals.total_usd_per_month)
        ),
    );
    legend_entry(&mut out, 20.0, 48.0, PALETTE[0], false, "today's clusters");
    legend_entry(&mut out, 180.0, 48.0, PALETTE[1], false, "the split");
    let days = report.split.window_hours / 24.0;
    for (i, class) in WorkloadClass::ALL.into_iter().enumerate() {
        let top = 80.0 + PANEL_HEIGHT * i as f64;
        let (today, split) = (series(&report.today, class), series(&report.split, class));
        let points = |values: &[f64]| -> Vec<(f64, f64)> {
            let n = values.len().max(1) as f64;
            values
                .iter()
                .enumerate()
                .map(|(k, &v)| ((k as f64 + 0.5) / n * days, v))
                .collect()
        };
        let highest = today
            .iter()
            .chain(&split)
            .copied()
            .filter(|v| v.is_finite())
            .fold(1.0, f64::max);
        let frame = Frame::panel(
            top,
            PANEL_HEIGHT,
            Axis::spanning(0.0, days.max(1e-9), 9),
            Axis::covering(0.0, highest, 4),
        );
        frame.panel_title(
            &mut out,
            &format!("{} jobs waiting (mean per slice of the window)", class.label()),
        );
        // Queues of a job or two need their decimals.
        let jobs = |v: f64| {
            if highest < 10.0 {
                format!("{v:.1}")
            } else {
                thousands(v)
            }
        };
        frame.axes(&mut out, |d| format!("day {d:.0}"), jobs);
        frame.polyline(&mut out, &points(&today), PALETTE[0]);
        frame.polyline(&mut out, &points(&split), PALETTE[1]);
    }
    out.push_str("</svg>\n");
    out
}
