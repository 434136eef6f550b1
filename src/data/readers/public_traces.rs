//! The public GPU traces a planner tries first, recognised from their header (or, for
//! Alibaba PAI 2020's headerless tables, from the column count and the shape of the first
//! row) and read as their publishers document them, with no mapping:
//! - AcmeTrace (Shanghai AI Lab, NSDI '24): `trace_kalos.csv`, `trace_seren.csv`;
//! - Helios (SenseTime, SC '21): `<Cluster>/cluster_log.csv`;
//! - Alibaba GPU 2023 (openb, Kubernetes pods): `openb_pod_list_*.csv`;
//! - Alibaba GPU-disaggregated DLRM 2025 (NSDI '25): `disaggregated_DLRM_trace.csv`;
//! - Alibaba PAI 2020: `pai_task_table.csv` (and `pai_job_table.csv`, refused with the table
//!   to audit instead: it holds no GPU counts).
//!
//! Each layout becomes a mapping with the reason for every column, so `mapping init` shows
//! what the audit reads. A mapping the user gives always wins: recognition only fills an
//! empty one.

use std::path::Path;

use super::detect::split_header;
use super::mapping::{EmptyEnd, EmptyGpus, EmptyStart, GpuUnit, Mapping, TimeFormat};

/// Where second 0 of a trace that writes seconds from an undisclosed origin is placed; dates
/// are nominal, spans, hours and waits exact. PAI 2020's times are Unix times less a
/// constant that keeps the time of day and the weekday (its README), and its trace spans July
/// and August 2020: 2020-07-02 is a whole number of weeks after 1970-01-01, so both stay true.
const PAI_2020_ORIGIN: &str = "2020-07-02T00:00:00Z";
/// openb counts seconds from the trace's start; the trace was published in 2023.
const OPENB_ORIGIN: &str = "2023-01-01T00:00:00Z";
/// DLRM 2025 counts seconds from the trace's start and publishes no date: second 0 is placed
/// on a Monday of the year it was published (a week's shape stays a week's), overridable with
/// `--time-origin` or the mapping's `units.time_origin`.
pub const DLRM_2025_ORIGIN: &str = "2025-01-06T00:00:00Z";

/// One public trace's table.
pub struct PublicTable {
    /// The trace and its publisher, as the user is told.
    pub trace: &'static str,
    pub table: &'static str,
    /// The columns in published order. A header is recognised when it holds them all, in any
    /// order, with others beside (AcmeTrace's Kalos adds memory and failure columns, both its
    /// clusters `gpu_time`).
    pub columns: &'static [&'static str],
    /// Published without a header row: how its first row is known.
    pub row_shape: Option<fn(&[&str]) -> bool>,
    /// Canonical field, source column, why.
    fields: &'static [(&'static str, &'static str, &'static str)],
    /// Where the cluster's name comes from.
    cluster: ClusterName,
    /// Units, multipliers and nulls the publisher documents, each with its reason.
    units: fn(&mut Mapping),
    /// The table has no GPU counts: the table to audit instead.
    audit_instead: Option<&'static str>,
}

/// Where a public table's cluster name comes from.
#[derive(Clone, Copy)]
enum ClusterName {
    /// The file's name without this prefix (`trace_kalos.csv` → `kalos`).
    FileStemAfter(&'static str),
    /// The folder the file is in (`Venus/cluster_log.csv` → `Venus`).
    Folder,
    /// The file's name (`openb_pod_list_default.csv` → `openb_pod_list_default`).
    FileStem,
    /// One name for the whole trace.
    Named(&'static str),
}

impl ClusterName {
    fn of(self, path: &Path) -> String {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("cluster");
        match self {
            ClusterName::FileStemAfter(prefix) => stem.strip_prefix(prefix).unwrap_or(stem),
            ClusterName::Folder => path
                .parent()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str())
                .filter(|n| !n.is_empty())
                .unwrap_or(stem),
            ClusterName::FileStem => stem,
            ClusterName::Named(name) => name,
        }
        .to_string()
    }
}

/// A table whose columns are read as they are.
fn as_written(_: &mut Mapping) {}

const ACME: PublicTable = PublicTable {
    trace: "AcmeTrace (Shanghai AI Lab, NSDI '24)",
    table: "trace_<cluster>.csv",
    columns: &[
        "job_id",
        "user",
        "node_num",
        "gpu_num",
        "cpu_num",
        "type",
        "state",
        "submit_time",
        "start_time",
        "end_time",
        "duration",
        "queue",
    ],
    row_shape: None,
    fields: &[
        ("job_id", "job_id", "AcmeTrace's job id"),
        ("user", "user", "AcmeTrace's user"),
        ("gpus", "gpu_num", "AcmeTrace's GPUs per job"),
        (
            "label",
            "type",
            "AcmeTrace's job type: Pretrain, SFT, MLLM, Evaluation, Debug, Other",
        ),
        ("state", "state", "AcmeTrace's Slurm state"),
        ("submit", "submit_time", "AcmeTrace's submit time"),
        ("start", "start_time", "AcmeTrace's start time"),
        ("end", "end_time", "AcmeTrace's end time"),
        ("wait", "queue", "AcmeTrace's queue: the seconds the job waited"),
    ],
    cluster: ClusterName::FileStemAfter("trace_"),
    units: as_written,
    audit_instead: None,
};

const HELIOS: PublicTable = PublicTable {
    trace: "Helios (SenseTime, SC '21)",
    table: "<Cluster>/cluster_log.csv",
    columns: &[
        "job_id",
        "user",
        "vc",
        "gpu_num",
        "cpu_num",
        "node_num",
        "state",
        "submit_time",
        "start_time",
        "end_time",
        "duration",
        "queue",
    ],
    row_shape: None,
    fields: &[
        ("job_id", "job_id", "Helios's job id"),
        ("user", "user", "Helios's user"),
        (
            "queue",
            "vc",
            "Helios's virtual cluster: a team's share of the physical cluster, as a partition is",
        ),
        ("gpus", "gpu_num", "Helios's GPUs per job (0 for CPU jobs)"),
        ("state", "state", "Helios's Slurm state"),
        ("submit", "submit_time", "Helios's submit time"),
        ("start", "start_time", "Helios's start time"),
        ("end", "end_time", "Helios's end time"),
        ("wait", "queue", "Helios's queue: the seconds the job waited"),
    ],
    cluster: ClusterName::Folder,
    units: as_written,
    audit_instead: None,
};

const OPENB_PODS: PublicTable = PublicTable {
    trace: "Alibaba GPU 2023 (openb, Kubernetes pods)",
    table: "openb_pod_list_*.csv",
    columns: &[
        "name",
        "cpu_milli",
        "memory_mib",
        "num_gpu",
        "gpu_milli",
        "gpu_spec",
        "qos",
        "pod_phase",
        "creation_time",
        "deletion_time",
        "scheduled_time",
    ],
    row_shape: None,
    fields: &[
        ("job_id", "name", "openb's pod name"),
        ("gpus", "gpu_milli", "openb's share of each GPU, in thousandths"),
        (
            "gpu_type",
            "gpu_spec",
            "openb's GPU models the pod accepts (A10|T4: either)",
        ),
        (
            "qos",
            "qos",
            "openb's QoS: LS (latency-sensitive: serving), BE (best-effort), Burstable",
        ),
        ("state", "pod_phase", "openb's pod phase"),
        ("submit", "creation_time", "openb's creation time"),
        (
            "start",
            "scheduled_time",
            "openb's scheduling time (empty: never placed)",
        ),
        ("end", "deletion_time", "openb's deletion time"),
    ],
    cluster: ClusterName::FileStem,
    units: openb_units,
    audit_instead: None,
};

const DLRM_2025: PublicTable = PublicTable {
    trace: "Alibaba GPU-disaggregated DLRM 2025 (cluster-trace-gpu-v2025, NSDI '25)",
    table: "disaggregated_DLRM_trace.csv",
    columns: &[
        "instance_sn",
        "role",
        "app_name",
        "cpu_request",
        "cpu_limit",
        "gpu_request",
        "gpu_limit",
        "rdma_request",
        "rdma_limit",
        "memory_request",
        "memory_limit",
        "disk_request",
        "disk_limit",
        "max_instance_per_node",
        "creation_time",
        "scheduled_time",
        "deletion_time",
    ],
    row_shape: None,
    fields: &[
        ("job_id", "instance_sn", "DLRM's inference instance"),
        (
            "name",
            "app_name",
            "DLRM's application group: the service its instances serve",
        ),
        (
            "queue",
            "role",
            "DLRM's role: HN (a heterogeneous GPU node's instance) or CN (CPU node: no GPU)",
        ),
        ("gpus", "gpu_request", "DLRM's GPUs requested by the instance"),
        (
            "submit",
            "creation_time",
            "DLRM's creation, seconds from the trace's start (empty: before it began)",
        ),
        (
            "start",
            "scheduled_time",
            "DLRM's scheduling, seconds from the trace's start (empty: before it began)",
        ),
        (
            "end",
            "deletion_time",
            "DLRM's deletion, seconds from the trace's start (empty: after it ended)",
        ),
    ],
    cluster: ClusterName::Named("dlrm"),
    units: dlrm_units,
    audit_instead: None,
};

const PAI_TASKS: PublicTable = PublicTable {
    trace: "Alibaba PAI 2020 (cluster-trace-gpu-v2020)",
    table: "pai_task_table.csv",
    columns: &[
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
    ],
    row_shape: Some(is_pai_task_row),
    fields: &[
        (
            "job_id",
            "job_name",
            "PAI's job: its tasks (worker, ps, evaluator, ...) are its rows",
        ),
        ("name", "task_name", "PAI's task role"),
        ("state", "status", "PAI's task status"),
        (
            "start",
            "start_time",
            "PAI's task start, seconds from the trace's origin",
        ),
        ("end", "end_time", "PAI's task end, seconds from the trace's origin"),
        ("gpus", "plan_gpu", "PAI's GPUs per instance, in hundredths of a GPU"),
        (
            "gpu_type",
            "gpu_type",
            "PAI's GPU model (MISC, T4, P100, V100, V100M32)",
        ),
    ],
    cluster: ClusterName::Named("pai"),
    units: pai_task_units,
    audit_instead: None,
};

const PAI_JOBS: PublicTable = PublicTable {
    trace: "Alibaba PAI 2020 (cluster-trace-gpu-v2020)",
    table: "pai_job_table.csv",
    columns: &["job_name", "inst_id", "user", "status", "start_time", "end_time"],
    row_shape: Some(is_pai_job_row),
    fields: &[],
    cluster: ClusterName::Named("pai"),
    units: as_written,
    audit_instead: Some("pai_task_table.csv (its tasks hold the GPU counts: plan_gpu × inst_num)"),
};

/// Every table recognised.
pub const PUBLIC_TABLES: [&PublicTable; 6] = [&ACME, &HELIOS, &OPENB_PODS, &DLRM_2025, &PAI_TASKS, &PAI_JOBS];

/// PAI's task and job statuses.
const PAI_STATUSES: [&str; 5] = ["Terminated", "Failed", "Running", "Waiting", "Interrupted"];

fn simplified(name: &str) -> String {
    name.trim().trim_matches('"').to_ascii_lowercase()
}

fn is_number_or_empty(value: &str) -> bool {
    let value = value.trim();
    value.is_empty() || value.parse::<f64>().is_ok()
}

fn is_hex_id(value: &str) -> bool {
    value.len() >= 16 && value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A row of PAI's task table: a hex job id, a status, numbers where PAI writes numbers.
fn is_pai_task_row(row: &[&str]) -> bool {
    row.len() == PAI_TASKS.columns.len()
        && is_hex_id(row[0])
        && PAI_STATUSES.contains(&row[3].trim())
        && [2, 4, 5, 6, 7, 8].iter().all(|&i| is_number_or_empty(row[i]))
}

/// A row of PAI's job table: two hex ids, a status, two times.
fn is_pai_job_row(row: &[&str]) -> bool {
    row.len() == PAI_JOBS.columns.len()
        && is_hex_id(row[0])
        && is_hex_id(row[1])
        && PAI_STATUSES.contains(&row[3].trim())
        && is_number_or_empty(row[4])
        && is_number_or_empty(row[5])
}

/// openb: a share of each of `num_gpu` GPUs in thousandths, seconds from the trace's start.
fn openb_units(mapping: &mut Mapping) {
    mapping.units.gpus = GpuUnit::Milli;
    mapping.gpu_multiplier = Some("num_gpu".into());
    mapping.units.time = TimeFormat::OffsetS;
    // `--time-origin` (already set) wins over the nominal origin.
    mapping.units.time_origin.get_or_insert_with(|| OPENB_ORIGIN.into());
    let reasons = [
        (
            "gpu_multiplier",
            "openb's num_gpu: the GPUs the pod holds a share of".to_string(),
        ),
        ("units.gpus", "openb's gpu_milli: thousandths of a GPU".to_string()),
        (
            "units.time",
            format!(
                "openb writes seconds from an undisclosed origin: second 0 is placed at {}",
                mapping.units.time_origin.as_deref().unwrap_or(OPENB_ORIGIN)
            ),
        ),
    ];
    mapping.reasons.extend(reasons.map(|(key, why)| (key.to_string(), why)));
}

/// DLRM 2025 (its README): seconds from the trace's start; `NaN` or empty for an instance
/// created or scheduled before the trace began (left-censored: it runs from the first
/// instant) or deleted after it ended (right-censored: it runs to the last); every instance
/// latency-sensitive serving; CN instances hold no GPU.
fn dlrm_units(mapping: &mut Mapping) {
    mapping.units.time = TimeFormat::OffsetS;
    if mapping.units.time_origin.is_none() {
        mapping.units.time_origin = Some(DLRM_2025_ORIGIN.into());
    }
    mapping.units.empty_start = EmptyStart::TraceStart;
    mapping.units.empty_end = EmptyEnd::Censored;
    mapping.null_values.extend(["NaN".to_string(), "nan".to_string()]);
    mapping.constants.insert("qos".into(), "LS".into());
    let origin = mapping.units.time_origin.clone().unwrap_or_default();
    let reasons = [
        (
            "units.time",
            format!("DLRM writes seconds from the trace's start and publishes no date: second 0 is placed at {origin} (--time-origin moves it)"),
        ),
        (
            "units.empty_start",
            "DLRM leaves scheduled_time empty (NaN) for an instance there before the trace began: it runs from the trace's first instant (left-censored)".to_string(),
        ),
        (
            "units.empty_end",
            "DLRM leaves deletion_time empty (NaN) for an instance still there at the trace's end: it runs to the trace's last instant (right-censored)".to_string(),
        ),
        ("null_values", "DLRM writes a time it does not have as NaN".to_string()),
        (
            "qos",
            "DLRM's README: every instance is latency-sensitive (LS) serving".to_string(),
        ),
    ];
    mapping.reasons.extend(reasons.map(|(key, why)| (key.to_string(), why)));
}

/// PAI's task table: `plan_gpu` hundredths of a GPU per instance, `inst_num` instances, an
/// empty `plan_gpu` a CPU-only task, 0 a missing time, seconds from an undisclosed origin.
fn pai_task_units(mapping: &mut Mapping) {
    mapping.units.gpus = GpuUnit::Percent;
    mapping.units.empty_gpus = EmptyGpus::Zero;
    mapping.gpu_multiplier = Some("inst_num".into());
    // PAI's own analysis (analysis/utils.py) takes a zero time as missing.
    mapping.null_values.extend(["0".to_string(), "0.0".to_string()]);
    mapping.units.time = TimeFormat::OffsetS;
    mapping.units.time_origin.get_or_insert_with(|| PAI_2020_ORIGIN.into());
    let reasons = [
        (
            "null_values",
            "PAI writes a missing time as 0 (its analysis drops them): 0 means no value".to_string(),
        ),
        (
            "units.empty_gpus",
            "PAI leaves plan_gpu empty for CPU-only tasks (parameter servers): no GPU".to_string(),
        ),
        (
            "gpu_multiplier",
            "PAI's inst_num: the task's instances, each holding plan_gpu".to_string(),
        ),
        ("units.gpus", "PAI's plan_gpu: 100 = one GPU".to_string()),
        (
            "units.time",
            format!(
                "PAI 2020 writes Unix times less an undisclosed constant (July-August 2020, weekday and time of day kept): second 0 is placed at {PAI_2020_ORIGIN}, whole weeks after 1970-01-01"
            ),
        ),
    ];
    mapping.reasons.extend(reasons.map(|(key, why)| (key.to_string(), why)));
}

/// The public table whose published columns `header` holds (names compared
/// case-insensitively); the one with the most columns when several fit.
pub fn table_of_header(header: &[String]) -> Option<&'static PublicTable> {
    let names: Vec<String> = header.iter().map(|h| simplified(h)).collect();
    PUBLIC_TABLES
        .into_iter()
        .filter(|t| t.columns.iter().all(|c| names.iter().any(|n| n == c)))
        .max_by_key(|t| t.columns.len())
}

/// The headerless public table whose rows `first_line` looks like.
pub fn table_of_first_row(first_line: &str, delimiter: u8) -> Option<&'static PublicTable> {
    let row: Vec<&str> = first_line.split(char::from(delimiter)).collect();
    PUBLIC_TABLES
        .into_iter()
        .find(|t| t.row_shape.is_some_and(|fits| fits(&row)))
}

/// What recognising a file as a public table did to its mapping.
pub enum Recognised {
    /// The mapping now reads it: the note says which trace it is.
    Read { note: String },
    /// A table with no GPU counts: nothing to audit in it.
    NoGpus {
        trace: &'static str,
        table: &'static str,
        audit_instead: &'static str,
    },
}

/// Fills `mapping` for a file recognised as a public trace's table. `header_file_names` are
/// the names of a header file beside a headerless export; else `first_line`, the file's first
/// line, is taken as a header, or failing that as a headerless table's first row. Nothing
/// happens when the user's mapping names any column.
pub fn recognise(
    path: &Path,
    header_file_names: Option<&[String]>,
    first_line: &str,
    delimiter: u8,
    mapping: &mut Mapping,
) -> Option<Recognised> {
    if !mapping.columns.is_empty() || !mapping.constants.is_empty() || !mapping.column_names.is_empty() {
        return None;
    }
    let (table, by_shape) = match header_file_names {
        Some(header) => (table_of_header(header)?, false),
        None => match table_of_header(&split_header(first_line, delimiter)) {
            Some(table) => (table, false),
            None => (table_of_first_row(first_line, delimiter)?, true),
        },
    };
    if let Some(audit_instead) = table.audit_instead {
        return Some(Recognised::NoGpus {
            trace: table.trace,
            table: table.table,
            audit_instead,
        });
    }
    if by_shape {
        mapping.has_header = false;
        mapping.column_names = table.columns.iter().map(|c| c.to_string()).collect();
    }
    for (field, source, why) in table.fields {
        mapping.columns.insert(field.to_string(), source.to_string());
        mapping.reasons.insert(field.to_string(), why.to_string());
    }
    let cluster = table.cluster.of(path);
    mapping.constants.insert("cluster".into(), cluster.clone());
    mapping
        .reasons
        .insert("cluster".into(), format!("one cluster per file of {}", table.trace));
    (table.units)(mapping);
    let how = if by_shape {
        format!("its {} unnamed columns and their values", table.columns.len())
    } else {
        "its header".to_string()
    };
    Some(Recognised::Read {
        note: format!(
            "recognised by {how} as {}, table {}: read as published, cluster \"{cluster}\" (`gpuplan mapping init` shows how)",
            table.trace, table.table
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(table: &PublicTable) -> Vec<String> {
        table.columns.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn each_published_header_is_recognised_and_no_other() {
        for table in PUBLIC_TABLES.into_iter().filter(|t| t.row_shape.is_none()) {
            assert_eq!(table_of_header(&names(table)).map(|t| t.table), Some(table.table));
            // In another order, with more columns beside: still the table.
            let mut more = names(table);
            more.reverse();
            more.push("gpu_time".into());
            assert_eq!(table_of_header(&more).map(|t| t.table), Some(table.table));
            // Without one of its columns: not the table.
            let fewer = names(table)[1..].to_vec();
            assert!(table_of_header(&fewer).is_none(), "{}", table.table);
        }
        let upper: Vec<String> = ACME.columns.iter().map(|c| c.to_uppercase()).collect();
        assert_eq!(table_of_header(&upper).map(|t| t.table), Some(ACME.table));
    }

    #[test]
    fn pai_rows_are_known_by_their_shape() {
        let task = "9f5d5b4e43d6c0a1b2c3d4e5,worker,1.0,Terminated,5600845.0,5601254.0,600.0,29.296875,50.0,MISC";
        assert_eq!(
            table_of_first_row(task, b',').map(|t| t.table),
            Some("pai_task_table.csv")
        );
        let job = "4f057009a5d481acec67b088,1d8dd4e7b0fb3e7eb0ad7fa9,58540f191766,Terminated,5600845.0,5601254.0";
        assert_eq!(
            table_of_first_row(job, b',').map(|t| t.table),
            Some("pai_job_table.csv")
        );
        // Ten columns of something else.
        let other = "a,worker,1,Terminated,1,2,3,4,5,T4";
        assert!(table_of_first_row(other, b',').is_none());
        let bad_status = task.replace("Terminated", "Finished");
        assert!(table_of_first_row(&bad_status, b',').is_none());
    }

    #[test]
    fn a_mapping_the_user_gives_is_never_replaced() {
        let mut mapping = Mapping::default();
        mapping.columns.insert("gpus".into(), "gpu_num".into());
        let header = ACME.columns.join(",");
        assert!(recognise(Path::new("trace_kalos.csv"), None, &header, b',', &mut mapping).is_none());
        assert_eq!(mapping.columns.len(), 1);
    }

    #[test]
    fn clusters_come_from_each_trace_s_file_layout() {
        let cluster = |path: &str, table: &PublicTable| {
            let mut mapping = Mapping::default();
            recognise(Path::new(path), None, &table.columns.join(","), b',', &mut mapping);
            mapping.constants["cluster"].clone()
        };
        assert_eq!(cluster("data/trace_kalos.csv", &ACME), "kalos");
        assert_eq!(cluster("helios/Venus/cluster_log.csv", &HELIOS), "Venus");
        assert_eq!(
            cluster("openb_pod_list_default.csv", &OPENB_PODS),
            "openb_pod_list_default"
        );
    }
}
