//! The audit compiled to SQL: one generator, written through a `Dialect`, whose queries bring
//! back only aggregates. Per cluster and class the runs, jobs, GPU-hours and utilization; the
//! occupancy's changes step by step (the difference array `data::audit::run_totals` builds, so
//! the series, peaks and floors come out of the same Rust as the in-process audit's); per rule
//! its jobs and GPU-hours; labels against rules; the largest jobs; the jobs that never started;
//! the rows set aside by reason. The classification is generated from the rules (`rules`).
//!
//! The queries: a probe for units left to the values (only when the mapping leaves one), the
//! span of the runs (to resolve the window), with passes the job ids' range (`job_range_query`)
//! and each pass's stems, and the totals (one statement, or one a pass, whose parts are
//! `UNION ALL`ed in one long table, so the engine reads the source once where it can).

pub mod fields;
mod jobs;
pub mod rules;
#[cfg(test)]
mod tests;
mod totals;
mod window;

use self::fields::SourceFields;
use crate::data::canonical as c;
use crate::data::readers::mapping::EmptyEnd;
use crate::data::readers::reject::RejectReason;
use crate::data::warehouse::dialect::Dialect;
use crate::model::fleet::Window;
use crate::model::workload::ClassificationRules;

/// The columns of the totals' long table, in order: which part a row belongs to, its cluster,
/// two integer keys, two counts, seven doubles, five texts.
pub const PART: &str = "part";
pub const TOTALS_COLUMNS: [&str; 18] = [
    "part", "cluster", "k1", "k2", "n1", "n2", "x0", "x1", "x2", "x3", "x4", "x5", "x6", "t0", "t1", "t2", "t3", "t4",
];

/// The parts of the totals' long table.
pub mod parts {
    pub const CLASS: &str = "class";
    pub const CLASS_JOBS: &str = "class_jobs";
    pub const GPU_TYPE: &str = "gpu_type";
    pub const RULE: &str = "rule";
    pub const LABEL: &str = "label";
    pub const UNKNOWN_LABEL: &str = "unknown_label";
    pub const TOP: &str = "top";
    /// The occupancy's events summed per step and class (`n1`): `k2` 0 for the runs' first
    /// steps (`x0..x2` their first step's shares of busy, utilized and floor GPUs, `x3..x5`
    /// the full steps after), 1 for their last steps (`x0..x2` the last step's shares,
    /// `x3..x5` the full steps before), `t0` the runs' GPU type (null where they name none).
    pub const STEP_SUMS: &str = "step_sums";
    pub const PENDING: &str = "pending";
    pub const REJECT: &str = "reject";
    pub const REJECT_SAMPLE: &str = "reject_sample";
}

/// Rows set aside shown per reason, as a file's first few are.
const REJECT_SAMPLES: usize = crate::data::readers::reject::SAMPLES_PER_REASON;

/// The code a row that is no reject but a job that never started gets in `reason`.
const PENDING_REASON: u32 = 99;

/// The audit's queries over one source.
pub struct AuditSql<'a> {
    pub dialect: &'a dyn Dialect,
    /// The table, or table expression, the rows come from.
    pub from: &'a str,
    pub fields: &'a SourceFields,
    pub rules: &'a ClassificationRules,
}

/// The name of the temporary table a multi-pass audit keeps its stems' parts in.
pub const STEM_PARTS_TABLE: &str = "gpuplan_stem_parts";

/// The name of the temporary table the parts are summed into, once, for every pass to read.
pub const STEM_SUMS_TABLE: &str = "gpuplan_stems";

/// The window the totals are summed over, and whether only its runs are read.
#[derive(Debug, Clone, Copy)]
pub struct TotalsWindow<'a> {
    pub window: &'a Window,
    /// Read only the runs touching the window (the user named one): the source's partitions
    /// outside it are never scanned, and jobs' hours and stems' repeats count within it.
    pub filter_rows: bool,
    /// One pass of several (`[warehouse] passes`): only the jobs of this share are read, and
    /// the stems come from `STEM_SUMS_TABLE`: every pass's `stem_parts_query`, kept in
    /// `STEM_PARTS_TABLE`, summed once (`stem_sums_statement`).
    pub pass: Option<Pass>,
}

/// Pass `index` of `of`, over one share of the jobs. Every run of a job falls in the same pass,
/// so each pass's jobs, hours and changes add up to the whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub index: u32,
    pub of: u32,
    pub share: PassShare,
}

/// Which jobs a pass reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassShare {
    /// The jobs whose id hashes to the pass's index modulo the passes (ids of any type): every
    /// pass reads the whole source and keeps its share. The first pass also counts the rows
    /// set aside and the jobs that never started.
    Hash,
    /// The jobs whose id, a number as stored, lies in `[from, below)` (open where None; the
    /// first pass also takes the rows with no id): a filter on the column as stored, so the
    /// engine skips the row groups or partitions outside the range by their statistics, and
    /// each pass counts its own rows set aside and jobs that never started.
    IdRange { from: Option<i64>, below: Option<i64> },
}

impl Pass {
    /// `of` passes over equal ranges of the job ids between `min` and `max` (the source's
    /// smallest and largest), the first and last open-ended so that every row falls in one.
    pub fn id_ranges(of: u32, min: f64, max: f64) -> Vec<Pass> {
        let of = of.max(1);
        // Saturating: ids past i64 (a double column) fall in the open-ended last pass.
        let (low, high) = (min.floor() as i64, (max.floor() as i64).saturating_add(1));
        let width = i128::from(high) - i128::from(low);
        let bound = |k: u32| (i128::from(low) + width * i128::from(k) / i128::from(of)) as i64;
        (0..of)
            .map(|index| Pass {
                index,
                of,
                share: PassShare::IdRange {
                    from: (index > 0).then(|| bound(index)),
                    below: (index + 1 < of).then(|| bound(index + 1)),
                },
            })
            .collect()
    }

    /// `of` passes over the hashes of the job ids.
    pub fn hashed(of: u32) -> Vec<Pass> {
        (0..of)
            .map(|index| Pass {
                index,
                of,
                share: PassShare::Hash,
            })
            .collect()
    }
}

impl AuditSql<'_> {
    fn d(&self) -> &dyn Dialect {
        self.dialect
    }

    fn dbl(&self, x: f64) -> String {
        self.d().cast(&format!("{x:?}"), self.d().double_type())
    }

    fn big(&self, expr: &str) -> String {
        self.d().cast(expr, self.d().bigint_type())
    }

    fn double(&self, expr: &str) -> String {
        self.d().cast(expr, self.d().double_type())
    }

    fn txt(&self, expr: &str) -> String {
        self.d().cast(expr, self.d().text_type())
    }

    /// A job id expression as text, where ids are kept as whole numbers: to hash them as
    /// text ids are.
    fn job_text(&self, expr: &str) -> String {
        if self.fields.job_id_whole {
            self.txt(expr)
        } else {
            expr.to_string()
        }
    }

    /// A job id expression to order by: its text, byte by byte, as the in-process audit
    /// breaks ties ("10" before "9").
    fn job_order(&self, expr: &str) -> String {
        self.d().byte_order(&self.job_text(expr))
    }

    /// The filter on the raw start and end columns that keeps the rows touching `window` (and
    /// rows with no start: jobs that never started), written on the columns as stored so that
    /// an engine prunes the partitions outside it; "" when neither column can be compared raw.
    fn pushdown(&self, window: &Window) -> Vec<String> {
        let d = self.d();
        let mut kept = Vec::new();
        let raw = [
            (&self.fields.start_raw, "<=", window.end_ms),
            (&self.fields.end_raw, ">=", window.start_ms),
        ];
        for (column, op, ms) in raw {
            if let Some(column) = column {
                kept.push(format!(
                    "({} IS NULL OR {})",
                    column.quoted(),
                    column.compare(d, op, ms)
                ));
            }
        }
        kept
    }

    /// The filter on the raw job id column that keeps a pass's range of ids (rows with no id
    /// in the first pass); none for other passes.
    fn pass_pushdown(&self, pass: Option<Pass>) -> Option<String> {
        let PassShare::IdRange { from, below } = pass?.share else {
            return None;
        };
        let column = self.fields.job_number.as_deref()?;
        let range = match (from, below) {
            (Some(from), Some(below)) => format!("{column} >= {from} AND {column} < {below}"),
            (Some(from), None) => format!("{column} >= {from}"),
            (None, Some(below)) => format!("{column} < {below}"),
            (None, None) => "TRUE".to_string(),
        };
        Some(if from.is_none() {
            format!("({range} OR {column} IS NULL)")
        } else {
            format!("({range})")
        })
    }

    /// `source` (the canonical fields) and `checked` (with each row's reason to be set aside);
    /// with `window`, only the rows its pushdown keeps; with a pass over a range of ids, only
    /// its rows.
    fn checked_ctes(&self, window: Option<&Window>, pass: Option<Pass>) -> String {
        let f = self.fields;
        let d = self.d();
        let has_submit = f.submit_ms.is_some();
        let submit = f.submit_ms.clone().unwrap_or_else(|| self.big("NULL"));
        let source = format!(
            "source AS{} (\n  SELECT\n    {} AS job_id,\n    {} AS cluster,\n    {} AS name,\n    {} AS user_name,\n    {} AS queue,\n    {} AS state,\n    {} AS qos,\n    {} AS owner_kind,\n    {} AS label,\n    {} AS gpu_type,\n    {} AS start_ms,\n    {} AS end_ms,\n    {} AS submit_raw_ms,\n    {} AS gpus,\n    {} AS util,\n    {} AS time_limit_hours,\n    {} AS start_present,\n    {} AS end_present,\n    {} AS util_present,\n    {} AS raw_start,\n    {} AS raw_end,\n    {} AS raw_gpus,\n    {} AS raw_util\n  FROM {}{}\n)",
            d.not_materialized(),
            f.job_id,
            f.cluster,
            f.name,
            f.user,
            f.queue,
            f.state,
            f.qos,
            f.owner_kind,
            f.label,
            f.gpu_type,
            f.start_ms,
            f.end_ms,
            submit,
            f.gpus,
            f.util,
            f.time_limit_hours,
            f.start_present,
            f.end_present,
            f.util_present,
            f.raw_values[0],
            f.raw_values[1],
            f.raw_values[2],
            f.raw_values[3],
            self.from,
            where_clause(
                window
                    .map(|w| self.pushdown(w))
                    .unwrap_or_default()
                    .into_iter()
                    .chain(self.pass_pushdown(pass))
            )
        );
        // A submit time after the start is not believed.
        let submit_ms = "CASE WHEN start_ms IS NULL OR submit_raw_ms <= start_ms THEN submit_raw_ms END";
        let never_started = if has_submit {
            "(start_ms IS NULL AND NOT start_present AND submit_raw_ms IS NOT NULL)".to_string()
        } else {
            "FALSE".to_string()
        };
        let end_unreadable = "(end_present AND end_ms IS NULL)".to_string();
        let end_missing = match f.empty_end {
            EmptyEnd::Censored => end_unreadable,
            EmptyEnd::Reject => format!("({end_unreadable} OR (end_ms IS NULL AND NOT {never_started}))"),
        };
        let code = |r: RejectReason| r as u32;
        let no_job_id = if f.job_id_whole {
            "job_id IS NULL".to_string()
        } else {
            format!("job_id IS NULL OR {} = 0", d.char_length("job_id"))
        };
        // Times before 2000 or past a day after the run's clock, and utilization below 0 or
        // past `JOB_UTIL_MAX_FRAC`, are set aside as a file's reader sets them aside
        // (`readers::tabular::split`), in the same order.
        let (earliest, latest) = (c::EARLIEST_TIME_MS, f.latest_ms);
        let outside = |time: &str| format!("({time} < {earliest} OR {time} > {latest})");
        let reason = format!(
            "CASE\n      WHEN {no_job_id} THEN {}\n      WHEN (start_ms IS NULL AND NOT {never_started}) OR {end_missing} THEN {}\n      WHEN gpus IS NULL OR NOT {} OR gpus > {} OR (util_present AND (util IS NULL OR NOT {})) THEN {}\n      WHEN gpus < 0 THEN {}\n      WHEN gpus = 0 THEN {}\n      WHEN start_ms IS NOT NULL AND end_ms IS NOT NULL AND end_ms < start_ms THEN {}\n      WHEN {} OR {} THEN {}\n      WHEN util < 0 OR util > {} THEN {}\n      WHEN {never_started} THEN {PENDING_REASON}\n    END",
            code(RejectReason::MissingJobId),
            code(RejectReason::UnparseableTime),
            d.is_finite("gpus"),
            self.dbl(c::MAX_JOB_GPUS),
            d.is_finite("util"),
            code(RejectReason::UnparseableNumber),
            code(RejectReason::NegativeGpus),
            code(RejectReason::CpuOnly),
            code(RejectReason::EndBeforeStart),
            outside("start_ms"),
            outside("end_ms"),
            code(RejectReason::TimeOutOfRange),
            self.dbl(c::JOB_UTIL_MAX_FRAC),
            code(RejectReason::UtilizationOutOfRange),
        );
        // Utilization kept within the tolerance above 100 % is read as 100 %, as a file's is.
        let util = format!(
            "CASE WHEN util > {one} THEN {one} ELSE util END AS util",
            one = self.dbl(1.0)
        );
        format!(
            "{source},\nchecked AS{not_materialized} (\n  SELECT job_id, cluster, name, user_name, queue, state, qos, owner_kind, label, gpu_type,\n    start_ms, end_ms, gpus, {util}, time_limit_hours, raw_start, raw_end, raw_gpus, raw_util,\n    {submit_ms} AS submit_ms,\n    {reason} AS reason\n  FROM source\n)",
            not_materialized = d.not_materialized(),
        )
    }

    /// The probe-free span of the runs: earliest start, latest end, latest start, runs.
    pub fn span_query(&self) -> String {
        format!(
            "WITH {}\nSELECT MIN(start_ms) AS min_start_ms, MAX(end_ms) AS max_end_ms, MAX(start_ms) AS max_start_ms, COUNT(*) AS runs\nFROM checked\nWHERE reason IS NULL",
            self.checked_ctes(None, None)
        )
    }

    /// The rows set aside by reason (their codes), asked only when the span finds no run: the
    /// refusal says why every row went.
    pub fn set_aside_query(&self) -> String {
        format!(
            "WITH {}\nSELECT reason, COUNT(*) AS n\nFROM checked\nWHERE reason IS NOT NULL AND reason <> {PENDING_REASON}\nGROUP BY reason",
            self.checked_ctes(None, None)
        )
    }

    /// The smallest and largest job id as stored, where ids are numbers: passes split that
    /// range. None where they are not.
    pub fn job_range_query(&self) -> Option<String> {
        let column = self.fields.job_number.as_deref()?;
        let double = |expr: String| self.double(&expr);
        Some(format!(
            "SELECT {} AS min_job_id, {} AS max_job_id\nFROM {}",
            double(format!("MIN({column})")),
            double(format!("MAX({column})")),
            self.from
        ))
    }

    /// Whether the source can hold jobs that never started (it maps a submit time).
    fn has_submit(&self) -> bool {
        self.fields.submit_ms.is_some()
    }

    /// Whether the totals of `at` count the jobs that never started.
    fn counts_pending(&self, at: TotalsWindow<'_>) -> bool {
        self.has_submit() && at.pass.is_none_or(Pass::counts_rows)
    }
}

/// `WHERE` and the conditions, each on its own line; "" for none.
fn where_clause(conditions: impl Iterator<Item = String>) -> String {
    let conditions: Vec<String> = conditions.collect();
    if conditions.is_empty() {
        String::new()
    } else {
        format!("\n  WHERE {}", conditions.join("\n    AND "))
    }
}
