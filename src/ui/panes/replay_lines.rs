//! The replay in the Contracts pane: each class's pool size (the slider the cursor edits) with
//! its waits in the split, today against the split side by side, and the queue of the selected
//! class over the window.

use ratatui::text::Line;

use crate::app::App;
use crate::model::replay::{ClassOutcome, ReplayOutcome};
use crate::model::split::ReplayReport;
use crate::model::workload::WorkloadClass;
use crate::shared::format::{pct, thousands, usd_compact, wait_text};
use crate::ui::theme::Theme;
use crate::ui::widgets::{fields_line, label, right};

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

fn wait_short(ms: Option<i64>) -> String {
    wait_text(ms.map(|v| v as f64), true)
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
        lines.extend(crate::ui::widgets::wrapped(&text, width, theme.muted));
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
        lines.extend(crate::ui::widgets::wrapped(&format!("⚑ {e}"), width, theme.warn));
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
    type Figure = fn(&ReplayOutcome) -> String;
    let rows: [(&str, Figure); 5] = [
        ("cost/mo", |o| usd_compact(o.totals.total_usd_per_month)),
        ("allocated", |o| o.totals.allocated_frac.map_or("-".to_string(), pct)),
        ("never alloc GPU-h", |o| thousands(o.totals.never_allocated_gpu_hours)),
        ("overflow GPU-h", |o| thousands(o.totals.overflow_gpu_hours)),
        ("inference SLO", |o| {
            class_of(o, WorkloadClass::Inference)
                .and_then(|c| c.wait.over_slo_frac)
                .map_or("-".to_string(), pct)
        }),
    ];
    rows.iter()
        .map(|(name, figure)| side(name, figure(&report.today), figure(&report.split), theme, width))
        .collect()
}
