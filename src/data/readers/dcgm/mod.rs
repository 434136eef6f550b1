//! NVIDIA DCGM exporter utilization samples into a utilization frame:
//! `time` (Datetime ms, UTC), `host` (String), `gpu` (String), `util_frac` (Float64, 0–1,
//! null for a sample the exporter left empty), `source_line` (UInt64), `samples` (UInt32, the
//! samples a row stands for: 1 here, more where a reader folds them, see `nvidia_smi`),
//! `metric` (String, the measure read) and `utc_offset_min` (Int32, 0 here: null where the
//! recording's clock stated no offset), in file order.
//!
//! Two layouts:
//! - **long**: `time,host,gpu,metric,value` with any column order, header names
//!   case-insensitive and a few aliases (`timestamp`, `Hostname`/`instance`, `gpu_id`/`GPU`,
//!   `__name__`). Without a gpu column a sample is the host's (`gpu` = [`ALL_GPUS`]).
//! - **wide**: `Time,<series>,<series>,...`, one file per metric. The metric comes from the
//!   caller or from the file name (`DCGM_FI_DEV_GPU_UTIL.csv`). A series is named `host`
//!   (a host-level series, `gpu` = [`ALL_GPUS`]), `host/0`, `host:gpu0`, `host gpu0`, or a
//!   Prometheus label set such as `{Hostname="node1", gpu="0"}`.
//!
//! Units: `DCGM_FI_DEV_GPU_UTIL` is a percentage (0–100) and is divided by 100;
//! `DCGM_FI_PROF_GR_ENGINE_ACTIVE`, `DCGM_FI_PROF_SM_ACTIVE` and
//! `DCGM_FI_PROF_PIPE_TENSOR_ACTIVE` are ratios (0–1) already. Any other metric (clocks,
//! memory, power...) is not utilization: its samples are skipped and counted in
//! [`DcgmSamples::ignored_samples`].
//!
//! When a long file mixes utilization metrics, each GPU (host, gpu) keeps the best one it has,
//! in the order GR_ENGINE_ACTIVE, SM_ACTIVE, GPU_UTIL, PIPE_TENSOR_ACTIVE; the others are
//! skipped and counted in [`DcgmSamples::superseded_samples`]. Choosing per GPU rather than per
//! sample keeps every GPU's series in one unit of measure, while a host that exports no
//! profiling metrics still contributes its GPU_UTIL.
//!
//! Values: empty, `NA`, `N/A`, `NULL`, `None` are null samples (kept, util_frac null). A value
//! that is not a number, is NaN or infinite, is negative, or lies more than 1 % beyond the
//! metric's range (such as `999865.0000000001` for a percentage) is quarantined as an
//! unparseable number and left out of the frame; a value within 1 % above the top is clamped
//! to 1 (profiling ratios overshoot slightly).
//!
//! Times: RFC 3339 with an offset or `Z` (`2024-03-01T10:00:00+02:00`), the same with a space
//! for `T`, a trailing ` UTC`, naive times (read as UTC), or epoch seconds (fractions allowed;
//! magnitudes of 1e11 and above are taken as epoch milliseconds).
//!
//! By file: `long` and `wide` read the two layouts, `text` holds what both read with (CSV
//! fields, the names a column goes by, sample values and times).

pub mod format;
mod long;
#[cfg(test)]
mod tests;
mod text;
mod wide;

use std::collections::BTreeMap;

use polars::prelude::*;

use self::long::LongColumns;
pub use self::long::{read_dcgm_long, read_dcgm_long_detailed};
pub(crate) use self::text::RANGE_SLACK_FRAC;
use self::text::TIME_NAMES;
use self::wide::metric_in_file_name;
pub use self::wide::{read_dcgm_wide, read_dcgm_wide_detailed};
use super::reject::Quarantine;
use crate::data::canonical::SOURCE_LINE;

pub const TIME: &str = "time";
pub const HOST: &str = "host";
pub const GPU: &str = "gpu";
pub const UTIL_FRAC: &str = "util_frac";
/// How many samples a row stands for (its `util_frac` is their mean).
pub const SAMPLES: &str = "samples";
/// The measure a row's value is of (`DCGM_FI_PROF_GR_ENGINE_ACTIVE`, `gract (...)`).
pub const METRIC: &str = "metric";
/// The offset from UTC of the clock that wrote `time`, in minutes; null when the recording did
/// not say (nvidia-smi's local time): the audit then takes it from the plan or `--input-tz`.
pub const UTC_OFFSET_MIN: &str = "utc_offset_min";
/// The span a row's samples cover, from and to, in milliseconds from its `time`: a folded
/// nvidia-smi row covers its first sample's instant less half the samples' spacing to its last
/// one's plus half (`[-250, 59_750]` for a minute sampled every 500 ms from :00.000); a row of
/// one sample (every DCGM row) covers its instant alone (`[0, 0]`). The audit weighs a row in a
/// window or an hour by the share of this span inside it.
pub const COVER_FROM_MS: &str = "cover_from_ms";
pub const COVER_TO_MS: &str = "cover_to_ms";
/// The `gpu` of a sample that covers the whole host.
pub const ALL_GPUS: &str = "all";

/// The utilization frame's columns, in order, with their types.
pub fn utilization_schema() -> Schema {
    Schema::from_iter([
        Field::new(TIME.into(), DataType::Datetime(TimeUnit::Milliseconds, None)),
        Field::new(HOST.into(), DataType::String),
        Field::new(GPU.into(), DataType::String),
        Field::new(UTIL_FRAC.into(), DataType::Float64),
        Field::new(SOURCE_LINE.into(), DataType::UInt64),
        Field::new(SAMPLES.into(), DataType::UInt32),
        Field::new(METRIC.into(), DataType::String),
        Field::new(UTC_OFFSET_MIN.into(), DataType::Int32),
        Field::new(COVER_FROM_MS.into(), DataType::Int32),
        Field::new(COVER_TO_MS.into(), DataType::Int32),
    ])
}

/// A DCGM field that measures utilization; the order is the preference when several are present.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UtilMetric {
    GrEngineActive,
    SmActive,
    GpuUtil,
    PipeTensorActive,
}

impl UtilMetric {
    /// Recognizes `DCGM_FI_DEV_GPU_UTIL`, `dcgm_fi_prof_sm_active`, `GPU_UTIL`...; `None` for
    /// fields that are not utilization.
    pub fn from_name(name: &str) -> Option<UtilMetric> {
        let upper = name.trim().to_ascii_uppercase();
        let short = upper
            .strip_prefix("DCGM_FI_DEV_")
            .or_else(|| upper.strip_prefix("DCGM_FI_PROF_"))
            .unwrap_or(&upper);
        match short {
            "GR_ENGINE_ACTIVE" => Some(UtilMetric::GrEngineActive),
            "SM_ACTIVE" => Some(UtilMetric::SmActive),
            "GPU_UTIL" => Some(UtilMetric::GpuUtil),
            "PIPE_TENSOR_ACTIVE" => Some(UtilMetric::PipeTensorActive),
            _ => None,
        }
    }

    pub fn dcgm_name(self) -> &'static str {
        match self {
            UtilMetric::GrEngineActive => "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
            UtilMetric::SmActive => "DCGM_FI_PROF_SM_ACTIVE",
            UtilMetric::GpuUtil => "DCGM_FI_DEV_GPU_UTIL",
            UtilMetric::PipeTensorActive => "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
        }
    }

    /// GPU_UTIL is 0–100 %; the profiling fields are 0–1 ratios.
    pub fn is_percent(self) -> bool {
        self == UtilMetric::GpuUtil
    }
}

/// A utilization frame with what was set aside and skipped.
#[derive(Debug, Clone, Default)]
pub struct DcgmSamples {
    pub frame: DataFrame,
    pub quarantine: Quarantine,
    /// Rows kept in the frame, per metric.
    pub metrics: BTreeMap<UtilMetric, u64>,
    /// Samples of metrics that are not utilization (clocks, memory, power...).
    pub ignored_samples: u64,
    /// Samples of a utilization metric passed over for a better one on the same GPU.
    pub superseded_samples: u64,
}

impl DcgmSamples {
    pub fn into_parts(self) -> (DataFrame, Quarantine) {
        (self.frame, self.quarantine)
    }
}

/// True for a long-layout header: time, host, metric and value columns (gpu optional), by the
/// names the long reader itself finds (Prometheus' `__name__` export among them): the rule
/// detection uses (`format::DcgmLong`).
pub fn is_long_header(names: &[String]) -> bool {
    LongColumns::find(names).is_ok()
}

/// True for a wide-layout header (`Time,<series>,...`) in a file named after a DCGM field: the
/// rule detection uses (`format::DcgmWide`).
pub fn is_wide_header(names: &[String], file_name: &str) -> bool {
    names.len() >= 2
        && names
            .first()
            .is_some_and(|first| TIME_NAMES.contains(&first.to_ascii_lowercase().as_str()))
        && LongColumns::find(names).is_err()
        && metric_in_file_name(file_name).is_some()
}

#[derive(Debug, Clone, PartialEq)]
struct Sample {
    time_ms: i64,
    host: String,
    gpu: String,
    util_frac: Option<f64>,
    line: u64,
    metric: UtilMetric,
}

fn utilization_frame(samples: &[Sample]) -> PolarsResult<DataFrame> {
    let time = Column::new(TIME.into(), samples.iter().map(|s| s.time_ms).collect::<Vec<i64>>())
        .cast(&DataType::Datetime(TimeUnit::Milliseconds, None))?;
    DataFrame::new(
        samples.len(),
        vec![
            time,
            Column::new(
                HOST.into(),
                samples.iter().map(|s| s.host.as_str()).collect::<Vec<&str>>(),
            ),
            Column::new(
                GPU.into(),
                samples.iter().map(|s| s.gpu.as_str()).collect::<Vec<&str>>(),
            ),
            Column::new(
                UTIL_FRAC.into(),
                samples.iter().map(|s| s.util_frac).collect::<Vec<Option<f64>>>(),
            ),
            Column::new(SOURCE_LINE.into(), samples.iter().map(|s| s.line).collect::<Vec<u64>>()),
            Column::new(SAMPLES.into(), vec![1u32; samples.len()]),
            Column::new(
                METRIC.into(),
                samples.iter().map(|s| s.metric.dcgm_name()).collect::<Vec<&str>>(),
            ),
            Column::new(UTC_OFFSET_MIN.into(), vec![0i32; samples.len()]),
            Column::new(COVER_FROM_MS.into(), vec![0i32; samples.len()]),
            Column::new(COVER_TO_MS.into(), vec![0i32; samples.len()]),
        ],
    )
}
