//! What drawing remembers between frames: the window each scrolled list shows. The selection
//! is the app's (its cursors); the offset is the view's, kept here as ratatui's `ListState`
//! keeps it, so moving the selection within the window does not scroll.

use crate::app::WorkloadsView;

/// The drawing's own state, owned by the runtime beside the `App` and handed to every frame.
/// A fresh one draws as a first frame does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewState {
    /// The Workloads pane's window, for the drill-down level it was scrolled in.
    workloads: Option<(WorkloadsView, ScrollWindow)>,
}

impl ViewState {
    /// The Workloads pane's window for `view`: another level of the drill-down starts at the top.
    pub fn workloads(&mut self, view: WorkloadsView) -> &mut ScrollWindow {
        if self.workloads.as_ref().is_some_and(|(shown, _)| *shown != view) {
            self.workloads = None;
        }
        &mut self.workloads.get_or_insert((view, ScrollWindow::default())).1
    }
}

/// A window of rows over a pane's lines: the first line shown, remembered between frames.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScrollWindow {
    offset: usize,
}

impl ScrollWindow {
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Moves the window only as far as keeps line `selected` of `total` lines in `height`
    /// rows, with a line of context before and after it where the height allows; returns the
    /// first line to draw.
    pub fn follow(&mut self, selected: Option<usize>, total: usize, height: usize) -> usize {
        let height = height.max(1);
        // A taller pane shows more of what is above rather than empty rows below.
        self.offset = self.offset.min(total.saturating_sub(height));
        if let Some(line) = selected {
            let context = ((height - 1) / 2).min(1);
            let first = line.saturating_sub(context);
            let last = (line + context).min(total.saturating_sub(1)).max(line);
            if first < self.offset {
                self.offset = first;
            } else if last >= self.offset + height {
                self.offset = last + 1 - height;
            }
        }
        self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_frame_scrolls_just_enough_to_show_the_selection_and_the_line_after() {
        let mut window = ScrollWindow::default();
        assert_eq!(window.follow(Some(3), 40, 10), 0);
        assert_eq!(window.follow(Some(12), 40, 10), 4);
        assert_eq!(ScrollWindow::default().follow(Some(39), 40, 10), 30);
        assert_eq!(ScrollWindow::default().follow(None, 40, 10), 0);
    }

    #[test]
    fn moving_within_the_window_keeps_it_and_leaving_it_moves_it_one_line() {
        let mut window = ScrollWindow::default();
        assert_eq!(window.follow(Some(20), 40, 10), 12);
        // Up, within the window: it stays.
        assert_eq!(window.follow(Some(15), 40, 10), 12);
        assert_eq!(window.follow(Some(13), 40, 10), 12);
        // Up to the line after the top one: the window follows, keeping one line above.
        assert_eq!(window.follow(Some(12), 40, 10), 11);
        assert_eq!(window.follow(Some(0), 40, 10), 0);
    }

    #[test]
    fn the_selection_shows_at_any_height_and_a_taller_pane_shows_more_above() {
        for height in 1..12 {
            for line in 0..30 {
                let first = ScrollWindow::default().follow(Some(line), 30, height);
                assert!(
                    (first..first + height).contains(&line),
                    "{line} in {height} rows from {first}"
                );
            }
        }
        let mut window = ScrollWindow::default();
        assert_eq!(window.follow(Some(29), 30, 5), 25);
        assert_eq!(window.follow(Some(29), 30, 20), 10);
        assert_eq!(window.follow(Some(29), 30, 40), 0);
    }

    #[test]
    fn another_drill_level_starts_at_the_top() {
        let mut view = ViewState::default();
        view.workloads(WorkloadsView::Fleet).follow(Some(30), 40, 10);
        assert_eq!(view.workloads(WorkloadsView::Fleet).offset(), 22);
        assert_eq!(view.workloads(WorkloadsView::Cluster { cluster: 0 }).offset(), 0);
        assert_eq!(view.workloads(WorkloadsView::Fleet).offset(), 0);
    }
}
