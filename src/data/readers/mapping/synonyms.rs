//! The names a log's columns go by for each canonical field, and a mapping completed from a
//! file's header with them (units guessed from the names too).

use super::{GpuUnit, Mapping, UtilUnit};

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
    ("queue", &["queue", "partition", "priorityclass", "tier"]),
    ("qos", &["qos", "qosclass", "qoslevel", "podqos", "qualityofservice"]),
    (
        "owner_kind",
        &[
            "ownerkind",
            "ownertype",
            "workloadkind",
            "controllerkind",
            "ownerreferencekind",
        ],
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
        &[
            "label",
            "class",
            "workloadclass",
            "jobtype",
            "workloadtype",
            "category",
            "type",
            "tasktype",
            "workload",
        ],
    ),
    (
        "wait",
        &[
            "wait",
            "waittime",
            "waitsec",
            "waitsecs",
            "waitseconds",
            "queuedelay",
            "queueingdelay",
            "queueseconds",
        ],
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
    /// Fills every canonical field the mapping leaves open with a source column whose name
    /// is a known synonym, and the GPU unit from names like `gpu_milli` or `plan_gpu`.
    pub fn complete_from_header(&mut self, header: &[String]) {
        // A column the mapping already reads is not guessed for another field.
        let taken: std::collections::BTreeSet<String> = self.columns.values().map(|s| simplify(s)).collect();
        let header: Vec<String> = header
            .iter()
            .filter(|h| !taken.contains(&simplify(h)))
            .cloned()
            .collect();
        let header = header.as_slice();
        for (field, synonyms) in FIELD_SYNONYMS {
            if self.columns.contains_key(*field) || self.constants.contains_key(*field) {
                continue;
            }
            let exact = header.iter().find(|h| simplify(h) == simplify(field));
            let by_synonym = || synonyms.iter().find_map(|s| header.iter().find(|h| simplify(h) == *s));
            if let Some(source) = exact.or_else(by_synonym) {
                let reason = if simplify(source) == simplify(field) {
                    format!("the header names it `{source}`")
                } else {
                    format!("`{source}` is a name logs use for {field}")
                };
                self.reasons.insert(field.to_string(), reason);
                if *field == "gpus" && self.units.gpus == GpuUnit::Count {
                    let simple = simplify(source);
                    if simple.contains("milli") {
                        self.units.gpus = GpuUnit::Milli;
                        self.reasons
                            .insert("units.gpus".into(), format!("`{source}` counts thousandths of a GPU"));
                        // A share per GPU beside a GPU count: the job holds count × share.
                        let count = header
                            .iter()
                            .find(|h| ["numgpu", "numgpus", "gpucount", "ngpus"].contains(&simplify(h).as_str()));
                        if self.gpu_multiplier.is_none() {
                            self.gpu_multiplier = count.cloned();
                            if let Some(count) = count {
                                self.reasons.insert(
                                    "gpu_multiplier".into(),
                                    format!("`{count}` counts the GPUs each holding `{source}` thousandths"),
                                );
                            }
                        }
                    } else if simple == "plangpu" {
                        self.units.gpus = GpuUnit::Percent;
                        self.reasons.insert(
                            "units.gpus".into(),
                            format!("`{source}` is Alibaba PAI's, in hundredths of a GPU"),
                        );
                    }
                }
                if *field == "gpu_util" && self.units.gpu_util == UtilUnit::Auto {
                    let simple = simplify(source);
                    if simple.ends_with("pct") || simple.ends_with("percent") {
                        self.units.gpu_util = UtilUnit::Percent;
                        self.reasons
                            .insert("units.gpu_util".into(), format!("`{source}` ends in pct"));
                    } else if simple.ends_with("frac") || simple.ends_with("ratio") {
                        self.units.gpu_util = UtilUnit::Ratio;
                        self.reasons
                            .insert("units.gpu_util".into(), format!("`{source}` is a fraction"));
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
                self.reasons.remove(&field);
            }
        }
    }
}

/// Whether a column's values (empty ones skipped) are all numbers, and there is one: such a
/// column guessed as the queue holds waits (AcmeTrace), not queue names.
pub fn holds_only_numbers<'a>(values: impl IntoIterator<Item = &'a str>) -> bool {
    let mut numbers = 0usize;
    for value in values {
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        if value.parse::<f64>().is_err() {
            return false;
        }
        numbers += 1;
    }
    numbers > 0
}
