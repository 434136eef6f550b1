//! Two faces, one answer: the workbench's export (`X`) and `gpuplan report --format json` are
//! the same bytes, on a plan with `[[logs]]`, `[hosts]`, a users CSV and a mapping; and after
//! each input the audit or the replay reads changes on disk, they still are.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::pty::Workbench;
use common::{default_plan_text, gpuplan_in};
use gpuplan::shared::format::{usd_compact, usd_compact_signed};

const PATIENCE: Duration = Duration::from_secs(60);

const SAMPLE_LOG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");

/// The default plan reading the sample through a mapping, with host patterns and a users CSV.
fn plan_text(dir: &Path, edit: &dyn Fn(String) -> String) -> String {
    let text = default_plan_text();
    let at = text.find("\n[inference]\n").expect("the plan's [inference]") + "\n[inference]\n".len();
    let text = format!(
        "{}users_csv = \"{}\"\n{}",
        &text[..at],
        dir.join("users.csv").display(),
        &text[at..]
    );
    let text = format!(
        "{text}\n[[logs]]\npath = \"{SAMPLE_LOG}\"\nmapping = \"{}\"\n\n[hosts]\nus-east-h100 = [\"gpu-a[001-016]\"]\n",
        dir.join("jobs.mapping.toml").display()
    );
    edit(text)
}

/// The first line where two documents differ, with its number: a readable failure.
fn first_difference(left: &str, right: &str) -> String {
    let (mut l, mut r) = (left.lines(), right.lines());
    for n in 1.. {
        match (l.next(), r.next()) {
            (None, None) => return "none".to_string(),
            (a, b) if a != b => return format!("line {n}: {a:?} against {b:?}"),
            _ => {}
        }
    }
    unreachable!()
}

fn cli_report(home: &Path, plan: &Path) -> String {
    let run = gpuplan_in(
        home,
        &["report", "--plan", &plan.display().to_string(), "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// Exports until the export is `expected` (the plan on disk reaches the workbench through its
/// file watcher, a moment after the write); returns the last export.
fn export_until(screen: &mut Workbench, plan: &Path, expected: &str) -> String {
    let started = std::time::Instant::now();
    loop {
        let (json, _) = export(screen, plan);
        if json == expected || started.elapsed() > PATIENCE {
            return json;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Presses X and waits for a new export; returns its JSON and Markdown.
fn export(screen: &mut Workbench, plan: &Path) -> (String, String) {
    let json = plan.with_file_name("plan.report.json");
    let markdown = plan.with_file_name("plan.report.md");
    let _ = std::fs::remove_file(&json);
    let _ = std::fs::remove_file(&markdown);
    screen.press(b"X");
    // Each file is written whole (renamed into place); the Markdown comes second.
    screen.wait_for("the export", PATIENCE, |_| markdown.exists());
    screen.wait_for("the banner", PATIENCE, |s| s.contains("report written"));
    (
        std::fs::read_to_string(&json).expect("the JSON export"),
        std::fs::read_to_string(&markdown).expect("the Markdown export"),
    )
}

#[test]
fn the_export_is_the_reports_bytes_and_moves_with_every_input() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path();
    std::fs::write(
        dir.join("users.csv"),
        "from,location,users_frac,rtt_ms\nus-east,Virginia,0.7,40\neu-west,Dublin,0.3,90\n",
    )
    .expect("users");
    let mapping = dir.join("jobs.mapping.toml");
    std::fs::write(
        &mapping,
        "schema_version = 1\n[hosts]\nus-west-h200 = [\"gpu-b[001-004]\"]\n",
    )
    .expect("mapping");
    let plan = dir.join("plan.toml");
    std::fs::write(&plan, plan_text(dir, &|t| t)).expect("plan");

    let first = cli_report(dir, &plan);
    let mut screen = Workbench::start(&["--plan".as_ref(), plan.as_os_str()], dir, 200, 60);
    screen.wait_for("the audited sample", PATIENCE, |s| s.contains("stranded spend"));
    let (json, markdown) = export(&mut screen, &plan);
    assert!(
        json == first,
        "the workbench's export is `gpuplan report`'s JSON: {}",
        first_difference(&json, &first)
    );
    assert!(!json.contains("unsaved_edits"), "{json}");
    let cli_markdown = gpuplan_in(
        dir,
        &["report", "--plan", &plan.display().to_string(), "--format", "markdown"],
    );
    assert!(
        markdown == cli_markdown.stdout,
        "the Markdown is `--format markdown`'s: {}",
        first_difference(&markdown, &cli_markdown.stdout)
    );

    // Each input the audit or the replay reads, changed on disk; the workbench reloads it.
    type Edit = (&'static str, Box<dyn Fn(String) -> String>);
    let edits: Vec<Edit> = vec![
        (
            "hosts",
            Box::new(|t: String| t.replace("gpu-a[001-016]", "gpu-a[001-008]")),
        ),
        (
            "a cluster's GPUs",
            Box::new(|t: String| t.replacen("gpus = 192 ", "gpus = 160 ", 1)),
        ),
        (
            "the month",
            Box::new(|t: String| t.replacen("hours_per_month = 730.0", "hours_per_month = 744.0", 1)),
        ),
        (
            "a threshold",
            Box::new(|t: String| {
                t.replacen(
                    "\n[thresholds]\n",
                    "\n[thresholds]\npermanent_allocation_min_utilization_frac = 0.55\n",
                    1,
                )
            }),
        ),
        (
            "the replay's pools",
            Box::new(|t: String| format!("{t}\n[replay]\ntraining_gpus = 300\n")),
        ),
        (
            "the inference growth",
            Box::new(|t: String| format!("{t}\n[forecast.growth]\ninference = 2.0\n")),
        ),
        (
            "the checkpoint interval",
            Box::new(|t: String| {
                t.replacen(
                    "checkpoint_interval_minutes = 60.0",
                    "checkpoint_interval_minutes = 45.0",
                    1,
                )
            }),
        ),
    ];
    let baseline = first;
    let mut changed = Vec::new();
    for (what, edit) in &edits {
        let text = plan_text(dir, edit.as_ref());
        assert_ne!(text, plan_text(dir, &|t| t), "the edit of {what} must change the plan");
        std::fs::write(&plan, &text).expect("edit on disk");
        let expected = cli_report(dir, &plan);
        // The export waits for any audit or replay the reload started.
        let json = export_until(&mut screen, &plan, &expected);
        assert!(
            json == expected,
            "after changing {what}, the export is the report's JSON: {}",
            first_difference(&json, &expected)
        );
        if expected != baseline {
            changed.push(*what);
        }
        std::fs::write(&plan, plan_text(dir, &|t| t)).expect("restore");
        let restored = cli_report(dir, &plan);
        let json = export_until(&mut screen, &plan, &restored);
        assert!(
            json == restored,
            "after restoring {what}: {}",
            first_difference(&json, &restored)
        );
        assert_eq!(restored, baseline, "restoring {what} restores the report");
    }
    // The mapping file is read with the logs: a new one is read again by both faces.
    std::fs::write(
        &mapping,
        "schema_version = 1\n[hosts]\nus-west-h200 = [\"gpu-b[001-002]\"]\n",
    )
    .expect("mapping");
    let expected = cli_report(dir, &plan);
    screen.press(b"r");
    let json = export_until(&mut screen, &plan, &expected);
    assert!(
        json == expected,
        "after changing the mapping: {}",
        first_difference(&json, &expected)
    );
    for what in [
        "a cluster's GPUs",
        "the month",
        "the replay's pools",
        "the inference growth",
        "the checkpoint interval",
    ] {
        assert!(
            changed.contains(&what),
            "changing {what} must move the report: {changed:?}"
        );
    }

    // Unsaved edits: the export is the plan on screen, and says so.
    screen.press(b"2");
    screen.press(b"\x1b[C");
    let (json, _) = export(&mut screen, &plan);
    assert!(json.contains("\"unsaved_edits\": true"), "{json}");
    screen.press(b"q");
    screen.wait_for("the unsaved-edits question", PATIENCE, |s| s.contains("not saved"));
    screen.press(b"y");
    let status = screen.wait_exit(PATIENCE);
    assert!(status.success(), "{status:?}");
}

/// The shipped plans on the shipped sample: the export is the report, byte for byte, and the
/// Contracts pane shows the report's board headline beside the report's range.
#[test]
fn the_shipped_plans_export_their_reports() {
    let plans = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/plans");
    for name in ["default.toml", "h200-reserved.toml", "spot-heavy.toml", "growth.toml"] {
        let home = tempfile::tempdir().expect("tempdir");
        // A copy, so the export lands in the test's folder and not in the repository.
        let plan = home.path().join("plan.toml");
        std::fs::copy(Path::new(plans).join(name), &plan).expect("copy the plan");
        let shown = plan.display().to_string();
        let run = gpuplan_in(
            home.path(),
            &["report", "--plan", &shown, "--logs", SAMPLE_LOG, "--format", "json"],
        );
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let mut screen = Workbench::start(
            &["--plan".as_ref(), plan.as_os_str(), SAMPLE_LOG.as_ref()],
            home.path(),
            120,
            40,
        );
        screen.wait_for("the audited sample", PATIENCE, |s| s.contains("stranded"));
        let json = export_until(&mut screen, &plan, &run.stdout);
        assert!(
            json == run.stdout,
            "{name}: the export is the report: {}",
            first_difference(&json, &run.stdout)
        );
        // The board's headline and range: one figure in the report, the export and the pane,
        // the headline inside its range.
        let report: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        let w = &report["waterfall"];
        let number = |v: &serde_json::Value| v.as_f64().unwrap_or_else(|| panic!("{name}: a number: {v}"));
        let headline = number(&w["saving_usd_per_year"]);
        let (p10, p90) = (
            number(&w["range"]["p10_usd_per_year"]),
            number(&w["range"]["p90_usd_per_year"]),
        );
        assert!(
            (p10..=p90).contains(&headline),
            "{name}: {headline} outside {p10}–{p90}"
        );
        let saving_shown = format!("{}/yr", usd_compact(headline));
        let range_shown = format!("{}–{}", usd_compact_signed(p10), usd_compact_signed(p90));
        // The Contracts pane, zoomed and scrolled to its top (Home): the board's lines all on
        // screen at 120×40.
        screen.press(b"5z\x1b[H");
        screen.wait_for("the board's headline and range in the pane", PATIENCE, |s| {
            s.lines().any(|l| l.contains("saving") && l.contains(&saving_shown))
                && s.lines()
                    .any(|l| l.contains("range P10–P90") && l.contains(&range_shown))
        });
        screen.press(b"q");
        let status = screen.wait_exit(PATIENCE);
        assert!(status.success(), "{name}: {status:?}");
    }
}

#[test]
fn an_export_without_a_plan_file_goes_to_the_data_folder_and_says_where() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut screen = Workbench::start(&[], home.path(), 200, 60);
    screen.wait_for("the audited sample", PATIENCE, |s| s.contains("stranded spend"));
    screen.press(b"X");
    let reports = home.path().join("data").join("reports");
    let markdown = reports.join("gpuplan.report.md");
    screen.wait_for("the export", PATIENCE, |_| markdown.exists());
    assert!(reports.join("gpuplan.report.json").exists());
    // The banner names the folder, not a bare file name in whatever folder the user was in.
    screen.wait_for("the banner naming the folder", PATIENCE, |s| {
        s.contains("report written") && s.contains("reports/gpuplan.report.json")
    });
}
