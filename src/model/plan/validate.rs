//! What a plan's values must not be: each problem at the key path serde gives the field, so
//! the loader can point at its file:line:column (`config::locate`). The tests check every
//! reported path against the plan's own TOML.

use super::{PLAN_SCHEMA_VERSION, Plan, PrometheusSource};
use crate::model::catalog::Catalog;
use crate::model::magnitude::{OUTSIDE_INPUT_RANGE, within_input_range};

#[cfg(test)]
mod extremes;
#[cfg(test)]
mod tests;

/// A value a plan field must not hold, at a key path like `accelerators[1].mfu`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanProblem {
    pub key_path: String,
    pub message: String,
}

impl PrometheusSource {
    /// What is wrong with these settings, as (key, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut problems = Vec::new();
        if !(self.url.starts_with("http://") || self.url.starts_with("https://")) {
            problems.push((
                "url".to_string(),
                format!("'{}' is not an http:// or https:// URL", self.url),
            ));
        }
        if self.step_seconds == 0 || 3600 % self.step_seconds != 0 {
            problems.push((
                "step_seconds".to_string(),
                format!(
                    "{} does not divide an hour (3600 s): try 60, 300, 900 or 3600",
                    self.step_seconds
                ),
            ));
        }
        if self.timeout_seconds == 0 {
            problems.push(("timeout_seconds".to_string(), "must be at least 1".to_string()));
        }
        let label_ok = |l: &str| {
            let mut chars = l.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !label_ok(&self.cluster_label) {
            problems.push((
                "cluster_label".to_string(),
                format!(
                    "'{}' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)",
                    self.cluster_label
                ),
            ));
        }
        if let Some(var) = &self.token_env
            && (var.is_empty() || var.contains(['=', '\0']) || var.len() > 256)
        {
            problems.push((
                "token_env".to_string(),
                "expected the name of an environment variable (the token itself never goes in a file)".to_string(),
            ));
        }
        problems
    }
}

impl Plan {
    /// Everything wrong with the plan's values against the catalog; empty when it is usable.
    pub fn problems(&self, catalog: &Catalog) -> Vec<PlanProblem> {
        let mut problems = Vec::new();
        let mut check = |ok: bool, key_path: String, message: &str| {
            if !ok {
                problems.push(PlanProblem {
                    key_path,
                    message: message.to_string(),
                });
            }
        };
        let positive = "expected a number above 0";
        let non_negative = "expected a number of 0 or more";
        let fraction = "expected a fraction from 0 to 1 (write 45 % as 0.45)";
        let mfu = "expected an MFU above 0 and at most 1 (write 45 % as 0.45)";
        let is_frac = |v: f64| (0.0..=1.0).contains(&v);
        let is_mfu = |v: f64| v > 0.0 && v <= 1.0;

        let floats = plan_floats(self);
        for (key_path, _) in floats.iter().filter(|(_, value)| value.is_none()) {
            check(
                false,
                key_path.clone(),
                "expected a finite number (nan and inf are not amounts)",
            );
        }
        check(
            self.schema_version == PLAN_SCHEMA_VERSION,
            "schema_version".into(),
            &format!("expected {PLAN_SCHEMA_VERSION}, the only schema this version of gpuplan reads"),
        );
        check(self.hours_per_month > 0.0, "hours_per_month".into(), positive);

        let t = &self.training;
        check(t.model_params > 0.0, "training.model_params".into(), positive);
        check(t.tokens > 0.0, "training.tokens".into(), positive);
        check(t.chips > 0, "training.chips".into(), positive);
        check(
            t.network_usd_per_chip_hour >= 0.0,
            "training.network_usd_per_chip_hour".into(),
            non_negative,
        );
        check(
            t.failure_overhead_frac >= 0.0,
            "training.failure_overhead_frac".into(),
            non_negative,
        );
        check(
            !t.mfu_points.is_empty(),
            "training.mfu_points".into(),
            "expected at least one MFU point",
        );
        for (i, &point) in t.mfu_points.iter().enumerate() {
            check(is_mfu(point), format!("training.mfu_points[{i}]"), mfu);
        }

        for (i, choice) in self.accelerators.iter().enumerate() {
            let at = |key: &str| format!("accelerators[{i}].{key}");
            if catalog.accelerator(&choice.id).is_none() {
                let known: Vec<&str> = catalog.accelerators.iter().map(|a| a.id.as_str()).collect();
                check(
                    false,
                    at("id"),
                    &format!(
                        "unknown accelerator '{}'; the catalog has: {}",
                        choice.id,
                        known.join(", ")
                    ),
                );
                continue;
            }
            check(is_mfu(choice.mfu), at("mfu"), mfu);
            if let Some(bakeoff) = choice.bakeoff_mfu {
                check(is_mfu(bakeoff), at("bakeoff_mfu"), mfu);
            }
            let ordered = |r: &[f64; 3]| r[0] <= r[1] && r[1] <= r[2];
            if let Some(range) = &choice.mfu_range {
                check(
                    ordered(range) && range.iter().all(|&m| is_mfu(m)),
                    at("mfu_range"),
                    "expected [low, most likely, high] MFUs, each above 0 and at most 1, in order",
                );
            }
            if let Some(range) = &choice.price_range_usd_per_chip_hour {
                check(
                    ordered(range) && range[0] > 0.0,
                    at("price_range_usd_per_chip_hour"),
                    "expected [low, most likely, high] prices above 0, in order",
                );
            }
            if let Some(price) = choice.usd_per_chip_hour {
                check(price > 0.0, at("usd_per_chip_hour"), positive);
            } else if let Err(no_price) = choice.resolve_price(catalog) {
                let key = if choice.provider.is_some() {
                    "provider"
                } else {
                    "price_set"
                };
                check(false, at(key), &no_price.to_string());
            }
        }

        let inf = &self.inference;
        check(
            catalog.accelerator(&inf.accelerator).is_some(),
            "inference.accelerator".into(),
            "expected an accelerator id of the catalog",
        );
        check(inf.nodes > 0, "inference.nodes".into(), positive);
        check(
            inf.node_usd_per_month >= 0.0,
            "inference.node_usd_per_month".into(),
            non_negative,
        );
        check(
            inf.sre_usd_per_month >= 0.0,
            "inference.sre_usd_per_month".into(),
            non_negative,
        );
        check(
            inf.energy_usd_per_month >= 0.0,
            "inference.energy_usd_per_month".into(),
            non_negative,
        );
        check(
            inf.throughput_tokens_per_hour > 0.0,
            "inference.throughput_tokens_per_hour".into(),
            positive,
        );
        check(
            (0.0..1.0).contains(&inf.mem_fragmentation_frac),
            "inference.mem_fragmentation_frac".into(),
            "expected a fraction from 0 up to (not including) 1; typical serving engines lose 0.10-0.20",
        );
        check(
            inf.api_usd_per_1k_tokens >= 0.0,
            "inference.api_usd_per_1k_tokens".into(),
            non_negative,
        );
        check(
            inf.internal_usd_per_1k_tokens >= 0.0,
            "inference.internal_usd_per_1k_tokens".into(),
            non_negative,
        );
        check(
            inf.tokens_per_month >= 0.0,
            "inference.tokens_per_month".into(),
            non_negative,
        );
        check(inf.transit_ms >= 0.0, "inference.transit_ms".into(), non_negative);
        for (i, user) in inf.users.iter().enumerate() {
            let key = |field: &str| format!("inference.users[{i}].{field}");
            check(
                (0.0..=1.0).contains(&user.users_frac),
                key("users_frac"),
                "expected a share of users from 0 to 1 (write 35 % as 0.35)",
            );
            check(
                user.round_trip_ms.is_some() != user.one_way_ms.is_some(),
                key("location"),
                "expected one of round_trip_ms or one_way_ms",
            );
            for (field, value) in [("round_trip_ms", user.round_trip_ms), ("one_way_ms", user.one_way_ms)] {
                if let Some(ms) = value {
                    check(ms.is_finite() && ms >= 0.0, key(field), non_negative);
                }
            }
        }
        let mut froms: Vec<&Option<String>> = inf.users.iter().map(|u| &u.from).collect();
        froms.sort();
        froms.dedup();
        for from in froms {
            let total: f64 = inf.users.iter().filter(|u| &u.from == from).map(|u| u.users_frac).sum();
            check(
                total <= 1.0 + 1e-6,
                "inference.users".into(),
                "the users' shares from one serving location add up to more than 1",
            );
        }
        check(
            inf.requests_per_s >= 0.0,
            "inference.requests_per_s".into(),
            non_negative,
        );
        for (name, tokens_per_second) in &inf.measured_tokens_per_second {
            let key = format!("inference.measured_tokens_per_second.{name}");
            check(
                catalog.accelerator(name).is_some(),
                key.clone(),
                "expected an accelerator of the catalog",
            );
            check(tokens_per_second.is_finite() && *tokens_per_second > 0.0, key, positive);
        }

        let rel = &self.reliability;
        check(
            rel.checkpoint_size_gb > 0.0,
            "reliability.checkpoint_size_gb".into(),
            positive,
        );
        check(
            rel.checkpoint_write_gb_per_s > 0.0,
            "reliability.checkpoint_write_gb_per_s".into(),
            positive,
        );
        if let Some(minutes) = rel.checkpoint_minutes {
            check(minutes > 0.0, "reliability.checkpoint_minutes".into(), positive);
        }
        if let Some(minutes) = rel.restore_minutes {
            check(minutes >= 0.0, "reliability.restore_minutes".into(), non_negative);
        }
        check(
            rel.checkpoint_interval_minutes > 0.0,
            "reliability.checkpoint_interval_minutes".into(),
            positive,
        );
        check(rel.mtbi_hours > 0.0, "reliability.mtbi_hours".into(), positive);
        check(is_frac(rel.spot_frac), "reliability.spot_frac".into(), fraction);
        check(
            is_frac(rel.network_wait_frac),
            "reliability.network_wait_frac".into(),
            fraction,
        );

        if let Some(migration) = &self.migration {
            for (key, id) in [("from", &migration.from), ("to", &migration.to)] {
                check(
                    catalog.accelerator(id).is_some(),
                    format!("migration.{key}"),
                    "expected an accelerator id of the catalog",
                );
                check(
                    self.accelerators.iter().any(|c| c.id.eq_ignore_ascii_case(id)),
                    format!("migration.{key}"),
                    "expected one of the plan's [[accelerators]] (its MFU and price give the run cost)",
                );
            }
            check(
                migration.engineering_hours >= 0.0,
                "migration.engineering_hours".into(),
                non_negative,
            );
            check(
                migration.engineering_usd_per_hour >= 0.0,
                "migration.engineering_usd_per_hour".into(),
                non_negative,
            );
        }

        check(
            self.monte_carlo.draws > 0 && self.monte_carlo.draws <= 10_000_000,
            "monte_carlo.draws".into(),
            "expected 1 to 10,000,000 draws",
        );

        let board = &self.board;
        check(
            board.annual_gpu_spend_usd >= 0.0,
            "board.annual_gpu_spend_usd".into(),
            non_negative,
        );
        check(is_mfu(board.mfu_from_frac), "board.mfu_from_frac".into(), mfu);
        check(is_mfu(board.mfu_to_frac), "board.mfu_to_frac".into(), mfu);

        for (i, risk) in self.risks.iter().enumerate() {
            check(is_frac(risk.probability), format!("risks[{i}].probability"), fraction);
            check(risk.impact_usd >= 0.0, format!("risks[{i}].impact_usd"), non_negative);
            check(
                risk.expected_count >= 0.0,
                format!("risks[{i}].expected_count"),
                non_negative,
            );
        }

        for (i, log) in self.logs.iter().enumerate() {
            if let Some(origin) = &log.time_origin {
                check(
                    chrono::DateTime::parse_from_rfc3339(origin).is_ok(),
                    format!("logs[{i}].time_origin"),
                    "expected an instant in RFC 3339, e.g. 2025-01-06T00:00:00Z",
                );
            }
        }

        for (i, cluster) in self.clusters.iter().enumerate() {
            check(
                catalog.accelerator(&cluster.accelerator).is_some(),
                format!("clusters[{i}].accelerator"),
                "expected an accelerator id of the catalog",
            );
            check(
                cluster.gpus.is_finite() && (1.0..=super::MAX_PLANNED_GPUS).contains(&cluster.gpus),
                format!("clusters[{i}].gpus"),
                "expected between 1 and 10,000,000 GPUs (fractions allowed: a peak of shared GPUs)",
            );
            check(
                cluster.usd_per_gpu_hour > 0.0,
                format!("clusters[{i}].usd_per_gpu_hour"),
                "expected a price above 0: a fleet that costs nothing today makes every saving against it \
                 negative; give what the fleet pays a GPU-hour",
            );
            if let Some(util) = cluster.utilization_frac {
                check(is_frac(util), format!("clusters[{i}].utilization_frac"), fraction);
            }
        }
        for (i, cluster) in self.clusters.iter().enumerate() {
            problems.extend(cluster_model_problems(cluster, i));
        }
        if let Some(replay) = &self.replay {
            for (key, value) in [
                ("training_gpus", replay.training_gpus),
                ("inference_gpus", replay.inference_gpus),
                ("burst_gpus", replay.burst_gpus),
            ] {
                if let Some(gpus) = value
                    && !(0.0..=10_000_000.0).contains(&gpus)
                {
                    problems.push(PlanProblem {
                        key_path: format!("replay.{key}"),
                        message: "expected a GPU count from 0 to 10,000,000".to_string(),
                    });
                }
            }
            for (key, minutes) in [
                ("inference_start_slo_minutes", replay.inference_start_slo_minutes),
                ("overflow_after_wait_minutes", replay.overflow_after_wait_minutes),
            ] {
                if !(0.0..=525_600.0).contains(&minutes) {
                    problems.push(PlanProblem {
                        key_path: format!("replay.{key}"),
                        message: "expected minutes from 0 to 525,600 (a year)".to_string(),
                    });
                }
            }
        }
        // The optional tables that check themselves, their keys under the table's name.
        let tables = [
            ("prometheus", self.prometheus.as_ref().map(|t| t.problems())),
            ("moving", self.moving.as_ref().map(|t| t.problems())),
            ("slurm", self.slurm.as_ref().map(|t| t.problems())),
            ("warehouse", self.warehouse.as_ref().map(|t| t.problems())),
            ("forecast", self.forecast.as_ref().map(|t| t.problems())),
            ("commitments", self.commitments.as_ref().map(|t| t.problems())),
        ];
        for (table, found) in tables {
            problems.extend(found.into_iter().flatten().map(|(key, message)| PlanProblem {
                key_path: format!("{table}.{key}"),
                message,
            }));
        }
        for (i, cluster) in self.clusters.iter().enumerate() {
            if let Some(day) = &cluster.commitment_ends
                && chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_err()
            {
                problems.push(PlanProblem {
                    key_path: format!("clusters[{i}].commitment_ends"),
                    message: format!("'{day}' is not a date: expected YYYY-MM-DD"),
                });
            }
        }
        for (i, change) in self.price_changes.iter().enumerate() {
            let as_catalog_row = crate::model::catalog::PriceChange {
                accelerator: change.accelerator.clone(),
                term: change.term,
                change_per_year: change.change_per_year,
                source: String::new(),
                as_of: String::new(),
                note: None,
                spread_per_year: change.spread_per_year,
                observed: Vec::new(),
            };
            let problem = if catalog.accelerator(&change.accelerator).is_none() {
                Some(("accelerator", "not an accelerator of the catalog"))
            } else {
                as_catalog_row.problem()
            };
            if let Some((field, message)) = problem {
                problems.push(PlanProblem {
                    key_path: format!("price_change[{i}].{field}"),
                    message: message.to_string(),
                });
            }
        }
        for (model, price) in &self.prices {
            if let Some(message) = price.problem(catalog) {
                problems.push(PlanProblem {
                    key_path: format!("prices.{model}"),
                    message,
                });
            }
        }
        if let Some(bill) = &self.bill {
            for (key, message) in bill.problems() {
                problems.push(PlanProblem {
                    key_path: format!("bill.{key}"),
                    message,
                });
            }
        }
        for (key_path, value) in floats {
            let outside = value.is_some_and(|v| !within_input_range(v));
            if outside && !problems.iter().any(|p| p.key_path == key_path) {
                problems.push(PlanProblem {
                    key_path,
                    message: OUTSIDE_INPUT_RANGE.to_string(),
                });
            }
        }
        problems
    }
}

/// Every number with a fraction in the plan (integers are bounded by their types), by key
/// path; `None` for NaN and infinities (TOML allows `nan` and `inf`).
fn plan_floats(plan: &Plan) -> Vec<(String, Option<f64>)> {
    fn walk(value: &serde_json::Value, path: &str, out: &mut Vec<(String, Option<f64>)>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map {
                    let child = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    walk(v, &child, out);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, &format!("{path}[{i}]"), out);
                }
            }
            serde_json::Value::Number(n) if n.is_f64() => out.push((path.to_string(), n.as_f64())),
            // serde_json writes non-finite floats as null; a plan has no other nulls
            // because absent options are skipped.
            serde_json::Value::Null => out.push((path.to_string(), None)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(value) = serde_json::to_value(plan) {
        walk(&value, "", &mut out);
    }
    out
}

/// A cluster's `[[clusters.models]]`: each a model name, at least one GPU and a price above
/// 0; together adding up to the cluster's GPUs and cost (a hand edit of one without the other
/// is named, never priced).
fn cluster_model_problems(cluster: &super::ClusterCost, i: usize) -> Vec<PlanProblem> {
    let mut problems = Vec::new();
    if cluster.models.is_empty() {
        return problems;
    }
    for (k, model) in cluster.models.iter().enumerate() {
        let at = |field: &str| format!("clusters[{i}].models[{k}].{field}");
        if model.model.trim().is_empty() {
            problems.push(PlanProblem {
                key_path: at("model"),
                message: "expected the model's name, as the logs or node list write it".to_string(),
            });
        }
        if !(model.gpus.is_finite() && (1.0..=super::MAX_PLANNED_GPUS).contains(&model.gpus)) {
            problems.push(PlanProblem {
                key_path: at("gpus"),
                message: "expected between 1 and 10,000,000 GPUs".to_string(),
            });
        }
        if !(model.usd_per_gpu_hour.is_finite() && model.usd_per_gpu_hour > 0.0) {
            problems.push(PlanProblem {
                key_path: at("usd_per_gpu_hour"),
                message: "expected a price above 0".to_string(),
            });
        }
    }
    if !problems.is_empty() {
        return problems;
    }
    let gpus: f64 = cluster.models.iter().map(|m| m.gpus).sum();
    let cost: f64 = cluster.models.iter().map(|m| m.gpus * m.usd_per_gpu_hour).sum();
    if (gpus - cluster.gpus).abs() > 0.01 {
        problems.push(PlanProblem {
            key_path: format!("clusters[{i}].gpus"),
            message: format!(
                "{} GPUs, but its models hold {}: make them add up (or remove [[clusters.models]])",
                cluster.gpus, gpus
            ),
        });
    } else if (cost - cluster.gpus * cluster.usd_per_gpu_hour).abs() > 0.005 * cost.max(1e-9) {
        problems.push(PlanProblem {
            key_path: format!("clusters[{i}].usd_per_gpu_hour"),
            message: format!(
                "{} a GPU-hour, but its models cost {:.4} a GPU-hour over their GPUs: make them agree",
                cluster.usd_per_gpu_hour,
                cost / gpus
            ),
        });
    }
    problems
}
