//! The rules' conditions on where and how a job runs, evaluated per run as one bit per rule
//! (`QUEUE_BITS`): its queue patterns (substrings of the queue, or of the QoS class), its QoS
//! values and its owner kinds (whole values, any case). A rule's bit is set when every one of
//! those conditions it has holds; rules with none of them are not tested here.
//!
//! QoS and owner kind are Kubernetes' own words for what a pod is: a `ReplicaSet` or
//! `StatefulSet` serves, a `PyTorchJob` trains, a `Notebook` is interactive; Alibaba's `LS`
//! (latency-sensitive) serves and `BE` (best-effort) is burst. Logs that have neither column
//! pay nothing for them.

use std::collections::HashMap;
use std::sync::Arc;

use polars::prelude::*;

use super::features::{PatternBits, output, text};
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::model::workload::{ClassRule, ClassificationRules};

/// Which of the optional columns of what a job is (`QOS`, `OWNER_KIND`) a frame has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindColumns {
    pub qos: bool,
    pub owner_kind: bool,
}

impl KindColumns {
    pub fn of(schema: &Schema) -> KindColumns {
        KindColumns {
            qos: schema.contains(c::QOS),
            owner_kind: schema.contains(c::OWNER_KIND),
        }
    }
}

/// Whole values (lowercase, trimmed) to the rules listing them, as bits.
struct ValueBits(HashMap<String, u64>);

impl ValueBits {
    fn new(rules: &ClassificationRules, values_of: fn(&ClassRule) -> &Vec<String>) -> ValueBits {
        let mut bits = HashMap::new();
        for (i, rule) in rules.rules.iter().enumerate() {
            for value in values_of(rule) {
                *bits.entry(value.trim().to_lowercase()).or_insert(0u64) |= 1u64 << i;
            }
        }
        ValueBits(bits)
    }

    fn bits(&self, value: &str) -> u64 {
        if self.0.is_empty() {
            return 0;
        }
        let value = value.trim();
        match self.0.get(value) {
            Some(bits) => *bits,
            None if value.bytes().any(|b| b.is_ascii_uppercase()) || !value.is_ascii() => {
                self.0.get(&value.to_lowercase()).copied().unwrap_or(0)
            }
            None => 0,
        }
    }
}

/// Every rule's placement conditions, ready to test a run.
pub struct PlacementBits {
    queue: PatternBits,
    qos: ValueBits,
    owner_kind: ValueBits,
    /// The rules with each kind of condition.
    tests_queue: u64,
    tests_qos: u64,
    tests_owner_kind: u64,
}

fn rules_with(rules: &ClassificationRules, has: fn(&ClassRule) -> bool) -> u64 {
    rules
        .rules
        .iter()
        .enumerate()
        .filter(|(_, rule)| has(rule))
        .fold(0, |bits, (i, _)| bits | 1u64 << i)
}

impl PlacementBits {
    pub fn new(rules: &ClassificationRules) -> Result<PlacementBits, DataError> {
        Ok(PlacementBits {
            queue: PatternBits::new(rules, false)?,
            qos: ValueBits::new(rules, |rule| &rule.qos),
            owner_kind: ValueBits::new(rules, |rule| &rule.owner_kinds),
            tests_queue: rules_with(rules, |rule| !rule.queue_patterns.is_empty()),
            tests_qos: rules_with(rules, |rule| !rule.qos.is_empty()),
            tests_owner_kind: rules_with(rules, |rule| !rule.owner_kinds.is_empty()),
        })
    }

    /// The bits of the rules whose placement conditions all hold for a run.
    pub fn bits(&self, queue: Option<&str>, qos: Option<&str>, owner_kind: Option<&str>) -> u64 {
        let queue_bits = queue.map_or(0, |q| self.queue.bits(q)) | qos.map_or(0, |q| self.queue.bits(q));
        let qos_bits = qos.map_or(0, |q| self.qos.bits(q));
        let owner_bits = owner_kind.map_or(0, |k| self.owner_kind.bits(k));
        (queue_bits | !self.tests_queue)
            & (qos_bits | !self.tests_qos)
            & (owner_bits | !self.tests_owner_kind)
            & (self.tests_queue | self.tests_qos | self.tests_owner_kind)
    }
}

/// The `QUEUE_BITS` expression over the queue and whichever of QoS and owner kind the frame has.
pub fn placement_bits_expr(rules: &ClassificationRules, kinds: KindColumns) -> Result<Expr, DataError> {
    let placement = Arc::new(PlacementBits::new(rules)?);
    let mut inputs = Vec::new();
    if kinds.qos {
        inputs.push(col(c::QOS));
    }
    if kinds.owner_kind {
        inputs.push(col(c::OWNER_KIND));
    }
    Ok(col(c::QUEUE).map_many(
        move |columns| {
            let queues = text(&columns[0])?;
            let mut next = 1;
            let mut optional = |present: bool| -> PolarsResult<Option<StringChunked>> {
                if !present {
                    return Ok(None);
                }
                next += 1;
                text(&columns[next - 1]).map(Some)
            };
            let (qos, owner) = (optional(kinds.qos)?, optional(kinds.owner_kind)?);
            // Runs logged together repeat their queue and kind from one row to the next.
            let mut last: Option<([Option<&str>; 3], u64)> = None;
            let bits: UInt64Chunked = (0..queues.len())
                .map(|row| {
                    let key = [
                        queues.get(row),
                        qos.as_ref().and_then(|q| q.get(row)),
                        owner.as_ref().and_then(|o| o.get(row)),
                    ];
                    Some(match last {
                        Some((seen, bits)) if seen == key => bits,
                        _ => {
                            let bits = placement.bits(key[0], key[1], key[2]);
                            last = Some((key, bits));
                            bits
                        }
                    })
                })
                .collect();
            Ok(bits.into_column())
        },
        &inputs,
        output(super::features::QUEUE_BITS, DataType::UInt64),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::workload::WorkloadClass;

    fn rule(name: &str, queue: &[&str], qos: &[&str], owner_kinds: &[&str]) -> ClassRule {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        ClassRule {
            name: name.into(),
            class: WorkloadClass::Inference,
            name_patterns: Vec::new(),
            queue_patterns: list(queue),
            qos: list(qos),
            owner_kinds: list(owner_kinds),
            min_hours: None,
            max_hours: None,
            min_gpus: None,
            max_gpus: None,
            min_util: None,
            max_util: None,
            min_repeats: None,
            min_overlap: None,
        }
    }

    fn placement() -> PlacementBits {
        let rules = ClassificationRules {
            schema_version: 1,
            labels: Default::default(),
            rules: vec![
                rule("serving kind", &[], &[], &["ReplicaSet", "statefulset"]),
                rule("ls", &[], &["LS", "latency-sensitive"], &[]),
                rule("prod queue, serving kind", &["prod"], &[], &["replicaset"]),
                rule("no placement", &[], &[], &[]),
            ],
        };
        PlacementBits::new(&rules).expect("rules")
    }

    #[test]
    fn whole_values_match_in_any_case_and_substrings_do_not() {
        let p = placement();
        assert_eq!(p.bits(None, None, Some("ReplicaSet")), 0b001);
        assert_eq!(p.bits(None, None, Some(" STATEFULSET ")), 0b001);
        assert_eq!(p.bits(None, None, Some("ReplicaSetX")), 0);
        assert_eq!(p.bits(None, Some("ls"), None), 0b010);
        assert_eq!(p.bits(None, Some("tools"), None), 0);
        assert_eq!(p.bits(None, None, None), 0);
    }

    #[test]
    fn every_condition_of_a_rule_must_hold() {
        let p = placement();
        assert_eq!(p.bits(Some("prod-a"), None, Some("ReplicaSet")), 0b101);
        assert_eq!(p.bits(Some("prod-a"), None, Some("Job")), 0);
        assert_eq!(p.bits(Some("dev"), Some("LS"), Some("ReplicaSet")), 0b011);
    }

    #[test]
    fn queue_patterns_also_read_the_qos_class() {
        // Slurm logs and hand-made exports often put the QoS where the queue would be.
        let p = placement();
        assert_eq!(p.bits(None, Some("prod"), Some("replicaset")), 0b101);
    }
}
