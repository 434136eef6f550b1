//! Forecast: the plan's horizon, a growth slider per class (the fitted trend until moved), the
//! `[training]` run and the planned runs, then a fan chart per class: the history's daily mean,
//! the forecast's 80 % and 95 % bands and its mean, today and the data's reach marked, planned
//! runs marked under the days they hold.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::forecast_fan::{fan_lines, fan_title, selection_lines};
use crate::app::App;
use crate::app::field::{Field, ForecastField};
use crate::model::forecast::{ClassForecast, ForecastReport};
use crate::model::plan::GROWTH_RANGE;
use crate::model::workload::WorkloadClass;
use crate::shared::format::thousands;
use crate::ui::scroll::ScrollWindow;
use crate::ui::theme::Theme;
use crate::ui::widgets::{fields_line, label, right, track_of};

const NAME_WIDTH: usize = 10;
const VALUE_WIDTH: usize = 14;
const METHOD_WIDTH: usize = 12;
/// A fan chart's least rows: its title, how its method was chosen, five rows of plot, its axis.
const CHART_ROWS: u16 = 8;

/// Where a growth factor sits on a slider from a tenth to ten times: a log scale, so ×1 is
/// the middle and ×0.5 and ×2 are as far from it.
fn growth_frac(factor: f64) -> f64 {
    let (low, high) = GROWTH_RANGE;
    ((factor.ln() - low.ln()) / (high.ln() - low.ln())).clamp(0.0, 1.0)
}

/// The growth slider's track of `class` inside the pane's body, its lines scrolled by
/// `first_line`: for turning a click or drag into a factor. Line 0 is the status line, line 1
/// the horizon, then the classes.
pub fn growth_track(body: Rect, class: WorkloadClass, first_line: usize) -> Option<Rect> {
    let line = 2 + WorkloadClass::ALL.iter().position(|c| *c == class)?;
    let row = line.checked_sub(first_line)?;
    let width = track_width(body.width)?;
    (row < usize::from(body.height)).then_some(Rect {
        x: body.x + NAME_WIDTH as u16 + 1,
        y: body.y + row as u16,
        width,
        height: 1,
    })
}

/// A growth track's width in a body `body_width` wide, when it has room for one.
fn track_width(body_width: u16) -> Option<u16> {
    body_width
        .checked_sub((NAME_WIDTH + 1 + VALUE_WIDTH + METHOD_WIDTH) as u16)
        .filter(|w| *w >= 5)
}

/// The factor at column `x` of a growth track, to two significant digits (0.13, 1.4, 6.8).
pub fn growth_at(track: Rect, x: u16) -> f64 {
    let (low, high) = GROWTH_RANGE;
    let offset = f64::from(x.saturating_sub(track.x).min(track.width.saturating_sub(1)));
    let frac = offset / f64::from(track.width.saturating_sub(1).max(1));
    let factor = (low.ln() + frac * (high.ln() - low.ln())).exp();
    let unit = 10f64.powf(factor.log10().floor() - 1.0);
    ((factor / unit).round() * unit).clamp(low, high)
}

pub fn render(app: &App, window: &mut ScrollWindow, theme: &Theme, frame: &mut Frame, body: Rect, focused: bool) {
    let selected = focused.then(|| app.selected_field()).flatten();
    let shown = app.forecast.shown.as_ref();
    let mut lines = vec![status_line(app, shown, theme, body.width)];
    lines.push(horizon_line(app, selected, theme, body.width));
    for class in WorkloadClass::ALL {
        lines.push(growth_line(app, shown, class, selected, theme, body.width));
    }
    let before_training = lines.len();
    lines.extend(training_lines(app, selected, theme, body.width));
    let before_planned = lines.len();
    lines.extend(planned_lines(app, selected, theme, body.width));
    let selected_line = selected.and_then(|field| selected_line(field, before_training, before_planned));
    // The log's last days left out of the fit (or kept, as the plan says): said where the
    // forecast is read, as audit, forecast and report say it.
    if let Some(tail) = shown.and_then(|r| r.incomplete_tail.as_ref()) {
        lines.extend(crate::ui::widgets::wrapped(
            &format!("⚑ {}", tail.said()),
            body.width,
            theme.warn,
        ));
    }
    if let Some(report) = shown.filter(|_| body.width >= 20) {
        // Every class's chart under the text, the selected one first, each with its title and
        // how its method was chosen: as many as the height holds show at once, the rest are a
        // scroll away, so no class's forecast is shown at one size only.
        let order = chart_order(app, selected);
        let room = body.height.saturating_sub(lines.len() as u16 + 1);
        let count = order.len().max(1) as u16;
        // All in view when they fit; else the first fills the view and the rest follow it.
        let rows = |i: usize| match (room >= CHART_ROWS * count, i) {
            (true, _) => room / count,
            (false, 0) => room.max(CHART_ROWS),
            (false, _) => CHART_ROWS,
        };
        lines.push(Line::raw(""));
        for (i, class) in order.into_iter().enumerate() {
            if let Some(series) = report.classes.iter().find(|c| c.class == class) {
                lines.extend(chart_lines(series, theme, body.width, rows(i)));
            }
        }
    }
    super::scrolled(frame, body, lines, selected_line, window);
}

/// The line of the selected row: the horizon on line 1, the growths under it, the training
/// run's lines from `training`, a planned run's (one line each) from `planned`.
fn selected_line(field: Field, training: usize, planned: usize) -> Option<usize> {
    match field {
        Field::Forecast(ForecastField::HorizonMonths) => Some(1),
        Field::Forecast(ForecastField::Growth(class)) => {
            WorkloadClass::ALL.iter().position(|c| *c == class).map(|i| 2 + i)
        }
        Field::Forecast(ForecastField::TrainingRun) => Some(training),
        Field::Forecast(ForecastField::TrainingStart) => Some(training + 1),
        Field::Forecast(
            ForecastField::PlannedGpus(i) | ForecastField::PlannedStart(i) | ForecastField::PlannedDays(i),
        ) => Some(planned + i),
        _ => None,
    }
}

fn status_line(app: &App, shown: Option<&ForecastReport>, theme: &Theme, width: u16) -> Line<'static> {
    let mut fields = Vec::new();
    match shown {
        Some(report) => fields.push((
            format!(
                "{} days from {} · {:.0} days of history",
                report.horizon_days,
                report.horizon_start.get(..10).unwrap_or(&report.horizon_start),
                report.history_days
            ),
            theme.muted,
        )),
        None if app.fleet.is_none() => {
            fields.push(("no logs yet: the forecast fits the audit".to_string(), theme.muted))
        }
        None => {}
    }
    if app.forecast.working {
        fields.push((" · fitting…".to_string(), theme.warn));
    }
    if let Some(error) = &app.forecast.error {
        fields.push((format!(" · {error}"), theme.bad));
    }
    fields_line(fields, width)
}

fn value_style(theme: &Theme, selected: Option<Field>, field: Field) -> Style {
    if selected == Some(field) {
        theme.selected
    } else {
        theme.title
    }
}

fn horizon_line(app: &App, selected: Option<Field>, theme: &Theme, width: u16) -> Line<'static> {
    let field = Field::Forecast(ForecastField::HorizonMonths);
    let months = app.field_value(field).unwrap_or_default();
    fields_line(
        vec![
            (label("horizon", NAME_WIDTH + 1), theme.base),
            (
                format!("◂ {} ▸", field.show(months)),
                value_style(theme, selected, field),
            ),
        ],
        width,
    )
}

/// A class's growth: its slider, the plan's factor or the fit's ("fitted ×1.4"), the method.
fn growth_line(
    app: &App,
    shown: Option<&ForecastReport>,
    class: WorkloadClass,
    selected: Option<Field>,
    theme: &Theme,
    width: u16,
) -> Line<'static> {
    let field = Field::Forecast(ForecastField::Growth(class));
    let planned = field.get(&app.plan);
    let factor = app.field_value(field).unwrap_or(1.0);
    let value = match planned {
        Some(g) => field.show(g),
        None => format!("fitted ×{factor:.1}"),
    };
    let method = shown
        .and_then(|r| r.classes.iter().find(|c| c.class == class))
        .map_or(String::new(), |c| c.forecast.method.short().to_string());
    let track_width = usize::from(track_width(width).unwrap_or(0));
    let is_selected = selected == Some(field);
    let style = if is_selected {
        theme.selected
    } else {
        theme.class_style(class)
    };
    let track_style = if planned.is_some() {
        theme.class_style(class)
    } else {
        theme.muted
    };
    let mut spans = vec![Span::styled(label(class.label(), NAME_WIDTH), style), Span::raw(" ")];
    if track_width > 0 {
        spans.push(Span::styled(track_of(growth_frac(factor), track_width), track_style));
    }
    spans.push(Span::styled(
        right(&value, VALUE_WIDTH),
        value_style(theme, selected, field),
    ));
    spans.push(Span::styled(right(&method, METHOD_WIDTH), theme.muted));
    Line::from(spans)
}

/// The `[training]` run: counted or not, and while counted its start.
fn training_lines(app: &App, selected: Option<Field>, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let counted = Field::Forecast(ForecastField::TrainingRun);
    let is_counted = app.field_value(counted).unwrap_or_default() >= 0.5;
    let mut first = vec![
        (label("[training]", NAME_WIDTH + 1), theme.base),
        (
            format!("◂ {} ▸", counted.show(f64::from(u8::from(is_counted)))),
            value_style(theme, selected, counted),
        ),
    ];
    let run = app
        .forecast
        .shown
        .as_ref()
        .and_then(|r| r.planned.iter().find(|p| p.name == "[training] run"));
    if let Some(run) = run {
        first.push((
            format!(
                " {} GPUs to {}",
                thousands(run.gpus),
                run.end.get(..10).unwrap_or(&run.end)
            ),
            theme.muted,
        ));
    }
    let mut lines = vec![fields_line(first, width)];
    if is_counted {
        let start = Field::Forecast(ForecastField::TrainingStart);
        let shown = app
            .field_value(start)
            .map_or("today".to_string(), |day| start.show(day));
        lines.push(fields_line(
            vec![
                (label("  starts", NAME_WIDTH + 1), theme.base),
                (format!("◂ {shown} ▸"), value_style(theme, selected, start)),
            ],
            width,
        ));
    }
    lines
}

/// Each `[[forecast.planned]]` run: its name and class, then GPUs, start and days to edit.
fn planned_lines(app: &App, selected: Option<Field>, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let Some(forecast) = &app.plan.forecast else {
        return Vec::new();
    };
    forecast
        .planned
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let mut fields = vec![(label(&run.name, NAME_WIDTH), theme.class_style(run.class))];
            for field in [
                ForecastField::PlannedGpus(i),
                ForecastField::PlannedStart(i),
                ForecastField::PlannedDays(i),
            ]
            .map(Field::Forecast)
            {
                let value = app.field_value(field).map_or("?".to_string(), |v| field.show(v));
                fields.push((" ".to_string(), theme.base));
                fields.push((value, value_style(theme, selected, field)));
            }
            fields_line(fields, width)
        })
        .collect()
}

/// The classes to chart, the one the cursor is on first: a short pane shows that one whole, the
/// others a scroll below it.
fn chart_order(app: &App, selected: Option<Field>) -> Vec<WorkloadClass> {
    let first = match selected {
        Some(Field::Forecast(ForecastField::Growth(class))) => Some(class),
        Some(Field::Forecast(ForecastField::TrainingRun | ForecastField::TrainingStart)) => {
            Some(WorkloadClass::Training)
        }
        Some(Field::Forecast(
            ForecastField::PlannedGpus(i) | ForecastField::PlannedStart(i) | ForecastField::PlannedDays(i),
        )) => app
            .plan
            .forecast
            .as_ref()
            .and_then(|f| f.planned.get(i))
            .map(|r| r.class),
        _ => None,
    };
    let mut order: Vec<WorkloadClass> = first.into_iter().collect();
    order.extend(WorkloadClass::ALL.into_iter().filter(|c| Some(*c) != first));
    order
}

/// A class's chart in `rows` rows: its title, how its method was chosen, the fan in the rest.
fn chart_lines(series: &ClassForecast, theme: &Theme, width: u16, rows: u16) -> Vec<Line<'static>> {
    let style = theme.class_style(series.class);
    let mut lines = fan_title(series, width, style, theme);
    lines.extend(selection_lines(series, width, theme));
    let plot_rows = rows.saturating_sub(lines.len() as u16);
    lines.extend(fan_lines(series, width, plot_rows, style, theme));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_reads_back_the_factor_the_knob_is_drawn_at() {
        let body = Rect::new(3, 4, 64, 20);
        let track = growth_track(body, WorkloadClass::Inference, 0).expect("a track");
        assert_eq!(track.y, body.y + 3);
        assert!((growth_at(track, track.x) - GROWTH_RANGE.0).abs() < 1e-9);
        assert!((growth_at(track, track.x + track.width - 1) - GROWTH_RANGE.1).abs() < 1e-9);
        assert!((growth_at(track, track.x + track.width / 2) - 1.0).abs() < 0.15);
        for x in track.x..track.x + track.width {
            let knob = (growth_frac(growth_at(track, x)) * f64::from(track.width - 1)).round() as u16;
            assert!(knob.abs_diff(x - track.x) <= 1, "column {x}");
        }
        assert_eq!(
            growth_track(Rect::new(0, 0, 30, 20), WorkloadClass::Burst, 0),
            None,
            "too narrow"
        );
    }
}
