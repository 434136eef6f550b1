//! Probability-weighted risk exposure (docs/economics.md, "Risk exposure").

use serde::{Deserialize, Serialize};

/// What one occurrence of a risk is counted per: the unit matters when rows are summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RiskUnit {
    Run,
    Project,
    Event,
}

impl RiskUnit {
    pub fn label(self) -> &'static str {
        match self {
            RiskUnit::Run => "run",
            RiskUnit::Project => "project",
            RiskUnit::Event => "event",
        }
    }
}

/// One scenario of the risk table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiskScenario {
    pub scenario: String,
    /// Chance of the scenario per unit, 0–1.
    pub probability: f64,
    pub impact_usd: f64,
    pub unit: RiskUnit,
    /// How many runs, projects or events the plan expects.
    #[serde(default = "one")]
    pub expected_count: f64,
}

fn one() -> f64 {
    1.0
}

impl RiskScenario {
    /// Probability × impact, per unit.
    pub fn weighted_usd_per_unit(&self) -> f64 {
        self.probability * self.impact_usd
    }

    /// Weighted exposure over the expected count of units.
    pub fn exposure_usd(&self) -> f64 {
        self.weighted_usd_per_unit() * self.expected_count
    }
}

/// Total probability-weighted exposure of a plan.
pub fn weighted_exposure_usd(scenarios: &[RiskScenario]) -> f64 {
    scenarios.iter().map(RiskScenario::exposure_usd).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(probability: f64, impact_usd: f64, unit: RiskUnit) -> RiskScenario {
        RiskScenario {
            scenario: "x".into(),
            probability,
            impact_usd,
            unit,
            expected_count: 1.0,
        }
    }

    #[test]
    fn seed_risk_table_is_reproduced() {
        let rows = [
            row(0.08, 45_000.0, RiskUnit::Run),
            row(0.15, 150_000.0, RiskUnit::Project),
            row(0.25, 12_000.0, RiskUnit::Event),
            row(0.12, 5_000.0, RiskUnit::Event),
        ];
        let weighted: Vec<f64> = rows.iter().map(RiskScenario::weighted_usd_per_unit).collect();
        for (actual, expected) in weighted.iter().zip([3_600.0, 22_500.0, 3_000.0, 600.0]) {
            assert!((actual - expected).abs() < 1e-9, "{actual} vs {expected}");
        }
        assert!((weighted_exposure_usd(&rows) - 29_700.0).abs() < 1e-9);
    }

    #[test]
    fn expected_count_multiplies_exposure() {
        let mut spot = row(0.25, 12_000.0, RiskUnit::Event);
        spot.expected_count = 6.0;
        assert!((spot.exposure_usd() - 18_000.0).abs() < 1e-9);
    }
}
