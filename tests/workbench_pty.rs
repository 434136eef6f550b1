//! The real binary in a pseudo-terminal, read like a screen (vt100): start on the sample,
//! see the plan file edited on disk show up (and a broken edit reported), move an MFU slider,
//! read the new cost, save (only the moved value's line changes), quit.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gpuplan::config::catalog::builtin;
use gpuplan::config::plan_file::{DEFAULT_PLAN_TOML, read_plan_text};
use gpuplan::model::evaluate::{MfuSource, training_run};
use gpuplan::model::format::usd_compact;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 60;
const COLS: u16 = 200;
const ROWS_NZ: NonZeroU16 = NonZeroU16::new(ROWS).expect("rows");
const COLS_NZ: NonZeroU16 = NonZeroU16::new(COLS).expect("cols");
const PATIENCE: Duration = Duration::from_secs(30);

struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
}

impl Screen {
    fn text(&self) -> String {
        self.parser.lock().map(|p| p.screen().contents()).unwrap_or_default()
    }

    /// Waits until `ready` holds for the screen text, or fails showing the screen.
    fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.text();
            if ready(&text) {
                return text;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "timed out waiting for {what}; the screen:\n{text}"
            );
            thread::sleep(Duration::from_millis(25));
        }
    }
}

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

    let pty = native_pty_system();
    let pair = pty
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("a pseudo-terminal");
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_gpuplan"));
    command.arg("--plan");
    command.arg(&plan_path);
    command.env("TERM", "xterm-256color");
    command.env("GPUPLAN_CONFIG_DIR", home.path().join("config"));
    command.env("GPUPLAN_DATA_DIR", home.path().join("data"));
    command.env_remove("NO_COLOR");
    let mut child = pair.slave.spawn_command(command).expect("gpuplan starts");
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let mut keys = pair.master.take_writer().expect("writer");
    let parser = Arc::new(Mutex::new(vt100::Parser::new(ROWS_NZ, COLS_NZ, 0)));
    let feed = Arc::clone(&parser);
    thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buffer) {
            if n == 0 {
                break;
            }
            if let Ok(mut p) = feed.lock() {
                p.process(&buffer[..n]);
            }
        }
    });
    let screen = Screen { parser };

    // First frame, then the audit of the sample.
    let h100_at_45 = run_cost(DEFAULT_PLAN_TOML, 0, 0.45);
    screen.wait_for("the H100 slider", |s| {
        slider_cost(s, "h100-sxm").as_deref() == Some(h100_at_45.as_str())
    });
    screen.wait_for("the audited sample", |s| s.contains("stranded spend"));

    // Someone edits the plan in their editor: Trainium2 at 30 % MFU.
    let edited = DEFAULT_PLAN_TOML.replacen("id = \"trainium2\"\nmfu = 0.45", "id = \"trainium2\"\nmfu = 0.30", 1);
    assert_ne!(edited, DEFAULT_PLAN_TOML, "the fixture must change");
    let trn2_at_30 = run_cost(&edited, 2, 0.30);
    std::fs::write(&plan_path, &edited).expect("edit on disk");
    screen.wait_for("the edit on disk", |s| {
        slider_cost(s, "trainium2").as_deref() == Some(trn2_at_30.as_str())
    });

    // A save that does not parse: the last good plan stays, the banner says where.
    let broken = edited.replacen("id = \"trainium2\"\nmfu = 0.30", "id = \"trainium2\"\nmfu = fast", 1);
    std::fs::write(&plan_path, &broken).expect("broken edit on disk");
    let shown = screen.wait_for("the error banner", |s| {
        s.contains("error:") && s.contains("plan.toml:37:")
    });
    assert_eq!(slider_cost(&shown, "trainium2").as_deref(), Some(trn2_at_30.as_str()));
    std::fs::write(&plan_path, &edited).expect("fixed on disk");
    screen.wait_for("the banner to clear", |s| !s.contains("error:"));

    // Move the H100 slider up by four fine steps: 45 % -> 47 %.
    keys.write_all(b"2").expect("key");
    for _ in 0..4 {
        keys.write_all(b"\x1b[C").expect("key");
    }
    keys.flush().expect("flush");
    let h100_at_47 = run_cost(&edited, 0, 0.47);
    assert_ne!(h100_at_47, h100_at_45);
    let shown = screen.wait_for("the moved slider", |s| {
        slider_cost(s, "h100-sxm").as_deref() == Some(h100_at_47.as_str())
    });
    assert!(shown.contains("47.0 %"), "{shown}");
    assert!(shown.contains('*'), "the unsaved marker");

    // Ctrl-S saves into the planner's file: only the moved value's line changes.
    keys.write_all(b"\x13").expect("key");
    keys.flush().expect("flush");
    screen.wait_for("the save", |s| {
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
    keys.write_all(b"\x1b[C").expect("key");
    keys.write_all(b"q").expect("key");
    keys.flush().expect("flush");
    screen.wait_for("the unsaved-edits question", |s| s.contains("not saved"));
    keys.write_all(b"y").expect("key");
    keys.flush().expect("flush");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(start.elapsed() < PATIENCE, "gpuplan did not exit");
        thread::sleep(Duration::from_millis(25));
    };
    assert!(status.success(), "{status:?}");
    assert_eq!(
        std::fs::read_to_string(&plan_path).expect("plan"),
        saved,
        "quit without saving wrote nothing"
    );
}
