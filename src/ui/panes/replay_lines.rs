//! The replay in the Contracts pane: each class's pool size (the slider the cursor edits) with
//! its waits in the split, today against the split side by side, and the queue of the selected
//! class over the window.

use ratatui::text::Line;

use crate::app::App;
use crate::model::format::{pct, thousands, usd_compact};
use crate::model::replay::{ClassOutcome, ReplayOutcome};
use crate::model::split::ReplayReport;
use crate::model::workload::WorkloadClass;
use crate::ui::theme::Theme;
use crate::ui::widgets::{fields_line, label, right};

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A wait, short: `0`, `40s`, `12m`, `3.5h`, `2.1d`.
fn wait_short(ms: Option<i64>) -> String {
    let Some(ms) = ms else { return "-".to_string() };
    let s = ms as f64 / 1000.0;
    if s < 0.5 {
        "0".to_string()
    } else if s < 90.0 {
        format!("{s:.0}s")
    } else if s < 5400.0 {
        format!("{:.0}m", s / 60.0)
    } else if s < 172_800.0 {
        format!("{:.1}h", s / 3600.0)
    } else {
        format!("{:.1}d", s / 86_400.0)
    }
}

fn class_of(outcome: &ReplayOutcome, class: WorkloadClass) -> Option<&ClassOutcome> {
    outcome.classes.iter().find(|c| c.class == class)
}

/// The pool line under a class: its size in the split and what it did to the class's waits.
pub fn pool_line(app: &App, class: WorkloadClass, selected: bool, theme: &Theme, width: u16) -> Option<Line<'static>> {
    let report = app.replay.result.as_ref()?;
    let gpus = app.field_value(crate::app::field::Field::ReplayPool(class))?;
    let split = class_of(&report.split, class)?;
    let today = class_of(&report.today, class)?;
    let style = if selected { theme.selected } else { theme.base };
    Some(fields_line(
        vec![
            (" pool ".to_string(), theme.muted),
            (format!("◂ {} ▸", thousands(gpus)), style),
            (
                format!(
                    " p95 {} (today {})",
                    wait_short(split.wait.p95_ms),
                    wait_short(today.wait.p95_ms)
                ),
                theme.muted,
            ),
        ],
        width,
    ))
}

fn side(label_text: &str, today: String, split: String, theme: &Theme, width: u16) -> Line<'static> {
    fields_line(
        vec![
            (label(label_text, 14), theme.base),
            (right(&today, 11), theme.base),
            (right(&split, 11), theme.title),
        ],
        width,
    )
}

/// The queue of one class over the window, as many columns as fit.
fn queue_sparkline(series: &[f64], width: usize) -> String {
    if series.is_empty() || width == 0 {
        return String::new();
    }
    let columns = width.min(series.len());
    let per = series.len().div_ceil(columns);
    let means: Vec<f64> = series
        .chunks(per)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    let top = means.iter().copied().fold(0.0, f64::max);
    means
        .iter()
        .map(|&m| {
            if top <= 0.0 {
                BARS[0]
            } else {
                BARS[((m / top * 7.0).round() as usize).min(7)]
            }
        })
        .collect()
}

/// Today against the split, and the queue of the selected class.
pub fn comparison_lines(app: &App, selected: Option<WorkloadClass>, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let mut lines = vec![Line::raw("")];
    let Some(report) = app.replay.result.as_ref() else {
        let text = match (&app.replay.error, app.replay.working) {
            (Some(e), _) => format!("replay: {e}"),
            (None, true) => "replaying today and the split…".to_string(),
            (None, false) => "replay: waiting for the audit".to_string(),
        };
        lines.push(Line::styled(text, theme.muted));
        return lines;
    };
    lines.push(fields_line(
        vec![
            (label("replay", 14), theme.title),
            (right("today", 11), theme.muted),
            (right("split", 11), theme.muted),
        ],
        width,
    ));
    lines.extend(totals(report, theme, width));
    if let Some(e) = &app.replay.error {
        lines.push(Line::styled(format!("⚑ {e}"), theme.warn));
    } else if app.replay.working {
        lines.push(Line::styled("replaying…", theme.muted));
    }
    if let Some(class) = selected
        && let Some(split) = class_of(&report.split, class)
    {
        lines.push(Line::styled(
            format!(
                "{} queue in the split, max {}",
                class.label(),
                thousands(split.max_queue_len as f64)
            ),
            theme.muted,
        ));
        lines.push(Line::styled(
            queue_sparkline(&split.queue_series.mean_waiting_jobs, width as usize),
            theme.warn,
        ));
    }
    lines
}

fn totals(report: &ReplayReport, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let (t, s) = (&report.today, &report.split);
    let slo = |o: &ReplayOutcome| {
        class_of(o, WorkloadClass::Inference)
            .and_then(|c| c.wait.over_slo_frac)
            .map_or("-".to_string(), pct)
    };
    vec![
        side(
            "cost/mo",
            usd_compact(t.totals.total_usd_per_month),
            usd_compact(s.totals.total_usd_per_month),
            theme,
            width,
        ),
        side(
            "utilized",
            t.totals.utilization_frac.map_or("-".to_string(), pct),
            s.totals.utilization_frac.map_or("-".to_string(), pct),
            theme,
            width,
        ),
        side(
            "stranded GPU-h",
            thousands(t.totals.stranded_gpu_hours),
            thousands(s.totals.stranded_gpu_hours),
            theme,
            width,
        ),
        side(
            "overflow GPU-h",
            thousands(t.totals.overflow_gpu_hours),
            thousands(s.totals.overflow_gpu_hours),
            theme,
            width,
        ),
        side("inference SLO", slo(t), slo(s), theme, width),
    ]
}
