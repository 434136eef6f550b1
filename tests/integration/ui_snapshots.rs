//! The workbench drawn into ratatui's TestBackend on the shipped sample: each pane at 80×24
//! (one pane with tabs) and the whole workbench at 200×60, snapshotted with insta; colours
//! checked where they carry meaning; every size down to 1×1 draws without a panic.

use std::sync::OnceLock;

use gpuplan::app::command::CommandId;
use gpuplan::app::key::{Key, KeyCode};
use gpuplan::app::{Action, App, PaneId, update};
use gpuplan::runtime::sample_workbench;
use gpuplan::runtime::theme_files::load_themes;
use gpuplan::shared::format::usd_compact;
use gpuplan::ui::ViewState;
use gpuplan::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// `insta::assert_snapshot!` into `tests/snapshots/ui_snapshots__NAME.snap`, where these
/// snapshots lived when this module was a test binary of its own.
macro_rules! snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| insta::assert_snapshot!(format!("ui_snapshots__{}", $name), $value));
    }};
}

/// The workbench on the sample, read and audited once; each test gets its own copy.
fn app() -> App {
    static LOADED: OnceLock<App> = OnceLock::new();
    LOADED
        .get_or_init(|| sample_workbench(None).expect("the sample audits"))
        .clone()
}

fn dark() -> Theme {
    load_themes(None, false).themes.remove(0)
}

fn draw(app: &App, theme: &Theme, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|frame| gpuplan::ui::render(app, &mut ViewState::default(), theme, frame))
        .expect("draws");
    terminal
}

fn text(terminal: &Terminal<TestBackend>) -> String {
    let buffer = terminal.backend().buffer();
    let width = buffer.area.width as usize;
    buffer
        .content
        .chunks(width.max(1))
        .map(|row| {
            row.iter()
                .map(|c| c.symbol())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn screen(app: &App, width: u16, height: u16) -> String {
    text(&draw(app, &dark(), width, height))
}

/// A frame drawn with the view state the runtime keeps between frames.
fn next_frame(app: &App, view: &mut ViewState, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|frame| gpuplan::ui::render(app, view, &dark(), frame))
        .expect("draws");
    text(&terminal)
}

/// The rows inside the one pane of a narrow screen.
fn pane_rows(shown: &str) -> Vec<&str> {
    shown
        .lines()
        .skip_while(|l| !l.starts_with('┏'))
        .skip(1)
        .take_while(|l| !l.starts_with('┗'))
        .collect()
}

/// DCGM samples read beside the log: one more line in the Workloads summary.
fn with_dcgm_samples(app: &mut App) {
    let fleet = app.fleet.as_mut().expect("the sample's fleet");
    fleet.report.measured_utilization = Some(gpuplan::model::fleet::MeasuredUtilization {
        samples: 6,
        hosts: 3,
        gpu_series: 4,
        mean_util_frac: 0.525,
        hourly_util_frac: vec![Some(0.5), None],
        threshold_frac: 0.4,
        hosts_below_threshold: Vec::new(),
    });
}

fn press(app: &mut App, keys: &[Key]) {
    for key in keys {
        update(app, Action::Key(*key));
    }
}

#[test]
fn each_pane_at_80x24() {
    for pane in PaneId::ALL {
        let mut app = app();
        update(&mut app, Action::FocusPane(pane));
        let name = pane.title().to_lowercase().replace([' ', '&'], "_");
        snapshot!(format!("pane_{name}_80x24"), screen(&app, 80, 24));
    }
}

/// The selected class's supply in the Contracts pane: its gang, what was left out and why, what
/// was taken on trust; nothing cut at 80 columns.
#[test]
fn the_contracts_pane_says_what_cannot_be_had_and_what_is_on_trust() {
    let mut app = app();
    update(&mut app, Action::FocusPane(PaneId::Contracts));
    let shown = screen(&app, 80, 60);
    for wanted in [
        "largest gang 78 GPUs of b200",
        "left out: verda-1-month, qubrid-1-year-bare-metal, civo-36-month",
        "states no fabric",
        "on trust: aws-3-year-savings-plan states no maximum",
    ] {
        assert!(shown.contains(wanted), "{wanted}:\n{shown}");
    }
    let supply_rows = pane_rows(&shown)
        .into_iter()
        .filter(|row| row.contains("left out") || row.contains("on trust") || row.contains("gang"));
    assert!(!supply_rows.into_iter().any(|row| row.contains('…')), "{shown}");
    snapshot!("pane_contracts_80x60", shown);
}

#[test]
fn the_workbench_at_200x60() {
    let app = app();
    snapshot!("workbench_200x60", screen(&app, 200, 60));
}

/// The README's picture: the workbench on the sample at a common terminal size.
#[test]
fn the_workbench_at_120x40() {
    let app = app();
    let shown = screen(&app, 120, 40);
    assert!(shown.contains("1 Workloads") || shown.contains("1 Work"), "{shown}");
    snapshot!("workbench_120x40", shown);
}

#[test]
fn each_pane_focused_at_200x60_moves_the_thick_border() {
    for pane in PaneId::ALL {
        let mut app = app();
        update(&mut app, Action::FocusPane(pane));
        let shown = screen(&app, 200, 60);
        let title = format!("┏ {} {}", pane.index() + 1, pane.title());
        assert!(shown.contains(&title), "{title} not thick:\n{shown}");
        assert_eq!(shown.matches('┏').count(), 1);
    }
}

#[test]
fn drilling_into_a_cluster_a_class_and_a_job() {
    let mut app = app();
    press(&mut app, &[Key::plain(KeyCode::Enter)]);
    snapshot!("drill_cluster_80x24", screen(&app, 80, 24));
    press(&mut app, &[Key::plain(KeyCode::Enter)]);
    snapshot!("drill_class_80x24", screen(&app, 80, 24));
    press(&mut app, &[Key::plain(KeyCode::Enter)]);
    let job = screen(&app, 80, 24);
    assert!(job.contains("decided by"), "{job}");
    snapshot!("drill_job_80x24", job);
    press(
        &mut app,
        &[
            Key::plain(KeyCode::Esc),
            Key::plain(KeyCode::Esc),
            Key::plain(KeyCode::Esc),
        ],
    );
    assert!(screen(&app, 80, 24).contains("stranded spend (paid, not working)"));
}

#[test]
fn a_clusters_price_edited_in_its_drill_shows_with_the_audit_it_brought() {
    let mut app = app();
    press(&mut app, &[Key::plain(KeyCode::Enter)]);
    let classes = gpuplan::app::cluster_classes(&app, 0).len();
    let drill = screen(&app, 80, 24);
    assert!(
        drill.contains("◂ $6.88/h ▸") && drill.contains("◂ on-demand ▸"),
        "{drill}"
    );
    for _ in 0..classes {
        press(&mut app, &[Key::plain(KeyCode::Down)]);
    }
    // A coarse step: a quarter more, $6.88 to $8.60; the audit runs again on it.
    let effects = update(&mut app, Action::Key(Key::shift(KeyCode::Right)));
    let mut pipeline = gpuplan::pipeline::Pipeline::new(app.catalog.clone());
    crate::common::settle(&mut app, &mut pipeline, effects);
    let shown = screen(&app, 80, 24);
    assert!(shown.contains("◂ $8.60/h ▸"), "{shown}");
    assert!(
        shown.contains("$8.60/h · stranded"),
        "the audit's own line follows:\n{shown}"
    );
    assert!(shown.contains("Seed worked examples *"), "unsaved marker");
    assert!(shown.contains(" type "), "the value's keys in the hints:\n{shown}");
    snapshot!("drill_cluster_price_edited_80x24", shown);
}

#[test]
fn help_and_palette_overlays() {
    let mut app = app();
    update(&mut app, Action::Command(CommandId::Help));
    let help = screen(&app, 200, 60);
    // Every command with its binding and what it does, whole: at 200 columns nothing is cut.
    for command in gpuplan::app::command::COMMANDS {
        assert!(help.contains(command.name), "{} missing from help", command.name);
        assert!(help.contains(command.title), "'{}' cut in help:\n{help}", command.title);
    }
    // At 80 columns a long title wraps onto the next line under its column, never cut.
    let narrow = screen(&app, 80, 24);
    assert!(!narrow.contains('…'), "{narrow}");
    snapshot!("help_200x60", help);
    let mut app = self::app();
    update(&mut app, Action::Command(CommandId::Palette));
    press(&mut app, &[Key::char('s'), Key::char('a'), Key::char('v')]);
    snapshot!("palette_save_80x24", screen(&app, 80, 24));
}

#[test]
fn a_slider_step_is_on_screen_in_the_next_frame() {
    let mut app = app();
    update(&mut app, Action::FocusPane(PaneId::Mfu));
    let before = usd_compact(app.derived.slider_cost_usd("h100-sxm").expect("cost"));
    assert!(screen(&app, 200, 60).contains(&before));
    press(&mut app, &[Key::shift(KeyCode::Right)]);
    let after = usd_compact(app.derived.slider_cost_usd("h100-sxm").expect("cost"));
    assert_ne!(before, after);
    let shown = screen(&app, 200, 60);
    assert!(shown.contains("50.0 %"), "{shown}");
    assert!(shown.contains(&after), "{after} not on screen");
    assert!(shown.contains("Seed worked examples *"), "unsaved marker");
}

#[test]
fn colours_carry_the_cheapest_and_the_failing() {
    let mut app = app();
    update(&mut app, Action::FocusPane(PaneId::Mfu));
    let theme = dark();
    let terminal = draw(&app, &theme, 80, 24);
    let buffer = terminal.backend().buffer();
    // The sensitivity table marks the cheapest run at each MFU with * in the "good" colour.
    let shown = text(&terminal);
    let (row, line) = shown
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains('*') && l.contains("trainium2"))
        .expect("a cheapest row");
    let column = line.chars().position(|c| c == '*').expect("star") as u16;
    let cell = &buffer[(column, row as u16)];
    assert_eq!(cell.fg, theme.good.fg.expect("good colour"));
    // The failing rule check is drawn in the "bad" colour.
    update(&mut app, Action::FocusPane(PaneId::Risk));
    let terminal = draw(&app, &theme, 80, 24);
    let shown = text(&terminal);
    let row = shown
        .lines()
        .position(|l| l.contains("✗ spot_checkpoint"))
        .expect("failing check");
    let column = shown
        .lines()
        .nth(row)
        .and_then(|l| l.chars().position(|c| c == '✗'))
        .expect("glyph") as u16;
    assert_eq!(
        terminal.backend().buffer()[(column, row as u16)].fg,
        theme.bad.fg.expect("bad colour")
    );
}

#[test]
fn no_color_still_tells_classes_and_statuses_apart_by_glyph() {
    let app = app();
    let mono = Theme::monochrome();
    let shown = text(&draw(&app, &mono, 200, 60));
    for glyph in ['█', '▓', '░', '✓', '!', '✗'] {
        assert!(shown.contains(glyph), "{glyph} missing without colour");
    }
}

#[test]
fn every_size_down_to_1x1_draws_without_panic() {
    let mut app = app();
    update(&mut app, Action::Command(CommandId::Help));
    let sizes = (1..=210)
        .step_by(7)
        .flat_map(|w| (1..=64).step_by(5).map(move |h| (w, h)));
    for (width, height) in sizes {
        for pane in PaneId::ALL {
            update(&mut app, Action::FocusPane(pane));
            draw(&app, &dark(), width, height);
        }
    }
    draw(&app, &dark(), 1, 1);
}

#[test]
fn numbers_are_never_cut_at_any_width() {
    let app = app();
    let costs: Vec<String> = app.derived.curves.iter().map(|c| usd_compact(c.slider.1)).collect();
    for width in (80..=130).chain(190..=215) {
        let mut app = self::app();
        update(&mut app, Action::FocusPane(PaneId::Mfu));
        let shown = screen(&app, width, 24);
        let sliders = shown.lines().filter(|l| l.contains('●')).count();
        assert_eq!(
            sliders,
            costs.len(),
            "{width}: one slider line per accelerator\n{shown}"
        );
        for line in shown.lines().filter(|l| l.contains('●')) {
            // A slider line ends in its cost, whole.
            let pane_text: String = line
                .split(['┃', '│'])
                .find(|p| p.contains('●'))
                .unwrap_or_default()
                .to_string();
            assert!(
                costs.iter().any(|c| pane_text.trim_end().ends_with(c.as_str())),
                "{width}: {line}"
            );
        }
    }
}

#[test]
fn compare_view_with_a_shipped_plan() {
    let mut app = app();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/plans/h200-reserved.toml");
    let text = std::fs::read_to_string(path).expect("shipped plan");
    let plan = gpuplan::config::plan_file::read_plan_text(path, &text, &app.catalog).expect("plan");
    update(
        &mut app,
        Action::ComparePlanLoaded {
            label: "h200-reserved.toml".to_string(),
            plan: Box::new(plan),
        },
    );
    let shown = screen(&app, 200, 60);
    assert!(shown.contains("inputs that differ"), "{shown}");
    assert!(shown.contains("h200-reserved.to"), "{shown}");
    snapshot!("compare_200x60", shown);
}

#[test]
fn the_selected_row_stays_on_a_short_screen() {
    let mut app = app();
    update(&mut app, Action::FocusPane(PaneId::Risk));
    let last = app.plan.risks.len() * 2 - 1;
    for _ in 0..last {
        update(&mut app, Action::Command(CommandId::Down));
    }
    let scenario: String = app.plan.risks[last / 2].scenario.chars().take(10).collect();
    let shown = screen(&app, 80, 10);
    assert!(shown.contains(&scenario), "{scenario} scrolled away:\n{shown}");
}

#[test]
fn with_dcgm_samples_the_last_cluster_stays_on_screen_with_the_line_after_it() {
    let mut app = app();
    with_dcgm_samples(&mut app);
    let clusters = app.fleet.as_ref().map_or(0, |f| f.report.clusters.len());
    for _ in 1..clusters {
        update(&mut app, Action::Command(CommandId::Down));
    }
    let last = app
        .fleet
        .as_ref()
        .map(|f| f.report.clusters[clusters - 1].name.clone())
        .expect("a cluster");
    for height in 6..=30 {
        let shown = screen(&app, 80, height);
        let rows = pane_rows(&shown);
        // The list row (name, mix, util %), not the detail's title below the list.
        let selected = rows.iter().position(|r| r.contains(last.as_str()) && r.contains('%'));
        let Some(selected) = selected else {
            panic!("{last} scrolled away at height {height}:\n{shown}");
        };
        // The summary's DCGM line must not push the row onto the pane's edge: the line after it
        // (the column heads) shows too, as it does without DCGM samples.
        assert!(
            rows.len() < 3 || selected + 1 < rows.len(),
            "{last} on the pane's last row at height {height}:\n{shown}"
        );
    }
}

#[test]
fn the_last_job_of_a_class_stays_on_screen_at_every_height() {
    let mut app = app();
    press(&mut app, &[Key::plain(KeyCode::Enter), Key::plain(KeyCode::Enter)]);
    let (cluster, class) = match app.workloads_view {
        gpuplan::app::WorkloadsView::Class { cluster, class } => (cluster, class),
        other => panic!("a class drill: {other:?}"),
    };
    let jobs: Vec<String> = gpuplan::app::class_jobs(&app, cluster, class)
        .iter()
        .map(|j| j.name.clone().expect("the sample names its jobs"))
        .collect();
    for _ in 1..jobs.len() {
        update(&mut app, Action::Command(CommandId::Down));
    }
    let last = jobs.last().expect("a job");
    for height in 6..=30 {
        let shown = screen(&app, 80, height);
        assert!(
            pane_rows(&shown).iter().any(|r| r.contains(last.as_str())),
            "{last} scrolled away at height {height}:\n{shown}"
        );
    }
}

#[test]
fn the_workloads_window_stays_put_while_the_selection_moves_within_it() {
    let mut app = app();
    let mut view = ViewState::default();
    let clusters = app.fleet.as_ref().map_or(0, |f| f.report.clusters.len());
    // A pane five rows high: the last cluster's row brings the window down.
    next_frame(&app, &mut view, 80, 10);
    for _ in 1..clusters {
        update(&mut app, Action::Command(CommandId::Down));
        next_frame(&app, &mut view, 80, 10);
    }
    let before = next_frame(&app, &mut view, 80, 10);
    update(&mut app, Action::Command(CommandId::Up));
    let after = next_frame(&app, &mut view, 80, 10);
    assert_eq!(pane_rows(&before), pane_rows(&after), "the window moved");
    // Up to the first cluster: the window follows, keeping the line above it (the legend).
    for _ in 1..clusters {
        update(&mut app, Action::Command(CommandId::Up));
        next_frame(&app, &mut view, 80, 10);
    }
    let top = next_frame(&app, &mut view, 80, 10);
    let first = app
        .fleet
        .as_ref()
        .map(|f| f.report.clusters[0].name.clone())
        .expect("a cluster");
    let rows = pane_rows(&top);
    assert!(rows[0].starts_with("┃mix "), "{top}");
    assert!(rows[1].starts_with(&format!("┃{first}")), "{top}");
}

#[test]
fn measured_utilization_shows_beside_the_log_when_dcgm_samples_were_read() {
    let mut app = app();
    assert!(!screen(&app, 200, 60).contains("DCGM"));
    with_dcgm_samples(&mut app);
    let shown = screen(&app, 200, 60);
    assert!(shown.contains("DCGM 52 % measured · 4 GPU series"), "{shown}");
}

#[test]
fn measured_utilization_and_a_failed_pull_show_in_the_workbench() {
    use gpuplan::model::utilization::{ClusterMeasurement, apply_measurements};
    let mut app = app();
    let mut fleet = app.fleet.clone().expect("the sample is loaded");
    let cluster = &fleet.report.clusters[0];
    let measured = ClusterMeasurement {
        cluster: cluster.name.clone(),
        metric: "DCGM_FI_PROF_GR_ENGINE_ACTIVE".to_string(),
        origin: "prometheus http://127.0.0.1:9090".to_string(),
        gpu_series: 131,
        hosts: 0,
        hourly_util_frac: vec![Some(0.25); cluster.hourly.busy_gpus.len()],
    };
    let log_util = cluster.utilization_frac;
    apply_measurements(&mut fleet.report, &[measured], 0.4);
    let generation = app.generation;
    update(
        &mut app,
        Action::FleetLoaded {
            generation,
            fleet: Box::new(fleet.clone()),
        },
    );
    let shown = screen(&app, 200, 60);
    let line = format!("util 25.0 % DCGM · log {:.1} %", log_util * 100.0);
    assert!(shown.contains(&line), "{line} in\n{shown}");
    // No error: the only banner is what reading the sample said.
    assert!(
        app.banner.as_ref().is_none_or(|b| b.text.starts_with("reading said")),
        "{:?}",
        app.banner
    );
    fleet.warning = Some("prometheus http://127.0.0.1:9: cannot connect".to_string());
    update(
        &mut app,
        Action::FleetLoaded {
            generation,
            fleet: Box::new(fleet),
        },
    );
    let shown = screen(&app, 200, 60);
    assert!(
        shown.contains("prometheus http://127.0.0.1:9: cannot connect"),
        "{shown}"
    );
}

#[test]
fn a_pool_slider_in_contracts_reruns_the_replay_newest_first() {
    use gpuplan::app::Effect;
    let mut app = app();
    let report = app.replay.result.clone().expect("the sample workbench replays");
    let base = report.split_pools[0].gpus;
    update(&mut app, Action::Command(CommandId::FocusContracts));
    let effects = update(&mut app, Action::Command(CommandId::Increase));
    assert_eq!(app.plan.replay.as_ref().and_then(|r| r.training_gpus), Some(base + 1.0));
    assert!(matches!(effects.as_slice(), [Effect::Replay { .. }]), "{effects:?}");
    let effects = update(&mut app, Action::Command(CommandId::IncreaseCoarse));
    let [Effect::Replay { generation, plan }] = effects.as_slice() else {
        panic!("a replay request: {effects:?}");
    };
    assert_eq!(plan.replay.as_ref().and_then(|r| r.training_gpus), Some(base + 9.0));
    // The first request's answer arrives late: dropped, the last result stays on screen.
    let mut stale = report.clone();
    stale.split.totals.total_usd_per_month = -1.0;
    update(
        &mut app,
        Action::ReplayLoaded {
            generation: generation - 1,
            report: Box::new(stale),
        },
    );
    assert_eq!(app.replay.result.as_ref(), Some(&report));
    // Zoomed and tall enough that the whole Contracts pane shows.
    update(&mut app, Action::Command(CommandId::Zoom));
    let shown = screen(&app, 200, 240);
    assert!(shown.contains(&format!("◂ {} ▸", base + 9.0)), "{shown}");
    assert!(shown.contains("replaying…"), "{shown}");
    // An edit elsewhere does not replay: the MFU is not a replay input.
    update(&mut app, Action::Command(CommandId::FocusMfu));
    assert!(update(&mut app, Action::Command(CommandId::Increase)).is_empty());
}

#[test]
fn a_cluster_with_jobs_that_never_started_shows_them() {
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/slurm/sacct_pending.txt");
    let mut app = sample_workbench(Some(&log)).expect("the fixture audits");
    let fleet = screen(&app, 80, 24);
    assert!(fleet.contains("pending 5 jobs · 68 GPUs"), "{fleet}");
    snapshot!("pending_fleet_80x24", fleet);
    press(&mut app, &[Key::plain(KeyCode::Enter)]);
    let cluster = screen(&app, 80, 24);
    assert!(cluster.contains("never started"), "{cluster}");
    snapshot!("pending_cluster_80x24", cluster);
}

#[test]
fn wide_panes_give_their_labels_the_room_they_have() {
    let mut app = app();
    for pane in [PaneId::Risk, PaneId::Inference] {
        update(&mut app, Action::FocusPane(pane));
        let shown = screen(&app, 200, 60);
        // The risk table's names and the inference inputs' labels are drawn whole (a risk name
        // longer than its column goes on, whole words, on the row's second line).
        for row in &app.derived.evaluation.risk.rows {
            let first_word = row.scenario.split_whitespace().next().unwrap_or_default();
            assert!(shown.contains(first_word), "{first_word}");
        }
        assert!(!shown.contains("failu…"), "{shown}");
        assert!(!shown.contains("(today's v…"), "{shown}");
    }
}

/// The workbench on the sample with the plan at `path` (a shipped plan), as `gpuplan --plan path`
/// opens it: the audit, the forecast fit and the replay run here, as the worker would run them.
fn app_with_plan(path: &str) -> App {
    let catalog = gpuplan::config::catalog::builtin().catalog;
    let text = std::fs::read_to_string(path).expect("shipped plan");
    let plan = gpuplan::config::plan_file::read_plan_text(path, &text, &catalog).expect("plan");
    let file = gpuplan::app::PlanFile {
        path: Some(std::path::PathBuf::from(path)),
        text: Some(text),
    };
    gpuplan::runtime::loaded_workbench(catalog, plan, file, None).expect("the sample loads")
}

/// docs/workbench.md's captures: `2` and four presses of → (the H100 slider from 45 % to 47 %),
/// at 200×60 and at 80×24.
#[test]
fn four_mfu_steps_for_the_guide() {
    let mut app = app();
    press(&mut app, &[Key::char('2')]);
    press(&mut app, &[Key::plain(KeyCode::Right); 4]);
    let wide = screen(&app, 200, 60);
    assert!(wide.contains("47.0 %"), "{wide}");
    snapshot!("mfu_four_steps_200x60", wide);
    snapshot!("mfu_four_steps_80x24", screen(&app, 80, 24));
}

/// docs/forecast.md's captures: `6`, `j` `j` (the inference growth row) and five presses of → on
/// the built-in plan at 80×24; two presses on sample-data/plans/growth.toml at 200×60, zoomed.
#[test]
fn forecast_growth_steps_for_the_guide() {
    let mut app = app();
    press(&mut app, &[Key::char('6'), Key::char('j'), Key::char('j')]);
    press(&mut app, &[Key::plain(KeyCode::Right); 5]);
    snapshot!("forecast_growth_steps_80x24", screen(&app, 80, 24));
    let mut app = app_with_plan(concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/plans/growth.toml"));
    press(&mut app, &[Key::char('6'), Key::char('j'), Key::char('j')]);
    press(&mut app, &[Key::plain(KeyCode::Right); 2]);
    // Zoomed: the pane's whole height holds every class's chart.
    press(&mut app, &[Key::char('z')]);
    snapshot!("forecast_growth_plan_200x60", screen(&app, 200, 60));
}

/// The sample's workbench comparing its plan with shipped plans, every row computed as the
/// worker computes it (the pipeline's one comparison, on the sample's logs).
fn compared_with(files: &[&str]) -> App {
    let mut app = app();
    let mut pipeline = gpuplan::pipeline::Pipeline::new(app.catalog.clone());
    for name in files {
        let path = format!("{}/sample-data/plans/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("shipped plan");
        let plan = gpuplan::config::plan_file::read_plan_text(&path, &text, &app.catalog).expect("plan");
        let effects = update(
            &mut app,
            Action::ComparePlanLoaded {
                label: name.to_string(),
                plan: Box::new(plan),
            },
        );
        crate::common::settle(&mut app, &mut pipeline, effects);
    }
    app
}

/// Issue 53, finding 6: the workbench's compare view holds the rows `gpuplan diff` prints for
/// the same two plans on the same logs (the board, fleet and replay rows included), each with
/// the same values and changes, and draws every one of them.
#[test]
fn the_compare_view_shows_the_rows_gpuplan_diff_prints() {
    let mut app = compared_with(&["h200-reserved.toml"]);
    let home = tempfile::tempdir().expect("home");
    let mine = home.path().join("default.toml");
    std::fs::write(&mine, crate::common::default_plan_text()).expect("plan");
    let theirs = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/plans/h200-reserved.toml");
    let run = crate::common::gpuplan_in(
        home.path(),
        &[
            "diff",
            mine.to_str().expect("path"),
            theirs,
            "--logs",
            crate::common::SAMPLE_LOG,
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let diff: serde_json::Value = serde_json::from_str(&run.stdout).expect("diff JSON");
    let comparison = app.comparison.clone().expect("a comparison");
    let keys: Vec<&str> = comparison.outputs.iter().map(|o| o.key.as_str()).collect();
    for family in [
        "board.saving_usd_per_year",
        "fleet.paid_usd_per_month",
        "replay.split.total_usd_per_month",
    ] {
        assert!(keys.contains(&family), "{family} in {keys:?}");
    }
    // Row for row the same key, label, unit, values and changes (to the last digits JSON keeps).
    let ours = serde_json::to_value(&comparison.outputs).expect("outputs");
    assert!(
        same_numbers(&ours, &diff["outputs"]),
        "the compare view's rows are diff's:\n{ours:#}\n{:#}",
        diff["outputs"]
    );
    assert_eq!(
        serde_json::to_value(&comparison.inputs).expect("inputs"),
        diff["inputs"]
    );
    // Drawn: paging down the overlay shows every row's label.
    let mut seen = String::new();
    for _ in 0..app.comparison_lines() / 40 + 2 {
        seen.push_str(&screen(&app, 200, 60));
        update(&mut app, Action::Key(Key::plain(KeyCode::PageDown)));
    }
    for output in &comparison.outputs {
        assert!(seen.contains(&output.label), "{} not drawn:\n{seen}", output.label);
    }
}

/// At 80×24 both plans' columns show, the rows scroll to the last input, and with a third plan
/// the current one stays while → brings the next.
#[test]
fn the_compare_view_fits_and_scrolls_at_80x24() {
    let mut app = compared_with(&["h200-reserved.toml"]);
    let first = screen(&app, 80, 24);
    assert!(first.contains("this plan") && first.contains("h200-reserv"), "{first}");
    snapshot!("compare_80x24", first);
    let mut seen = String::new();
    for _ in 0..app.comparison_lines() {
        update(&mut app, Action::Key(Key::plain(KeyCode::Down)));
        seen.push_str(&screen(&app, 80, 24));
    }
    for row in [
        "fleet: paid per month",
        "board: saving per year",
        "replay: the split per month",
    ] {
        assert!(seen.contains(row), "{row} scrolled past:\n{seen}");
    }
    update(&mut app, Action::Key(Key::plain(KeyCode::Home)));
    assert_eq!(screen(&app, 80, 24), first);
    update(&mut app, Action::Key(Key::plain(KeyCode::End)));
    let last = screen(&app, 80, 24);
    assert!(last.contains("workload.custom_cuda_kernels"), "{last}");
    assert!(last.contains("h200-reserv"), "the column titles stay:\n{last}");
    snapshot!("compare_80x24_end", last);

    let mut app = compared_with(&["h200-reserved.toml", "spot-heavy.toml"]);
    let before = screen(&app, 80, 24);
    assert!(
        before.contains("h200-reserv") && !before.contains("spot-heavy"),
        "{before}"
    );
    update(&mut app, Action::Key(Key::plain(KeyCode::Right)));
    let after = screen(&app, 80, 24);
    assert!(after.contains("this plan") && after.contains("spot-heavy"), "{after}");
    assert!(!after.contains("h200-reserv"), "{after}");
    update(&mut app, Action::Key(Key::plain(KeyCode::Left)));
    assert_eq!(screen(&app, 80, 24), before);
}

/// The same JSON, numbers within a relative 1e-9 (a float read back from JSON text may differ
/// in its last bit).
fn same_numbers(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_numbers(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_numbers(v, w)))
        }
        (x, y) => x == y,
    }
}

/// Issue 53, finding 7: each class's peak says it is in GPUs equivalent to its accelerator's,
/// and under its layers the Contracts pane says which mix the plan recommends buying, the
/// report's own sentence, naming the mix the report's JSON recommends.
#[test]
fn the_contracts_pane_names_its_units_and_the_purchase_it_recommends() {
    let mut app = app();
    update(&mut app, Action::FocusPane(PaneId::Contracts));
    let shown = screen(&app, 80, 24);
    assert!(shown.contains("peak 105 b200-equiv GPUs"), "{shown}");
    let home = tempfile::tempdir().expect("home");
    let run = crate::common::gpuplan_in(home.path(), &["report", "--logs", crate::common::SAMPLE_LOG]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report_text = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    let json = crate::common::sample_report_in(home.path(), "");
    let commitments = app.forecast.commitments.clone().expect("layers on the sample");
    let theme = dark();
    for class in &commitments.classes {
        let lines = gpuplan::ui::panes::layer_lines::layer_lines(&app, class.class, &theme, 200);
        let pane: String = lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
            .collect::<Vec<_>>()
            .join(" ");
        let pane = pane.split_whitespace().collect::<Vec<_>>().join(" ");
        let sentence = gpuplan::model::commitment_layers::purchase_sentence(class, commitments.horizon_months);
        assert!(pane.contains(&format!("→ {sentence}")), "{sentence}\n{pane}");
        assert!(report_text.contains(&sentence), "the report says it too: {sentence}");
        let recommended = json["commitments"]["classes"]
            .as_array()
            .expect("classes")
            .iter()
            .find(|c| c["class"] == class.class.label())
            .map(|c| c["recommended"]["buy"].clone())
            .expect("the class in the report");
        let named = match recommended.as_str() {
            Some("layers") => "buy the commitment layers",
            Some("naive_layers") => "buy the layers on seasonal naive",
            Some("low_quantile") => "buy the layers on the P10 path",
            Some("on_demand") => "buy on-demand only",
            Some("flat") => "buy today's mix held flat",
            other => panic!("recommended.buy {other:?}"),
        };
        assert!(sentence.contains(named), "{sentence} against {recommended}");
        assert!(pane.contains("price bet: "), "{pane}");
    }
}

/// A headline still waiting for the replay (or the forecast) is drawn as waiting, not current:
/// muted, with what it waits for; once the step lands it is the saving again, in colour.
#[test]
fn the_boards_headline_is_marked_while_a_step_it_reads_is_running() {
    let theme = dark();
    let saving_cell = |app: &App| {
        let terminal = draw(app, &theme, 80, 24);
        let shown = text(&terminal);
        let (row, line) = shown
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains("  saving "))
            .map(|(i, l)| (i, l.to_string()))
            .expect("the saving line");
        let column = line.find('$').map(|b| line[..b].chars().count()).expect("a figure") as u16;
        (line, terminal.backend().buffer()[(column, row as u16)].fg)
    };
    let mut app = app();
    update(&mut app, Action::FocusPane(PaneId::Contracts));
    let (settled, colour) = saving_cell(&app);
    assert!(settled.contains("growth moves it"), "{settled}");
    assert_eq!(colour, theme.good.fg.expect("good colour"));
    let steps = [
        ("audit", "auditing again…"),
        ("replay", "replaying the jobs…"),
        ("forecast", "fitting the forecast…"),
    ];
    for (working, waits_for) in steps {
        let mut waiting = app.clone();
        match working {
            "audit" => {
                waiting.fleet_status = gpuplan::app::FleetStatus::Working {
                    generation: 9,
                    what: "auditing".into(),
                }
            }
            "replay" => waiting.replay.working = true,
            _ => waiting.forecast.working = true,
        }
        let (line, colour) = saving_cell(&waiting);
        assert!(line.contains(waits_for) && line.contains("not final"), "{line}");
        assert_eq!(colour, theme.muted.fg.expect("muted colour"), "{line}");
    }
}
