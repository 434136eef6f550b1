//! The frame around the panes: title line, banner, tab bar, key hints.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::Theme;
use super::widgets::{fields_line, paired_fields_line};
use crate::app::command::CommandId;
use crate::app::{App, BannerLevel, FleetFile, FleetStatus, PaneId};
use crate::shared::format::middle_truncated;

const SPINNER: [char; 4] = ['◐', '◓', '◑', '◒'];

/// The widest a source that is no file is shown in the header (a warehouse's driver and
/// `from`, a server's address), so the rows read stay beside it at 120 columns.
const SOURCE_NAME_CHARS: usize = 44;

/// How the header names a source read: a file by its name; a warehouse's table, a scheduler's
/// command or a server's address whole (the last path part of `read_parquet('…/*.parquet')`
/// alone read as `*.parquet')`), cut in the middle past `SOURCE_NAME_CHARS`.
fn source_name(file: &FleetFile) -> String {
    if !file.on_disk {
        return middle_truncated(&file.path, SOURCE_NAME_CHARS);
    }
    std::path::Path::new(&file.path)
        .file_name()
        .map_or_else(|| file.path.clone(), |n| n.to_string_lossy().to_string())
}

pub fn header(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let logs = match &app.fleet {
        Some(fleet) => {
            let rows: usize = fleet.files.iter().map(|f| f.rows).sum();
            let names: Vec<String> = fleet.files.iter().map(source_name).collect();
            format!(
                "{} ({} rows)",
                names.join(", "),
                crate::shared::format::thousands(rows as f64)
            )
        }
        None => "no logs yet".to_string(),
    };
    let state = match &app.fleet_status {
        FleetStatus::Working { generation, what } => {
            format!(" {} {what}…", SPINNER[(*generation as usize) % SPINNER.len()])
        }
        FleetStatus::Failed { .. } => " logs failed: see the banner".to_string(),
        FleetStatus::Idle if app.fleet.as_ref().is_some_and(|f| f.changed_while_read()) => {
            format!(
                " ⚠ a log changed while read: figures may mix old and new rows ({} reads again)",
                app.key_hint(crate::app::command::CommandId::Reload)
            )
        }
        FleetStatus::Idle => String::new(),
    };
    let fields = vec![
        (" gpuplan ".to_string(), theme.title.add_modifier(Modifier::REVERSED)),
        (format!(" {} ", app.plan_title()), theme.title),
        (format!("· {logs}"), theme.muted),
        (state, theme.warn),
    ];
    frame.render_widget(Paragraph::new(fields_line(fields, area.width)), area);
}

pub fn banner(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(banner) = &app.banner else {
        return;
    };
    let (style, tag) = match banner.level {
        BannerLevel::Info => (theme.good, "ok"),
        BannerLevel::Warning => (theme.warn, "warning"),
        BannerLevel::Error => (theme.bad, "error"),
    };
    let hint = format!("  ({} to dismiss)", app.key_hint(CommandId::Back));
    let line = Line::from(vec![
        Span::styled(format!(" {tag}: "), style.add_modifier(Modifier::BOLD)),
        Span::styled(banner.text.clone(), style),
        Span::styled(hint, theme.muted),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

/// The tab bar's labels, each followed by a space: the panes' titles, or their short titles
/// when the full ones do not fit in `width`.
pub fn tab_labels(width: u16) -> Vec<(PaneId, String)> {
    let labels = |title: fn(PaneId) -> &'static str| -> Vec<(PaneId, String)> {
        PaneId::ALL
            .iter()
            .enumerate()
            .map(|(i, pane)| (*pane, format!(" {} {} ", i + 1, title(*pane))))
            .collect()
    };
    let full = labels(PaneId::title);
    let needed: usize = full.iter().map(|(_, l)| l.chars().count() + 1).sum();
    if needed <= usize::from(width) {
        full
    } else {
        labels(PaneId::short_title)
    }
}

pub fn tabs(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let mut spans = Vec::new();
    for (pane, label) in tab_labels(area.width) {
        let style = if pane == app.focus { theme.selected } else { theme.muted };
        spans.push(Span::styled(label, style));
        spans.push(Span::raw(" "));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Two keys of a pair as short as they read whole: `Shift-←→` for `Shift-←` and `Shift-→`.
fn pair_hint(down: &str, up: &str) -> String {
    match (down.strip_prefix("Shift-"), up.strip_prefix("Shift-")) {
        (Some(down), Some(up)) => format!("Shift-{down}{up}"),
        _ => format!("{down}/{up}"),
    }
}

/// The focused pane's keys, then the global ones, as many as fit.
pub fn status(app: &App, theme: &Theme, frame: &mut Frame, area: Rect) {
    let mut hints: Vec<(CommandId, &str)> = match app.focus {
        PaneId::Mfu => vec![
            (CommandId::Up, "accelerator"),
            (CommandId::Increase, "±0.5 pt"),
            (CommandId::IncreaseCoarse, "±5 pt"),
            (CommandId::Edit, "type"),
        ],
        PaneId::Risk => vec![
            (CommandId::Up, "cell"),
            (CommandId::Increase, "adjust"),
            (CommandId::Edit, "type"),
        ],
        PaneId::Inference => vec![
            (CommandId::Up, "input"),
            (CommandId::Increase, "±5 %"),
            (CommandId::Edit, "type"),
        ],
        // On a plan value of a cluster drill: its keys first.
        PaneId::Workloads if app.selected_field().is_some() => vec![
            (CommandId::Up, "select"),
            (CommandId::Increase, "adjust"),
            (CommandId::Edit, "type"),
            (CommandId::Back, "back"),
        ],
        PaneId::Workloads => vec![
            (CommandId::Up, "select"),
            (CommandId::Drill, "drill"),
            (CommandId::Back, "back"),
        ],
        PaneId::Contracts => vec![
            (CommandId::Up, "class"),
            (CommandId::Increase, "pool GPUs"),
            (CommandId::Edit, "type"),
        ],
        PaneId::Forecast => vec![
            (CommandId::Up, "row"),
            (CommandId::Increase, "step"),
            (CommandId::IncreaseCoarse, "big step"),
            (CommandId::Edit, "type (empty: fitted)"),
        ],
    };
    hints.extend([
        // First: the help names every key the line has no room for.
        (CommandId::Help, "help"),
        (CommandId::PageDown, "scroll"),
        (CommandId::Zoom, if app.zoomed { "unzoom" } else { "zoom" }),
        (CommandId::NextPane, "pane"),
        (CommandId::Save, "save"),
        (CommandId::Undo, "undo"),
        (CommandId::Palette, "palette"),
        (CommandId::Quit, "quit"),
    ]);
    let mut fields = Vec::new();
    for (id, what) in hints {
        let key = match id {
            CommandId::Up => format!("{}{}", app.key_hint(CommandId::Up), app.key_hint(CommandId::Down)),
            CommandId::Increase => format!(
                "{}{}",
                app.key_hint(CommandId::Decrease),
                app.key_hint(CommandId::Increase)
            ),
            CommandId::IncreaseCoarse => pair_hint(
                &app.key_hint(CommandId::DecreaseCoarse),
                &app.key_hint(CommandId::IncreaseCoarse),
            ),
            CommandId::PageDown => format!(
                "{}/{}",
                app.key_hint(CommandId::PageUp),
                app.key_hint(CommandId::PageDown)
            ),
            _ => app.key_hint(id),
        };
        if key.is_empty() {
            continue;
        }
        fields.push(vec![
            (format!(" {key}"), theme.title),
            (format!(" {what} "), theme.muted),
        ]);
    }
    frame.render_widget(Paragraph::new(paired_fields_line(fields, area.width)), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(path: &str, on_disk: bool) -> FleetFile {
        FleetFile {
            path: path.to_string(),
            on_disk,
            format: String::new(),
            rows: 1,
            rejected: 0,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_file_is_named_by_its_name_and_a_warehouse_by_its_driver_and_table() {
        assert_eq!(source_name(&source("/data/logs/jobs.csv", true)), "jobs.csv");
        let warehouse = source("duckdb read_parquet('/data/warehouse-2000000/*.parquet')", false);
        let shown = source_name(&warehouse);
        assert!(shown.starts_with("duckdb read_parquet('"), "{shown}");
        assert!(shown.ends_with("/*.parquet')"), "{shown}");
        assert!(shown.chars().count() <= SOURCE_NAME_CHARS, "{shown}");
        assert_eq!(source_name(&source("postgresql jobs", false)), "postgresql jobs");
        let pods = source_name(&source("prometheus http://prom:9090 (kube-state-metrics)", false));
        assert!(pods.starts_with("prometheus http://pro"), "{pods}");
        assert!(pods.ends_with(" (kube-state-metrics)"), "{pods}");
    }
}
