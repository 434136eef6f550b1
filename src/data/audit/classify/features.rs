//! The per-run classification features (step 1 of `classify`), computed row by row while a log
//! streams in so that names and ids are never held for every row:
//! - `job_key`: a 64-bit key of (cluster, job_id);
//! - `stem_key`: a 64-bit key of (cluster, the name's stem), null for unnamed runs;
//! - `name_bits`: bit `i` set when rule `i`'s name patterns occur in the run's name,
//!   case-insensitively;
//! - `queue_bits`: bit `i` set when rule `i`'s conditions on the queue, QoS and owner kind all
//!   hold for the run (`placement`);
//! - `label_code`: the class the run's label stands for (`WorkloadClass as u32`); from
//!   `UNKNOWN_LABEL_BASE` up, a label `[labels]` knows neither as a class nor as unclassed
//!   (its text kept once, in `unknown_labels`, not per row); null when unlabeled.
//!
//! Each is one pass of plain Rust over the text (one Aho-Corasick automaton for every rule's
//! patterns, a stem read without allocating), wrapped as a Polars expression: ten million runs
//! take a fraction of what lowercasing, a regex per rule and a regex replace took.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use polars::prelude::*;

use super::placement::{KindColumns, placement_bits_expr};
use super::vocabulary::{GPU_TYPES, UNKNOWN_LABELS};
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::model::workload::{ClassificationRules, WorkloadClass};

pub const JOB_KEY: &str = "job_key";
pub const STEM_KEY: &str = "stem_key";
/// The class of the run's label (`WorkloadClass as u32`), an unknown label's code
/// (`UNKNOWN_LABEL_BASE` and up), or null when unlabeled or unclassed.
pub const LABEL_CODE: &str = "label_code";
/// Label codes from here up are labels `[labels]` does not know (see `unknown_labels`).
pub const UNKNOWN_LABEL_BASE: u32 = 3;
pub const NAME_BITS: &str = "name_bits";
/// The run's GPU type's number in `vocabulary::GPU_TYPES`; only in an audit's runs of logs
/// that name GPU types.
pub const GPU_TYPE_CODE: &str = "gpu_type_code";
pub const QUEUE_BITS: &str = "queue_bits";
/// Rule patterns are carried as bits of a 64-bit mask.
pub const MAX_RULES: usize = 64;

/// The columns `with_run_features` adds.
pub const FEATURE_COLUMNS: [&str; 5] = [JOB_KEY, STEM_KEY, LABEL_CODE, NAME_BITS, QUEUE_BITS];

/// Seeds of the two keys: fixed, so a key means the same in every chunk of one audit.
const JOB_SEED: u64 = 0xc2b2_ae3d_27d4_eb4f;
const STEM_SEED: u64 = 0x1656_67b1_9e37_79f9;

/// A 64-bit key of a cluster and a text; a missing part hashes apart from every text.
fn key_of(seed: u64, cluster: Option<&str>, text: &[u8]) -> u64 {
    let mut hasher = foldhash::quality::FixedState::with_seed(seed).build_hasher();
    match cluster {
        Some(cluster) => {
            hasher.write(cluster.as_bytes());
            hasher.write_u8(0xff);
        }
        None => hasher.write_u8(0xfe),
    }
    hasher.write(text);
    hasher.finish()
}

/// The job key of a (cluster, job id), as the `job_key` column holds it.
pub fn job_key(cluster: Option<&str>, job_id: &str) -> u64 {
    key_of(JOB_SEED, cluster, job_id.as_bytes())
}

/// The stem key of a (cluster, name), as the `stem_key` column holds it.
pub fn stem_key(cluster: Option<&str>, name: &str) -> u64 {
    let mut stem = Vec::new();
    stem_into(name, &mut stem);
    key_of(STEM_SEED, cluster, &stem)
}

/// The name's stem: lowercased, every run of six or more hex digits and every run of decimal
/// digits replaced by `#` (`sweep-lr-3-17` and `sweep-lr-9-2` share the stem `sweep-lr-#-#`).
/// Written into `out`, which is cleared first.
pub fn stem_into(name: &str, out: &mut Vec<u8>) {
    out.clear();
    let lowered;
    let bytes = if name.is_ascii() {
        name.as_bytes()
    } else {
        lowered = name.to_lowercase();
        lowered.as_bytes()
    };
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_hexdigit() {
            out.push(bytes[i].to_ascii_lowercase());
            i += 1;
            continue;
        }
        // One run of hex characters: an id when long, else its digits go and letters stay.
        let end = bytes[i..]
            .iter()
            .position(|b| !b.is_ascii_hexdigit())
            .map_or(bytes.len(), |n| i + n);
        if end - i >= 6 {
            out.push(b'#');
            i = end;
            continue;
        }
        while i < end {
            if bytes[i].is_ascii_digit() {
                out.push(b'#');
                while i < end && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            } else {
                out.push(bytes[i].to_ascii_lowercase());
                i += 1;
            }
        }
    }
}

/// Every rule's patterns of one kind (name or queue) as one automaton; a match of pattern `p`
/// sets bit `rule_of[p]`.
pub(super) struct PatternBits {
    automaton: Option<AhoCorasick>,
    rule_of: Vec<u32>,
}

impl PatternBits {
    pub(super) fn new(rules: &ClassificationRules, name: bool) -> Result<PatternBits, DataError> {
        let mut patterns = Vec::new();
        let mut rule_of = Vec::new();
        for (i, rule) in rules.rules.iter().enumerate() {
            let list = if name {
                &rule.name_patterns
            } else {
                &rule.queue_patterns
            };
            for pattern in list {
                patterns.push(pattern.to_lowercase());
                rule_of.push(i as u32);
            }
        }
        let automaton = if patterns.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(&patterns)
                    .map_err(DataError::Patterns)?,
            )
        };
        Ok(PatternBits { automaton, rule_of })
    }

    pub(super) fn bits(&self, text: &str) -> u64 {
        let Some(automaton) = &self.automaton else {
            return 0;
        };
        let lowered;
        let text = if text.is_ascii() {
            text
        } else {
            lowered = text.to_lowercase();
            lowered.as_str()
        };
        automaton
            .find_overlapping_iter(text)
            .fold(0u64, |bits, m| bits | 1u64 << self.rule_of[m.pattern().as_usize()])
    }
}

/// Label values (lowercase, trimmed) to class codes; the first class listing a value wins.
fn label_codes(rules: &ClassificationRules) -> HashMap<String, u32> {
    let mut codes = HashMap::new();
    for class in WorkloadClass::ALL {
        for value in rules.labels.of(class) {
            codes.entry(value.trim().to_lowercase()).or_insert(class as u32);
        }
    }
    codes
}

fn label_code(codes: &HashMap<String, u32>, label: &str) -> Option<u32> {
    let label = label.trim();
    if label.is_empty() {
        return None;
    }
    if label.bytes().any(|b| b.is_ascii_uppercase()) || !label.is_ascii() {
        codes.get(&label.to_lowercase()).copied()
    } else {
        codes.get(label).copied()
    }
}

pub(super) fn output(
    name: &'static str,
    dtype: DataType,
) -> impl Fn(&Schema, &[Field]) -> PolarsResult<Field> + Send + Sync {
    move |_, _| Ok(Field::new(name.into(), dtype.clone()))
}

/// A text column of a UDF's input (a null literal arrives as another type).
pub(super) fn text(column: &Column) -> PolarsResult<StringChunked> {
    Ok(column.cast(&DataType::String)?.str()?.clone())
}

/// The run's GPU type as its number in `GPU_TYPES` (`GPU_TYPE_CODE`), null when not given.
pub fn gpu_type_code_expr() -> Expr {
    col(c::GPU_TYPE)
        .map(
            |column| {
                let types = text(&column)?;
                // Runs of one cluster repeat their GPU type from one row to the next.
                let mut last: Option<(&str, u32)> = None;
                let codes: UInt32Chunked = types
                    .iter()
                    .map(|v| {
                        let v = v.filter(|v| !v.trim().is_empty())?;
                        Some(match last {
                            Some((text, code)) if text == v => code,
                            _ => {
                                let code = GPU_TYPES.intern(v);
                                last = Some((v, code));
                                code
                            }
                        })
                    })
                    .collect();
                Ok(codes.into_column())
            },
            |_, _| Ok(Field::new(GPU_TYPE_CODE.into(), DataType::UInt32)),
        )
        .alias(GPU_TYPE_CODE)
}

/// Adds the per-run features (see the module comment) to canonical runs, reading QoS and
/// owner kind where the runs have them.
pub fn with_run_features(mut runs: LazyFrame, rules: &ClassificationRules) -> Result<LazyFrame, DataError> {
    let schema = runs.collect_schema()?;
    let kinds = KindColumns::of(&schema);
    Ok(runs.with_columns(run_feature_exprs(rules, kinds)?))
}

/// The expressions of the per-run features, named as `FEATURE_COLUMNS`, for runs with the
/// optional columns `kinds`.
pub fn run_feature_exprs(rules: &ClassificationRules, kinds: KindColumns) -> Result<Vec<Expr>, DataError> {
    if rules.rules.len() > MAX_RULES {
        return Err(DataError::TooManyRules {
            rules: rules.rules.len(),
            max: MAX_RULES,
        });
    }
    let name_bits = Arc::new(PatternBits::new(rules, true)?);
    let codes = Arc::new(label_codes(rules));
    let job_key = col(c::CLUSTER).map_many(
        |columns| {
            let (clusters, ids) = (text(&columns[0])?, text(&columns[1])?);
            let keys: UInt64Chunked = clusters
                .iter()
                .zip(ids.iter())
                .map(|(cluster, id)| Some(key_of(JOB_SEED, cluster, id.unwrap_or("").as_bytes())))
                .collect();
            Ok(keys.into_column())
        },
        &[col(c::JOB_ID)],
        output(JOB_KEY, DataType::UInt64),
    );
    let stem_key = col(c::CLUSTER).map_many(
        |columns| {
            let (clusters, names) = (text(&columns[0])?, text(&columns[1])?);
            let mut stem = Vec::new();
            let keys: UInt64Chunked = clusters
                .iter()
                .zip(names.iter())
                .map(|(cluster, name)| {
                    name.map(|name| {
                        stem_into(name, &mut stem);
                        key_of(STEM_SEED, cluster, &stem)
                    })
                })
                .collect();
            Ok(keys.into_column())
        },
        &[col(c::NAME)],
        output(STEM_KEY, DataType::UInt64),
    );
    let bits_of = |column: &str, patterns: Arc<PatternBits>, name: &'static str| {
        col(column).map_many(
            move |columns| {
                let values = text(&columns[0])?;
                // Queues, and names of runs logged together, repeat from one row to the next.
                let mut last: Option<(&str, u64)> = None;
                let bits: UInt64Chunked = values
                    .iter()
                    .map(|v| {
                        Some(v.map_or(0, |v| match last {
                            Some((text, bits)) if text == v => bits,
                            _ => {
                                let bits = patterns.bits(v);
                                last = Some((v, bits));
                                bits
                            }
                        }))
                    })
                    .collect();
                Ok(bits.into_column())
            },
            &[],
            output(name, DataType::UInt64),
        )
    };
    let label_words = rules.labels.clone();
    let label = col(c::LABEL).map_many(
        move |columns| {
            let labels = text(&columns[0])?;
            // Labels logged together repeat from one row to the next.
            let mut last: Option<(&str, Option<u32>)> = None;
            let codes: UInt32Chunked = labels
                .iter()
                .map(|v| {
                    let v = v?;
                    match last {
                        Some((text, code)) if text == v => code,
                        _ => {
                            let code = label_code(&codes, v).or_else(|| {
                                (!label_words.is_unclassed(v)).then(|| UNKNOWN_LABEL_BASE + UNKNOWN_LABELS.intern(v))
                            });
                            last = Some((v, code));
                            code
                        }
                    }
                })
                .collect();
            Ok(codes.into_column())
        },
        &[],
        output(LABEL_CODE, DataType::UInt32),
    );
    Ok(vec![
        job_key.alias(JOB_KEY),
        stem_key.alias(STEM_KEY),
        label.alias(LABEL_CODE),
        bits_of(c::NAME, name_bits, NAME_BITS).alias(NAME_BITS),
        placement_bits_expr(rules, kinds)?.alias(QUEUE_BITS),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stem(name: &str) -> String {
        let mut out = Vec::new();
        stem_into(name, &mut out);
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn stems_drop_numbers_and_long_hex_ids_like_the_documented_regex() {
        assert_eq!(stem("sweep-lr-3-17"), "sweep-lr-#-#");
        assert_eq!(stem("Sweep-LR-9-2"), "sweep-lr-#-#");
        assert_eq!(stem("run-3fa9c01e-eval"), "run-#-eval");
        // Five hex characters are not an id: the letters stay, the digits go.
        assert_eq!(stem("abc12"), "abc#");
        assert_eq!(stem("12abcdef-x"), "#-x");
        assert_eq!(stem("ÉVAL-7"), "éval-#");
        assert_eq!(stem(""), "");
    }

    #[test]
    fn stems_agree_with_the_regex_on_random_names() {
        let re = regex::Regex::new("[0-9a-f]{6,}|[0-9]+").expect("regex");
        let alphabet = b"0123456789abcdefxyz-_ABF";
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..5_000 {
            let mut name = String::new();
            for _ in 0..(state % 24) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                name.push(alphabet[(state % alphabet.len() as u64) as usize] as char);
            }
            let expected = re.replace_all(&name.to_lowercase(), "#").into_owned();
            assert_eq!(stem(&name), expected, "{name}");
        }
    }

    #[test]
    fn pattern_bits_are_case_insensitive_and_per_rule() {
        let mut rules = crate::config::catalog::builtin()
            .catalog
            .classification
            .expect("built-in rules");
        let order = ["serving name", "latency-sensitive queue", "sweep name"];
        rules.rules.retain(|rule| order.contains(&rule.name.as_str()));
        assert_eq!(rules.rules.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), order);
        let bits = PatternBits::new(&rules, true).expect("patterns");
        assert_eq!(bits.bits("vLLM-Serve-7"), 1);
        assert_eq!(bits.bits("llama-HPO-sweep"), 1 << 2);
        assert_eq!(bits.bits("pretrain"), 0);
        let queues = PatternBits::new(&rules, false).expect("patterns");
        assert_eq!(queues.bits("PROD-a"), 1 << 1);
    }

    #[test]
    fn labels_map_to_classes_whatever_their_case() {
        let rules = crate::config::catalog::builtin()
            .catalog
            .classification
            .expect("built-in rules");
        let codes = label_codes(&rules);
        assert_eq!(label_code(&codes, " Training "), Some(WorkloadClass::Training as u32));
        assert_eq!(label_code(&codes, "SERVE"), Some(WorkloadClass::Inference as u32));
        assert_eq!(label_code(&codes, "hpo"), Some(WorkloadClass::Burst as u32));
        assert_eq!(label_code(&codes, "unknown"), None);
        assert_eq!(label_code(&codes, ""), None);
    }
}
