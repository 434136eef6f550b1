//! `[prices]`: what a plan says of GPU models the catalog cannot price or does not know by the
//! name a log or node list writes (openb's `G2`): a price per GPU-hour, or the catalog
//! accelerator the name stands for (then priced at its list price).
//!
//! ```toml
//! [prices]
//! G2 = 1.10              # USD per GPU-hour
//! G3 = "v100-32gb"       # the catalog accelerator it is
//! P100 = [0.6, 0.9, 1.5] # low, likely, high: priced at the likely, ranged on the board
//! ```

use serde::{Deserialize, Serialize};

use crate::model::catalog::Catalog;

/// Most a GPU-hour is believed to cost (a B200 lists near $15): past it, a typing slip.
const MAX_USD_PER_GPU_HOUR: f64 = 1_000.0;

/// What `[prices]` says of one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ModelPrice {
    UsdPerGpuHour(f64),
    Accelerator(String),
    /// Low, likely and high USD per GPU-hour: the likely prices today's cost, the low and high
    /// are the board's range for it (`saving_range::UNSTATED_PRICES`).
    Range([f64; 3]),
}

impl ModelPrice {
    /// What is wrong with it, if anything.
    pub fn problem(&self, catalog: &Catalog) -> Option<String> {
        match self {
            ModelPrice::UsdPerGpuHour(usd) if !(usd.is_finite() && *usd > 0.0 && *usd <= MAX_USD_PER_GPU_HOUR) => Some(
                format!("{usd} is not a price per GPU-hour: expected more than 0 and at most {MAX_USD_PER_GPU_HOUR}"),
            ),
            ModelPrice::UsdPerGpuHour(_) => None,
            ModelPrice::Accelerator(name) if catalog.accelerator(name).is_none() => Some(format!(
                "'{name}' is not an accelerator of the catalog (`gpuplan catalog` lists them): give its id, or a price per GPU-hour"
            )),
            ModelPrice::Accelerator(_) => None,
            ModelPrice::Range([low, likely, high]) => {
                let priced = |usd: f64| usd.is_finite() && usd > 0.0 && usd <= MAX_USD_PER_GPU_HOUR;
                let ordered = low <= likely && likely <= high;
                (!(priced(*low) && priced(*likely) && priced(*high) && ordered)).then(|| {
                    format!(
                        "[{low}, {likely}, {high}] is not a range of prices per GPU-hour: expected [low, likely, high], \
                         each more than 0 and at most {MAX_USD_PER_GPU_HOUR}, low ≤ likely ≤ high"
                    )
                })
            }
        }
    }
}

/// The entry of `prices` naming `model`, its case and surrounding spaces aside.
pub fn price_of<'a>(
    prices: &'a std::collections::BTreeMap<String, ModelPrice>,
    model: &str,
) -> Option<(&'a str, &'a ModelPrice)> {
    let wanted = model.trim();
    prices
        .iter()
        .find(|(name, _)| name.trim().eq_ignore_ascii_case(wanted))
        .map(|(name, price)| (name.as_str(), price))
}
