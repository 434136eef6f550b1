//! The classification rules (catalogs/classification.toml and the plan's overrides) as SQL,
//! generated from the rules themselves so the two audits cannot drift: per run, whether each
//! rule's name patterns and placement conditions hold and the class its label stands for; per
//! job, the ordered rules as one CASE. The same semantics as `data::audit::classify`: a known
//! label wins, then the first rule whose every condition holds, else training.

use crate::data::audit::classify::{label_rule_index, no_rule_index};
use crate::data::warehouse::dialect::Dialect;
use crate::model::workload::{ClassRule, ClassificationRules, WorkloadClass};

/// The pattern a name's stem is read with: runs of six or more hex digits and runs of digits
/// become `#` (`data::audit::classify::features::stem_into`).
pub const STEM_PATTERN: &str = "[0-9a-f]{6,}|[0-9]+";

/// Rules a mask word holds: 62, so a word's bits stay positive in a signed 64-bit integer.
pub const MASK_BITS: usize = 62;

/// How a row carries its rules' flags: a column a rule (`name_<i>`, `place_<i>`), or packed
/// in masks (`name_bits_<w>`, `place_bits_<w>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flags {
    Columns,
    Masks,
}

pub struct RuleSql<'a> {
    pub dialect: &'a dyn Dialect,
    pub rules: &'a ClassificationRules,
}

fn in_list(d: &dyn Dialect, expr: &str, values: &[String]) -> String {
    let mut values: Vec<String> = values.iter().map(|v| v.trim().to_lowercase()).collect();
    values.sort();
    values.dedup();
    let literals: Vec<String> = values.iter().map(|v| d.text(v)).collect();
    format!("{expr} IN ({})", literals.join(", "))
}

impl RuleSql<'_> {
    fn any_pattern(&self, text: &str, patterns: &[String]) -> String {
        let checks: Vec<String> = patterns
            .iter()
            .map(|p| self.dialect.contains(text, &p.to_lowercase()))
            .collect();
        format!("({})", checks.join(" OR "))
    }

    /// The columns added to each run: `name_<i>` and `place_<i>` (1 when the rule's name
    /// patterns, or all its placement conditions, hold), `label_code` (the class its label
    /// stands for), `unknown_label` (a label `[labels]` does not know), `stem`. Per row: the
    /// jobs that never started, few, are classified so; the runs through the dictionaries of
    /// `name_columns` and `place_columns`.
    pub fn run_columns(&self) -> Vec<String> {
        let mut columns = self.name_columns();
        columns.extend(self.place_columns());
        columns.extend(self.label_columns("label"));
        columns
    }

    /// What a name tells, over a row with `name`: each rule's `name_<i>` and the `stem`. Worked
    /// out once per distinct name, where the same names repeat over millions of runs.
    pub fn name_columns(&self) -> Vec<String> {
        let lower_name = "LOWER(name)";
        let mut columns: Vec<String> = self
            .rules
            .rules
            .iter()
            .enumerate()
            .filter(|(_, rule)| !rule.name_patterns.is_empty())
            .map(|(i, rule)| {
                format!(
                    "CASE WHEN {} THEN 1 ELSE 0 END AS name_{i}",
                    self.any_pattern(lower_name, &rule.name_patterns)
                )
            })
            .collect();
        columns.push(format!(
            "{} AS stem",
            self.dialect.replace_all(lower_name, STEM_PATTERN, "#")
        ));
        columns
    }

    /// Whether any rule tests a placement (else there is no placements' dictionary).
    pub fn tests_placement(&self) -> bool {
        self.rules.rules.iter().any(ClassRule::tests_placement)
    }

    /// What a placement tells, over a row with `queue`, `qos` and `owner_kind`: each rule's
    /// `place_<i>`. Worked out once per distinct placement.
    pub fn place_columns(&self) -> Vec<String> {
        let d = self.dialect;
        let lower_queue = "LOWER(queue)";
        let lower_qos = "LOWER(qos)";
        let mut columns = Vec::new();
        for (i, rule) in self.rules.rules.iter().enumerate() {
            if rule.tests_placement() {
                let mut conditions = Vec::new();
                if !rule.queue_patterns.is_empty() {
                    // A queue pattern matches the queue, or the QoS class.
                    conditions.push(format!(
                        "({} OR {})",
                        self.any_pattern(lower_queue, &rule.queue_patterns),
                        self.any_pattern(lower_qos, &rule.queue_patterns)
                    ));
                }
                if !rule.qos.is_empty() {
                    conditions.push(in_list(d, "LOWER(TRIM(qos))", &rule.qos));
                }
                if !rule.owner_kinds.is_empty() {
                    conditions.push(in_list(d, "LOWER(TRIM(owner_kind))", &rule.owner_kinds));
                }
                columns.push(format!(
                    "CASE WHEN {} THEN 1 ELSE 0 END AS place_{i}",
                    conditions.join(" AND ")
                ));
            }
        }
        columns
    }

    /// `label_code` and `unknown_label` of the label `column`.
    pub fn label_columns(&self, column: &str) -> Vec<String> {
        let d = self.dialect;
        let label = format!("LOWER(TRIM({column}))");
        let mut known = Vec::new();
        let mut claimed: Vec<String> = Vec::new();
        for class in WorkloadClass::ALL {
            // The first class listing a value wins.
            let values: Vec<String> = self
                .rules
                .labels
                .of(class)
                .iter()
                .map(|v| v.trim().to_lowercase())
                .filter(|v| !v.is_empty() && !claimed.contains(v))
                .collect();
            claimed.extend(values.iter().cloned());
            if !values.is_empty() {
                known.push(format!("WHEN {} THEN {}", in_list(d, &label, &values), class as u32));
            }
        }
        let label_code = if known.is_empty() {
            d.cast("NULL", d.bigint_type())
        } else {
            format!("CASE {} END", known.join(" "))
        };
        let unclassed: Vec<String> = self
            .rules
            .labels
            .unclassed
            .iter()
            .chain(claimed.iter())
            .map(|v| v.trim().to_lowercase())
            .filter(|v| !v.is_empty())
            .collect();
        let unknown = if unclassed.is_empty() {
            format!("CASE WHEN {label} <> '' THEN TRIM({column}) END")
        } else {
            format!(
                "CASE WHEN {label} <> '' AND NOT ({}) THEN TRIM({column}) END",
                in_list(d, &label, &unclassed)
            )
        };
        vec![
            format!("{label_code} AS label_code"),
            format!("{unknown} AS unknown_label"),
        ]
    }

    /// The bit masks a run's rule flags are packed in, each word holding `MASK_BITS` rules:
    /// `name_bits_<w>` (bit `i % MASK_BITS` of word `i / MASK_BITS` set when rule `i`'s name
    /// patterns hold) and `place_bits_<w>` (its placement conditions). A job ORs its runs'
    /// masks: one aggregate a word rather than one a rule.
    pub fn masks(&self) -> Vec<String> {
        let words = self.rules.rules.len().div_ceil(MASK_BITS).max(1);
        (0..words)
            .flat_map(|w| [format!("name_bits_{w}"), format!("place_bits_{w}")])
            .collect()
    }

    /// `name_bits_<w>` of a row with the `name_<i>` flags (a distinct name's).
    pub fn name_masks(&self) -> Vec<String> {
        self.mask_columns("name", |rule| !rule.name_patterns.is_empty())
    }

    /// `place_bits_<w>` of a row with the `place_<i>` flags (a distinct placement's).
    pub fn place_masks(&self) -> Vec<String> {
        self.mask_columns("place", ClassRule::tests_placement)
    }

    fn mask_columns(&self, kind: &str, has: impl Fn(&ClassRule) -> bool) -> Vec<String> {
        let words = self.rules.rules.len().div_ceil(MASK_BITS).max(1);
        (0..words)
            .map(|w| {
                let bits: Vec<String> = (self.rules.rules.iter().enumerate())
                    .filter(|(i, rule)| i / MASK_BITS == w && has(rule))
                    .map(|(i, _)| format!("{kind}_{i} * {}", 1_i64 << (i % MASK_BITS)))
                    .collect();
                let sum = if bits.is_empty() {
                    "0".to_string()
                } else {
                    bits.join(" + ")
                };
                format!(
                    "{} AS {kind}_bits_{w}",
                    self.dialect.cast(&sum, self.dialect.bigint_type())
                )
            })
            .collect()
    }

    /// The per-job aggregates of the runs' masks (any run matching).
    pub fn job_columns(&self) -> Vec<String> {
        self.masks()
            .iter()
            .map(|mask| format!("{} AS {mask}", self.dialect.bit_or(mask)))
            .collect()
    }

    /// Whether rule `i` holds for a job of `job` (alias of a row with the `job_columns`,
    /// `run_hours`, `gpus`, `util_gpu_hours`, `util_weight`) and its stem `stem` (alias with
    /// `jobs`, `run_hours`, `first_ms`, `last_ms`; NULL when the job has none).
    fn holds(&self, i: usize, rule: &ClassRule, job: &str, stem: &str, flags: Flags) -> String {
        let d = self.dialect;
        let double = |x: f64| d.cast(&format!("{x:?}"), d.double_type());
        let flag = |kind: &str| match flags {
            Flags::Columns => format!("{job}.{kind}_{i} = 1"),
            Flags::Masks => format!(
                "{} <> 0",
                d.bit_and(
                    &format!("{job}.{kind}_bits_{}", i / MASK_BITS),
                    &(1_i64 << (i % MASK_BITS)).to_string()
                )
            ),
        };
        let mut all = Vec::new();
        if !rule.name_patterns.is_empty() {
            all.push(flag("name"));
        }
        if rule.tests_placement() {
            all.push(flag("place"));
        }
        let hours = format!("{job}.run_hours");
        if let Some(min) = rule.min_hours {
            all.push(format!("{hours} >= {}", double(min)));
        }
        if let Some(max) = rule.max_hours {
            all.push(format!("{hours} <= {}", double(max)));
        }
        if let Some(min) = rule.min_gpus {
            all.push(format!("{job}.gpus >= {}", double(min)));
        }
        if let Some(max) = rule.max_gpus {
            all.push(format!("{job}.gpus <= {}", double(max)));
        }
        // A rule on utilization does not hold for a job that reports none.
        let util = format!("{job}.util_gpu_hours / NULLIF({job}.util_weight, 0)");
        if let Some(min) = rule.min_util {
            all.push(format!("{job}.util_weight > 0 AND {util} >= {}", double(min)));
        }
        if let Some(max) = rule.max_util {
            all.push(format!("{job}.util_weight > 0 AND {util} <= {}", double(max)));
        }
        if let Some(min) = rule.min_repeats {
            all.push(format!("{stem}.jobs >= {min}"));
        }
        if let Some(min) = rule.min_overlap {
            all.push(format!(
                "{stem}.last_ms > {stem}.first_ms AND {stem}.run_hours / (CAST({stem}.last_ms - {stem}.first_ms AS {}) / 3600000) >= {}",
                d.double_type(),
                double(min)
            ));
        }
        if all.is_empty() {
            "TRUE".to_string()
        } else {
            format!("({})", all.join(" AND "))
        }
    }

    /// The index of the first rule that holds for a job, `no_rule_index` when none does
    /// (labels aside): `matched_rule`.
    pub fn matched_rule(&self, job: &str, stem: &str, flags: Flags) -> String {
        let mut index: Vec<String> = Vec::new();
        for (i, rule) in self.rules.rules.iter().enumerate() {
            index.push(format!("WHEN {} THEN {i}", self.holds(i, rule, job, stem, flags)));
        }
        let no_rule = no_rule_index(self.rules);
        if index.is_empty() {
            return format!("{no_rule} AS matched_rule");
        }
        format!(
            "CASE {}
      ELSE {no_rule} END AS matched_rule",
            index.join("\n      ")
        )
    }

    /// `rule_class` (the class the matched rule gives, NULL when none matched), `rule` (the
    /// label's pseudo-rule when a label decided) and `class` of a row with `matched_rule` and
    /// `label_code`.
    pub fn decision_columns(&self) -> Vec<String> {
        let classes: Vec<String> = self
            .rules
            .rules
            .iter()
            .enumerate()
            .map(|(i, rule)| format!("WHEN {i} THEN {}", rule.class as u32))
            .collect();
        let rule_class = if classes.is_empty() {
            "NULL".to_string()
        } else {
            format!("CASE matched_rule {} END", classes.join(" "))
        };
        vec![
            format!("{rule_class} AS rule_class"),
            format!(
                "CASE WHEN label_code IS NOT NULL THEN {} ELSE matched_rule END AS rule",
                label_rule_index(self.rules)
            ),
            format!(
                "COALESCE(label_code, {rule_class}, {}) AS class",
                WorkloadClass::Training as u32
            ),
        ]
    }
}
