//! Today's matcher's choice as a ladder: its base held at one level for the whole term and its
//! burst on the shorter term, as if the history repeated. Priced on the forecast or on what
//! happened, it is the policy the layers are measured against.

use super::ladder::{Ladder, TierMenu, TierOffer};
use crate::model::contracts::{MixRole, MixRow};

/// The matcher's best mix as a menu and ladder: its committed rows (base, then a monthly
/// burst at the history's peak) as tiers, and above them its burst term when billed by use,
/// else the class's own term billed by use (demand past the history's peak). `term_months`
/// gives each committed offer's length in months.
pub fn flat_ladder(best_mix: &[MixRow], menu: &TierMenu, term_months: impl Fn(&str) -> usize) -> (TierMenu, Ladder) {
    let mut committed: Vec<TierOffer> = Vec::new();
    let mut tops: Vec<f64> = Vec::new();
    let mut by_use = menu.by_use.clone();
    let mut level = 0.0;
    for role in [MixRole::Base, MixRole::Burst] {
        for row in best_mix.iter().filter(|r| r.role == role) {
            let offer = TierOffer {
                term: row.term,
                offer_id: row.offer_id.clone(),
                deployment: row.deployment,
                usd_per_gpu_hour: row.effective_usd_per_gpu_hour,
                term_months: if row.term.bills_by_use() {
                    0
                } else {
                    term_months(&row.offer_id).max(1)
                },
                lead_time_hours: row.lead_time_hours,
                max_gpus: None,
            };
            if row.term.bills_by_use() {
                by_use = offer;
            } else {
                level += row.gpus.max(0.0);
                committed.push(offer);
                tops.push(level);
            }
        }
    }
    let flat_menu = TierMenu {
        committed,
        by_use,
        ..menu.clone()
    };
    // One level, held every period (a ladder's last period stands for the ones after it).
    let ladder = Ladder {
        tops: tops.into_iter().map(|top| vec![top]).collect(),
    };
    (flat_menu, ladder)
}
