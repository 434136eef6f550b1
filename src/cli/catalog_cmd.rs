//! `gpuplan catalog`: what the computations read, and where it came from.

use super::Failure;
use crate::config::paths::catalog_override_dir;
use crate::model::catalog::Catalog;
use crate::present::document::{Align, Block, Document, Section, Table, render_text};
use crate::shared::format::usd;

pub fn run(catalog: &Catalog) -> Result<(), Failure> {
    let mut accelerators = Table::new(&[
        ("id", Align::Left),
        ("name", Align::Left),
        ("BF16 dense TFLOPS", Align::Right),
        ("memory GB", Align::Right),
        ("TB/s", Align::Right),
        ("as of", Align::Left),
    ]);
    for a in &catalog.accelerators {
        accelerators.row(vec![
            a.id.clone(),
            a.name.clone(),
            format!("{:.0}", a.bf16_dense_tflops),
            format!("{:.0}", a.memory_gb),
            format!("{:.2}", a.memory_bandwidth_tbps),
            a.as_of.clone(),
        ]);
    }
    let mut prices = Table::new(&[
        ("accelerator", Align::Left),
        ("set", Align::Left),
        ("term", Align::Left),
        ("$/chip-h", Align::Right),
        ("provider", Align::Left),
        ("as of", Align::Left),
    ]);
    for p in &catalog.prices {
        prices.row(vec![
            p.accelerator.clone(),
            p.price_set.clone(),
            p.term.label().to_string(),
            usd(p.usd_per_chip_hour()),
            p.provider.clone(),
            p.as_of.clone(),
        ]);
    }
    let mut thresholds = Table::new(&[
        ("threshold", Align::Left),
        ("value", Align::Right),
        ("source", Align::Left),
    ]);
    for (key, value) in catalog.thresholds.entries() {
        let source = catalog
            .threshold_sources
            .iter()
            .find(|s| s.key == key)
            .map_or("", |s| s.source.as_str());
        thresholds.row(vec![key.to_string(), format!("{value}"), source.to_string()]);
    }
    let overrides = catalog_override_dir().map_or("(no home folder)".to_string(), |d| d.display().to_string());
    let doc = Document {
        title: format!("gpuplan catalogs (overrides read from {overrides})"),
        sections: vec![
            Section {
                title: "Accelerators".into(),
                blocks: vec![Block::Table(accelerators)],
            },
            Section {
                title: "Prices".into(),
                blocks: vec![Block::Table(prices)],
            },
            Section {
                title: "Thresholds".into(),
                blocks: vec![Block::Table(thresholds)],
            },
        ],
    };
    print!("{}", render_text(&doc));
    Ok(())
}
