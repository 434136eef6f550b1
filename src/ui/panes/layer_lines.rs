//! The commitment layers in the Contracts pane: under each class, the terms its forecast
//! demand is laddered on (longest first, the term billed by use last), what each locks in,
//! the first year and the horizon against today's matcher held flat, which of the two the plan
//! recommends buying (the report's sentence), and the price bet spelled out.

use ratatui::text::Line;

use crate::app::App;
use crate::model::commitment_layers::{ClassLayers, Layer, SHOWN_FROM_GPUS, StressCase, purchase_sentence};
use crate::model::fleet_contracts::ClassContracts;
use crate::model::workload::WorkloadClass;
use crate::shared::format::{pct, signed_fixed, thousands, usd_compact, usd_compact_signed};
use crate::ui::theme::Theme;
use crate::ui::widgets::{flowed_fields, label, right, wrapped};

/// Where a layer's line continues when the pane is too narrow for it.
const INDENT: usize = 4;
/// The Contracts pane's abbreviations and units, spelled out in the help (`?`).
pub const CONTRACTS_GLOSSARY: &str = "Contracts: \"peak N X-equiv GPUs\" is the class's peak in GPUs \
of the accelerator X chosen for it (named first on the line), today's GPUs converted by delivered capability (compute, for inference memory bandwidth). \
base and burst: today's mix held flat, sized on the audited history; the board's saving prices it. \
▤: a commitment layer sized on the forecast, its GPU band, price per GPU-hour, committed dollars over its months (mo), \
the share of its GPU-hours expected idle and P(½ idle), the chance it sits more than half idle; P10–P90: on the \
forecast's 10th and 90th percentile demand paths. →: the mix the plan recommends buying and the bet it rests on, as \
the report says it. price bet: the yearly on-demand price change the layers were sized on, ± its spread; the longest \
term's GPUs and the yearly change above which it pays; \"if prices hold\": what the layers then cost against the mix held \
flat. \"today's price ×F the catalog's\": what the clusters pay today over the catalog offer the terms are scaled from.";

/// A class's peak, in GPUs of its accelerator (today's converted by delivered capability),
/// named whole at every width: the line flows rather than drop the unit.
pub fn peak_field(class: &ClassContracts) -> String {
    format!("peak {} {}-equiv GPUs", thousands(class.peak_gpus), class.accelerator)
}

fn class_layers(app: &App, class: WorkloadClass) -> Option<&ClassLayers> {
    app.forecast
        .commitments
        .as_ref()?
        .classes
        .iter()
        .find(|c| c.class == class)
}

fn band(layer: &Layer) -> String {
    format!("{}–{}", thousands(layer.from_gpus), thousands(layer.to_gpus))
}

fn layer_line(layer: &Layer, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let mut fields = vec![
        ("  ▤ ".to_string(), theme.muted),
        (label(layer.term.label(), 14), theme.base),
        (right(&band(layer), 9), theme.base),
        (
            right(&format!("{}/h", usd_compact(layer.usd_per_gpu_hour)), 8),
            theme.muted,
        ),
    ];
    // Most telling first: in a narrow pane the fields that do not fit go on to the next line.
    match layer.committed_usd {
        Some(committed) => {
            let paid = layer.expected_used_gpu_hours + layer.expected_idle_gpu_hours;
            let idle = if paid > 0.0 {
                layer.expected_idle_gpu_hours / paid
            } else {
                0.0
            };
            fields.push((format!(" {}/{} mo", usd_compact(committed), layer.months), theme.base));
            fields.push((format!(" · idle {}", pct(idle)), theme.muted));
            fields.push((
                format!(" · P(½ idle) {}", pct(layer.over_half_idle_probability)),
                theme.muted,
            ));
        }
        None => {
            fields.push((
                format!(
                    " P10–P90 {}–{}",
                    usd_compact(layer.p10_path.cost_usd),
                    usd_compact(layer.p90_path.cost_usd)
                ),
                theme.base,
            ));
            fields.push((format!(" in {} mo", layer.months), theme.muted));
        }
    }
    flowed_fields(fields, width, INDENT)
}

/// The class's layers (committed ones holding GPUs, then the term billed by use) and its
/// first year; nothing before the forecast's fits land.
pub fn layer_lines(app: &App, class: WorkloadClass, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let Some(layers) = class_layers(app, class) else {
        return Vec::new();
    };
    let growth = layers
        .growth_per_year
        .map_or("fitted trend".to_string(), |g| format!("growth ×{g:.1}/yr"));
    let mut lines = flowed_fields(
        vec![(
            format!(" chosen: {} ({growth}):", layers.chosen_by.policy.label()),
            theme.muted,
        )],
        width,
        INDENT,
    );
    lines.extend(
        layers
            .layers
            .iter()
            .filter(|l| l.committed_usd.is_none() || l.gpus >= SHOWN_FROM_GPUS)
            .flat_map(|l| layer_line(l, theme, width)),
    );
    let spans = [
        ("first year".to_string(), &layers.first_year, &layers.flat_first_year),
        (
            format!(
                "{} mo",
                app.forecast.commitments.as_ref().map_or(0, |r| r.horizon_months)
            ),
            &layers.horizon,
            &layers.flat_horizon,
        ),
    ];
    for (span, layered, flat) in spans {
        let style = if layered.expected_usd <= flat.expected_usd {
            theme.good
        } else {
            theme.bad
        };
        lines.extend(flowed_fields(
            vec![
                (format!("  {span} "), theme.muted),
                (usd_compact(layered.expected_usd), style),
                (
                    format!(
                        " (P10 {}, P90 {}) · held flat {} (P10 {})",
                        usd_compact(layered.p10_path_usd),
                        usd_compact(layered.p90_path_usd),
                        usd_compact(flat.expected_usd),
                        usd_compact(flat.p10_path_usd)
                    ),
                    theme.muted,
                ),
            ],
            width,
            INDENT,
        ));
    }
    let horizon_months = app.forecast.commitments.as_ref().map_or(0, |r| r.horizon_months);
    lines.extend(wrapped(
        &format!("  → {}", purchase_sentence(layers, horizon_months)),
        width,
        theme.base,
    ));
    lines.extend(flowed_fields(bet_fields(layers, theme), width, INDENT));
    lines
}

/// The price bet in a line, most telling first (a narrow pane drops fields from the right): the
/// yearly change sized on with its spread, the longest term's GPUs and the change where it
/// tips, what holding prices would cost against the mix held flat.
fn bet_fields(layers: &ClassLayers, theme: &Theme) -> Vec<(String, ratatui::style::Style)> {
    let bet = &layers.price_bet;
    let mut fields = vec![
        ("  price bet: ".to_string(), theme.muted),
        (
            format!(
                "{} % a year ± {:.1}",
                signed_fixed(bet.change_per_year * 100.0, 1),
                bet.spread_per_year * 100.0
            ),
            theme.base,
        ),
    ];
    if let Some(longest) = &layers.longest_term {
        fields.push((
            format!(" · {}-month term: {} GPUs", longest.months, thousands(longest.gpus)),
            theme.muted,
        ));
        if let Some(change) = layers.break_even_change_per_year {
            fields.push((
                format!(", pays above {} %", signed_fixed(change * 100.0, 1)),
                theme.muted,
            ));
        }
    }
    if let Some(held) = layers.price_stress.iter().find(|s| s.case == StressCase::Held) {
        fields.push((
            format!(
                " · if prices hold: chosen − flat {}",
                usd_compact_signed(held.layers_usd - held.flat_usd)
            ),
            theme.muted,
        ));
    }
    fields
}
