//! The board's numbers (docs/economics.md, "Board figures"): EBITDA effect of an MFU gain, risk-adjusted ROI.

/// Spend recovered when the same work runs at a higher MFU: the hours, and so the bill,
/// scale with 1 / MFU. 30 % → 50 % on $10M a year recovers $4M.
pub fn mfu_gain_recovered_usd(annual_gpu_spend_usd: f64, mfu_from_frac: f64, mfu_to_frac: f64) -> f64 {
    annual_gpu_spend_usd * (1.0 - mfu_from_frac / mfu_to_frac)
}

/// ROI = (value of the model in market − (hardware TCO + migration cost)) / capital risk of
/// lock-in. `None` when the lock-in risk is not positive: the ratio has no meaning.
pub fn risk_adjusted_roi(
    model_value_usd: f64,
    hardware_tco_usd: f64,
    migration_cost_usd: f64,
    lockin_capital_risk_usd: f64,
) -> Option<f64> {
    (lockin_capital_risk_usd > 0.0)
        .then(|| (model_value_usd - (hardware_tco_usd + migration_cost_usd)) / lockin_capital_risk_usd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_to_fifty_percent_mfu_on_ten_million_recovers_four_million() {
        let recovered = mfu_gain_recovered_usd(10e6, 0.30, 0.50);
        assert!((recovered - 4e6).abs() < 1e-6, "{recovered}");
    }

    #[test]
    fn roi_nets_costs_against_value_over_lockin_risk() {
        assert_eq!(risk_adjusted_roi(10e6, 5e6, 1e6, 2e6), Some(2.0));
        assert_eq!(risk_adjusted_roi(10e6, 5e6, 1e6, 0.0), None);
    }
}
