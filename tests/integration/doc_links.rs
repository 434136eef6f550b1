//! Every relative link of the README and the documents in `docs/` resolves: the file it names
//! exists, and a `#fragment` names a heading of that file (GitHub's anchors: lower case,
//! punctuation dropped, spaces as hyphens). Links are read with a CommonMark parser, so code
//! blocks and inline code are not mistaken for links.

use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn documents() -> Vec<PathBuf> {
    let mut files = vec![Path::new(ROOT).join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files.push(Path::new(ROOT).join("sample-data/README.md"));
    files.retain(|p| p.is_file());
    files
}

/// GitHub's anchor of a heading's text.
fn anchor(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn headings(markdown: &str) -> Vec<String> {
    let mut anchors = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::Heading { level, .. }) if level <= HeadingLevel::H6 => current = Some(String::new()),
            Event::Text(text) | Event::Code(text) => {
                if let Some(heading) = current.as_mut() {
                    heading.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(heading) = current.take() {
                    anchors.push(anchor(&heading));
                }
            }
            _ => {}
        }
    }
    anchors
}

fn links(markdown: &str) -> Vec<String> {
    Parser::new(markdown)
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

/// The relative links of `document` (its text `text`) that do not resolve, and how many were
/// checked.
fn broken_links(document: &Path, text: &str) -> (Vec<String>, usize) {
    let mut broken = Vec::new();
    let mut checked = 0;
    for link in links(text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (path, fragment) = match link.split_once('#') {
            Some((path, fragment)) => (path, Some(fragment)),
            None => (link.as_str(), None),
        };
        let target = if path.is_empty() {
            document.to_path_buf()
        } else {
            document.parent().expect("a folder").join(path)
        };
        checked += 1;
        if !target.exists() {
            broken.push(format!("{}: {link}: no such file", document.display()));
            continue;
        }
        if let Some(fragment) = fragment
            && target.extension().is_some_and(|e| e == "md")
        {
            let anchors = headings(&std::fs::read_to_string(&target).expect("readable"));
            if !anchors.iter().any(|a| a == fragment) {
                broken.push(format!("{}: {link}: no heading #{fragment}", document.display()));
            }
        }
    }
    (broken, checked)
}

#[test]
fn every_relative_link_of_the_readme_and_docs_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("readable");
        let (found, count) = broken_links(&document, &text);
        broken.extend(found);
        checked += count;
    }
    assert!(checked > 10, "the documents link to one another: {checked} links");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn a_missing_file_or_heading_is_reported_and_code_is_not_a_link() {
    let dir = tempfile::tempdir().expect("dir");
    let document = dir.path().join("guide.md");
    let text = "# Guide\n\n## Keys\n\n[ok](#keys) [gone](missing.md) [nowhere](#no-such) [web](https://example.com)\n\n`[not](a-link.md)`\n\n```\n[also not](x.md)\n```\n";
    std::fs::write(&document, text).expect("write");
    let (broken, checked) = broken_links(&document, text);
    assert_eq!(checked, 3, "{broken:?}");
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].ends_with("missing.md: no such file") && broken[1].ends_with("#no-such: no heading #no-such"));
}

#[test]
fn anchors_are_githubs() {
    assert_eq!(
        anchor("Commitments sized for the future"),
        "commitments-sized-for-the-future"
    );
    assert_eq!(
        anchor("The report's JSON (a stable interface)"),
        "the-reports-json-a-stable-interface"
    );
    assert_eq!(anchor("Stay or switch"), "stay-or-switch");
}
