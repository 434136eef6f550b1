//! Where everything goes, for drawing and for hit-testing clicks: three panes over three on a
//! big terminal (each pane then gets the width its tables need and the height its charts use),
//! six columns on a wide but short one, one pane with tabs on a small one; a zoomed pane alone
//! between the title line and the key hints at any size.

use ratatui::layout::{Constraint, Direction, Layout, Rect};

use crate::app::{App, PaneId};

/// Narrowest pane column that shows every number whole.
pub const MIN_COLUMN_WIDTH: u16 = 38;
const PANES: u16 = PaneId::ALL.len() as u16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrangement {
    /// All six panes side by side.
    Columns,
    /// Three panes over three.
    Grid,
    /// One pane at a time, with a tab bar.
    Tabs,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Areas {
    pub header: Rect,
    pub banner: Option<Rect>,
    pub tabs: Option<Rect>,
    pub panes: Vec<(PaneId, Rect)>,
    pub status: Rect,
    pub arrangement: Arrangement,
}

pub fn arrangement(size: Rect) -> Arrangement {
    if size.width >= MIN_COLUMN_WIDTH * 3 && size.height >= 40 {
        Arrangement::Grid
    } else if size.width >= MIN_COLUMN_WIDTH * PANES && size.height >= 24 {
        Arrangement::Columns
    } else {
        Arrangement::Tabs
    }
}

/// The least height that shows the banner line.
const BANNER_MIN_ROWS: u16 = 12;

pub fn areas(size: Rect, app: &App) -> Areas {
    // Below `BANNER_MIN_ROWS` the panes need every row: what the banner says is in them too
    // (a failed source, what reading said) or waits for a taller screen.
    let banner_rows = u16::from(app.banner.is_some() && size.height >= BANNER_MIN_ROWS);
    let arrangement = arrangement(size);
    // A zoomed pane takes the tab bar's row too: `z` or Esc gives it back.
    let tab_rows = u16::from(arrangement == Arrangement::Tabs && !app.zoomed);
    let [header, banner, tabs, body, status] = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Length(banner_rows),
            Constraint::Length(tab_rows),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(size);
    let panes = match arrangement {
        _ if app.zoomed => vec![(app.focus, body)],
        Arrangement::Columns => {
            let columns = Layout::horizontal([Constraint::Ratio(1, PANES as u32); PaneId::ALL.len()]).split(body);
            PaneId::ALL.iter().copied().zip(columns.iter().copied()).collect()
        }
        Arrangement::Grid => {
            let [top, bottom] = Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
            let upper = Layout::horizontal([Constraint::Ratio(1, 3); 3]).split(top);
            let lower = Layout::horizontal([Constraint::Ratio(1, 3); 3]).split(bottom);
            PaneId::ALL
                .iter()
                .copied()
                .zip(upper.iter().chain(lower.iter()).copied())
                .collect()
        }
        Arrangement::Tabs => vec![(app.focus, body)],
    };
    Areas {
        header,
        banner: (banner_rows > 0).then_some(banner),
        tabs: (tab_rows > 0).then_some(tabs),
        panes,
        status,
        arrangement,
    }
}

/// The pane under a point, if any.
pub fn pane_at(areas: &Areas, x: u16, y: u16) -> Option<PaneId> {
    areas
        .panes
        .iter()
        .find(|(_, r)| x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)
        .map(|(p, _)| *p)
}

/// The tab under a point of the tab bar: tabs are laid out as `ui::chrome` draws them.
pub fn tab_at(areas: &Areas, x: u16, y: u16) -> Option<PaneId> {
    let bar = areas.tabs?;
    if y != bar.y {
        return None;
    }
    let mut left = bar.x;
    for (pane, label) in super::chrome::tab_labels(bar.width) {
        let width = label.chars().count() as u16;
        if x >= left && x < left + width {
            return Some(pane);
        }
        left += width + 1;
    }
    None
}
