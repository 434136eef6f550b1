//! One class's fan chart in terminal cells: the history's daily mean as bars, then the forecast
//! as its 95 % band (`░`), its 80 % band (`▒`) and its mean (a line at the cell's height). The
//! axis below marks today and where the data's reach ends (`┴`), and the days a planned run of
//! the class holds (`▀`). Days are spread evenly over the columns, so history and horizon keep
//! their true proportions.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::model::forecast::{ClassForecast, DailyForecast};
use crate::shared::format::thousands;
use crate::ui::theme::Theme;
use crate::ui::widgets::{EIGHTHS, flowed_fields, right};

/// What a column of the chart shows.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Column {
    /// The history's mean GPUs over the column's days.
    History(f64),
    Forecast {
        mean: f64,
        lo80: f64,
        hi80: f64,
        lo95: f64,
        hi95: f64,
        planned: bool,
    },
}

/// The title: the class, its method, the demand now and at the horizon's end with its 95 %.
pub fn fan_title(series: &ClassForecast, width: u16, style: Style, theme: &Theme) -> Vec<Line<'static>> {
    let forecast = &series.forecast;
    let history = &forecast.history_daily_gpus;
    let recent = &history[history.len().saturating_sub(7)..];
    let now = recent.iter().sum::<f64>() / recent.len().max(1) as f64;
    let mut fields = vec![(series.class.label().to_string(), style.add_modifier(Modifier::BOLD))];
    if let Some(last) = forecast.daily.last() {
        fields.push((
            format!(" {} → {} GPUs", thousands(now), thousands(last.mean_gpus)),
            theme.base,
        ));
        fields.push((
            format!(" (95 % {}–{})", thousands(last.lo95), thousands(last.hi95)),
            theme.muted,
        ));
    }
    flowed_fields(fields, width, 2)
}

/// How the method was chosen: its name, and its cross-validated error beside seasonal naive's
/// ("mean of ets trend, theta · MAE 2.8 vs naive 3.6"), or why the level stands in.
pub fn selection_lines(series: &ClassForecast, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let forecast = &series.forecast;
    let method = match (&forecast.cross_validation, forecast.method) {
        (Some(s), crate::model::forecast::ForecastMethod::Combination) => format!(
            "mean of {}",
            s.combined.iter().map(|m| m.short()).collect::<Vec<_>>().join(", ")
        ),
        (_, method) => method.short().to_string(),
    };
    let mut fields = vec![(method, theme.base)];
    match (&forecast.cross_validation, &forecast.note) {
        (Some(s), _) => {
            let naive = s
                .seasonal_naive_mae_gpus
                .map_or(String::new(), |n| format!(" vs naive {}", gpus_text(n)));
            fields.push((format!(" · MAE {}{naive}", gpus_text(s.mae_gpus)), theme.muted));
        }
        (None, Some(note)) => fields.push((format!(" · {note}"), theme.muted)),
        (None, None) => {}
    }
    // Wrapped rather than cut: the errors are the reason the method stands.
    flowed_fields(fields, width, 2)
}

fn gpus_text(value: f64) -> String {
    if value < 10.0 {
        format!("{value:.1}")
    } else {
        thousands(value)
    }
}

/// The days of column `column` of `columns` over `days` days: at least one.
fn days_of(column: usize, columns: usize, days: usize) -> (usize, usize) {
    let from = column * days / columns;
    let to = ((column + 1) * days / columns).max(from + 1).min(days);
    (from.min(days.saturating_sub(1)), to)
}

fn columns_of(series: &ClassForecast, columns: usize) -> Vec<Column> {
    let history = &series.forecast.history_daily_gpus;
    let daily = &series.forecast.daily;
    let days = history.len() + daily.len();
    if days == 0 {
        return Vec::new();
    }
    (0..columns)
        .map(|c| {
            let (from, to) = days_of(c, columns, days);
            if from < history.len() {
                let part = &history[from..to.min(history.len())];
                Column::History(part.iter().sum::<f64>() / part.len().max(1) as f64)
            } else {
                let part = &daily[from - history.len()..to - history.len()];
                let n = part.len().max(1) as f64;
                let mean_of = |f: fn(&DailyForecast) -> f64| part.iter().map(f).sum::<f64>() / n;
                Column::Forecast {
                    mean: mean_of(|d| d.mean_gpus),
                    lo80: mean_of(|d| d.lo80),
                    hi80: mean_of(|d| d.hi80),
                    lo95: mean_of(|d| d.lo95),
                    hi95: mean_of(|d| d.hi95),
                    planned: part.iter().any(|d| d.planned_gpus > 0.0),
                }
            }
        })
        .collect()
}

/// The cell of row range [low, high) for a column.
fn cell(column: Column, low: f64, high: f64, style: Style, theme: &Theme) -> (char, Style) {
    let span = (high - low).max(f64::MIN_POSITIVE);
    match column {
        Column::History(v) => {
            let eighths = (((v - low) / span).clamp(0.0, 1.0) * 8.0).round() as usize;
            (EIGHTHS[eighths], theme.muted)
        }
        Column::Forecast {
            mean,
            lo80,
            hi80,
            lo95,
            hi95,
            ..
        } => {
            let overlaps = |a: f64, b: f64| b >= low && a < high;
            if mean >= low && mean < high {
                let at = (mean - low) / span;
                let glyph = if at < 1.0 / 3.0 {
                    '▁'
                } else if at < 2.0 / 3.0 {
                    '─'
                } else {
                    '▔'
                };
                (glyph, style.add_modifier(Modifier::BOLD))
            } else if overlaps(lo80, hi80) {
                ('▒', style)
            } else if overlaps(lo95, hi95) {
                ('░', style)
            } else {
                (' ', theme.base)
            }
        }
    }
}

/// A row of cells as spans, neighbours of one style merged.
fn spans_of(cells: Vec<(char, Style)>) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut current: Option<Style> = None;
    for (glyph, style) in cells {
        if current.is_some_and(|s| s != style) {
            spans.push(Span::styled(std::mem::take(&mut text), current.unwrap_or_default()));
        }
        current = Some(style);
        text.push(glyph);
    }
    if let Some(style) = current {
        spans.push(Span::styled(text, style));
    }
    spans
}

/// A round ceiling for the axis, at or above `value`: a power of ten times 1, 1.5, 2, 2.5, 3,
/// 4, 5, 6 or 8, so the data fills most of the height.
fn nice_ceiling(value: f64) -> f64 {
    if !(value.is_finite() && value > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(value.log10().floor());
    [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|v| *v >= value)
        .unwrap_or(10.0 * power)
}

/// `rows` lines: the plot, then the axis.
pub fn fan_lines(series: &ClassForecast, width: u16, rows: u16, style: Style, theme: &Theme) -> Vec<Line<'static>> {
    let forecast = &series.forecast;
    let top = nice_ceiling(forecast.highest_gpus());
    let gutter = thousands(top).chars().count().max(1) + 1;
    let columns = usize::from(width).saturating_sub(gutter);
    let plot_rows = usize::from(rows.saturating_sub(1));
    if columns < 10 || plot_rows < 2 {
        return Vec::new();
    }
    let cells = columns_of(series, columns);
    let mut lines: Vec<Line<'static>> = (0..plot_rows)
        .map(|r| {
            let high = top * (plot_rows - r) as f64 / plot_rows as f64;
            let low = top * (plot_rows - r - 1) as f64 / plot_rows as f64;
            let label = match r {
                0 => thousands(top),
                _ if r == plot_rows - 1 => "0".to_string(),
                _ => String::new(),
            };
            let mut spans = vec![Span::styled(format!("{} ", right(&label, gutter - 1)), theme.muted)];
            spans.extend(spans_of(
                cells.iter().map(|c| cell(*c, low, high, style, theme)).collect(),
            ));
            Line::from(spans)
        })
        .collect();
    lines.push(axis_line(series, &cells, gutter, theme));
    lines
}

/// The axis: `┴` at today and where the data's reach ends, `▀` under planned days.
fn axis_line(series: &ClassForecast, cells: &[Column], gutter: usize, theme: &Theme) -> Line<'static> {
    let history_days = series.forecast.history_daily_gpus.len();
    let days = history_days + series.forecast.daily.len();
    let column_of = |day: usize| cells.len() * day / days.max(1);
    let today = column_of(history_days);
    let reach = series
        .forecast
        .data_reach_ends()
        .map(|d| column_of(history_days + d as usize));
    let axis: Vec<(char, Style)> = cells
        .iter()
        .enumerate()
        .map(|(i, column)| match column {
            Column::Forecast { planned: true, .. } => ('▀', theme.warn),
            _ if i == today || Some(i) == reach => ('┴', theme.muted),
            _ => ('─', theme.muted),
        })
        .collect();
    let mut spans = vec![Span::raw(" ".repeat(gutter))];
    spans.extend(spans_of(axis));
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_holds_a_day_and_the_last_reaches_the_end() {
        for (columns, days) in [(10, 3), (58, 455), (200, 455), (1, 1)] {
            let spans: Vec<(usize, usize)> = (0..columns).map(|c| days_of(c, columns, days)).collect();
            assert!(
                spans.iter().all(|(from, to)| from < to && *to <= days),
                "{columns} {days}"
            );
            assert_eq!(spans.last().map(|s| s.1), Some(days));
        }
    }

    #[test]
    fn the_axis_top_is_round_and_never_below_the_data() {
        for (value, top) in [
            (0.0, 1.0),
            (0.3, 0.3),
            (173.0, 200.0),
            (312.0, 400.0),
            (1000.0, 1000.0),
            (1001.0, 1500.0),
        ] {
            assert!(
                (nice_ceiling(value) - top).abs() < 1e-9,
                "{value} -> {}",
                nice_ceiling(value)
            );
        }
    }

    #[test]
    fn the_mean_sits_in_its_cell_and_the_bands_shade_around_it() {
        let theme = Theme::monochrome();
        let column = Column::Forecast {
            mean: 50.0,
            lo80: 40.0,
            hi80: 60.0,
            lo95: 20.0,
            hi95: 80.0,
            planned: false,
        };
        let style = Style::default();
        assert_eq!(cell(column, 45.0, 55.0, style, &theme).0, '─');
        assert_eq!(cell(column, 55.0, 65.0, style, &theme).0, '▒');
        assert_eq!(cell(column, 70.0, 80.0, style, &theme).0, '░');
        assert_eq!(cell(column, 90.0, 100.0, style, &theme).0, ' ');
        assert_eq!(cell(Column::History(100.0), 0.0, 50.0, style, &theme).0, '█');
        assert_eq!(cell(Column::History(0.0), 0.0, 50.0, style, &theme).0, ' ');
    }
}
