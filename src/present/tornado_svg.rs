//! `tornado.svg`: how far each driver alone moves the board's saving. One bar per driver, the
//! widest swing on top, from the saving at the driver's low value to the saving at its high,
//! about the point figure's line; the range's P10–P90 band behind them.

use std::fmt::Write;

use super::svg::{WIDTH, escape, open, px};
use crate::model::waterfall::Waterfall;
use crate::shared::format::usd_compact_signed as signed;

const TOP: f64 = 70.0;
const ROW: f64 = 34.0;
const LEFT: f64 = 190.0;
/// Room right of the bars for their labels.
const RIGHT: f64 = 190.0;

pub fn tornado_svg(w: &Waterfall) -> String {
    let mut out = String::new();
    let height = TOP + ROW * w.tornado.len().max(1) as f64 + 70.0;
    let title = match &w.range {
        Some(r) => format!(
            "Saving {}/year; P10 {} to P90 {} over its drivers",
            signed(w.saving_usd_per_year),
            signed(r.p10_usd_per_year),
            signed(r.p90_usd_per_year)
        ),
        None => "No saving range: no class was matched to the catalog's offers".to_string(),
    };
    open(&mut out, height, &title);
    let values: Vec<f64> = w
        .tornado
        .iter()
        .flat_map(|b| [b.low_usd_per_year, b.high_usd_per_year])
        .chain([w.saving_usd_per_year])
        .chain(w.range.iter().flat_map(|r| [r.p10_usd_per_year, r.p90_usd_per_year]))
        .filter(|v| v.is_finite())
        .collect();
    // The axis spans the savings shown, a tenth wider each side (not from zero: the bars
    // differ by millions on tens of millions).
    let lowest = values.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = ((highest - lowest) * 0.1).max(1.0);
    let (lowest, highest) = (lowest - pad, highest + pad);
    let span = (highest - lowest).max(1.0);
    let x = |usd: f64| LEFT + (usd - lowest) / span * (WIDTH - LEFT - RIGHT);
    let bottom = TOP + ROW * w.tornado.len().max(1) as f64;
    if let Some(r) = &w.range {
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#dddddd"/>"##,
            px(x(r.p10_usd_per_year)),
            px(TOP - 10.0),
            px((x(r.p90_usd_per_year) - x(r.p10_usd_per_year)).max(1.0)),
            px(bottom - TOP + 10.0)
        );
    }
    for (i, bar) in w.tornado.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let (from, to) = (
            bar.low_usd_per_year.min(bar.high_usd_per_year),
            bar.low_usd_per_year.max(bar.high_usd_per_year),
        );
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            px(LEFT - 10.0),
            px(y + ROW * 0.55),
            escape(&bar.driver.replace('_', " "))
        );
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#1f77b4"/>"##,
            px(x(from)),
            px(y + 6.0),
            px((x(to) - x(from)).max(1.0)),
            px(ROW - 12.0)
        );
        let _ = writeln!(
            out,
            r##"<text x="{}" y="{}" fill="#555555">{} … {}</text>"##,
            px(x(to) + 6.0),
            px(y + ROW * 0.55),
            escape(&signed(bar.low_usd_per_year)),
            escape(&signed(bar.high_usd_per_year))
        );
    }
    let point = x(w.saving_usd_per_year);
    let _ = writeln!(
        out,
        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#d62728" stroke-width="2"/>"##,
        px(point),
        px(TOP - 14.0),
        px(point),
        px(bottom + 4.0)
    );
    let _ = writeln!(
        out,
        r##"<text x="{}" y="{}" text-anchor="middle" fill="#d62728">point {}</text>"##,
        px(point),
        px(bottom + 22.0),
        escape(&signed(w.saving_usd_per_year))
    );
    let _ = writeln!(
        out,
        r##"<text x="{}" y="{}" fill="#555555">Bars: the saving at each driver's low … high value, the others most likely; grey: P10–P90 of all drawn together.</text>"##,
        px(20.0),
        px(bottom + 50.0)
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::saving_range::{SavingRange, TornadoBar};

    #[test]
    fn a_bar_per_driver_and_the_point_line() {
        let w = Waterfall {
            steps: Vec::new(),
            today_usd_per_month: 100.0,
            final_usd_per_month: 70.0,
            saving_usd_per_month: 30.0,
            saving_usd_per_year: 360.0,
            alternatives: Vec::new(),
            attribution: Vec::new(),
            range: Some(SavingRange {
                p10_usd_per_year: 200.0,
                p50_usd_per_year: 350.0,
                p90_usd_per_year: 450.0,
                draws: 10,
            }),
            tornado: vec![
                TornadoBar {
                    driver: "demand",
                    low_usd_per_year: 528.0,
                    high_usd_per_year: 108.0,
                },
                TornadoBar {
                    driver: "spot_preemption",
                    low_usd_per_year: 360.0,
                    high_usd_per_year: 348.0,
                },
            ],
            drivers: Vec::new(),
            timeline: Vec::new(),
            timing: None,
            assumed_prices: None,
            checks: Vec::new(),
        };
        let svg = tornado_svg(&w);
        // Background, the P10–P90 band, two bars.
        assert_eq!(svg.matches("<rect ").count(), 1 + 1 + 2);
        assert!(svg.contains("spot preemption"));
        assert!(svg.contains("point $360"));
    }
}
