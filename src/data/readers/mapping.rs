//! The column mapping: how one log's columns, units and times become the canonical job
//! frame. Users write it as TOML (documented in README.md, "Column mapping"); `gpuplan
//! mapping init` guesses one from a file's header for them to edit.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub const MAPPING_SCHEMA_VERSION: u32 = 1;

/// Canonical fields a mapping can fill, with the source names commonly seen for each
/// (compared lowercase with `_`, `-`, `.` and spaces removed).
pub const FIELD_SYNONYMS: &[(&str, &[&str])] = &[
    (
        "job_id",
        &[
            "jobid",
            "id",
            "job",
            "applicationid",
            "appid",
            "instid",
            "uid",
            "jobuid",
        ],
    ),
    ("cluster", &["cluster", "clustername", "vc", "virtualcluster", "pool"]),
    (
        "name",
        &[
            "name",
            "jobname",
            "taskname",
            "app",
            "application",
            "appname",
            "workloadname",
        ],
    ),
    ("user", &["user", "username", "owner", "account"]),
    (
        "queue",
        &["queue", "partition", "qos", "priorityclass", "qosclass", "tier"],
    ),
    (
        "state",
        &["state", "status", "exitstatus", "jobstatus", "podphase", "phase"],
    ),
    (
        "start",
        &[
            "start",
            "starttime",
            "started",
            "begin",
            "begintime",
            "scheduledtime",
            "launchtime",
            "runstart",
        ],
    ),
    (
        "end",
        &[
            "end",
            "endtime",
            "ended",
            "finish",
            "finishtime",
            "finished",
            "completiontime",
            "deletiontime",
            "runend",
        ],
    ),
    (
        "submit",
        &[
            "submit",
            "submittime",
            "submittedtime",
            "submitted",
            "submissiontime",
            "creationtime",
            "createtime",
            "creationtimestamp",
            "queuetime",
            "queuedtime",
            "enqueuetime",
            "arrivaltime",
        ],
    ),
    (
        "gpus",
        &[
            "gpus",
            "numgpus",
            "gpucount",
            "ngpus",
            "gpunum",
            "gpu",
            "plangpu",
            "gpumilli",
            "gpurequest",
            "allocgpus",
        ],
    ),
    (
        "gpu_type",
        &[
            "gputype",
            "gpumodel",
            "gpuname",
            "accelerator",
            "gputypespec",
            "gpuproduct",
        ],
    ),
    (
        "gpu_util",
        &[
            "gpuutil",
            "gpuutilpct",
            "gpuutilfrac",
            "util",
            "gpuutilization",
            "utilization",
            "smactive",
            "gpuwrkutil",
            "meangpuutil",
        ],
    ),
    (
        "label",
        &["label", "class", "workloadclass", "jobtype", "workloadtype", "category"],
    ),
    (
        "time_limit",
        &[
            "timelimit",
            "timelimitraw",
            "walltime",
            "walltimelimit",
            "requestedtime",
            "requestedduration",
            "reqtime",
            "reqduration",
            "maxruntime",
        ],
    ),
];

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
    /// Bare numbers in the `time_limit` column.
    #[serde(default)]
    pub time_limit: DurationUnit,
}

/// A whole mapping file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    pub schema_version: u32,
    /// csv, tsv, parquet, ndjson, json, sacct, philly, dcgm-long, dcgm-wide; detected when absent.
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
    pub fn place(&self, key: &str) -> String {
        match &self.origin {
            Some(origin) => match origin.key_lines.get(key) {
                Some(line) => format!("the mapping {}:{line} ({key})", origin.file),
                None => format!("the mapping {} ({key})", origin.file),
            },
            None => format!("the mapping's {key}"),
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
        }
    }
}

pub fn canonical_fields() -> impl Iterator<Item = &'static str> {
    FIELD_SYNONYMS.iter().map(|(field, _)| *field)
}

fn simplify(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
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

    /// Fills every canonical field the mapping leaves open with a source column whose name
    /// is a known synonym, and the GPU unit from names like `gpu_milli` or `plan_gpu`.
    pub fn complete_from_header(&mut self, header: &[String]) {
        for (field, synonyms) in FIELD_SYNONYMS {
            if self.columns.contains_key(*field) || self.constants.contains_key(*field) {
                continue;
            }
            let exact = header.iter().find(|h| simplify(h) == simplify(field));
            let by_synonym = || synonyms.iter().find_map(|s| header.iter().find(|h| simplify(h) == *s));
            if let Some(source) = exact.or_else(by_synonym) {
                if *field == "gpus" && self.units.gpus == GpuUnit::Count {
                    let simple = simplify(source);
                    if simple.contains("milli") {
                        self.units.gpus = GpuUnit::Milli;
                        // A share per GPU beside a GPU count: the job holds count × share.
                        let count = header
                            .iter()
                            .find(|h| ["numgpu", "numgpus", "gpucount", "ngpus"].contains(&simplify(h).as_str()));
                        if self.gpu_multiplier.is_none() {
                            self.gpu_multiplier = count.cloned();
                        }
                    } else if simple == "plangpu" {
                        self.units.gpus = GpuUnit::Percent;
                    }
                }
                if *field == "gpu_util" && self.units.gpu_util == UtilUnit::Auto {
                    let simple = simplify(source);
                    if simple.ends_with("pct") || simple.ends_with("percent") {
                        self.units.gpu_util = UtilUnit::Percent;
                    } else if simple.ends_with("frac") || simple.ends_with("ratio") {
                        self.units.gpu_util = UtilUnit::Ratio;
                    }
                }
                self.columns.insert(field.to_string(), source.clone());
            }
        }
        // The same source column must not fill two fields (e.g. PAI's job_name as id and name).
        let mut seen = std::collections::BTreeSet::new();
        let order: Vec<&str> = canonical_fields().collect();
        let mut entries: Vec<(String, String)> = self.columns.clone().into_iter().collect();
        entries.sort_by_key(|(field, _)| order.iter().position(|f| f == field));
        for (field, source) in entries {
            if !seen.insert(source) {
                self.columns.remove(&field);
            }
        }
    }
}

/// The commented TOML `gpuplan mapping init` writes for a file with `header`.
pub fn render_mapping_toml(mapping: &Mapping, header: &[String], file_name: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "# gpuplan column mapping for {file_name}, guessed from its header: check every line.\n"
    ));
    out.push_str("# Use it with: gpuplan audit LOG --mapping THIS_FILE\n");
    out.push_str(&format!("# Source columns: {}\n", header.join(", ")));
    out.push_str(&format!("schema_version = {MAPPING_SCHEMA_VERSION}\n"));
    if let Some(format) = &mapping.format {
        out.push_str(&format!("format = \"{format}\"\n"));
    }
    if let Some(delimiter) = &mapping.delimiter {
        out.push_str(&format!("delimiter = {}\n", toml_string(delimiter)));
    }
    out.push_str(&format!("has_header = {}\n", mapping.has_header));
    if let Some(header_file) = &mapping.header_file {
        out.push_str(&format!("header_file = {}\n", toml_string(header_file)));
    }
    let nulls: Vec<String> = mapping.null_values.iter().map(|n| toml_string(n)).collect();
    out.push_str(&format!(
        "null_values = [{}]   # strings that mean \"no value\"\n",
        nulls.join(", ")
    ));
    match &mapping.gpu_multiplier {
        Some(m) => out.push_str(&format!(
            "\n# GPUs = gpus × this column (a share per GPU times the GPU count)\ngpu_multiplier = {}\n",
            toml_string(m)
        )),
        None => out.push_str(
            "\n# gpu_multiplier = \"num_gpu\"   # when gpus is a share per GPU and another column counts the GPUs\n",
        ),
    }
    out.push_str("\n# canonical field = source column. Remove a line to leave a field empty.\n[columns]\n");
    for field in canonical_fields() {
        match mapping.columns.get(field) {
            Some(source) => out.push_str(&format!("{field} = {}\n", toml_string(source))),
            None => out.push_str(&format!("# {field} = \"...\"   # not found in the header\n")),
        }
    }
    out.push_str("\n# A value for every row of the file, e.g. the cluster it comes from.\n[constants]\n");
    if !mapping.columns.contains_key("cluster") {
        let stem = file_name
            .rsplit('/')
            .next()
            .unwrap_or(file_name)
            .split('.')
            .next()
            .unwrap_or("cluster");
        out.push_str(&format!("cluster = {}\n", toml_string(stem)));
    }
    let u = &mapping.units;
    out.push_str("\n[units]\n");
    out.push_str(&format!(
        "gpus = \"{}\"       # count, milli (1000 = one GPU) or percent (100 = one GPU)\n",
        kebab(&u.gpus)
    ));
    out.push_str(&format!(
        "gpu_util = \"{}\"   # auto, percent (0-100) or ratio (0-1)\n",
        kebab(&u.gpu_util)
    ));
    let time = match &u.time {
        TimeFormat::Pattern(p) => toml_string(p),
        other => format!("\"{}\"", kebab(other)),
    };
    out.push_str(&format!(
        "time = {time}       # auto, epoch-s, epoch-ms, offset-s, or a strftime pattern like \"%d/%m/%Y %H:%M\"\n"
    ));
    out.push_str(&format!(
        "time_zone = {}   # zone of times written without an offset\n",
        toml_string(u.time_zone.as_deref().unwrap_or("UTC"))
    ));
    match &u.time_origin {
        Some(origin) => out.push_str(&format!("time_origin = {}\n", toml_string(origin))),
        None => out.push_str(
            "# time_origin = \"2020-01-01T00:00:00Z\"   # for time = \"offset-s\": the instant second 0 stands for\n",
        ),
    }
    out.push_str(&format!(
        "empty_end = \"{}\"  # censored (clipped to the observation window) or reject\n",
        kebab(&u.empty_end)
    ));
    out.push_str(&format!(
        "time_limit = \"{}\"  # bare numbers of the time_limit column: seconds, minutes or hours ([D-]HH:MM:SS is read as it is)\n",
        kebab(&u.time_limit)
    ));
    out
}

fn kebab<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn guesses_fields_and_units_from_common_headers() {
        let mut m = Mapping::default();
        m.complete_from_header(&header(&[
            "JobID",
            "JobName",
            "User",
            "Partition",
            "Start",
            "End",
            "gpu_milli",
            "GPU Util %",
        ]));
        assert_eq!(m.columns["job_id"], "JobID");
        assert_eq!(m.columns["name"], "JobName");
        assert_eq!(m.columns["queue"], "Partition");
        assert_eq!(m.columns["gpus"], "gpu_milli");
        assert_eq!(m.units.gpus, GpuUnit::Milli);
        assert!(!m.columns.contains_key("label"));
    }

    #[test]
    fn pai_job_table_maps_plan_gpu_as_hundredths_and_does_not_reuse_a_column() {
        let mut m = Mapping::default();
        m.complete_from_header(&header(&[
            "job_name",
            "task_name",
            "inst_num",
            "status",
            "start_time",
            "end_time",
            "plan_cpu",
            "plan_mem",
            "plan_gpu",
            "gpu_type",
        ]));
        assert_eq!(m.columns["gpus"], "plan_gpu");
        assert_eq!(m.units.gpus, GpuUnit::Percent);
        assert_eq!(m.columns["start"], "start_time");
        let sources: Vec<&String> = m.columns.values().collect();
        let mut unique = sources.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), sources.len(), "{:?}", m.columns);
    }

    #[test]
    fn the_rendered_mapping_parses_back_to_the_same_mapping() {
        let mut m = Mapping::default();
        let h = header(&["job_id", "start", "end", "gpus", "gpu_util_pct"]);
        m.complete_from_header(&h);
        let text = render_mapping_toml(&m, &h, "logs/east.csv");
        let mut parsed: Mapping = toml::from_str(&text).expect("rendered mapping parses");
        assert_eq!(parsed.constants.remove("cluster").as_deref(), Some("east"));
        assert_eq!(parsed.units.gpu_util, UtilUnit::Percent);
        assert_eq!(parsed.columns, m.columns);
        assert!(parsed.problems().is_empty());
    }

    #[test]
    fn problems_name_unknown_fields() {
        let mut m = Mapping::default();
        m.columns.insert("gpu_count".into(), "n".into());
        m.delimiter = Some("||".into());
        let keys: Vec<String> = m.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec!["columns.gpu_count".to_string(), "delimiter".to_string()]);
    }
}
