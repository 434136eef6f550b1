//! Catalog loading: the built-in TOML files (embedded in the binary) with the user's
//! override files merged over them. A bad entry in an override is reported with its file,
//! line and key, and the built-in entry stands.

use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::diagnostic::Diagnostic;
use super::locate::{backticked_name, locate_key_path};
use crate::model::catalog::{Accelerator, Catalog, Price, PriceChange, ThresholdSource};
use crate::model::contracts::ContractCatalog;
use crate::model::magnitude::within_input_range;
use crate::model::references::SensitivityReference;
use crate::model::thresholds::Thresholds;
use crate::model::workload::ClassificationRules;

pub const ACCELERATORS_FILE: &str = "accelerators.toml";
pub const THRESHOLDS_FILE: &str = "thresholds.toml";
pub const REFERENCES_FILE: &str = "references.toml";
pub const CLASSIFICATION_FILE: &str = "classification.toml";
pub const CONTRACTS_FILE: &str = "contracts.toml";

const BUILTIN_ACCELERATORS: &str = include_str!("../../catalogs/accelerators.toml");
const BUILTIN_THRESHOLDS: &str = include_str!("../../catalogs/thresholds.toml");
const BUILTIN_REFERENCES: &str = include_str!("../../catalogs/references.toml");
const BUILTIN_CLASSIFICATION: &str = include_str!("../../catalogs/classification.toml");
const BUILTIN_CONTRACTS: &str = include_str!("../../catalogs/contracts.toml");

/// The catalog with what was said about the files it came from.
#[derive(Debug, Clone)]
pub struct LoadedCatalog {
    pub catalog: Catalog,
    /// Override entries that were skipped, each with where and why.
    pub warnings: Vec<Diagnostic>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThresholdEntry {
    value: f64,
    source: String,
    meaning: String,
}

/// Entries parsed from one file, each deserialized on its own so one bad entry does not
/// take the rest of the file with it; each with its index in the file's array.
struct Entries<T> {
    items: Vec<(usize, T)>,
    warnings: Vec<Diagnostic>,
}

fn parse_table(file: &str, text: &str) -> Result<toml::Table, Diagnostic> {
    toml::from_str::<toml::Table>(text).map_err(|e| Diagnostic::toml(file, text, &e))
}

fn check_schema_version(file: &str, text: &str, table: &toml::Table, warnings: &mut Vec<Diagnostic>) {
    match table.get("schema_version").and_then(toml::Value::as_integer) {
        Some(1) => {}
        other => warnings.push(Diagnostic::at(
            file,
            text,
            locate_key_path(text, "schema_version"),
            Some("schema_version".into()),
            format!(
                "expected schema_version = 1, found {}",
                other.map_or("none".to_string(), |v| v.to_string())
            ),
        )),
    }
}

/// A skipped entry, pointed at the key the message is about: a field the message names, or
/// the field whose value it quotes (e.g. an unknown variant).
fn entry_diagnostic(file: &str, text: &str, key_path: &str, entry: Option<&toml::Value>, message: &str) -> Diagnostic {
    let field = backticked_name(message).and_then(|name| {
        let table = entry?.as_table()?;
        if table.contains_key(name) {
            return Some(name.to_string());
        }
        table
            .iter()
            .find(|(_, v)| v.as_str() == Some(name))
            .map(|(k, _)| k.clone())
    });
    let span = field
        .and_then(|f| locate_key_path(text, &format!("{key_path}.{f}")))
        .or_else(|| locate_key_path(text, key_path));
    Diagnostic::at(
        file,
        text,
        span,
        Some(key_path.to_string()),
        format!("{message}; entry skipped"),
    )
}

fn array_entries<T: DeserializeOwned>(file: &str, text: &str, table: &toml::Table, key: &str) -> Entries<T> {
    let mut entries = Entries {
        items: Vec::new(),
        warnings: Vec::new(),
    };
    let Some(value) = table.get(key) else { return entries };
    let Some(array) = value.as_array() else {
        entries.warnings.push(entry_diagnostic(
            file,
            text,
            key,
            None,
            &format!("expected an array of tables [[{key}]]"),
        ));
        return entries;
    };
    for (i, item) in array.iter().enumerate() {
        match item.clone().try_into::<T>() {
            Ok(parsed) => entries.items.push((i, parsed)),
            Err(e) => entries.warnings.push(entry_diagnostic(
                file,
                text,
                &format!("{key}[{i}]"),
                Some(item),
                e.message().trim(),
            )),
        }
    }
    entries
}

fn unknown_top_level_keys(file: &str, text: &str, table: &toml::Table, known: &[&str], warnings: &mut Vec<Diagnostic>) {
    for key in table.keys().filter(|k| !known.contains(&k.as_str())) {
        warnings.push(Diagnostic::at(
            file,
            text,
            locate_key_path(text, key),
            Some(key.clone()),
            format!("unknown key; expected one of: {}", known.join(", ")),
        ));
    }
}

/// The entries whose values pass `problem`; each that does not is reported at its field
/// (`accelerator[2].bf16_dense_tflops`) and skipped, so the built-in entry stands.
fn usable<T>(
    file: &str,
    text: &str,
    key: &str,
    entries: Entries<T>,
    problem: impl Fn(&T) -> Option<(&'static str, String)>,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<T> {
    warnings.extend(entries.warnings);
    let mut kept = Vec::new();
    for (i, item) in entries.items {
        match problem(&item) {
            Some((field, message)) => {
                let entry = format!("{key}[{i}]");
                let field_path = format!("{entry}.{field}");
                let span = locate_key_path(text, &field_path).or_else(|| locate_key_path(text, &entry));
                warnings.push(Diagnostic::at(
                    file,
                    text,
                    span,
                    Some(field_path),
                    format!("{message}; entry skipped"),
                ));
            }
            None => kept.push(item),
        }
    }
    kept
}

fn owned(problem: Option<(&'static str, &'static str)>) -> Option<(&'static str, String)> {
    problem.map(|(field, message)| (field, message.to_string()))
}

/// Merges `overrides` into `base`, replacing entries with the same identity.
fn merge_by<T, K: PartialEq>(base: &mut Vec<T>, overrides: Vec<T>, identity: impl Fn(&T) -> K) {
    for item in overrides {
        match base.iter_mut().find(|b| identity(b) == identity(&item)) {
            Some(slot) => *slot = item,
            None => base.push(item),
        }
    }
}

fn price_identity(p: &Price) -> (String, String, String, crate::model::catalog::Term) {
    (
        p.accelerator.clone(),
        p.price_set.clone(),
        p.provider.to_ascii_lowercase(),
        p.term,
    )
}

fn apply_accelerators(catalog: &mut Catalog, file: &str, text: &str, warnings: &mut Vec<Diagnostic>) {
    let table = match parse_table(file, text) {
        Ok(table) => table,
        Err(d) => return warnings.push(d),
    };
    check_schema_version(file, text, &table, warnings);
    unknown_top_level_keys(
        file,
        text,
        &table,
        &["schema_version", "accelerator", "price", "price_change"],
        warnings,
    );
    let accelerators = array_entries::<Accelerator>(file, text, &table, "accelerator");
    let accelerators = usable(
        file,
        text,
        "accelerator",
        accelerators,
        |a| owned(a.problem()),
        warnings,
    );
    merge_by(&mut catalog.accelerators, accelerators, |a| a.id.clone());
    let prices = array_entries::<Price>(file, text, &table, "price");
    let known = |price: &Price| {
        if catalog.accelerators.iter().all(|a| a.id != price.accelerator) {
            return Some(("accelerator", format!("unknown accelerator '{}'", price.accelerator)));
        }
        owned(price.problem())
    };
    let prices = usable(file, text, "price", prices, known, warnings);
    merge_by(&mut catalog.prices, prices, price_identity);
    let changes = array_entries::<PriceChange>(file, text, &table, "price_change");
    let known = |change: &PriceChange| {
        if catalog.accelerators.iter().all(|a| a.id != change.accelerator) {
            return Some(("accelerator", format!("unknown accelerator '{}'", change.accelerator)));
        }
        owned(change.problem())
    };
    let changes = usable(file, text, "price_change", changes, known, warnings);
    merge_by(&mut catalog.price_changes, changes, |c| (c.accelerator.clone(), c.term));
}

fn apply_thresholds(catalog: &mut Catalog, file: &str, text: &str, warnings: &mut Vec<Diagnostic>) {
    let table = match parse_table(file, text) {
        Ok(table) => table,
        Err(d) => return warnings.push(d),
    };
    check_schema_version(file, text, &table, warnings);
    for (key, value) in table.iter().filter(|(k, _)| k.as_str() != "schema_version") {
        if !Thresholds::KEYS.contains(&key.as_str()) {
            warnings.push(entry_diagnostic(
                file,
                text,
                key,
                None,
                &format!("unknown threshold; expected one of: {}", Thresholds::KEYS.join(", ")),
            ));
            continue;
        }
        match value.clone().try_into::<ThresholdEntry>() {
            Ok(entry) if within_input_range(entry.value) => {
                catalog.thresholds.set(key, entry.value);
                let source = ThresholdSource {
                    key: key.clone(),
                    source: entry.source,
                    meaning: entry.meaning,
                };
                merge_by(&mut catalog.threshold_sources, vec![source], |s| s.key.clone());
            }
            Ok(_) => warnings.push(entry_diagnostic(
                file,
                text,
                &format!("{key}.value"),
                None,
                "expected a finite number: 0 or a size from 1e-9 to 1e18",
            )),
            Err(e) => warnings.push(entry_diagnostic(file, text, key, Some(value), e.message().trim())),
        }
    }
}

fn apply_references(catalog: &mut Catalog, file: &str, text: &str, warnings: &mut Vec<Diagnostic>) {
    let table = match parse_table(file, text) {
        Ok(table) => table,
        Err(d) => return warnings.push(d),
    };
    check_schema_version(file, text, &table, warnings);
    unknown_top_level_keys(file, text, &table, &["schema_version", "sensitivity"], warnings);
    let references = array_entries::<SensitivityReference>(file, text, &table, "sensitivity");
    let references = usable(file, text, "sensitivity", references, |r| owned(r.problem()), warnings);
    merge_by(&mut catalog.references, references, |r| {
        (
            r.accelerator.clone(),
            r.price_set.clone(),
            r.model_params.to_bits(),
            r.mfu.to_bits(),
        )
    });
}

/// A file that replaces a built-in list whole and does not parse: where, and what stays.
fn whole_file_error(file: &str, text: &str, e: &toml::de::Error, kept: &str) -> Diagnostic {
    let message = e.message().trim();
    Diagnostic::at(
        file,
        text,
        e.span(),
        None,
        format!("{message}; file ignored, built-in {kept} kept"),
    )
}

/// Classification rules are ordered, so a user's file replaces the built-in list whole; a
/// file that does not parse leaves the built-in rules in force.
fn apply_classification(catalog: &mut Catalog, file: &str, text: &str, warnings: &mut Vec<Diagnostic>) {
    match toml::from_str::<ClassificationRules>(text) {
        Ok(rules) if rules.schema_version == 1 => catalog.classification = Some(rules),
        Ok(_) => warnings.push(Diagnostic::at(
            file,
            text,
            locate_key_path(text, "schema_version"),
            Some("schema_version".into()),
            "expected schema_version = 1; file ignored",
        )),
        Err(e) => warnings.push(whole_file_error(file, text, &e, "rules")),
    }
}

/// Contract offers replace the built-in list whole, like the rules: a file that does not
/// parse, or whose offers are inconsistent, leaves the built-in offers in force.
fn apply_contracts(catalog: &mut Catalog, file: &str, text: &str, warnings: &mut Vec<Diagnostic>) {
    match toml::from_str::<ContractCatalog>(text) {
        Ok(contracts) => {
            let problems = contracts.problems();
            if problems.is_empty() {
                catalog.contracts = Some(contracts);
            } else {
                for problem in problems {
                    warnings.push(Diagnostic::file(
                        file,
                        format!("{problem}; file ignored, built-in offers kept"),
                    ));
                }
            }
        }
        Err(e) => warnings.push(whole_file_error(file, text, &e, "offers")),
    }
}

fn empty_catalog() -> Catalog {
    Catalog {
        accelerators: Vec::new(),
        prices: Vec::new(),
        price_changes: Vec::new(),
        thresholds: Thresholds::unset(),
        threshold_sources: Vec::new(),
        references: Vec::new(),
        classification: None,
        contracts: None,
    }
}

/// The built-in catalogs alone. Their problems are reported the same way as a user's,
/// and a test keeps them at none.
pub fn builtin() -> LoadedCatalog {
    let mut catalog = empty_catalog();
    let mut warnings = Vec::new();
    apply_accelerators(
        &mut catalog,
        "(built-in) catalogs/accelerators.toml",
        BUILTIN_ACCELERATORS,
        &mut warnings,
    );
    apply_thresholds(
        &mut catalog,
        "(built-in) catalogs/thresholds.toml",
        BUILTIN_THRESHOLDS,
        &mut warnings,
    );
    apply_references(
        &mut catalog,
        "(built-in) catalogs/references.toml",
        BUILTIN_REFERENCES,
        &mut warnings,
    );
    apply_classification(
        &mut catalog,
        "(built-in) catalogs/classification.toml",
        BUILTIN_CLASSIFICATION,
        &mut warnings,
    );
    apply_contracts(
        &mut catalog,
        "(built-in) catalogs/contracts.toml",
        BUILTIN_CONTRACTS,
        &mut warnings,
    );
    for key in catalog.thresholds.missing_keys() {
        warnings.push(Diagnostic::file(
            "(built-in) catalogs/thresholds.toml",
            format!("threshold '{key}' has no value"),
        ));
    }
    LoadedCatalog { catalog, warnings }
}

/// The built-in catalogs with every override file found in `override_dir` merged over them.
pub fn load(override_dir: Option<&Path>) -> LoadedCatalog {
    let mut loaded = builtin();
    let Some(dir) = override_dir else { return loaded };
    type Apply = fn(&mut Catalog, &str, &str, &mut Vec<Diagnostic>);
    let files: [(&str, Apply); 5] = [
        (CONTRACTS_FILE, apply_contracts),
        (ACCELERATORS_FILE, apply_accelerators),
        (THRESHOLDS_FILE, apply_thresholds),
        (REFERENCES_FILE, apply_references),
        (CLASSIFICATION_FILE, apply_classification),
    ];
    for (name, apply) in files {
        let path = dir.join(name);
        if !path.exists() {
            continue;
        }
        let shown = path.display().to_string();
        match std::fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => apply(&mut loaded.catalog, &shown, &text, &mut loaded.warnings),
                Err(e) => loaded.warnings.push(Diagnostic::file(
                    &shown,
                    format!(
                        "not UTF-8 text (invalid byte at offset {}); file ignored",
                        e.utf8_error().valid_up_to()
                    ),
                )),
            },
            Err(e) => loaded
                .warnings
                .push(Diagnostic::file(&shown, format!("cannot read: {e}; file ignored"))),
        }
    }
    loaded
}

/// The catalogs as the user has them: built-ins plus the config folder's overrides.
pub fn load_user() -> LoadedCatalog {
    load(super::paths::catalog_override_dir().as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::{SEED_H100_USD_PER_GPU_HOUR, Term};

    #[test]
    fn the_fallback_rate_is_the_built_in_catalogs_seed_rate() {
        let catalog = builtin().catalog;
        let seed = catalog.prices_for("h100-sxm", "seed-001", Term::OnDemand);
        assert_eq!(seed.len(), 1);
        assert_eq!(seed[0].usd_per_chip_hour(), SEED_H100_USD_PER_GPU_HOUR);
    }
}
