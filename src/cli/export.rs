//! What `gpuplan report` exports for a review beyond its tables: the charts as text in the
//! Markdown, and as SVG files with `--svg DIR`.

use std::path::{Path, PathBuf};

use super::Failure;
use crate::config::atomic::write_atomically;
use crate::config::diagnostic::Diagnostic;
use crate::model::fleet::AuditReport;
use crate::model::sensitivity::CostCurve;
use crate::model::thresholds::Thresholds;
use crate::present::document::{Block, Section};
use crate::present::svg::{cost_curves_svg, utilization_svg};
use crate::present::text_chart::{cost_curves_chart, utilization_chart};

pub const COST_SVG: &str = "mfu-vs-cost.svg";
pub const REPLAY_SVG: &str = "replay.svg";
pub const UTILIZATION_SVG: &str = "utilization.svg";
pub const WATERFALL_SVG: &str = "waterfall.svg";

/// The MFU thresholds the cost charts draw, as the plan's thresholds set them.
pub fn mfu_rules(t: &Thresholds) -> Vec<(f64, String)> {
    vec![
        (t.mfu_floor_frac, "MFU floor (mfu_floor_frac)".into()),
        (
            t.trainium2_abandon_mfu_frac,
            "Trainium2 abandon (trainium2_abandon_mfu_frac)".into(),
        ),
        (
            t.custom_silicon_reservation_min_mfu_frac,
            "custom-silicon reservation (custom_silicon_reservation_min_mfu_frac)".into(),
        ),
    ]
}

/// The charts as text sections: the cost curves, and each audited cluster's GPUs over time.
pub fn chart_sections(curves: &[CostCurve], rules: &[(f64, String)], audit: Option<&AuditReport>) -> Vec<Section> {
    let mut sections = vec![Section {
        title: "Chart: training cost against MFU".into(),
        blocks: vec![Block::Preformatted(cost_curves_chart(curves, rules))],
    }];
    if let Some(audit) = audit.filter(|a| !a.clusters.is_empty()) {
        sections.push(Section {
            title: "Chart: utilization over time".into(),
            blocks: audit
                .clusters
                .iter()
                .map(|c| Block::Preformatted(utilization_chart(c)))
                .collect(),
        });
    }
    sections
}

/// Writes the SVG charts into `dir`, creating it; returns the files written.
pub fn write_svgs(
    dir: &Path,
    curves: &[CostCurve],
    rules: &[(f64, String)],
    audit: Option<&AuditReport>,
    replay: Option<&crate::model::split::ReplayReport>,
    waterfall: Option<&crate::model::waterfall::Waterfall>,
) -> Result<Vec<PathBuf>, Failure> {
    let shown = dir.display().to_string();
    std::fs::create_dir_all(dir)
        .map_err(|e| Diagnostic::file(&shown, format!("cannot create the folder for the SVG charts: {e}")))?;
    let mut files = vec![(dir.join(COST_SVG), cost_curves_svg(curves, rules))];
    if let Some(audit) = audit.filter(|a| !a.clusters.is_empty()) {
        files.push((dir.join(UTILIZATION_SVG), utilization_svg(&audit.clusters)));
    }
    if let Some(replay) = replay {
        files.push((dir.join(REPLAY_SVG), crate::present::replay_svg::replay_svg(replay)));
    }
    if let Some(waterfall) = waterfall {
        files.push((
            dir.join(WATERFALL_SVG),
            crate::present::waterfall_svg::waterfall_svg(waterfall),
        ));
    }
    let mut written = Vec::new();
    for (path, svg) in files {
        write_atomically(&path, svg.as_bytes())
            .map_err(|e| Diagnostic::file(&path.display().to_string(), format!("cannot write the chart: {e}")))?;
        written.push(path);
    }
    Ok(written)
}
