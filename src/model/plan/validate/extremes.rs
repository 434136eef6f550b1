//! A plan `Plan::problems` accepts never makes the engine print `inf`, `NaN` or a negative
//! cost. Every number of a plan that fills every optional table is pushed, one at a time and
//! then many at once, to the edges a stranger's file can reach (the largest and smallest
//! magnitudes, zero, negatives); whenever the checks let the plan through, the evaluation and
//! the MFU-versus-cost curves must hold finite numbers only, and no cost field may turn
//! negative that is not already negative (a saving or a difference) in the unbroken plan.

use std::collections::BTreeSet;

use serde_json::Value;

use super::tests::full_plan;
use crate::config::catalog::builtin;
use crate::model::catalog::Catalog;
use crate::model::evaluate::evaluate;
use crate::model::plan::Plan;
use crate::model::sensitivity::cost_curves;
use crate::shared::random::Xoshiro256StarStar;

/// Values tried for a number written with a fraction (or an exponent) in the plan.
const FLOAT_EDGES: &[f64] = &[0.0, -1.0, 1e-300, 1e-12, 1e-9, 1e18, 1e19, 1e300, f64::MAX];
/// Values tried for an integer.
const INTEGER_EDGES: &[u64] = &[0, 1, u32::MAX as u64, u64::MAX];

/// Every numeric leaf of `value`, as a JSON pointer.
fn numeric_leaves(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                numeric_leaves(child, format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                numeric_leaves(child, format!("{at}/{i}"), out);
            }
        }
        Value::Number(_) => out.push(at),
        _ => {}
    }
}

/// The values to try at a leaf holding `number`.
fn edges(number: &Value) -> Vec<Value> {
    if number.is_u64() || number.is_i64() {
        INTEGER_EDGES.iter().map(|&v| Value::from(v)).collect()
    } else {
        FLOAT_EDGES.iter().map(|&v| Value::from(v)).collect()
    }
}

/// Where `text` (a `{:?}` of results) shows a number that is not finite: `inf`, `-inf` or
/// `NaN` as a word, also inside formatted text such as `$infB`.
fn non_finite_words(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for word in ["inf", "NaN"] {
        for (at, _) in text.match_indices(word) {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(at + word.len()).copied();
            if !before.is_some_and(|b| b.is_ascii_alphabetic()) && !after.is_some_and(|b| b.is_ascii_lowercase()) {
                let from = at.saturating_sub(60);
                let to = (at + 20).min(text.len());
                found.push(text.get(from..to).unwrap_or(word).to_string());
            }
        }
    }
    found
}

/// Words of a field that is a difference of costs, which may be negative.
const DIFFERENCE_WORDS: &[&str] = &["saving", "gain", "delta", "difference", "net", "change"];

/// The names of cost fields (`usd` or `cost` in the name, none of `DIFFERENCE_WORDS`) that
/// hold a negative number in `text` (a `{:?}` of results).
fn negative_cost_fields(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in text.match_indices(": -") {
        let name_start = text[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let name = &text[name_start..at];
        let negative_number = text[at + 3..].starts_with(|c: char| c.is_ascii_digit());
        let cost = name.contains("usd") || name.contains("cost");
        if negative_number && cost && !DIFFERENCE_WORDS.iter().any(|w| name.contains(w)) {
            out.insert(name.to_string());
        }
    }
    out
}

fn results(plan: &Plan, catalog: &Catalog) -> String {
    format!("{:?}\n{:?}", evaluate(plan, catalog), cost_curves(plan, catalog))
}

/// The plan with `changes` applied to its JSON, when it still deserializes (an integer field
/// refuses a fraction, a `u32` refuses 2^64).
fn changed(base: &Value, changes: &[(&str, &Value)]) -> Option<Plan> {
    let mut value = base.clone();
    for (pointer, new) in changes {
        *value.pointer_mut(pointer)? = (*new).clone();
    }
    serde_json::from_value(value).ok()
}

struct Sweep {
    catalog: Catalog,
    base: Value,
    leaves: Vec<String>,
    negative_in_base: BTreeSet<String>,
    accepted: usize,
    failures: Vec<String>,
}

impl Sweep {
    fn new() -> Sweep {
        let catalog = builtin().catalog;
        let plan = full_plan(&catalog);
        assert_eq!(plan.problems(&catalog), vec![], "the full plan is usable");
        let base = serde_json::to_value(&plan).expect("plan as JSON");
        let mut leaves = Vec::new();
        numeric_leaves(&base, String::new(), &mut leaves);
        let text = results(&plan, &catalog);
        assert_eq!(non_finite_words(&text), Vec::<String>::new(), "the full plan's results");
        Sweep {
            negative_in_base: negative_cost_fields(&text),
            catalog,
            base,
            leaves,
            accepted: 0,
            failures: Vec::new(),
        }
    }

    /// Each number with the edges the checks accept for it alone.
    fn accepted_edges(&self) -> Vec<(String, Vec<Value>)> {
        self.leaves
            .iter()
            .map(|leaf| {
                let number = self.base.pointer(leaf).expect("leaf");
                let accepted = edges(number)
                    .into_iter()
                    .filter(|edge| {
                        changed(&self.base, &[(leaf, edge)]).is_some_and(|p| p.problems(&self.catalog).is_empty())
                    })
                    .collect();
                (leaf.clone(), accepted)
            })
            .filter(|(_, accepted): &(String, Vec<Value>)| !accepted.is_empty())
            .collect()
    }

    /// Evaluates the changed plan when the checks accept it; false when they refuse it.
    fn try_plan(&mut self, changes: &[(&str, &Value)]) -> bool {
        let Some(mut plan) = changed(&self.base, changes) else {
            return false;
        };
        if !plan.problems(&self.catalog).is_empty() {
            return false;
        }
        // The draws are the plan's own business (capped by the checks); a few keep the sweep
        // quick without changing what can overflow.
        plan.monte_carlo.draws = plan.monte_carlo.draws.min(200);
        self.accepted += 1;
        let text = results(&plan, &self.catalog);
        let non_finite = non_finite_words(&text);
        let negative: Vec<String> = negative_cost_fields(&text)
            .difference(&self.negative_in_base)
            .cloned()
            .collect();
        if !non_finite.is_empty() || !negative.is_empty() {
            let what: Vec<String> = changes.iter().map(|(p, v)| format!("{p} = {v}")).collect();
            self.failures.push(format!(
                "{} accepted, then: non-finite {:?}; negative {:?}",
                what.join(", "),
                non_finite.first(),
                negative
            ));
        }
        true
    }

    fn assert_no_failures(&self) {
        assert!(
            self.failures.is_empty(),
            "{} of {} accepted plans:\n{}",
            self.failures.len(),
            self.accepted,
            self.failures.join("\n")
        );
    }
}

#[test]
fn every_number_at_its_edges_is_refused_or_gives_finite_results() {
    let mut sweep = Sweep::new();
    assert!(
        sweep.leaves.len() > 60,
        "{} numbers in the full plan",
        sweep.leaves.len()
    );
    for leaf in sweep.leaves.clone() {
        let number = sweep.base.pointer(&leaf).cloned().expect("leaf");
        for edge in edges(&number) {
            sweep.try_plan(&[(&leaf, &edge)]);
        }
    }
    eprintln!(
        "{} numbers; {} changed plans accepted",
        sweep.leaves.len(),
        sweep.accepted
    );
    assert!(
        sweep.accepted > 100,
        "only {} changed plans were accepted",
        sweep.accepted
    );
    sweep.assert_no_failures();
}

#[test]
fn many_numbers_at_their_edges_at_once_are_refused_or_give_finite_results() {
    let mut sweep = Sweep::new();
    // A fixed seed: the same 400 plans on every run.
    let mut rng = Xoshiro256StarStar::seed_from_u64(15);
    let mut next = move |below: usize| ((rng.next_f64() * below as f64) as usize).min(below - 1);
    let accepted_edges = sweep.accepted_edges();
    let mut plans_accepted = 0;
    for _ in 0..400 {
        let mut changes: Vec<(String, Value)> = Vec::new();
        for (leaf, options) in &accepted_edges {
            // About one number in three moves to an edge the checks accept for it alone.
            if next(3) == 0 {
                changes.push((leaf.clone(), options[next(options.len())].clone()));
            }
        }
        let borrowed: Vec<(&str, &Value)> = changes.iter().map(|(p, v)| (p.as_str(), v)).collect();
        plans_accepted += usize::from(sweep.try_plan(&borrowed));
    }
    eprintln!("{plans_accepted} of 400 combined plans accepted");
    assert!(
        plans_accepted > 100,
        "only {plans_accepted} of 400 combined plans were accepted"
    );
    sweep.assert_no_failures();
}

#[test]
fn the_detectors_see_what_they_look_for() {
    assert_eq!(non_finite_words("flops: inf, x: 1.0").len(), 1);
    assert_eq!(non_finite_words("cost: -inf]").len(), 1);
    assert_eq!(non_finite_words("a: NaN }").len(), 1);
    assert_eq!(non_finite_words("\"$infB\"").len(), 1);
    assert_eq!(non_finite_words("inference: Info { infinite: 1.0 }").len(), 0);
    assert_eq!(
        negative_cost_fields("a_usd: -3.0, cost: 2.0, saving_usd: -1.0, gpus: -4.0"),
        BTreeSet::from(["a_usd".to_string()])
    );
}
