//! Texts an audit needs back but would cost too much to hold per row, kept once per process:
//! each distinct text gets a small number (`intern`), carried in a numeric column, and read
//! back by the audit (`name_of`). Texts differing only in case or surrounding spaces share a
//! number; the first spelling met is kept.
//!
//! - `UNKNOWN_LABELS`: labels `[labels]` does not know, carried in `label_code` above
//!   `UNKNOWN_LABEL_BASE`;
//! - `GPU_TYPES`: the log's GPU models (`gpu_type`), carried in `gpu_type_code`, so that a
//!   cluster the plan does not list is priced as the accelerator its log names.
//!
//! A hostile log could hold millions of distinct texts: past `MAX_NAMES` they all share one
//! number, reported as such, so memory stays bounded.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Distinct texts kept by name in each vocabulary.
pub const MAX_NAMES: usize = 1_000;

#[derive(Default)]
struct Names {
    by_key: HashMap<String, u32>,
    texts: Vec<String>,
}

/// One process-wide vocabulary.
pub struct Vocabulary {
    names: OnceLock<Mutex<Names>>,
    /// The name the texts past `MAX_NAMES` share.
    overflow_name: &'static str,
}

pub static UNKNOWN_LABELS: Vocabulary = Vocabulary::new("(labels past the first 1,000 distinct)");
pub static GPU_TYPES: Vocabulary = Vocabulary::new("(GPU types past the first 1,000 distinct)");

impl Vocabulary {
    const fn new(overflow_name: &'static str) -> Vocabulary {
        Vocabulary {
            names: OnceLock::new(),
            overflow_name,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Names> {
        self.names
            .get_or_init(|| Mutex::new(Names::default()))
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The number of `text` (trimmed, any case).
    pub fn intern(&self, text: &str) -> u32 {
        let text = text.trim();
        let key = text.to_lowercase();
        let mut names = self.lock();
        if let Some(&number) = names.by_key.get(&key) {
            return number;
        }
        if names.texts.len() >= MAX_NAMES {
            return MAX_NAMES as u32;
        }
        let number = names.texts.len() as u32;
        names.texts.push(text.to_string());
        names.by_key.insert(key, number);
        number
    }

    /// Every text kept, in number order: what a cached read's numbers meant when written.
    pub fn texts(&self) -> Vec<String> {
        self.lock().texts.clone()
    }

    /// The text numbered `number`.
    pub fn name_of(&self, number: u32) -> String {
        self.lock()
            .texts
            .get(number as usize)
            .cloned()
            .unwrap_or_else(|| self.overflow_name.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_keeps_one_number_whatever_its_case_and_its_first_spelling() {
        let a = UNKNOWN_LABELS.intern(" Rollout-test-label ");
        assert_eq!(UNKNOWN_LABELS.intern("rollout-TEST-label"), a);
        assert_eq!(UNKNOWN_LABELS.name_of(a), "Rollout-test-label");
        assert_ne!(UNKNOWN_LABELS.intern("another-test-label"), a);
        assert_eq!(
            UNKNOWN_LABELS.name_of(MAX_NAMES as u32),
            "(labels past the first 1,000 distinct)"
        );
    }

    #[test]
    fn each_vocabulary_numbers_its_own_texts() {
        let gpu = GPU_TYPES.intern("vocabulary-test-A100");
        assert_eq!(GPU_TYPES.name_of(gpu), "vocabulary-test-A100");
        assert_ne!(UNKNOWN_LABELS.name_of(gpu), "vocabulary-test-A100");
    }
}
