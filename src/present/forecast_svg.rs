//! `forecast.svg`: a fan chart per class. The history's daily means, then the forecast's mean
//! with its 80 % band (darker) inside its 95 % band (lighter); dotted lines at today and where
//! the data's reach ends.

use std::fmt::Write;

use super::chart::Axis;
use super::svg::{Frame, PALETTE, PANEL_HEIGHT, legend_entry, open, px};
use crate::model::forecast::{ClassForecast, ForecastReport};
use crate::shared::format::thousands;

pub fn forecast_svg(report: &ForecastReport) -> String {
    let height = 80.0 + PANEL_HEIGHT * report.classes.len() as f64;
    let mut out = String::new();
    open(
        &mut out,
        height,
        &format!(
            "GPU demand: {:.0} days of history, {} forecast",
            report.history_days, report.horizon_days
        ),
    );
    legend_entry(&mut out, 420.0, 24.0, PALETTE[7], false, "history");
    legend_entry(&mut out, 520.0, 24.0, PALETTE[0], false, "forecast, 80 % and 95 %");
    for (i, class) in report.classes.iter().enumerate() {
        panel(&mut out, class, 70.0 + PANEL_HEIGHT * i as f64);
    }
    out.push_str("</svg>\n");
    out
}

fn panel(out: &mut String, class: &ClassForecast, top: f64) {
    let f = &class.forecast;
    let past = f.history_daily_gpus.len() as f64;
    // Each day drawn at its middle; the forecast's first day follows the history's last.
    let history: Vec<(f64, f64)> = f
        .history_daily_gpus
        .iter()
        .enumerate()
        .map(|(d, &g)| (d as f64 + 0.5, g))
        .collect();
    let ahead = |get: fn(&crate::model::forecast::DailyForecast) -> f64| -> Vec<(f64, f64)> {
        f.daily
            .iter()
            .enumerate()
            .map(|(d, day)| (past + d as f64 + 0.5, get(day)))
            .collect()
    };
    let highest = f.highest_gpus().max(1.0);
    let frame = Frame::panel(
        top,
        PANEL_HEIGHT,
        Axis::spanning(0.0, (past + f.daily.len() as f64).max(1.0), 9),
        Axis::covering(0.0, highest, 4),
    );
    let mut title = format!(
        "{}: {}, history mean {} GPUs",
        class.class.label(),
        f.method.label(),
        thousands(f.history_mean_gpus)
    );
    if let Some(g) = f.growth_per_year {
        title.push_str(&format!(", growth x{g:.2} a year (the plan's)"));
    }
    frame.panel_title(out, &title);
    frame.axes(out, |d| format!("day {d:.0}"), thousands);
    let _ = writeln!(
        out,
        r#"<text x="20" y="{y}" transform="rotate(-90 20 {y})" text-anchor="middle">GPUs</text>"#,
        y = px(frame.top() + frame.height() / 2.0)
    );
    frame.band(out, &ahead(|d| d.lo95), &ahead(|d| d.hi95), PALETTE[0], 0.15);
    frame.band(out, &ahead(|d| d.lo80), &ahead(|d| d.hi80), PALETTE[0], 0.3);
    frame.polyline(out, &history, PALETTE[7]);
    frame.polyline(out, &ahead(|d| d.mean_gpus), PALETTE[0]);
    frame.vertical_rule(out, past);
    if let Some(days) = f.data_reach_ends() {
        frame.vertical_rule(out, past + f64::from(days));
    }
}
