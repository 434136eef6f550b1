//! Finds where a key path such as `accelerators[1].mfu` sits in a TOML text.

use std::ops::Range;

use toml_edit::{Document, Item};

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

fn segments(key_path: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    for part in key_path.split('.') {
        let (key, rest) = part.split_once('[').unwrap_or((part, ""));
        if !key.is_empty() {
            out.push(Segment::Key(key));
        }
        for index in rest.split('[') {
            if let Ok(i) = index.trim_end_matches(']').parse() {
                out.push(Segment::Index(i));
            }
        }
    }
    out
}

/// The byte range of the deepest part of `key_path` present in `text`: the value itself,
/// or its table when the key is missing. `None` when the text does not parse.
pub fn locate_key_path(text: &str, key_path: &str) -> Option<Range<usize>> {
    let doc = Document::parse(text).ok()?;
    let mut item: &Item = doc.as_item();
    let mut span = None;
    for segment in segments(key_path) {
        let next = match segment {
            Segment::Key(key) => item.get(key),
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
