#![no_main]
//! A plan file read, edited (its name), saved preserving the user's text, and read again: the
//! saved text must load to the edited plan.
use gpuplan::config::plan_file::{read_plan_text, render_for_save};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn catalog() -> &'static gpuplan::model::catalog::Catalog {
    static CATALOG: OnceLock<gpuplan::config::catalog::LoadedCatalog> = OnceLock::new();
    &CATALOG.get_or_init(gpuplan::config::catalog::builtin).catalog
}

fuzz_target!(|text: &str| {
    let Ok(mut plan) = read_plan_text("fuzz.toml", text, catalog()) else {
        return;
    };
    plan.name = format!("{} (edited)", plan.name);
    let (saved, _) = render_for_save(Some(text), &plan).expect("an edited plan renders");
    let again = read_plan_text("fuzz.toml", &saved, catalog())
        .unwrap_or_else(|d| panic!("the saved plan does not load: {d:?}\n--- saved ---\n{saved}"));
    // Debug text, not ==, so that a NaN read back compares equal to itself.
    assert_eq!(format!("{plan:?}"), format!("{again:?}"), "saved:\n{saved}");
});
