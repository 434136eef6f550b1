//! Every key path `Plan::problems` reports must name a value of the plan's own TOML, or the
//! loader points at nothing. Rather than trust the string literals, the sweep below breaks
//! each value of a plan that fills every optional table (one value at a time: bad numbers,
//! bad strings, emptied arrays, removed keys, renamed keys), and checks that every reported
//! path exists in `toml::to_string` of the broken plan, array indices included. A new check
//! on any field of `full_plan` is covered without touching this file; `EVERY_KEY_PATH`
//! makes sure the sweep still reaches each check there is today.

use std::collections::{BTreeMap, BTreeSet};

use toml::Value;

use crate::config::catalog::builtin;
use crate::config::plan_file::default_plan;
use crate::model::bill::BillPlan;
use crate::model::catalog::Catalog;
use crate::model::plan::{Plan, PrometheusSource, ReplayPlan, ResolvedPrice, RoiInputs};
use crate::model::transit::UserLatency;

/// Every key path the checks can report, indices written `[]`.
const EVERY_KEY_PATH: &[&str] = &[
    "schema_version",
    "hours_per_month",
    "training.model_params",
    "training.tokens",
    "training.chips",
    "training.network_usd_per_chip_hour",
    "training.failure_overhead_frac",
    "training.mfu_points",
    "training.mfu_points[]",
    "accelerators[].id",
    "accelerators[].mfu",
    "accelerators[].bakeoff_mfu",
    "accelerators[].mfu_range",
    "accelerators[].price_range_usd_per_chip_hour",
    "accelerators[].usd_per_chip_hour",
    "accelerators[].provider",
    "accelerators[].price_set",
    "inference.accelerator",
    "inference.nodes",
    "inference.node_usd_per_month",
    "inference.sre_usd_per_month",
    "inference.energy_usd_per_month",
    "inference.throughput_tokens_per_hour",
    "inference.mem_fragmentation_frac",
    "inference.api_usd_per_1k_tokens",
    "inference.internal_usd_per_1k_tokens",
    "inference.tokens_per_month",
    "inference.transit_ms",
    "inference.users",
    "inference.users[].users_frac",
    "inference.users[].location",
    "inference.users[].round_trip_ms",
    "inference.users[].one_way_ms",
    "inference.requests_per_s",
    "reliability.checkpoint_size_gb",
    "reliability.checkpoint_write_gb_per_s",
    "reliability.checkpoint_minutes",
    "reliability.restore_minutes",
    "reliability.checkpoint_interval_minutes",
    "reliability.mtbi_hours",
    "reliability.spot_frac",
    "reliability.network_wait_frac",
    "migration.from",
    "migration.to",
    "migration.engineering_hours",
    "migration.engineering_usd_per_hour",
    "monte_carlo.draws",
    "board.annual_gpu_spend_usd",
    "board.mfu_from_frac",
    "board.mfu_to_frac",
    "risks[].probability",
    "risks[].impact_usd",
    "risks[].expected_count",
    "clusters[].accelerator",
    "clusters[].gpus",
    "clusters[].usd_per_gpu_hour",
    "clusters[].utilization_frac",
    "clusters[].commitment_ends",
    "moving.engineering_hours",
    "moving.engineering_usd_per_hour",
    "moving.data_moved_tb",
    "moving.egress_usd_per_tb",
    "moving.dual_running_months",
    "slurm.sacct",
    "slurm.clusters",
    "slurm.piece_days",
    "slurm.timeout_seconds",
    "replay.training_gpus",
    "replay.inference_gpus",
    "replay.burst_gpus",
    "replay.inference_start_slo_minutes",
    "replay.overflow_after_wait_minutes",
    "prometheus.url",
    "prometheus.step_seconds",
    "prometheus.timeout_seconds",
    "prometheus.cluster_label",
    "prometheus.token_env",
    "bill.tag_key",
    "bill.clusters",
    "bill.clusters.unassigned",
    "bill.clusters.us-east-h100[]",
];

/// The default plan with every optional table and value present, and no problems.
pub(super) fn full_plan(catalog: &Catalog) -> Plan {
    let mut plan = default_plan(catalog).expect("default plan");
    let provider = match plan.accelerators[0].resolve_price(catalog) {
        Ok(ResolvedPrice::Catalog(price)) => price.provider.clone(),
        other => panic!("the default plan's first accelerator has a catalog price: {other:?}"),
    };
    let first = &mut plan.accelerators[0];
    first.provider = Some(provider);
    first.bakeoff_mfu = Some(0.4);
    first.mfu_range = Some([0.3, 0.4, 0.5]);
    first.price_range_usd_per_chip_hour = Some([10.0, 12.0, 14.0]);
    plan.accelerators[1].usd_per_chip_hour = Some(5.0);
    plan.inference.users = vec![
        UserLatency {
            location: "Mumbai".into(),
            users_frac: 0.45,
            round_trip_ms: Some(9.0),
            one_way_ms: None,
            from: None,
        },
        UserLatency {
            location: "Paris".into(),
            users_frac: 0.3,
            round_trip_ms: None,
            one_way_ms: Some(5.0),
            from: Some("eu-west".into()),
        },
    ];
    plan.reliability.restore_minutes = Some(10.0);
    plan.board.roi = Some(RoiInputs {
        model_value_usd: 20e6,
        hardware_tco_usd: 8e6,
        migration_cost_usd: 0.15e6,
        lockin_capital_risk_usd: 4e6,
    });
    plan.clusters[0].utilization_frac = Some(0.5);
    plan.replay = Some(ReplayPlan {
        training_gpus: Some(64.0),
        inference_gpus: Some(16.0),
        burst_gpus: Some(8.0),
        ..ReplayPlan::default()
    });
    plan.prometheus = Some(PrometheusSource {
        token_env: Some("PROMETHEUS_TOKEN".into()),
        ..PrometheusSource::at("http://prometheus:9090")
    });
    plan.moving = Some(crate::model::plan::MovingPlan {
        engineering_hours: Some(2_000.0),
        engineering_usd_per_hour: Some(120.0),
        data_moved_tb: Some(50.0),
        egress_usd_per_tb: Some(20.0),
        dual_running_months: Some(2),
        needed_within_weeks: Some(12.0),
    });
    plan.slurm = Some(crate::model::plan::SlurmSource {
        clusters: vec!["alpha".into()],
        ..crate::model::plan::SlurmSource::default()
    });
    plan.bill = Some(BillPlan {
        tag_key: "cluster".into(),
        clusters: BTreeMap::from([("us-east-h100".into(), vec!["sku:8XYZ*".into(), "name:train-*".into()])]),
    });
    plan
}

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Every node below `value` (tables, arrays and leaves), by its steps from the root.
fn nodes(value: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match value {
        Value::Table(table) => {
            for (key, child) in table {
                at.push(Step::Key(key.clone()));
                out.push(at.clone());
                nodes(child, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                at.push(Step::Index(index));
                out.push(at.clone());
                nodes(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn node_mut<'a>(root: &'a mut Value, steps: &[Step]) -> &'a mut Value {
    steps.iter().fold(root, |node, step| match step {
        Step::Key(key) => &mut node[key.as_str()],
        Step::Index(index) => &mut node[*index],
    })
}

/// Copies of `root`, each with the node at `steps` broken one way.
fn broken(root: &Value, steps: &[Step]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut with = |change: &dyn Fn(&mut Value)| {
        let mut copy = root.clone();
        change(node_mut(&mut copy, steps));
        out.push(copy);
    };
    match node_mut(&mut root.clone(), steps) {
        Value::Float(_) => {
            for bad in [-1.0, 0.0, 2.0, 1e12, f64::NAN] {
                with(&|v| *v = Value::Float(bad));
            }
        }
        Value::Integer(_) => {
            for bad in [-1, 0, 7, 20_000_000] {
                with(&|v| *v = Value::Integer(bad));
            }
        }
        Value::String(_) => {
            for bad in ["", "no-such-thing", "unassigned", "**"] {
                with(&|v| *v = Value::String(bad.into()));
            }
        }
        Value::Array(_) => with(&|v| *v = Value::Array(Vec::new())),
        _ => {}
    }
    if let Some((Step::Key(key), parent)) = steps.split_last() {
        for new_key in [None, Some(""), Some("unassigned")] {
            let mut copy = root.clone();
            if let Value::Table(table) = node_mut(&mut copy, parent)
                && let Some(value) = table.remove(key)
            {
                if let Some(new_key) = new_key {
                    table.insert(new_key.to_string(), value);
                }
                out.push(copy);
            }
        }
    }
    out
}

/// Whether `key_path` (like `accelerators[1].mfu_range[0]`) names a value of `root`.
fn names_a_value(root: &Value, key_path: &str) -> bool {
    let mut node = root;
    for part in key_path.split('.') {
        let mut pieces = part.split('[');
        let Some(next) = pieces.next().and_then(|key| node.get(key)) else {
            return false;
        };
        node = next;
        for index in pieces {
            let Some(next) = index
                .strip_suffix(']')
                .and_then(|i| i.parse::<usize>().ok())
                .and_then(|i| node.get(i))
            else {
                return false;
            };
            node = next;
        }
    }
    true
}

/// `a[2].b[10]` -> `a[].b[]`.
fn without_indices(key_path: &str) -> String {
    let mut out = String::new();
    let mut in_index = false;
    for c in key_path.chars() {
        match c {
            '[' => in_index = true,
            ']' => in_index = false,
            _ if in_index => continue,
            _ => {}
        }
        out.push(c);
    }
    out
}

#[test]
fn the_full_plan_has_no_problems() {
    let catalog = builtin().catalog;
    let plan = full_plan(&catalog);
    assert!(plan.problems(&catalog).is_empty(), "{:#?}", plan.problems(&catalog));
}

#[test]
fn every_reported_key_path_names_a_value_of_the_plans_toml() {
    let catalog = builtin().catalog;
    let root = Value::try_from(full_plan(&catalog)).expect("plan as a TOML value");
    let mut all_steps = Vec::new();
    nodes(&root, &mut Vec::new(), &mut all_steps);
    let mut reported = BTreeSet::new();
    for steps in &all_steps {
        for value in broken(&root, steps) {
            // A break serde refuses is the loader's to report, not the checks'.
            let Ok(plan) = value.try_into::<Plan>() else {
                continue;
            };
            let text = toml::to_string(&plan).expect("plan as TOML");
            let saved: Value = toml::from_str(&text).expect("TOML parses");
            for problem in plan.problems(&catalog) {
                assert!(
                    names_a_value(&saved, &problem.key_path),
                    "'{}' ({}) names nothing in:\n{text}",
                    problem.key_path,
                    problem.message
                );
                reported.insert(without_indices(&problem.key_path));
            }
        }
    }
    let unreached: Vec<&&str> = EVERY_KEY_PATH.iter().filter(|p| !reported.contains(**p)).collect();
    assert!(unreached.is_empty(), "the sweep no longer breaks: {unreached:?}");
}

#[test]
fn a_key_path_with_a_wrong_name_or_index_names_nothing() {
    let root: Value = toml::from_str("a = 1\n[[b]]\nc = [1, 2]\n").expect("TOML parses");
    assert!(names_a_value(&root, "a"));
    assert!(names_a_value(&root, "b[0].c[1]"));
    assert!(!names_a_value(&root, "b[1].c"));
    assert!(!names_a_value(&root, "b[0].c[2]"));
    assert!(!names_a_value(&root, "b[0].d"));
    assert!(!names_a_value(&root, "a.b"));
    assert_eq!(without_indices("a[2].b[10]"), "a[].b[]");
}

#[test]
fn a_clusters_price_of_zero_is_refused_with_its_reason() {
    let catalog = builtin().catalog;
    let mut plan = default_plan(&catalog).expect("the built-in plan");
    plan.clusters[0].usd_per_gpu_hour = 0.0;
    let problems = plan.problems(&catalog);
    let problem = problems
        .iter()
        .find(|p| p.key_path == "clusters[0].usd_per_gpu_hour")
        .expect("a free cluster is refused");
    assert!(problem.message.contains("above 0"), "{problem:?}");
    plan.clusters[0].usd_per_gpu_hour = 0.01;
    assert!(plan.problems(&catalog).is_empty());
}
