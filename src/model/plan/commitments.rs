//! A plan's `[commitments]`: how far the planner trusts the price bet the commitment layers
//! are sized on (docs/board.md, "The price bet").
//!
//! ```toml
//! [commitments]
//! price_trend_trust = 0.5   # size on half of each yearly price change; 0 holds prices
//! policy = "layers"          # buy this policy whatever the backtest chooses (default: its choice)
//! ```

use serde::{Deserialize, Serialize};

use crate::model::forecast::Policy;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommitmentsPlan {
    /// The share of each accelerator's yearly price change (the catalog's or the plan's
    /// `[[price_change]]`) the layers are sized on: 1 the whole trend, 0 prices held. The
    /// spread around it stays as it is.
    #[serde(default = "whole_trend")]
    pub price_trend_trust: f64,
    /// The policy every class buys, pinned over the one its backtest chooses (a planner who
    /// knows of growth the history cannot show pins the layers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Policy>,
}

fn whole_trend() -> f64 {
    1.0
}

impl Default for CommitmentsPlan {
    fn default() -> CommitmentsPlan {
        CommitmentsPlan {
            price_trend_trust: whole_trend(),
            policy: None,
        }
    }
}

impl CommitmentsPlan {
    pub fn problems(&self) -> Vec<(String, String)> {
        let trust = self.price_trend_trust;
        if trust.is_finite() && (0.0..=1.0).contains(&trust) {
            Vec::new()
        } else {
            vec![(
                "price_trend_trust".to_string(),
                "expected a share from 0 (prices held) to 1 (the whole trend)".to_string(),
            )]
        }
    }
}
