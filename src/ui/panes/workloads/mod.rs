//! Workloads: class mix per cluster, utilization over time with dips marked, the cluster as
//! GPU cells shaded by busy time, stranded spend and flags; drill into a cluster, a class, a job.

mod drill;
mod fleet;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::app::{App, FleetStatus, WorkloadsView};
use crate::model::workload::WorkloadClass;
use crate::ui::scroll::ScrollWindow;
use crate::ui::theme::Theme;
use crate::ui::widgets::wrapped;

/// A view's lines, and which of them is the selected row: marked as that row is added, so
/// keeping it on screen never counts the lines above it.
#[derive(Debug, Default)]
struct Listing {
    lines: Vec<Line<'static>>,
    selected: Option<usize>,
}

impl Listing {
    fn unselected(lines: Vec<Line<'static>>) -> Listing {
        Listing { lines, selected: None }
    }
}

/// Draws the view of the drill-down; `window` is the pane's scroll, remembered between frames.
pub fn render(app: &App, window: &mut ScrollWindow, theme: &Theme, frame: &mut Frame, body: Rect, focused: bool) {
    let Some(fleet) = &app.fleet else {
        let text = match &app.fleet_status {
            FleetStatus::Working { what, .. } => format!("{what}…"),
            FleetStatus::Failed { message } => message.clone(),
            FleetStatus::Idle => "no logs: open one with the file picker".to_string(),
        };
        super::scrolled(frame, body, wrapped(&text, body.width, theme.muted), None, window);
        return;
    };
    let report = &fleet.report;
    let listing = match app.workloads_view {
        WorkloadsView::Fleet => fleet::fleet_lines(app, report, theme, body, focused),
        WorkloadsView::Cluster { cluster } => drill::cluster_lines(app, report, cluster, theme, body.width, focused),
        WorkloadsView::Class { cluster, class } => {
            drill::class_lines(app, report, cluster, class, theme, body.width, focused)
        }
        WorkloadsView::Job { cluster, class, job } => {
            Listing::unselected(drill::job_lines(app, cluster, class, job, theme))
        }
    };
    super::scrolled(frame, body, listing.lines, listing.selected, window);
}

/// Glyphs tell the classes apart without colour.
fn class_glyph(class: WorkloadClass) -> char {
    match class {
        WorkloadClass::Training => '█',
        WorkloadClass::Inference => '▓',
        WorkloadClass::Burst => '░',
    }
}
