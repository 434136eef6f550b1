//! The plan's `[bill]` table: which bill lines are whose cluster.
//!
//! ```toml
//! [bill]
//! tag_key = "cluster"            # default
//! [bill.clusters]
//! us-east-h100 = ["arn:aws:ec2:us-east-1:*:instance/i-0a*", "sku:8XYZ*"]
//! eu-west-a100 = ["name:train-eu-*"]
//! ```
//!
//! A pattern is a glob, matched case-insensitively against the whole value: `*` is any run of
//! characters (`/` and `:` included), `?` one character, `[abc]` / `[!abc]` one of (not) these.
//! A leading `id:`, `name:` or `sku:` matches only `ResourceId`, `ResourceName` or `SkuId`;
//! without one the pattern matches `ResourceId` or `ResourceName`. Patterns come first, the
//! tag second: a line no pattern claims belongs to the cluster its `Tags` name under
//! `tag_key`. When several clusters' patterns match a line, the first cluster by name takes it
//! and the line is counted as claimed more than once. A bill read alone has no audit to say
//! which clusters exist: there, a tag names its cluster as written.

use std::collections::{BTreeMap, BTreeSet};

use glob::{MatchOptions, Pattern};
use serde::{Deserialize, Serialize};

use super::BillLine;

/// The name of the bucket for lines no cluster claims; no cluster may take it.
pub const UNASSIGNED: &str = "unassigned";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BillPlan {
    /// The key of a line's `Tags` whose value names its cluster.
    #[serde(default = "default_tag_key")]
    pub tag_key: String,
    /// Cluster name → patterns over `ResourceId`, `ResourceName` and `SkuId`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub clusters: BTreeMap<String, Vec<String>>,
}

pub fn default_tag_key() -> String {
    "cluster".to_string()
}

impl Default for BillPlan {
    fn default() -> BillPlan {
        BillPlan {
            tag_key: default_tag_key(),
            clusters: BTreeMap::new(),
        }
    }
}

/// Which of a line's values a pattern looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    ResourceId,
    ResourceName,
    SkuId,
    IdOrName,
}

/// Why a cluster's line pattern cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum PatternError {
    #[error("expected a pattern, e.g. \"arn:aws:ec2:*:instance/i-*\" or \"sku:8XYZ*\"")]
    Empty,
    #[error("'{text}': `**` is not needed, `*` already matches any characters (`/` and `:` included)")]
    DoubleStar { text: String },
    #[error("'{text}' is not a valid pattern: {why}")]
    Invalid { text: String, why: &'static str },
}

#[derive(Debug, Clone)]
struct LinePattern {
    field: Field,
    glob: Pattern,
}

const MATCH: MatchOptions = MatchOptions {
    case_sensitive: false,
    require_literal_separator: false,
    require_literal_leading_dot: false,
};

impl LinePattern {
    fn parse(text: &str) -> Result<LinePattern, PatternError> {
        let (field, glob) = [
            ("id:", Field::ResourceId),
            ("name:", Field::ResourceName),
            ("sku:", Field::SkuId),
        ]
        .iter()
        .find_map(|(prefix, field)| {
            text.get(..prefix.len())
                .filter(|p| p.eq_ignore_ascii_case(prefix))
                .map(|_| (*field, &text[prefix.len()..]))
        })
        .unwrap_or((Field::IdOrName, text));
        if glob.trim().is_empty() {
            return Err(PatternError::Empty);
        }
        if glob.contains("**") {
            return Err(PatternError::DoubleStar { text: text.to_string() });
        }
        let glob = Pattern::new(glob).map_err(|e| PatternError::Invalid {
            text: text.to_string(),
            why: e.msg,
        })?;
        Ok(LinePattern { field, glob })
    }

    fn matches(&self, line: &BillLine) -> bool {
        let test =
            |value: &Option<std::sync::Arc<str>>| value.as_deref().is_some_and(|v| self.glob.matches_with(v, MATCH));
        match self.field {
            Field::ResourceId => test(&line.resource_id),
            Field::ResourceName => test(&line.resource_name),
            Field::SkuId => test(&line.sku_id),
            Field::IdOrName => test(&line.resource_id) || test(&line.resource_name),
        }
    }
}

impl BillPlan {
    /// What is wrong with the table, as (key below `bill`, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut problems = Vec::new();
        if self.tag_key.trim().is_empty() {
            problems.push((
                "tag_key".to_string(),
                "expected the tag key naming a line's cluster, e.g. \"cluster\"".to_string(),
            ));
        }
        for (name, patterns) in &self.clusters {
            if name.trim().is_empty() {
                problems.push(("clusters".to_string(), "a cluster name is empty".to_string()));
            } else if name.eq_ignore_ascii_case(UNASSIGNED) {
                problems.push((
                    format!("clusters.{name}"),
                    format!("`{UNASSIGNED}` holds the lines no cluster claims: give the cluster another name"),
                ));
            }
            for (i, pattern) in patterns.iter().enumerate() {
                if let Err(e) = LinePattern::parse(pattern) {
                    problems.push((format!("clusters.{name}[{i}]"), e.to_string()));
                }
            }
        }
        problems
    }
}

/// Where a line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assignment<'a> {
    /// To this cluster; `also_matched` when another cluster's patterns matched too.
    Cluster {
        name: &'a str,
        also_matched: bool,
    },
    /// Nowhere: its tag names no cluster gpuplan knows.
    UnknownTag(&'a str),
    Unassigned,
}

/// A `[bill]` table made ready to assign lines.
#[derive(Debug, Clone)]
pub struct BillMatcher {
    tag_key: String,
    clusters: Vec<(String, Vec<LinePattern>)>,
    /// Names a tag may give: the table's clusters and the ones the audit and plan know.
    known: BTreeSet<String>,
    /// A tag naming none of them names a cluster of its own (the bill alone: no audit says
    /// which clusters there are).
    any_tag: bool,
}

impl BillMatcher {
    /// The matcher for `plan` (the default table when absent); `known` are the other
    /// cluster names a tag may name. Errors are `BillPlan::problems`.
    pub fn new(
        plan: Option<&BillPlan>,
        known: impl IntoIterator<Item = String>,
    ) -> Result<BillMatcher, Vec<(String, String)>> {
        let default = BillPlan::default();
        let plan = plan.unwrap_or(&default);
        let problems = plan.problems();
        if !problems.is_empty() {
            return Err(problems);
        }
        let mut clusters = Vec::new();
        for (name, patterns) in &plan.clusters {
            let parsed = patterns.iter().filter_map(|p| LinePattern::parse(p).ok()).collect();
            clusters.push((name.clone(), parsed));
        }
        let mut names: BTreeSet<String> = known.into_iter().collect();
        names.extend(plan.clusters.keys().cloned());
        Ok(BillMatcher {
            tag_key: plan.tag_key.clone(),
            clusters,
            known: names,
            any_tag: false,
        })
    }

    /// The same, with a tag naming no known cluster taken as a cluster of that name rather
    /// than as unknown: for a bill read alone, with no audit to say which clusters there are.
    pub fn taking_any_tag(self) -> BillMatcher {
        BillMatcher { any_tag: true, ..self }
    }

    pub fn tag_key(&self) -> &str {
        &self.tag_key
    }

    /// Patterns first (the first cluster by name), then the tag.
    pub fn assign<'a>(&'a self, line: &'a BillLine) -> Assignment<'a> {
        let mut matched = self
            .clusters
            .iter()
            .filter(|(_, patterns)| patterns.iter().any(|p| p.matches(line)));
        if let Some((name, _)) = matched.next() {
            return Assignment::Cluster {
                name,
                also_matched: matched.next().is_some(),
            };
        }
        match line.cluster_tag.as_deref().map(str::trim) {
            Some(tag) if !tag.is_empty() => match self.known.iter().find(|k| k.eq_ignore_ascii_case(tag)) {
                Some(name) => Assignment::Cluster {
                    name,
                    also_matched: false,
                },
                None if self.any_tag => Assignment::Cluster {
                    name: tag,
                    also_matched: false,
                },
                None => Assignment::UnknownTag(tag),
            },
            _ => Assignment::Unassigned,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ChargeCategory;
    use super::*;

    fn line(resource_id: &str, name: Option<&str>, sku: Option<&str>, tag: Option<&str>) -> BillLine {
        BillLine {
            resource_id: Some(resource_id.into()),
            resource_name: name.map(Into::into),
            sku_id: sku.map(Into::into),
            cluster_tag: tag.map(Into::into),
            ..BillLine::new(0, 1, 1.0, 1.0, ChargeCategory::Usage)
        }
    }

    fn plan(entries: &[(&str, &[&str])]) -> BillPlan {
        BillPlan {
            tag_key: default_tag_key(),
            clusters: entries
                .iter()
                .map(|(name, patterns)| (name.to_string(), patterns.iter().map(|p| p.to_string()).collect()))
                .collect(),
        }
    }

    #[test]
    fn patterns_come_before_tags_and_prefixes_pick_the_field() {
        let p = plan(&[
            ("us-east-h100", &["arn:aws:ec2:us-east-1:*:instance/i-0a*"]),
            ("us-west-h200", &["sku:H200*", "name:west-*"]),
        ]);
        let m = BillMatcher::new(Some(&p), ["eu-west-a100".to_string()]).expect("valid");
        let east = line(
            "arn:aws:ec2:us-east-1:123:instance/i-0abc",
            None,
            None,
            Some("eu-west-a100"),
        );
        assert_eq!(
            m.assign(&east),
            Assignment::Cluster {
                name: "us-east-h100",
                also_matched: false
            }
        );
        // Case does not matter; `sku:` looks at SkuId only.
        let west = line("ARN:AWS:EC2:US-WEST-2:1:INSTANCE/I-9", None, Some("h200-od"), None);
        assert!(matches!(
            m.assign(&west),
            Assignment::Cluster {
                name: "us-west-h200",
                ..
            }
        ));
        let by_name = line("x", Some("West-node-3"), None, None);
        assert!(matches!(
            m.assign(&by_name),
            Assignment::Cluster {
                name: "us-west-h200",
                ..
            }
        ));
        let sku_in_id = line("H200-in-the-id", None, None, None);
        assert_eq!(m.assign(&sku_in_id), Assignment::Unassigned);
        let tagged = line("x", None, None, Some("EU-WEST-A100"));
        assert!(matches!(
            m.assign(&tagged),
            Assignment::Cluster {
                name: "eu-west-a100",
                ..
            }
        ));
        let typo = line("x", None, None, Some("eu-wset"));
        assert_eq!(m.assign(&typo), Assignment::UnknownTag("eu-wset"));
        // Read alone, a bill's tags name its clusters; known names keep their spelling.
        let alone = m.clone().taking_any_tag();
        assert_eq!(
            alone.assign(&typo),
            Assignment::Cluster {
                name: "eu-wset",
                also_matched: false
            }
        );
        assert!(matches!(
            alone.assign(&tagged),
            Assignment::Cluster {
                name: "eu-west-a100",
                ..
            }
        ));
    }

    #[test]
    fn a_line_two_clusters_claim_goes_to_the_first_by_name() {
        let p = plan(&[("b", &["i-*"]), ("a", &["i-1*"])]);
        let m = BillMatcher::new(Some(&p), []).expect("valid");
        assert_eq!(
            m.assign(&line("i-12", None, None, None)),
            Assignment::Cluster {
                name: "a",
                also_matched: true
            }
        );
    }

    #[test]
    fn bad_patterns_are_named_by_their_key() {
        let p = BillPlan {
            tag_key: " ".to_string(),
            ..plan(&[("east", &["ok-*", "i-[0-9", "sku:", "arn:**"]), ("unassigned", &[])])
        };
        let keys: Vec<String> = p.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                "tag_key",
                "clusters.east[1]",
                "clusters.east[2]",
                "clusters.east[3]",
                "clusters.unassigned"
            ]
        );
        assert!(BillMatcher::new(Some(&p), []).is_err());
    }
}
