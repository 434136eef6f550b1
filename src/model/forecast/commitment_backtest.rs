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
    /// Sized on the forecast's P10 path taken as certain: a base on what is nearly sure.
    pub low_quantile_usd: f64,
    /// Nothing committed: every hour billed by use.
    pub on_demand_usd: f64,
    /// As `layers_usd`, each term re-sized at its renewals inside the held-out days on the
    /// forecast refitted with the days seen since.
    pub redecided_usd: f64,
    /// Re-decisions made inside the held-out days.
    pub renewals: usize,
    pub layers_regret_frac: f64,
    pub flat_regret_frac: f64,
    pub naive_layers_regret_frac: f64,
    pub low_quantile_regret_frac: f64,
    pub on_demand_regret_frac: f64,
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
    pub low_quantile_regret: RegretSpread,
    pub on_demand_regret: RegretSpread,
    pub redecided_regret: RegretSpread,
    /// Whether the layers' median demand regret is at most flat's.
    pub layers_beat_flat: bool,
    /// The policy the class's purchase follows: the candidates' median demand regrets, the
    /// lowest winning (the simpler of near-ties).
    pub chosen_by: ChosenBy,
    /// The price bet, scored apart.
    pub price_bet: PriceBetScore,
    pub per_origin: Vec<CommitmentOrigin>,
}

/// A way of sizing a class's commitments, each scored on the user's own history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Nothing committed: every hour billed by use.
    OnDemand,
    /// Today's matcher's mix, sized on the history and held flat.
    Flat,
    /// The layers sized on seasonal naive's forecast (the history's last season repeated).
    NaiveLayers,
    /// The layers sized on the forecast's P10 path taken as certain.
    LowQuantile,
    /// The layers sized on the forecast's whole fan.
    Layers,
}

impl Policy {
    /// Simplest first: a near-tie goes to the earlier.
    pub const SIMPLEST_FIRST: [Policy; 5] = [
        Policy::OnDemand,
        Policy::Flat,
        Policy::NaiveLayers,
        Policy::LowQuantile,
        Policy::Layers,
    ];

    /// Its name in the JSON and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Policy::OnDemand => "on_demand",
            Policy::Flat => "flat",
            Policy::NaiveLayers => "naive_layers",
            Policy::LowQuantile => "low_quantile",
            Policy::Layers => "layers",
        }
    }

    /// What a planner buys, in words.
    pub fn label(self) -> &'static str {
        match self {
            Policy::OnDemand => "on-demand only",
            Policy::Flat => "today's mix held flat",
            Policy::NaiveLayers => "the layers on seasonal naive",
            Policy::LowQuantile => "the layers on the P10 path",
            Policy::Layers => "the commitment layers (▤)",
        }
    }
}

/// One candidate's median demand regret over the origins.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CandidateRegret {
    pub policy: Policy,
    pub median_regret: f64,
}

/// Which policy a class's purchase follows and the backtest that chose it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChosenBy {
    pub policy: Policy,
    /// Rolling origins scored (0: none, the history too short).
    pub origins: usize,
    /// Days held out after each origin.
    pub holdout_days: u32,
    /// The chosen policy's median demand regret; None when nothing was scored.
    pub median_regret: Option<f64>,
    /// Every candidate scored, simplest first.
    pub candidates: Vec<CandidateRegret>,
    /// The best of the others, and its median regret less the chosen one's (negative when a
    /// simpler policy won a near-tie).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner_up: Option<CandidateRegret>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// Why no backtest chose it (flat stands in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The policy the backtest chose, where the plan's `[commitments] policy` pins another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned_over: Option<Policy>,
    /// Where the term is far longer than the holdouts: the choice made over the term on the
    /// forecast's own paths instead (`policy` is its pick).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_term: Option<TermChoice>,
}

/// The backtest's pick held to a term far longer than its holdouts: priced over the term on
/// the forecast's own paths against today's mix held flat, which stands where the pick costs
/// more (docs/board.md, "One purchase").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermChoice {
    pub term_months: usize,
    /// What the backtest's holdouts chose (None where none chose).
    pub backtest_choice: Option<Policy>,
    /// The backtest's pick less flat, expected over the term on the forecast's paths.
    pub backtest_choice_less_flat_usd: f64,
    /// Whether the pick cost more than flat over the term, so flat stands.
    pub held_to_flat: bool,
    /// Every candidate's worst regret over the term across the paths, simplest first.
    pub candidates: Vec<PathRegret>,
}

/// One candidate over the term: its expected cost and its worst regret across the paths (what
/// it costs above the best candidate on the path where it does worst).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PathRegret {
    pub policy: Policy,
    pub expected_usd: f64,
    pub worst_regret_usd: f64,
}
