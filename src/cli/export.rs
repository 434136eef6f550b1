//! What `gpuplan report` exports for a review beyond its tables: the charts as text in the
//! Markdown, and as SVG files with `--svg DIR`.

use std::path::{Path, PathBuf};

use super::Failure;
use crate::config::atomic::write_atomically;
use crate::config::diagnostic::Diagnostic;
use crate::model::fleet::AuditReport;
use crate::model::sensitivity::CostCurve;
use crate::present::svg::{cost_curves_svg, utilization_svg};

pub const COST_SVG: &str = "mfu-vs-cost.svg";
pub const FORECAST_SVG: &str = "forecast.svg";
pub const REPLAY_SVG: &str = "replay.svg";
pub const TORNADO_SVG: &str = "tornado.svg";
pub const UTILIZATION_SVG: &str = "utilization.svg";
pub const WATERFALL_SVG: &str = "waterfall.svg";

/// Writes the SVG charts into `dir`, creating it; returns the files written.
pub fn write_svgs(
    dir: &Path,
    curves: &[CostCurve],
    rules: &[(f64, String)],
    audit: Option<&AuditReport>,
    replay: Option<&crate::model::split::ReplayReport>,
    waterfall: Option<&crate::model::waterfall::Waterfall>,
    forecast: Option<&crate::model::forecast::ForecastReport>,
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
        if waterfall.range.is_some() {
            files.push((
                dir.join(TORNADO_SVG),
                crate::present::tornado_svg::tornado_svg(waterfall),
            ));
        }
    }
    if let Some(forecast) = forecast {
        files.push((
            dir.join(FORECAST_SVG),
            crate::present::forecast_svg::forecast_svg(forecast),
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
