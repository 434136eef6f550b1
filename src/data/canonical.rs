//! The canonical job frame every reader produces: one row per run of a job (a job with
//! several attempts has several rows with the same `job_id`), times as UTC milliseconds.

use polars::prelude::*;

pub const JOB_ID: &str = "job_id";
pub const CLUSTER: &str = "cluster";
pub const NAME: &str = "name";
pub const USER: &str = "user";
pub const QUEUE: &str = "queue";
pub const STATE: &str = "state";
/// Run start, UTC, `Datetime(ms)`.
pub const START: &str = "start";
/// Run end, UTC, `Datetime(ms)`; null while running or when the log does not know
/// (censored: clipped to the observation window, never dropped).
pub const END: &str = "end";
/// GPUs held; fractional for shared GPUs (Kubernetes milli-GPUs become fractions).
pub const GPUS: &str = "gpus";
pub const GPU_TYPE: &str = "gpu_type";
/// Mean GPU utilization of the run, 0–1, when the log has it.
pub const GPU_UTIL_FRAC: &str = "gpu_util_frac";
/// An explicit class (training, inference, burst) from the log; wins over the rules.
pub const LABEL: &str = "label";
/// The job's quality-of-service class as the scheduler states it (Kubernetes QoS, Alibaba's
/// `LS`/`BE`); present only in frames of logs that have it.
pub const QOS: &str = "qos";
/// The kind of the workload that owns the job (Kubernetes `ReplicaSet`, `StatefulSet`,
/// `PyTorchJob`, `Notebook`…); present only in frames of logs that have it.
pub const OWNER_KIND: &str = "owner_kind";
/// Columns some frames carry and others do not: stacked, the ones without get nulls.
pub const OPTIONAL_TEXT: [&str; 2] = [QOS, OWNER_KIND];
/// 1-based line of the source file the row came from, for messages.
pub const SOURCE_LINE: &str = "source_line";
/// When the job was submitted, UTC, `Datetime(ms)`; null when the log does not say (the
/// replay then takes the first start, and says so).
pub const SUBMIT: &str = "submit";

/// A job's requested run length (its time limit), hours; read only for jobs that never started.
pub const TIME_LIMIT_HOURS: &str = "time_limit_hours";

/// Canonical times are UTC milliseconds.
pub const MS_PER_SECOND: i64 = 1_000;
pub const MS_PER_MINUTE: i64 = 60 * MS_PER_SECOND;
/// An hour, as the divisor turning milliseconds into hours.
pub const MS_PER_HOUR: f64 = 3_600_000.0;
pub const MS_PER_DAY: i64 = 24 * 60 * MS_PER_MINUTE;

fn datetime_submit() -> DataType {
    DataType::Datetime(TimeUnit::Milliseconds, None)
}

/// Canonical columns in order, with their types.
pub fn schema() -> Schema {
    let datetime = DataType::Datetime(TimeUnit::Milliseconds, None);
    Schema::from_iter([
        Field::new(JOB_ID.into(), DataType::String),
        Field::new(CLUSTER.into(), DataType::String),
        Field::new(NAME.into(), DataType::String),
        Field::new(USER.into(), DataType::String),
        Field::new(QUEUE.into(), DataType::String),
        Field::new(STATE.into(), DataType::String),
        Field::new(START.into(), datetime.clone()),
        Field::new(END.into(), datetime),
        Field::new(GPUS.into(), DataType::Float64),
        Field::new(GPU_TYPE.into(), DataType::String),
        Field::new(GPU_UTIL_FRAC.into(), DataType::Float64),
        Field::new(LABEL.into(), DataType::String),
        Field::new(SOURCE_LINE.into(), DataType::UInt64),
        Field::new(SUBMIT.into(), datetime_submit()),
    ])
}

/// One run, as a reader written in plain Rust (Slurm, Philly, the sample generator)
/// collects it before the frame is built.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobRun {
    pub job_id: String,
    pub cluster: String,
    pub name: Option<String>,
    pub user: Option<String>,
    pub queue: Option<String>,
    pub state: Option<String>,
    pub start_ms: i64,
    pub end_ms: Option<i64>,
    pub gpus: f64,
    pub gpu_type: Option<String>,
    pub gpu_util_frac: Option<f64>,
    pub label: Option<String>,
    pub source_line: u64,
    pub submit_ms: Option<i64>,
    /// Kubernetes signals of what the job is (see `QOS`, `OWNER_KIND`).
    pub qos: Option<String>,
    pub owner_kind: Option<String>,
}

/// Builds the canonical frame from runs collected in Rust; `QOS` and `OWNER_KIND` only when
/// some run has them.
pub fn frame_from_runs(runs: &[JobRun]) -> PolarsResult<DataFrame> {
    let height = runs.len();
    let text = |name: &str, f: &dyn Fn(&JobRun) -> Option<&str>| {
        Column::new(name.into(), runs.iter().map(f).collect::<Vec<Option<&str>>>())
    };
    let time = |name: &str, values: Vec<Option<i64>>| -> PolarsResult<Column> {
        Column::new(name.into(), values).cast(&DataType::Datetime(TimeUnit::Milliseconds, None))
    };
    let mut frame = DataFrame::new(
        height,
        vec![
            Column::new(
                JOB_ID.into(),
                runs.iter().map(|r| r.job_id.as_str()).collect::<Vec<&str>>(),
            ),
            Column::new(
                CLUSTER.into(),
                runs.iter().map(|r| r.cluster.as_str()).collect::<Vec<&str>>(),
            ),
            text(NAME, &|r| r.name.as_deref()),
            text(USER, &|r| r.user.as_deref()),
            text(QUEUE, &|r| r.queue.as_deref()),
            text(STATE, &|r| r.state.as_deref()),
            time(START, runs.iter().map(|r| Some(r.start_ms)).collect())?,
            time(END, runs.iter().map(|r| r.end_ms).collect())?,
            Column::new(GPUS.into(), runs.iter().map(|r| r.gpus).collect::<Vec<f64>>()),
            text(GPU_TYPE, &|r| r.gpu_type.as_deref()),
            Column::new(
                GPU_UTIL_FRAC.into(),
                runs.iter().map(|r| r.gpu_util_frac).collect::<Vec<Option<f64>>>(),
            ),
            text(LABEL, &|r| r.label.as_deref()),
            Column::new(
                SOURCE_LINE.into(),
                runs.iter().map(|r| r.source_line).collect::<Vec<u64>>(),
            ),
            time(SUBMIT, runs.iter().map(|r| r.submit_ms).collect())?,
        ],
    )?;
    for (name, of) in [
        (QOS, (|r: &JobRun| r.qos.as_deref()) as fn(&JobRun) -> Option<&str>),
        (OWNER_KIND, |r: &JobRun| r.owner_kind.as_deref()),
    ] {
        if runs.iter().any(|r| of(r).is_some()) {
            frame.with_column(text(name, &of))?;
        }
    }
    Ok(frame)
}

/// A job that asked for GPUs and never started (Slurm `PENDING`, a pod never scheduled, a
/// row with a submit time and no start), as a reader written in plain Rust collects it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PendingRun {
    pub job_id: String,
    pub cluster: String,
    pub name: Option<String>,
    pub user: Option<String>,
    pub queue: Option<String>,
    pub state: Option<String>,
    pub label: Option<String>,
    /// GPUs requested.
    pub gpus: f64,
    pub submit_ms: Option<i64>,
    /// When it left the queue without starting (cancelled), if it did.
    pub end_ms: Option<i64>,
    pub time_limit_ms: Option<i64>,
    pub source_line: u64,
}

/// The columns of a frame of never-started jobs (before the classification features).
pub const PENDING_COLUMNS: [&str; 6] = [CLUSTER, GPUS, SUBMIT, END, TIME_LIMIT_HOURS, SOURCE_LINE];

/// Builds a frame of never-started jobs, with the text columns classification reads.
pub fn frame_from_pending(jobs: &[PendingRun]) -> PolarsResult<DataFrame> {
    let text = |name: &str, f: &dyn Fn(&PendingRun) -> Option<&str>| {
        Column::new(name.into(), jobs.iter().map(f).collect::<Vec<Option<&str>>>())
    };
    let time = |name: &str, values: Vec<Option<i64>>| -> PolarsResult<Column> {
        Column::new(name.into(), values).cast(&DataType::Datetime(TimeUnit::Milliseconds, None))
    };
    DataFrame::new(
        jobs.len(),
        vec![
            text(JOB_ID, &|j| Some(j.job_id.as_str())),
            text(CLUSTER, &|j| Some(j.cluster.as_str())),
            text(NAME, &|j| j.name.as_deref()),
            text(USER, &|j| j.user.as_deref()),
            text(QUEUE, &|j| j.queue.as_deref()),
            text(STATE, &|j| j.state.as_deref()),
            text(LABEL, &|j| j.label.as_deref()),
            Column::new(GPUS.into(), jobs.iter().map(|j| j.gpus).collect::<Vec<f64>>()),
            time(SUBMIT, jobs.iter().map(|j| j.submit_ms).collect())?,
            time(END, jobs.iter().map(|j| j.end_ms).collect())?,
            Column::new(
                TIME_LIMIT_HOURS.into(),
                jobs.iter()
                    .map(|j| j.time_limit_ms.map(|ms| ms as f64 / MS_PER_HOUR))
                    .collect::<Vec<Option<f64>>>(),
            ),
            Column::new(
                SOURCE_LINE.into(),
                jobs.iter().map(|j| j.source_line).collect::<Vec<u64>>(),
            ),
        ],
    )
}

/// A time or integer column as i64 (datetimes as their milliseconds), for loops over rows.
pub fn int64_column(frame: &DataFrame, name: &str) -> Result<Int64Chunked, crate::data::error::DataError> {
    let column = frame.column(name)?.cast(&DataType::Int64)?;
    Ok(column.i64().cloned()?)
}

/// More GPUs than any job holds (the largest clusters have some 100,000): a count above this is
/// a unit mistake or garbage, set aside as an unparseable number rather than priced.
pub const MAX_JOB_GPUS: f64 = 1_000_000.0;

/// Utilization a job log may write above 100 % and still be believed: counters that overshoot a
/// little (a sample taken across an interval's edge) are read as 100 %; past it the row is set
/// aside (`RejectReason::UtilizationOutOfRange`).
pub const JOB_UTIL_SLACK_FRAC: f64 = 0.05;

/// The largest utilization believed, as a ratio (1.05): past it a row is set aside, by a file's
/// reader and by the warehouse's statement alike.
pub const JOB_UTIL_MAX_FRAC: f64 = 1.0 + JOB_UTIL_SLACK_FRAC;

/// The same in a column whose unit is left to the values (`auto`), before it is settled:
/// read as percentages (105), since any value above 1 makes them percentages.
pub const JOB_UTIL_MAX_AUTO: f64 = 100.0 * JOB_UTIL_MAX_FRAC;

/// The earliest time a log's start or end may hold: 2000-01-01T00:00:00Z. Earlier values are
/// seconds from a trace's start read as dates, or a zero written for "unknown".
pub const EARLIEST_TIME_MS: i64 = 946_684_800_000;

/// How far past the run's clock a time may lie (clocks of other hosts, a zone read wrong).
pub const FUTURE_SLACK_MS: i64 = 86_400_000;

/// The latest time a log's start or end may hold: a day past the run's clock.
pub fn latest_time_ms() -> i64 {
    chrono::Utc::now().timestamp_millis().saturating_add(FUTURE_SLACK_MS)
}
