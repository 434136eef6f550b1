//! The commitments' backtest as `gpuplan backtest` prints it: per class the demand regret of
//! the layers, flat, seasonal naive's layers and the re-decided layers (median and range over
//! the origins), the price bet apart; every candidate policy's median and the one chosen; and at
//! each origin the layers chosen beside hindsight's.

use crate::model::commitment_layers::TIE_REGRET;
use crate::model::forecast::{BacktestReport, CommitmentBacktest, Policy, PriceBetScore, RegretSpread, TermGpus};
use crate::present::document::{Align, Block, Section, Table};
use crate::shared::format::{pct, signed_fixed, thousands, usd_compact};

fn regret(spread: &RegretSpread) -> String {
    format!("{} ({}–{})", pct(spread.median), pct(spread.min), pct(spread.max))
}

fn price_bet(score: &PriceBetScore) -> String {
    match score {
        PriceBetScore::Scored {
            expected_change_per_year,
            dated_change_per_year,
            regret: r,
        } => format!(
            "{} (bet {} %/yr, dated {} %/yr)",
            regret(r),
            signed_fixed(expected_change_per_year * 100.0, 1),
            signed_fixed(dated_change_per_year * 100.0, 1)
        ),
        PriceBetScore::Unscored { .. } => "unscored".to_string(),
    }
}

fn gpus_by_term(terms: &[TermGpus]) -> String {
    let held: Vec<String> = terms
        .iter()
        .filter(|t| t.gpus >= 0.5)
        .map(|t| format!("{} {}", t.term.label(), thousands(t.gpus)))
        .collect();
    if held.is_empty() {
        "none".to_string()
    } else {
        held.join(", ")
    }
}

/// The commitments' sections of the backtest; none when no class was matched.
pub fn commitment_sections(report: &BacktestReport) -> Vec<Section> {
    let mut summary = Table::new(&[
        ("class", Align::Left),
        ("accelerator", Align::Left),
        ("origins", Align::Right),
        ("layers", Align::Right),
        ("held flat", Align::Right),
        ("naive layers", Align::Right),
        ("re-decided", Align::Right),
        ("price bet", Align::Right),
    ]);
    let mut choice = Table::new(&[
        ("class", Align::Left),
        ("on-demand", Align::Right),
        ("flat", Align::Right),
        ("naive layers", Align::Right),
        ("P10 layers", Align::Right),
        ("layers", Align::Right),
        ("chosen", Align::Left),
        ("runner-up", Align::Left),
        ("margin", Align::Right),
    ]);
    let mut origins = Table::new(&[
        ("class", Align::Left),
        ("cut-off", Align::Left),
        ("layers bought", Align::Left),
        ("hindsight bought", Align::Left),
        ("layers", Align::Right),
        ("flat", Align::Right),
        ("owed after", Align::Right),
        ("flat owed", Align::Right),
    ]);
    let mut not_scored = Vec::new();
    let mut unscored_bets = Vec::new();
    let mut losing = Vec::new();
    let mut not_chosen = Vec::new();
    let scored: Vec<(&str, &CommitmentBacktest)> = report
        .classes
        .iter()
        .filter_map(|c| {
            if let Some(why) = &c.commitment_not_scored {
                not_scored.push(format!("{}: {why}", c.class.label()));
            }
            Some((c.class.label(), c.commitment.as_ref()?))
        })
        .collect();
    for (class, s) in &scored {
        summary.row(vec![
            class.to_string(),
            s.accelerator.clone(),
            s.origins.to_string(),
            regret(&s.layers_regret),
            regret(&s.flat_regret),
            regret(&s.naive_layers_regret),
            regret(&s.redecided_regret),
            price_bet(&s.price_bet),
        ]);
        if let PriceBetScore::Unscored { why } = &s.price_bet
            && !unscored_bets.contains(why)
        {
            unscored_bets.push(why.clone());
        }
        let median = |policy: Policy| {
            s.chosen_by
                .candidates
                .iter()
                .find(|c| c.policy == policy)
                .map_or("-".to_string(), |c| pct(c.median_regret))
        };
        let mut row = vec![class.to_string()];
        row.extend(Policy::SIMPLEST_FIRST.iter().map(|&p| median(p)));
        row.push(match &s.chosen_by.reason {
            Some(_) => "flat (unscored)".to_string(),
            None => s.chosen_by.policy.name().to_string(),
        });
        row.push(
            s.chosen_by
                .runner_up
                .map_or("-".to_string(), |r| r.policy.name().to_string()),
        );
        row.push(
            s.chosen_by
                .margin
                .map_or("-".to_string(), |m| format!("{} pt", signed_fixed(m * 100.0, 2))),
        );
        choice.row(row);
        if let Some(reason) = &s.chosen_by.reason {
            not_chosen.push(format!("{class}: {reason}"));
        }
        if !s.layers_beat_flat {
            losing.push(format!(
                "{class} (layers {} against flat {}, {} points)",
                pct(s.layers_regret.median),
                pct(s.flat_regret.median),
                signed_fixed((s.layers_regret.median - s.flat_regret.median) * 100.0, 2)
            ));
        }
        for o in &s.per_origin {
            origins.row(vec![
                class.to_string(),
                o.cutoff.get(..10).unwrap_or(&o.cutoff).to_string(),
                gpus_by_term(&o.layers_gpus),
                gpus_by_term(&o.hindsight_gpus),
                pct(o.layers_regret_frac),
                pct(o.flat_regret_frac),
                usd_compact(o.layers_committed_after_usd),
                usd_compact(o.flat_committed_after_usd),
            ]);
        }
    }
    if scored.is_empty() && not_scored.is_empty() {
        return Vec::new();
    }
    let mut notes = vec![format!(
        "The demand regret of each policy over the {} held-out days after each origin, (cost − hindsight) / hindsight, \
         its median and range over the origins, with prices held on both sides so only the demand bet shows. Layers: \
         sized on the forecast fitted at the cut-off; held flat: today's matcher on the history before it; naive layers: \
         sized on the last season repeated; re-decided: the layers with each term re-sized at its renewals inside the \
         held-out days on the forecast refitted with the days seen. Commitments longer than the held-out days are \
         charged for the days inside them on every side; what they still owe after is stated (owed after; flat owed for flat's). Price bet: \
         the layers sized on the expected price change against those sized with prices held, both priced on the dated \
         prices over the held-out days.",
        report.holdout_days
    )];
    if !unscored_bets.is_empty() {
        notes.push(format!("Price bet unscored: {}.", unscored_bets.join("; ")));
    }
    if !losing.is_empty() {
        notes.push(format!(
            "Layers above flat's median demand regret: {} (docs/board.md, \"When the layers lose\").",
            losing.join(", ")
        ));
    }
    if !not_scored.is_empty() {
        notes.push(format!("Not scored: {}.", not_scored.join("; ")));
    }
    let mut blocks = vec![Block::Table(summary)];
    blocks.extend(notes.into_iter().map(Block::Note));
    blocks.push(Block::Table(choice));
    let mut chosen_note = format!(
        "Each candidate's median demand regret, and the policy the purchase follows: the lowest, the simplest \
         (on-demand, flat, naive layers, P10 layers, layers) within {:.1} points of it. P10 layers: the layers sized \
         on the forecast's 10th-percentile path taken as certain. Margin: the runner-up's median less the chosen \
         one's (negative where a simpler policy won a near-tie).",
        TIE_REGRET * 100.0
    );
    if !not_chosen.is_empty() {
        chosen_note.push_str(&format!(" Flat stands in: {}.", not_chosen.join("; ")));
    }
    blocks.push(Block::Note(chosen_note));
    blocks.push(Block::Table(origins));
    blocks.push(Block::Note(
        "At each origin, what each committed term holds today: the layers' choice beside the cheapest layering knowing \
         the held-out days, and each side's demand regret."
            .into(),
    ));
    vec![Section {
        title: format!(
            "Commitments sized at each cut-off, priced on the {} days after it",
            report.holdout_days
        ),
        blocks,
    }]
}
