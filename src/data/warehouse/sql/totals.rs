//! The totals statement: every part of the long table (`TOTALS_COLUMNS`), `UNION ALL`ed over
//! the window's common table expressions.

use super::{AuditSql, PENDING_REASON, Pass, REJECT_SAMPLES, TOTALS_COLUMNS, TotalsWindow, parts};

impl AuditSql<'_> {
    /// One row of the long table: `values` name some of `TOTALS_COLUMNS`; the others are NULL.
    fn part_row(&self, part: &str, values: &[(&str, String)]) -> String {
        let columns: Vec<String> = TOTALS_COLUMNS
            .iter()
            .map(|&column| {
                let value = values.iter().find(|(name, _)| *name == column).map(|(_, v)| v.as_str());
                let expr = match column {
                    "part" => self.d().text(part),
                    _ => value.unwrap_or("NULL").to_string(),
                };
                let typed = match column.as_bytes()[0] {
                    b'k' | b'n' => self.big(&expr),
                    b'x' => self.double(&expr),
                    _ => self.txt(&expr),
                };
                format!("{typed} AS {column}")
            })
            .collect();
        columns.join(", ")
    }

    /// The totals over `window`: every part, `UNION ALL`ed (see the module comment).
    pub fn totals_query(&self, at: TotalsWindow<'_>) -> String {
        let d = self.d();
        let hour = "3600000";
        let (w0, w1) = (at.window.start_ms, at.window.end_ms);
        let ctes = self.window_ctes(at);
        let wait_ms = format!("GREATEST(LEAST(COALESCE(end_ms, {w1}), {w1}) - GREATEST(submit_ms, {w0}), 0)");
        let branch = |part: &str, values: &[(&str, String)], rest: &str| {
            format!("SELECT {}\n{rest}", self.part_row(part, values))
        };
        let s = |x: &str| x.to_string();
        let mut branches = vec![
            branch(
                parts::CLASS,
                &[
                    ("cluster", s("cluster")),
                    ("k1", s("class")),
                    ("n1", s("SUM(runs)")),
                    ("x0", s("SUM(gpu_hours)")),
                    ("x1", s("SUM(util_gpu_hours)")),
                    ("x2", s("SUM(util_weight)")),
                    (
                        "x3",
                        format!("MAX(CASE WHEN {} THEN max_gpus END)", d.is_finite("max_gpus")),
                    ),
                ],
                "FROM jobs GROUP BY cluster, class",
            ),
            branch(
                parts::CLASS_JOBS,
                &[("cluster", s("cluster")), ("k1", s("class")), ("n1", s("COUNT(*)"))],
                "FROM jobs GROUP BY cluster, class",
            ),
            branch(
                parts::GPU_TYPE,
                &[
                    ("cluster", s("cluster")),
                    ("t0", s("gpu_type")),
                    ("x0", s("SUM(gpu_hours)")),
                    ("x1", format!("MAX(CASE WHEN {} THEN gpus END)", d.is_finite("gpus"))),
                ],
                "FROM runs WHERE in_window = 1 AND gpu_type IS NOT NULL AND TRIM(gpu_type) <> '' GROUP BY cluster, gpu_type",
            ),
            branch(
                parts::RULE,
                &[("k1", s("rule")), ("n1", s("COUNT(*)")), ("x0", s("SUM(gpu_hours)"))],
                "FROM jobs GROUP BY rule",
            ),
            branch(
                parts::LABEL,
                &[
                    ("k1", s("label_code")),
                    ("k2", s("COALESCE(rule_class, 0)")),
                    ("n1", s("COUNT(*)")),
                ],
                "FROM jobs WHERE label_code IS NOT NULL GROUP BY label_code, COALESCE(rule_class, 0)",
            ),
            branch(
                parts::UNKNOWN_LABEL,
                &[
                    ("t0", s("unknown_label")),
                    ("n1", s("COUNT(*)")),
                    ("x0", s("SUM(gpu_hours)")),
                ],
                "FROM jobs WHERE unknown_label IS NOT NULL GROUP BY unknown_label",
            ),
            branch(
                parts::TOP,
                &[
                    ("cluster", s("t.cluster")),
                    ("k1", s("t.class")),
                    ("k2", s("t.rule")),
                    ("n1", s("t.runs")),
                    ("n2", s("t.first_start_ms")),
                    ("x0", s("t.gpu_hours")),
                    ("x1", s("t.max_gpus")),
                    ("x2", s("t.util_gpu_hours")),
                    ("x3", s("t.util_weight")),
                    ("t0", s("t.job_id")),
                    ("t1", s("x.name")),
                    ("t2", s("x.user_name")),
                    ("t3", s("x.queue")),
                    ("t4", s("x.state")),
                ],
                "FROM top_jobs t LEFT JOIN top_text x ON x.cluster = t.cluster AND x.job_id = t.job_id",
            ),
        ];
        if self.counts_pending(at) {
            branches.push(branch(
                parts::PENDING,
                &[
                    ("cluster", s("cluster")),
                    ("k1", s("class")),
                    ("n1", s("COUNT(*)")),
                    ("n2", s("COUNT(time_limit_hours)")),
                    ("x0", s("SUM(gpus)")),
                    ("x1", s("SUM(gpus * time_limit_hours)")),
                    (
                        "x2",
                        format!(
                            "SUM(CASE WHEN time_limit_hours IS NULL THEN gpus * {} / {hour} END)",
                            self.double(&wait_ms)
                        ),
                    ),
                ],
                "FROM pending_classed GROUP BY cluster, class",
            ));
        }
        if at.pass.is_none_or(Pass::counts_rows) {
            branches.extend([
            branch(
                parts::REJECT,
                &[("k1", s("reason")), ("n1", s("COUNT(*)"))],
                &format!("FROM rows WHERE reason IS NOT NULL AND reason <> {PENDING_REASON} GROUP BY reason"),
            ),
            branch(
                parts::REJECT_SAMPLE,
                &[
                    ("k1", s("reason")),
                    ("t0", s("job_id")),
                    ("t1", s("raw_start")),
                    ("t2", s("raw_end")),
                    ("t3", s("raw_gpus")),
                    ("t4", s("raw_util")),
                ],
                &format!(
                    "FROM (\n  SELECT reason, job_id, raw_start, raw_end, raw_gpus, raw_util,\n    ROW_NUMBER() OVER (PARTITION BY reason ORDER BY {job_text} ASC NULLS FIRST, raw_start ASC NULLS FIRST) AS sample\n  FROM rows\n  WHERE reason IS NOT NULL AND reason <> {PENDING_REASON}\n) samples\nWHERE sample <= {REJECT_SAMPLES}",
                    job_text = self.job_order("job_id"),
                ),
            ),
            ]);
        }
        // The largest branch goes last: DuckDB 1.4 and 1.5 stall on a streamed `UNION ALL` whose
        // answer outgrows the streaming buffer while a later branch still has a blocking step
        // to run (duckdb/duckdb#22215; docs/warehouse.md).
        let mut values: Vec<(String, String)> = vec![
            ("cluster".to_string(), "cluster".to_string()),
            ("k1".to_string(), "step".to_string()),
            ("k2".to_string(), "ended".to_string()),
            ("n1".to_string(), "class".to_string()),
            ("t0".to_string(), "gpu_type".to_string()),
        ];
        for k in 0..3 {
            values.push((format!("x{k}"), format!("edge{k}")));
            values.push((format!("x{}", k + 3), format!("middle{k}")));
        }
        let values: Vec<(&str, String)> = values.iter().map(|(c, v)| (c.as_str(), v.clone())).collect();
        branches.push(branch(parts::STEP_SUMS, &values, "FROM step_sums"));
        format!("{ctes}\n{}", branches.join("\nUNION ALL\n"))
    }
}
