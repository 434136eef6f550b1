//! Every line a pane computes is in reach: each pane scrolls by pages, to its ends and by the
//! arrows past its last selectable row, says on its border what lies above and below, and
//! zooms to the whole screen; the Contracts pane shows the same board at 80×24 and 200×60
//! (wrapped where narrower, never cut). Drawn into ratatui's TestBackend on the shipped sample,
//! with the view state the runtime keeps between frames.

use std::sync::OnceLock;

use gpuplan::app::key::{Key, KeyCode};
use gpuplan::app::{Action, App, Effect, PaneId, update};
use gpuplan::runtime::sample_workbench;
use gpuplan::runtime::theme_files::load_themes;
use gpuplan::shared::format::{usd_compact, usd_compact_signed};
use gpuplan::ui::ViewState;
use gpuplan::ui::layout::areas;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

/// `insta::assert_snapshot!` into `tests/snapshots/pane_scrolling__NAME.snap`, beside the other
/// workbench captures the guides show.
macro_rules! snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| insta::assert_snapshot!(format!("pane_scrolling__{}", $name), $value));
    }};
}

fn app() -> App {
    static LOADED: OnceLock<App> = OnceLock::new();
    LOADED
        .get_or_init(|| sample_workbench(None).expect("the sample audits"))
        .clone()
}

/// The rows of one pane as drawn: its top border, the rows inside it, its bottom border.
struct PaneShown {
    top: String,
    rows: Vec<String>,
    bottom: String,
}

impl PaneShown {
    fn text(&self) -> String {
        self.rows.join("\n")
    }

    fn more_below(&self) -> bool {
        self.bottom.contains("↓") && self.bottom.contains("more")
    }

    fn more_above(&self) -> bool {
        self.top.contains("↑") && self.top.contains("more")
    }
}

/// Draws a frame with `view` (as the runtime does) and reads `pane`'s rectangle back.
fn shown(app: &App, view: &mut ViewState, pane: PaneId, width: u16, height: u16) -> PaneShown {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    let theme = load_themes(None, false).themes.remove(0);
    terminal
        .draw(|frame| gpuplan::ui::render(app, view, &theme, frame))
        .expect("draws");
    let buffer = terminal.backend().buffer();
    let layout = areas(Rect::new(0, 0, width, height), app);
    let area = layout
        .panes
        .iter()
        .find(|(p, _)| *p == pane)
        .map(|(_, r)| *r)
        .unwrap_or_else(|| panic!("{pane:?} is not drawn at {width}×{height}"));
    let row = |y: u16, from: u16, to: u16| -> String {
        (from..to)
            .map(|x| buffer[(x, y)].symbol().to_string())
            .collect::<String>()
            .trim_end()
            .to_string()
    };
    PaneShown {
        top: row(area.y, area.x, area.x + area.width),
        rows: (area.y + 1..area.y + area.height - 1)
            .map(|y| row(y, area.x + 1, area.x + area.width - 1))
            .collect(),
        bottom: row(area.y + area.height - 1, area.x, area.x + area.width),
    }
}

/// An action through `update`, its scroll effects applied to the view as the runtime does.
fn act(app: &mut App, view: &mut ViewState, action: Action) {
    for effect in update(app, action) {
        if let Effect::Scroll { pane, by } = effect {
            view.scroll(pane, by);
        }
    }
}

fn key(app: &mut App, view: &mut ViewState, code: KeyCode) {
    act(app, view, Action::Key(Key::plain(code)));
}

/// The whole of a pane's lines, read a page at a time from its top to its last line.
fn every_line(app: &mut App, view: &mut ViewState, pane: PaneId, width: u16, height: u16) -> String {
    shown(app, view, pane, width, height);
    key(app, view, KeyCode::Home);
    let mut pages = Vec::new();
    let mut page = shown(app, view, pane, width, height);
    for _ in 0..100 {
        let last = !page.more_below();
        pages.push(page.text());
        if last {
            return pages.join("\n");
        }
        key(app, view, KeyCode::PageDown);
        page = shown(app, view, pane, width, height);
    }
    panic!("{pane:?} never reached its last line at {width}×{height}");
}

/// Words and numbers as a reader runs through them, whatever the line breaks.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_contracts_pane_scrolled_to_end_at_80x24_shows_the_replays_today_versus_split_table() {
    let mut app = app();
    let mut view = ViewState::default();
    act(&mut app, &mut view, Action::FocusPane(PaneId::Contracts));
    shown(&app, &mut view, PaneId::Contracts, 80, 24);
    key(&mut app, &mut view, KeyCode::Home);
    let first = shown(&app, &mut view, PaneId::Contracts, 80, 24);
    assert!(
        first.more_below(),
        "the pane holds more than a screen:\n{}",
        first.bottom
    );
    assert!(!first.more_above(), "{}", first.top);
    assert!(!first.text().contains("inference SLO"), "{}", first.text());
    key(&mut app, &mut view, KeyCode::End);
    let end = shown(&app, &mut view, PaneId::Contracts, 80, 24);
    let text = end.text();
    // The replay table's last row, then the selected class's queue under it: the last lines.
    assert!(text.contains("inference SLO"), "{text}");
    assert!(text.contains("queue in the split"), "{text}");
    assert!(!end.more_below(), "End shows the last line: {}", end.bottom);
    assert!(end.more_above(), "and says what is above: {}", end.top);
    // No blank rows past the last line: the window ends on it.
    assert!(!end.rows.last().is_some_and(|r| r.trim().is_empty()), "{text}");
    // Home goes back to the first frame.
    key(&mut app, &mut view, KeyCode::Home);
    assert_eq!(shown(&app, &mut view, PaneId::Contracts, 80, 24).rows, first.rows);
}

#[test]
fn page_down_moves_every_pane_and_end_reaches_its_last_line() {
    for pane in PaneId::ALL {
        let mut app = app();
        let mut view = ViewState::default();
        act(&mut app, &mut view, Action::FocusPane(pane));
        shown(&app, &mut view, pane, 80, 10);
        key(&mut app, &mut view, KeyCode::Home);
        let first = shown(&app, &mut view, pane, 80, 10);
        assert!(first.more_below(), "{pane:?} overflows 5 rows:\n{}", first.text());
        key(&mut app, &mut view, KeyCode::PageDown);
        let paged = shown(&app, &mut view, pane, 80, 10);
        assert_ne!(paged.rows, first.rows, "{pane:?}: PgDn did not move");
        assert!(paged.more_above(), "{pane:?}: {}", paged.top);
        key(&mut app, &mut view, KeyCode::PageUp);
        assert_eq!(shown(&app, &mut view, pane, 80, 10).rows, first.rows, "{pane:?}: PgUp");
        key(&mut app, &mut view, KeyCode::End);
        let end = shown(&app, &mut view, pane, 80, 10);
        assert!(!end.more_below(), "{pane:?}: End leaves lines below: {}", end.bottom);
        assert!(
            !end.rows.last().is_some_and(|r| r.trim().is_empty()),
            "{pane:?}:\n{}",
            end.text()
        );
        // Past the end there is nothing: another page changes nothing.
        key(&mut app, &mut view, KeyCode::PageDown);
        assert_eq!(
            shown(&app, &mut view, pane, 80, 10).rows,
            end.rows,
            "{pane:?}: overscroll"
        );
    }
}

#[test]
fn the_mouse_wheel_scrolls_the_pane_under_the_pointer_and_leaves_its_selection() {
    let mut app = app();
    let mut view = ViewState::default();
    act(&mut app, &mut view, Action::FocusPane(PaneId::Risk));
    let cursors = app.cursors;
    let first = shown(&app, &mut view, PaneId::Contracts, 200, 60);
    act(
        &mut app,
        &mut view,
        Action::Scroll {
            pane: PaneId::Contracts,
            lines: 3,
        },
    );
    let wheeled = shown(&app, &mut view, PaneId::Contracts, 200, 60);
    assert_eq!(wheeled.rows[0], first.rows[3], "three lines down");
    assert_eq!(app.cursors, cursors, "the wheel moves no selection");
    assert_eq!(app.focus, PaneId::Risk, "nor the focus");
}

#[test]
fn an_arrow_past_the_last_class_scrolls_and_a_cursor_move_brings_the_selection_back() {
    let mut app = app();
    let mut view = ViewState::default();
    act(&mut app, &mut view, Action::FocusPane(PaneId::Contracts));
    let classes = app.derived.contracts.as_ref().map_or(0, |c| c.classes.len());
    assert!(classes >= 2, "the sample has classes to select");
    for _ in 1..classes {
        key(&mut app, &mut view, KeyCode::Down);
        shown(&app, &mut view, PaneId::Contracts, 80, 24);
    }
    let at_last = shown(&app, &mut view, PaneId::Contracts, 80, 24);
    // Nothing more to select: Down scrolls a line.
    key(&mut app, &mut view, KeyCode::Down);
    let scrolled = shown(&app, &mut view, PaneId::Contracts, 80, 24);
    assert_eq!(app.cursors.contract_class, classes - 1);
    assert_eq!(scrolled.rows[0], at_last.rows[1], "one line down");
    // A page away from the selection, then Up: the newly selected class is on screen.
    key(&mut app, &mut view, KeyCode::End);
    shown(&app, &mut view, PaneId::Contracts, 80, 24);
    key(&mut app, &mut view, KeyCode::Up);
    let back = shown(&app, &mut view, PaneId::Contracts, 80, 24);
    let class = app.derived.contracts.as_ref().expect("contracts").classes[classes - 2]
        .class
        .label();
    assert!(
        back.rows.iter().any(|r| r.starts_with(&format!("{class} "))),
        "{class} selected but not shown:\n{}",
        back.text()
    );
}

#[test]
fn z_zooms_the_focused_pane_to_the_whole_body_and_z_or_esc_gives_the_others_back() {
    for (width, height) in [(200, 60), (80, 24)] {
        let mut app = app();
        let mut view = ViewState::default();
        act(&mut app, &mut view, Action::FocusPane(PaneId::Contracts));
        let size = Rect::new(0, 0, width, height);
        let before = areas(size, &app);
        act(&mut app, &mut view, Action::Key(Key::char('z')));
        let zoomed = areas(size, &app);
        assert_eq!(zoomed.panes.len(), 1);
        let (pane, area) = zoomed.panes[0];
        assert_eq!(pane, PaneId::Contracts);
        // Everything between the title line (and the banner, what reading the sample said) and
        // the key hints.
        let banner = u16::from(app.banner.is_some());
        assert_eq!(
            area,
            Rect::new(0, 1 + banner, width, height - 2 - banner),
            "{width}×{height}"
        );
        assert_eq!(zoomed.tabs, None);
        let shown = shown(&app, &mut view, PaneId::Contracts, width, height);
        assert!(shown.top.contains("5 Contracts · zoomed, z back"), "{}", shown.top);
        assert_eq!(shown.rows.len(), usize::from(height - banner) - 4);
        act(&mut app, &mut view, Action::Key(Key::char('z')));
        assert_eq!(areas(size, &app), before, "z again: the layout as it was");
        act(&mut app, &mut view, Action::Key(Key::char('z')));
        act(&mut app, &mut view, Action::Key(Key::plain(KeyCode::Esc)));
        assert_eq!(areas(size, &app), before, "Esc: the layout as it was");
    }
}

/// The 200×60 grid's Contracts column is narrower than the 80×24 tab: what does not fit on a
/// line goes on to the next, so both sizes read the same board.
#[test]
fn the_200x60_board_shows_the_same_waterfall_explanations_payback_and_causes_as_80x24() {
    let mut app = app();
    let mut view = ViewState::default();
    act(&mut app, &mut view, Action::FocusPane(PaneId::Contracts));
    let wide = words(&every_line(&mut app, &mut view, PaneId::Contracts, 200, 60));
    let mut view = ViewState::default();
    let narrow = words(&every_line(&mut app, &mut view, PaneId::Contracts, 80, 24));
    let waterfall = app.waterfall().expect("the sample's waterfall");
    let mut wanted: Vec<String> = waterfall
        .steps
        .iter()
        .map(|s| s.why_not.clone().unwrap_or_else(|| s.step.basis().to_string()))
        .collect();
    let timing = waterfall.timing.as_ref().expect("the sample's timing");
    wanted.push(format!("moving {}", usd_compact(timing.moving.one_off_usd())));
    wanted.push(format!(
        "paid back {}",
        timing.payback_month.as_deref().unwrap_or("later")
    ));
    // Every cause of the saving, so the parts shown add up to it.
    assert!(
        waterfall.attribution.len() > 2,
        "more causes than the two a cut line kept"
    );
    for cause in &waterfall.attribution {
        wanted.push(format!(
            "{} {}",
            cause.cause.short(),
            usd_compact_signed(cause.usd_per_year)
        ));
    }
    wanted.push("switching adds".to_string());
    wanted.push("widest:".to_string());
    for text in wanted {
        let text = words(&text);
        assert!(narrow.contains(&text), "80×24 lacks {text:?}:\n{narrow}");
        assert!(wide.contains(&text), "200×60 lacks {text:?}:\n{wide}");
    }
}

/// The whole screen of a frame drawn with `view`.
fn screen(app: &App, view: &mut ViewState, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    let theme = load_themes(None, false).themes.remove(0);
    terminal
        .draw(|frame| gpuplan::ui::render(app, view, &theme, frame))
        .expect("draws");
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The guide's captures: the Contracts pane at 80×24 scrolled to its last line, then zoomed.
#[test]
fn the_contracts_pane_at_its_last_line_and_zoomed_at_80x24_for_the_guide() {
    let mut app = app();
    let mut view = ViewState::default();
    act(&mut app, &mut view, Action::FocusPane(PaneId::Contracts));
    screen(&app, &mut view, 80, 24);
    key(&mut app, &mut view, KeyCode::End);
    let end = screen(&app, &mut view, 80, 24);
    assert!(end.contains("inference SLO"), "{end}");
    snapshot!("contracts_end_80x24", end);
    act(&mut app, &mut view, Action::Key(Key::char('z')));
    key(&mut app, &mut view, KeyCode::Home);
    let zoomed = screen(&app, &mut view, 80, 24);
    assert!(zoomed.contains("zoomed, z back"), "{zoomed}");
    snapshot!("contracts_zoomed_80x24", zoomed);
}

/// The real binary in a pseudo-terminal: the keys as a terminal sends them.
mod in_a_terminal {
    use std::time::Duration;

    use crate::common::pty::Workbench;

    const PATIENCE: Duration = Duration::from_secs(30);
    const END: &[u8] = b"\x1b[F";
    const HOME: &[u8] = b"\x1b[H";
    const PAGE_DOWN: &[u8] = b"\x1b[6~";

    fn row(screen: &str, index: usize) -> String {
        screen.lines().nth(index).unwrap_or_default().trim_end().to_string()
    }

    #[test]
    fn at_80x24_end_shows_the_contracts_panes_last_lines_and_z_zooms_it_and_back() {
        let home = tempfile::tempdir().expect("tempdir");
        let mut screen = Workbench::start(&[], home.path(), 80, 24);
        screen.wait_for("the audited sample", PATIENCE, |s| s.contains("stranded spend"));
        // What reading the sample said is a banner line until Esc puts it away.
        screen.wait_for("the banner", PATIENCE, |s| s.contains("warning: reading said"));
        screen.press(b"\x1b");
        screen.wait_for("the banner put away", PATIENCE, |s| {
            !s.contains("warning: reading said")
        });
        screen.press(b"5");
        let top = screen.wait_for("the Contracts pane", PATIENCE, |s| {
            s.contains("5 Contracts") && s.contains("today as paid") && s.contains("more")
        });
        assert!(!top.contains("inference SLO"), "{top}");
        // The replay lands in the background and lengthens the pane: End until its table shows.
        let start = std::time::Instant::now();
        let end = loop {
            screen.press(END);
            std::thread::sleep(Duration::from_millis(300));
            let text = screen.text();
            if text.contains("inference SLO") && text.contains("queue in the split") {
                break text;
            }
            assert!(start.elapsed() < PATIENCE, "End never showed the replay table:\n{text}");
        };
        // Row 2 is the pane's top border, row 22 its bottom one (the key hints hold arrows too).
        assert!(
            row(&end, 2).contains("↑") && !row(&end, 22).contains("more"),
            "at the end, lines above only:\n{end}"
        );
        screen.press(HOME);
        screen.wait_for("the top again", PATIENCE, |s| s.contains("today as paid"));
        screen.press(PAGE_DOWN);
        screen.wait_for("a page down", PATIENCE, |s| {
            !s.contains("today as paid") && row(s, 2).contains("↑")
        });
        // z: the pane takes the tab bar's row; the title says how back.
        let tabs = row(&screen.text(), 1);
        assert!(
            tabs.contains("Work") && tabs.contains("Forecast"),
            "the tab bar: {tabs}"
        );
        screen.press(b"z");
        // (Waited for whole: a frame may be read half written.)
        screen.wait_for("the zoom and its key hint", PATIENCE, |s| {
            row(s, 1).contains("5 Contracts · zoomed") && row(s, 23).contains("z unzoom")
        });
        screen.press(b"z");
        screen.wait_for("the tab bar back", PATIENCE, |s| row(s, 1) == tabs);
        screen.press(b"q");
        screen.wait_exit(PATIENCE);
    }

    #[test]
    fn at_200x60_z_gives_the_focused_pane_the_whole_screen_and_esc_gives_it_back() {
        let home = tempfile::tempdir().expect("tempdir");
        let mut screen = Workbench::start(&[], home.path(), 200, 60);
        screen.wait_for("the audited sample", PATIENCE, |s| s.contains("stranded spend"));
        screen.press(b"5z");
        // The whole board alone (waited for whole: a frame may be read half written).
        screen.wait_for("the zoom", PATIENCE, |s| {
            s.contains("5 Contracts · zoomed") && !s.contains("1 Workloads") && s.contains("paid back")
        });
        screen.press(b"\x1b");
        screen.wait_for("the grid back", PATIENCE, |s| {
            s.contains("1 Workloads") && s.contains("6 Forecast") && !s.contains("zoomed")
        });
        screen.press(b"q");
        screen.wait_exit(PATIENCE);
    }
}

/// The figures of a pane's every line: words with a digit, outside the charts' glyphs, and
/// leaving out what only says a chart's resolution (`30 h/column`).
fn figures(app: &App, pane: PaneId, width: u16, height: u16) -> std::collections::BTreeSet<String> {
    let mut app = app.clone();
    let mut view = ViewState::default();
    act(&mut app, &mut view, Action::FocusPane(pane));
    let drawn = |c: char| ('\u{2500}'..='\u{28ff}').contains(&c) && !"─│→".contains(c);
    every_line(&mut app, &mut view, pane, width, height)
        .lines()
        .filter(|line| !line.contains("h/column"))
        .flat_map(|line| line.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|word| word.chars().any(|c| c.is_ascii_digit()) && !word.chars().any(drawn))
        .collect()
}

#[test]
fn no_pane_shows_a_figure_at_80x24_that_200x60_leaves_out_or_the_other_way() {
    let app = app();
    for pane in PaneId::ALL {
        let narrow = figures(&app, pane, 80, 24);
        let wide = figures(&app, pane, 200, 60);
        assert!(narrow.len() > 3, "{pane:?} shows figures: {narrow:?}");
        assert_eq!(
            narrow.difference(&wide).collect::<Vec<_>>(),
            Vec::<&String>::new(),
            "{pane:?}: at 80×24 only"
        );
        assert_eq!(
            wide.difference(&narrow).collect::<Vec<_>>(),
            Vec::<&String>::new(),
            "{pane:?}: at 200×60 only"
        );
    }
}
