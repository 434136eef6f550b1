//! Contracts: per workload class, the cheapest mix of a committed base and a shorter burst
//! term, its commitment layers on the forecast, each pure term for comparison, and the
//! consolidated-versus-matched total for the board.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::app::{App, FleetStatus};
use crate::model::contracts::MixRole;
use crate::shared::format::{thousands, usd_compact, usd_compact_signed};
use crate::ui::scroll::ScrollWindow;
use crate::ui::theme::Theme;
use crate::ui::widgets::{fields_line, flowed_fields, label, right, wrapped};

/// Where a waterfall line's explanation continues when the width sends it to the next line:
/// under the figures' column.
const WATERFALL_INDENT: usize = 4;
/// Where the board lines' remarks continue: under their figures.
const BOARD_INDENT: usize = 21;

pub fn render(app: &App, window: &mut ScrollWindow, theme: &Theme, frame: &mut Frame, body: Rect, focused: bool) {
    let width = body.width;
    let Some(report) = &app.derived.contracts else {
        let text = match &app.fleet_status {
            FleetStatus::Working { what, .. } => format!("waiting for the audit: {what}…"),
            FleetStatus::Failed { .. } => "no audit: the logs did not load".to_string(),
            FleetStatus::Idle if app.fleet.is_some() => "no contract offers in the catalog".to_string(),
            FleetStatus::Idle => "no logs: the matching reads the audited demand".to_string(),
        };
        super::scrolled(frame, body, wrapped(&text, width, theme.muted), None, window);
        return;
    };
    // The board leads with what rests on a price nobody stated.
    // Computed once a frame: the range draws its drivers.
    let board = app.waterfall();
    let mut lines: Vec<Line<'static>> = match board.as_ref().and_then(|w| w.assumed_prices.as_ref()) {
        Some(assumed) => wrapped(&format!("⚑ {}", assumed.lead()), width, theme.warn),
        None => Vec::new(),
    };
    lines.extend(waterfall_lines(board.as_ref(), app.board_pending(), theme, width));
    if !report.fallback_price_clusters.is_empty() {
        lines.extend(wrapped(
            &format!(
                "⚑ fallback price, not in the plan: {}",
                report.fallback_price_clusters.join(", ")
            ),
            width,
            theme.warn,
        ));
    }
    lines.push(Line::raw(""));
    let mut selected_line = None;
    for (i, class) in report.classes.iter().enumerate() {
        if focused && i == app.cursors.contract_class {
            selected_line = Some(lines.len());
        }
        let title_style = if focused && i == app.cursors.contract_class {
            theme.selected
        } else {
            theme.title
        };
        let runner_up = class
            .runner_up
            .as_ref()
            .map(|r| format!(" · then {} {}", r.accelerator, usd_compact(r.cost_usd_per_month)));
        let mut title = vec![
            (format!("{} ", class.class.label()), title_style),
            (format!("{} ", class.accelerator), theme.base),
            (format!("{}/mo ", usd_compact(class.cost_usd_per_month)), theme.title),
        ];
        title.push((super::layer_lines::peak_field(class), theme.muted));
        title.extend(runner_up.map(|r| (r, theme.muted)));
        lines.extend(flowed_fields(title, width, 2));
        if let Some(p) = &class.pending {
            lines.extend(wrapped(
                &format!(
                    " ⚑ {} pending jobs, {} GPU-h: +{}/mo if served",
                    thousands(p.jobs as f64),
                    thousands(p.gpu_hours_requested),
                    usd_compact(p.extra_usd_per_month)
                ),
                width,
                theme.warn,
            ));
        }
        if let Some(line) = super::replay_lines::pool_line(
            app,
            class.class,
            focused && i == app.cursors.contract_class,
            theme,
            width,
        ) {
            lines.push(line);
        }
        for row in &class.best_mix {
            let role = match row.role {
                MixRole::Base => "base",
                MixRole::Burst => "burst",
            };
            lines.push(fields_line(
                vec![
                    (format!(" {role:<5} "), theme.muted),
                    (label(row.term.label(), 15), theme.base),
                    (label(row.deployment.label(), 10), theme.muted),
                    (right(&thousands(row.gpus), 6), theme.base),
                    (
                        right(&format!("{}/h", usd_compact(row.effective_usd_per_gpu_hour)), 9),
                        theme.muted,
                    ),
                ],
                width,
            ));
        }
        lines.extend(super::layer_lines::layer_lines(app, class.class, theme, width));
        if focused && i == app.cursors.contract_class {
            for group in &class.today_prices {
                lines.push(fields_line(
                    vec![
                        ("  today ".to_string(), theme.muted),
                        (label(&group.accelerator, 10), theme.base),
                        (
                            right(&format!("{}/mo", usd_compact(group.cost_usd_per_month)), 9),
                            theme.base,
                        ),
                        (
                            group
                                .price_factor
                                .map_or(String::new(), |f| format!(" today's price ×{f:.2} the catalog's")),
                            theme.muted,
                        ),
                    ],
                    width,
                ));
            }
            let cheapest = class.pure_terms.iter().map(|p| p.cost_usd).fold(f64::MAX, f64::min);
            for pure in &class.pure_terms {
                let style = if pure.cost_usd <= cheapest {
                    theme.good
                } else {
                    theme.muted
                };
                lines.push(fields_line(
                    vec![
                        ("  all on ".to_string(), theme.muted),
                        (label(pure.term.label(), 15), style),
                        (right(&usd_compact(pure.cost_usd), 9), style),
                    ],
                    width,
                ));
            }
            lines.extend(super::supply_lines::supply_lines(class, theme, width));
        }
    }
    for problem in &report.unmatched {
        lines.extend(wrapped(&format!("⚑ {problem}"), width, theme.warn));
    }
    lines.push(Line::styled(
        format!("demand of the audit's {:.0} days", report.window_days),
        theme.muted,
    ));
    let selected_class = report.classes.get(app.cursors.contract_class).map(|c| c.class);
    lines.extend(super::replay_lines::comparison_lines(app, selected_class, theme, width));
    super::scrolled(frame, body, lines, selected_line, window);
}

/// The waterfall, one step a line: what the fleet costs after it, the change, and its cause.
/// While `pending` names a step still running, the saving, staying and range are drawn muted
/// and say what they wait for: they will move when it lands.
fn waterfall_lines(
    board: Option<&crate::model::waterfall::Waterfall>,
    pending: Option<&str>,
    theme: &Theme,
    width: u16,
) -> Vec<Line<'static>> {
    let Some(w) = board else {
        return Vec::new();
    };
    let mut lines: Vec<Line<'static>> = w
        .steps
        .iter()
        .enumerate()
        .flat_map(|(i, step)| {
            let (cost, change) = match (step.usd_per_month, step.change_usd_per_month) {
                (Some(cost), Some(change)) => (format!("{}/mo", usd_compact(cost)), signed_compact(change)),
                (Some(cost), None) => (format!("{}/mo", usd_compact(cost)), String::new()),
                (None, _) => ("–".to_string(), String::new()),
            };
            let change_style = match step.change_usd_per_month {
                Some(c) if c < 0.0 => theme.good,
                Some(c) if c > 0.0 => theme.bad,
                _ => theme.muted,
            };
            let basis = match (&step.why_not, step.usd_per_month) {
                (Some(why), None) => why.clone(),
                (Some(why), Some(_)) => format!("{}; {why}", step.step.basis()),
                (None, _) => step.step.basis().to_string(),
            };
            flowed_fields(
                vec![
                    (format!("{} ", i + 1), theme.muted),
                    (label(step.step.label(), 19), theme.base),
                    // A figure as wide as its column keeps a space before it.
                    (spaced_right(&cost, 10), theme.title),
                    (spaced_right(&change, 9), change_style),
                    (format!("  {basis}"), theme.muted),
                ],
                width,
                WATERFALL_INDENT,
            )
        })
        .collect();
    lines.extend(flowed_fields(
        vec![
            (label("  saving", 21), theme.base),
            (
                right(&format!("{}/yr", usd_compact(w.saving_usd_per_year)), 10),
                match pending {
                    Some(_) => theme.muted,
                    None if w.saving_usd_per_year >= 0.0 => theme.good,
                    None => theme.bad,
                },
            ),
            // What moves it, and what does not: the MFU sliders price runs, not the fleet.
            match pending {
                Some(step) => (format!("  ⧗ {step}…: not final"), theme.warn),
                None => ("  growth moves it; MFU does not".to_string(), theme.muted),
            },
        ],
        width,
        BOARD_INDENT,
    ));
    lines.extend(check_lines(w, theme, width));
    if let (Some(stay), Some(adds)) = (w.alternative("stay"), w.switching_adds_usd_per_year()) {
        lines.extend(flowed_fields(
            vec![
                (label("  staying instead", 21), theme.base),
                (
                    right(&format!("{}/yr", usd_compact(stay.saving_usd_per_year)), 10),
                    if pending.is_some() { theme.muted } else { theme.title },
                ),
                (
                    format!(
                        "  today's providers, their own terms; switching adds {}/yr",
                        usd_compact(adds)
                    ),
                    theme.muted,
                ),
            ],
            width,
            BOARD_INDENT,
        ));
    }
    if let Some(range) = &w.range {
        let signed = usd_compact_signed;
        let widest: Vec<String> = w
            .tornado
            .iter()
            .take(1)
            .map(|bar| {
                format!(
                    "{} {}…{}",
                    bar.driver.replace('_', " "),
                    signed(bar.low_usd_per_year),
                    signed(bar.high_usd_per_year)
                )
            })
            .collect();
        lines.extend(flowed_fields(
            vec![
                (label("  range P10–P90", 21), theme.base),
                (
                    right(
                        &format!("{}–{}", signed(range.p10_usd_per_year), signed(range.p90_usd_per_year)),
                        10,
                    ),
                    if pending.is_some() { theme.muted } else { theme.title },
                ),
                (format!("  widest: {}", widest.join(" · ")), theme.muted),
            ],
            width,
            BOARD_INDENT,
        ));
    }
    if let Some(timing) = &w.timing {
        let first_year = usd_compact_signed(timing.first_year_saving_usd);
        lines.extend(flowed_fields(
            vec![
                (label("  first year, cash", 21), theme.base),
                (
                    right(&first_year, 10),
                    if pending.is_some() { theme.muted } else { theme.title },
                ),
                (
                    format!(
                        "  moving {} · paid back {}",
                        usd_compact(timing.moving.one_off_usd()),
                        timing.payback_month.as_deref().unwrap_or("later")
                    ),
                    theme.muted,
                ),
            ],
            width,
            BOARD_INDENT,
        ));
    }
    if !w.attribution.is_empty() {
        // The largest credits first, every one: wrapped under each other where the width ends.
        let mut credits: Vec<_> = w.attribution.iter().collect();
        credits.sort_by(|a, b| b.usd_per_year.abs().total_cmp(&a.usd_per_year.abs()));
        let mut fields = vec![(label("  by cause", 21), theme.base)];
        for (i, a) in credits.iter().enumerate() {
            let amount = usd_compact_signed(a.usd_per_year);
            let gap = if i == 0 { "" } else { " · " };
            fields.push((format!("{gap}{} {amount}", a.cause.short()), theme.muted));
        }
        lines.extend(flowed_fields(fields, width, BOARD_INDENT));
    }
    lines
}

fn signed_compact(change: f64) -> String {
    if change < 0.0 {
        format!("−{}", usd_compact(-change))
    } else {
        format!("+{}", usd_compact(change))
    }
}

/// `text` right-aligned in `width` columns, with a space before it when it fills them.
fn spaced_right(text: &str, width: usize) -> String {
    if text.chars().count() >= width {
        format!(" {text}")
    } else {
        right(text, width)
    }
}

/// The board's checks of its own conclusions beside the headline: a count when all hold, else
/// each that fails, flagged.
fn check_lines(w: &crate::model::waterfall::Waterfall, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    if w.checks.is_empty() {
        return Vec::new();
    }
    let failing: Vec<_> = w.checks.iter().filter(|c| !c.holds).collect();
    let summary = if failing.is_empty() {
        (format!("✓ all {} hold", w.checks.len()), theme.good)
    } else {
        (
            format!(
                "⚑ {} of {} fail: {}",
                failing.len(),
                w.checks.len(),
                failing
                    .iter()
                    .map(|c| c.id.replace('_', " "))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            theme.warn,
        )
    };
    let mut lines = flowed_fields(vec![(label("  checks", 21), theme.base), summary], width, BOARD_INDENT);
    for check in failing {
        lines.extend(wrapped(
            &format!("⚑ {}: {}", check.id.replace('_', " "), check.detail),
            width,
            theme.warn,
        ));
    }
    lines
}
