//! The pictures in `docs/pictures/` are what the binary draws today: `gpuplan report --logs
//! sample-data/jobs-90d.csv --svg DIR` on the built-in plan, compared byte for byte. When a
//! change moves a figure or a chart, this fails and names the command that draws them again.

use crate::common;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const REGENERATE: &str = "cargo run --release -- report --logs sample-data/jobs-90d.csv --svg docs/pictures";

#[test]
fn the_guides_pictures_are_what_the_binary_draws() {
    let home = tempfile::tempdir().expect("tempdir");
    let drawn = home.path().join("svg");
    let sample = format!("{ROOT}/sample-data/jobs-90d.csv");
    let drawn_shown = drawn.display().to_string();
    let run = common::gpuplan_in(home.path(), &["report", "--logs", &sample, "--svg", &drawn_shown]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut names: Vec<String> = std::fs::read_dir(&drawn)
        .expect("the SVG folder")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "forecast.svg",
            "mfu-vs-cost.svg",
            "replay.svg",
            "tornado.svg",
            "utilization.svg",
            "waterfall.svg"
        ]
    );
    for name in names {
        let now = std::fs::read(drawn.join(&name)).expect("drawn");
        let checked_in = std::fs::read(format!("{ROOT}/docs/pictures/{name}")).unwrap_or_default();
        assert!(
            now == checked_in,
            "docs/pictures/{name} is not what the binary draws now: draw them again with `{REGENERATE}`"
        );
    }
}
