//! What drawing remembers between frames: the window each pane shows of its lines. The
//! selection is the app's (its cursors); the offset is the view's, kept here as ratatui's
//! `ListState` keeps it, so moving the selection within the window does not scroll, and an
//! explicit scroll (a page, the wheel, Home, End) moves the window without moving the selection.

use crate::app::{PaneId, ScrollBy, WorkloadsView};

/// The drawing's own state, owned by the runtime beside the `App` and handed to every frame.
/// A fresh one draws as a first frame does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewState {
    /// Each pane's window, in `PaneId::ALL` order.
    windows: [ScrollWindow; PaneId::ALL.len()],
    /// The drill-down level the Workloads pane's window was scrolled in.
    workloads_level: Option<WorkloadsView>,
}

impl ViewState {
    /// The Workloads pane's window for `view`: another level of the drill-down starts at the top.
    pub fn workloads(&mut self, view: WorkloadsView) -> &mut ScrollWindow {
        if self.workloads_level.is_some_and(|shown| shown != view) {
            self.windows[PaneId::Workloads.index()] = ScrollWindow::default();
        }
        self.workloads_level = Some(view);
        &mut self.windows[PaneId::Workloads.index()]
    }

    /// A pane's window.
    pub fn window(&mut self, pane: PaneId) -> &mut ScrollWindow {
        &mut self.windows[pane.index()]
    }

    /// The window of a pane as the last frame left it.
    pub fn shown(&self, pane: PaneId) -> &ScrollWindow {
        &self.windows[pane.index()]
    }

    /// Moves a pane's window (the app's `Effect::Scroll`).
    pub fn scroll(&mut self, pane: PaneId, by: ScrollBy) {
        self.windows[pane.index()].scroll(by);
    }
}

/// A window of rows over a pane's lines: the first line shown, remembered between frames, with
/// the length and height of the last frame so a scroll between frames knows its page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScrollWindow {
    offset: usize,
    /// The selection the window last followed: it follows again only when the selection moves
    /// (or the height changes), so an explicit scroll is not undone by the next frame.
    followed: Option<usize>,
    total: usize,
    height: usize,
}

impl ScrollWindow {
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Lines above the window, as the last frame drew it.
    pub fn hidden_above(&self) -> usize {
        self.offset.min(self.total)
    }

    /// Lines below the window, as the last frame drew it.
    pub fn hidden_below(&self) -> usize {
        self.total.saturating_sub(self.offset + self.height)
    }

    /// The furthest the window may go: the last line on the last row, no blank rows below.
    fn last_offset(total: usize, height: usize) -> usize {
        total.saturating_sub(height.max(1))
    }

    /// Moves the window; it stays within the lines of the last frame.
    pub fn scroll(&mut self, by: ScrollBy) {
        let last = Self::last_offset(self.total, self.height);
        let page = self.height.saturating_sub(1).max(1) as i64;
        let moved = |lines: i64| (self.offset.min(last) as i64 + lines).clamp(0, last as i64) as usize;
        self.offset = match by {
            ScrollBy::Lines(n) => moved(i64::from(n)),
            ScrollBy::Pages(n) => moved(i64::from(n) * page),
            ScrollBy::Top => 0,
            // Before a first frame the length is not known: the frame clamps it.
            ScrollBy::Bottom if self.height == 0 => usize::MAX,
            ScrollBy::Bottom => last,
        };
    }

    /// Moves the window only as far as keeps line `selected` of `total` lines in `height`
    /// rows, with a line of context before and after it where the height allows, when the
    /// selection moved since the last frame; never past the last line. Returns the first line
    /// to draw.
    pub fn follow(&mut self, selected: Option<usize>, total: usize, height: usize) -> usize {
        let height = height.max(1);
        let moved = selected != self.followed || height != self.height;
        // A taller pane shows more of what is above rather than empty rows below.
        self.offset = self.offset.min(Self::last_offset(total, height));
        if let Some(line) = selected.filter(|_| moved) {
            let context = ((height - 1) / 2).min(1);
            let first = line.saturating_sub(context);
            let last = (line + context).min(total.saturating_sub(1)).max(line);
            if first < self.offset {
                self.offset = first;
            } else if last >= self.offset + height {
                self.offset = last + 1 - height;
            }
        }
        self.followed = selected;
        self.total = total;
        self.height = height;
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

    #[test]
    fn pages_home_and_end_move_the_window_within_its_lines() {
        let mut window = ScrollWindow::default();
        assert_eq!(window.follow(None, 70, 20), 0);
        assert_eq!((window.hidden_above(), window.hidden_below()), (0, 50));
        window.scroll(ScrollBy::Pages(1));
        assert_eq!(window.follow(None, 70, 20), 19, "a page keeps one line of the last");
        window.scroll(ScrollBy::Pages(3));
        assert_eq!(window.follow(None, 70, 20), 50, "no blank rows past the last line");
        assert_eq!((window.hidden_above(), window.hidden_below()), (50, 0));
        window.scroll(ScrollBy::Lines(-2));
        assert_eq!(window.follow(None, 70, 20), 48);
        window.scroll(ScrollBy::Top);
        assert_eq!(window.follow(None, 70, 20), 0);
        window.scroll(ScrollBy::Bottom);
        assert_eq!(window.follow(None, 70, 20), 50);
        // End before any frame: the first frame shows the last line.
        let mut fresh = ScrollWindow::default();
        fresh.scroll(ScrollBy::Bottom);
        assert_eq!(fresh.follow(None, 70, 20), 50);
        // Lines that fit do not scroll.
        let mut short = ScrollWindow::default();
        short.follow(None, 5, 20);
        short.scroll(ScrollBy::Pages(1));
        assert_eq!(short.follow(None, 5, 20), 0);
    }

    #[test]
    fn an_explicit_scroll_stays_until_the_selection_moves() {
        let mut window = ScrollWindow::default();
        assert_eq!(window.follow(Some(2), 70, 20), 0);
        window.scroll(ScrollBy::Pages(2));
        assert_eq!(
            window.follow(Some(2), 70, 20),
            38,
            "the same selection: the window stays"
        );
        assert_eq!(
            window.follow(Some(3), 70, 20),
            2,
            "the selection moved: it is shown again"
        );
    }
}
