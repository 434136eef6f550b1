//! The report's document: every number of the plan as tables, for the terminal and Markdown.

use super::charts::{chart_sections, mfu_rules};
use crate::model::checks::{Check, CheckUnit, overall_status};
use crate::model::evaluate::{Evaluation, MfuSource};
use crate::model::fleet_contracts::ContractsReport;
use crate::model::inference::Breakeven;
use crate::model::migration::MigrationBreakeven;
use crate::model::waterfall::Waterfall;
use crate::pipeline::report::{Report, ReportInput};
use crate::present::document::{Align, Block, Document, Section, Table, render_markdown, render_text};
use crate::shared::format::{delta_pct, pct, si, thousands, usd, usd_compact};

/// The report as a document: the tables of `gpuplan report`, the replay's, and in Markdown the
/// charts as text.
pub fn report_document(report: &Report, with_charts: bool) -> Document {
    let mut doc = document(
        &report.evaluation,
        &report.plan_file,
        report.contracts.as_ref(),
        report.waterfall.as_ref(),
    );
    if let Some(section) = input_warnings_section(&report.inputs) {
        doc.sections.insert(0, section);
    }
    doc.sections
        .extend(report.replay.as_ref().map(super::replay::sections).unwrap_or_default());
    if let Some(forecast) = &report.forecast {
        doc.sections
            .extend(super::forecast::forecast_sections(forecast, with_charts));
    }
    if let Some(commitments) = &report.commitments {
        doc.sections
            .extend(super::commitments::commitment_sections(commitments));
    }
    if with_charts {
        let rules = mfu_rules(&report.evaluation.thresholds);
        doc.sections
            .extend(chart_sections(&report.curves, &rules, report.audit.as_ref()));
    }
    doc
}

/// What reading the logs said, first: a report on a log that changed while read, or whose
/// runs were set aside or listed twice, says so before any figure.
fn input_warnings_section(inputs: &[ReportInput]) -> Option<Section> {
    let facts: Vec<(String, String)> = inputs
        .iter()
        .flat_map(|input| {
            input
                .reason
                .iter()
                .chain(&input.warnings)
                .map(|w| (input.path.clone(), w.clone()))
        })
        .collect();
    (!facts.is_empty()).then(|| Section {
        title: "Inputs: warnings".into(),
        blocks: vec![Block::Facts(facts)],
    })
}

/// The report as the terminal table `gpuplan report` prints.
pub fn report_text(report: &Report) -> String {
    render_text(&report_document(report, false))
}

/// The report in Markdown, with its charts as text: `gpuplan report --format markdown`, and the
/// workbench's export beside the JSON.
pub fn report_markdown(report: &Report) -> String {
    render_markdown(&report_document(report, true))
}

fn value_with_unit(value: f64, unit: CheckUnit) -> String {
    match unit {
        CheckUnit::Frac => pct(value),
        CheckUnit::Usd => usd(value),
        CheckUnit::Ms => format!("{value:.0} ms"),
        CheckUnit::Minutes => format!("{value:.0} min"),
        CheckUnit::GpuHours => format!("{} GPU-h", thousands(value)),
        CheckUnit::RequestsPerS => format!("{value:.1} req/s"),
        CheckUnit::TokensPerMonth => format!("{} tokens/mo", si(value)),
    }
}

fn check_cells(c: &Check) -> [String; 5] {
    let shown = |v: Option<f64>| v.map_or("-".to_string(), |v| value_with_unit(v, c.unit));
    [
        c.status.label().to_uppercase(),
        c.rule.clone(),
        c.subject.clone(),
        format!("{} (limit {})", shown(c.value), shown(c.threshold)),
        c.message.clone(),
    ]
}

/// One line per rule, for `gpuplan check` and logs.
pub fn check_line(c: &Check) -> String {
    let [status, rule, subject, value, message] = check_cells(c);
    format!("{status:<4}  {rule:<32} {subject:<12} {value:<30} {message}")
}

pub fn document(
    e: &Evaluation,
    plan_file: &str,
    contracts: Option<&ContractsReport>,
    waterfall: Option<&Waterfall>,
) -> Document {
    let mut sections = Vec::new();
    sections.extend(waterfall.map(super::board::waterfall_section));
    sections.extend([
        training(e),
        inference(e),
        reliability(e),
        migration_and_board(e),
        risk(e),
        super::board::contracts_section(contracts),
        recommendations(e),
        checks(e),
    ]);
    Document {
        title: format!("gpuplan report: {} ({plan_file})", e.plan),
        sections,
    }
}

fn recommendations(e: &Evaluation) -> Section {
    let mut silicon = Table::new(&[("class", Align::Left), ("silicon", Align::Left), ("why", Align::Left)]);
    for r in &e.recommendations {
        silicon.row(vec![r.class.label().to_string(), r.silicon.clone(), r.reason.clone()]);
    }
    let mut ready = Table::new(&[
        ("#", Align::Right),
        ("readiness item (seed 002)", Align::Left),
        ("status", Align::Left),
        ("", Align::Left),
    ]);
    for item in &e.readiness {
        ready.row(vec![
            item.item.to_string(),
            item.title.to_string(),
            item.status.label().to_string(),
            item.detail.clone(),
        ]);
    }
    Section {
        title: "Recommendations and readiness".into(),
        blocks: vec![Block::Table(silicon), Block::Table(ready)],
    }
}

fn training(e: &Evaluation) -> Section {
    let t = &e.training;
    let mut table = Table::new(&[
        ("accelerator", Align::Left),
        ("MFU", Align::Right),
        ("$/chip-h", Align::Right),
        ("hours", Align::Right),
        ("GPU-hours", Align::Right),
        ("cost", Align::Right),
        ("seed says", Align::Right),
        ("vs seed", Align::Right),
    ]);
    for run in &t.runs {
        let mfu = match run.mfu_source {
            MfuSource::Point => pct(run.mfu),
            MfuSource::Slider => format!("▸ {}", pct(run.mfu)),
        };
        table.row(vec![
            run.accelerator.clone(),
            mfu,
            usd(run.usd_per_chip_hour),
            thousands(run.hours),
            thousands(run.gpu_hours),
            usd_compact(run.cost_usd),
            run.reference_cost_usd.map_or(String::new(), usd_compact),
            run.reference_cost_usd
                .map_or(String::new(), |r| delta_pct(run.cost_usd, r)),
        ]);
    }
    let mut blocks = vec![
        Block::Facts(vec![(
            "training FLOPs".into(),
            format!("{:.2e} ({} with N = {} parameters, D = {} tokens) on {} chips", t.flops, t.flops_rule, si(t.model_params), si(t.tokens), thousands(f64::from(t.chips))),
        )]),
        Block::Table(table),
        Block::Note("▸ marks each accelerator's slider MFU. Cost = FLOPs / (dense peak × MFU × chips) × price × (1 + failure overhead).".into()),
    ];
    if let Some(cheapest) = t
        .runs
        .iter()
        .filter(|r| r.mfu_source == MfuSource::Slider)
        .min_by(|a, b| a.cost_usd.total_cmp(&b.cost_usd))
    {
        blocks.push(Block::Note(format!(
            "Cheapest at the sliders: {} at {} ({}).",
            cheapest.accelerator,
            usd_compact(cheapest.cost_usd),
            cheapest.price
        )));
    }
    Section {
        title: "Training".into(),
        blocks,
    }
}

fn inference(e: &Evaluation) -> Section {
    let i = &e.inference;
    let breakeven = match i.breakeven {
        Breakeven::TokensPerMonth { tokens } => format!(
            "{} tokens/month (today {}: {})",
            si(tokens),
            si(i.tokens_per_month),
            if i.tokens_per_month >= tokens {
                "self-hosting pays"
            } else {
                "the API is cheaper"
            }
        ),
        Breakeven::ApiNotDearer {
            api_usd_per_token,
            internal_usd_per_token,
        } => format!(
            "none: the API ({}/M tokens) is not dearer than our marginal cost ({}/M tokens)",
            usd(api_usd_per_token * 1e6),
            usd(internal_usd_per_token * 1e6)
        ),
    };
    let cpbt = i
        .cost_per_billion_tokens_usd
        .map_or("n/a (no tokens this month)".to_string(), |c| {
            format!(
                "{} (limit {})",
                usd(c),
                usd(e.thresholds.cpbt_max_usd_per_billion_tokens)
            )
        });
    Section {
        title: "Inference".into(),
        blocks: vec![Block::Facts(vec![
            ("accelerator".into(), i.accelerator.clone()),
            (
                "cluster".into(),
                format!(
                    "{}/month, {}/hour",
                    usd(i.cluster_usd_per_month),
                    usd(i.cluster_usd_per_hour)
                ),
            ),
            (
                "ETIC".into(),
                format!("{} per million tokens", usd(i.etic_usd_per_million_tokens)),
            ),
            ("cost per billion tokens".into(), cpbt),
            ("break-even volume".into(), breakeven),
            (
                "at today's volume".into(),
                format!(
                    "API {}/month, dedicated {}/month",
                    usd(i.api_usd_per_month_at_volume),
                    usd(i.dedicated_usd_per_month_at_volume)
                ),
            ),
            ("one-way transit".into(), transit_text(i)),
        ])],
    }
}

/// The plan's transit, or each serving location's over its top users.
fn transit_text(i: &crate::model::evaluate::InferenceReport) -> String {
    if i.transit_by_location.is_empty() {
        return format!("{:.0} ms (the plan's transit_ms)", i.transit_ms);
    }
    i.transit_by_location
        .iter()
        .map(|f| {
            format!(
                "{}{:.0} ms over {:.0} % of users",
                f.from.as_ref().map_or(String::new(), |from| format!("from {from} ")),
                f.one_way_ms,
                f.users_covered_frac * 100.0
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn reliability(e: &Evaluation) -> Section {
    let r = &e.reliability;
    Section {
        title: "Reliability".into(),
        blocks: vec![Block::Facts(vec![
            (
                "checkpoint".into(),
                format!(
                    "{:.1} min (size / write throughput gives {:.1} s)",
                    r.checkpoint_minutes, r.checkpoint_write_seconds_at_throughput
                ),
            ),
            (
                "checkpoint overhead".into(),
                format!(
                    "{} ({:.1} min every {:.0} min)",
                    pct(r.checkpoint_overhead_frac),
                    r.checkpoint_minutes,
                    r.checkpoint_interval_minutes
                ),
            ),
            (
                "share of MTBI".into(),
                format!(
                    "{} of {:.1} h (limit {})",
                    pct(r.checkpoint_share_of_mtbi),
                    r.mtbi_hours,
                    pct(e.thresholds.checkpoint_max_share_of_mtbi)
                ),
            ),
            (
                "Young/Daly interval".into(),
                format!("{:.0} min = sqrt(2 × checkpoint × MTBI)", r.optimal_interval_minutes),
            ),
            (
                "expected time lost".into(),
                format!(
                    "{} at the plan's interval, {} at Young/Daly (restore {:.1} min)",
                    pct(r.expected_lost_frac_at_interval),
                    pct(r.expected_lost_frac_at_optimal),
                    r.restore_minutes
                ),
            ),
            (
                "network wait".into(),
                format!(
                    "{} of compute time (limit {})",
                    pct(r.network_wait_frac),
                    pct(e.thresholds.network_wait_max_frac)
                ),
            ),
        ])],
    }
}

fn migration_and_board(e: &Evaluation) -> Section {
    let mut facts = Vec::new();
    if let Some(m) = &e.migration {
        let verdict = match m.breakeven {
            MigrationBreakeven::Runs { runs } => format!("pays back after {runs:.2} runs"),
            MigrationBreakeven::NeverPaysBack { saving_usd_per_run } => {
                format!(
                    "never pays back: a run on {} costs {} more",
                    m.to,
                    usd(-saving_usd_per_run)
                )
            }
        };
        facts.push((
            format!("migration {} → {}", m.from, m.to),
            format!(
                "{} of engineering; runs {} vs {}: {verdict}",
                usd(m.engineering_usd),
                usd_compact(m.from_run_usd),
                usd_compact(m.to_run_usd)
            ),
        ));
    }
    let b = &e.board;
    let gain = |spend: f64, recovered: f64| {
        format!(
            "{} → {} on {}/year recovers {}/year",
            pct(b.mfu_from_frac),
            pct(b.mfu_to_frac),
            usd_compact(spend),
            usd_compact(recovered)
        )
    };
    match &b.audited {
        Some(audited) => {
            facts.push((
                "MFU gain on the audited fleet".into(),
                gain(audited.annual_gpu_spend_usd, audited.mfu_gain_recovered_usd_per_year)
                    + " (today as paid, a year)",
            ));
            facts.push((
                "MFU gain, the plan's example".into(),
                gain(b.annual_gpu_spend_usd, b.mfu_gain_recovered_usd_per_year) + " ([board] annual_gpu_spend_usd)",
            ));
        }
        None => facts.push((
            "MFU gain".into(),
            gain(b.annual_gpu_spend_usd, b.mfu_gain_recovered_usd_per_year),
        )),
    }
    facts.push((
        "risk-adjusted ROI".into(),
        b.risk_adjusted_roi
            .map_or("n/a (set [board] roi)".to_string(), |r| format!("{r:.2}")),
    ));
    Section {
        title: "Migration and board".into(),
        blocks: vec![Block::Facts(facts)],
    }
}

fn risk(e: &Evaluation) -> Section {
    let mut table = Table::new(&[
        ("scenario", Align::Left),
        ("probability", Align::Right),
        ("impact", Align::Right),
        ("weighted", Align::Right),
        ("per", Align::Left),
        ("count", Align::Right),
        ("exposure", Align::Right),
    ]);
    for r in &e.risk.rows {
        table.row(vec![
            r.scenario.clone(),
            pct(r.probability),
            usd(r.impact_usd),
            usd(r.weighted_usd_per_unit),
            r.unit.label().to_string(),
            format!("{}", r.expected_count),
            usd(r.exposure_usd),
        ]);
    }
    Section {
        title: "Risk".into(),
        blocks: vec![Block::Table(table), Block::Facts(risk_facts(e))],
    }
}

fn risk_facts(e: &Evaluation) -> Vec<(String, String)> {
    let mut facts = vec![("weighted exposure".to_string(), usd(e.risk.weighted_exposure_usd))];
    if let Some(mc) = &e.risk.monte_carlo {
        facts.push((
            format!("total cost, {} run + risks", mc.accelerator),
            format!(
                "P50 {}  P90 {}  P99 {}  (mean {}, expected {}; {} draws, seed {})",
                usd_compact(mc.p50),
                usd_compact(mc.p90),
                usd_compact(mc.p99),
                usd_compact(mc.mean_usd),
                usd_compact(mc.expected_usd),
                thousands(mc.draws as f64),
                mc.seed
            ),
        ));
    }
    facts
}

fn checks(e: &Evaluation) -> Section {
    let mut table = Table::new(&[
        ("status", Align::Left),
        ("rule", Align::Left),
        ("subject", Align::Left),
        ("value", Align::Left),
        ("advice", Align::Left),
    ]);
    for c in &e.checks {
        table.row(check_cells(c).to_vec());
    }
    Section {
        title: format!("Checks ({})", overall_status(&e.checks).label()),
        blocks: vec![Block::Table(table)],
    }
}
