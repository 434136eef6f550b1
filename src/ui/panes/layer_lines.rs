//! The commitment layers in the Contracts pane: under each class, the terms its forecast
//! demand is laddered on (longest first, the term billed by use last), what each locks in,
//! the first year and the horizon against today's matcher held flat, and the price bet.

use ratatui::text::Line;

use crate::app::App;
use crate::model::commitment_layers::{ClassLayers, Layer, SHOWN_FROM_GPUS, StressCase};
use crate::model::workload::WorkloadClass;
use crate::shared::format::{pct, signed_fixed, thousands, usd_compact, usd_compact_signed};
use crate::ui::theme::Theme;
use crate::ui::widgets::{flowed_fields, label, right};

/// Where a layer's line continues when the pane is too narrow for it.
const INDENT: usize = 4;

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
        vec![(format!(" layers on the forecast ({growth}):"), theme.muted)],
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
    lines.extend(flowed_fields(bet_fields(layers, theme), width, INDENT));
    lines
}

/// The price bet in a line, most telling first: the change sized on, the longest term's GPUs
/// and where it tips, what holding prices would cost against flat.
fn bet_fields(layers: &ClassLayers, theme: &Theme) -> Vec<(String, ratatui::style::Style)> {
    let bet = &layers.price_bet;
    let mut fields = vec![
        ("  bet ".to_string(), theme.muted),
        (
            format!(
                "prices {} %/yr ± {:.1}",
                signed_fixed(bet.change_per_year * 100.0, 1),
                bet.spread_per_year * 100.0
            ),
            theme.base,
        ),
    ];
    if let Some(longest) = &layers.longest_term {
        fields.push((
            format!(" · {}-mo {} GPUs", longest.months, thousands(longest.gpus)),
            theme.muted,
        ));
        if let Some(change) = layers.break_even_change_per_year {
            fields.push((
                format!(", pays above {} %/yr", signed_fixed(change * 100.0, 1)),
                theme.muted,
            ));
        }
    }
    if let Some(held) = layers.price_stress.iter().find(|s| s.case == StressCase::Held) {
        fields.push((
            format!(
                " · prices held: vs flat {}",
                usd_compact_signed(held.layers_usd - held.flat_usd)
            ),
            theme.muted,
        ));
    }
    fields
}
