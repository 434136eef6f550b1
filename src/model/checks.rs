//! Rule checks: one value against one threshold, with a status and the advice.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Pass,
    Warn,
    Fail,
}

impl CheckStatus {
    pub fn label(self) -> &'static str {
        match self {
            CheckStatus::Pass => "pass",
            CheckStatus::Warn => "warn",
            CheckStatus::Fail => "fail",
        }
    }
}

/// The unit of a check's value and threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckUnit {
    Frac,
    Usd,
    Ms,
    Minutes,
    GpuHours,
    RequestsPerS,
    TokensPerMonth,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// Stable rule name, e.g. `mfu_floor`.
    pub rule: String,
    /// What the rule was applied to, e.g. an accelerator or cluster.
    pub subject: String,
    pub status: CheckStatus,
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    pub unit: CheckUnit,
    pub message: String,
}

/// Worst status over all checks; pass when there are none.
pub fn overall_status(checks: &[Check]) -> CheckStatus {
    checks.iter().map(|c| c.status).max().unwrap_or(CheckStatus::Pass)
}
