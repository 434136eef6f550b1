//! The rows read once, and the jobs: each row checked (`rows`, kept: every later part reads
//! it, so the source is scanned once), the runs, what their names and placements tell (worked
//! out once per distinct name and per distinct placement, not per run: names, queues and
//! owner kinds repeat millions of times), and one grouping of the runs into jobs that carries
//! both what classifies a job and what it did inside the window. The jobs classified follow.
//! `EXPLAIN ANALYZE` profiles of the statement before and after are in docs/warehouse.md.

use super::rules::{Flags, RuleSql};
use super::{AuditSql, PENDING_REASON, Pass, PassShare, STEM_PARTS_TABLE, STEM_SUMS_TABLE, TotalsWindow};
use crate::data::audit::classify::MAX_RULES;

/// The milliseconds of an hour, as SQL.
pub(super) const HOUR_MS: &str = "3600000";

impl AuditSql<'_> {
    pub(super) fn rule_sql(&self) -> RuleSql<'_> {
        RuleSql {
            dialect: self.dialect,
            rules: self.rules,
        }
    }

    /// `rows`: every row checked, at the width the later parts read, the raw texts kept only
    /// for the rows set aside (the few shown beside their reason). One pass's `rows` hold its
    /// share of the runs, and, in the first pass, every row set aside or never started.
    fn rows_cte(&self, at: TotalsWindow<'_>) -> String {
        let d = self.d();
        let raw = |column: &str| {
            format!(
                "CASE WHEN reason IS NOT NULL THEN {} END AS {column}",
                d.cast(column, d.text_type())
            )
        };
        let mut filter = String::new();
        if let Some((share, pass)) = at.pass.filter(|pass| pass.share == PassShare::Hash).and_then(|pass| {
            d.job_share(&self.job_text("job_id"), pass.of)
                .map(|share| (share, pass))
        }) {
            let runs = format!("(reason IS NULL AND {share} = {})", pass.index);
            filter = if pass.counts_rows() {
                format!("\n  WHERE {runs} OR reason IS NOT NULL")
            } else {
                format!("\n  WHERE {runs}")
            };
        }
        format!(
            "rows AS{materialized} (
  SELECT job_id, cluster, name, user_name, queue, state, qos, owner_kind, label, gpu_type,
    start_ms, end_ms, submit_ms, gpus, util, time_limit_hours, reason,
    {raw_start}, {raw_end}, {raw_gpus}, {raw_util}
  FROM checked{filter}
)",
            materialized = d.materialized(),
            raw_start = raw("raw_start"),
            raw_end = raw("raw_end"),
            raw_gpus = raw("raw_gpus"),
            raw_util = raw("raw_util"),
        )
    }

    /// The common table expressions of the rows checked and kept (`rows`), the runs with their
    /// span in the window, the names' and placements' dictionaries, and `job_facts`: one row
    /// per job, what classifies it (its hours, GPUs, utilization, rules' flags, label, stem)
    /// beside what it did in the window (`window_*`; `window_runs` 0 for a job outside it).
    /// `job_facts` is read twice (the stems, the jobs) and left to be grouped twice rather
    /// than kept: on 2M runs in DuckDB 1.4 keeping it held 0.45 GB more for 0.5 s less.
    pub(super) fn job_ctes(&self, at: TotalsWindow<'_>) -> String {
        let d = self.d();
        let (w0, w1) = (at.window.start_ms, at.window.end_ms);
        let rules = self.rule_sql();
        debug_assert!(self.rules.rules.len() <= MAX_RULES);
        let mut runs_filter = String::new();
        if at.filter_rows {
            runs_filter.push_str(&format!(
                "\n    AND start_ms <= {w1} AND (end_ms IS NULL OR end_ms >= {w0})"
            ));
        }
        let name_masks = rules.name_masks().join(",\n    ");
        let names = rules.name_columns().join(",\n      ");
        let (places, places_join) = if !rules.tests_placement() {
            (String::new(), String::new())
        } else {
            let on = ["queue", "qos", "owner_kind"]
                .map(|column| d.null_safe_eq(&format!("p.{column}"), &format!("r.{column}")))
                .join(" AND ");
            (
                format!(
                    ",
run_places AS (
  SELECT queue, qos, owner_kind,
    {}
  FROM (
    SELECT queue, qos, owner_kind,
      {}
    FROM (SELECT DISTINCT queue, qos, owner_kind FROM runs) distinct_places
  ) placed
)",
                    rules.place_masks().join(",\n    "),
                    rules.place_columns().join(",\n      ")
                ),
                format!("\n    LEFT JOIN run_places p ON {on}"),
            )
        };
        // Each mask from its dictionary; the placements' masks are 0 where no rule tests one.
        let flags: String = (rules.masks().iter())
            .map(|mask| match (mask.starts_with("name"), places.is_empty()) {
                (true, _) => format!("COALESCE(n.{mask}, 0) AS {mask}, "),
                (false, false) => format!("COALESCE(p.{mask}, 0) AS {mask}, "),
                (false, true) => format!("{} AS {mask}, ", self.big("0")),
            })
            .collect();
        let labels = rules.label_columns("r.label").join(",\n    ");
        let job_rule_columns: String = rules.job_columns().iter().map(|column| format!("{column}, ")).collect();
        let in_window = |value: &str| format!("CASE WHEN in_window = 1 THEN {value} END");
        format!(
            "WITH {checked},
{rows},
runs AS{not_materialized} (
  SELECT spans.*, gpus * {span_ms} / {HOUR_MS} AS gpu_hours
  FROM (
    SELECT job_id, cluster, name, user_name, queue, state, qos, owner_kind, label, gpu_type,
      start_ms, end_ms, submit_ms, gpus, util,
      GREATEST(COALESCE(end_ms, {w1}), start_ms) - start_ms AS run_ms,
      CASE WHEN start_ms <= {w1} AND COALESCE(end_ms, {w1}) >= {w0} THEN 1 ELSE 0 END AS in_window,
      GREATEST(start_ms, {w0}) - {w0} AS from_ms,
      LEAST(COALESCE(end_ms, {w1}), {w1}) - {w0} AS to_ms
    FROM rows
    WHERE reason IS NULL AND cluster IS NOT NULL{runs_filter}
  ) spans
),
run_names AS{materialized} (
  SELECT name, stem, DENSE_RANK() OVER (ORDER BY stem) AS stem_id,
    {name_masks}
  FROM (
    SELECT name,
      {names}
    FROM (SELECT DISTINCT name FROM runs WHERE name IS NOT NULL) distinct_names
  ) named
),
stem_ids AS (
  SELECT DISTINCT stem, stem_id FROM run_names
){places},
run_features AS{not_materialized} (
  SELECT r.job_id, r.cluster, r.start_ms, r.gpus, r.util, r.run_ms, r.in_window, r.gpu_hours,
    {flags}n.stem_id,
    {labels}
  FROM runs r
    LEFT JOIN run_names n ON n.name = r.name{places_join}
),
job_facts AS{not_materialized} (
  SELECT cluster, job_id,
    {run_hours} AS run_hours,
    GREATEST(MAX(gpus), {zero}) AS gpus,
    COALESCE(SUM(CASE WHEN util IS NOT NULL THEN util * gpus * {run_ms} END), {zero}) / {HOUR_MS} AS util_gpu_hours,
    COALESCE(SUM(CASE WHEN util IS NOT NULL THEN gpus * {run_ms} END), {zero}) / {HOUR_MS} AS util_weight,
    {job_rule_columns}MAX(label_code) AS label_code, MAX(unknown_label) AS unknown_label, MIN(stem_id) AS stem_id,
    MIN(start_ms) AS first_ms, MAX(start_ms + run_ms) AS last_ms,
    SUM(in_window) AS window_runs,
    SUM({window_hours}) AS window_gpu_hours,
    MAX({window_gpus}) AS window_max_gpus,
    SUM({window_util_hours}) AS window_util_gpu_hours,
    SUM({window_util_weight}) AS window_util_weight,
    MIN({window_start}) AS window_first_start_ms
  FROM run_features
  GROUP BY cluster, job_id
)",
            checked = self.checked_ctes(at.filter_rows.then_some(at.window), at.pass),
            rows = self.rows_cte(at),
            not_materialized = d.not_materialized(),
            materialized = d.materialized(),
            span_ms = self.double("to_ms - from_ms"),
            run_hours = d.cast("SUM(run_ms)", d.double_type()) + " / " + HOUR_MS,
            run_ms = self.double("run_ms"),
            zero = self.dbl(0.0),
            window_hours = in_window("gpu_hours"),
            window_gpus = in_window("gpus"),
            window_util_hours = in_window("(CASE WHEN util IS NOT NULL THEN util * gpu_hours END)"),
            window_util_weight = in_window("(CASE WHEN util IS NOT NULL THEN gpu_hours END)"),
            window_start = in_window("start_ms"),
        )
    }

    /// Per cluster and stem number: its jobs, their run hours, its first start and last end.
    const STEM_SUMS: &'static str = "  SELECT cluster, stem_id, COUNT(*) AS jobs, SUM(run_hours) AS run_hours, MIN(first_ms) AS first_ms, MAX(last_ms) AS last_ms\n  FROM job_facts\n  WHERE stem_id IS NOT NULL\n  GROUP BY cluster, stem_id";

    /// One pass's stems (`STEM_SUMS` over its jobs, named: numbers are a pass's own), for
    /// `STEM_PARTS_TABLE`: the jobs of a stem fall in several passes, so a pass classifies
    /// with every pass's parts summed.
    pub fn stem_parts_query(&self, at: TotalsWindow<'_>) -> String {
        format!(
            "{}\nSELECT g.cluster, i.stem, g.jobs, g.run_hours, g.first_ms, g.last_ms\nFROM (\n{}\n) g JOIN stem_ids i ON i.stem_id = g.stem_id",
            self.job_ctes(at),
            Self::STEM_SUMS
        )
    }

    /// The statement that keeps one pass's stems: the first creates `STEM_PARTS_TABLE`, the
    /// others add to it. None outside a pass, or where the engine has no temporary tables.
    pub fn stem_parts_statement(&self, at: TotalsWindow<'_>) -> Option<String> {
        let pass = at.pass?;
        self.d().job_share(&self.job_text("job_id"), pass.of)?;
        let select = self.stem_parts_query(at);
        Some(if pass.index == 0 {
            self.d().temporary_table(STEM_PARTS_TABLE, &select)
        } else {
            format!("INSERT INTO {}\n{select}", self.d().quote(STEM_PARTS_TABLE))
        })
    }

    /// The statement that sums every pass's stem parts into `STEM_SUMS_TABLE`, once, after the
    /// last pass's parts: each pass's totals read a row a cluster and stem rather than summing
    /// every pass's parts again (750 passes: 1.1 million rows each time). None where the
    /// engine has no temporary tables.
    pub fn stem_sums_statement(&self) -> Option<String> {
        self.d().job_share("job_id", 2)?;
        Some(self.d().temporary_table(
            STEM_SUMS_TABLE,
            &format!(
                "SELECT cluster, stem, SUM(jobs) AS jobs, SUM(run_hours) AS run_hours, MIN(first_ms) AS first_ms, MAX(last_ms) AS last_ms\nFROM {}\nGROUP BY cluster, stem",
                self.d().quote(STEM_PARTS_TABLE)
            ),
        ))
    }

    /// `job_ctes`, then the stems, each job's rule (`matched`) and `jobs`: the jobs with runs
    /// in the window, classified, with their window's runs, GPU-hours, largest GPU count,
    /// utilization and first start. Every per-job figure of the totals comes from `jobs`.
    pub(super) fn classified_ctes(&self, at: TotalsWindow<'_>) -> String {
        let rules = self.rule_sql();
        // Per cluster and stem, by number (this statement's, for the jobs) and by name (for
        // the jobs that never started, whose names need not be any run's). A job finds its
        // stem by number: joined through the names, a plan may build its hash table on the
        // millions of jobs rather than the stems. In passes the summed table has a row a
        // cluster and stem already; grouped again all the same, the plan holds less (25
        // million runs in 62 passes: 670 MiB resident, 741–749 MiB without the grouping).
        let stems = if at.pass.is_some() {
            format!(
                "stems AS (\n  SELECT p.cluster, i.stem_id, p.stem, SUM(p.jobs) AS jobs, SUM(p.run_hours) AS run_hours, MIN(p.first_ms) AS first_ms, MAX(p.last_ms) AS last_ms\n  FROM {} p LEFT JOIN stem_ids i ON i.stem = p.stem\n  GROUP BY p.cluster, i.stem_id, p.stem\n)",
                self.d().quote(STEM_SUMS_TABLE)
            )
        } else {
            format!(
                "stems AS (\n  SELECT g.cluster, g.stem_id, i.stem, g.jobs, g.run_hours, g.first_ms, g.last_ms\n  FROM (\n{}\n  ) g JOIN stem_ids i ON i.stem_id = g.stem_id\n)",
                Self::STEM_SUMS
            )
        };
        format!(
            "{job_ctes},
{stems},
matched AS (
  SELECT j.cluster, j.job_id, j.label_code, j.unknown_label,
    j.window_runs, j.window_gpu_hours, j.window_max_gpus, j.window_util_gpu_hours, j.window_util_weight,
    j.window_first_start_ms,
    {matched}
  FROM job_facts j
    LEFT JOIN stems s ON s.cluster = j.cluster AND s.stem_id = j.stem_id
),
jobs AS{materialized} (
  SELECT cluster, job_id, label_code,
    CASE WHEN label_code IS NULL THEN unknown_label END AS unknown_label,
    {decision},
    window_runs AS runs, window_gpu_hours AS gpu_hours, window_max_gpus AS max_gpus,
    window_util_gpu_hours AS util_gpu_hours, window_util_weight AS util_weight,
    window_first_start_ms AS first_start_ms
  FROM matched
  WHERE window_runs > 0
)",
            job_ctes = self.job_ctes(at),
            matched = rules.matched_rule("j", "s", Flags::Masks),
            decision = rules.decision_columns().join(",\n    "),
            materialized = self.d().materialized(),
        )
    }

    /// The jobs that never started (where the source has a submit time), classified row by row
    /// as the runs are: they are few.
    pub(super) fn pending_ctes(&self, at: TotalsWindow<'_>) -> String {
        let rules = self.rule_sql();
        let (w0, w1) = (at.window.start_ms, at.window.end_ms);
        format!(
            ",
pending_rows AS (
  SELECT COALESCE(cluster, '') AS cluster, name, queue, qos, owner_kind, label, gpus, time_limit_hours, submit_ms, end_ms
  FROM rows
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
            run_columns = rules.run_columns().join(",\n    "),
            pending_matched = rules.matched_rule("p", "s", Flags::Columns),
            decision = rules.decision_columns().join(",\n    "),
        )
    }
}

impl Pass {
    /// Whether this pass also counts what is not a job's (rows set aside, jobs never started):
    /// the first of hashed passes (each reads every row), each pass over a range of ids.
    pub(super) fn counts_rows(self) -> bool {
        match self.share {
            PassShare::Hash => self.index == 0,
            PassShare::IdRange { .. } => true,
        }
    }
}
