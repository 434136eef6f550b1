//! The price a plan's accelerator choice resolves to: its override, or the catalog's offer of
//! the named provider (else the cheapest) in its price set and term; or why there is none.

use super::AcceleratorChoice;
use crate::model::catalog::{Catalog, Price};

/// The price a plan's accelerator choice resolves to.
#[derive(Debug, Clone, PartialEq)]
pub enum ResolvedPrice<'a> {
    Catalog(&'a Price),
    Override { usd_per_chip_hour: f64 },
}

impl ResolvedPrice<'_> {
    pub fn usd_per_chip_hour(&self) -> f64 {
        match self {
            ResolvedPrice::Catalog(price) => price.usd_per_chip_hour(),
            ResolvedPrice::Override { usd_per_chip_hour } => *usd_per_chip_hour,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            ResolvedPrice::Catalog(p) => format!("{} ({}, {}, {})", p.provider, p.price_set, p.term.label(), p.as_of),
            ResolvedPrice::Override { .. } => "plan override".to_string(),
        }
    }
}

impl AcceleratorChoice {
    /// The price this choice uses: the override, else the named provider or the cheapest
    /// offer of its price set and term.
    pub fn resolve_price<'a>(&self, catalog: &'a Catalog) -> Result<ResolvedPrice<'a>, NoPrice> {
        if let Some(usd_per_chip_hour) = self.usd_per_chip_hour {
            return Ok(ResolvedPrice::Override { usd_per_chip_hour });
        }
        let id = catalog
            .accelerator(&self.id)
            .map_or(self.id.as_str(), |a| a.id.as_str());
        let offers = catalog.prices_for(id, &self.price_set, self.term);
        let chosen = match &self.provider {
            Some(provider) => offers.into_iter().find(|p| p.provider.eq_ignore_ascii_case(provider)),
            None => offers.into_iter().next(),
        };
        chosen.map(ResolvedPrice::Catalog).ok_or_else(|| {
            let mut available: Vec<String> = catalog
                .prices
                .iter()
                .filter(|p| p.accelerator == id)
                .map(|p| format!("{}/{}", p.price_set, p.term.label()))
                .collect();
            available.sort();
            available.dedup();
            NoPrice {
                accelerator: self.id.clone(),
                price_set: self.price_set.clone(),
                term: self.term.label(),
                provider: self.provider.clone(),
                available,
            }
        })
    }
}

/// A choice the catalog prices nowhere: what was asked, and the price sets and terms the
/// catalog has for the accelerator instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoPrice {
    pub accelerator: String,
    pub price_set: String,
    pub term: &'static str,
    pub provider: Option<String>,
    /// `price_set/term`, sorted, once each.
    pub available: Vec<String>,
}

impl std::fmt::Display for NoPrice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self {
            accelerator,
            price_set,
            term,
            provider,
            available,
        } = self;
        write!(
            f,
            "no price for '{accelerator}' in price set '{price_set}' on term '{term}'"
        )?;
        if let Some(provider) = provider {
            write!(f, " from provider '{provider}'")?;
        }
        if available.is_empty() {
            write!(f, "; the catalog has: none")
        } else {
            write!(f, "; the catalog has: {}", available.join(", "))
        }
    }
}

impl std::error::Error for NoPrice {}
