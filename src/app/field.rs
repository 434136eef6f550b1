//! The plan values the workbench edits in place: where each lives in the plan, its steps,
//! bounds and how it is typed and shown.

pub use super::cluster_field::ClusterField;
use super::error::InputError;
pub use super::forecast_field::ForecastField;
use crate::model::plan::{Plan, ReplayPlan};
use crate::model::workload::WorkloadClass;
use crate::shared::format::{pct, si, thousands, usd};

/// Where a class's pool size sits in the plan's [replay] table.
fn pool_slot(replay: &mut ReplayPlan, class: WorkloadClass) -> &mut Option<f64> {
    match class {
        WorkloadClass::Training => &mut replay.training_gpus,
        WorkloadClass::Inference => &mut replay.inference_gpus,
        WorkloadClass::Burst => &mut replay.burst_gpus,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The MFU slider of `plan.accelerators[i]`.
    Mfu(usize),
    RiskProbability(usize),
    RiskImpact(usize),
    TokensPerMonth,
    ApiUsdPer1kTokens,
    NodeUsdPerMonth,
    ThroughputTokensPerHour,
    /// The GPUs of a class's pool in the replayed split (`plan.replay`).
    ReplayPool(WorkloadClass),
    /// A value of the plan's `[forecast]`.
    Forecast(ForecastField),
    /// A value of one of the plan's `[[clusters]]`: price, capacity, term or deployment.
    Cluster(ClusterField),
}

/// How a step changes a value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    /// Adds this much (fractions: 0.005 is half a percentage point).
    Add(f64),
    /// Multiplies by (1 + this).
    Scale(f64),
}

/// Money steps by a share of itself: 5 %, or 25 %.
const MONEY_STEPS: (Step, Step) = (Step::Scale(0.05), Step::Scale(0.25));

/// The inference inputs the Inference pane lists, in order.
pub const INFERENCE_FIELDS: [Field; 4] = [
    Field::TokensPerMonth,
    Field::ApiUsdPer1kTokens,
    Field::NodeUsdPerMonth,
    Field::ThroughputTokensPerHour,
];

impl Field {
    /// The plan key path, as plan files and diagnostics spell it.
    pub fn key_path(self) -> String {
        match self {
            Field::Mfu(i) => format!("accelerators[{i}].mfu"),
            Field::RiskProbability(i) => format!("risks[{i}].probability"),
            Field::RiskImpact(i) => format!("risks[{i}].impact_usd"),
            Field::TokensPerMonth => "inference.tokens_per_month".to_string(),
            Field::ApiUsdPer1kTokens => "inference.api_usd_per_1k_tokens".to_string(),
            Field::NodeUsdPerMonth => "inference.node_usd_per_month".to_string(),
            Field::ThroughputTokensPerHour => "inference.throughput_tokens_per_hour".to_string(),
            Field::ReplayPool(class) => format!("replay.{}_gpus", class.label()),
            Field::Forecast(f) => f.key_path(),
            Field::Cluster(c) => c.key_path(),
        }
    }

    pub fn label(self, plan: &Plan) -> String {
        match self {
            Field::Mfu(i) => format!("MFU of {}", plan.accelerators.get(i).map_or("?", |a| a.id.as_str())),
            Field::RiskProbability(i) => format!(
                "probability of '{}'",
                plan.risks.get(i).map_or("?", |r| r.scenario.as_str())
            ),
            Field::RiskImpact(i) => format!("impact of '{}'", plan.risks.get(i).map_or("?", |r| r.scenario.as_str())),
            Field::TokensPerMonth => "tokens per month (today's volume)".to_string(),
            Field::ApiUsdPer1kTokens => "API price per 1k tokens".to_string(),
            Field::NodeUsdPerMonth => "node cost per month".to_string(),
            Field::ThroughputTokensPerHour => "throughput, tokens per hour".to_string(),
            Field::ReplayPool(class) => format!("GPUs of the {} pool", class.label()),
            Field::Forecast(f) => f.label(plan),
            Field::Cluster(c) => c.label(plan),
        }
    }

    pub fn get(self, plan: &Plan) -> Option<f64> {
        match self {
            Field::Mfu(i) => plan.accelerators.get(i).map(|a| a.mfu),
            Field::RiskProbability(i) => plan.risks.get(i).map(|r| r.probability),
            Field::RiskImpact(i) => plan.risks.get(i).map(|r| r.impact_usd),
            Field::TokensPerMonth => Some(plan.inference.tokens_per_month),
            Field::ApiUsdPer1kTokens => Some(plan.inference.api_usd_per_1k_tokens),
            Field::NodeUsdPerMonth => Some(plan.inference.node_usd_per_month),
            Field::ThroughputTokensPerHour => Some(plan.inference.throughput_tokens_per_hour),
            // None until the plan sizes the pool: the matcher's base stands in (App::field_value).
            Field::ReplayPool(class) => plan.replay.clone().and_then(|mut r| *pool_slot(&mut r, class)),
            // None for a growth or start the plan leaves out: the fit stands in (App::field_value).
            Field::Forecast(f) => f.get(plan),
            Field::Cluster(c) => c.get(plan),
        }
    }

    /// Sets the value, clamped to the field's bounds; false when the field no longer exists.
    pub fn set(self, plan: &mut Plan, value: f64) -> bool {
        let (low, high) = self.bounds();
        let value = value.clamp(low, high);
        if let Field::ReplayPool(class) = self {
            // Whole GPUs: a pool is bought by the GPU.
            *pool_slot(plan.replay.get_or_insert_with(ReplayPlan::default), class) = Some(value.round());
            return true;
        }
        if let Field::Forecast(f) = self {
            return f.set(plan, value);
        }
        if let Field::Cluster(c) = self {
            return c.set(plan, value);
        }
        let slot = match self {
            Field::Mfu(i) => plan.accelerators.get_mut(i).map(|a| &mut a.mfu),
            Field::RiskProbability(i) => plan.risks.get_mut(i).map(|r| &mut r.probability),
            Field::RiskImpact(i) => plan.risks.get_mut(i).map(|r| &mut r.impact_usd),
            Field::TokensPerMonth => Some(&mut plan.inference.tokens_per_month),
            Field::ApiUsdPer1kTokens => Some(&mut plan.inference.api_usd_per_1k_tokens),
            Field::NodeUsdPerMonth => Some(&mut plan.inference.node_usd_per_month),
            Field::ThroughputTokensPerHour => Some(&mut plan.inference.throughput_tokens_per_hour),
            Field::ReplayPool(_) | Field::Forecast(_) | Field::Cluster(_) => None,
        };
        match slot {
            Some(slot) => {
                // Steps land on round numbers: 45.5 %, not 45.50000000001 %.
                let rounded = (value * 1e9).round() / 1e9;
                *slot = if rounded.is_finite() && value.abs() < 1e6 {
                    rounded
                } else {
                    value
                };
                true
            }
            None => false,
        }
    }

    /// Limits far beyond any real plan, so a typo cannot overflow into `inf`.
    pub(super) fn bounds(self) -> (f64, f64) {
        match self {
            Field::Mfu(_) => (0.01, 1.0),
            Field::RiskProbability(_) => (0.0, 1.0),
            Field::RiskImpact(_) => (0.0, 1e13),
            Field::TokensPerMonth => (0.0, 1e18),
            Field::ApiUsdPer1kTokens => (0.0, 1e3),
            Field::NodeUsdPerMonth => (0.0, 1e10),
            Field::ThroughputTokensPerHour => (1.0, 1e16),
            Field::ReplayPool(_) => (0.0, 1e7),
            Field::Forecast(f) => f.bounds(),
            Field::Cluster(c) => c.bounds(),
        }
    }

    fn steps(self) -> (Step, Step) {
        match self {
            Field::Mfu(_) => (Step::Add(0.005), Step::Add(0.05)),
            Field::RiskProbability(_) => (Step::Add(0.01), Step::Add(0.10)),
            // A GPU, or a node of eight.
            Field::ReplayPool(_) => (Step::Add(1.0), Step::Add(8.0)),
            Field::Forecast(f) => {
                let (fine, coarse) = f.steps();
                (Step::Add(fine), Step::Add(coarse))
            }
            Field::Cluster(c) => match c.added_steps() {
                Some((fine, coarse)) => (Step::Add(fine), Step::Add(coarse)),
                None => MONEY_STEPS,
            },
            _ => MONEY_STEPS,
        }
    }

    /// The value after `count` fine (or coarse) steps; negative counts step down.
    pub fn stepped(self, value: f64, count: i32, coarse: bool) -> f64 {
        let (fine, big) = self.steps();
        match if coarse { big } else { fine } {
            Step::Add(by) => value + by * f64::from(count),
            Step::Scale(by) => value * (1.0 + by).powi(count),
        }
    }

    fn forecast(self) -> Option<ForecastField> {
        match self {
            Field::Forecast(f) => Some(f),
            _ => None,
        }
    }

    fn cluster(self) -> Option<ClusterField> {
        match self {
            Field::Cluster(c) => Some(c),
            _ => None,
        }
    }

    /// Values typed as something other than a plain number: dates, yes or no, factors, names.
    fn parse_special(self, text: &str) -> Option<Result<f64, InputError>> {
        self.forecast()
            .and_then(|f| f.parse_special(text))
            .or_else(|| self.cluster().and_then(|c| c.parse_choice(text)))
    }

    /// Whether typing `text` removes an optional value (empty: the fitted trend stands again).
    pub fn clears(self, text: &str) -> bool {
        self.forecast().is_some_and(|f| f.clears(text))
    }

    /// Removes an optional value; false when there was none to remove.
    pub fn clear(self, plan: &mut Plan) -> bool {
        self.forecast().is_some_and(|f| f.clear(plan))
    }

    pub fn is_fraction(self) -> bool {
        matches!(self, Field::Mfu(_) | Field::RiskProbability(_))
    }

    /// The value as the entry dialog offers it for editing: exact, with `%` on fractions so
    /// that confirming it unchanged reads back the same value.
    pub fn editable_text(self, value: f64) -> String {
        if let Field::Forecast(f) = self {
            f.editable_text(value)
        } else if let Field::Cluster(c) = self {
            c.editable_text(value)
        } else if self.is_fraction() {
            format!("{} %", (value * 100.0 * 1e9).round() / 1e9)
        } else {
            format!("{value}")
        }
    }

    /// The value as the panes show it.
    pub fn show(self, value: f64) -> String {
        match self {
            Field::Mfu(_) | Field::RiskProbability(_) => pct(value),
            Field::RiskImpact(_) | Field::NodeUsdPerMonth => usd(value),
            Field::ApiUsdPer1kTokens => format!("${value:.4}"),
            Field::TokensPerMonth | Field::ThroughputTokensPerHour => si(value),
            Field::ReplayPool(_) => format!("{} GPUs", thousands(value)),
            Field::Forecast(f) => f.show(value),
            Field::Cluster(c) => c.show(value),
        }
    }

    /// Reads what the user typed: fractions accept `47`, `47 %` or `0.47`; money accepts `$`,
    /// `,` and the suffixes k, M, B; counts accept `60e9`, `60B`, `60G`.
    pub fn parse_input(self, text: &str) -> Result<f64, InputError> {
        if let Some(read) = self.parse_special(text) {
            let value = read?;
            let (low, high) = self.bounds();
            if !(low..=high).contains(&value) {
                return Err(InputError::OutOfRange { field: self });
            }
            return Ok(value);
        }
        let cleaned: String = text
            .trim()
            .chars()
            .filter(|c| !matches!(c, '$' | ',' | '_' | ' '))
            .collect();
        let (number, percent) = match cleaned.strip_suffix('%') {
            Some(n) => (n.to_string(), true),
            None => (cleaned.clone(), false),
        };
        let (digits, multiplier) = match number.chars().last() {
            Some('k' | 'K') => (&number[..number.len() - 1], 1e3),
            Some('M') => (&number[..number.len() - 1], 1e6),
            Some('B' | 'G') => (&number[..number.len() - 1], 1e9),
            Some('T') => (&number[..number.len() - 1], 1e12),
            _ => (number.as_str(), 1.0),
        };
        let value: f64 = digits.parse::<f64>().map_err(|_| InputError::NotANumber {
            text: text.trim().to_string(),
        })? * multiplier;
        if !value.is_finite() {
            return Err(InputError::NotFinite {
                text: text.trim().to_string(),
            });
        }
        let value = if self.is_fraction() && (percent || value > 1.0) {
            value / 100.0
        } else {
            value
        };
        let (low, high) = self.bounds();
        if value < low || value > high {
            return Err(InputError::OutOfRange { field: self });
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_values_are_read_as_people_write_them() {
        let mfu = Field::Mfu(0);
        assert_eq!(mfu.parse_input("47"), Ok(0.47));
        assert_eq!(mfu.parse_input("47 %"), Ok(0.47));
        assert_eq!(mfu.parse_input("0.47"), Ok(0.47));
        assert!(mfu.parse_input("470").is_err());
        assert!(mfu.parse_input("fast").is_err());
        assert_eq!(Field::TokensPerMonth.parse_input("60B"), Ok(60e9));
        assert_eq!(Field::TokensPerMonth.parse_input("6e10"), Ok(60e9));
        assert_eq!(Field::NodeUsdPerMonth.parse_input("$80,000"), Ok(80_000.0));
        assert!(Field::NodeUsdPerMonth.parse_input("-5").is_err());
        assert!(Field::NodeUsdPerMonth.parse_input("inf").is_err());
        assert!(Field::TokensPerMonth.parse_input("1e300").is_err());
    }

    #[test]
    fn the_offered_text_reads_back_as_the_same_value() {
        for (field, value) in [
            (Field::RiskProbability(0), 0.005),
            (Field::Mfu(0), 0.01),
            (Field::Mfu(0), 0.4137),
            (Field::TokensPerMonth, 60e9),
            (Field::ApiUsdPer1kTokens, 0.0025),
        ] {
            let text = field.editable_text(value);
            let back = field.parse_input(&text).expect("reads back");
            assert!((back - value).abs() < 1e-12, "{text} -> {back}, not {value}");
        }
    }

    #[test]
    fn steps_are_fine_or_coarse_and_land_on_round_values() {
        let mfu = Field::Mfu(0);
        assert!((mfu.stepped(0.45, 1, false) - 0.455).abs() < 1e-12);
        assert!((mfu.stepped(0.45, -1, true) - 0.40).abs() < 1e-12);
        assert!((Field::TokensPerMonth.stepped(100.0, 1, false) - 105.0).abs() < 1e-9);
    }
}
