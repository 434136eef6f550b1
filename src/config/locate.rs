//! Finds where a key path such as `accelerators[1].mfu` sits in a TOML text.

use std::ops::Range;

use toml_edit::{Document, Item};

enum Segment {
    Key(String),
    Index(usize),
}

/// Splits `a.b[2]."c.d"` into keys and indices; a quoted key may hold dots and brackets.
fn segments(key_path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut chars = key_path.chars().peekable();
    let mut bare = String::new();
    let flush = |bare: &mut String, out: &mut Vec<Segment>| {
        if !bare.is_empty() {
            out.push(Segment::Key(std::mem::take(bare)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                flush(&mut bare, &mut out);
                let mut quoted = String::new();
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => quoted.extend(chars.next()),
                        _ => quoted.push(q),
                    }
                }
                out.push(Segment::Key(quoted));
            }
            '.' => flush(&mut bare, &mut out),
            '[' => {
                flush(&mut bare, &mut out);
                let index: String = chars.by_ref().take_while(|&q| q != ']').collect();
                if let Ok(i) = index.parse() {
                    out.push(Segment::Index(i));
                }
            }
            _ => bare.push(c),
        }
    }
    flush(&mut bare, &mut out);
    out
}

/// A key as one segment of a key path: bare when TOML allows it, else quoted (`"plan.save"`).
pub fn key_segment(key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_string()
    } else {
        format!("\"{}\"", key.replace('"', "\\\""))
    }
}

/// The byte range of the deepest part of `key_path` present in `text`: the value itself,
/// or its table when the key is missing. `None` when the text does not parse.
pub fn locate_key_path(text: &str, key_path: &str) -> Option<Range<usize>> {
    let doc = Document::parse(text).ok()?;
    let mut item: &Item = doc.as_item();
    let mut span = None;
    for segment in segments(key_path) {
        let next = match segment {
            Segment::Key(key) => item.get(key.as_str()),
            Segment::Index(i) => item.get(i),
        };
        match next {
            Some(found) => {
                item = found;
                span = found.span().or(span);
            }
            None => break,
        }
    }
    span
}

/// The first `backticked` name in a serde message, e.g. the field of "unknown field `x`".
pub fn backticked_name(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str =
        "top = 1\n[training]\nchips = 8\n\n[[accelerators]]\nid = \"a\"\n\n[[accelerators]]\nid = \"b\"\nmfu = 0.4\n";

    #[test]
    fn finds_values_inside_arrays_of_tables() {
        let span = locate_key_path(TEXT, "accelerators[1].mfu").expect("found");
        assert_eq!(&TEXT[span], "0.4");
        let span = locate_key_path(TEXT, "training.chips").expect("found");
        assert_eq!(&TEXT[span], "8");
    }

    #[test]
    fn finds_quoted_keys_that_hold_dots() {
        let text = "[keys]\nquit = \"x\"\n\"plan.save\" = \"ctrl-\"\n";
        let path = format!("keys.{}", key_segment("plan.save"));
        assert_eq!(path, "keys.\"plan.save\"");
        let span = locate_key_path(text, &path).expect("found");
        assert_eq!(&text[span], "\"ctrl-\"");
        assert_eq!(key_segment("quit"), "quit");
    }

    #[test]
    fn falls_back_to_the_nearest_present_parent() {
        // The first [[accelerators]] table has no mfu: point at that table's header.
        let span = locate_key_path(TEXT, "accelerators[0].mfu").expect("parent found");
        assert_eq!(
            super::super::diagnostic::line_column(TEXT, span.start).0,
            5,
            "{:?}",
            &TEXT[span]
        );
    }

    #[test]
    fn reads_the_field_name_of_serde_messages() {
        assert_eq!(
            backticked_name("unknown field `mfu_pct`, expected one of `mfu`"),
            Some("mfu_pct")
        );
        assert_eq!(backticked_name("no ticks"), None);
    }
}
