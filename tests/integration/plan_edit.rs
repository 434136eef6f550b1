//! Saving a plan keeps the planner's file: only the lines of changed values change, arrays of
//! tables grow and shrink in place, and a save interrupted before its rename loses nothing.

use crate::common;

use std::path::Path;

use common::default_plan_text;
use gpuplan::config::atomic::{temp_path_for, write_temp_without_rename};
use gpuplan::config::catalog::builtin;
use gpuplan::config::locate::locate_key_path;
use gpuplan::config::plan_edit::{render_preserving, save_plan_preserving};
use gpuplan::config::plan_file::{parse_plan, plan_to_toml, read_plan};
use gpuplan::model::catalog::Term;
use gpuplan::model::plan::{AcceleratorChoice, Plan};
use proptest::prelude::*;

const COMMENTED: &str = include_str!("../fixtures/plans/commented-mfu.toml");

fn parsed(text: &str) -> Plan {
    parse_plan("plan.toml", text).expect("plan parses")
}

/// 1-based numbers of the lines that differ; the texts must have the same number of lines.
fn changed_line_numbers(before: &str, after: &str) -> Vec<usize> {
    assert_eq!(
        before.lines().count(),
        after.lines().count(),
        "line count changed:\n{after}"
    );
    before
        .lines()
        .zip(after.lines())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, _)| i + 1)
        .collect()
}

fn line_of(text: &str, key_path: &str) -> usize {
    let span = locate_key_path(text, key_path).expect("key is in the text");
    text[..span.start].matches('\n').count() + 1
}

#[test]
fn the_shipped_plan_with_one_mfu_changed_differs_in_exactly_that_line() {
    let original = default_plan_text();
    let mut plan = parsed(&original);
    assert_eq!(plan.accelerators[0].mfu, 0.45);
    plan.accelerators[0].mfu = 0.47;
    let saved = render_preserving(&original, &plan).expect("render");
    let mfu_line = line_of(&original, "accelerators[0].mfu");
    assert_eq!(changed_line_numbers(&original, &saved), vec![mfu_line]);
    assert_eq!(saved.lines().nth(mfu_line - 1), Some("mfu = 0.47"));
    assert_eq!(parsed(&saved), plan);
}

#[test]
fn a_pool_sized_in_the_workbench_adds_a_replay_table_and_keeps_the_rest() {
    let before = default_plan_text();
    let mut plan = parsed(&before);
    plan.replay = Some(gpuplan::model::plan::ReplayPlan {
        training_gpus: Some(112.0),
        ..Default::default()
    });
    let after = render_preserving(&before, &plan).expect("kept the layout");
    assert_eq!(parsed(&after), plan);
    assert!(after.starts_with(before.trim_end()), "the file's own text stays first");
    assert!(after.contains("training_gpus = 112"), "{after}");
}

#[test]
fn a_commented_mfu_line_keeps_its_comment() {
    let mut plan = parsed(COMMENTED);
    plan.accelerators[1].mfu = 0.52;
    let saved = render_preserving(COMMENTED, &plan).expect("render");
    let line = line_of(COMMENTED, "accelerators[1].mfu");
    assert_eq!(changed_line_numbers(COMMENTED, &saved), vec![line]);
    let before = COMMENTED.lines().nth(line - 1).expect("mfu line");
    assert!(before.ends_with("# a guess until the bake-off"), "{before}");
    assert_eq!(
        saved.lines().nth(line - 1),
        Some(before.replace("0.48", "0.52").as_str())
    );
}

#[test]
fn a_risk_probability_change_touches_its_line_only() {
    let original = default_plan_text();
    let mut plan = parsed(&original);
    plan.risks[2].probability = 0.3;
    let saved = render_preserving(&original, &plan).expect("render");
    let line = line_of(&original, "risks[2].probability");
    assert_eq!(changed_line_numbers(&original, &saved), vec![line]);
    assert_eq!(saved.lines().nth(line - 1), Some("probability = 0.3"));
}

#[test]
fn an_appended_accelerator_is_a_new_table_after_the_others() {
    let original = default_plan_text();
    let mut plan = parsed(&original);
    plan.accelerators.push(AcceleratorChoice {
        id: "h200-sxm".into(),
        mfu: 0.5,
        price_set: "market".into(),
        term: Term::OneYear,
        provider: None,
        usd_per_chip_hour: None,
        bakeoff_mfu: Some(0.48),
        mfu_range: None,
        price_range_usd_per_chip_hour: None,
    });
    let saved = render_preserving(&original, &plan).expect("render");
    assert_eq!(parsed(&saved), plan);
    // Every original line is still there, in order; the new table sits before [inference].
    let mut rest = saved.lines();
    for line in original.lines() {
        assert!(rest.any(|l| l == line), "lost or moved: {line}\n{saved}");
    }
    let added = "[[accelerators]]\nid = \"h200-sxm\"\nmfu = 0.5\nprice_set = \"market\"\nterm = \"1-year\"\nbakeoff_mfu = 0.48\n";
    let at = saved.find(added).expect("the new table, keys in the plan's order");
    assert!(at < saved.find("[inference]").expect("inference"), "{saved}");
    assert!(builtin().catalog.accelerator("h200-sxm").is_some());
    assert!(plan.problems(&builtin().catalog).is_empty());
}

#[test]
fn a_removed_risk_removes_the_surplus_table_and_keeps_the_comment_block() {
    let original = default_plan_text();
    let mut plan = parsed(&original);
    plan.risks.pop();
    let saved = render_preserving(&original, &plan).expect("render");
    assert_eq!(parsed(&saved), plan);
    assert!(!saved.contains("Memory out-of-bounds"), "{saved}");
    assert_eq!(saved.matches("[[risks]]").count(), 3);
    assert!(saved.contains("# Probability-weighted risks (seed 002, section 4C)."));
    // Only the removed table went: its header, five keys and the blank line before it.
    assert_eq!(original.lines().count() - saved.lines().count(), 7, "{saved}");
}

#[test]
fn removing_the_first_of_several_risks_shifts_by_index() {
    let original = default_plan_text();
    let mut plan = parsed(&original);
    plan.risks.remove(0);
    let saved = render_preserving(&original, &plan).expect("render");
    assert_eq!(parsed(&saved), plan);
    assert!(!saved.contains("Multi-node interconnect failure"), "{saved}");
}

#[test]
fn a_crash_between_the_temporary_write_and_the_rename_leaves_the_old_plan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("plan.toml");
    let original = default_plan_text();
    std::fs::write(&path, &original).expect("seed the plan");
    let catalog = builtin().catalog;
    let old_plan = read_plan(&path, &catalog).expect("old plan reads");

    let mut edited = old_plan.clone();
    edited.accelerators[0].mfu = 0.47;
    let new_text = render_preserving(&original, &edited).expect("render");
    // The crash: the temporary file is written and synced, the rename never happens.
    let temp = write_temp_without_rename(&path, new_text.as_bytes()).expect("temp write");
    assert!(temp.exists());
    assert_eq!(std::fs::read_to_string(&path).expect("read"), original);
    assert_eq!(read_plan(&path, &catalog).expect("still the old plan"), old_plan);

    // The next save succeeds and leaves no temporary file behind.
    save_plan_preserving(&path, Some(&original), &edited).expect("save");
    assert_eq!(read_plan(&path, &catalog).expect("new plan"), edited);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), new_text);
    assert!(!temp_path_for(&path).exists());
    assert_eq!(leftover_temporary_files(dir.path()), Vec::<String>::new());
}

fn leftover_temporary_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("list")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect()
}

#[test]
fn without_the_original_text_the_save_is_the_full_serialization() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("new.toml");
    let plan = parsed(&default_plan_text());
    save_plan_preserving(&path, None, &plan).expect("save");
    let written = std::fs::read_to_string(&path).expect("read");
    assert_eq!(written, plan_to_toml(&plan).expect("serialize"));
    assert_eq!(parsed(&written), plan);
}

#[test]
fn a_save_into_a_missing_folder_names_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("no-such-folder").join("plan.toml");
    let plan = parsed(&default_plan_text());
    let error = save_plan_preserving(&path, Some(&default_plan_text()), &plan).expect_err("no folder");
    assert!(error.to_string().contains("plan.toml"), "{error}");
    assert!(error.to_string().contains("cannot save the plan"), "{error}");
}

/// Edits to a few numeric fields, each `None` for "leave it".
#[derive(Debug, Clone)]
struct Edits {
    h100_mfu: Option<f64>,
    tpu_mfu: Option<f64>,
    chips: Option<u32>,
    tokens: Option<f64>,
    risk_probability: Option<f64>,
    node_usd_per_month: Option<f64>,
}

fn edits() -> impl Strategy<Value = Edits> {
    (
        proptest::option::of(0.01f64..=1.0),
        proptest::option::of(0.01f64..=1.0),
        proptest::option::of(1u32..100_000),
        proptest::option::of(1e9f64..1e13),
        proptest::option::of(0.0f64..=1.0),
        proptest::option::of(0.0f64..1e7),
    )
        .prop_map(
            |(h100_mfu, tpu_mfu, chips, tokens, risk_probability, node_usd_per_month)| Edits {
                h100_mfu,
                tpu_mfu,
                chips,
                tokens,
                risk_probability,
                node_usd_per_month,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_numeric_edits_round_trip_and_change_only_their_lines(e in edits()) {
        let original = default_plan_text();
        let before = parsed(&original);
        let mut plan = before.clone();
        let mut expected_lines = Vec::new();
        let mut edit = |key_path: &str, changed: bool| {
            if changed {
                expected_lines.push(line_of(&original, key_path));
            }
        };
        if let Some(v) = e.h100_mfu {
            plan.accelerators[0].mfu = v;
            edit("accelerators[0].mfu", v != before.accelerators[0].mfu);
        }
        if let Some(v) = e.tpu_mfu {
            plan.accelerators[1].mfu = v;
            edit("accelerators[1].mfu", v != before.accelerators[1].mfu);
        }
        if let Some(v) = e.chips {
            plan.training.chips = v;
            edit("training.chips", v != before.training.chips);
        }
        if let Some(v) = e.tokens {
            plan.training.tokens = v;
            edit("training.tokens", v != before.training.tokens);
        }
        if let Some(v) = e.risk_probability {
            plan.risks[1].probability = v;
            edit("risks[1].probability", v != before.risks[1].probability);
        }
        if let Some(v) = e.node_usd_per_month {
            plan.inference.node_usd_per_month = v;
            edit("inference.node_usd_per_month", v != before.inference.node_usd_per_month);
        }
        expected_lines.sort_unstable();
        let saved = render_preserving(&original, &plan).expect("render");
        prop_assert_eq!(parsed(&saved), plan);
        prop_assert_eq!(changed_line_numbers(&original, &saved), expected_lines);
        // Comments after edited values survive.
        for line in original.lines().filter_map(|l| l.split_once(" # ").map(|(_, c)| c)) {
            prop_assert!(saved.contains(line), "lost comment {}", line);
        }
    }
}
