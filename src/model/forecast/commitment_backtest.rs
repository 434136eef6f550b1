//! What the commitments' backtest reports (`model::commitment_layers::backtest_commitments`
//! fills it): kept here, beside the forecast's backtest it joins, so the forecast needs nothing
//! of the commitments. Plain data.

use serde::Serialize;

use crate::model::contracts::TermKind;

/// A regret's median over the origins and its range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RegretSpread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl RegretSpread {
    /// None when no value is finite.
    pub fn of(values: &[f64]) -> Option<RegretSpread> {
        let mut finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if finite.is_empty() {
            return None;
        }
        finite.sort_by(f64::total_cmp);
        let n = finite.len();
        let median = if n % 2 == 1 {
            finite[n / 2]
        } else {
            0.5 * (finite[n / 2 - 1] + finite[n / 2])
        };
        Some(RegretSpread {
            median,
            min: finite[0],
            max: finite[n - 1],
        })
    }
}

/// GPUs a committed term holds in a ladder's first period.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermGpus {
    pub term: TermKind,
    pub offer_id: String,
    pub gpus: f64,
}

/// One origin: the policies sized on the days before it, priced on the held-out days after it
/// as they happened, with prices held on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitmentOrigin {
    /// The first held-out instant.
    pub cutoff: String,
    pub hindsight_usd: f64,
    /// Sized on the forecast fitted at the cut-off.
    pub layers_usd: f64,
    /// Today's matcher on the history before the cut-off, held flat.
    pub flat_usd: f64,
    /// Sized on seasonal naive's forecast (the last season repeated).
    pub naive_layers_usd: f64,
    /// As `layers_usd`, each term re-sized at its renewals inside the held-out days on the
    /// forecast refitted with the days seen since.
    pub redecided_usd: f64,
    /// Re-decisions made inside the held-out days.
    pub renewals: usize,
    pub layers_regret_frac: f64,
    pub flat_regret_frac: f64,
    pub naive_layers_regret_frac: f64,
    pub redecided_regret_frac: f64,
    /// What each committed term holds today: the layers' choice beside hindsight's.
    pub layers_gpus: Vec<TermGpus>,
    pub hindsight_gpus: Vec<TermGpus>,
    /// Committed dollars past the held-out days, stated, not charged (both sides alike).
    pub layers_committed_after_usd: f64,
    pub flat_committed_after_usd: f64,
    /// (the layers sized on the price bet − the layers sized with prices held), both priced
    /// on the prices dated over the held-out days, over hindsight's cost at those prices;
    /// None when no dated prices bracket them.
    pub price_bet_regret_frac: Option<f64>,
}

/// The price bet's score over the origins, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum PriceBetScore {
    Scored {
        /// The yearly change the bet expected, and the one the dated prices show over the
        /// held-out days (the median over the origins).
        expected_change_per_year: f64,
        dated_change_per_year: f64,
        regret: RegretSpread,
    },
    Unscored {
        why: String,
    },
}

/// A class's commitments backtested over rolling origins.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitmentBacktest {
    /// The accelerator the class's layers were bought on.
    pub accelerator: String,
    pub origins: usize,
    /// The demand regret, prices held on both sides: (cost − hindsight) / hindsight.
    pub layers_regret: RegretSpread,
    pub flat_regret: RegretSpread,
    pub naive_layers_regret: RegretSpread,
    pub redecided_regret: RegretSpread,
    /// Whether the layers' median demand regret is at most flat's.
    pub layers_beat_flat: bool,
    /// The price bet, scored apart.
    pub price_bet: PriceBetScore,
    pub per_origin: Vec<CommitmentOrigin>,
}
