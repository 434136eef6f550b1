//! The column mapping: how one log's columns, units and times become the canonical job
//! frame. Users write it as TOML (documented in docs/auditing.md, "Column mapping"); `gpuplan
//! mapping init` guesses one from a file's header for them to edit.
//!
//! By file: the mapping and its units here, the column names each field goes by and the
//! completion of a mapping from a header in `synonyms`, the TOML `mapping init` writes in `init`.

mod init;
mod synonyms;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use self::init::render_mapping_toml;
pub use self::synonyms::{canonical_fields, holds_only_numbers};
use crate::data::places::MappingPlace;

pub const MAPPING_SCHEMA_VERSION: u32 = 1;

/// How GPU counts are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GpuUnit {
    /// Whole or fractional GPUs.
    #[default]
    Count,
    /// Thousandths of a GPU (Kubernetes milli-GPUs).
    Milli,
    /// Hundredths of a GPU (Alibaba PAI's plan_gpu: 100 = one GPU).
    Percent,
}

impl GpuUnit {
    pub fn to_gpus_factor(self) -> f64 {
        match self {
            GpuUnit::Count => 1.0,
            GpuUnit::Milli => 1e-3,
            GpuUnit::Percent => 1e-2,
        }
    }
}

/// How utilization is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum UtilUnit {
    /// Percent when any value exceeds 1, else a ratio.
    #[default]
    Auto,
    Percent,
    Ratio,
}

/// How bare numbers in a time-limit column are written; text like `1-02:00:00` (Slurm's
/// `[D-]HH:MM:SS`) is read as a duration whatever this says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DurationUnit {
    Seconds,
    /// Slurm's unit (`--time=90`, `TimelimitRaw`).
    #[default]
    Minutes,
    Hours,
}

impl DurationUnit {
    pub fn hours_per_unit(self) -> f64 {
        match self {
            DurationUnit::Seconds => 1.0 / 3600.0,
            DurationUnit::Minutes => 1.0 / 60.0,
            DurationUnit::Hours => 1.0,
        }
    }
}

/// How times are written. `auto` recognises ISO 8601 (with or without an offset or a common
/// zone abbreviation), `YYYY-MM-DD HH:MM:SS[.fff]`, `MM/DD/YYYY HH:MM:SS`, and epoch numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TimeFormat {
    #[default]
    Auto,
    /// Seconds since 1970-01-01 UTC.
    EpochS,
    /// Milliseconds since 1970-01-01 UTC.
    EpochMs,
    /// Seconds from the trace's start (`time_origin`), as Kubernetes-style traces write them.
    OffsetS,
    /// A strftime pattern, e.g. `%d/%m/%Y %H:%M`.
    #[serde(untagged)]
    Pattern(String),
}

/// What an empty GPU count means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EmptyGpus {
    /// The row is unusable: set aside as a number that cannot be read.
    #[default]
    Reject,
    /// No GPU: a CPU-only task (PAI leaves `plan_gpu` empty for parameter servers).
    Zero,
}

/// What an empty end time means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EmptyEnd {
    /// Still running or outside the trace: clipped to the observation window's end.
    #[default]
    Censored,
    /// The row is unusable: quarantined.
    Reject,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// What an empty start time means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EmptyStart {
    /// Unreadable (set aside), unless a submit time says the job never started.
    #[default]
    Reject,
    /// Running before the trace began (left-censored): the run starts at the trace's first
    /// instant, second 0 of `time_origin` (Alibaba's DLRM 2025 leaves these times empty).
    TraceStart,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Units {
    #[serde(default)]
    pub gpus: GpuUnit,
    #[serde(default)]
    pub gpu_util: UtilUnit,
    #[serde(default)]
    pub time: TimeFormat,
    /// Zone of times written without an offset: "UTC" or an IANA name like "America/Chicago".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// For `time = "offset-s"`: the instant second 0 stands for, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_origin: Option<String>,
    #[serde(default)]
    pub empty_end: EmptyEnd,
    /// An empty start: `reject` (the default) or `trace-start` (left-censored, for
    /// `time = "offset-s"`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub empty_start: EmptyStart,
    /// An empty GPU count: `reject` (the default) or `zero` (a CPU-only row).
    #[serde(default)]
    pub empty_gpus: EmptyGpus,
    /// Bare numbers in the `time_limit` column.
    #[serde(default)]
    pub time_limit: DurationUnit,
}

/// A whole mapping file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    pub schema_version: u32,
    /// A name `--input-format` takes (an entry of `readers::formats::FORMATS`); detected when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// One character; sniffed from the header when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
    /// False for headerless files: names come from `header_file` or `column_names`.
    #[serde(default = "yes")]
    pub has_header: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_file: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub column_names: Vec<String>,
    /// Strings that mean "no value".
    #[serde(default = "default_null_values")]
    pub null_values: Vec<String>,
    /// Canonical field → source column.
    #[serde(default)]
    pub columns: BTreeMap<String, String>,
    /// A column the GPU count is multiplied by, when the log splits it (Kubernetes traces:
    /// `num_gpu` GPUs of `gpu_milli` thousandths each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_multiplier: Option<String>,
    /// Canonical field → a value for every row (e.g. the cluster a whole file comes from).
    #[serde(default)]
    pub constants: BTreeMap<String, String>,
    #[serde(default)]
    pub units: Units,
    /// Cluster name → host patterns (Slurm host lists or globs), for DCGM samples that name
    /// hosts.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hosts: BTreeMap<String, Vec<String>>,
    /// The file the mapping was read from and the line of each key, so a problem found only
    /// when a log is read (a column the log lacks) can point into the mapping.
    #[serde(skip)]
    pub origin: Option<MappingOrigin>,
    /// Why each field or unit was filled in when the mapping was completed from a header (field
    /// or `units.KEY` → reason), for `mapping init` to say.
    #[serde(skip)]
    pub reasons: BTreeMap<String, String>,
}

/// Where a mapping came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MappingOrigin {
    pub file: String,
    /// Key path (`columns.user`) → 1-based line.
    pub key_lines: BTreeMap<String, usize>,
}

impl Mapping {
    /// A key of the mapping as a reader can find it: `the mapping m.toml:12 (columns.user)`,
    /// or `the mapping's columns.user` when it was not read from a file.
    pub fn place(&self, key: &str) -> MappingPlace {
        MappingPlace {
            file: self.origin.as_ref().map(|o| o.file.clone()),
            line: self.origin.as_ref().and_then(|o| o.key_lines.get(key).copied()),
            key: key.to_string(),
        }
    }
}

fn yes() -> bool {
    true
}

pub fn default_null_values() -> Vec<String> {
    ["", "NA", "N/A", "NULL", "null", "None", "none", "-"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

impl Default for Mapping {
    fn default() -> Mapping {
        Mapping {
            schema_version: MAPPING_SCHEMA_VERSION,
            format: None,
            delimiter: None,
            has_header: true,
            header_file: None,
            column_names: Vec::new(),
            null_values: default_null_values(),
            columns: BTreeMap::new(),
            gpu_multiplier: None,
            constants: BTreeMap::new(),
            units: Units::default(),
            hosts: BTreeMap::new(),
            origin: None,
            reasons: BTreeMap::new(),
        }
    }
}

impl Mapping {
    /// Problems with the mapping itself (unknown canonical fields, a bad delimiter).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut out = crate::data::audit::host_map::host_table_problems(&self.hosts);
        if let TimeFormat::Pattern(pattern) = &self.units.time
            && let Err(e) = chrono::format::StrftimeItems::new(pattern).parse()
        {
            out.push((
                "units.time".into(),
                format!("the strftime pattern \"{pattern}\" cannot be used: {e}; e.g. \"%d/%m/%Y %H:%M\""),
            ));
        }
        if self.schema_version != MAPPING_SCHEMA_VERSION {
            out.push(("schema_version".into(), format!("expected {MAPPING_SCHEMA_VERSION}")));
        }
        let known: Vec<&str> = canonical_fields().collect();
        for (table, keys) in [("columns", self.columns.keys()), ("constants", self.constants.keys())] {
            for key in keys.filter(|k| !known.contains(&k.as_str())) {
                out.push((
                    format!("{table}.{key}"),
                    format!("unknown field; expected one of: {}", known.join(", ")),
                ));
            }
        }
        if let Some(d) = &self.delimiter
            && (d.chars().count() != 1 || !d.is_ascii())
        {
            out.push((
                "delimiter".into(),
                "expected a single ASCII character, e.g. \",\" or \"|\"".into(),
            ));
        }
        if self.units.time == TimeFormat::OffsetS && self.units.time_origin.is_none() {
            out.push((
                "units.time_origin".into(),
                "time = \"offset-s\" needs the instant second 0 stands for".into(),
            ));
        }
        out
    }
}
