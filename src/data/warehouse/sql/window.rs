//! What the totals read over the window, after the jobs (`jobs`): the largest jobs of each
//! class with their names, and the occupancy's changes step by step as a sweep: each run's
//! start and end events, summed per step where they fall (two groupings of the runs, one on
//! their first step and one on their last), then the four points a run changes (its first
//! step's share, the full steps after it, its last step's share, the step after) summed per
//! step. The running sum is `data::audit::run_totals`', as for the in-process audit. The sums
//! are kept per GPU type as well (null where a run names none), so each model's busy GPUs are
//! known step by step.

use super::{AuditSql, TotalsWindow};
use crate::data::audit::top_jobs::TOP_JOBS_PER_CLASS;

/// What a run adds to its class's occupancy, per GPU share of a step: its GPUs (busy), its
/// GPUs times its utilization (utilized), its GPUs up to one (the floor).
const WEIGHTS: [&str; 3] = ["gpus", "gpus * util_or_one", "floor_gpus"];

impl AuditSql<'_> {
    /// The common table expressions every query over the window reads: the jobs classified
    /// (`classified_ctes`), the largest jobs, the occupancy's step points, the jobs that never
    /// started (where the source has a submit time).
    pub(super) fn window_ctes(&self, at: TotalsWindow<'_>) -> String {
        let d = self.d();
        let window = at.window;
        let window_ms = window.end_ms - window.start_ms;
        let step_ms = window.resolution.step_ms();
        let steps = window.resolution.steps(window_ms) as i64;
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
        let first_step = d.int_div("r.from_ms", &step_ms.to_string());
        let end_step = format!(
            "LEAST({}, {steps})",
            d.int_div(&format!("r.to_ms + {}", step_ms - 1), &step_ms.to_string())
        );
        let single = "end_step <= first_step + 1";
        let (zero, one) = (self.dbl(0.0), self.dbl(1.0));
        let head = format!(
            "CASE WHEN {single} THEN {} ELSE {} END",
            share("to_ms - from_ms", "first_step"),
            share(&format!("(first_step + 1) * {step_ms} - from_ms"), "first_step"),
        );
        let middle = format!("CASE WHEN end_step - 1 > first_step + 1 THEN {one} ELSE {zero} END");
        let tail = format!(
            "CASE WHEN {single} THEN {zero} ELSE {} END",
            share(&format!("to_ms - (end_step - 1) * {step_ms}"), "end_step - 1"),
        );
        // Per step where runs start, their first step's shares (`edge`) and their full steps;
        // per step where runs end, their last step's shares and their full steps: two
        // groupings of the runs of a class, each summing only the six it gives (one
        // `GROUPING SETS` summed all nine on both: on 2M runs 5-8 % slower, 150-290 MB more).
        let sums = |edge: &str| {
            [(edge, "edge"), ("middle", "middle")]
                .iter()
                .flat_map(|&(amount, name)| {
                    WEIGHTS
                        .iter()
                        .enumerate()
                        .map(move |(k, weight)| format!("SUM({weight} * {amount}) AS {name}{k}"))
                })
                .collect::<Vec<_>>()
                .join(",\n    ")
        };
        // A job's floor: where the top list starts, so only the jobs above it are ranked.
        let (top_floor, floor_join) = match d.nth_largest("gpu_hours", TOP_JOBS_PER_CLASS) {
            Some(nth) => (
                format!("top_floor AS (\n  SELECT cluster, class, {nth} AS floor_gpu_hours\n  FROM jobs\n  GROUP BY cluster, class\n),\n"),
                "\n      JOIN top_floor f ON f.cluster = j.cluster AND f.class = j.class\n    WHERE j.gpu_hours >= f.floor_gpu_hours".to_string(),
            ),
            None => (String::new(), String::new()),
        };
        let mut ctes = format!(
            "{classified},
{top_floor}top_jobs AS (
  SELECT * FROM (
    SELECT j.cluster, j.job_id, j.class, j.rule, j.runs, j.first_start_ms, j.gpu_hours, j.max_gpus,
      j.util_gpu_hours, j.util_weight,
      ROW_NUMBER() OVER (PARTITION BY j.cluster, j.class ORDER BY j.gpu_hours DESC NULLS LAST, {job_text} ASC NULLS LAST) AS rank_in_class
    FROM jobs j{floor_join}
  ) ranked
  WHERE rank_in_class <= {top}
),
top_runs AS (
  SELECT t.cluster, t.job_id, r.name, r.user_name, r.queue, r.state,
    ROW_NUMBER() OVER (PARTITION BY t.cluster, t.job_id ORDER BY r.start_ms ASC, r.name ASC NULLS LAST) AS first_run,
    ROW_NUMBER() OVER (PARTITION BY t.cluster, t.job_id ORDER BY r.start_ms DESC, r.state ASC NULLS LAST) AS last_run
  FROM top_jobs t JOIN runs r ON r.cluster = t.cluster AND r.job_id = t.job_id
  WHERE r.in_window = 1
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
  SELECT r.cluster, j.class, CASE WHEN TRIM(r.gpu_type) <> '' THEN r.gpu_type END AS gpu_type,
    r.gpus, COALESCE(r.util, {one}) AS util_or_one,
    LEAST(GREATEST(r.gpus, {zero}), {one}) AS floor_gpus, r.from_ms, r.to_ms,
    {first_step} AS first_step,
    {end_step} AS end_step
  FROM runs r JOIN jobs j ON j.cluster = r.cluster AND j.job_id = r.job_id
  WHERE r.in_window = 1 AND r.to_ms > r.from_ms
),
step_parts AS (
  SELECT cluster, class, gpu_type, gpus, util_or_one, floor_gpus, first_step, end_step,
    {head} AS head,
    {middle} AS middle,
    {tail} AS tail
  FROM step_spans
  WHERE first_step < {steps}
),
step_sums AS (
  SELECT cluster, class, gpu_type, first_step AS step, 0 AS ended,
    {starts}
  FROM step_parts
  GROUP BY cluster, class, gpu_type, first_step
  UNION ALL
  SELECT cluster, class, gpu_type, end_step AS step, 1 AS ended,
    {ends}
  FROM step_parts
  GROUP BY cluster, class, gpu_type, end_step
)",
            classified = self.classified_ctes(at),
            top = TOP_JOBS_PER_CLASS,
            job_text = self.job_order("j.job_id"),
            starts = sums("head"),
            ends = sums("tail"),
        );
        if self.counts_pending(at) {
            ctes.push_str(&self.pending_ctes(at));
        }
        ctes
    }

    /// The replay's jobs (`data::audit::replay_jobs`): one row per job with GPU time in the
    /// window, its cluster and class, its first start in the window, its earliest submit, its
    /// GPU-milliseconds and its largest GPU count. Not aggregates: a replay holds every job.
    pub fn replay_jobs_query(&self, at: TotalsWindow<'_>) -> String {
        let d = self.d();
        format!(
            "{ctes}\nSELECT r.cluster, r.job_id, j.class, MIN(r.from_ms) + {w0} AS first_start_ms, MIN(r.submit_ms) AS submit_ms,\n  {gpu_ms} AS gpu_ms, {max_gpus} AS max_gpus\nFROM runs r JOIN jobs j ON j.cluster = r.cluster AND j.job_id = r.job_id\nWHERE r.in_window = 1 AND r.to_ms > r.from_ms AND r.gpus > 0\nGROUP BY r.cluster, r.job_id, j.class\nORDER BY r.cluster, {job_text}",
            ctes = self.classified_ctes(at),
            w0 = at.window.start_ms,
            job_text = self.job_order("r.job_id"),
            gpu_ms = d.cast(
                &format!("SUM(r.gpus * {})", self.double("r.to_ms - r.from_ms")),
                d.double_type()
            ),
            max_gpus = d.cast("MAX(r.gpus)", d.double_type()),
        )
    }
}
