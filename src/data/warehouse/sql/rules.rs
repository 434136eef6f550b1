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
    /// stands for), `unknown_label` (a label `[labels]` does not know), `stem`.
    pub fn run_columns(&self) -> Vec<String> {
        let d = self.dialect;
        let lower_name = "LOWER(name)";
        let lower_queue = "LOWER(queue)";
        let lower_qos = "LOWER(qos)";
        let mut columns = Vec::new();
        for (i, rule) in self.rules.rules.iter().enumerate() {
            if !rule.name_patterns.is_empty() {
                columns.push(format!(
                    "CASE WHEN {} THEN 1 ELSE 0 END AS name_{i}",
                    self.any_pattern(lower_name, &rule.name_patterns)
                ));
            }
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
        let label = "LOWER(TRIM(label))";
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
                known.push(format!("WHEN {} THEN {}", in_list(d, label, &values), class as u32));
            }
        }
        let label_code = if known.is_empty() {
            d.cast("NULL", d.bigint_type())
        } else {
            format!("CASE {} END", known.join(" "))
        };
        columns.push(format!("{label_code} AS label_code"));
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
            format!("CASE WHEN {label} <> '' THEN TRIM(label) END")
        } else {
            format!(
                "CASE WHEN {label} <> '' AND NOT ({}) THEN TRIM(label) END",
                in_list(d, label, &unclassed)
            )
        };
        columns.push(format!("{unknown} AS unknown_label"));
        columns.push(format!("{} AS stem", d.replace_all(lower_name, STEM_PATTERN, "#")));
        columns
    }

    /// The per-job aggregates of `run_columns`' rule columns (any run matching).
    pub fn job_columns(&self) -> Vec<String> {
        let mut columns = Vec::new();
        for (i, rule) in self.rules.rules.iter().enumerate() {
            if !rule.name_patterns.is_empty() {
                columns.push(format!("MAX(name_{i}) AS name_{i}"));
            }
            if rule.tests_placement() {
                columns.push(format!("MAX(place_{i}) AS place_{i}"));
            }
        }
        columns
    }

    /// Whether rule `i` holds for a job of `job` (alias of a row with the `job_columns`,
    /// `run_hours`, `gpus`, `util_gpu_hours`, `util_weight`) and its stem `stem` (alias with
    /// `jobs`, `run_hours`, `first_ms`, `last_ms`; NULL when the job has none).
    fn holds(&self, i: usize, rule: &ClassRule, job: &str, stem: &str) -> String {
        let d = self.dialect;
        let double = |x: f64| d.cast(&format!("{x:?}"), d.double_type());
        let mut all = Vec::new();
        if !rule.name_patterns.is_empty() {
            all.push(format!("{job}.name_{i} = 1"));
        }
        if rule.tests_placement() {
            all.push(format!("{job}.place_{i} = 1"));
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
    pub fn matched_rule(&self, job: &str, stem: &str) -> String {
        let mut index: Vec<String> = Vec::new();
        for (i, rule) in self.rules.rules.iter().enumerate() {
            index.push(format!("WHEN {} THEN {i}", self.holds(i, rule, job, stem)));
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
