//! The texts of labels `[labels]` does not know, kept once per process instead of once per
//! row: each gets a small number (`intern`), carried in `label_code` above
//! `UNKNOWN_LABEL_BASE`, and read back by the audit (`name_of`). Labels differing only in case
//! or surrounding spaces share a number; the first spelling met is kept.
//!
//! A hostile log could hold millions of distinct labels: past `MAX_NAMES` they all share one
//! number, reported as such, so memory stays bounded.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Distinct unknown labels kept by name.
pub const MAX_NAMES: usize = 1_000;

/// The name the labels past `MAX_NAMES` share.
pub const OVERFLOW_NAME: &str = "(labels past the first 1,000 distinct)";

#[derive(Default)]
struct Names {
    by_key: HashMap<String, u32>,
    texts: Vec<String>,
}

fn names() -> &'static Mutex<Names> {
    static NAMES: OnceLock<Mutex<Names>> = OnceLock::new();
    NAMES.get_or_init(|| Mutex::new(Names::default()))
}

/// The number of `label` (trimmed, any case).
pub fn intern(label: &str) -> u32 {
    let label = label.trim();
    let key = label.to_lowercase();
    let mut names = names().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&number) = names.by_key.get(&key) {
        return number;
    }
    if names.texts.len() >= MAX_NAMES {
        return MAX_NAMES as u32;
    }
    let number = names.texts.len() as u32;
    names.texts.push(label.to_string());
    names.by_key.insert(key, number);
    number
}

/// The label numbered `number`.
pub fn name_of(number: u32) -> String {
    let names = names().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    names
        .texts
        .get(number as usize)
        .cloned()
        .unwrap_or_else(|| OVERFLOW_NAME.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_keeps_one_number_whatever_its_case_and_its_first_spelling() {
        let a = intern(" Rollout-test-label ");
        assert_eq!(intern("rollout-TEST-label"), a);
        assert_eq!(name_of(a), "Rollout-test-label");
        assert_ne!(intern("another-test-label"), a);
        assert_eq!(name_of(MAX_NAMES as u32), OVERFLOW_NAME);
    }
}
