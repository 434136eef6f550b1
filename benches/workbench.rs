//! The workbench's costs (README "Performance"): one full frame at 200×60, a slider step to a
//! redrawn frame, and the bytes a slider step writes to the terminal (the cost over SSH); and a
//! growth slider step of the Forecast pane, which reshapes the kept fits (no refit) and redraws.
//!
//! The frame is drawn through the real crossterm backend into a byte counter, so the figures
//! include ratatui's diff and the escape sequences. The log is the shipped sample unless
//! `GPUPLAN_BENCH_LOG` names another (the README's figures use the 10M-row log of
//! bench/audit-10m.sh); a frame reads the audit's aggregates, never the rows.
//!
//! `cargo bench --bench workbench`

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use gpuplan::app::field::{Field, ForecastField};
use gpuplan::app::key::{Key, KeyCode};
use gpuplan::app::{Action, App, PaneId, update};
use gpuplan::model::commitment_layers::commitment_report;
use gpuplan::model::forecast::PlanAssumptions;
use gpuplan::model::workload::WorkloadClass;
use gpuplan::runtime::sample_workbench;
use gpuplan::runtime::theme_files::load_themes;
use gpuplan::ui::theme::Theme;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

/// Counts what would go to the terminal.
#[derive(Default, Clone)]
struct ByteCounter {
    bytes: Arc<AtomicUsize>,
}

impl Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes.fetch_add(buf.len(), Ordering::Relaxed);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct Screen {
    terminal: Terminal<CrosstermBackend<ByteCounter>>,
    written: ByteCounter,
    /// What drawing remembers between frames, as the runtime keeps it.
    view: gpuplan::ui::ViewState,
}

fn screen() -> Screen {
    let written = ByteCounter::default();
    let terminal = Terminal::with_options(
        CrosstermBackend::new(written.clone()),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, 200, 60)),
        },
    )
    .expect("terminal");
    Screen {
        terminal,
        written,
        view: gpuplan::ui::ViewState::default(),
    }
}

/// The workbench once loaded, focused on the MFU pane; and how long the log took.
fn loaded_app() -> (App, String, Duration) {
    let log = std::env::var("GPUPLAN_BENCH_LOG").ok();
    let start = Instant::now();
    let mut app = sample_workbench(log.as_deref().map(Path::new)).expect("the log audits");
    let took = start.elapsed();
    update(&mut app, Action::FocusPane(PaneId::Mfu));
    (app, log.unwrap_or_else(|| "the shipped sample".to_string()), took)
}

fn draw(screen: &mut Screen, app: &App, theme: &Theme) -> usize {
    let before = screen.written.bytes.load(Ordering::Relaxed);
    let view = &mut screen.view;
    screen
        .terminal
        .draw(|frame| gpuplan::ui::render(app, view, theme, frame))
        .expect("draw");
    screen.written.bytes.load(Ordering::Relaxed) - before
}

fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.50), at(0.99))
}

fn benches(c: &mut Criterion) {
    let (loaded, log, audit_time) = loaded_app();
    let theme = load_themes(None, false).themes.remove(0);
    let rows: usize = loaded
        .fleet
        .as_ref()
        .map_or(0, |f| f.files.iter().map(|f| f.rows).sum());
    println!(
        "log: {log} ({rows} rows, read and audited in {:.2} s)",
        audit_time.as_secs_f64()
    );

    // Percentiles, which criterion does not report: 1,000 full frames and 1,000 steps.
    let mut app = loaded.clone();
    let mut terminal = screen();
    let mut frames = Vec::new();
    let mut full_frame_bytes = 0;
    for _ in 0..1_000 {
        // A new terminal has an empty buffer: the whole screen is drawn and written.
        let mut fresh = screen();
        let start = Instant::now();
        full_frame_bytes = draw(&mut fresh, &app, &theme);
        frames.push(start.elapsed());
    }
    let (p50, p99) = percentiles(frames);
    println!(
        "full frame 200x60: p50 {:.2} ms, p99 {:.2} ms, {full_frame_bytes} bytes",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3
    );
    let mut steps = Vec::new();
    let mut bytes = Vec::new();
    draw(&mut terminal, &app, &theme);
    for i in 0..1_000 {
        // Up and down the slider, so every step changes the numbers.
        let key = if (i / 20) % 2 == 0 {
            KeyCode::Right
        } else {
            KeyCode::Left
        };
        let start = Instant::now();
        update(&mut app, Action::Key(Key::plain(key)));
        bytes.push(draw(&mut terminal, &app, &theme));
        steps.push(start.elapsed());
    }
    let (p50, p99) = percentiles(steps);
    bytes.sort_unstable();
    println!(
        "slider step to redrawn frame: p50 {:.2} ms, p99 {:.2} ms; bytes written per step: median {}, max {}",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        bytes[bytes.len() / 2],
        bytes[bytes.len() - 1]
    );

    // The inference growth slider, up and down between ×0.5 and ×3, 1,000 steps.
    let mut app = on_growth_slider(&loaded);
    let mut terminal = screen();
    draw(&mut terminal, &app, &theme);
    let mut steps = Vec::new();
    let mut up = true;
    for _ in 0..1_000 {
        let start = Instant::now();
        growth_step(&mut app, &mut up);
        draw(&mut terminal, &app, &theme);
        steps.push(start.elapsed());
    }
    let (p50, p99) = percentiles(steps);
    println!(
        "growth slider step to redrawn frame: p50 {:.2} ms, p99 {:.2} ms ({} forecast days per class)",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        app.forecast.shown.as_ref().map_or(0, |f| f.horizon_days)
    );

    // Sizing the commitment layers of every class on its accelerator, as a growth step does.
    let size_layers = |app: &App| {
        let fits = app.forecast.fits.as_ref().expect("fits");
        let assumptions = PlanAssumptions::of(&app.plan, &app.catalog, fits);
        let contracts = app.derived.contracts.as_ref().expect("contracts");
        let inputs = gpuplan::model::commitment_layers::CommitmentInputs {
            assumptions: &assumptions,
            contracts,
            plan: &app.plan,
            catalog: &app.catalog,
            selection: &app.forecast.selection,
        };
        commitment_report(fits, &inputs)
    };
    let mut sizings = Vec::new();
    let mut layered = 0;
    for _ in 0..200 {
        let start = Instant::now();
        layered = size_layers(&loaded).map_or(0, |r| r.classes.len());
        sizings.push(start.elapsed());
    }
    let (p50, p99) = percentiles(sizings);
    println!(
        "commitment layers, every class ({layered}) over 36 months: p50 {:.2} ms, p99 {:.2} ms",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3
    );

    let mut group = c.benchmark_group("workbench");
    group.bench_function("commitment layers, every class", |b| b.iter(|| size_layers(&loaded)));
    group.bench_function("full frame 200x60", |b| {
        let app = loaded.clone();
        b.iter(|| {
            let mut fresh = screen();
            draw(&mut fresh, &app, &theme)
        });
    });
    group.bench_function("slider step to redrawn frame 200x60", |b| {
        let mut app = loaded.clone();
        let mut terminal = screen();
        draw(&mut terminal, &app, &theme);
        let mut up = true;
        b.iter(|| {
            let mfu = app.plan.accelerators[0].mfu;
            if !(0.15..=0.65).contains(&mfu) {
                up = !up;
            }
            let key = if up { KeyCode::Right } else { KeyCode::Left };
            update(&mut app, Action::Key(Key::plain(key)));
            draw(&mut terminal, &app, &theme)
        });
    });
    group.bench_function("growth slider step to redrawn frame 200x60", |b| {
        let mut app = on_growth_slider(&loaded);
        let mut terminal = screen();
        draw(&mut terminal, &app, &theme);
        let mut up = true;
        b.iter(|| {
            growth_step(&mut app, &mut up);
            draw(&mut terminal, &app, &theme)
        });
    });
    group.finish();
}

/// The workbench on the Forecast pane with the cursor on the inference growth slider.
fn on_growth_slider(loaded: &App) -> App {
    let mut app = loaded.clone();
    update(&mut app, Action::FocusPane(PaneId::Forecast));
    let growth = Field::Forecast(ForecastField::Growth(WorkloadClass::Inference));
    app.cursors.forecast_row = app.forecast_fields().iter().position(|f| *f == growth).unwrap_or(0);
    assert!(app.forecast.shown.is_some(), "the sample's forecast is fitted");
    app
}

/// One step of the inference growth slider, turning at ×0.5 and ×3.
fn growth_step(app: &mut App, up: &mut bool) {
    let growth = app
        .plan
        .forecast
        .as_ref()
        .and_then(|f| f.growth.inference)
        .unwrap_or(1.0);
    if !(0.5..=3.0).contains(&growth) {
        *up = !*up;
    }
    let key = if *up { KeyCode::Right } else { KeyCode::Left };
    update(app, Action::Key(Key::plain(key)));
}

criterion_group!(workbench, benches);
criterion_main!(workbench);
