//! The demand forecast and its backtest as documents: per class the method, how far the data
//! reaches, the fan month by month and as a chart; per cluster, the start and end of the fan.

use crate::model::forecast::{
    BacktestReport, BacktestScore, Basis, ClassBacktest, ClassForecast, DailyForecast, ForecastMethod, ForecastReport,
    Selection, SeriesForecast,
};
use crate::present::document::{Align, Block, Document, Section, Table};
use crate::present::text_chart::forecast_chart;
use crate::shared::format::{pct, thousands};

/// Days in a row of the month-by-month table.
const DAYS_PER_ROW: usize = 30;

pub fn forecast_document(report: &ForecastReport) -> Document {
    Document {
        title: "gpuplan forecast".into(),
        sections: forecast_sections(report, true),
    }
}

fn gpus(value: f64) -> String {
    if value < 10.0 {
        format!("{value:.1}")
    } else {
        thousands(value)
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}

/// The method as a reader needs it: an MSTL method with its seasons, a combination with its
/// members.
pub fn method_text(method: ForecastMethod, selection: Option<&Selection>) -> String {
    match selection {
        Some(s) if method == ForecastMethod::Combination && !s.combined.is_empty() => format!(
            "mean of {}",
            s.combined
                .iter()
                .map(|m| m.label_with_seasons(&s.seasons))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(s) => method.label_with_seasons(&s.seasons),
        None => method.label().to_string(),
    }
}

/// "MAE 2.1 GPUs at 8 origins over 30 days; seasonal naive 3.4 (x0.62)".
pub fn selection_text(s: &Selection) -> String {
    let naive = match (s.seasonal_naive_mae_gpus, s.against_seasonal_naive()) {
        (Some(naive), Some(ratio)) => format!("; seasonal naive {} (x{ratio:.2})", gpus(naive)),
        (Some(naive), None) => format!("; seasonal naive {}", gpus(naive)),
        _ => String::new(),
    };
    format!(
        "MAE {} GPUs at {} origin{} over {:.0} days{naive}",
        gpus(s.mae_gpus),
        s.origins,
        if s.origins == 1 { "" } else { "s" },
        s.window_days
    )
}

fn basis_text(basis: Basis) -> &'static str {
    match basis {
        Basis::Data => "data",
        Basis::Held => "held",
        Basis::Growth => "growth",
    }
}

/// The fleet's classes, each with its facts, its months and (`with_charts`) its chart; then
/// the clusters.
pub fn forecast_sections(report: &ForecastReport, with_charts: bool) -> Vec<Section> {
    let mut sections = vec![Section {
        title: "Demand forecast".into(),
        blocks: vec![
            Block::Facts(vec![
                ("history".into(), format!("{:.1} days, to {}", report.history_days, report.horizon_start)),
                ("horizon".into(), format!("{} days", report.horizon_days)),
            ]),
            Block::Note(
                "GPUs held at once. Mean: the forecast; 80 % and 95 %: the intervals demand should fall in that often. \
                 Basis: data (the fit, as far ahead as the history is long), held (beyond: the last supported week again, no trend), \
                 growth (the plan's yearly factor in place of the fitted trend). Planned runs are included in their days."
                    .into(),
            ),
        ],
    }];
    if let Some(tail) = &report.incomplete_tail {
        sections[0]
            .blocks
            .push(Block::Note(format!("⚑ Incomplete tail: {}.", tail.said())));
    }
    for class in &report.classes {
        sections.push(class_section(class, with_charts));
    }
    if !report.planned.is_empty() {
        let mut planned = Table::new(&[
            ("run", Align::Left),
            ("class", Align::Left),
            ("GPUs", Align::Right),
            ("start", Align::Left),
            ("end", Align::Left),
        ]);
        for run in &report.planned {
            planned.row(vec![
                run.name.clone(),
                run.class.label().into(),
                gpus(run.gpus),
                run.start.clone(),
                run.end.clone(),
            ]);
        }
        sections.push(Section {
            title: "Planned runs (the plan's [training] and [[forecast.planned]])".into(),
            blocks: vec![Block::Table(planned)],
        });
    }
    if !report.accelerators.is_empty() {
        let groups = report.accelerators.iter().map(|a| {
            let name = format!("{} ({})", a.accelerator, a.clusters.join(", "));
            (name, a.classes.as_slice())
        });
        sections.push(Section {
            title: "Per accelerator (its clusters summed)".into(),
            blocks: vec![Block::Table(ends_table("accelerator", groups))],
        });
    }
    // One cluster is the fleet: its table would repeat the classes above.
    if report.clusters.len() > 1 {
        let groups = report.clusters.iter().map(|c| (c.name.clone(), c.classes.as_slice()));
        sections.push(Section {
            title: "Per cluster".into(),
            blocks: vec![Block::Table(ends_table("cluster", groups))],
        });
    }
    sections
}

/// Each group's classes: the method, the history's mean and the fan's first and last day.
fn ends_table<'a>(group: &str, groups: impl Iterator<Item = (String, &'a [ClassForecast])>) -> Table {
    let mut table = Table::new(&[
        (group, Align::Left),
        ("class", Align::Left),
        ("method", Align::Left),
        ("CV MAE", Align::Right),
        ("naive", Align::Right),
        ("history mean", Align::Right),
        ("first day", Align::Right),
        ("last day", Align::Right),
        ("last day 95 %", Align::Right),
    ]);
    for (name, classes) in groups {
        for class in classes {
            let f = &class.forecast;
            let (first, last) = (f.daily.first(), f.daily.last());
            table.row(vec![
                name.clone(),
                class.class.label().into(),
                method_text(f.method, f.cross_validation.as_ref()),
                f.cross_validation.as_ref().map_or("-".into(), |s| gpus(s.mae_gpus)),
                f.cross_validation
                    .as_ref()
                    .and_then(|s| s.seasonal_naive_mae_gpus)
                    .map_or("-".into(), gpus),
                gpus(f.history_mean_gpus),
                first.map_or("-".into(), |d| gpus(d.mean_gpus)),
                last.map_or("-".into(), |d| gpus(d.mean_gpus)),
                last.map_or("-".into(), |d| format!("{}-{}", gpus(d.lo95), gpus(d.hi95))),
            ]);
        }
    }
    table
}

fn class_section(class: &ClassForecast, with_charts: bool) -> Section {
    let f = &class.forecast;
    let mut facts = vec![
        ("method".to_string(), method_text(f.method, f.cross_validation.as_ref())),
        (
            "history mean".to_string(),
            format!("{} GPUs", gpus(f.history_mean_gpus)),
        ),
        (
            "data's reach".to_string(),
            format!("{} of {} days", f.data_days.min(f.daily.len() as u32), f.daily.len()),
        ),
    ];
    if let Some(s) = &f.cross_validation {
        facts.push(("chosen by".into(), selection_text(s)));
    }
    if let Some(g) = f.growth_per_year {
        facts.push(("growth".into(), format!("x{g:.2} a year (the plan's)")));
    }
    if let Some(note) = &f.note {
        facts.push(("note".into(), note.clone()));
    }
    let mut blocks = vec![Block::Facts(facts)];
    if f.history_mean_gpus > 0.0 || f.daily.iter().any(|d| d.planned_gpus > 0.0) {
        blocks.push(Block::Table(months_table(f)));
        if with_charts {
            blocks.push(Block::Preformatted(forecast_chart(class.class.label(), f)));
        }
    }
    Section {
        title: format!("{} demand", capitalized(class.class.label())),
        blocks,
    }
}

/// The fan in rows of 30 days: the rows' means of each daily figure, and the busiest day.
fn months_table(f: &SeriesForecast) -> Table {
    let mut table = Table::new(&[
        ("from", Align::Left),
        ("mean", Align::Right),
        ("80 %", Align::Right),
        ("95 %", Align::Right),
        ("peak", Align::Right),
        ("planned", Align::Right),
        ("basis", Align::Left),
    ]);
    for days in f.daily.chunks(DAYS_PER_ROW) {
        let n = days.len() as f64;
        let mean = |get: fn(&DailyForecast) -> f64| days.iter().map(get).sum::<f64>() / n;
        let peak = days.iter().map(|d| d.peak_gpus).fold(0.0, f64::max);
        let last_basis = days.last().map_or(Basis::Data, |d| d.basis);
        table.row(vec![
            days[0].date.clone(),
            gpus(mean(|d| d.mean_gpus)),
            format!("{}-{}", gpus(mean(|d| d.lo80)), gpus(mean(|d| d.hi80))),
            format!("{}-{}", gpus(mean(|d| d.lo95)), gpus(mean(|d| d.hi95))),
            gpus(peak),
            gpus(mean(|d| d.planned_gpus)),
            basis_text(last_basis).into(),
        ]);
    }
    table
}

pub fn backtest_document(report: &BacktestReport) -> Document {
    let mut table = Table::new(&[
        ("series", Align::Left),
        ("class", Align::Left),
        ("origins", Align::Right),
        ("last method", Align::Left),
        ("actual", Align::Right),
        ("forecast", Align::Right),
        ("MAE", Align::Right),
        ("MAE range", Align::Right),
        ("naive MAE", Align::Right),
        ("MASE", Align::Right),
        ("in 80 %", Align::Right),
        ("first/last wk", Align::Right),
        ("in 95 %", Align::Right),
        ("first/last wk", Align::Right),
        ("score 80 %", Align::Right),
    ]);
    // One cluster is the fleet: its rows would repeat the fleet's.
    let clusters = if report.clusters.len() > 1 {
        report.clusters.as_slice()
    } else {
        &[]
    };
    let rows =
        std::iter::once(("fleet", &report.classes)).chain(clusters.iter().map(|c| (c.name.as_str(), &c.classes)));
    let whole = |v: f64| format!("{:.0}", v * 100.0);
    for (series, classes) in rows {
        for c in classes.iter() {
            let s = &c.score;
            table.row(vec![
                series.to_string(),
                c.class.label().into(),
                s.origins.to_string(),
                s.method.code().into(),
                gpus(s.actual_mean_gpus),
                gpus(s.forecast_mean_gpus),
                gpus(s.mae_gpus),
                format!("{}-{}", gpus(s.mae_spread_gpus.min), gpus(s.mae_spread_gpus.max)),
                gpus(s.seasonal_naive_mae_gpus),
                s.mase.map_or("-".into(), |m| format!("{m:.2}")),
                pct(s.coverage_80),
                format!(
                    "{}/{} %",
                    whole(s.first_week.coverage_80),
                    whole(s.last_week.coverage_80)
                ),
                pct(s.coverage_95),
                format!(
                    "{}/{} %",
                    whole(s.first_week.coverage_95),
                    whole(s.last_week.coverage_95)
                ),
                gpus(s.interval_score_80_gpus),
            ]);
        }
    }
    let season = report
        .classes
        .first()
        .map_or("a season".to_string(), |c| format!("{} points", c.score.season_points));
    let step = report
        .origin_step_days
        .map_or("up to a week".to_string(), |days| format!("{days} days"));
    let mut sections = vec![
        Section {
            title: format!(
                "Forecast {} days after each origin and compared with what happened, averaged over the origins",
                report.holdout_days
            ),
            blocks: vec![
                Block::Table(table),
                Block::Note(format!(
                    "Each origin is fitted on all of the window before it (the last origin on {:.1} days, leaving exactly the held-out \
                     days after it; the others step back {step} each) and chooses its method by its own cross-validation; last method: the one \
                     the last origin chose. Actual and forecast: mean GPUs over the held-out days. MAE: mean absolute error per point, \
                     in GPUs, averaged over the origins, and its range; naive MAE: that of repeating the history's last season \
                     ({season}). MASE under 1 beats the seasonal-naive forecast's in-sample error. In 80 % / 95 %: the share of held-out \
                     points inside each interval (nominal: 80 % and 95 %), over every lead and in the first and the last held-out week.",
                    (report.history_days - f64::from(report.holdout_days)).max(0.0)
                )),
            ],
        },
        methods_section(report),
        origins_section(report),
    ];
    sections.extend(super::commitment_backtest::commitment_sections(report));
    Document {
        title: "gpuplan backtest".into(),
        sections,
    }
}

/// Every single method's error at the same origins beside the chosen one's, per fleet class.
fn methods_section(report: &BacktestReport) -> Section {
    let classes: Vec<&ClassBacktest> = report.classes.iter().collect();
    let headers: Vec<(String, Align)> = std::iter::once(("method".to_string(), Align::Left))
        .chain(classes.iter().map(|c| (c.class.label().to_string(), Align::Right)))
        .collect();
    let header_refs: Vec<(&str, Align)> = headers.iter().map(|(h, a)| (h.as_str(), *a)).collect();
    let mut table = Table::new(&header_refs);
    let mae_of = |score: &BacktestScore, method: ForecastMethod| {
        score
            .methods
            .iter()
            .find(|m| m.method == method)
            .map_or("-".into(), |m| gpus(m.mae_gpus.mean))
    };
    table.row(
        std::iter::once("chosen at each origin by cross-validation".to_string())
            .chain(classes.iter().map(|c| gpus(c.score.mae_gpus)))
            .collect(),
    );
    for method in crate::model::forecast::methods::CANDIDATES {
        table.row(
            std::iter::once(method.label().to_string())
                .chain(classes.iter().map(|c| mae_of(&c.score, method)))
                .collect(),
        );
    }
    Section {
        title: "Fleet MAE per method, averaged over the same origins".into(),
        blocks: vec![
            Block::Table(table),
            Block::Note(
                "Each method fitted alone at every origin, in GPUs: what choosing by cross-validation gains over any one method.".into(),
            ),
        ],
    }
}

/// The fleet's origins one by one: the cut-off, and per class the method chosen and its error.
fn origins_section(report: &BacktestReport) -> Section {
    let classes: Vec<&ClassBacktest> = report.classes.iter().collect();
    let headers: Vec<(String, Align)> = [
        ("origin".to_string(), Align::Left),
        ("fitted days".to_string(), Align::Right),
    ]
    .into_iter()
    .chain(classes.iter().map(|c| (c.class.label().to_string(), Align::Left)))
    .collect();
    let header_refs: Vec<(&str, Align)> = headers.iter().map(|(h, a)| (h.as_str(), *a)).collect();
    let mut table = Table::new(&header_refs);
    let origins = classes.iter().map(|c| c.score.per_origin.len()).max().unwrap_or(0);
    for o in 0..origins {
        let Some(first) = classes.iter().find_map(|c| c.score.per_origin.get(o)) else {
            continue;
        };
        table.row(
            [first.cutoff.clone(), format!("{:.1}", first.fitted_days)]
                .into_iter()
                .chain(classes.iter().map(|c| {
                    c.score.per_origin.get(o).map_or("-".into(), |s| {
                        format!(
                            "{} {} (naive {})",
                            s.method.code(),
                            gpus(s.mae_gpus),
                            gpus(s.seasonal_naive_mae_gpus)
                        )
                    })
                }))
                .collect(),
        );
    }
    Section {
        title: "Fleet origins".into(),
        blocks: vec![
            Block::Table(table),
            Block::Note(
                "Per origin and class: the method its cross-validation chose and its MAE, seasonal naive's beside."
                    .into(),
            ),
        ],
    }
}
