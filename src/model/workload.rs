//! Workload classes (docs/economics.md, "Workload classes") and the rules that assign them, as plain data.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadClass {
    Training,
    Inference,
    Burst,
}

impl WorkloadClass {
    pub const ALL: [WorkloadClass; 3] = [WorkloadClass::Training, WorkloadClass::Inference, WorkloadClass::Burst];

    pub fn label(self) -> &'static str {
        match self {
            WorkloadClass::Training => "training",
            WorkloadClass::Inference => "inference",
            WorkloadClass::Burst => "burst",
        }
    }
}

/// Label values in logs that mean each class (compared lowercase).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelSynonyms {
    pub training: Vec<String>,
    pub inference: Vec<String>,
    pub burst: Vec<String>,
    /// Values that say "no class" (AcmeTrace's Other): left to the rules, and not reported as
    /// labels the vocabulary lacks.
    #[serde(default)]
    pub unclassed: Vec<String>,
}

impl LabelSynonyms {
    pub fn of(&self, class: WorkloadClass) -> &[String] {
        match class {
            WorkloadClass::Training => &self.training,
            WorkloadClass::Inference => &self.inference,
            WorkloadClass::Burst => &self.burst,
        }
    }

    /// Whether `label` (any case, trimmed) says the log leaves the class open.
    pub fn is_unclassed(&self, label: &str) -> bool {
        let label = label.trim();
        label.is_empty() || self.unclassed.iter().any(|u| u.eq_ignore_ascii_case(label))
    }
}

/// One classification rule: every condition given must hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassRule {
    pub name: String,
    pub class: WorkloadClass,
    #[serde(default)]
    pub name_patterns: Vec<String>,
    #[serde(default)]
    pub queue_patterns: Vec<String>,
    /// The job's QoS class is one of these (whole value, any case): `LS`, `best-effort`.
    #[serde(default)]
    pub qos: Vec<String>,
    /// The kind of the workload owning the job is one of these (whole value, any case):
    /// `ReplicaSet`, `PyTorchJob`, `Notebook`.
    #[serde(default)]
    pub owner_kinds: Vec<String>,
    pub min_hours: Option<f64>,
    pub max_hours: Option<f64>,
    pub min_gpus: Option<f64>,
    pub max_gpus: Option<f64>,
    pub min_util: Option<f64>,
    pub max_util: Option<f64>,
    /// At least this many jobs of the cluster share the name's stem.
    pub min_repeats: Option<u32>,
    /// The stem's summed run hours over its time span reach this.
    pub min_overlap: Option<f64>,
}

impl ClassRule {
    /// Whether the rule tests where the job was placed and how it is run (its queue, QoS or
    /// owner kind): those conditions are evaluated together, per run, as one bit.
    pub fn tests_placement(&self) -> bool {
        !(self.queue_patterns.is_empty() && self.qos.is_empty() && self.owner_kinds.is_empty())
    }
}

/// The ordered rules with the label synonyms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassificationRules {
    pub schema_version: u32,
    pub labels: LabelSynonyms,
    #[serde(rename = "rule")]
    pub rules: Vec<ClassRule>,
}

/// The name of the pseudo-rule for jobs whose log labels them.
pub const LABEL_RULE: &str = "label in the log";
