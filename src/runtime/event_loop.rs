//! The loop: wait for input or a result, apply everything pending, then draw once if anything
//! changed, inside synchronized-update markers so the terminal shows whole frames. No timer:
//! an idle workbench writes nothing.

use std::io::{self, Write};
use std::thread;

use crossbeam_channel::{Receiver, select, unbounded};
use crossterm::event::{Event, MouseButton, MouseEventKind};
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::layout::Rect;

use super::Startup;
use super::effects::Runtime;
use super::keys::key_of;
use super::recovery::{Keeper, farewell, write_kept};
use super::terminal::{TerminalGuard, Tui};
use super::worker::Worker;
use crate::app::field::Field;
use crate::app::{Action, App, Banner, BannerLevel, Overlay, changes_nothing, update};
use crate::ui::ViewState;
use crate::ui::layout::{areas, pane_at, tab_at};
use crate::ui::panes::{slider_track_on, slider_value_at, sliders};
use crate::ui::theme::Theme;

/// Lines a notch of the mouse wheel scrolls, as most terminals' own scrollback does.
const WHEEL_LINES: i32 = 3;

pub fn run(startup: Startup) -> io::Result<()> {
    let Startup {
        mut app,
        themes,
        warnings,
        read_cache,
    } = startup;
    if let Some(first) = warnings.first() {
        let more = if warnings.len() > 1 {
            format!(" (and {} more)", warnings.len() - 1)
        } else {
            String::new()
        };
        app.banner = Some(Banner {
            level: BannerLevel::Warning,
            text: format!("{first}{more}"),
        });
    }
    let (results_tx, results) = unbounded::<Action>();
    let mut runtime = Runtime {
        worker: Worker::start(app.catalog.clone(), read_cache, results_tx.clone()),
        watcher: None,
        results: results_tx,
        catalog: app.catalog.clone(),
    };
    // Before the screen is taken, so a signal from then on finds the terminal given back.
    let signals = super::signals::listen().unwrap_or_else(|_| crossbeam_channel::never());
    let mut guard = TerminalGuard::enter()?;
    let input = spawn_input_reader();
    let start = app.start();
    let mut view = ViewState::default();
    draw(&mut guard.terminal, &app, &mut view, &themes)?;
    runtime.execute(&mut app, &mut view, start);
    let mut keeper = Keeper::default();
    keeper.follow(&app);
    let mut drag: Option<Field> = None;
    while !app.quit {
        let mut changed = select! {
            recv(signals) -> signal => match signal {
                Ok(signal) => super::signals::die(signal),
                Err(_) => false,
            },
            recv(input) -> event => match event {
                Ok(event) => on_event(&mut app, &mut runtime, &mut view, &mut guard.terminal, event, &mut drag),
                Err(_) => break,
            },
            recv(results) -> action => match action {
                Ok(action) => apply(&mut app, &mut runtime, &mut view, action),
                Err(_) => break,
            },
        };
        // Everything already waiting goes in before the frame: a held key draws once.
        loop {
            if let Ok(event) = input.try_recv() {
                changed |= on_event(&mut app, &mut runtime, &mut view, &mut guard.terminal, event, &mut drag);
            } else if let Ok(action) = results.try_recv() {
                changed |= apply(&mut app, &mut runtime, &mut view, action);
            } else {
                break;
            }
        }
        keeper.follow(&app);
        if changed && !app.quit {
            draw(&mut guard.terminal, &app, &mut view, &themes)?;
        }
    }
    if app.quit {
        super::recovery::clean_quit(&app);
        drop(guard);
        // On the normal screen, once the workbench is gone: where this session's save went.
        if let Some(path) = &app.written {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            let _ = writeln!(io::stdout(), "gpuplan: the plan was saved to {}", path.display());
        }
    } else {
        // The terminal went away (a hang-up closes input): not a quit the user chose.
        let written = write_kept();
        drop(guard);
        if let Some(line) = farewell(written) {
            // Not eprintln!: with the terminal gone it would panic.
            let _ = writeln!(io::stderr(), "{line}");
        }
    }
    Ok(())
}

fn spawn_input_reader() -> Receiver<Event> {
    let (tx, rx) = unbounded();
    thread::Builder::new()
        .name("gpuplan-input".to_string())
        .spawn(move || {
            while let Ok(event) = crossterm::event::read() {
                if tx.send(event).is_err() {
                    break;
                }
            }
        })
        .ok();
    rx
}

/// Applies an action; true when the screen may have changed and wants a new frame.
fn apply(app: &mut App, runtime: &mut Runtime, view: &mut ViewState, action: Action) -> bool {
    let redraw = !changes_nothing(app, &action);
    let effects = update(app, action);
    runtime.execute(app, view, effects);
    redraw
}

pub fn draw(terminal: &mut Tui, app: &App, view: &mut ViewState, themes: &[Theme]) -> io::Result<()> {
    let fallback;
    let theme = match themes.get(app.theme).or_else(|| themes.first()) {
        Some(theme) => theme,
        None => {
            fallback = Theme::monochrome();
            &fallback
        }
    };
    crossterm::queue!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
    terminal.draw(|frame| crate::ui::render(app, view, theme, frame))?;
    crossterm::queue!(terminal.backend_mut(), EndSynchronizedUpdate)?;
    terminal.backend_mut().flush()
}

fn on_event(
    app: &mut App,
    runtime: &mut Runtime,
    view: &mut ViewState,
    terminal: &mut Tui,
    event: Event,
    drag: &mut Option<Field>,
) -> bool {
    match event {
        Event::Key(key) => match key_of(key) {
            Some(key) => apply(app, runtime, view, Action::Key(key)),
            None => false,
        },
        Event::Mouse(mouse) => {
            let Ok(size) = terminal.size() else {
                return false;
            };
            let size = Rect::new(0, 0, size.width, size.height);
            // The mouse works the panes only when they are what the user sees.
            if app.overlay != Overlay::None || !crate::ui::draws_panes(size) {
                *drag = None;
                return false;
            }
            let layout = areas(size, app);
            let slider_under = |x: u16, y: u16| -> Option<(Field, f64)> {
                sliders(app).into_iter().find_map(|field| {
                    let track = slider_track_on(&layout, view, field)?;
                    (y == track.y && x >= track.x && x < track.x + track.width)
                        .then(|| (field, slider_value_at(field, track, x)))
                })
            };
            match mouse.kind {
                MouseEventKind::Down(MouseButton::Left) => {
                    if let Some((field, value)) = slider_under(mouse.column, mouse.row) {
                        *drag = Some(field);
                        return apply(app, runtime, view, Action::SetField { field, value });
                    }
                    *drag = None;
                    match tab_at(&layout, mouse.column, mouse.row).or_else(|| pane_at(&layout, mouse.column, mouse.row))
                    {
                        Some(pane) => apply(app, runtime, view, Action::FocusPane(pane)),
                        None => false,
                    }
                }
                MouseEventKind::Drag(MouseButton::Left) => {
                    let Some(field) = *drag else {
                        return false;
                    };
                    match slider_track_on(&layout, view, field) {
                        Some(track) => apply(
                            app,
                            runtime,
                            view,
                            Action::SetField {
                                field,
                                value: slider_value_at(field, track, mouse.column),
                            },
                        ),
                        None => false,
                    }
                }
                MouseEventKind::Up(_) => {
                    *drag = None;
                    false
                }
                MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                    let lines = if mouse.kind == MouseEventKind::ScrollDown {
                        WHEEL_LINES
                    } else {
                        -WHEEL_LINES
                    };
                    // The pane under the pointer, else (the title or key-hint line) the focused one.
                    let pane = pane_at(&layout, mouse.column, mouse.row).unwrap_or(app.focus);
                    apply(app, runtime, view, Action::Scroll { pane, lines })
                }
                _ => false,
            }
        }
        Event::Resize(..) => true,
        _ => false,
    }
}
