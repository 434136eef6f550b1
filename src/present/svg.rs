//! Charts as SVG files for a review, written by hand: the training cost against MFU per
//! accelerator, and each audited cluster's GPUs over time. Deterministic text (fixed palette,
//! coordinates to 0.1 px), and every piece of text escaped.

use std::fmt::Write;

use super::chart::{Axis, bucket_means};
use crate::model::fleet::ClusterAudit;
use crate::model::sensitivity::{CURVE_MFU_MAX_FRAC, CURVE_MFU_MIN_FRAC, CostCurve};
use crate::shared::format::{gpu_count, pct, thousands, usd_compact};

pub(super) const WIDTH: f64 = 820.0;
pub(super) const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// Text safe inside an element or a double-quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if c.is_control() && !matches!(c, '\n' | '\t') => {}
            c => out.push(c),
        }
    }
    out
}

/// A coordinate to 0.1 px, never `-0.0`.
pub(super) fn px(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded == 0.0 || !rounded.is_finite() {
        "0".to_string()
    } else {
        format!("{rounded:.1}")
    }
}

/// The drawing area of one chart and the axes mapped onto it.
pub(super) struct Frame {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
    x: Axis,
    y: Axis,
}

impl Frame {
    /// The chart of a panel of `height` starting at `top`, below its title, full width.
    pub(super) fn panel(top: f64, height: f64, x: Axis, y: Axis) -> Frame {
        Frame {
            left: 90.0,
            top: top + 30.0,
            width: WIDTH - 130.0,
            height: height - 80.0,
            x,
            y,
        }
    }

    /// The panel's title, in bold above its chart.
    pub(super) fn panel_title(&self, out: &mut String, text: &str) {
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" font-weight="bold">{}</text>"#,
            px(self.left),
            px(self.top - 14.0),
            escape(text)
        );
    }

    fn sx(&self, x: f64) -> f64 {
        self.left + self.x.position(x) * self.width
    }

    fn sy(&self, y: f64) -> f64 {
        self.top + (1.0 - self.y.position(y)) * self.height
    }

    fn inside(&self, (x, y): (f64, f64)) -> bool {
        x.is_finite()
            && y.is_finite()
            && (0.0..=1.0).contains(&self.x.position(x))
            && (0.0..=1.0).contains(&self.y.position(y))
    }

    /// Grid lines, axis lines and tick labels.
    pub(super) fn axes(&self, out: &mut String, x_label: impl Fn(f64) -> String, y_label: impl Fn(f64) -> String) {
        let (right, bottom) = (self.left + self.width, self.top + self.height);
        for tick in self.y.ticks() {
            let y = px(self.sy(tick));
            let _ = writeln!(
                out,
                r##"<line x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="#e0e0e0"/>"##,
                px(self.left),
                px(right)
            );
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{y}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
                px(self.left - 6.0),
                escape(&y_label(tick))
            );
        }
        for tick in self.x.ticks() {
            let x = px(self.sx(tick));
            let _ = writeln!(
                out,
                r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#333333"/>"##,
                px(bottom),
                px(bottom + 5.0)
            );
            let _ = writeln!(
                out,
                r#"<text x="{x}" y="{}" text-anchor="middle">{}</text>"#,
                px(bottom + 18.0),
                escape(&x_label(tick))
            );
        }
        let _ = writeln!(
            out,
            r##"<path d="M {} {} V {} H {}" fill="none" stroke="#333333"/>"##,
            px(self.left),
            px(self.top),
            px(bottom),
            px(right)
        );
    }

    pub(super) fn top(&self) -> f64 {
        self.top
    }

    pub(super) fn height(&self) -> f64 {
        self.height
    }

    /// A shaded band between two lines over the same x values (an interval).
    pub(super) fn band(
        &self,
        out: &mut String,
        lower: &[(f64, f64)],
        upper: &[(f64, f64)],
        colour: &str,
        opacity: f64,
    ) {
        let clamp = |(x, y): (f64, f64)| (x, y.clamp(self.y.min, self.y.max));
        let outline: Vec<String> = upper
            .iter()
            .copied()
            .chain(lower.iter().rev().copied())
            .map(clamp)
            .filter(|p| self.inside(*p))
            .map(|(x, y)| format!("{},{}", px(self.sx(x)), px(self.sy(y))))
            .collect();
        let _ = writeln!(
            out,
            r#"<polygon fill="{colour}" fill-opacity="{opacity}" stroke="none" points="{}"/>"#,
            outline.join(" ")
        );
    }

    /// A dotted vertical line at `x` across the chart.
    pub(super) fn vertical_rule(&self, out: &mut String, x: f64) {
        if !self.inside((x, self.y.min)) {
            return;
        }
        let _ = writeln!(
            out,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#555555" stroke-dasharray="2 3"/>"##,
            px(self.top),
            px(self.top + self.height),
            x = px(self.sx(x))
        );
    }

    pub(super) fn polyline(&self, out: &mut String, points: &[(f64, f64)], colour: &str) {
        let coordinates: Vec<String> = points
            .iter()
            .copied()
            .filter(|p| self.inside(*p))
            .map(|(x, y)| format!("{},{}", px(self.sx(x)), px(self.sy(y))))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
            coordinates.join(" ")
        );
    }
}

pub(super) fn open(out: &mut String, height: f64, title: &str) {
    let _ = writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#,
        w = px(WIDTH),
        h = px(height)
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(
        out,
        r#"<rect x="0" y="0" width="{}" height="{}" fill="white"/>"#,
        px(WIDTH),
        px(height)
    );
    let _ = writeln!(
        out,
        r#"<text x="{}" y="24" font-size="15" font-weight="bold">{}</text>"#,
        px(20.0),
        escape(title)
    );
}

pub(super) fn legend_entry(out: &mut String, x: f64, y: f64, colour: &str, dashed: bool, label: &str) {
    let dash = if dashed { r#" stroke-dasharray="4 3""# } else { "" };
    let _ = writeln!(
        out,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{colour}" stroke-width="2"{dash}/>"#,
        px(x),
        px(y),
        px(x + 22.0),
        px(y)
    );
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" dominant-baseline="middle">{}</text>"#,
        px(x + 28.0),
        px(y),
        escape(label)
    );
}

/// `mfu-vs-cost.svg`: one polyline per accelerator, its slider marked, the MFU thresholds as
/// dashed vertical lines, labelled axes and a legend.
pub fn cost_curves_svg(curves: &[CostCurve], mfu_rules: &[(f64, String)]) -> String {
    let legend_rows = curves.len() + usize::from(!mfu_rules.is_empty()) * (1 + mfu_rules.len());
    let height = 470.0 + 18.0 * legend_rows as f64;
    let highest = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.1).chain([c.slider.1]))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let frame = Frame {
        left: 90.0,
        top: 50.0,
        width: WIDTH - 130.0,
        height: 340.0,
        x: Axis::covering(CURVE_MFU_MIN_FRAC, CURVE_MFU_MAX_FRAC, 6),
        y: Axis::covering(0.0, highest, 5),
    };
    let mut out = String::new();
    open(&mut out, height, "Training run cost against MFU");
    frame.axes(&mut out, |x| format!("{:.0} %", x * 100.0), usd_compact);
    let bottom = frame.top + frame.height;
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle">model FLOPs utilization (MFU)</text>"#,
        px(frame.left + frame.width / 2.0),
        px(bottom + 40.0)
    );
    let _ = writeln!(
        out,
        r#"<text x="20" y="{}" transform="rotate(-90 20 {})" text-anchor="middle">run cost (USD)</text>"#,
        px(frame.top + frame.height / 2.0),
        px(frame.top + frame.height / 2.0)
    );
    for (frac, _) in mfu_rules.iter().filter(|(frac, _)| frame.inside((*frac, frame.y.min))) {
        let x = px(frame.sx(*frac));
        let _ = writeln!(
            out,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#555555" stroke-dasharray="4 3"/>"##,
            px(frame.top),
            px(bottom)
        );
        let _ = writeln!(
            out,
            r#"<text x="{x}" y="{}" text-anchor="middle" font-size="11">{}</text>"#,
            px(frame.top - 6.0),
            escape(&format!("{:.0} %", frac * 100.0))
        );
    }
    for (i, curve) in curves.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        frame.polyline(&mut out, &curve.points, colour);
        if frame.inside(curve.slider) {
            let _ = writeln!(
                out,
                r#"<circle cx="{}" cy="{}" r="5" fill="{colour}" stroke="white" stroke-width="1.5"/>"#,
                px(frame.sx(curve.slider.0)),
                px(frame.sy(curve.slider.1))
            );
        }
    }
    let mut y = bottom + 70.0;
    for (i, curve) in curves.iter().enumerate() {
        let label = format!(
            "{}: slider (dot) at {} MFU, {}",
            curve.accelerator,
            pct(curve.slider.0),
            usd_compact(curve.slider.1)
        );
        legend_entry(&mut out, frame.left, y, PALETTE[i % PALETTE.len()], false, &label);
        y += 18.0;
    }
    if !mfu_rules.is_empty() {
        legend_entry(&mut out, frame.left, y, "#555555", true, "MFU thresholds:");
        for (frac, name) in mfu_rules {
            y += 18.0;
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" dominant-baseline="middle">{}</text>"#,
                px(frame.left + 28.0),
                px(y),
                escape(&format!("{} {name}", pct(*frac)))
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

pub(super) const PANEL_HEIGHT: f64 = 260.0;

/// `utilization.svg`: for each cluster, hourly busy and utilized GPUs (averaged to the pixel)
/// against its capacity, one panel under the other.
pub fn utilization_svg(clusters: &[ClusterAudit]) -> String {
    let height = 80.0 + PANEL_HEIGHT * clusters.len() as f64;
    let mut out = String::new();
    open(&mut out, height, "GPUs over the audit window, per cluster");
    legend_entry(&mut out, 420.0, 24.0, PALETTE[0], false, "allocated");
    legend_entry(&mut out, 560.0, 24.0, PALETTE[2], false, "busy");
    legend_entry(&mut out, 680.0, 24.0, PALETTE[1], true, "capacity");
    for (i, cluster) in clusters.iter().enumerate() {
        panel(&mut out, cluster, 70.0 + PANEL_HEIGHT * i as f64);
    }
    out.push_str("</svg>\n");
    out
}

fn panel(out: &mut String, cluster: &ClusterAudit, top: f64) {
    let width = WIDTH - 130.0;
    let buckets = width as usize;
    let to_days = |points: Vec<(f64, f64)>| points.into_iter().map(|(h, v)| (h / 24.0, v)).collect::<Vec<_>>();
    let busy = to_days(bucket_means(&cluster.hourly.busy_gpus, buckets));
    let utilized = to_days(bucket_means(&cluster.hourly.utilized_gpus, buckets));
    let days = cluster.hourly.hours() / 24.0;
    let highest = busy
        .iter()
        .chain(&utilized)
        .map(|p| p.1)
        .filter(|v| v.is_finite())
        .fold(cluster.capacity_gpus, f64::max);
    let frame = Frame::panel(
        top,
        PANEL_HEIGHT,
        Axis::spanning(0.0, days, 9),
        Axis::covering(0.0, highest, 4),
    );
    frame.panel_title(
        out,
        &format!(
            "{}: capacity {} GPUs ({}), {} allocated, {} busy",
            cluster.name,
            gpu_count(cluster.capacity_gpus),
            cluster.capacity_source,
            pct(cluster.allocation_frac),
            pct(cluster.utilization_frac)
        ),
    );
    frame.axes(out, |d| format!("day {d:.0}"), thousands);
    let _ = writeln!(
        out,
        r#"<text x="20" y="{y}" transform="rotate(-90 20 {y})" text-anchor="middle">GPUs</text>"#,
        y = px(frame.top + frame.height / 2.0)
    );
    frame.polyline(out, &busy, PALETTE[0]);
    frame.polyline(out, &utilized, PALETTE[2]);
    if frame.inside((frame.x.min, cluster.capacity_gpus)) {
        let y = px(frame.sy(cluster.capacity_gpus));
        let _ = writeln!(
            out,
            r#"<line x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="{}" stroke-width="1.5" stroke-dasharray="6 4"/>"#,
            px(frame.left),
            px(frame.left + frame.width),
            PALETTE[1]
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tags open and close in order; `<?...?>` and self-closing tags stand alone.
    fn balanced(svg: &str) -> Result<usize, String> {
        let mut stack: Vec<String> = Vec::new();
        let mut elements = 0;
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let end = rest[start..].find('>').ok_or("unclosed <")? + start;
            let tag = &rest[start + 1..end];
            rest = &rest[end + 1..];
            if tag.starts_with('?') {
                continue;
            }
            if let Some(name) = tag.strip_prefix('/') {
                let open = stack.pop().ok_or(format!("</{name}> without an opening tag"))?;
                if open != name.trim() {
                    return Err(format!("<{open}> closed by </{name}>"));
                }
                continue;
            }
            elements += 1;
            let name = tag
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_end_matches('/')
                .to_string();
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        if stack.is_empty() {
            Ok(elements)
        } else {
            Err(format!("unclosed: {stack:?}"))
        }
    }

    fn curve(name: &str, scale: f64) -> CostCurve {
        CostCurve {
            accelerator: name.into(),
            points: (0..=60)
                .map(|i| (0.1 + f64::from(i) * 0.01, scale / (0.1 + f64::from(i) * 0.01)))
                .collect(),
            slider: (0.45, scale / 0.45),
        }
    }

    #[test]
    fn the_cost_chart_has_a_polyline_per_accelerator_and_escapes_names() {
        let rules = vec![
            (0.25, "floor".into()),
            (0.30, "abandon".into()),
            (0.40, "reserve".into()),
        ];
        let svg = cost_curves_svg(&[curve("a<b>&\"c\"", 1e6), curve("tpu", 2e6)], &rules);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 2);
        assert_eq!(
            svg.matches("stroke-dasharray=\"4 3\"").count(),
            3 + 1,
            "three rules and the legend"
        );
        assert!(svg.contains("a&lt;b&gt;&amp;&quot;c&quot;"), "{svg}");
        assert!(svg.contains(">40 %</text>") && svg.contains(">70 %</text>"), "{svg}");
        balanced(&svg).expect("well-formed");
        assert_eq!(
            svg,
            cost_curves_svg(&[curve("a<b>&\"c\"", 1e6), curve("tpu", 2e6)], &rules)
        );
    }

    #[test]
    fn the_checker_catches_a_mismatched_tag() {
        assert!(balanced("<svg><g></svg>").is_err());
        assert_eq!(balanced("<?xml?><svg><line/></svg>"), Ok(2));
    }

    #[test]
    fn coordinates_are_rounded_and_never_negative_zero() {
        assert_eq!(px(-0.01), "0");
        assert_eq!(px(12.345), "12.3");
        assert_eq!(px(f64::NAN), "0");
    }
}
