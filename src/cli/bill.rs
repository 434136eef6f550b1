//! `gpuplan audit --bill FILE`: a FinOps FOCUS cost export set against the audit (the BILL
//! section, and `bill` in the JSON). See docs/bill.md.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::Failure;
use crate::config::diagnostic::Diagnostic;
use crate::data::audit::AuditReport;
use crate::data::focus::{BillFile, FocusError, read_focus};
use crate::model::bill::{BillCluster, BillMatcher, BillReport, Cost, bill_report};
use crate::model::fleet::iso_utc;
use crate::model::plan::Plan;
use crate::present::document::{Align, Block, Section, Table};
use crate::shared::format::{pct, thousands, usd};

/// The bill beside an audit: the files read and what they sum to.
#[derive(Debug, Clone, Serialize)]
pub struct BillAudit {
    pub files: Vec<BillFile>,
    /// The `Tags` key that named clusters.
    pub tag_key: String,
    #[serde(flatten)]
    pub report: BillReport,
}

fn diagnostic(e: FocusError) -> Diagnostic {
    let key = match (e.row, e.field) {
        (Some(row), Some(field)) => Some(format!("row {row}: {field}")),
        (Some(row), None) => Some(format!("row {row}")),
        (None, field) => field,
    };
    Diagnostic {
        file: e.file,
        line: e.line.map(|l| l as usize),
        column: e.column.map(|c| c as usize),
        key,
        message: e.message,
        source_line: None,
    }
}

/// Reads the exports and sums them per cluster over the audit's window, each cluster against
/// the audit's cost of it (the plan's price × its capacity).
pub fn bill_audit(paths: &[PathBuf], plan: Option<&Plan>, audit: &AuditReport) -> Result<BillAudit, Failure> {
    let modelled: BTreeMap<String, f64> = audit
        .clusters
        .iter()
        .map(|c| (c.name.clone(), c.monthly_cost_usd))
        .collect();
    let hours_per_month = plan.map_or(crate::model::plan::HOURS_PER_MONTH, |p| p.hours_per_month);
    // A tag may name any cluster the audit or the plan knows.
    let known = modelled
        .keys()
        .cloned()
        .chain(plan.into_iter().flat_map(|p| p.clusters.iter().map(|c| c.name.clone())));
    let matcher = BillMatcher::new(plan.and_then(|p| p.bill.as_ref()), known).map_err(|problems| {
        Failure::Input(
            problems
                .into_iter()
                .map(|(key, message)| Diagnostic::file(&format!("[bill] {key}"), message))
                .collect(),
        )
    })?;
    let mut lines = Vec::new();
    let mut files = Vec::new();
    for path in paths {
        let read = read_focus(path, matcher.tag_key())
            .map_err(|errors| Failure::Input(errors.into_iter().map(diagnostic).collect()))?;
        lines.extend(read.lines);
        files.push(read.file);
    }
    let report = bill_report(
        &lines,
        audit.window.start_ms,
        audit.window.end_ms,
        hours_per_month,
        |line| matcher.assign(line),
        &modelled,
    );
    Ok(BillAudit {
        files,
        tag_key: matcher.tag_key().to_string(),
        report,
    })
}

fn gap_cells(c: &BillCluster) -> [String; 3] {
    match (c.modelled_usd_per_month, c.gap) {
        (Some(modelled), Some(gap)) => [
            usd(modelled),
            format!(
                "{}{}",
                if gap.effective_usd_per_month > 0.0 { "+" } else { "" },
                usd(gap.effective_usd_per_month)
            ),
            gap.effective_frac.map_or("-".to_string(), |f| {
                format!("{}{}", if f > 0.0 { "+" } else { "" }, pct(f))
            }),
        ],
        _ => ["-".to_string(), "-".to_string(), "-".to_string()],
    }
}

fn hours_cell(hours: Option<f64>) -> String {
    hours.map_or("-".to_string(), thousands)
}

/// The BILL section of the audit.
pub fn section(bill: &BillAudit) -> Section {
    let r = &bill.report;
    let mut inputs = Table::new(&[
        ("bill", Align::Left),
        ("format", Align::Left),
        ("FOCUS", Align::Left),
        ("lines", Align::Right),
        ("provider", Align::Left),
    ]);
    for f in &bill.files {
        let version = if f.version_columns.is_empty() {
            f.focus_version.clone()
        } else {
            format!("{} ({})", f.focus_version, f.version_columns.join(", "))
        };
        let provider_column = f
            .provider_column
            .as_deref()
            .filter(|c| !c.eq_ignore_ascii_case("ProviderName"))
            .map(|c| format!(" (as {c})"))
            .unwrap_or_default();
        inputs.row(vec![
            f.path.clone(),
            f.format.to_string(),
            version,
            thousands(f.lines as f64),
            format!("{}{provider_column}", f.providers.join(", ")),
        ]);
    }
    let rows: Vec<&BillCluster> = r.clusters.iter().chain([&r.unassigned, &r.fleet]).collect();

    let mut totals = Table::new(&[
        ("cluster", Align::Left),
        ("lines", Align::Right),
        ("billed", Align::Right),
        ("effective", Align::Right),
        ("modelled", Align::Right),
        ("gap", Align::Right),
        ("gap %", Align::Right),
        ("unused", Align::Right),
        ("GPU-h", Align::Right),
        ("resource-h", Align::Right),
    ]);
    for c in &rows {
        let [modelled, gap, gap_pct] = gap_cells(c);
        totals.row(vec![
            c.name.clone(),
            thousands(c.lines as f64),
            usd(c.per_month.total.billed_usd),
            usd(c.per_month.total.effective_usd),
            modelled,
            gap,
            gap_pct,
            usd(c.per_month.unused().effective_usd),
            hours_cell(c.gpu_hours),
            hours_cell(c.resource_hours),
        ]);
    }

    let mut kinds = Table::new(&[
        ("cluster", Align::Left),
        ("commit used", Align::Right),
        ("commit unused", Align::Right),
        ("resv used", Align::Right),
        ("resv unused", Align::Right),
        ("on-demand", Align::Right),
        ("other", Align::Right),
        ("purchase cash", Align::Right),
        ("tax", Align::Right),
        ("credit", Align::Right),
        ("adjust", Align::Right),
    ]);
    for c in &rows {
        let m = &c.per_month;
        let e = |cost: Cost| usd(cost.effective_usd);
        kinds.row(vec![
            c.name.clone(),
            e(m.commitment_used),
            e(m.commitment_unused),
            e(m.reservation_used),
            e(m.reservation_unused),
            e(m.on_demand),
            e(m.other_usage),
            usd(m.purchase.billed_usd),
            e(m.tax),
            e(m.credit),
            e(m.adjustment),
        ]);
    }

    let mut facts = vec![(
        "per month".to_string(),
        format!(
            "window total × {} / {} window hours ({} to {})",
            thousands(r.hours_per_month),
            thousands(r.window_hours),
            iso_utc(r.window_start_ms),
            iso_utc(r.window_end_ms)
        ),
    )];
    let o = &r.outside_window;
    if o.lines > 0 {
        facts.push((
            "outside window".to_string(),
            format!(
                "{} lines ({} to {}), left out: billed {}, effective {}",
                thousands(o.lines as f64),
                o.earliest_start_ms.map_or("-".to_string(), iso_utc),
                o.latest_end_ms.map_or("-".to_string(), iso_utc),
                usd(o.cost.billed_usd),
                usd(o.cost.effective_usd)
            ),
        ));
    }
    if r.fleet.prorated_lines > 0 {
        facts.push((
            "prorated".to_string(),
            format!(
                "{} lines straddle the window's edges: counted by the share of their charge period inside",
                thousands(r.fleet.prorated_lines as f64)
            ),
        ));
    }
    if r.unassigned.lines > 0 {
        facts.push((
            "unassigned".to_string(),
            format!(
                "{} lines no [bill.clusters] pattern or `{}` tag claims",
                thousands(r.unassigned.lines as f64),
                bill.tag_key
            ),
        ));
    }
    if !r.unknown_tags.is_empty() {
        let tags: Vec<String> = r
            .unknown_tags
            .iter()
            .take(5)
            .map(|(tag, n)| format!("'{}' ({n})", crate::data::error::shown(tag)))
            .collect();
        facts.push((
            "unknown tags".to_string(),
            format!("naming no cluster: {}", tags.join(", ")),
        ));
    }
    if r.fleet.lines_also_matched > 0 {
        facts.push((
            "overlap".to_string(),
            format!(
                "{} lines matched several clusters' patterns: each went to the first by name",
                thousands(r.fleet.lines_also_matched as f64)
            ),
        ));
    }
    let null_costs: u64 = bill.files.iter().map(|f| f.null_costs).sum();
    if null_costs > 0 {
        facts.push((
            "empty costs".to_string(),
            format!(
                "{} lines had an empty BilledCost or EffectiveCost, read as 0",
                thousands(null_costs as f64)
            ),
        ));
    }
    let currencies: Vec<&str> = bill
        .files
        .iter()
        .flat_map(|f| f.currencies.iter().map(String::as_str))
        .filter(|c| !c.eq_ignore_ascii_case("USD"))
        .collect();
    if !currencies.is_empty() {
        facts.push((
            "currency".to_string(),
            format!(
                "amounts in {} are shown as billed, not converted to USD",
                currencies.join(", ")
            ),
        ));
    }

    Section {
        title: "Bill (FinOps FOCUS)".into(),
        blocks: vec![
            Block::Table(inputs),
            Block::Note(
                "billed = BilledCost, cash as invoiced; effective = EffectiveCost, amortized (purchases spread over their usage)."
                    .into(),
            ),
            Block::Note("Per month; the two are never added together. gap = effective − modelled (the audit's cost/month).".into()),
            Block::Table(totals),
            Block::Note(
                "unused = commitments and capacity reservations the bill itself marks Unused. Hours are over the window.".into(),
            ),
            Block::Table(kinds),
            Block::Note("Effective per month by kind; purchases as cash (their effective cost is 0).".into()),
            Block::Facts(facts),
        ],
    }
}
