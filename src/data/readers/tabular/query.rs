//! The query every piece of a log goes through: the mapped columns as canonical fields, each row
//! marked with the reason it cannot be used (if any), and for an audit the classification
//! features in place of the text columns.

use polars::prelude::*;

use super::fields::{gpu_multiplier, id_and_line, null_text, number_field, raw_present, text_field, time_limit_field};
use super::split::{Bounds, reject_reason};
use super::times::{MS, parse_origin, time_field};
use super::{DETAIL_ONLY_FIELDS, Detail, END_PRESENT, REASON, START_PRESENT, UTIL_PRESENT, audit_columns};
use crate::data::audit::classify::features::{gpu_type_code_expr, run_feature_exprs};
use crate::data::audit::classify::placement::KindColumns;
use crate::data::canonical as c;
use crate::data::error::DataError;
use crate::data::readers::detect::LogFormat;
use crate::data::readers::mapping::{EmptyEnd, EmptyGpus, EmptyStart, Mapping, UtilUnit};

/// A log with a wait and no submit time (AcmeTrace's and Helios's numeric `queue`): submitted
/// = started − wait seconds; a negative or missing wait leaves it unknown.
fn submit_from_wait(start: Expr, wait_seconds: Expr) -> Expr {
    let wait_ms = (wait_seconds.clone() * lit(1_000.0)).cast(DataType::Int64);
    when(wait_seconds.clone().is_null().or(wait_seconds.lt(lit(0.0))))
        .then(lit(NULL).cast(MS))
        .otherwise((start.cast(DataType::Int64) - wait_ms).cast(MS))
}

/// GPUs held: the count × its unit × the multiplier column; an empty count is no GPU when the
/// mapping says so (`units.empty_gpus = "zero"`), else left empty to be set aside.
fn gpus_field(mapping: &Mapping, schema: &Schema, gpus_factor: f64) -> Result<Expr, DataError> {
    let gpus = number_field("gpus", mapping, schema)? * lit(gpus_factor) * gpu_multiplier(mapping, schema);
    Ok(match mapping.units.empty_gpus {
        EmptyGpus::Reject => gpus,
        EmptyGpus::Zero => when(raw_present("gpus", mapping).not()).then(lit(0.0)).otherwise(gpus),
    })
}

/// The canonical columns of a log through its (completed) mapping, and what is added after them.
pub(super) struct RowQuery {
    columns: Vec<Expr>,
    /// The classification features, for an audit.
    features: Option<Vec<Expr>>,
    has_submit: bool,
    has_time_limit: bool,
    /// An audit keeps the GPU type as its number (`gpu_type_code`), for logs that have one.
    has_gpu_type: bool,
    empty_end: EmptyEnd,
    bounds: Bounds,
}

impl RowQuery {
    /// The query for a log whose first rows (or scan) are `lf`, with `schema`: time layouts are
    /// recognised from `lf`'s values.
    pub(super) fn new(
        format: LogFormat,
        lf: &LazyFrame,
        mapping: &Mapping,
        schema: &Schema,
        detail: Detail<'_>,
    ) -> Result<RowQuery, DataError> {
        let (job_id, line) = id_and_line(mapping, format);
        let gpus_factor = mapping.units.gpus.to_gpus_factor();
        let util_divisor = if mapping.units.gpu_util == UtilUnit::Percent {
            100.0
        } else {
            1.0
        };
        let detail_field = |field: &str| {
            debug_assert!(DETAIL_ONLY_FIELDS.contains(&field));
            if matches!(detail, Detail::Full) {
                text_field(field, mapping)
            } else {
                null_text()
            }
        };
        let has_submit = mapping.columns.contains_key("submit") || mapping.columns.contains_key("wait");
        let has_time_limit = mapping.columns.contains_key("time_limit");
        // The start's layout is recognised once, for the start and a submit derived from it.
        let mut start = time_field("start", lf, mapping, schema)?;
        if mapping.units.empty_start == EmptyStart::TraceStart {
            // Running before the trace began (left-censored): from the trace's first instant.
            let origin_ms = match &mapping.units.time_origin {
                Some(origin) => parse_origin(origin)?,
                None => 0,
            };
            start = when(raw_present("start", mapping).not())
                .then(lit(origin_ms).cast(MS))
                .otherwise(start);
        }
        let mut columns = vec![
            job_id.alias(c::JOB_ID),
            text_field("cluster", mapping).alias(c::CLUSTER),
            text_field("name", mapping).alias(c::NAME),
            detail_field("user").alias(c::USER),
            text_field("queue", mapping).alias(c::QUEUE),
            detail_field("state").alias(c::STATE),
            start.clone().alias(c::START),
            time_field("end", lf, mapping, schema)?.alias(c::END),
            gpus_field(mapping, schema, gpus_factor)?.alias(c::GPUS),
            text_field("gpu_type", mapping).alias(c::GPU_TYPE),
            (number_field("gpu_util", mapping, schema)? / lit(util_divisor)).alias(c::GPU_UTIL_FRAC),
            text_field("label", mapping).alias(c::LABEL),
            line,
            raw_present("end", mapping).alias(END_PRESENT),
            raw_present("gpu_util", mapping).alias(UTIL_PRESENT),
            raw_present("start", mapping).alias(START_PRESENT),
        ];
        // Submit and time-limit columns only for logs that have them: a null column in every
        // frame costs the 10M-row audit several percent.
        if mapping.columns.contains_key("submit") {
            columns.push(time_field("submit", lf, mapping, schema)?.alias(c::SUBMIT));
        } else if has_submit {
            columns.push(submit_from_wait(start, number_field("wait", mapping, schema)?).alias(c::SUBMIT));
        }
        if has_time_limit {
            columns.push(time_limit_field(mapping, schema).alias(c::TIME_LIMIT_HOURS));
        }
        // What the scheduler says a job is, for the logs that say it.
        let kinds = KindColumns {
            qos: mapping.columns.contains_key("qos") || mapping.constants.contains_key("qos"),
            owner_kind: mapping.columns.contains_key("owner_kind") || mapping.constants.contains_key("owner_kind"),
        };
        for (present, field, column) in [
            (kinds.qos, "qos", c::QOS),
            (kinds.owner_kind, "owner_kind", c::OWNER_KIND),
        ] {
            if present {
                columns.push(text_field(field, mapping).alias(column));
            }
        }
        let features = match detail {
            Detail::Full => None,
            Detail::Audit(rules) => Some(run_feature_exprs(rules, kinds)?),
        };
        Ok(RowQuery {
            columns,
            features,
            has_submit,
            has_time_limit,
            has_gpu_type: mapping.columns.contains_key("gpu_type"),
            empty_end: mapping.units.empty_end,
            bounds: Bounds {
                // Ratios are bounded as ratios; percentages (divided already) and values whose
                // unit is settled later (`auto`, percentages once any exceeds 1) as percentages.
                util_max: match mapping.units.gpu_util {
                    UtilUnit::Auto => c::JOB_UTIL_MAX_AUTO,
                    UtilUnit::Percent | UtilUnit::Ratio => c::JOB_UTIL_MAX_FRAC,
                },
                // One clock for every piece of the file.
                latest_ms: c::latest_time_ms(),
            },
        })
    }

    /// The query on `lf`: canonical columns, a `REASON` for each row, the features for an audit.
    pub(super) fn apply(&self, lf: LazyFrame) -> LazyFrame {
        let mut query = lf.select(self.columns.clone());
        if self.has_submit {
            // A submit time after the start is not believed (as Slurm's reader does).
            let (submit, start) = (col(c::SUBMIT), col(c::START));
            query = query.with_column(
                when(start.clone().is_null().or(submit.clone().lt_eq(start)))
                    .then(submit)
                    .otherwise(lit(NULL).cast(MS))
                    .alias(c::SUBMIT),
            );
        }
        let query = query
            .with_column(reject_reason(self.empty_end, self.has_submit, self.bounds).alias(REASON))
            .drop(by_name([END_PRESENT, UTIL_PRESENT, START_PRESENT], true, false));
        match &self.features {
            None => query,
            Some(features) => {
                let mut compact = audit_columns();
                if self.has_submit {
                    compact.push(col(c::SUBMIT));
                }
                if self.has_time_limit {
                    compact.push(col(c::TIME_LIMIT_HOURS));
                }
                if self.has_gpu_type {
                    compact.push(gpu_type_code_expr());
                }
                compact.push(col(REASON));
                query.with_columns(features.clone()).select(compact)
            }
        }
    }
}
