//! `gpuplan report` for a review: the charts as text in the Markdown, and `--svg DIR` writing
//! well-formed SVG charts.

use crate::common;

use std::path::Path;

use common::{gpuplan, gpuplan_in};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");

/// Checks that tags open and close in order (`<?...?>` and `<.../>` stand alone) and counts
/// the elements; enough to catch a broken writer without an XML crate.
fn well_formed_elements(svg: &str) -> Result<usize, String> {
    let mut open: Vec<String> = Vec::new();
    let mut elements = 0;
    let mut rest = svg.trim_start();
    if !rest.starts_with("<?xml ") {
        return Err("no XML declaration".into());
    }
    while let Some(start) = rest.find('<') {
        if rest[..start].contains('&') && !rest[..start].split('&').skip(1).all(|s| s.contains(';')) {
            return Err(format!("bare & in {:?}", &rest[..start]));
        }
        let end = rest[start..].find('>').ok_or("unclosed <")? + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let last = open.pop().ok_or(format!("</{name}> closes nothing"))?;
            if last != name {
                return Err(format!("<{last}> closed by </{name}>"));
            }
            continue;
        }
        if !tag.matches('"').count().is_multiple_of(2) {
            return Err(format!("unbalanced quotes in <{tag}>"));
        }
        elements += 1;
        if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().unwrap_or_default().to_string());
        }
    }
    match open.as_slice() {
        [] => Ok(elements),
        unclosed => Err(format!("unclosed {unclosed:?}")),
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_markdown_report_carries_the_cost_chart_as_text() {
    let run = gpuplan(&["report", "--format", "markdown"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let md = &run.stdout;
    let chart_at = md.find("## Chart: training cost against MFU").expect("chart section");
    let block = &md[chart_at..];
    assert!(
        block.contains("\n```text\ntraining run cost (USD) against MFU\n"),
        "{block}"
    );
    for legend in ["a  h100-sxm: slider A at 45.0 % MFU", "b  tpu-v5e:", "c  trainium2:"] {
        assert!(block.contains(legend), "no {legend}:\n{block}");
    }
    assert!(block.contains("25.0 % MFU floor"), "{block}");
    assert!(
        md.contains("Chart: utilization over time"),
        "no logs: the shipped sample's utilization, as the workbench opens it"
    );
    // The terminal table stays as it was.
    let table = gpuplan(&["report"]);
    assert!(!table.stdout.contains("Chart:"), "{}", table.stdout);
}

#[test]
fn svg_writes_the_cost_chart_into_a_new_folder() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("review").join("charts");
    let dir_arg = dir.to_str().expect("utf-8 path");
    let run = gpuplan_in(home.path(), &["report", "--svg", dir_arg]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("TRAINING"), "the report still prints");
    let svg = read(&dir.join("mfu-vs-cost.svg"));
    well_formed_elements(&svg).expect("well-formed SVG");
    assert_eq!(
        svg.matches("<polyline").count(),
        3,
        "one per accelerator of the default plan"
    );
    assert_eq!(svg.matches("<circle").count(), 3, "the sliders");
    for label in [
        ">25 %</text>",
        ">30 %</text>",
        ">40 %</text>",
        ">10 %</text>",
        ">70 %</text>",
    ] {
        assert!(svg.contains(label), "no {label}");
    }
    // No log at all: the shipped sample, as the workbench opens it (one front door).
    assert!(dir.join("utilization.svg").exists());
    assert!(dir.join("replay.svg").exists(), "the sample's replay");
    assert!(dir.join("forecast.svg").exists(), "the sample's forecast");
    assert!(run.stderr.contains("mfu-vs-cost.svg"), "{}", run.stderr);
    assert!(run.stderr.contains("auditing the shipped sample"), "{}", run.stderr);

    // The same plan gives the same bytes.
    let again = gpuplan_in(home.path(), &["report", "--svg", dir_arg]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(read(&dir.join("mfu-vs-cost.svg")), svg);
}

#[test]
fn with_logs_the_markdown_and_the_svg_show_each_clusters_utilization() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("charts");
    let dir_arg = dir.to_str().expect("utf-8 path");
    let run = gpuplan_in(
        home.path(),
        &["report", "--format", "markdown", "--logs", SAMPLE, "--svg", dir_arg],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let md = &run.stdout;
    let section = &md[md.find("## Chart: utilization over time").expect("utilization section")..];
    let clusters = section.matches("\n```text\ncluster ").count();
    assert_eq!(clusters, 4, "the sample's four clusters:\n{section}");
    assert!(section.contains("a  allocated GPUs   b  busy GPUs"), "{section}");

    let svg = read(&dir.join("utilization.svg"));
    well_formed_elements(&svg).expect("well-formed SVG");
    assert_eq!(
        svg.matches("<polyline").count(),
        2 * clusters,
        "busy and utilized per cluster"
    );
    assert_eq!(
        svg.matches("stroke-dasharray=\"6 4\"").count(),
        clusters,
        "a capacity line each"
    );
    well_formed_elements(&read(&dir.join("mfu-vs-cost.svg"))).expect("well-formed SVG");
    let replay = read(&dir.join("replay.svg"));
    well_formed_elements(&replay).expect("well-formed SVG");
    assert_eq!(replay.matches("<polyline").count(), 6, "today and the split, per class");
    for class in ["training", "inference", "burst"] {
        assert!(replay.contains(&format!("{class} jobs waiting")), "{class} panel");
    }
    // The fan chart: per class, the history and the forecast's mean, its two bands, and a
    // dotted line at today (and one where the 90 days of history stop carrying a year's horizon).
    let fan = read(&dir.join("forecast.svg"));
    well_formed_elements(&fan).expect("well-formed SVG");
    assert_eq!(fan.matches("<polyline").count(), 6, "history and forecast, per class");
    assert_eq!(fan.matches("<polygon").count(), 6, "80 % and 95 % bands, per class");
    assert_eq!(
        fan.matches("stroke-dasharray=\"2 3\"").count(),
        6,
        "today and the data's reach, per class"
    );
    for class in ["training", "inference", "burst"] {
        assert!(fan.contains(&format!(">{class}: ")), "{class} panel");
    }
}

#[test]
fn an_svg_folder_that_cannot_be_made_exits_2_naming_it() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = home.path().join("taken");
    std::fs::write(&file, "a file, not a folder").expect("write");
    let run = gpuplan_in(home.path(), &["report", "--svg", file.to_str().expect("utf-8 path")]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("taken"), "{}", run.stderr);
    assert!(run.stderr.contains("cannot create the folder"), "{}", run.stderr);
}

#[test]
fn the_checker_rejects_what_it_should() {
    assert!(well_formed_elements("<?xml version=\"1.0\"?><svg><g></svg>").is_err());
    assert!(well_formed_elements("<?xml version=\"1.0\"?><svg><text>a & b</text></svg>").is_err());
    assert_eq!(
        well_formed_elements("<?xml version=\"1.0\"?><svg><line x=\"1\"/></svg>"),
        Ok(2)
    );
}
