//! Loading logs of any supported layout into one canonical job frame (and, for DCGM
//! exports, a utilization frame), with every file's problems attached to it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::detect::{LogFormat, detect_format, parse_format_name, sniff};
use super::formats::{ReadInput, Yielded};
use super::mapping::Mapping;
use super::reject::Quarantine;
use super::slurm;
use super::tabular::{Detail, audit_columns};
use crate::data::audit::classify::features::{
    FEATURE_COLUMNS, GPU_TYPE_CODE, JOB_KEY, gpu_type_code_expr, with_run_features,
};
use crate::data::audit::job_details::{RunOrigin, RunOrigins};
use crate::data::canonical::{self as c, SUBMIT, frame_from_pending, frame_from_runs, schema};
use crate::data::error::DataError;

/// A log that cannot be read at all: which one, where in it when the problem is one line (a
/// header), and why.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}{error}", crate::shared::format::file_place(path, *line, None))]
pub struct LoadError {
    pub path: String,
    pub line: Option<u64>,
    #[source]
    pub error: DataError,
}

impl LoadError {
    /// `error` of the input shown as `path`. A reader's own `path: ` prefix is dropped, so the
    /// message names the file once, and the line it gave is kept.
    pub fn new(path: impl Into<String>, error: DataError) -> LoadError {
        let path = path.into();
        match error {
            DataError::InFile { file, line, source } if file == path => LoadError {
                path,
                line,
                error: *source,
            },
            error => LoadError {
                path,
                line: None,
                error,
            },
        }
    }
}

/// What one input gave.
#[derive(Debug, Clone)]
pub struct FileSummary {
    pub path: String,
    pub format: &'static str,
    pub rows: usize,
    pub rejected: u64,
    pub warnings: Vec<String>,
    /// What reading it established that the audit reports (an nvidia-smi recording's host and
    /// measures), not a problem.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct LoadedLogs {
    pub jobs: DataFrame,
    /// Utilization samples (DCGM exports, nvidia-smi recordings folded a minute a row): the
    /// columns of `dcgm::utilization_schema`.
    pub utilization: Option<DataFrame>,
    pub quarantine: Quarantine,
    pub files: Vec<FileSummary>,
    /// Host → cluster, from the hosts Slurm logs ran jobs on (`NodeList`).
    pub hosts: BTreeMap<String, String>,
    /// Jobs that never started (see `pending_frame`); no columns when there are none.
    pub pending: DataFrame,
    /// Which file each row of `jobs` came from, to read chosen runs' details back.
    pub origins: RunOrigins,
}

fn has_glob(path: &str) -> bool {
    path.contains(['*', '?', '['])
}

/// Expands globs (a Parquet glob or a hive folder stays one input Polars scans whole).
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    let mut out = Vec::new();
    for input in inputs {
        let text = input.to_string_lossy();
        let parquet_glob = text.ends_with(".parquet") || text.ends_with(".pq");
        if has_glob(&text) && !parquet_glob {
            let matches = glob::glob(&text).map_err(|e| LoadError::new(text.as_ref(), DataError::BadGlob(e.into())))?;
            let mut found: Vec<PathBuf> = matches.filter_map(Result::ok).filter(|p| p.is_file()).collect();
            if found.is_empty() {
                return Err(LoadError::new(text.as_ref(), DataError::NoFileMatches));
            }
            found.sort();
            out.extend(found);
        } else {
            // A pipe is read once, to its end, here: every later step reads what it wrote.
            let readable = super::stream_input::readable_path(input).map_err(|e| LoadError::new(text.as_ref(), e))?;
            out.push(readable);
        }
    }
    Ok(out)
}

fn cluster_default(path: &Path, mapping: Option<&Mapping>) -> String {
    mapping
        .and_then(|m| m.constants.get("cluster").cloned())
        .unwrap_or_else(|| {
            path.file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("cluster")
                .to_string()
        })
}

/// The format of one input: forced, from the mapping, or detected.
pub fn format_of(path: &Path, forced: Option<&str>, mapping: Option<&Mapping>) -> Result<LogFormat, DataError> {
    let delimiter = mapping
        .and_then(|m| m.delimiter.as_ref())
        .and_then(|d| d.bytes().next());
    if let Some(name) = forced.or_else(|| mapping.and_then(|m| m.format.as_deref())) {
        return parse_format_name(name, delimiter);
    }
    let text = path.to_string_lossy();
    if path.is_dir() || (has_glob(&text) && (text.ends_with(".parquet") || text.ends_with(".pq"))) {
        return Ok(LogFormat::Parquet);
    }
    let head = sniff(path)?;
    let toml = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    if toml || looks_like_plan(&head) {
        return Err(DataError::PlanGivenAsLog);
    }
    let detected = detect_format(path, &head)?;
    Ok(match (detected, delimiter) {
        (LogFormat::Csv { .. }, Some(d)) => LogFormat::Csv { delimiter: d },
        (other, _) => other,
    })
}

/// A gpuplan plan (TOML) where a log was expected (beside a `.toml` name): its first statement,
/// past comments, is `schema_version = …`, as every plan gpuplan writes begins.
fn looks_like_plan(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .is_some_and(|line| {
            line.strip_prefix("schema_version")
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
}

/// Loads every input; the first file that cannot be read at all stops the load with one
/// message naming it and why.
pub fn load_logs(
    inputs: &[PathBuf],
    forced_format: Option<&str>,
    mapping: Option<&Mapping>,
    detail: Detail<'_>,
) -> Result<LoadedLogs, LoadError> {
    let mut frames = Vec::new();
    let mut utilization: Vec<DataFrame> = Vec::new();
    let mut quarantine = Quarantine::default();
    let mut files = Vec::new();
    let mut hosts: BTreeMap<String, String> = BTreeMap::new();
    let mut pending = Vec::new();
    let mut origins = RunOrigins::default();
    let mut rows_so_far = 0;
    for path in expand_inputs(inputs)? {
        let shown = path.display().to_string();
        let fail = |error: DataError| LoadError::new(shown.as_str(), error);
        let format = format_of(&path, forced_format, mapping).map_err(fail)?;
        let mut origin = RunOrigin {
            path: path.clone(),
            format,
            mapping: None,
            cluster_default: cluster_default(&path, mapping),
            rows: 0..0,
            pieces: Vec::new(),
        };
        let input = ReadInput {
            path: &path,
            shown: &shown,
            format,
            cluster_default: &origin.cluster_default,
            mapping,
            detail,
        };
        let read = format.reader().read(&input).map_err(fail)?;
        let rows = read.rows;
        match read.yielded {
            Yielded::Runs(runs) => {
                let runs = *runs;
                frames.push(runs.jobs);
                pending.extend(runs.pending);
                for (host, cluster) in runs.hosts {
                    hosts.entry(host).or_insert(cluster);
                }
                origin.mapping = runs.mapping;
                origin.pieces = runs.pieces;
            }
            Yielded::UtilizationSamples(samples) => utilization.push(samples),
            // The pipeline takes node lists apart before the logs are read (`node_inventories`).
            Yielded::Nodes(_) => {
                return Err(fail(DataError::NodeList {
                    detail: "a node list prices the clusters of the job logs read beside it; it holds no jobs"
                        .to_string(),
                }));
            }
        }
        if !format.is_utilization_samples() {
            origin.rows = rows_so_far..rows_so_far + rows;
            rows_so_far += rows;
            origins.files.push(origin);
        }
        files.push(FileSummary {
            path: shown,
            format: format.name(),
            rows,
            rejected: read.quarantine.total(),
            warnings: read.warnings,
            notes: read.notes,
        });
        quarantine.merge(read.quarantine);
    }
    assemble(
        Pieces {
            frames,
            utilization,
            pending,
        },
        quarantine,
        files,
        hosts,
        origins,
        detail,
    )
}

/// What the inputs gave before they are stacked into one frame each.
struct Pieces {
    frames: Vec<DataFrame>,
    utilization: Vec<DataFrame>,
    pending: Vec<DataFrame>,
}

/// Stacks what every input gave into the logs an audit reads: one job frame in the shape
/// `detail` asks for, one utilization frame, one frame of jobs that never started.
fn assemble(
    pieces: Pieces,
    quarantine: Quarantine,
    mut files: Vec<FileSummary>,
    hosts: BTreeMap<String, String>,
    mut origins: RunOrigins,
    detail: Detail<'_>,
) -> Result<LoadedLogs, LoadError> {
    let Pieces {
        frames,
        utilization,
        pending,
    } = pieces;
    let frames = match detail {
        Detail::Full => frames,
        // Slurm and Philly frames arrive whole; give them the audit's compact shape too.
        Detail::Audit(rules) => frames
            .into_iter()
            .map(|f| {
                if f.column(crate::data::audit::classify::JOB_KEY).is_ok() {
                    Ok(f)
                } else {
                    let mut columns: Vec<Expr> = audit_columns().into_iter().chain([col(SUBMIT)]).collect();
                    if f.column(c::GPU_TYPE)
                        .is_ok_and(|types| types.null_count() < types.len())
                    {
                        columns.push(gpu_type_code_expr());
                    }
                    with_run_features(f.lazy(), rules)?
                        .select(columns)
                        .collect()
                        .map_err(DataError::from)
                }
            })
            .collect::<Result<Vec<_>, DataError>>()
            .map_err(combined)?,
    };
    let mut jobs = concat_frames(with_optional_columns(frames).map_err(combined)?).map_err(combined)?;
    // Streaming reads leave many small chunks; consumers read rows by index.
    jobs.rechunk_mut();
    super::duplicates::drop_copied_runs(&mut jobs, &mut origins, &mut files).map_err(combined)?;
    let utilization = match utilization.len() {
        0 => None,
        _ => Some(concat_any(utilization).map_err(combined)?),
    };
    let pending = pending
        .into_iter()
        .map(|f| pending_frame(f, detail))
        .collect::<Result<Vec<_>, DataError>>()
        .map_err(combined)?;
    let pending = if pending.is_empty() {
        DataFrame::empty()
    } else {
        concat_any(with_optional_columns(pending).map_err(combined)?).map_err(combined)?
    };
    if let Some(error) = no_gpus(&jobs, &pending, utilization.as_ref(), &quarantine, &origins) {
        let shown: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        return Err(LoadError::new(shown.join(", ").as_str(), error));
    }
    Ok(LoadedLogs {
        jobs,
        utilization,
        quarantine,
        files,
        hosts,
        pending,
        origins,
    })
}

/// Logs whose every run is CPU-only: said as such (exit 2), rather than audited as a fleet of
/// 0 GPUs and $0.00.
fn no_gpus(
    jobs: &DataFrame,
    pending: &DataFrame,
    utilization: Option<&DataFrame>,
    quarantine: &Quarantine,
    origins: &RunOrigins,
) -> Option<DataError> {
    use crate::data::readers::reject::RejectReason;
    let rows = *quarantine.counts.get(&RejectReason::CpuOnly)?;
    if jobs.height() > 0 || pending.height() > 0 || utilization.is_some_and(|u| u.height() > 0) {
        return None;
    }
    let sample = quarantine.samples.iter().find(|s| s.reason == RejectReason::CpuOnly);
    let why = match sample {
        Some(row) if row.detail.contains("AllocTRES") => "`AllocTRES` names no gres/gpu".to_string(),
        Some(row) => {
            let column = origins
                .files
                .iter()
                .find_map(|f| f.mapping.as_ref()?.columns.get("gpus").cloned());
            match column {
                Some(column) => format!(
                    "column `{column}`, read as the GPU count, is 0 or empty on every row, e.g. {}:{}",
                    row.file, row.line
                ),
                None => format!("the GPU count is 0 on every row, e.g. {}:{}", row.file, row.line),
            }
        }
        None => "the GPU count is 0 on every row".to_string(),
    };
    Some(DataError::NoGpus { rows, why })
}

/// A Slurm accounting log that arrived without a file (`sacct` run by gpuplan), shown as
/// `shown` with format `format`: the same frames a sacct export gives.
pub fn load_sacct_log(
    log: slurm::SacctLog,
    shown: &str,
    format: &'static str,
    detail: Detail<'_>,
) -> Result<LoadedLogs, LoadError> {
    let fail = |error: DataError| LoadError::new(shown, error);
    let mut log = log;
    log.set_cpu_jobs_apart(shown);
    let frames = vec![frame_from_runs(&log.runs).map_err(|e| fail(e.into()))?];
    let pending = if log.pending.is_empty() {
        Vec::new()
    } else {
        vec![frame_from_pending(&log.pending).map_err(|e| fail(e.into()))?]
    };
    let origins = RunOrigins::kept_from(&log.runs);
    let files = vec![FileSummary {
        path: shown.to_string(),
        format,
        rows: log.runs.len(),
        rejected: log.quarantine.total(),
        warnings: log.host_problems,
        notes: Vec::new(),
    }];
    assemble(
        Pieces {
            frames,
            utilization: Vec::new(),
            pending,
        },
        log.quarantine,
        files,
        log.hosts,
        origins,
        detail,
    )
}

/// Columns only some logs have (a submit time, a QoS class, an owner kind, a GPU type's
/// number): beside a frame
/// that has one, a null column in the others, so every frame stacks; absent from all, none at
/// all (the replay then starts each job at its start; the rules see no QoS).
fn with_optional_columns(frames: Vec<DataFrame>) -> Result<Vec<DataFrame>, DataError> {
    let optional = c::OPTIONAL_TEXT
        .into_iter()
        .map(|name| (name, DataType::String))
        .chain([
            (SUBMIT, DataType::Datetime(TimeUnit::Milliseconds, None)),
            (GPU_TYPE_CODE, DataType::UInt32),
        ]);
    let missing: Vec<(&str, DataType)> = optional
        .filter(|(name, _)| frames.iter().any(|f| f.column(name).is_ok()))
        .collect();
    frames
        .into_iter()
        .map(|f| {
            let nulls: Vec<Expr> = missing
                .iter()
                .filter(|(name, _)| f.column(name).is_err())
                .map(|(name, dtype)| lit(NULL).cast(dtype.clone()).alias(*name))
                .collect();
            if nulls.is_empty() {
                Ok(f)
            } else {
                f.lazy().with_columns(nulls).collect().map_err(DataError::from)
            }
        })
        .collect()
}

/// Text columns a frame of never-started jobs keeps in full detail.
const PENDING_TEXT: [&str; 6] = [c::JOB_ID, c::NAME, c::USER, c::QUEUE, c::STATE, c::LABEL];

/// A reader's never-started jobs in one shape, so every file's stack: `PENDING_COLUMNS` (a
/// missing time limit null) with, for an audit, the classification features (computed here
/// unless the reader did), else the text columns.
fn pending_frame(frame: DataFrame, detail: Detail<'_>) -> Result<DataFrame, DataError> {
    let mut lf = frame.clone().lazy();
    if frame.column(c::TIME_LIMIT_HOURS).is_err() {
        lf = lf.with_column(lit(NULL).cast(DataType::Float64).alias(c::TIME_LIMIT_HOURS));
    }
    let mut columns: Vec<Expr> = c::PENDING_COLUMNS.into_iter().map(col).collect();
    match detail {
        Detail::Audit(rules) => {
            if frame.column(JOB_KEY).is_err() {
                lf = with_run_features(lf, rules)?;
            }
            columns.extend(FEATURE_COLUMNS.into_iter().map(col));
        }
        Detail::Full => columns.extend(
            PENDING_TEXT
                .into_iter()
                .chain(c::OPTIONAL_TEXT.into_iter().filter(|name| frame.column(name).is_ok()))
                .map(col),
        ),
    }
    Ok(lf.select(columns).collect()?)
}

/// A problem of the logs taken together (after each one read on its own).
fn combined(error: DataError) -> LoadError {
    LoadError::new("the logs together", error)
}

fn concat_any(frames: Vec<DataFrame>) -> Result<DataFrame, DataError> {
    let lazy: Vec<LazyFrame> = frames.into_iter().map(IntoLazy::lazy).collect();
    Ok(concat(lazy, UnionArgs::default()).and_then(LazyFrame::collect)?)
}

fn concat_frames(frames: Vec<DataFrame>) -> Result<DataFrame, DataError> {
    if frames.is_empty() {
        return Ok(DataFrame::empty_with_schema(&schema()));
    }
    concat_any(frames)
}
