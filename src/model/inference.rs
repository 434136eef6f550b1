//! Inference economics (docs/economics.md, "Inference cost"): ETIC, cost per billion tokens, break-even volume.

use serde::Serialize;

const TOKENS_PER_MILLION: f64 = 1e6;
const TOKENS_PER_BILLION: f64 = 1e9;
const TOKENS_PER_THOUSAND: f64 = 1e3;

/// ETIC = C_cluster_hr × 1,000,000 / (Throughput_tokens_per_hr × (1 − Mem_fragmentation)).
pub fn etic_usd_per_million_tokens(
    cluster_usd_per_hour: f64,
    throughput_tokens_per_hour: f64,
    mem_fragmentation_frac: f64,
) -> f64 {
    cluster_usd_per_hour * TOKENS_PER_MILLION / (throughput_tokens_per_hour * (1.0 - mem_fragmentation_frac))
}

/// CPBT = (cluster monthly amortization + monthly energy) / tokens generated, in billions.
/// `None` when nothing is generated: a cost per token of zero tokens does not exist.
pub fn cost_per_billion_tokens_usd(
    cluster_usd_per_month: f64,
    energy_usd_per_month: f64,
    tokens_per_month: f64,
) -> Option<f64> {
    (tokens_per_month > 0.0)
        .then(|| (cluster_usd_per_month + energy_usd_per_month) / (tokens_per_month / TOKENS_PER_BILLION))
}

/// The break-even monthly volume against a serverless API, or why there is none.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Breakeven {
    /// Self-hosting pays from this many generated tokens a month.
    TokensPerMonth { tokens: f64 },
    /// The API costs no more per token than running our own: no volume makes the cluster pay.
    ApiNotDearer {
        api_usd_per_token: f64,
        internal_usd_per_token: f64,
    },
}

impl Breakeven {
    pub fn tokens_per_month(&self) -> Option<f64> {
        match self {
            Breakeven::TokensPerMonth { tokens } => Some(*tokens),
            Breakeven::ApiNotDearer { .. } => None,
        }
    }
}

/// Fixed monthly cost of a dedicated inference deployment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DedicatedMonthlyCost {
    pub nodes: f64,
    pub node_usd_per_month: f64,
    pub sre_usd_per_month: f64,
}

impl DedicatedMonthlyCost {
    pub fn total_usd_per_month(&self) -> f64 {
        self.nodes * self.node_usd_per_month + self.sre_usd_per_month
    }
}

/// V_be = (N_nodes × C_node_monthly + C_SRE) / (Price_API_per_token − Cost_internal_per_token).
///
/// The internal cost per token is the marginal cost of a token on our own cluster (the
/// fixed cost is the numerator); prices come per 1,000 tokens as APIs quote them.
pub fn breakeven_volume(
    fixed: DedicatedMonthlyCost,
    api_usd_per_1k_tokens: f64,
    internal_usd_per_1k_tokens: f64,
) -> Breakeven {
    let api_usd_per_token = api_usd_per_1k_tokens / TOKENS_PER_THOUSAND;
    let internal_usd_per_token = internal_usd_per_1k_tokens / TOKENS_PER_THOUSAND;
    let margin_usd_per_token = api_usd_per_token - internal_usd_per_token;
    if margin_usd_per_token <= 0.0 {
        return Breakeven::ApiNotDearer {
            api_usd_per_token,
            internal_usd_per_token,
        };
    }
    // Divide by the per-1k margin first: keeps the seed's example exact in binary floating point.
    let margin_usd_per_1k = api_usd_per_1k_tokens - internal_usd_per_1k_tokens;
    Breakeven::TokensPerMonth {
        tokens: fixed.total_usd_per_month() / margin_usd_per_1k * TOKENS_PER_THOUSAND,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_fixed_cost() -> DedicatedMonthlyCost {
        DedicatedMonthlyCost {
            nodes: 1.0,
            node_usd_per_month: 80_000.0,
            sre_usd_per_month: 20_000.0,
        }
    }

    #[test]
    fn seed_breakeven_is_exactly_12_5_billion_tokens_a_month() {
        let breakeven = breakeven_volume(seed_fixed_cost(), 0.01, 0.002);
        assert_eq!(breakeven.tokens_per_month(), Some(12.5e9));
    }

    #[test]
    fn no_breakeven_when_the_api_is_not_dearer() {
        for internal in [0.01, 0.02] {
            let breakeven = breakeven_volume(seed_fixed_cost(), 0.01, internal);
            assert_eq!(breakeven.tokens_per_month(), None, "internal {internal}");
            assert!(matches!(breakeven, Breakeven::ApiNotDearer { .. }));
        }
    }

    #[test]
    fn etic_accounts_for_fragmentation() {
        // $100/h for 10M tokens/h is $10 per million; 20 % fragmentation makes it $12.50.
        assert_eq!(etic_usd_per_million_tokens(100.0, 10e6, 0.0), 10.0);
        assert!((etic_usd_per_million_tokens(100.0, 10e6, 0.20) - 12.5).abs() < 1e-12);
    }

    #[test]
    fn cpbt_divides_monthly_cost_by_billions_of_tokens() {
        assert_eq!(cost_per_billion_tokens_usd(80_000.0, 10_000.0, 60e9), Some(1_500.0));
        assert_eq!(cost_per_billion_tokens_usd(80_000.0, 10_000.0, 0.0), None);
    }
}
