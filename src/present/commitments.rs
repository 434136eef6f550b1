//! The commitments as `gpuplan report` prints them: per class, each layer of the purchase its
//! backtest chose with what it locks in, the first year against today's matcher held flat, and the price changes used.

use crate::model::commitment_layers::{
    ClassLayers, CommitmentReport, Layer, SHOWN_FROM_GPUS, TIE_REGRET, purchase_sentence,
};
use crate::present::document::{Align, Block, Section, Table};
use crate::shared::format::{pct, signed_fixed, thousands, usd_compact, usd_compact_signed};

fn layer_row(class: &str, accelerator: &str, layer: &Layer) -> Vec<String> {
    let paid = layer.expected_used_gpu_hours + layer.expected_idle_gpu_hours;
    let committed = layer.committed_usd.is_some();
    vec![
        class.to_string(),
        accelerator.to_string(),
        layer.term.label().to_string(),
        layer.offer_id.clone(),
        format!("{}–{}", thousands(layer.from_gpus), thousands(layer.to_gpus)),
        format!("${:.2}", layer.usd_per_gpu_hour),
        layer.months.to_string(),
        layer.committed_usd.map_or("by use".to_string(), usd_compact),
        if committed && paid > 0.0 {
            pct(layer.expected_idle_gpu_hours / paid)
        } else {
            "-".to_string()
        },
        if committed {
            pct(layer.over_half_idle_probability)
        } else {
            "-".to_string()
        },
        if committed {
            usd_compact(layer.p10_path.idle_usd)
        } else {
            usd_compact(layer.p10_path.cost_usd)
        },
        if committed {
            usd_compact(layer.p90_path.idle_usd)
        } else {
            usd_compact(layer.p90_path.cost_usd)
        },
    ]
}

pub fn commitment_sections(report: &CommitmentReport) -> Vec<Section> {
    let mut layers = Table::new(&[
        ("class", Align::Left),
        ("accelerator", Align::Left),
        ("term", Align::Left),
        ("offer", Align::Left),
        ("GPUs", Align::Right),
        ("price/h", Align::Right),
        ("months", Align::Right),
        ("committed", Align::Right),
        ("idle", Align::Right),
        ("P(½ idle)", Align::Right),
        ("P10 path", Align::Right),
        ("P90 path", Align::Right),
    ]);
    let mut costs = Table::new(&[
        ("class", Align::Left),
        ("over", Align::Left),
        ("chosen", Align::Right),
        ("P10 path", Align::Right),
        ("P90 path", Align::Right),
        ("held flat", Align::Right),
        ("flat P10", Align::Right),
        ("flat P90", Align::Right),
    ]);
    let mut stress = Table::new(&[
        ("class", Align::Left),
        ("prices", Align::Left),
        ("a year", Align::Right),
        ("chosen", Align::Right),
        ("held flat", Align::Right),
        ("chosen − flat", Align::Right),
    ]);
    let mut bets = Vec::new();
    let mut purchases = Vec::new();
    for class in &report.classes {
        for layer in class
            .layers
            .iter()
            .filter(|l| l.committed_usd.is_none() || l.gpus >= SHOWN_FROM_GPUS)
        {
            layers.row(layer_row(class.class.label(), &class.accelerator, layer));
        }
        let spans = [
            ("first year".to_string(), &class.first_year, &class.flat_first_year),
            (
                format!("{} months", report.horizon_months),
                &class.horizon,
                &class.flat_horizon,
            ),
        ];
        for (span, layered, flat) in spans {
            costs.row(vec![
                class.class.label().to_string(),
                span,
                usd_compact(layered.expected_usd),
                usd_compact(layered.p10_path_usd),
                usd_compact(layered.p90_path_usd),
                usd_compact(flat.expected_usd),
                usd_compact(flat.p10_path_usd),
                usd_compact(flat.p90_path_usd),
            ]);
        }
        for case in &class.price_stress {
            stress.row(vec![
                class.class.label().to_string(),
                case.case.label().to_string(),
                format!("{} %", signed_fixed(case.change_per_year * 100.0, 1)),
                usd_compact(case.layers_usd),
                usd_compact(case.flat_usd),
                usd_compact_signed(case.layers_usd - case.flat_usd),
            ]);
        }
        bets.push(bet_sentence(class));
        purchases.push(purchase_sentence(class, report.horizon_months));
    }
    let changes: Vec<(String, String)> = report
        .price_changes
        .iter()
        .map(|c| {
            (
                format!("{} prices a year on", c.accelerator),
                format!(
                    "on-demand {} %, spot {} %, ± {:.1} % ({}{}){}",
                    signed_fixed(c.on_demand_per_year * 100.0, 1),
                    signed_fixed(c.spot_per_year * 100.0, 1),
                    c.spread_per_year * 100.0,
                    // The first clause; the JSON carries the whole source.
                    c.source.split(" (").next().unwrap_or_default(),
                    c.as_of.as_deref().map(|d| format!(", {d}")).unwrap_or_default(),
                    if c.price_trend_trust < 1.0 {
                        format!("; sized on {} of it", pct(c.price_trend_trust))
                    } else {
                        String::new()
                    }
                ),
            )
        })
        .collect();
    let mut blocks = vec![
        Block::Table(layers),
        Block::Note(format!(
            "Each class's demand forecast from {} over {} months, in GPUs of the accelerator the matching chose. Each term \
             covers the band of GPUs where its price beats the next shorter term's expected cost (docs/board.md). Committed: \
             paid over its months whatever happens; idle: the share of those GPU-hours expected unused; P(½ idle): the chance \
             it is used less than half; P10/P90 path: committed dollars left idle (or, billed by use, its cost) if demand \
             follows the forecast's 10th or 90th percentile all along. Layers under half a GPU are left out; each price change's full source is in the JSON.",
            report.horizon_start, report.horizon_months
        )),
        Block::Table(costs),
        Block::Note(format!(
            "The chosen purchase's cost over the first twelve months and over the {} months it was sized for, expected \
             and on the P10 and P90 paths, against today's matcher's mix (sized on the history, held flat) priced on the same \
             forecast and the same expected prices.",
            report.horizon_months
        )),
        Block::Note(format!(
            "Recommended purchase: the policy each class's own backtest chose (the lowest median demand regret over \
             rolling origins of the history, prices held; the simplest within {:.1} points; flat where the history is too \
             short to score; `gpuplan backtest` shows every candidate). The board's saving prices the mix held flat. {}",
            TIE_REGRET * 100.0,
            purchases.join(" ")
        )),
        Block::Table(stress),
        Block::Note(format!(
            "The same purchase and mix over the {} months if prices hold, move as stated, or move twice as fast, taken as \
             certain: what the price bet is worth. {}",
            report.horizon_months,
            bets.join(" ")
        )),
        Block::Facts(changes),
    ];
    if !report.not_layered.is_empty() {
        blocks.push(Block::Note(format!("Not layered: {}.", report.not_layered.join("; "))));
    }
    vec![Section {
        title: "Commitment layers on the forecast".into(),
        blocks,
    }]
}

/// Which bet a class's layers make, in one sentence: the price change they are sized on and
/// what it does to the longest term.
pub fn bet_sentence(class: &ClassLayers) -> String {
    let bet = &class.price_bet;
    let moving = bet.text();
    let Some(longest) = &class.longest_term else {
        return format!(
            "{}: sized on {moving}; no committed term is offered.",
            capitalized(class.class.label())
        );
    };
    let holds = if longest.gpus >= SHOWN_FROM_GPUS {
        format!("holds {} GPUs", thousands(longest.gpus))
    } else {
        "is left empty".to_string()
    };
    let tips = match class.break_even_change_per_year {
        Some(change) if longest.gpus >= SHOWN_FROM_GPUS => {
            format!(
                "; it stops paying if prices fall faster than {} % a year",
                signed_fixed(change * 100.0, 1)
            )
        }
        Some(change) => format!(
            "; it would pay if prices moved above {} % a year",
            signed_fixed(change * 100.0, 1)
        ),
        None if longest.gpus >= SHOWN_FROM_GPUS => "; it pays whatever prices do".to_string(),
        None => "; it does not pay at any change from -90 % to +900 % a year".to_string(),
    };
    format!(
        "{} bets on {moving}: the {}-month {} {holds}{tips}.",
        capitalized(class.class.label()),
        longest.months,
        longest.term.label(),
    )
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}
