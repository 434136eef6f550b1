//! The real binary in a pseudo-terminal, read like a screen (vt100): start on the sample,
//! see the plan file edited on disk show up (and a broken edit reported), move an MFU slider,
//! read the new cost, save (only the moved value's line changes), quit; click and drag a growth
//! slider of the Forecast pane and save it.

use crate::common;

use std::time::Duration;

use common::pty::Workbench;
use gpuplan::config::catalog::builtin;
use gpuplan::config::plan_file::{DEFAULT_PLAN_TOML, read_plan_text};
use gpuplan::model::evaluate::{MfuSource, training_run};
use gpuplan::shared::format::usd_compact;

const PATIENCE: Duration = Duration::from_secs(30);

/// The cost shown at the end of an accelerator's slider line.
fn slider_cost(screen: &str, accelerator: &str) -> Option<String> {
    screen
        .lines()
        .flat_map(|l| l.split(['┃', '│']))
        .find(|part| part.trim_start().starts_with(accelerator) && part.contains('●'))
        .and_then(|part| part.split_whitespace().last().map(str::to_string))
}

fn run_cost(plan_text: &str, accelerator: usize, mfu: f64) -> String {
    let catalog = builtin().catalog;
    let plan = read_plan_text("plan.toml", plan_text, &catalog).expect("plan");
    let choice = &plan.accelerators[accelerator];
    let run = training_run(&plan, &catalog, choice, mfu, MfuSource::Slider).expect("run");
    usd_compact(run.cost_usd)
}

#[test]
fn slider_and_disk_edits_reach_the_screen() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan_path = home.path().join("plan.toml");
    std::fs::write(&plan_path, DEFAULT_PLAN_TOML).expect("write plan");

    let mut screen = Workbench::start(&["--plan".as_ref(), plan_path.as_os_str()], home.path(), 200, 60);

    // First frame, then the audit of the sample.
    let h100_at_45 = run_cost(DEFAULT_PLAN_TOML, 0, 0.45);
    screen.wait_for("the H100 slider", PATIENCE, |s| {
        slider_cost(s, "h100-sxm").as_deref() == Some(h100_at_45.as_str())
    });
    screen.wait_for("the audited sample", PATIENCE, |s| s.contains("stranded spend"));

    // Someone edits the plan in their editor: Trainium2 at 30 % MFU.
    let edited = DEFAULT_PLAN_TOML.replacen("id = \"trainium2\"\nmfu = 0.45", "id = \"trainium2\"\nmfu = 0.30", 1);
    assert_ne!(edited, DEFAULT_PLAN_TOML, "the fixture must change");
    let trn2_at_30 = run_cost(&edited, 2, 0.30);
    std::fs::write(&plan_path, &edited).expect("edit on disk");
    screen.wait_for("the edit on disk", PATIENCE, |s| {
        slider_cost(s, "trainium2").as_deref() == Some(trn2_at_30.as_str())
    });

    // A save that does not parse: the last good plan stays, the banner says where.
    let broken = edited.replacen("id = \"trainium2\"\nmfu = 0.30", "id = \"trainium2\"\nmfu = fast", 1);
    std::fs::write(&plan_path, &broken).expect("broken edit on disk");
    // The banner names the broken line, counted in the file rather than pinned here.
    let broken_line = broken.lines().position(|l| l == "mfu = fast").expect("the broken line") + 1;
    let place = format!("plan.toml:{broken_line}:");
    let shown = screen.wait_for("the error banner", PATIENCE, |s| {
        s.contains("error:") && s.contains(place.as_str())
    });
    assert_eq!(slider_cost(&shown, "trainium2").as_deref(), Some(trn2_at_30.as_str()));
    std::fs::write(&plan_path, &edited).expect("fixed on disk");
    screen.wait_for("the banner to clear", PATIENCE, |s| !s.contains("error:"));

    // Move the H100 slider up by four fine steps: 45 % -> 47 %.
    screen.press(b"2");
    for _ in 0..4 {
        screen.press(b"\x1b[C");
    }
    let h100_at_47 = run_cost(&edited, 0, 0.47);
    assert_ne!(h100_at_47, h100_at_45);
    let shown = screen.wait_for("the moved slider", PATIENCE, |s| {
        slider_cost(s, "h100-sxm").as_deref() == Some(h100_at_47.as_str())
    });
    assert!(shown.contains("47.0 %"), "{shown}");
    let header = shown.lines().next().unwrap_or_default();
    assert!(
        header.contains("Seed worked examples *"),
        "the unsaved marker after the plan's name: {header}"
    );

    // Ctrl-S saves into the planner's file: only the moved value's line changes.
    screen.press(b"\x13");
    screen.wait_for("the save", PATIENCE, |s| {
        s.contains("saved") && !s.contains("Seed worked examples *")
    });
    let saved = std::fs::read_to_string(&plan_path).expect("plan");
    let changed: Vec<(&str, &str)> = edited
        .lines()
        .zip(saved.lines())
        .filter(|(before, after)| before != after)
        .collect();
    assert_eq!(edited.lines().count(), saved.lines().count(), "{saved}");
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0], ("mfu = 0.45", "mfu = 0.47"), "{changed:?}");

    // One more step, then quit: it asks first, and y leaves without writing.
    screen.press(b"\x1b[C");
    screen.press(b"q");
    screen.wait_for("the unsaved-edits question", PATIENCE, |s| s.contains("not saved"));
    screen.press(b"y");
    let status = screen.wait_exit(PATIENCE);
    assert!(status.success(), "{status:?}");
    assert_eq!(
        std::fs::read_to_string(&plan_path).expect("plan"),
        saved,
        "quit without saving wrote nothing"
    );
}

/// The screen row and the first and last columns (0-based) of the inference growth track.
fn inference_growth_track(screen: &str) -> Option<(usize, usize, usize)> {
    screen.lines().enumerate().find_map(|(row, line)| {
        let chars: Vec<char> = line.chars().collect();
        let label: Vec<char> = "inference  ".chars().collect();
        let at = chars.windows(label.len()).position(|w| w == label.as_slice())?;
        let first = at + label.len();
        let length = chars[first..]
            .iter()
            .take_while(|c| matches!(c, '━' | '●' | '─'))
            .count();
        (length >= 5).then_some((row, first, first + length - 1))
    })
}

/// An SGR mouse report of button `code` at a 0-based cell; `press` or release.
fn mouse(code: u8, column: usize, row: usize, press: bool) -> Vec<u8> {
    format!(
        "\x1b[<{code};{};{}{}",
        column + 1,
        row + 1,
        if press { 'M' } else { 'm' }
    )
    .into_bytes()
}

#[test]
fn a_growth_slider_follows_a_click_and_a_drag_and_is_saved() {
    let home = tempfile::tempdir().expect("tempdir");
    let plan_path = home.path().join("plan.toml");
    std::fs::write(&plan_path, DEFAULT_PLAN_TOML).expect("write plan");
    let mut screen = Workbench::start(&["--plan".as_ref(), plan_path.as_os_str()], home.path(), 200, 60);
    let shown = screen.wait_for("the fitted forecast", PATIENCE, |s| {
        s.contains("fitted ×") && inference_growth_track(s).is_some()
    });
    let (row, first, last) = inference_growth_track(&shown).expect("the inference growth slider");

    // A click at the track's right end: ten times a year, the slider's top.
    screen.press(&mouse(0, last, row, true));
    screen.press(&mouse(0, last, row, false));
    screen.wait_for("×10 a year", PATIENCE, |s| s.contains("×10.00/yr"));

    // A drag from the middle to the left end: a tenth a year.
    screen.press(&mouse(0, (first + last) / 2, row, true));
    screen.press(&mouse(32, first, row, true));
    screen.press(&mouse(0, first, row, false));
    screen.wait_for("×0.1 a year", PATIENCE, |s| s.contains("×0.10/yr"));

    screen.press(b"\x13");
    screen.wait_for("the save", PATIENCE, |s| s.contains("saved"));
    let saved = std::fs::read_to_string(&plan_path).expect("plan");
    let plan = read_plan_text("plan.toml", &saved, &builtin().catalog).expect("the saved plan reads");
    let forecast = plan.forecast.expect("a [forecast] table");
    assert_eq!(forecast.growth.inference, Some(0.1), "{saved}");
    assert!(!forecast.training_run, "{saved}");
    screen.press(b"q");
    let status = screen.wait_exit(PATIENCE);
    assert!(status.success(), "{status:?}");
}
