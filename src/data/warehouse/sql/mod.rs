//! The audit compiled to SQL: one generator, written through a `Dialect`, whose queries bring
//! back only aggregates. Per cluster and class the runs, jobs, GPU-hours and utilization; the
//! occupancy's changes step by step (the difference array `data::audit::run_totals` builds, so
//! the series, peaks and floors come out of the same Rust as the in-process audit's); per rule
//! its jobs and GPU-hours; labels against rules; the largest jobs; the jobs that never started;
//! the rows set aside by reason. The classification is generated from the rules (`rules`).
//!
//! Three queries: a probe for units left to the values (only when the mapping leaves one), the
//! span of the runs (to resolve the window), and the totals (one statement whose parts are
//! `UNION ALL`ed in one long table, so the engine reads the source once where it can).

pub mod fields;
pub mod rules;
#[cfg(test)]
mod tests;
mod totals;

use self::fields::SourceFields;
use self::rules::RuleSql;
use crate::data::audit::classify::MAX_RULES;
use crate::data::audit::top_jobs::TOP_JOBS_PER_CLASS;
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
    pub const CHANGES: &str = "changes";
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

/// The window the totals are summed over, and whether only its runs are read.
#[derive(Debug, Clone, Copy)]
pub struct TotalsWindow<'a> {
    pub window: &'a Window,
    /// Read only the runs touching the window (the user named one): the source's partitions
    /// outside it are never scanned, and jobs' hours and stems' repeats count within it.
    pub filter_rows: bool,
    /// One pass of several (`[warehouse] passes`): only the jobs of this share are read, and
    /// the stems come from `STEM_PARTS_TABLE`, filled by every pass's `stem_parts_query`.
    pub pass: Option<Pass>,
}

/// Pass `index` of `of`: the jobs whose id hashes to `index` modulo `of`. Every run of a job
/// falls in the same pass, so each pass's jobs, hours and changes add up to the whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub index: u32,
    pub of: u32,
}

impl Pass {
    /// Whether this pass also counts what is not a job's (rows set aside, jobs never started).
    fn counts_rows(self) -> bool {
        self.index == 0
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

    /// The filter on the raw start and end columns that keeps the rows touching `window` (and
    /// rows with no start: jobs that never started), written on the columns as stored so that
    /// an engine prunes the partitions outside it; "" when neither column can be compared raw.
    fn pushdown(&self, window: &Window) -> String {
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
        if kept.is_empty() {
            String::new()
        } else {
            format!("\n  WHERE {}", kept.join("\n    AND "))
        }
    }

    /// `source` (the canonical fields) and `checked` (with each row's reason to be set aside);
    /// with `window`, only the rows its pushdown keeps.
    fn checked_ctes(&self, window: Option<&Window>) -> String {
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
            f.raw_texts[0],
            f.raw_texts[1],
            f.raw_texts[2],
            f.raw_texts[3],
            self.from,
            window.map(|w| self.pushdown(w)).unwrap_or_default()
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
        let reason = format!(
            "CASE\n      WHEN job_id IS NULL OR {} = 0 THEN {}\n      WHEN (start_ms IS NULL AND NOT {never_started}) OR {end_missing} THEN {}\n      WHEN gpus IS NULL OR NOT {} OR gpus > {} OR (util_present AND (util IS NULL OR NOT {})) THEN {}\n      WHEN gpus < 0 THEN {}\n      WHEN gpus = 0 THEN {}\n      WHEN start_ms IS NOT NULL AND end_ms IS NOT NULL AND end_ms < start_ms THEN {}\n      WHEN {never_started} THEN {PENDING_REASON}\n    END",
            d.char_length("job_id"),
            code(RejectReason::MissingJobId),
            code(RejectReason::UnparseableTime),
            d.is_finite("gpus"),
            self.dbl(c::MAX_JOB_GPUS),
            d.is_finite("util"),
            code(RejectReason::UnparseableNumber),
            code(RejectReason::NegativeGpus),
            code(RejectReason::CpuOnly),
            code(RejectReason::EndBeforeStart),
        );
        format!(
            "{source},\nchecked AS{not_materialized} (\n  SELECT job_id, cluster, name, user_name, queue, state, qos, owner_kind, label, gpu_type,\n    start_ms, end_ms, gpus, util, time_limit_hours, raw_start, raw_end, raw_gpus, raw_util,\n    {submit_ms} AS submit_ms,\n    {reason} AS reason\n  FROM source\n)",
            not_materialized = d.not_materialized(),
        )
    }

    /// The probe-free span of the runs: earliest start, latest end, latest start, runs.
    pub fn span_query(&self) -> String {
        format!(
            "WITH {}\nSELECT MIN(start_ms) AS min_start_ms, MAX(end_ms) AS max_end_ms, MAX(start_ms) AS max_start_ms, COUNT(*) AS runs\nFROM checked\nWHERE reason IS NULL",
            self.checked_ctes(None)
        )
    }

    /// The common table expressions of the rows checked, the runs (one pass's share of the
    /// jobs, when `at.pass` names one) and their features, and each job's facts. The source's
    /// rows are read again by each part that reads them rather than kept, but for `many_reads`
    /// of one pass: its share of the runs, read by several parts, is kept (it is a pass's size),
    /// so that a pass scans the source once.
    fn job_ctes(&self, at: TotalsWindow<'_>, many_reads: bool) -> String {
        let d = self.d();
        let window = at.window;
        let (w0, w1) = (window.start_ms, window.end_ms);
        let rules = RuleSql {
            dialect: d,
            rules: self.rules,
        };
        debug_assert!(self.rules.rules.len() <= MAX_RULES);
        let hour = "3600000";
        let runs_hint = if many_reads && at.pass.is_some() {
            d.materialized()
        } else {
            d.not_materialized()
        };
        let mut runs_filter = String::new();
        if at.filter_rows {
            runs_filter.push_str(&format!(
                "\n    AND start_ms <= {w1} AND (end_ms IS NULL OR end_ms >= {w0})"
            ));
        }
        if let Some(share) = at
            .pass
            .and_then(|pass| d.job_share("job_id", pass.of).map(|share| (share, pass.index)))
        {
            runs_filter.push_str(&format!("\n    AND {} = {}", share.0, share.1));
        }
        let run_columns = rules.run_columns().join(",\n    ");
        let job_rule_columns = rules.job_columns();
        let job_rule_columns = if job_rule_columns.is_empty() {
            String::new()
        } else {
            format!("{},\n    ", job_rule_columns.join(", "))
        };
        format!(
            "WITH {checked},
runs AS{runs_hint} (
  SELECT job_id, cluster, name, user_name, queue, state, qos, owner_kind, label, gpu_type, start_ms, end_ms, submit_ms, gpus, util
  FROM checked
  WHERE reason IS NULL AND cluster IS NOT NULL{runs_filter}
),
run_features AS (
  SELECT job_id, cluster, start_ms, gpus, util,
    GREATEST(COALESCE(end_ms, {w1}), start_ms) - start_ms AS run_ms,
    {run_columns}
  FROM runs
),
job_facts AS (
  SELECT cluster, job_id,
    {run_hours} AS run_hours,
    GREATEST(MAX(gpus), {zero}) AS gpus,
    COALESCE(SUM(CASE WHEN util IS NOT NULL THEN util * gpus * {run_ms} END), {zero}) / {hour} AS util_gpu_hours,
    COALESCE(SUM(CASE WHEN util IS NOT NULL THEN gpus * {run_ms} END), {zero}) / {hour} AS util_weight,
    {job_rule_columns}MAX(label_code) AS label_code, MAX(unknown_label) AS unknown_label, MIN(stem) AS stem,
    MIN(start_ms) AS first_ms, MAX(start_ms + run_ms) AS last_ms
  FROM run_features
  GROUP BY cluster, job_id
)",
            checked = self.checked_ctes(at.filter_rows.then_some(window)),
            run_hours = d.cast("SUM(run_ms)", d.double_type()) + " / 3600000",
            run_ms = self.double("run_ms"),
            zero = self.dbl(0.0),
        )
    }

    /// Per cluster and stem: its jobs, their run hours, its first start and last end.
    const STEM_COLUMNS: &'static str = "cluster, stem, COUNT(*) AS jobs, SUM(run_hours) AS run_hours, MIN(first_ms) AS first_ms, MAX(last_ms) AS last_ms";

    /// One pass's stems (`STEM_COLUMNS` over its jobs), for `STEM_PARTS_TABLE`: the jobs of a
    /// stem fall in several passes, so a pass classifies with every pass's parts summed.
    pub fn stem_parts_query(&self, at: TotalsWindow<'_>) -> String {
        format!(
            "{}\nSELECT {}\nFROM job_facts\nWHERE stem IS NOT NULL\nGROUP BY cluster, stem",
            self.job_ctes(at, false),
            Self::STEM_COLUMNS
        )
    }

    /// The statement that keeps one pass's stems: the first creates `STEM_PARTS_TABLE`, the
    /// others add to it. None outside a pass, or where the engine has no temporary tables.
    pub fn stem_parts_statement(&self, at: TotalsWindow<'_>) -> Option<String> {
        let pass = at.pass?;
        self.d().job_share("job_id", pass.of)?;
        let select = self.stem_parts_query(at);
        Some(if pass.index == 0 {
            self.d().temporary_table(STEM_PARTS_TABLE, &select)
        } else {
            format!("INSERT INTO {}\n{select}", self.d().quote(STEM_PARTS_TABLE))
        })
    }

    /// Whether the source can hold jobs that never started (it maps a submit time).
    fn has_submit(&self) -> bool {
        self.fields.submit_ms.is_some()
    }

    /// Whether the totals of `at` count the jobs that never started.
    fn counts_pending(&self, at: TotalsWindow<'_>) -> bool {
        self.has_submit() && at.pass.is_none_or(Pass::counts_rows)
    }

    /// The common table expressions every query over the window reads: the rows checked, the
    /// runs and their features, the jobs classified, the runs in the window, the occupancy's
    /// step points, the jobs that never started (where the source has a submit time).
    fn window_ctes(&self, at: TotalsWindow<'_>) -> String {
        let d = self.d();
        let window = at.window;
        let (w0, w1) = (window.start_ms, window.end_ms);
        let window_ms = w1 - w0;
        let step_ms = window.resolution.step_ms();
        let steps = window.resolution.steps(window_ms) as i64;
        let rules = RuleSql {
            dialect: d,
            rules: self.rules,
        };
        let hour = "3600000";
        let materialized = d.materialized();
        let decision = rules.decision_columns().join(",\n    ");
        let matched = rules.matched_rule("j", "s");
        let step_len = |step: &str| {
            format!(
                "(CASE WHEN {step} + 1 < {steps} THEN {step_ms} ELSE GREATEST(LEAST({window_ms} - ({step}) * {step_ms}, {step_ms}), 1) END)"
            )
        };
        let share = |numerator: &str, step: &str| {
            format!(
                "LEAST({} / {}, {})",
                self.double(numerator),
                step_len(step),
                self.dbl(1.0)
            )
        };
        let first_step = d.int_div("from_ms", &step_ms.to_string());
        let end_step = format!(
            "LEAST({}, {steps})",
            d.int_div(&format!("to_ms + {}", step_ms - 1), &step_ms.to_string())
        );
        let single = "end_step <= first_step + 1";
        let middle = "end_step - 1 > first_step + 1";
        let amount = format!(
            "CASE WHEN {single} THEN (CASE k WHEN 0 THEN {part} WHEN 1 THEN -{part} END)\n      ELSE (CASE k WHEN 0 THEN {head} WHEN 1 THEN -{head} WHEN 2 THEN (CASE WHEN {middle} THEN {one} END) WHEN 3 THEN (CASE WHEN {middle} THEN -{one} END) WHEN 4 THEN {tail} ELSE -{tail} END) END",
            part = share("to_ms - from_ms", "first_step"),
            head = share(&format!("(first_step + 1) * {step_ms} - from_ms"), "first_step"),
            tail = share(&format!("to_ms - (end_step - 1) * {step_ms}"), "end_step - 1"),
            one = self.dbl(1.0),
        );
        let step_of_point = "CASE k WHEN 0 THEN first_step WHEN 1 THEN first_step + 1 WHEN 2 THEN first_step + 1 WHEN 3 THEN end_step - 1 WHEN 4 THEN end_step - 1 ELSE end_step END";
        let stems_from = if at.pass.is_some() {
            d.quote(STEM_PARTS_TABLE)
        } else {
            "job_facts".to_string()
        };
        let stems = if at.pass.is_some() {
            format!(
                "stems AS (\n  SELECT cluster, stem, SUM(jobs) AS jobs, SUM(run_hours) AS run_hours, MIN(first_ms) AS first_ms, MAX(last_ms) AS last_ms\n  FROM {stems_from}\n  GROUP BY cluster, stem\n)"
            )
        } else {
            format!(
                "stems AS (\n  SELECT {}\n  FROM {stems_from}\n  WHERE stem IS NOT NULL\n  GROUP BY cluster, stem\n)",
                Self::STEM_COLUMNS
            )
        };
        let mut ctes = format!(
            "{job_ctes},
{stems},
matched AS (
  SELECT j.cluster, j.job_id, j.label_code, j.unknown_label,
    {matched}
  FROM job_facts j LEFT JOIN stems s ON s.cluster = j.cluster AND s.stem = j.stem
),
jobs AS{materialized} (
  SELECT cluster, job_id, label_code,
    CASE WHEN label_code IS NULL THEN unknown_label END AS unknown_label,
    {decision}
  FROM matched
),
window_spans AS (
  SELECT r.cluster, r.job_id, j.class, j.rule, j.rule_class, j.label_code, j.unknown_label, r.gpus, r.util, r.gpu_type,
    r.start_ms, r.submit_ms,
    GREATEST(r.start_ms, {w0}) - {w0} AS from_ms,
    LEAST(COALESCE(r.end_ms, {w1}), {w1}) - {w0} AS to_ms
  FROM runs r JOIN jobs j ON j.cluster = r.cluster AND j.job_id = r.job_id
  WHERE r.start_ms <= {w1} AND COALESCE(r.end_ms, {w1}) >= {w0}
),
window_runs AS{materialized} (
  SELECT window_spans.*, gpus * {span_ms} / {hour} AS gpu_hours
  FROM window_spans
),
window_jobs AS{materialized} (
  SELECT cluster, job_id, class, rule, rule_class, label_code, unknown_label,
    COUNT(*) AS runs, SUM(gpu_hours) AS gpu_hours, MAX(gpus) AS max_gpus,
    SUM(CASE WHEN util IS NOT NULL THEN util * gpu_hours END) AS util_gpu_hours,
    SUM(CASE WHEN util IS NOT NULL THEN gpu_hours END) AS util_weight,
    MIN(start_ms) AS first_start_ms
  FROM window_runs
  GROUP BY cluster, job_id, class, rule, rule_class, label_code, unknown_label
),
top_jobs AS (
  SELECT * FROM (
    SELECT window_jobs.*,
      ROW_NUMBER() OVER (PARTITION BY cluster, class ORDER BY gpu_hours DESC NULLS LAST, job_id ASC NULLS LAST) AS rank_in_class
    FROM window_jobs
  ) ranked
  WHERE rank_in_class <= {top}
),
top_runs AS (
  SELECT t.cluster, t.job_id, r.name, r.user_name, r.queue, r.state,
    ROW_NUMBER() OVER (PARTITION BY t.cluster, t.job_id ORDER BY r.start_ms ASC, r.name ASC NULLS LAST) AS first_run,
    ROW_NUMBER() OVER (PARTITION BY t.cluster, t.job_id ORDER BY r.start_ms DESC, r.state ASC NULLS LAST) AS last_run
  FROM top_jobs t JOIN runs r ON r.cluster = t.cluster AND r.job_id = t.job_id
  WHERE r.start_ms <= {w1} AND COALESCE(r.end_ms, {w1}) >= {w0}
),
top_text AS (
  SELECT cluster, job_id,
    MAX(CASE WHEN first_run = 1 THEN name END) AS name,
    MAX(CASE WHEN first_run = 1 THEN user_name END) AS user_name,
    MAX(CASE WHEN first_run = 1 THEN queue END) AS queue,
    MAX(CASE WHEN last_run = 1 THEN state END) AS state
  FROM top_runs
  GROUP BY cluster, job_id
),
step_spans AS (
  SELECT cluster, class, gpus, util, from_ms, to_ms,
    {first_step} AS first_step,
    {end_step} AS end_step
  FROM window_runs
  WHERE to_ms > from_ms
),
step_points AS (
  SELECT cluster, class, gpus, util,
    {step_of_point} AS step,
    {amount} AS amount
  FROM step_spans CROSS JOIN {counter}
  WHERE first_step < {steps}
)",
            job_ctes = self.job_ctes(at, true),
            span_ms = self.double("to_ms - from_ms"),
            top = TOP_JOBS_PER_CLASS,
            counter = d.counter_table(6, "point", "k"),
        );
        if self.counts_pending(at) {
            let pending_matched = rules.matched_rule("p", "s");
            let run_columns = rules.run_columns().join(",\n    ");
            ctes.push_str(&format!(
                ",
pending_rows AS (
  SELECT COALESCE(cluster, '') AS cluster, name, queue, qos, owner_kind, label, gpus, time_limit_hours, submit_ms, end_ms
  FROM checked
  WHERE reason = {PENDING_REASON} AND submit_ms < {w1} AND (end_ms IS NULL OR end_ms > {w0})
),
pending_features AS (
  SELECT cluster, COALESCE(gpus, {zero}) AS gpus, time_limit_hours, submit_ms, end_ms,
    time_limit_hours AS run_hours, {zero} AS util_gpu_hours, {zero} AS util_weight,
    {run_columns}
  FROM pending_rows
),
pending_matched AS (
  SELECT p.cluster, p.gpus, p.time_limit_hours, p.submit_ms, p.end_ms, p.label_code,
    {pending_matched}
  FROM pending_features p LEFT JOIN stems s ON s.cluster = p.cluster AND s.stem = p.stem
),
pending_classed AS (
  SELECT pending_matched.*, {decision}
  FROM pending_matched
)",
                zero = self.dbl(0.0),
            ));
        }
        ctes
    }

    /// The replay's jobs (`data::audit::replay_jobs`): one row per job with GPU time in the
    /// window, its cluster and class, its first start in the window, its earliest submit, its
    /// GPU-milliseconds and its largest GPU count. Not aggregates: a replay holds every job.
    pub fn replay_jobs_query(&self, at: TotalsWindow<'_>) -> String {
        let ctes = self.window_ctes(at);
        let d = self.d();
        format!(
            "{ctes}\nSELECT cluster, job_id, class, MIN(from_ms) + {w0} AS first_start_ms, MIN(submit_ms) AS submit_ms,\n  {gpu_ms} AS gpu_ms, {max_gpus} AS max_gpus\nFROM window_runs\nWHERE to_ms > from_ms AND gpus > 0\nGROUP BY cluster, job_id, class\nORDER BY cluster, job_id",
            w0 = at.window.start_ms,
            gpu_ms = d.cast(
                &format!("SUM(gpus * {})", self.double("to_ms - from_ms")),
                d.double_type()
            ),
            max_gpus = d.cast("MAX(gpus)", d.double_type()),
        )
    }
}
