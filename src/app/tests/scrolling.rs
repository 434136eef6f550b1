//! Scrolling and zoom as values: paging keys become scroll effects for the view, an arrow with
//! nothing more to select scrolls, the wheel moves the pane under the pointer and nothing else,
//! `z` and Esc zoom and unzoom, and a user key map rebinds them as any other command.

use super::*;
use crate::app::ScrollBy;

fn scrolls(effects: &[Effect]) -> Vec<(PaneId, ScrollBy)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Scroll { pane, by } => Some((*pane, *by)),
            _ => None,
        })
        .collect()
}

#[test]
fn paging_keys_scroll_the_focused_pane() {
    let mut app = app();
    run(&mut app, CommandId::FocusRisk);
    let cases = [
        (KeyCode::PageDown, ScrollBy::Pages(1)),
        (KeyCode::PageUp, ScrollBy::Pages(-1)),
        (KeyCode::Home, ScrollBy::Top),
        (KeyCode::End, ScrollBy::Bottom),
    ];
    for (code, by) in cases {
        let before = app.cursors;
        assert_eq!(
            scrolls(&press(&mut app, Key::plain(code))),
            [(PaneId::Risk, by)],
            "{code:?}"
        );
        assert_eq!(app.cursors, before, "{code:?} moves no selection");
    }
}

#[test]
fn an_arrow_with_nothing_more_to_select_scrolls_a_line() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    // The first accelerator: Up has nothing above it.
    assert_eq!(
        scrolls(&run(&mut app, CommandId::Up)),
        [(PaneId::Mfu, ScrollBy::Lines(-1))]
    );
    // Down selects the next one and scrolls nothing.
    assert!(scrolls(&run(&mut app, CommandId::Down)).is_empty());
    assert_eq!(app.cursors.accelerator, 1);
    let last = app.plan.accelerators.len() - 1;
    for _ in 1..last {
        run(&mut app, CommandId::Down);
    }
    assert_eq!(app.cursors.accelerator, last);
    assert_eq!(
        scrolls(&run(&mut app, CommandId::Down)),
        [(PaneId::Mfu, ScrollBy::Lines(1))]
    );
    assert_eq!(app.cursors.accelerator, last);
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer_and_changes_nothing_else() {
    let mut app = app();
    run(&mut app, CommandId::FocusMfu);
    let cursors = app.cursors;
    let effects = update(
        &mut app,
        Action::Scroll {
            pane: PaneId::Forecast,
            lines: -3,
        },
    );
    assert_eq!(scrolls(&effects), [(PaneId::Forecast, ScrollBy::Lines(-3))]);
    assert_eq!(effects.len(), 1);
    assert_eq!(app.focus, PaneId::Mfu);
    assert_eq!(app.cursors, cursors);
}

#[test]
fn z_zooms_and_z_or_esc_unzooms_after_a_drill_is_backed_out_of() {
    let mut app = app();
    press(&mut app, Key::char('z'));
    assert!(app.zoomed);
    press(&mut app, Key::char('z'));
    assert!(!app.zoomed);
    press(&mut app, Key::char('z'));
    // Esc backs out of the innermost first: a drill, then the zoom, then the banner.
    app.workloads_view = WorkloadsView::Cluster { cluster: 0 };
    app.banner = Some(Banner {
        level: BannerLevel::Info,
        text: "note".to_string(),
    });
    press(&mut app, Key::plain(KeyCode::Esc));
    assert_eq!(app.workloads_view, WorkloadsView::Fleet);
    assert!(app.zoomed);
    press(&mut app, Key::plain(KeyCode::Esc));
    assert!(!app.zoomed);
    assert!(app.banner.is_some());
    press(&mut app, Key::plain(KeyCode::Esc));
    assert!(app.banner.is_none());
}

#[test]
fn a_user_key_map_rebinds_scrolling_and_zoom() {
    let user = vec![
        ("pane.zoom".to_string(), vec!["f".to_string()]),
        ("scroll.page_down".to_string(), vec!["space".to_string()]),
    ];
    let (keymap, problems) = command::KeyMap::default().with_user_bindings(&user);
    assert!(problems.is_empty(), "{problems:?}");
    let mut app = app();
    app.keymap = keymap;
    assert!(press(&mut app, Key::char('z')).is_empty());
    assert!(!app.zoomed, "z is no longer bound");
    press(&mut app, Key::char('f'));
    assert!(app.zoomed);
    assert_eq!(
        scrolls(&press(&mut app, Key::char(' '))),
        [(PaneId::Workloads, ScrollBy::Pages(1))]
    );
}
