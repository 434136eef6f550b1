//! The commitment layers as `gpuplan report` prints them: per class, each layer with what it
//! locks in, the first year against today's matcher held flat, and the price changes used.

use crate::model::commitment_layers::{CommitmentReport, Layer, SHOWN_FROM_GPUS};
use crate::present::document::{Align, Block, Section, Table};
use crate::shared::format::{pct, thousands, usd_compact};

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
    let mut years = Table::new(&[
        ("class", Align::Left),
        ("first year", Align::Right),
        ("P10 path", Align::Right),
        ("P90 path", Align::Right),
        ("held flat", Align::Right),
        ("flat P10", Align::Right),
        ("flat P90", Align::Right),
    ]);
    for class in &report.classes {
        for layer in class
            .layers
            .iter()
            .filter(|l| l.committed_usd.is_none() || l.gpus >= SHOWN_FROM_GPUS)
        {
            layers.row(layer_row(class.class.label(), &class.accelerator, layer));
        }
        let (year, flat) = (&class.first_year, &class.flat_first_year);
        years.row(vec![
            class.class.label().to_string(),
            usd_compact(year.expected_usd),
            usd_compact(year.p10_path_usd),
            usd_compact(year.p90_path_usd),
            usd_compact(flat.expected_usd),
            usd_compact(flat.p10_path_usd),
            usd_compact(flat.p90_path_usd),
        ]);
    }
    let changes: Vec<(String, String)> = report
        .price_changes
        .iter()
        .map(|c| {
            (
                format!("{} prices a year on", c.accelerator),
                format!(
                    "on-demand {:+.1} %, spot {:+.1} % ({}{})",
                    c.on_demand_per_year * 100.0,
                    c.spot_per_year * 100.0,
                    // The first clause; the JSON carries the whole source.
                    c.source.split(" (").next().unwrap_or_default(),
                    c.as_of.as_deref().map(|d| format!(", {d}")).unwrap_or_default()
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
        Block::Table(years),
        Block::Note(
            "The layers' cost over the first twelve months, expected and on the P10 and P90 paths, against today's \
             matcher's mix (sized on the history, held flat) priced on the same forecast."
                .into(),
        ),
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
