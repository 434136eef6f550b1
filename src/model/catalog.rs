//! The catalogs as plain data: accelerators, their price lists, and decision thresholds.
//! Loading (embedded defaults, user overrides, error locations) lives in `config::catalog`.

use serde::{Deserialize, Serialize};

use super::contracts::ContractCatalog;
use super::deployment::Deployment;
use super::magnitude::{positive_input, within_input_range};
use super::price_trend::{DatedPrice, fitted_trend, stated_spread};
use super::references::SensitivityReference;
use super::thresholds::Thresholds;
use super::workload::ClassificationRules;

/// One accelerator model with its dense peaks (never 2:4-sparse figures).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accelerator {
    pub id: String,
    pub name: String,
    pub vendor: String,
    /// Non-CUDA silicon (TPU, Trainium): the bake-off and reservation rules apply.
    pub custom_silicon: bool,
    /// Spellings seen in job logs, matched case-insensitively.
    #[serde(default)]
    pub aliases: Vec<String>,
    pub bf16_dense_tflops: f64,
    #[serde(default)]
    pub fp8_dense_tflops: Option<f64>,
    pub memory_gb: f64,
    pub memory_bandwidth_tbps: f64,
    pub scale_up_gb_per_s: f64,
    pub interconnect: String,
    pub chips_per_node: u32,
    pub source: String,
    pub as_of: String,
}

impl Accelerator {
    /// The first field whose value no chip has, with what was expected: the run costs divide
    /// by the TFLOPS, so a zero, negative or vanishing peak would print `inf` or a negative
    /// cost.
    pub fn problem(&self) -> Option<(&'static str, &'static str)> {
        let positive = "expected a number above 0, from 1e-9 to 1e18";
        let rates = [
            ("bf16_dense_tflops", Some(self.bf16_dense_tflops)),
            ("fp8_dense_tflops", self.fp8_dense_tflops),
            ("memory_gb", Some(self.memory_gb)),
            ("memory_bandwidth_tbps", Some(self.memory_bandwidth_tbps)),
        ];
        if let Some((field, _)) = rates.iter().find(|(_, v)| v.is_some_and(|v| !positive_input(v))) {
            return Some((field, positive));
        }
        if !(self.scale_up_gb_per_s >= 0.0 && within_input_range(self.scale_up_gb_per_s)) {
            return Some(("scale_up_gb_per_s", "expected 0 or more, at most 1e18"));
        }
        (self.chips_per_node == 0).then_some(("chips_per_node", "expected at least 1 chip"))
    }

    /// True when `name` is this accelerator's id or one of its aliases, ignoring case.
    pub fn answers_to(&self, name: &str) -> bool {
        self.id.eq_ignore_ascii_case(name) || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }
}

/// Commitment terms, from none to a multi-year build-to-order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Term {
    #[serde(rename = "spot")]
    Spot,
    #[serde(rename = "on-demand")]
    OnDemand,
    #[serde(rename = "monthly")]
    Monthly,
    #[serde(rename = "1-year")]
    OneYear,
    #[serde(rename = "3-year")]
    ThreeYear,
}

impl Term {
    /// Every term, from no commitment to the longest: the order a workbench choice steps through.
    pub const ALL: [Term; 5] = [
        Term::Spot,
        Term::OnDemand,
        Term::Monthly,
        Term::OneYear,
        Term::ThreeYear,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Term::Spot => "spot",
            Term::OnDemand => "on-demand",
            Term::Monthly => "monthly",
            Term::OneYear => "1-year",
            Term::ThreeYear => "3-year",
        }
    }

    /// A reservation commits to pay for its whole length, used or not.
    pub fn is_reservation(self) -> bool {
        matches!(self, Term::OneYear | Term::ThreeYear)
    }

    /// Hours committed by one contract of this term (a year is 8,760 hours).
    pub fn committed_hours(self, hours_per_month: f64) -> f64 {
        match self {
            Term::Spot | Term::OnDemand => 0.0,
            Term::Monthly => hours_per_month,
            Term::OneYear => crate::model::plan::HOURS_PER_YEAR,
            Term::ThreeYear => 3.0 * crate::model::plan::HOURS_PER_YEAR,
        }
    }
}

/// One row of the price list: what a provider charges for some chips on some term.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub accelerator: String,
    /// "market" for real offers; named sets (e.g. "seed-002") reproduce a document's table.
    pub price_set: String,
    pub provider: String,
    pub term: Term,
    pub deployment: Deployment,
    /// Price of `chips` chips for one hour.
    pub usd_per_hour: f64,
    pub chips: u32,
    pub source: String,
    pub as_of: String,
    #[serde(default)]
    pub note: Option<String>,
}

impl Price {
    /// What is wrong with the offer's numbers, if anything.
    pub fn problem(&self) -> Option<(&'static str, &'static str)> {
        if self.chips == 0 {
            return Some(("chips", "expected chips above 0"));
        }
        (!(self.usd_per_hour >= 0.0 && within_input_range(self.usd_per_hour)))
            .then_some(("usd_per_hour", "expected a price of 0 or more: 0 or from 1e-9 to 1e18"))
    }

    pub fn usd_per_chip_hour(&self) -> f64 {
        self.usd_per_hour / f64::from(self.chips)
    }
}

/// How an accelerator's rental price on a term moves a year on (-0.2: a fifth cheaper), from
/// dated prices of the same offer; a long commitment is weighed against it. The change is a
/// bet, not a fact: its spread is fitted from `observed` where it holds more than two dated
/// prices, else stated (`spread_per_year`), else taken as the change's own size
/// (`price_trend::stated_spread`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceChange {
    pub accelerator: String,
    /// "on-demand" or "spot".
    pub term: Term,
    pub change_per_year: f64,
    pub source: String,
    pub as_of: String,
    #[serde(default)]
    pub note: Option<String>,
    /// One standard deviation of the yearly change, as the source states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread_per_year: Option<f64>,
    /// Dated prices of the offer the change was read from: with more than two, the spread is
    /// fitted from them; the backtest prices the bet on them where they bracket its days.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<DatedPrice>,
}

/// The steepest yearly change a catalog or plan may give: a price cannot fall below zero,
/// and tenfold a year is past anything observed.
pub const PRICE_CHANGE_RANGE: (f64, f64) = (-0.9, 9.0);

impl PriceChange {
    pub fn problem(&self) -> Option<(&'static str, &'static str)> {
        if !matches!(self.term, Term::OnDemand | Term::Spot) {
            return Some((
                "term",
                "expected \"on-demand\" or \"spot\": committed prices are locked in",
            ));
        }
        let (low, high) = PRICE_CHANGE_RANGE;
        if !(self.change_per_year.is_finite() && (low..=high).contains(&self.change_per_year)) {
            return Some((
                "change_per_year",
                "expected a yearly change from -0.9 to 9 (-0.2: a fifth cheaper a year on)",
            ));
        }
        if let Some(problem) = spread_problem(self.spread_per_year) {
            return Some(problem);
        }
        self.observed
            .iter()
            .find_map(DatedPrice::problem)
            .map(|(_, why)| ("observed", why))
    }

    /// The trend's spread: fitted from the dated prices, else stated, else its own size; with
    /// where it comes from.
    pub fn spread(&self) -> (f64, &'static str) {
        if let Some(fitted) = fitted_trend(&self.observed) {
            return (fitted.spread_per_year, "fitted to the dated prices");
        }
        match self.spread_per_year {
            Some(spread) => (spread, "stated by the catalog"),
            None => (
                stated_spread(self.change_per_year),
                "none measured: taken as the change's own size",
            ),
        }
    }
}

/// A spread, where given, is a yearly change's standard deviation: 0 to 9.
pub fn spread_problem(spread: Option<f64>) -> Option<(&'static str, &'static str)> {
    let bad = spread.is_some_and(|s| !(s.is_finite() && (0.0..=PRICE_CHANGE_RANGE.1).contains(&s)));
    bad.then_some((
        "spread_per_year",
        "expected one standard deviation of the yearly change, from 0 to 9",
    ))
}

/// Where a threshold's value comes from, for reports and the help screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdSource {
    pub key: String,
    pub source: String,
    pub meaning: String,
}

/// The hyperscaler on-demand H100 rate seed 001 quotes, per GPU-hour: what a cluster no plan
/// prices costs when a catalog override has dropped the built-in catalog's row for it
/// (`catalogs/accelerators.toml` holds the same figure with its source).
pub const SEED_H100_USD_PER_GPU_HOUR: f64 = 12.29;

/// Lowercase letters and digits only: `NVIDIA A100-SXM4-80GB` → `nvidiaa100sxm480gb`.
fn simplified(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// An id's model number, its first part when that has letters and digits (`a100-80gb` →
/// `a100`, `mi300x` → `mi300x`); none for ids like `tpu-v5e`.
fn model_number(id: &str) -> Option<String> {
    let first = simplified(id.split('-').next().unwrap_or(id));
    (first.len() >= 4 && first.chars().any(|c| c.is_ascii_digit()) && first.chars().any(|c| c.is_ascii_alphabetic()))
        .then_some(first)
}

/// Of `items`, the one whose accelerator (`of`) a log's GPU type names, and whether exactly
/// (see `Catalog::accelerator_for_gpu_type`).
pub fn accelerator_for_gpu_type<'a, T>(
    items: &'a [T],
    gpu_type: &str,
    of: impl Fn(&T) -> &Accelerator,
) -> Option<(&'a T, bool)> {
    let wanted = simplified(gpu_type);
    if wanted.is_empty() {
        return None;
    }
    let exact = items.iter().find(|item| {
        let a = of(item);
        simplified(&a.id) == wanted || a.aliases.iter().any(|alias| simplified(alias) == wanted)
    });
    if let Some(item) = exact {
        return Some((item, true));
    }
    // Words of the type (`gres/gpu:a100` → gres, gpu, a100): a model number begins one.
    let lowered = gpu_type.to_ascii_lowercase();
    let words: Vec<&str> = lowered.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    let mut family = items
        .iter()
        .filter(|item| model_number(&of(item).id).is_some_and(|m| words.iter().any(|w| w.starts_with(m.as_str()))));
    match (family.next(), family.next()) {
        (Some(item), None) => Some((item, false)),
        _ => None,
    }
}

/// The resolved catalogs every computation reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    pub accelerators: Vec<Accelerator>,
    pub prices: Vec<Price>,
    /// Yearly price changes of rental terms, per accelerator.
    pub price_changes: Vec<PriceChange>,
    pub thresholds: Thresholds,
    pub threshold_sources: Vec<ThresholdSource>,
    pub references: Vec<SensitivityReference>,
    /// Ordered rules that classify jobs; `None` only while a catalog is being assembled.
    pub classification: Option<ClassificationRules>,
    /// Contract offers by term; `None` only while a catalog is being assembled.
    pub contracts: Option<ContractCatalog>,
}

impl Catalog {
    pub fn accelerator(&self, name: &str) -> Option<&Accelerator> {
        self.accelerators.iter().find(|a| a.answers_to(name))
    }

    /// The accelerator a log's GPU type names, and whether it names it exactly: its id or an
    /// alias (any case, punctuation aside), or else the one accelerator whose model number the
    /// type contains (`nvidia-a100-sxm4-40gb` and Slurm's `a100` are taken as the A100 80GB).
    pub fn accelerator_for_gpu_type(&self, gpu_type: &str) -> Option<(&Accelerator, bool)> {
        accelerator_for_gpu_type(&self.accelerators, gpu_type, |a| a)
    }

    /// An accelerator's on-demand list price: its dearest on-demand market offer, as seed
    /// 001's $12.29 is the dearest cloud's H100 (Azure's list price).
    pub fn list_price(&self, accelerator_id: &str) -> Option<&Price> {
        self.prices_for(accelerator_id, "market", Term::OnDemand)
            .last()
            .copied()
    }

    /// The catalog's yearly price change of an accelerator on a rental term.
    pub fn price_change(&self, accelerator_id: &str, term: Term) -> Option<&PriceChange> {
        self.price_changes
            .iter()
            .find(|c| c.accelerator == accelerator_id && c.term == term)
    }

    /// Prices of an accelerator on a term within a price set, cheapest first.
    pub fn prices_for(&self, accelerator_id: &str, price_set: &str, term: Term) -> Vec<&Price> {
        let mut prices: Vec<&Price> = self
            .prices
            .iter()
            .filter(|p| p.accelerator == accelerator_id && p.price_set == price_set && p.term == term)
            .collect();
        prices.sort_by(|a, b| a.usd_per_chip_hour().total_cmp(&b.usd_per_chip_hour()));
        prices
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_log_s_gpu_type_names_an_accelerator_exactly_or_by_its_model_number() {
        let catalog = crate::config::catalog::builtin().catalog;
        let id = |t: &str| {
            catalog
                .accelerator_for_gpu_type(t)
                .map(|(a, exact)| (a.id.as_str(), exact))
        };
        assert_eq!(id("NVIDIA-A100-SXM4-80GB"), Some(("a100-80gb", true)));
        assert_eq!(id("h100-sxm"), Some(("h100-sxm", true)));
        assert_eq!(id("nvidia_h100_80gb_hbm3"), Some(("h100-sxm", true)));
        assert_eq!(id("a100"), Some(("a100-80gb", false)));
        assert_eq!(id("NVIDIA A100-PCIE-40GB"), Some(("a100-80gb", false)));
        assert_eq!(id("gh200"), None, "not an H200");
        // The GPUs public traces name (PAI 2020, openb): priced as themselves, not as H100s.
        assert_eq!(id("Tesla V100-SXM2-32GB"), Some(("v100-32gb", true)));
        assert_eq!(id("V100M32"), Some(("v100-32gb", true)));
        assert_eq!(id("V100"), Some(("v100-16gb", true)));
        assert_eq!(id("T4"), Some(("t4", true)));
        assert_eq!(id("A10G"), Some(("a10", true)));
        assert_eq!(id("nvidia-l40s"), Some(("l40s", true)));
        assert_eq!(id("P100"), None, "no cloud lists it: the fallback rate, said");
        assert_eq!(id("A10|T4"), None, "either of two: no one price");
        assert_eq!(id(""), None);
    }

    #[test]
    fn the_list_price_is_the_dearest_on_demand_offer() {
        let catalog = crate::config::catalog::builtin().catalog;
        let h100 = catalog.list_price("h100-sxm").expect("H100 priced");
        assert_eq!(h100.usd_per_chip_hour(), super::SEED_H100_USD_PER_GPU_HOUR);
        assert!(catalog.list_price("a100-80gb").expect("A100").usd_per_chip_hour() < 5.0);
        assert!(catalog.list_price("no-such-chip").is_none());
    }
}
