//! `gpuplan audit --bill FILE`: the BILL section of the audit, beside a log's audit or alone
//! (`bill` in the JSON is `pipeline::bill::Bill`). See docs/bill.md.

use crate::model::bill::{BillCluster, BillReport, BillSku, Cost, CostBreakdown, WindowBasis};
use crate::model::fleet::iso_utc;
use crate::pipeline::bill::Bill;
use crate::present::document::{Align, Block, Section, Table};
use crate::shared::format::{pct, thousands, usd};

/// SKUs listed in the text and Markdown (the JSON has them all); the rest are one row.
const SKUS_SHOWN: usize = 12;

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

/// The window's line: its span and hours, and what it is.
fn window_fact(r: &BillReport) -> String {
    let span = format!(
        "{} to {} ({} h)",
        iso_utc(r.window_start_ms),
        iso_utc(r.window_end_ms),
        thousands(r.window_hours)
    );
    match r.window_basis {
        WindowBasis::Audit => format!("{span}: the audit's"),
        WindowBasis::BillingPeriod => format!("{span}: the bill's billing period (BillingPeriodStart/End)"),
        WindowBasis::ChargePeriod => format!("{span}: the bill's charge periods (no BillingPeriodStart/End)"),
    }
}

/// The SKUs table: the largest, then the rest as one row.
fn skus_table(r: &BillReport, figures: fn(&BillSku) -> &CostBreakdown) -> Table {
    let mut table = Table::new(&[
        ("provider", Align::Left),
        ("SKU", Align::Left),
        ("lines", Align::Right),
        ("billed", Align::Right),
        ("effective", Align::Right),
        ("commit used", Align::Right),
        ("unused", Align::Right),
    ]);
    let row = |table: &mut Table, provider: String, sku: String, lines: u64, f: &CostBreakdown| {
        table.row(vec![
            provider,
            sku,
            thousands(lines as f64),
            usd(f.total.billed_usd),
            usd(f.total.effective_usd),
            usd(f.commitment_used.effective_usd),
            usd(f.unused().effective_usd),
        ]);
    };
    let text = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".to_string());
    for sku in r.skus.iter().take(SKUS_SHOWN) {
        row(
            &mut table,
            text(&sku.provider),
            text(&sku.sku_id),
            sku.lines,
            figures(sku),
        );
    }
    if let Some((count, rest)) = r.other_skus(SKUS_SHOWN) {
        row(
            &mut table,
            "-".to_string(),
            format!("{} other SKUs", thousands(count as f64)),
            rest.lines,
            figures(&rest),
        );
    }
    table
}

/// The BILL section of the audit: per month beside a log's audit, as invoiced over its own
/// billing period when read alone.
pub fn section(bill: &Bill) -> Section {
    let r = &bill.report;
    let alone = r.window_basis != WindowBasis::Audit;
    let compared = r.fleet.modelled_usd_per_month.is_some();
    let figures: fn(&BillCluster) -> &CostBreakdown = if alone { |c| &c.window } else { |c| &c.per_month };
    let sku_figures: fn(&BillSku) -> &CostBreakdown = if alone { |s| &s.window } else { |s| &s.per_month };
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

    let mut columns = vec![
        ("cluster", Align::Left),
        ("lines", Align::Right),
        ("billed", Align::Right),
        ("effective", Align::Right),
    ];
    if compared {
        columns.extend([
            ("modelled", Align::Right),
            ("gap", Align::Right),
            ("gap %", Align::Right),
        ]);
    }
    columns.extend([
        ("unused", Align::Right),
        ("GPU-h", Align::Right),
        ("resource-h", Align::Right),
    ]);
    let mut totals = Table::new(&columns);
    for c in &rows {
        let f = figures(c);
        let mut cells = vec![
            c.name.clone(),
            thousands(c.lines as f64),
            usd(f.total.billed_usd),
            usd(f.total.effective_usd),
        ];
        if compared {
            cells.extend(gap_cells(c));
        }
        cells.extend([
            usd(f.unused().effective_usd),
            hours_cell(c.gpu_hours),
            hours_cell(c.resource_hours),
        ]);
        totals.row(cells);
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
        let m = figures(c);
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

    let mut facts = vec![("window".to_string(), window_fact(r))];
    if alone {
        facts.push((
            "log".to_string(),
            "none given: the bill alone, compared with nothing (give the log of its period to compare)".to_string(),
        ));
    } else {
        facts.push((
            "per month".to_string(),
            format!(
                "window total × {} / {} window hours",
                thousands(r.hours_per_month),
                thousands(r.window_hours)
            ),
        ));
    }
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
    if r.charged_beyond_window > 0 {
        facts.push((
            "beyond window".to_string(),
            format!(
                "{} lines charge for time past the window (a term paid at once): counted whole, as invoiced",
                thousands(r.charged_beyond_window as f64)
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

    let mut blocks = vec![
        Block::Table(inputs),
        Block::Note(
            "billed = BilledCost, cash as invoiced; effective = EffectiveCost, amortized (purchases spread over their usage)."
                .into(),
        ),
    ];
    if !alone && r.fleet.lines == 0 && o.lines > 0 {
        blocks.push(Block::Note(
            "No line of the bill falls in the log's window: every figure below is 0. Give the log of the bill's \
             period, or give the bill alone (no log) to read it over its own billing period."
                .into(),
        ));
    }
    blocks.push(Block::Note(if alone {
        "Over the window, the bill's own period; the two are never added together. Per month in the JSON.".into()
    } else {
        "Per month; the two are never added together. gap = effective − modelled (the audit's cost/month).".into()
    }));
    blocks.extend([
        Block::Table(totals),
        Block::Note(
            "unused = commitments and capacity reservations the bill itself marks Unused. Hours are over the window."
                .into(),
        ),
        Block::Table(kinds),
        Block::Note(if alone {
            "Effective by kind over the window; purchases as cash (their effective cost is 0).".into()
        } else {
            "Effective per month by kind; purchases as cash (their effective cost is 0).".into()
        }),
        Block::Table(skus_table(r, sku_figures)),
        Block::Note(format!(
            "By provider and SKU, the largest first (at most {} listed; the JSON has all); commit used and unused as \
             effective.",
            SKUS_SHOWN
        )),
        Block::Facts(facts),
    ]);
    Section {
        title: "Bill (FinOps FOCUS)".into(),
        blocks,
    }
}
