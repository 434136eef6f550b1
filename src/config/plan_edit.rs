//! Saving a plan the way the planner wrote it: only the values that changed are rewritten;
//! comments, key order, blank lines and number spellings (`100e9`) stay as they were.
//!
//! The plan before and after the edit are both serialized, and their difference (compared
//! by value, never by text) is applied to the document as written. Defaults the file leaves
//! out are therefore not written in, and an unchanged `100e9` is never respelled.

use std::path::Path;

use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::atomic::write_atomically;
use super::diagnostic::Diagnostic;
use super::error::ConfigError;
use super::plan_file::{parse_plan, plan_to_toml};
use crate::model::plan::Plan;

/// Where in the document a table sits: new tables and arrays of tables may only be written
/// as `[section]`s at the root; deeper down they become inline values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Table,
    Inline,
}

/// The text of `original_toml` with the values that differ in `plan` rewritten, keys the plan
/// gained added, keys it lost removed, and everything else left as written. Refuses (never
/// substitutes another layout) when the result would not read back as `plan`.
pub fn render_preserving(original_toml: &str, plan: &Plan) -> Result<String, ConfigError> {
    let before = parse_plan("the plan as written", original_toml).map_err(ConfigError::OriginalNotAPlan)?;
    let mut doc: DocumentMut = original_toml.parse().map_err(ConfigError::OriginalNotToml)?;
    let old = canonical(&before)?;
    let new = canonical(plan)?;
    edit_table(doc.as_table_mut(), old.as_table(), new.as_table(), Level::Root);
    let text = doc.to_string();
    match parse_plan("the edited plan", &text) {
        Ok(back) if back == *plan => Ok(text),
        Ok(_) => Err(ConfigError::LayoutChangesPlan),
        Err(d) => Err(ConfigError::LayoutBreaksPlan(d)),
    }
}

/// Saves atomically: the file's own layout when its text is given, else the full serialization.
pub fn save_plan_preserving(path: &Path, original_toml: Option<&str>, plan: &Plan) -> Result<(), Diagnostic> {
    let shown = path.display().to_string();
    let text = match original_toml {
        Some(original) => render_preserving(original, plan),
        None => plan_to_toml(plan),
    }
    .map_err(|e| Diagnostic::file(&shown, e.to_string()))?;
    write_atomically(path, text.as_bytes()).map_err(|e| Diagnostic::file(&shown, format!("cannot save the plan: {e}")))
}

fn canonical(plan: &Plan) -> Result<DocumentMut, ConfigError> {
    plan_to_toml(plan)?
        .parse::<DocumentMut>()
        .map_err(ConfigError::PlanReadBack)
}

fn edit_table(doc: &mut dyn TableLike, old: &dyn TableLike, new: &dyn TableLike, level: Level) {
    for (key, new_item) in new.iter() {
        let old_item = old.get(key);
        if old_item.is_some_and(|o| same_item(o, new_item)) {
            continue;
        }
        let remove = match doc.get_mut(key) {
            Some(doc_item) => edit_item(doc_item, old_item, new_item, level),
            None => {
                insert_new(doc, key, new_item, level);
                false
            }
        };
        if remove {
            doc.remove(key);
        }
    }
    let gone: Vec<String> = old
        .iter()
        .filter(|(key, _)| new.get(key).is_none())
        .map(|(key, _)| key.to_string())
        .collect();
    for key in gone {
        doc.remove(&key);
    }
}

/// Applies one changed item in place; true when the key should go (an emptied array of tables).
fn edit_item(doc: &mut Item, old: Option<&Item>, new: &Item, level: Level) -> bool {
    let no_tables = Vec::new();
    let old_tables = old.map_or(Some(no_tables), tables_of);
    if let (Some(old_tables), Some(new_tables)) = (old_tables, tables_of(new))
        && (!old_tables.is_empty() || !new_tables.is_empty())
        && tables_of(doc).is_some()
    {
        return edit_tables(doc, &old_tables, &new_tables, level);
    }
    let empty = Table::new();
    if let (Some(new_table), true) = (new.as_table_like(), doc.is_table_like()) {
        let old_table = old.and_then(Item::as_table_like).unwrap_or(&empty);
        let inner = if doc.is_value() { Level::Inline } else { Level::Table };
        if let Some(doc_table) = doc.as_table_like_mut() {
            edit_table(doc_table, old_table, new_table, inner);
        }
        return false;
    }
    if let (Some(slot), Some(new_value)) = (doc.as_value_mut(), new.as_value()) {
        match (slot, old.and_then(Item::as_value), new_value) {
            (Value::Array(doc_array), Some(Value::Array(old_array)), Value::Array(new_array))
                if doc_array.len() == new_array.len() && old_array.len() == new_array.len() =>
            {
                edit_array(doc_array, old_array, new_array)
            }
            (slot, _, _) => replace_value(slot, new_value),
        }
        return false;
    }
    match fresh_item(new, level) {
        Some(item) => {
            *doc = item;
            false
        }
        None => true,
    }
}

/// Arrays of tables match by index: items edited in place, new ones appended, surplus removed.
fn edit_tables(doc: &mut Item, old: &[&dyn TableLike], new: &[&dyn TableLike], level: Level) -> bool {
    if level == Level::Root && doc.as_array().is_some_and(Array::is_empty) {
        *doc = Item::ArrayOfTables(new.iter().map(|t| owned_table(*t)).collect());
    }
    match doc {
        Item::ArrayOfTables(items) => {
            for (i, new_table) in new.iter().enumerate() {
                if i >= items.len() {
                    items.push(owned_table(*new_table));
                } else if let Some(item) = items.get_mut(i) {
                    match old.get(i) {
                        Some(old_table) => edit_table(item, *old_table, *new_table, Level::Table),
                        None => *item = owned_table(*new_table),
                    }
                }
            }
            while items.len() > new.len() {
                items.remove(items.len() - 1);
            }
            items.is_empty()
        }
        Item::Value(Value::Array(items)) => {
            for (i, new_table) in new.iter().enumerate() {
                if i >= items.len() {
                    items.push_formatted(Value::InlineTable(inline_table(*new_table)));
                } else if let Some(item) = items.get_mut(i) {
                    match (item.as_inline_table_mut(), old.get(i)) {
                        (Some(table), Some(old_table)) => edit_table(table, *old_table, *new_table, Level::Inline),
                        _ => *item = Value::InlineTable(inline_table(*new_table)),
                    }
                }
            }
            while items.len() > new.len() {
                items.remove(items.len() - 1);
            }
            items.is_empty()
        }
        _ => false,
    }
}

/// Inline arrays of the same length change element by element, each keeping its spelling.
fn edit_array(doc: &mut Array, old: &Array, new: &Array) {
    for (i, (old_value, new_value)) in old.iter().zip(new.iter()).enumerate() {
        if !same_value(old_value, new_value)
            && let Some(slot) = doc.get_mut(i)
        {
            replace_value(slot, new_value);
        }
    }
}

fn insert_new(doc: &mut dyn TableLike, key: &str, new: &Item, level: Level) {
    if let Some(item) = fresh_item(new, level) {
        doc.insert(key, item);
    }
}

/// `new` as an item that fits at `level`, without the canonical text's layout.
fn fresh_item(new: &Item, level: Level) -> Option<Item> {
    match (new, level) {
        (Item::Table(table), Level::Root) => Some(Item::Table(owned_table(table))),
        (Item::ArrayOfTables(tables), Level::Root) => Some(Item::ArrayOfTables(
            tables.iter().map(|t| owned_table(t)).collect::<ArrayOfTables>(),
        )),
        _ => value_of(new).map(Item::Value),
    }
}

/// A standard table holding `source`'s entries, nested tables written inline but for arrays
/// of tables (a cluster's `[[clusters.models]]`), kept as tables a person reads line by line.
fn owned_table(source: &dyn TableLike) -> Table {
    let mut table = Table::new();
    for (key, item) in source.iter() {
        if let Item::ArrayOfTables(tables) = item {
            table.insert(
                key,
                Item::ArrayOfTables(tables.iter().map(|t| owned_table(t)).collect()),
            );
        } else if let Some(value) = value_of(item) {
            table.insert(key, Item::Value(value));
        }
    }
    table
}

fn inline_table(source: &dyn TableLike) -> InlineTable {
    let mut table = InlineTable::new();
    for (key, item) in source.iter() {
        if let Some(value) = value_of(item) {
            table.insert(key, value);
        }
    }
    table
}

/// Any item as an inline value with default spacing.
fn value_of(item: &Item) -> Option<Value> {
    let mut value = match item {
        Item::Value(value) => value.clone(),
        Item::Table(table) => Value::InlineTable(inline_table(table)),
        Item::ArrayOfTables(tables) => {
            Value::Array(tables.iter().map(|t| Value::InlineTable(inline_table(t))).collect())
        }
        Item::None => return None,
    };
    value.decor_mut().clear();
    Some(value)
}

/// Writes `new` into `slot`, keeping the decor (the spacing and the comment after the value)
/// and the comment's column, and the exponent style of a number written like `100e9`.
fn replace_value(slot: &mut Value, new: &Value) {
    let old_width = bare_width(slot);
    let mut decor = slot.decor().clone();
    let mut value = respelled(slot, new);
    let new_width = bare_width(&value);
    let realigned = decor.suffix().and_then(|s| s.as_str()).and_then(|suffix| {
        let comment = suffix.trim_start_matches(' ');
        let spaces = suffix.len() - comment.len();
        let kept = (spaces + old_width).saturating_sub(new_width).max(1);
        (comment.starts_with('#') && spaces > 0).then(|| format!("{}{comment}", " ".repeat(kept)))
    });
    if let Some(suffix) = realigned {
        decor.set_suffix(suffix);
    }
    *value.decor_mut() = decor;
    *slot = value;
}

fn bare_width(value: &Value) -> usize {
    let mut bare = value.clone();
    bare.decor_mut().clear();
    bare.to_string().chars().count()
}

/// `new`, spelled in the exponent form of `old` when `old` was written with one.
fn respelled(old: &Value, new: &Value) -> Value {
    let fallback = || {
        let mut value = new.clone();
        value.decor_mut().clear();
        value
    };
    // A count written as an integer stays one while the new value is whole (`gpus = 144`,
    // not `144.0`); a fraction (shared GPUs) is written as it is.
    if let (Value::Integer(_), Some(number)) = (old, new.as_float())
        && number.fract() == 0.0
        && number.abs() < 9.0e15
        && written_exponent(old).is_none()
    {
        return Value::from(number as i64);
    }
    let (Some(number), Some(exponent)) = (new.as_float(), written_exponent(old)) else {
        return fallback();
    };
    if !number.is_finite() {
        return fallback();
    }
    let reads_back = |text: &str| text.parse::<f64>().ok() == Some(number);
    let same_exponent = format!("{}e{exponent}", number / 10f64.powi(exponent));
    let shortest = format!("{number:e}");
    // `600e9` over `6e11`, but not a long mantissa over a short plain exponent.
    let chosen = if reads_back(&same_exponent) && same_exponent.len() <= shortest.len() + 4 {
        same_exponent
    } else {
        shortest
    };
    chosen
        .parse::<Value>()
        .ok()
        .filter(|value| value.as_float() == Some(number))
        .unwrap_or_else(fallback)
}

/// The decimal exponent of a number written like `100e9` or `2.5E-3`.
fn written_exponent(value: &Value) -> Option<i32> {
    let raw = match value {
        Value::Float(f) => f.as_repr()?.as_raw().as_str()?,
        Value::Integer(i) => i.as_repr()?.as_raw().as_str()?,
        _ => return None,
    };
    if raw.contains(['x', 'o', 'b']) {
        return None; // 0xe1 is hexadecimal, not an exponent
    }
    let (_, exponent) = raw.split_once(['e', 'E'])?;
    exponent.replace('_', "").trim_start_matches('+').parse().ok()
}

/// The tables of an array of tables, written as `[[x]]` or as an inline array (empty counts).
fn tables_of(item: &Item) -> Option<Vec<&dyn TableLike>> {
    match item {
        Item::ArrayOfTables(tables) => Some(tables.iter().map(|t| t as &dyn TableLike).collect()),
        Item::Value(Value::Array(values)) => values
            .iter()
            .map(|v| v.as_inline_table().map(|t| t as &dyn TableLike))
            .collect(),
        _ => None,
    }
}

fn same_item(a: &Item, b: &Item) -> bool {
    if let (Some(x), Some(y)) = (tables_of(a), tables_of(b)) {
        return x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| same_table(*p, *q));
    }
    if let (Some(x), Some(y)) = (a.as_table_like(), b.as_table_like()) {
        return same_table(x, y);
    }
    match (a.as_value(), b.as_value()) {
        (Some(x), Some(y)) => same_value(x, y),
        _ => a.is_none() && b.is_none(),
    }
}

fn same_table(a: &dyn TableLike, b: &dyn TableLike) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(key, item)| b.get(key).is_some_and(|other| same_item(item, other)))
}

/// Equal as values: `100e9` and `100000000000.0` are the same number.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => {
            let (x, y) = (*x.value(), *y.value());
            x == y || (x.is_nan() && y.is_nan())
        }
        (Value::Integer(x), Value::Integer(y)) => x.value() == y.value(),
        (Value::Float(x), Value::Integer(i)) | (Value::Integer(i), Value::Float(x)) => *x.value() == *i.value() as f64,
        (Value::String(x), Value::String(y)) => x.value() == y.value(),
        (Value::Boolean(x), Value::Boolean(y)) => x.value() == y.value(),
        (Value::Datetime(x), Value::Datetime(y)) => x.value() == y.value(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_value(p, q))
        }
        (Value::InlineTable(x), Value::InlineTable(y)) => same_table(x, y),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::catalog::builtin;
    use crate::config::plan_file::{DEFAULT_PLAN_TOML, default_plan};

    const COMMENTED: &str = include_str!("../../tests/fixtures/plans/commented-mfu.toml");

    fn seed() -> Plan {
        default_plan(&builtin().catalog).expect("default plan")
    }

    /// (line number, before, after) of every line that differs; both texts the same length.
    fn changed_lines(before: &str, after: &str) -> Vec<(usize, String, String)> {
        assert_eq!(before.lines().count(), after.lines().count(), "{after}");
        before
            .lines()
            .zip(after.lines())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| (i + 1, a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn an_unchanged_plan_gives_back_the_text_byte_for_byte() {
        assert_eq!(
            render_preserving(DEFAULT_PLAN_TOML, &seed()).expect("render"),
            DEFAULT_PLAN_TOML
        );
    }

    #[test]
    fn a_cluster_edited_in_the_workbench_rewrites_only_its_lines_and_keeps_their_comments() {
        use crate::model::catalog::Term;
        use crate::model::deployment::Deployment;
        let mut plan = seed();
        let last = plan.clusters.len() - 1;
        let cluster = &mut plan.clusters[last];
        assert_eq!(cluster.name, "ap-south-h100");
        cluster.usd_per_gpu_hour = 7.224;
        cluster.gpus = 144.0;
        cluster.term = Term::OneYear;
        cluster.deployment = Deployment::BareMetal;
        let out = render_preserving(DEFAULT_PLAN_TOML, &plan).expect("render");
        let changed = changed_lines(DEFAULT_PLAN_TOML, &out);
        let after: Vec<&str> = changed.iter().map(|(_, _, after)| after.as_str()).collect();
        assert_eq!(
            after,
            [
                "gpus = 144                       # 17 × p5.48xlarge on demand",
                "usd_per_gpu_hour = 7.224         # $55.04/instance-h / 8 (the us-east-1 list price; Mumbai lists higher)",
                "term = \"1-year\"",
                "deployment = \"bare-metal\"",
            ],
            "{changed:?}"
        );
        // The lines are the last cluster's: the other clusters with the same keys are untouched.
        let first_changed = changed[0].0;
        let name_line = DEFAULT_PLAN_TOML
            .lines()
            .position(|l| l == "name = \"ap-south-h100\"")
            .expect("the cluster's name")
            + 1;
        assert_eq!(first_changed, name_line + 2, "{changed:?}");
        assert_eq!(parse_plan("saved", &out).expect("reads back"), plan);
    }

    #[test]
    fn one_changed_mfu_rewrites_one_line() {
        let mut plan = seed();
        plan.accelerators[0].mfu = 0.47;
        let out = render_preserving(DEFAULT_PLAN_TOML, &plan).expect("render");
        let changed = changed_lines(DEFAULT_PLAN_TOML, &out);
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert_eq!(changed[0].1, "mfu = 0.45");
        assert_eq!(changed[0].2, "mfu = 0.47");
    }

    #[test]
    fn a_changed_value_keeps_its_comment_in_its_column() {
        let catalog = builtin().catalog;
        let mut plan = parse_plan("fixture", COMMENTED).expect("fixture parses");
        assert!(plan.problems(&catalog).is_empty());
        plan.accelerators[0].mfu = 0.5;
        let out = render_preserving(COMMENTED, &plan).expect("render");
        let changed = changed_lines(COMMENTED, &out);
        assert_eq!(changed.len(), 1, "{changed:?}");
        let (_, before, after) = &changed[0];
        assert!(after.starts_with("mfu = 0.5 "), "{after}");
        let comment_at = |line: &str| line.find('#').expect("comment kept");
        assert_eq!(comment_at(before), comment_at(after), "{before}\n{after}");
        assert_eq!(before[comment_at(before)..], after[comment_at(after)..]);
    }

    #[test]
    fn numbers_keep_their_exponent_spelling_when_equal_and_when_changed() {
        let mut plan = seed();
        plan.training.tokens = 600e9;
        let out = render_preserving(DEFAULT_PLAN_TOML, &plan).expect("render");
        assert!(out.contains("model_params = 100e9 "), "{out}");
        let changed = changed_lines(DEFAULT_PLAN_TOML, &out);
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert!(changed[0].2.starts_with("tokens = 600e9 "), "{}", changed[0].2);
    }

    #[test]
    fn an_optional_key_set_is_added_and_removed_again() {
        let mut plan = seed();
        plan.accelerators[1].bakeoff_mfu = Some(0.42);
        let with = render_preserving(DEFAULT_PLAN_TOML, &plan).expect("render");
        assert_eq!(with.lines().count(), DEFAULT_PLAN_TOML.lines().count() + 1);
        assert!(with.contains("bakeoff_mfu = 0.42"), "{with}");
        plan.accelerators[1].bakeoff_mfu = None;
        assert_eq!(render_preserving(&with, &plan).expect("render"), DEFAULT_PLAN_TOML);
    }

    #[test]
    fn removing_an_optional_table_removes_only_it() {
        let mut plan = seed();
        plan.migration = None;
        let out = render_preserving(DEFAULT_PLAN_TOML, &plan).expect("render");
        assert!(!out.contains("[migration]"), "{out}");
        assert!(!out.contains("engineering_hours"), "{out}");
        assert!(out.contains("[board]"), "{out}");
    }

    #[test]
    fn a_nested_table_set_on_an_existing_section_is_written_inline() {
        let mut plan = seed();
        plan.board.roi = Some(crate::model::plan::RoiInputs {
            model_value_usd: 20e6,
            hardware_tco_usd: 8e6,
            migration_cost_usd: 0.15e6,
            lockin_capital_risk_usd: 4e6,
        });
        let out = render_preserving(DEFAULT_PLAN_TOML, &plan).expect("render");
        assert!(out.contains("\nroi = { model_value_usd = "), "{out}");
    }

    #[test]
    fn a_broken_original_is_refused() {
        let error = render_preserving("name = ", &seed())
            .expect_err("broken original")
            .to_string();
        assert!(error.contains("does not parse"), "{error}");
    }

    #[test]
    fn a_value_the_file_left_to_its_default_is_added_only_when_it_changes() {
        let text = DEFAULT_PLAN_TOML.replace("[monte_carlo]\ndraws = 10000\nseed = 1\n", "");
        let mut plan = parse_plan("p", &text).expect("parses");
        assert_eq!(render_preserving(&text, &plan).expect("render"), text);
        plan.monte_carlo.draws = 5000;
        let out = render_preserving(&text, &plan).expect("render");
        assert!(out.contains("[monte_carlo]\ndraws = 5000\n"), "{out}");
    }
}
