//! Charts as plain text for a Markdown review: the training cost against MFU per accelerator,
//! and a cluster's GPUs over the audit window. ASCII only, so any viewer shows them aligned.

use super::chart::{Axis, bucket_means};
use crate::model::fleet::ClusterAudit;
use crate::model::forecast::{DailyForecast, SeriesForecast};
use crate::model::sensitivity::{CURVE_MFU_MAX_FRAC, CURVE_MFU_MIN_FRAC, CostCurve};
use crate::shared::format::{gpu_count, pct, thousands, usd_compact};

const PLOT_COLUMNS: usize = 64;
const PLOT_ROWS: usize = 18;
/// Where two series meet in one cell of the cost chart.
const OVERLAP: char = '*';

/// What a text plot draws, in data coordinates.
struct Plot {
    x: Axis,
    y: Axis,
    /// Vertical dotted lines (thresholds).
    x_rules: Vec<f64>,
    /// Horizontal lines, each with its glyph (capacity).
    y_rules: Vec<(f64, char)>,
    /// Series in drawing order; later ones cover earlier ones unless overlaps are marked.
    series: Vec<(char, Vec<(f64, f64)>)>,
    /// Mark a cell two letters claim with `OVERLAP` (a capital, a slider, wins over a curve).
    mark_overlaps: bool,
    x_label: fn(f64) -> String,
    y_label: fn(f64) -> String,
}

impl Plot {
    fn column(&self, x: f64) -> Option<usize> {
        cell(self.x.position(x), PLOT_COLUMNS)
    }

    fn row_from_top(&self, y: f64) -> Option<usize> {
        cell(self.y.position(y), PLOT_ROWS).map(|r| PLOT_ROWS - 1 - r)
    }

    fn render(&self) -> String {
        let mut grid = vec![vec![' '; PLOT_COLUMNS]; PLOT_ROWS];
        for column in self.x_rules.iter().filter_map(|&x| self.column(x)) {
            for row in grid.iter_mut() {
                row[column] = ':';
            }
        }
        for &(y, glyph) in &self.y_rules {
            if let Some(row) = self.row_from_top(y) {
                grid[row].iter_mut().for_each(|c| *c = glyph);
            }
        }
        for (glyph, points) in &self.series {
            for &(x, y) in points {
                if let (Some(column), Some(row)) = (self.column(x), self.row_from_top(y)) {
                    let cell = &mut grid[row][column];
                    *cell = if self.mark_overlaps {
                        merged(*cell, *glyph)
                    } else {
                        *glyph
                    };
                }
            }
        }
        let mut y_labels = vec![String::new(); PLOT_ROWS];
        for tick in self.y.ticks() {
            if let Some(row) = self.row_from_top(tick) {
                y_labels[row] = (self.y_label)(tick);
            }
        }
        let gutter = y_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let mut out = String::new();
        for (label, row) in y_labels.iter().zip(&grid) {
            let line: String = row.iter().collect();
            out.push_str(&format!("{label:>gutter$} |{}\n", line.trim_end()));
        }
        out.push_str(&format!("{:gutter$} +{}\n", "", "-".repeat(PLOT_COLUMNS)));
        out.push_str(&format!("{:gutter$}  {}\n", "", self.x_tick_line().trim_end()));
        out
    }

    /// Tick labels under the axis, each starting at its column; one that would touch the
    /// previous label is left out.
    fn x_tick_line(&self) -> String {
        let mut line: Vec<char> = Vec::new();
        for tick in self.x.ticks() {
            let Some(column) = self.column(tick) else { continue };
            let label: Vec<char> = (self.x_label)(tick).chars().collect();
            let start = column.saturating_sub(label.len() / 2);
            if start < line.len() + usize::from(!line.is_empty()) {
                continue;
            }
            line.resize(start, ' ');
            line.extend(label);
        }
        line.into_iter().collect()
    }
}

/// What a cell holding `existing` shows when `glyph` is drawn on it.
fn merged(existing: char, glyph: char) -> char {
    let slider_over_curve = glyph.is_ascii_uppercase() && !existing.is_ascii_uppercase();
    let same_series = existing.eq_ignore_ascii_case(&glyph);
    let free = existing != OVERLAP && !existing.is_ascii_alphabetic();
    if slider_over_curve || same_series || free {
        glyph
    } else {
        OVERLAP
    }
}

/// The cell of a 0..1 position on an axis of `cells`; `None` outside the axis.
fn cell(position: f64, cells: usize) -> Option<usize> {
    if !(-1e-9..=1.0 + 1e-9).contains(&position) {
        return None;
    }
    Some(((position * (cells - 1) as f64).round() as usize).min(cells - 1))
}

fn glyph(index: usize, slider: bool) -> char {
    let letter = (b'a' + (index % 26) as u8) as char;
    if slider { letter.to_ascii_uppercase() } else { letter }
}

/// Each accelerator's run cost from 10 % to 70 % MFU (lower-case letter), its slider
/// (the same letter in capitals), and the MFU thresholds as dotted lines.
pub fn cost_curves_chart(curves: &[CostCurve], mfu_rules: &[(f64, String)]) -> String {
    let highest = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.1).chain([c.slider.1]))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let mut series: Vec<(char, Vec<(f64, f64)>)> = curves
        .iter()
        .enumerate()
        .map(|(i, c)| (glyph(i, false), c.points.clone()))
        .collect();
    series.extend(curves.iter().enumerate().map(|(i, c)| (glyph(i, true), vec![c.slider])));
    let plot = Plot {
        x: Axis::covering(CURVE_MFU_MIN_FRAC, CURVE_MFU_MAX_FRAC, 6),
        y: Axis::covering(0.0, highest, 5),
        x_rules: mfu_rules.iter().map(|(frac, _)| *frac).collect(),
        y_rules: Vec::new(),
        series,
        mark_overlaps: true,
        x_label: pct_label,
        y_label: usd_compact,
    };
    let drawn = plot.render();
    let mut out = format!("training run cost (USD) against MFU\n\n{drawn}\n");
    for (i, c) in curves.iter().enumerate() {
        out.push_str(&format!(
            "{}  {}: slider {} at {} MFU, {}\n",
            glyph(i, false),
            c.accelerator,
            glyph(i, true),
            pct(c.slider.0),
            usd_compact(c.slider.1)
        ));
    }
    if !mfu_rules.is_empty() {
        let rules: Vec<String> = mfu_rules
            .iter()
            .map(|(frac, name)| format!("{} {name}", pct(*frac)))
            .collect();
        out.push_str(&format!(":  MFU thresholds: {}\n", rules.join("; ")));
    }
    if drawn.contains(OVERLAP) {
        out.push_str(&format!("{OVERLAP}  more than one curve in the cell\n"));
    }
    out
}

fn pct_label(frac: f64) -> String {
    format!("{:.0} %", frac * 100.0)
}

/// A cluster's allocated (a) and busy (b) GPUs over the audit window, averaged into as many
/// buckets as the chart has columns, against its capacity (=).
pub fn utilization_chart(cluster: &ClusterAudit) -> String {
    let busy = bucket_means(&cluster.hourly.busy_gpus, PLOT_COLUMNS);
    let utilized = bucket_means(&cluster.hourly.utilized_gpus, PLOT_COLUMNS);
    let in_days = |points: Vec<(f64, f64)>| points.into_iter().map(|(h, v)| (h / 24.0, v)).collect::<Vec<_>>();
    let days = cluster.hourly.hours() / 24.0;
    let highest = busy
        .iter()
        .chain(&utilized)
        .map(|p| p.1)
        .fold(cluster.capacity_gpus, f64::max);
    let plot = Plot {
        x: Axis::spanning(0.0, days, 6),
        y: Axis::covering(0.0, highest, 4),
        x_rules: Vec::new(),
        y_rules: vec![(cluster.capacity_gpus, '=')],
        series: vec![('a', in_days(busy)), ('b', in_days(utilized))],
        mark_overlaps: false,
        x_label: |day| format!("day {day:.0}"),
        y_label: thousands,
    };
    format!(
        "cluster {}: GPUs over {:.0} days, capacity {} ({})\n\n{}\na  allocated GPUs   b  busy GPUs (doing work), drawn over a   =  capacity\n",
        cluster.name,
        days,
        gpu_count(cluster.capacity_gpus),
        cluster.capacity_source,
        plot.render()
    )
}

/// A class's demand: its history day by day (`h`), then the forecast's mean (`m`), its 80 %
/// interval (`8`) and its 95 % interval (`9`); a dotted line where the data's reach ends.
pub fn forecast_chart(title: &str, forecast: &SeriesForecast) -> String {
    let history = &forecast.history_daily_gpus;
    let past = history.len() as f64;
    let at = |values: Vec<f64>, offset: f64| -> Vec<(f64, f64)> {
        bucket_means(&values, PLOT_COLUMNS)
            .into_iter()
            .map(|(day, v)| (day + offset, v))
            .collect()
    };
    let field = |f: fn(&DailyForecast) -> f64| forecast.daily.iter().map(f).collect::<Vec<f64>>();
    let highest = forecast.highest_gpus().max(1.0);
    let end = past + forecast.daily.len() as f64;
    let mut x_rules = vec![past];
    x_rules.extend(forecast.data_reach_ends().map(|days| past + f64::from(days)));
    let plot = Plot {
        x: Axis::spanning(0.0, end.max(1.0), 6),
        y: Axis::covering(0.0, highest, 4),
        x_rules,
        y_rules: Vec::new(),
        series: vec![
            ('9', at(field(|d| d.hi95), past)),
            ('9', at(field(|d| d.lo95), past)),
            ('8', at(field(|d| d.hi80), past)),
            ('8', at(field(|d| d.lo80), past)),
            ('m', at(field(|d| d.mean_gpus), past)),
            ('h', at(history.clone(), 0.0)),
        ],
        mark_overlaps: false,
        x_label: |day| format!("day {day:.0}"),
        y_label: thousands,
    };
    format!(
        "{title}: GPUs, {:.0} days of history then {} forecast\n\n{}\nh  history (daily mean)   m  forecast   8  80 % interval   9  95 % interval   :  today, and where the data's reach ends\n",
        past,
        forecast.daily.len(),
        plot.render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::catalog::builtin;
    use crate::config::plan_file::default_plan;
    use crate::model::sensitivity::cost_curves;

    #[test]
    fn the_cost_chart_draws_every_curve_its_slider_and_the_thresholds() {
        let catalog = builtin().catalog;
        let plan = default_plan(&catalog).expect("default plan");
        let curves = cost_curves(&plan, &catalog);
        let rules = vec![(0.25, "floor".to_string()), (0.40, "reservation".to_string())];
        let chart = cost_curves_chart(&curves, &rules);
        for (i, c) in curves.iter().enumerate() {
            assert!(chart.contains(glyph(i, false)), "{chart}");
            assert!(chart.contains(glyph(i, true)), "{chart}");
            assert!(chart.contains(&c.accelerator), "{chart}");
        }
        assert!(chart.contains("10 %") && chart.contains("70 %"), "{chart}");
        assert!(chart.contains("25.0 % floor; 40.0 % reservation"), "{chart}");
        // Every plot line has the same frame: label gutter, then `|`.
        let bars: Vec<usize> = chart.lines().filter_map(|l| l.find(" |")).collect();
        assert_eq!(bars.len(), PLOT_ROWS);
        assert!(bars.windows(2).all(|w| w[0] == w[1]), "{chart}");
        assert!(chart.is_ascii());
    }

    #[test]
    fn the_highest_cost_sits_on_the_top_row_and_the_lowest_lower() {
        let curve = CostCurve {
            accelerator: "x".into(),
            points: vec![(0.1, 10.0), (0.7, 1.0)],
            slider: (0.4, 2.0),
        };
        let chart = cost_curves_chart(&[curve], &[]);
        let rows: Vec<&str> = chart.lines().filter(|l| l.contains(" |")).collect();
        assert!(rows[0].ends_with("|a"), "{chart}");
        let low = rows.iter().rposition(|r| r.ends_with('a')).expect("the 70 % point");
        // $1 on a $0-$10 axis: a tenth of the way up from the bottom row, in the last column.
        let tenth_up = (0.1 * (PLOT_ROWS - 1) as f64).round() as usize;
        assert_eq!(low, PLOT_ROWS - 1 - tenth_up, "{chart}");
        assert!(rows.iter().any(|r| r.contains('A')), "{chart}");
    }

    #[test]
    fn a_slider_wins_its_cell_and_two_curves_share_a_star() {
        assert_eq!(merged(' ', 'a'), 'a');
        assert_eq!(merged(':', 'a'), 'a');
        assert_eq!(merged('a', 'A'), 'A');
        assert_eq!(merged('c', 'A'), 'A');
        assert_eq!(merged('a', 'c'), '*');
        assert_eq!(merged('C', 'A'), '*');
        assert_eq!(merged('*', 'A'), 'A');
        assert_eq!(merged('*', 'b'), '*');
    }

    #[test]
    fn out_of_range_positions_have_no_cell() {
        assert_eq!(cell(-0.5, 10), None);
        assert_eq!(cell(1.5, 10), None);
        assert_eq!(cell(1.0, 10), Some(9));
        assert_eq!(cell(f64::NAN, 10), None);
    }
}
