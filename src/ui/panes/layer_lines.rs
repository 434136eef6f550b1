//! The commitment layers in the Contracts pane: under each class, the terms its forecast
//! demand is laddered on (longest first, the term billed by use last), what each locks in,
//! and the first year against today's matcher held flat.

use ratatui::text::Line;

use crate::app::App;
use crate::model::commitment_layers::{ClassLayers, Layer, SHOWN_FROM_GPUS};
use crate::model::workload::WorkloadClass;
use crate::shared::format::{pct, thousands, usd_compact};
use crate::ui::theme::Theme;
use crate::ui::widgets::{fields_line, label, right};

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

fn layer_line(layer: &Layer, theme: &Theme, width: u16) -> Line<'static> {
    let mut fields = vec![
        ("  ▤ ".to_string(), theme.muted),
        (label(layer.term.label(), 14), theme.base),
        (right(&band(layer), 9), theme.base),
        (
            right(&format!("{}/h", usd_compact(layer.usd_per_gpu_hour)), 8),
            theme.muted,
        ),
    ];
    // Most telling first: a narrow pane drops the fields that do not fit from the right.
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
    fields_line(fields, width)
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
    let mut lines = vec![fields_line(
        vec![(format!(" layers on the forecast ({growth}):"), theme.muted)],
        width,
    )];
    lines.extend(
        layers
            .layers
            .iter()
            .filter(|l| l.committed_usd.is_none() || l.gpus >= SHOWN_FROM_GPUS)
            .map(|l| layer_line(l, theme, width)),
    );
    let year = &layers.first_year;
    let flat = &layers.flat_first_year;
    let style = if year.expected_usd <= flat.expected_usd {
        theme.good
    } else {
        theme.bad
    };
    lines.push(fields_line(
        vec![
            ("  first year ".to_string(), theme.muted),
            (usd_compact(year.expected_usd), style),
            (
                format!(
                    " (P10 {}, P90 {}) · held flat {} (P10 {})",
                    usd_compact(year.p10_path_usd),
                    usd_compact(year.p90_path_usd),
                    usd_compact(flat.expected_usd),
                    usd_compact(flat.p10_path_usd)
                ),
                theme.muted,
            ),
        ],
        width,
    ));
    lines
}
