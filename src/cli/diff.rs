//! `gpuplan diff A.toml B.toml [C.toml ...]`: the inputs that differ between plans and how
//! every headline output moves against the first plan.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Failure, Format};
use crate::config::diagnostic::Diagnostic;
use crate::config::plan_file::read_plan;
use crate::model::catalog::Catalog;
use crate::model::compare::{Delta, InputDifference, OutputComparison, OutputUnit, PlanComparison};
use crate::pipeline::sources::Sources;
use crate::present::document::{Align, Block, Document, Section, Table, render_markdown, render_text};
use crate::shared::format::{pct, si, signed_fixed, thousands, usd, usd_compact};

#[derive(Serialize)]
struct JsonDiff<'a> {
    gpuplan_version: &'static str,
    #[serde(flatten)]
    comparison: &'a PlanComparison,
}

pub fn run(catalog: &Catalog, files: &[PathBuf], logs: &[PathBuf], format: Format) -> Result<(), Failure> {
    let mut plans = Vec::new();
    let mut problems = Vec::new();
    for file in files {
        match read_plan(file, catalog) {
            Ok(plan) => plans.push((file.display().to_string(), plan)),
            Err(diagnostics) => problems.extend(diagnostics),
        }
    }
    if !problems.is_empty() {
        return Err(Failure::Input(problems));
    }
    let logs: Vec<PathBuf> = if logs.is_empty() {
        plans
            .first()
            .map(|(_, p)| p.logs.iter().map(|l| PathBuf::from(&l.path)).collect())
            .unwrap_or_default()
    } else {
        logs.to_vec()
    };
    let sources = Sources {
        logs,
        ..Sources::default()
    };
    let compared = crate::cli::new_pipeline(catalog)
        .compare(&plans, Some(&sources))
        .map_err(super::pipeline_failure)?;
    for warning in &compared.warnings {
        eprintln!("warning: {warning}");
    }
    let comparison = compared.comparison;
    let out = match format {
        Format::Json => {
            let json = JsonDiff {
                gpuplan_version: env!("CARGO_PKG_VERSION"),
                comparison: &comparison,
            };
            serde_json::to_string_pretty(&json).map_err(|e| Diagnostic::file("diff", e.to_string()))? + "\n"
        }
        Format::Table => render_text(&document(&comparison)),
        Format::Markdown => render_markdown(&document(&comparison)),
    };
    print!("{out}");
    Ok(())
}

/// Longest input value a table cell shows; JSON has them whole.
const CELL_MAX_CHARS: usize = 40;

pub fn document(c: &PlanComparison) -> Document {
    let headers = headers(&c.labels);
    let baseline = headers.first().map_or("", String::as_str);
    let others = headers.get(1..).unwrap_or_default().join(", ");
    let plans = headers
        .iter()
        .zip(c.labels.iter().zip(&c.names))
        .enumerate()
        .map(|(i, (header, (label, name)))| {
            let role = if i == 0 { " (baseline)" } else { "" };
            (format!("{header}{role}"), format!("{name} ({label})"))
        })
        .collect();
    Document {
        title: format!("gpuplan diff: {baseline} against {others}"),
        sections: vec![
            Section {
                title: "Plans".into(),
                blocks: vec![Block::Facts(plans)],
            },
            inputs_section(c, &headers),
            outputs_section(c, &headers),
        ],
    }
}

/// Column headers: each file's name when no two plans share one, else the labels as given.
fn headers(labels: &[String]) -> Vec<String> {
    let names: Vec<String> = labels
        .iter()
        .map(|label| {
            Path::new(label)
                .file_name()
                .map_or_else(|| label.clone(), |n| n.to_string_lossy().into_owned())
        })
        .collect();
    let distinct: BTreeSet<&String> = names.iter().collect();
    if distinct.len() == names.len() {
        names
    } else {
        labels.to_vec()
    }
}

fn shown_input(value: Option<&serde_json::Value>) -> String {
    let text = match value {
        None => return "(not set)".to_string(),
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    if text.chars().count() <= CELL_MAX_CHARS {
        return text;
    }
    let kept: String = text.chars().take(CELL_MAX_CHARS - 1).collect();
    format!("{kept}…")
}

fn inputs_section(c: &PlanComparison, headers: &[String]) -> Section {
    let title = format!("Inputs that differ ({})", c.inputs.len());
    if c.inputs.is_empty() {
        return Section {
            title,
            blocks: vec![Block::Note("Every input is the same in all the plans.".into())],
        };
    }
    let mut columns = vec![("key", Align::Left)];
    columns.extend(headers.iter().map(|h| (h.as_str(), Align::Left)));
    let mut table = Table::new(&columns);
    for InputDifference { key_path, values } in &c.inputs {
        let mut cells = vec![key_path.clone()];
        cells.extend(values.iter().map(|v| shown_input(v.as_ref())));
        table.row(cells);
    }
    Section {
        title,
        blocks: vec![Block::Table(table)],
    }
}

fn outputs_section(c: &PlanComparison, headers: &[String]) -> Section {
    let delta_headers: Vec<String> = headers.iter().skip(1).map(|h| format!("Δ {h}")).collect();
    let mut columns = vec![("output", Align::Left)];
    for (i, header) in headers.iter().enumerate() {
        columns.push((header.as_str(), Align::Right));
        if let Some(header) = i.checked_sub(1).and_then(|j| delta_headers.get(j)) {
            columns.push((header.as_str(), Align::Right));
        }
    }
    let mut table = Table::new(&columns);
    for output in &c.outputs {
        table.row(output_cells(output));
    }
    Section {
        title: "Outputs".into(),
        blocks: vec![
            Block::Table(table),
            Block::Note("Δ: against the first plan, in the output's unit and in percent.".into()),
        ],
    }
}

fn output_cells(o: &OutputComparison) -> Vec<String> {
    let mut cells = vec![o.label.clone()];
    for (i, (value, delta)) in o.values.iter().zip(&o.deltas).enumerate() {
        cells.push(value.map_or("-".to_string(), |v| amount(o.unit, v)));
        if i > 0 {
            cells.push(delta.map_or("-".to_string(), |d| delta_text(o.unit, d)));
        }
    }
    cells
}

fn amount(unit: OutputUnit, value: f64) -> String {
    match unit {
        OutputUnit::Usd => usd_compact(value),
        OutputUnit::UsdPerYear => format!("{}/year", usd_compact(value)),
        OutputUnit::UsdPerMillionTokens => format!("{}/M tokens", usd(value)),
        OutputUnit::UsdPerBillionTokens => format!("{}/B tokens", usd(value)),
        OutputUnit::TokensPerMonth => format!("{}/month", si(value)),
        // + 0.0: a count or share that rounds to zero from below shows no minus.
        OutputUnit::Count => format!("{:.0}", value.round() + 0.0),
        OutputUnit::Fraction => pct(value),
        OutputUnit::GpuHours => format!("{} GPU-h", thousands(value)),
        OutputUnit::Minutes => format!("{value:.1} min"),
    }
}

fn delta_text(unit: OutputUnit, delta: Delta) -> String {
    let sign = if delta.absolute > 0.0 { "+" } else { "" };
    let absolute = format!("{sign}{}", amount(unit, delta.absolute));
    match delta.relative_pct {
        Some(pct) => format!("{absolute} ({} %)", signed_fixed(pct, 1)),
        None => absolute,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_carry_a_sign_and_a_percentage() {
        let up = Delta {
            absolute: 1.5e6,
            relative_pct: Some(12.34),
        };
        assert_eq!(delta_text(OutputUnit::Usd, up), "+$1.50M (+12.3 %)");
        let down = Delta {
            absolute: -2.0,
            relative_pct: None,
        };
        assert_eq!(delta_text(OutputUnit::Count, down), "-2");
        assert_eq!(amount(OutputUnit::TokensPerMonth, 12.5e9), "12.5B/month");
    }

    #[test]
    fn headers_are_file_names_unless_two_plans_share_one() {
        let labels = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            headers(&labels(&["a/x.toml", "b/y.toml"])),
            labels(&["x.toml", "y.toml"])
        );
        assert_eq!(
            headers(&labels(&["a/x.toml", "b/x.toml"])),
            labels(&["a/x.toml", "b/x.toml"])
        );
    }

    #[test]
    fn long_inputs_are_cut_in_tables() {
        let long = serde_json::Value::String("x".repeat(100));
        let shown = shown_input(Some(&long));
        assert_eq!(shown.chars().count(), CELL_MAX_CHARS);
        assert!(shown.ends_with('…'));
        assert_eq!(shown_input(None), "(not set)");
        assert_eq!(shown_input(Some(&serde_json::json!([0.25, 0.5]))), "[0.25,0.5]");
    }
}
