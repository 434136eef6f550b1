//! `waterfall.svg`: the board's waterfall as bars. Today's cost and the last computed step
//! stand on the axis; each step between floats from the previous figure to its own, green when
//! it saves, red when it costs more; a step not computed is a labelled gap.

use std::fmt::Write;

use super::svg::{WIDTH, escape, open, px};
use crate::model::waterfall::Waterfall;
use crate::shared::format::usd_compact;

const HEIGHT: f64 = 420.0;
const TOP: f64 = 60.0;
const BOTTOM: f64 = 340.0;
const LEFT: f64 = 40.0;

pub fn waterfall_svg(w: &Waterfall) -> String {
    let mut out = String::new();
    open(
        &mut out,
        HEIGHT,
        &format!(
            "From {}/month as paid to {}/month: saving {}/year",
            usd_compact(w.today_usd_per_month),
            usd_compact(w.final_usd_per_month),
            usd_compact(w.saving_usd_per_year)
        ),
    );
    let highest = w
        .steps
        .iter()
        .filter_map(|s| s.usd_per_month)
        .filter(|v| v.is_finite())
        .fold(1.0, f64::max);
    let y = |usd: f64| BOTTOM - (usd.max(0.0) / highest) * (BOTTOM - TOP);
    let slot = (WIDTH - 2.0 * LEFT) / w.steps.len().max(1) as f64;
    let bar = slot * 0.6;
    let _ = writeln!(
        out,
        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#333333"/>"##,
        px(LEFT),
        px(BOTTOM),
        px(WIDTH - LEFT),
        px(BOTTOM)
    );
    let last_index = w.steps.iter().rposition(|s| s.usd_per_month.is_some());
    let mut previous: Option<f64> = None;
    for (i, step) in w.steps.iter().enumerate() {
        let x = LEFT + slot * i as f64 + (slot - bar) / 2.0;
        let centre = x + bar / 2.0;
        let label = format!("{}. {}", i + 1, step.step.label());
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            px(centre),
            px(BOTTOM + 18.0),
            escape(&label)
        );
        let Some(value) = step.usd_per_month else {
            let _ = writeln!(
                out,
                r##"<text x="{}" y="{}" text-anchor="middle" fill="#777777">not computed</text>"##,
                px(centre),
                px(BOTTOM - 10.0)
            );
            continue;
        };
        let standing = i == 0 || Some(i) == last_index || previous.is_none();
        let (from, colour) = match previous {
            Some(before) if !standing => (before, if value <= before { "#2ca02c" } else { "#d62728" }),
            _ => (0.0, "#1f77b4"),
        };
        let (top, bottom) = (y(from.max(value)), y(from.min(value)));
        let _ = writeln!(
            out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{colour}"/>"#,
            px(x),
            px(top),
            px(bar),
            px((bottom - top).max(1.0))
        );
        let text = match step.change_usd_per_month {
            Some(change) => format!(
                "{} ({}{})",
                usd_compact(value),
                if change < 0.0 { "−" } else { "+" },
                usd_compact(change.abs())
            ),
            _ => usd_compact(value),
        };
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            px(centre),
            px(top - 6.0),
            escape(&text)
        );
        previous = Some(value);
    }
    let _ = writeln!(
        out,
        r##"<text x="{}" y="{}" fill="#555555">Each step's assumption is in the report's BOARD WATERFALL section.</text>"##,
        px(LEFT),
        px(BOTTOM + 50.0)
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::waterfall::{StepKind, WaterfallStep};

    #[test]
    fn every_step_is_drawn_and_a_missing_one_says_so() {
        let step = |kind, usd: Option<f64>| WaterfallStep {
            step: kind,
            usd_per_month: usd,
            change_usd_per_month: None,
            assumption: String::new(),
            why_not: usd.is_none().then(|| "no replay".to_string()),
        };
        let w = Waterfall {
            steps: vec![
                step(StepKind::Today, Some(100.0)),
                step(StepKind::RightSized, Some(80.0)),
                step(StepKind::TermMix, Some(60.0)),
                step(StepKind::SplitPools, None),
                step(StepKind::CheapestOffers, Some(30.0)),
            ],
            today_usd_per_month: 100.0,
            final_usd_per_month: 30.0,
            saving_usd_per_month: 70.0,
            saving_usd_per_year: 840.0,
            alternatives: Vec::new(),
            attribution: Vec::new(),
            range: None,
            tornado: Vec::new(),
            drivers: Vec::new(),
            timeline: Vec::new(),
            timing: None,
            assumed_prices: None,
            checks: Vec::new(),
        };
        let svg = waterfall_svg(&w);
        assert_eq!(svg.matches("<rect ").count(), 1 + 4, "background and four bars");
        assert!(svg.contains("not computed"));
        assert_eq!(svg.matches("#2ca02c").count(), 2, "two savings in green");
        assert!(svg.ends_with("</svg>\n"));
    }
}
