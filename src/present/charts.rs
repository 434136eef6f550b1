//! The charts as text sections of a document: training cost against MFU with the plan's MFU
//! rules, and each audited cluster's GPUs over time.

use crate::model::fleet::AuditReport;
use crate::model::sensitivity::CostCurve;
use crate::model::thresholds::Thresholds;
use crate::present::document::{Block, Section};
use crate::present::text_chart::{cost_curves_chart, utilization_chart};

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
