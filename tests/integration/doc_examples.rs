//! Every example of the README and `docs/` is the binary's own output, checked on each run:
//!
//! - each ```` ```console ```` block is run by trycmd: `$ gpuplan ARGS` from the repository root,
//!   its output (standard error merged) compared with the lines shown, `...` for lines left out
//!   and `[..]` for part of a line; `? 2` or `? failed` above the output for a command that fails.
//!   `TRYCMD=overwrite cargo test --release --test integration doc_examples::` writes them again.
//! - each workbench capture is preceded by `<!-- snapshot: tests/snapshots/NAME.snap -->` and must
//!   equal that insta snapshot, which the ui tests draw; `TRYCMD=overwrite` copies it in.
//!
//! When the model's numbers change, two commands write every example again (then read the diff,
//! and the prose around each example):
//!
//! ```sh
//! INSTA_UPDATE=always cargo test --release --test integration ui_snapshots::
//! TRYCMD=overwrite cargo test --release --test integration doc_examples::
//! ```
//!
//! The commands run with home, config, data and cache folders of their own (`[HOME]` in the
//! output), `NO_COLOR`, `TZ=UTC` and no read cache, so what the docs show does not depend on the
//! machine. `GPUPLAN_TIMINGS` and `GPUPLAN_CONFIG_DIR` must not be set when the tests run (trycmd
//! cannot unset a variable): the first adds times to the output, the second a config folder.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README.md and docs/*.md, sorted; paths relative to the repository root.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .filter_map(Result::ok)
        .map(|e| PathBuf::from("docs").join(e.file_name()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, PathBuf::from("README.md"));
    docs
}

#[test]
fn console_examples_print_what_the_binary_prints() {
    // trycmd runs `.md` cases from the process's folder: cargo starts tests in the package root.
    assert_eq!(std::env::current_dir().expect("cwd"), Path::new(ROOT));
    let home = tempfile::tempdir().expect("tempdir");
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("gpuplan", PathBuf::from(env!("CARGO_BIN_EXE_gpuplan")))
        // The config folder through HOME and XDG_CONFIG_HOME rather than GPUPLAN_CONFIG_DIR: trycmd's
        // defaults override a command's own `VAR=value`, and docs/catalogs.md names its own.
        .env("HOME", home.path().display().to_string())
        .env("XDG_CONFIG_HOME", home.path().join("config").display().to_string())
        .env("GPUPLAN_DATA_DIR", home.path().join("data").display().to_string())
        .env("GPUPLAN_CACHE_DIR", home.path().join("cache").display().to_string())
        // No read kept: the documents run at once and a kept read would change which name of
        // the sample a command prints; every command prints what a first read prints.
        .env("GPUPLAN_CACHE_MAX_MB", "0")
        .env("NO_COLOR", "1")
        .env("TZ", "UTC")
        .env("COLUMNS", "120");
    cases
        .insert_var("[HOME]", home.path().display().to_string())
        .expect("[HOME]");
    for document in documents() {
        cases.case(document);
    }
    cases.run();
}

/// A fenced block preceded by a snapshot marker: the marker's line, the snapshot's path, the
/// block's text and the 0-based range of its lines inside the fences.
struct Capture {
    line: usize,
    snapshot: String,
    block: String,
    lines: std::ops::Range<usize>,
}

/// The fenced blocks preceded by a snapshot marker in `markdown`.
fn marked_captures(markdown: &str) -> Vec<Capture> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim().strip_prefix("<!-- snapshot:") else {
            continue;
        };
        let snapshot = rest.trim_end_matches("-->").trim().to_string();
        let open = lines[i + 1..]
            .iter()
            .position(|l| l.trim_start().starts_with("```"))
            .map(|p| i + 1 + p)
            .unwrap_or_else(|| panic!("line {}: no fenced block after the marker", i + 1));
        let close = lines[open + 1..]
            .iter()
            .position(|l| l.trim_start().starts_with("```"))
            .map(|p| open + 1 + p)
            .unwrap_or_else(|| panic!("line {}: the fenced block is not closed", open + 1));
        found.push(Capture {
            line: i + 1,
            snapshot,
            block: lines[open + 1..close].join("\n"),
            lines: open + 1..close,
        });
    }
    found
}

/// Lines with trailing whitespace trimmed, leading and trailing blank lines dropped.
fn normalized(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    lines.join("\n").trim_matches('\n').to_string()
}

/// The body of an insta `.snap` file: what follows its `---` header.
fn snapshot_body(text: &str) -> &str {
    let rest = text
        .strip_prefix("---\n")
        .expect("a .snap file starts with its --- header");
    let end = rest.find("\n---\n").expect("the header ends with ---");
    &rest[end + "\n---\n".len()..]
}

/// Each marked capture equals its snapshot; with `TRYCMD=overwrite` (the switch that writes the
/// console examples again) the snapshot's body is written into the document instead.
#[test]
fn workbench_captures_are_their_snapshots() {
    let overwrite = std::env::var("TRYCMD").is_ok_and(|v| v == "overwrite");
    let mut checked = 0;
    let mut stale = Vec::new();
    for document in documents() {
        let file = Path::new(ROOT).join(&document);
        let text = std::fs::read_to_string(&file).expect("document");
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut rewritten = false;
        // Last first, so a rewritten block does not move the ones above it.
        for capture in marked_captures(&text).into_iter().rev() {
            let snap = std::fs::read_to_string(Path::new(ROOT).join(&capture.snapshot))
                .unwrap_or_else(|e| panic!("{}:{}: {}: {e}", document.display(), capture.line, capture.snapshot));
            checked += 1;
            let body = normalized(snapshot_body(&snap));
            if body == normalized(&capture.block) {
                continue;
            }
            if overwrite {
                lines.splice(capture.lines, body.lines().map(str::to_string));
                rewritten = true;
            } else {
                stale.push(format!(
                    "{}:{} differs from {}",
                    document.display(),
                    capture.line,
                    capture.snapshot
                ));
            }
        }
        if rewritten {
            let ending = if text.ends_with('\n') { "\n" } else { "" };
            std::fs::write(&file, lines.join("\n") + ending).expect("document written");
        }
    }
    assert!(checked >= 1, "no snapshot markers found");
    assert!(
        stale.is_empty(),
        "captures that are not their snapshot (TRYCMD=overwrite writes the snapshots into the documents):\n{}",
        stale.join("\n")
    );
}

/// Every block trycmd skips is one a reader would not take for output to check: no ```` ``` ````
/// block without an info string (trycmd runs those too), no indented `console` block (trycmd
/// does not see it), no `$ gpuplan` outside `console` except in a block tagged `recorded`
/// (```` ```text,recorded ````: output of inputs not in the repository, said so in the prose),
/// and no column padded after the clone's own path (it would not line up in another folder).
#[test]
fn examples_that_show_output_are_console_blocks() {
    let mut wrong = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(Path::new(ROOT).join(&document)).expect("document");
        let mut info: Option<&str> = None;
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if let Some(rest) = trimmed.strip_prefix("```") {
                match info {
                    None => {
                        let tag = rest.trim();
                        if tag == "console" && trimmed.len() != line.len() {
                            wrong.push(format!(
                                "{}:{}: an indented console block (trycmd skips it)",
                                document.display(),
                                i + 1
                            ));
                        }
                        if tag.is_empty() {
                            wrong.push(format!("{}:{}: a fence with no info string", document.display(), i + 1));
                        }
                        info = Some(tag);
                    }
                    Some(_) => info = None,
                }
            } else if info == Some("console")
                && line
                    .split_once("[CWD]")
                    .is_some_and(|(_, rest)| rest.trim_end().contains("  "))
            {
                // A table's columns are padded to the real path, which differs from one clone
                // to another: a column after the redacted path fails in another folder.
                wrong.push(format!(
                    "{}:{}: the clone's path inside a table (run the example on a relative path)",
                    document.display(),
                    i + 1
                ));
            } else if let Some(tag) = info
                && tag != "console"
                && !tag.split(',').any(|t| t == "recorded")
                && trimmed.starts_with("$ gpuplan")
            {
                wrong.push(format!(
                    "{}:{}: `$ gpuplan` in a {tag} block",
                    document.display(),
                    i + 1
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
