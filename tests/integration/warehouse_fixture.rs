//! The warehouse tests' fixture and comparisons (tests/integration/warehouse*.rs): one
//! generated log with every feature the audit reads, the engines' folder, and the report
//! compared with the in-process audit's.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde_json::Value;

use gpuplan::data::warehouse::connect::Warehouse;
use gpuplan::model::plan::WarehouseSource;

use crate::common::gpuplan_with;

/// Where `.ci/engines.sh` installed the engines: `GPUPLAN_ENGINES`, else its default.
pub fn engines_dir() -> PathBuf {
    match std::env::var_os("GPUPLAN_ENGINES") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/gpuplan/engines"),
    }
}

/// The engines' folder when `needed` is in it; else None, after saying so (a failure under CI).
pub fn engines_with(needed: &str) -> Option<PathBuf> {
    let dir = engines_dir();
    if dir.join(needed).exists() {
        return Some(dir);
    }
    let message = format!(
        "{} is not installed: the warehouse tests against it are SKIPPED (run .ci/engines.sh)",
        dir.join(needed).display()
    );
    assert!(
        std::env::var_os("CI").is_none(),
        "{message}; CI must have it (.ci/run installs it)"
    );
    eprintln!("\n!!!!!!!! {message} !!!!!!!!\n");
    None
}

/// The DuckDB lines `.ci/engines.sh` installs, each in `duckdb-<line>/lib`: the long-term-support
/// line, the newest npm carries, the newest PyPI carries. Users run what they have.
pub const DUCKDB_LINES: [&str; 3] = ["1.4", "1.5", "2.0"];

/// One installed DuckDB: its line, the folder holding its `libduckdb.so`, the library to preload
/// for it (DuckDB 2.0's is Python's extension module: it wants libpython's data), and the version
/// the library itself reports (`v1.5.6`).
pub struct DuckDb {
    pub line: &'static str,
    pub lib: PathBuf,
    pub preload: Option<PathBuf>,
    pub version: String,
}

impl DuckDb {
    /// How an assertion names it.
    pub fn name(&self) -> String {
        format!("DuckDB {}", self.version)
    }

    /// The environment gpuplan finds this DuckDB in, and only it: its folder first, HOME at
    /// `home` so that no other DuckDB in ~/.cache/gpuplan/engines/lib stands in for one refused.
    pub fn env(&self, home: &Path) -> Vec<(&'static str, String)> {
        let mut env = vec![
            ("GPUPLAN_ADBC_PATH", self.lib.display().to_string()),
            ("HOME", home.display().to_string()),
        ];
        if let Some(preload) = &self.preload {
            env.push(("LD_PRELOAD", preload.display().to_string()));
        }
        env
    }
}

/// Every DuckDB line installed in the engines' folder, each asked for its version (which must be
/// of its line); a line missing is said loudly, and fails under CI.
pub fn duckdb_lines() -> Vec<DuckDb> {
    DUCKDB_LINES
        .iter()
        .filter_map(|&line| {
            let engines = engines_with(&format!("duckdb-{line}/lib/libduckdb.so"))?;
            let lib = engines.join(format!("duckdb-{line}/lib"));
            let preload = std::fs::read_to_string(engines.join(format!("duckdb-{line}/preload")))
                .ok()
                .map(|path| PathBuf::from(path.trim()));
            let version = duckdb_version(&lib.join("libduckdb.so"), preload.as_deref());
            assert!(
                version.starts_with(&format!("v{line}.")),
                "{} reports DuckDB {version}, not of the {line} line",
                lib.display()
            );
            Some(DuckDb {
                line,
                lib,
                preload,
                version,
            })
        })
        .collect()
}

/// The version a DuckDB library reports, asked through the warehouse's own connection (after
/// loading `preload` for all to see, as LD_PRELOAD does for gpuplan).
fn duckdb_version(library: &Path, preload: Option<&Path>) -> String {
    use arrow_array::Array;
    if let Some(preload) = preload {
        let path = std::ffi::CString::new(preload.display().to_string()).expect("a path");
        // SAFETY: dlopen with a NUL-terminated path; the handle is kept open for the process.
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        assert!(!handle.is_null(), "{} does not load", preload.display());
    }
    let mut source = WarehouseSource::at(&library.display().to_string(), None, "pragma_version()");
    source.dialect = Some("duckdb".to_string());
    source.entrypoint = Some("duckdb_adbc_init".to_string());
    let mut warehouse = Warehouse::open(&source).unwrap_or_else(|e| panic!("{} opens: {e}", library.display()));
    let batches = warehouse
        .query("version", "SELECT library_version FROM pragma_version()")
        .expect("DuckDB's version");
    let column = batches[0].column(0);
    let text = column
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .map(|a| a.value(0).to_string())
        .or_else(|| {
            column
                .as_any()
                .downcast_ref::<arrow_array::StringViewArray>()
                .map(|a| a.value(0).to_string())
        });
    text.expect("the version as text")
}

/// A temporary home holding the Parquet fixture, with the engines' folder when `needed` is in
/// it (else None, as `engines_with`).
pub struct FixtureHome {
    pub engines: PathBuf,
    pub home: tempfile::TempDir,
    pub fixture: PathBuf,
}

impl FixtureHome {
    pub fn with(needed: &str) -> Option<FixtureHome> {
        let engines = engines_with(needed)?;
        let home = tempfile::tempdir().expect("tempdir");
        let fixture = home.path().join("jobs.parquet");
        write_fixture(&fixture);
        Some(FixtureHome { engines, home, fixture })
    }
}

/// A small deterministic generator (xorshift), so the fixture is the same on every machine.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, values: &[&'a str]) -> &'a str {
        values[self.below(values.len() as u64) as usize]
    }
}

/// One row of the fixture: a run, a job that never started, or a row to set aside.
struct FixtureRow {
    job_id: Option<String>,
    cluster: &'static str,
    name: String,
    queue: Option<&'static str>,
    qos: Option<&'static str>,
    owner_kind: Option<&'static str>,
    label: Option<&'static str>,
    submit: Option<i64>,
    start: Option<i64>,
    end: Option<i64>,
    gpus: Option<f64>,
    util_pct: Option<f64>,
    time_limit: Option<i64>,
    /// Alpha's runs name two models (and some none), so each model's lines are summed too.
    gpu_type: Option<&'static str>,
}

/// Writes the fixture: two clusters' jobs over six weeks with every feature the audit reads
/// (names for every rule, queues, QoS, owner kinds, known and unknown labels, sweeps of one
/// stem, jobs of several runs, runs still open, jobs that never started with and without a
/// time limit, utilization missing on some runs) and rows to set aside.
pub fn write_fixture(path: &Path) {
    let mut frame = fixture_frame(true);
    let file = std::fs::File::create(path).expect("fixture file");
    ParquetWriter::new(file).finish(&mut frame).expect("write the fixture");
}

/// The fixture as CSV with its times in milliseconds since 1970 (`submit_ms`, `start_ms`,
/// `end_ms`), for an engine that loads CSV and turns them into timestamps itself.
pub fn write_fixture_csv(path: &Path) {
    let mut frame = fixture_frame(false);
    let file = std::fs::File::create(path).expect("fixture file");
    CsvWriter::new(file).finish(&mut frame).expect("write the fixture");
}

/// The fixture's rows as a frame, its times as UTC timestamps or as milliseconds.
fn fixture_frame(timestamps: bool) -> DataFrame {
    let hour = 3_600_000i64;
    let origin = 1_767_225_600_000i64; // 2026-01-01T00:00:00Z
    let mut dice = Dice(0x9e37_79b9_7f4a_7c15);
    let mut rows: Vec<FixtureRow> = Vec::new();
    let names = [
        "train-llama-{}",
        "pretrain-moe-{}",
        "serve-chat-{}",
        "vllm-endpoint-{}",
        "sweep-lr-{}-{}",
        "eval-{}-mmlu",
        "preprocess-shard-{}",
        "notebook-{}",
        "job-{}",
        "run-3fa9c0{}e",
    ];
    for job in 0..700u64 {
        let cluster = if job % 3 == 0 { "beta" } else { "alpha" };
        let template = dice.pick(&names);
        let name =
            template
                .replacen("{}", &dice.below(40).to_string(), 1)
                .replacen("{}", &dice.below(9).to_string(), 1);
        let queue = [Some("prod"), Some("research"), Some("dev"), Some("batch"), None][dice.below(5) as usize];
        let qos = [None, None, None, Some("LS"), Some("BE"), Some("Guaranteed")][dice.below(6) as usize];
        let owner = [None, None, None, Some("ReplicaSet"), Some("PyTorchJob"), Some("Job")][dice.below(6) as usize];
        let label = [
            None,
            None,
            None,
            None,
            Some("training"),
            Some("Inference"),
            Some("mystery"),
            Some("other"),
        ][dice.below(8) as usize];
        let gpus = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0][dice.below(6) as usize];
        let id = Some(format!("{}", 10_000 + job));
        if job % 50 == 7 {
            // Never started: a submit time, a time limit on most.
            let submit = origin + dice.below(42 * 24) as i64 * hour;
            let limit = (job % 100 != 7).then(|| 60 * (1 + dice.below(48) as i64));
            rows.push(FixtureRow {
                job_id: id,
                cluster,
                name,
                queue,
                qos,
                owner_kind: owner,
                label,
                submit: Some(submit),
                start: None,
                end: None,
                gpus: Some(gpus),
                util_pct: None,
                time_limit: limit,
                gpu_type: None,
            });
            continue;
        }
        let runs = 1 + dice.below(3);
        let mut start = origin + (dice.below(42 * 24 * 60) as i64) * 60_000;
        for _ in 0..runs {
            let length = (1 + dice.below(60 * 30)) as i64 * 60_000 * if dice.below(4) == 0 { 8 } else { 1 };
            let end = (dice.below(40) != 0).then_some(start + length);
            let util = (dice.below(5) != 0).then(|| dice.below(1000) as f64 / 10.0);
            rows.push(FixtureRow {
                job_id: id.clone(),
                cluster,
                name: name.clone(),
                queue,
                qos,
                owner_kind: owner,
                label,
                submit: Some(start - dice.below(4) as i64 * hour),
                start: Some(start),
                end,
                gpus: Some(gpus),
                util_pct: util,
                time_limit: None,
                gpu_type: match (cluster, job % 4) {
                    ("alpha", 1) => Some("a100-80gb"),
                    ("alpha", 2 | 3) => Some("h100-sxm"),
                    _ => None,
                },
            });
            start = end.unwrap_or(start + length) + (dice.below(600) as i64) * 60_000;
        }
    }
    // Sixteen identical jobs, larger than any other of beta's training jobs: the list keeps
    // twelve, ranked by job id as text ("100000" before "99990"), not by the order the log
    // lists them (here the reverse).
    for tied in (0..16).rev() {
        let start = origin + 5 * 24 * hour;
        rows.push(FixtureRow {
            job_id: Some(format!("{}", 99_990 + tied)),
            cluster: "beta",
            name: "pretrain-tied".to_string(),
            queue: Some("research"),
            qos: None,
            owner_kind: None,
            label: None,
            submit: Some(start),
            start: Some(start),
            end: Some(start + 100 * hour),
            gpus: Some(64.0),
            util_pct: Some(50.0),
            time_limit: None,
            gpu_type: None,
        });
    }
    // Rows to set aside: a negative GPU count, an end before the start, no job id.
    let t = origin + 100 * hour;
    for (job_id, gpus, end) in [
        (Some("bad-1"), -2.0, t + hour),
        (Some("bad-2"), 1.0, t - hour),
        (None, 1.0, t + hour),
    ] {
        rows.push(FixtureRow {
            job_id: job_id.map(str::to_string),
            cluster: "beta",
            name: "x".to_string(),
            queue: None,
            qos: None,
            owner_kind: None,
            label: None,
            submit: None,
            start: Some(t),
            end: Some(end),
            gpus: Some(gpus),
            util_pct: None,
            time_limit: None,
            gpu_type: None,
        });
    }
    let utc = || DataType::Datetime(TimeUnit::Milliseconds, Some(polars::prelude::TimeZone::UTC));
    let times = |pick: fn(&FixtureRow) -> Option<i64>, name: &str| {
        let millis = Series::new(name.into(), rows.iter().map(pick).collect::<Vec<_>>());
        if timestamps {
            millis.cast(&utc()).expect("times")
        } else {
            millis.with_name(format!("{name}_ms").as_str().into())
        }
    };
    DataFrame::new(
        rows.len(),
        vec![
            Series::new(
                "job_id".into(),
                rows.iter().map(|r| r.job_id.clone()).collect::<Vec<_>>(),
            )
            .into(),
            Series::new("cluster".into(), rows.iter().map(|r| r.cluster).collect::<Vec<_>>()).into(),
            Series::new("name".into(), rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>()).into(),
            Series::new("queue".into(), rows.iter().map(|r| r.queue).collect::<Vec<_>>()).into(),
            Series::new("qos".into(), rows.iter().map(|r| r.qos).collect::<Vec<_>>()).into(),
            Series::new(
                "owner_kind".into(),
                rows.iter().map(|r| r.owner_kind).collect::<Vec<_>>(),
            )
            .into(),
            Series::new("label".into(), rows.iter().map(|r| r.label).collect::<Vec<_>>()).into(),
            times(|r| r.submit, "submit").into(),
            times(|r| r.start, "start").into(),
            times(|r| r.end, "end").into(),
            Series::new("gpus".into(), rows.iter().map(|r| r.gpus).collect::<Vec<_>>()).into(),
            Series::new(
                "gpu_util_pct".into(),
                rows.iter().map(|r| r.util_pct).collect::<Vec<_>>(),
            )
            .into(),
            Series::new(
                "time_limit".into(),
                rows.iter().map(|r| r.time_limit).collect::<Vec<_>>(),
            )
            .into(),
            Series::new("gpu_type".into(), rows.iter().map(|r| r.gpu_type).collect::<Vec<_>>()).into(),
        ],
    )
    .expect("fixture frame")
}

/// The report's JSON without what differs by design: the input's name and format, the rows set
/// aside shown by their line (a warehouse has no lines), each largest job's line.
pub fn comparable(mut report: Value) -> Value {
    let object = report.as_object_mut().expect("a JSON object");
    object.remove("inputs");
    object.remove("rejected_samples");
    if let Some(Value::Array(jobs)) = object.get_mut("top_jobs") {
        for job in jobs {
            if let Some(job) = job.as_object_mut() {
                job.remove("source_line");
            }
        }
    }
    report
}

/// Whether two JSON values agree, numbers to a billionth relative (float sums in another
/// order); the first difference's path when they do not.
pub fn differs(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            ((x - y).abs() > 1e-9 * x.abs().max(y.abs()).max(1.0)).then(|| format!("{path}: {x} against {y}"))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} items against {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (x, y))| differs(x, y, &format!("{path}[{i}]")))
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|key| match (x.get(key), y.get(key)) {
                (Some(x), Some(y)) => differs(x, y, &format!("{path}.{key}")),
                _ => Some(format!("{path}.{key}: present on one side only")),
            })
        }
        _ => (a != b).then(|| format!("{path}: {a} against {b}")),
    }
}

/// `gpuplan audit --all-time --format json ARGS`, with `lib` (a folder of driver libraries) as
/// GPUPLAN_ADBC_PATH.
/// The flags of an audit in an in-memory DuckDB reading `from` (`read_parquet('…')`).
pub fn duckdb_flags(from: &str) -> [&str; 6] {
    [
        "--warehouse-driver",
        "duckdb",
        "--warehouse-uri",
        ":memory:",
        "--warehouse-from",
        from,
    ]
}

pub fn audit_json(home: &Path, args: &[&str], lib: Option<&Path>) -> Value {
    let lib = lib.map(|lib| lib.display().to_string()).unwrap_or_default();
    audit_json_with(home, args, &[("GPUPLAN_ADBC_PATH", lib)])
}

/// `gpuplan audit --all-time --format json ARGS` in the environment `env`.
pub fn audit_json_with(home: &Path, args: &[&str], env: &[(&str, String)]) -> Value {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut all = vec!["audit", "--all-time", "--format", "json"];
    all.extend_from_slice(args);
    let run = gpuplan_with(home, &all, &env);
    assert_eq!(run.code, 0, "gpuplan {all:?} failed: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("the audit's JSON")
}

pub fn assert_same_audit(in_process: &Value, warehouse: &Value, engine: &str) {
    // The comparison can fail: one GPU-hour more is seen.
    let mut nudged = in_process.clone();
    nudged["gpu_hours_total"] = serde_json::json!(in_process["gpu_hours_total"].as_f64().unwrap_or(0.0) + 1.0);
    assert!(differs(&comparable(in_process.clone()), &comparable(nudged), "audit").is_some());
    if let Some(difference) = differs(&comparable(in_process.clone()), &comparable(warehouse.clone()), "audit") {
        panic!("{engine} disagrees with the in-process audit at {difference}");
    }
    // The fixture exercises what it is meant to: each class, labels, pending jobs, rejects.
    assert!(in_process["jobs_total"].as_u64().unwrap_or(0) > 500);
    assert_eq!(
        in_process["rows_rejected_total"], 3,
        "{:#}",
        in_process["rejected_samples"]
    );
    assert!(
        in_process["pending"]["training"]["jobs"].as_u64().unwrap_or(0)
            + in_process["pending"]["inference"]["jobs"].as_u64().unwrap_or(0)
            + in_process["pending"]["burst"]["jobs"].as_u64().unwrap_or(0)
            > 5
    );
    assert!(!in_process["unknown_labels"].as_array().is_none_or(Vec::is_empty));
    for class in ["training", "inference", "burst"] {
        assert!(
            in_process["classes"][class]["jobs"].as_u64().unwrap_or(0) > 0,
            "no {class} job"
        );
    }
    assert_eq!(warehouse["inputs"][0]["format"], "warehouse");
}

/// An audit of two weeks inside the fixture, in process and in an engine (`warehouse_args`, its
/// driver found through `env`):
/// the engine reads only the rows touching the window (filtered on the raw columns), so what
/// a job's runs outside it would change (its hours, its stem's repeats) may class a job
/// otherwise; what ran in the window may not change: the GPU-hours and every cluster's busy
/// GPUs hour by hour.
pub fn assert_same_window(home: &Path, file: &str, warehouse_args: &[&str], env: &[(&str, String)], engine: &str) {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let run = |args: &[&str], env: &[(&str, &str)]| -> Value {
        let mut all = vec![
            "audit",
            "--since",
            "2026-01-10",
            "--until",
            "2026-01-24",
            "--format",
            "json",
        ];
        all.extend_from_slice(args);
        let run = gpuplan_with(home, &all, env);
        assert_eq!(run.code, 0, "gpuplan {all:?} failed: {}", run.stderr);
        serde_json::from_str(&run.stdout).expect("the audit's JSON")
    };
    let in_process = run(&[file], &[]);
    let warehouse = run(warehouse_args, &env);
    for key in ["gpu_hours_total", "runs_total", "window"] {
        if let Some(difference) = differs(&in_process[key], &warehouse[key], key) {
            panic!("{engine} over a window disagrees with the in-process audit at {difference}");
        }
    }
    let clusters = |report: &Value| -> Vec<Value> {
        report["clusters"]
            .as_array()
            .map(|clusters| clusters.iter().map(|c| c["hourly"]["busy_gpus"].clone()).collect())
            .unwrap_or_default()
    };
    let (ours, theirs) = (Value::Array(clusters(&in_process)), Value::Array(clusters(&warehouse)));
    if let Some(difference) = differs(&ours, &theirs, "busy_gpus") {
        panic!("{engine} over a window disagrees with the in-process audit at {difference}");
    }
    assert!(in_process["gpu_hours_total"].as_f64().unwrap_or(0.0) > 100.0);
}
