//! Small drawing helpers shared by the panes.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders};

use super::theme::Theme;

pub fn pane_block<'a>(title: &'a str, focused: bool, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(if focused { theme.border_focused } else { theme.border })
        .title(Span::styled(format!(" {title} "), theme.title))
}

/// A line of whole fields: fields that do not fit are left out, never cut, so no number is
/// shown halved.
pub fn fields_line<'a>(fields: Vec<(String, Style)>, width: u16) -> Line<'a> {
    let mut used = 0usize;
    let mut spans = Vec::new();
    for (text, style) in fields {
        let len = text.chars().count();
        if used + len > width as usize {
            break;
        }
        used += len;
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

/// Like `fields_line`, for groups that show together or not at all (a key and what it does); a
/// group that does not fit is passed over and a shorter one after it may still show.
pub fn paired_fields_line<'a>(groups: Vec<Vec<(String, Style)>>, width: u16) -> Line<'a> {
    let mut used = 0usize;
    let mut spans = Vec::new();
    for group in groups {
        let len: usize = group.iter().map(|(t, _)| t.chars().count()).sum();
        if used + len > width as usize {
            continue;
        }
        used += len;
        spans.extend(group.into_iter().map(|(t, s)| Span::styled(t, s)));
    }
    Line::from(spans)
}

/// Like `fields_line`, but a field that does not fit goes on to the next line, `indent`
/// columns in, and a field wider than a line wraps at its spaces: nothing is left out at any
/// width (so no figure is shown at one size only), and no number is cut.
pub fn flowed_fields(fields: Vec<(String, Style)>, width: u16, indent: usize) -> Vec<Line<'static>> {
    let width = usize::from(width).max(1);
    let indent = indent.min(width / 2);
    let mut lines = Vec::new();
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0usize;
    for (text, style) in fields {
        let len = text.chars().count();
        if used + len <= width {
            used += len;
            spans.push(Span::styled(text, style));
            continue;
        }
        // A fresh line for it: a separator or gap at its start has nothing left to separate.
        let text = text.trim_start_matches([' ', '·']).to_string();
        if !spans.is_empty() {
            lines.push(Line::from(std::mem::take(&mut spans)));
        }
        let pad = " ".repeat(indent);
        let parts = wrap_words(&text, width - indent);
        let count = parts.len();
        for (k, part) in parts.into_iter().enumerate() {
            let piece = vec![Span::raw(pad.clone()), Span::styled(part, style)];
            if k + 1 < count {
                lines.push(Line::from(piece));
            } else {
                used = indent + piece[1].content.chars().count();
                spans = piece;
            }
        }
    }
    if !spans.is_empty() || lines.is_empty() {
        lines.push(Line::from(spans));
    }
    lines
}

/// Pads or cuts a label to exactly `width` characters (labels may be cut; numbers never are).
pub fn label(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        format!("{text:<width$}")
    } else if width > 1 {
        let mut cut: String = text.chars().take(width - 1).collect();
        cut.push('…');
        cut
    } else {
        text.chars().take(width).collect()
    }
}

pub fn right(text: &str, width: usize) -> String {
    format!("{text:>width$}")
}

/// A figure right-aligned in a column `width` wide that keeps its first character as the gap
/// to the column before: a figure as wide as its column or wider (7,955,991 GPU-h where the
/// sample's fit) is never run into its neighbour.
pub fn cell(text: &str, width: usize) -> String {
    format!(" {}", right(text, width.saturating_sub(1)))
}

/// The rectangle inside a block's borders.
pub fn inner(area: Rect) -> Rect {
    Rect {
        x: area.x.saturating_add(1),
        y: area.y.saturating_add(1),
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    }
}

/// Rows `from..` of an area, clipped.
pub fn rows_from(area: Rect, from: u16) -> Rect {
    let from = from.min(area.height);
    Rect {
        y: area.y + from,
        height: area.height - from,
        ..area
    }
}

/// One row of an area, or an empty rect when the area is shorter.
pub fn row(area: Rect, index: u16) -> Rect {
    if index >= area.height {
        return Rect { height: 0, ..area };
    }
    Rect {
        y: area.y + index,
        height: 1,
        ..area
    }
}

/// A slider's track `width` cells wide with its knob at `frac` of the way: `━━━●───`.
pub fn track_of(frac: f64, width: usize) -> String {
    let knob = (frac.clamp(0.0, 1.0) * (width.saturating_sub(1)) as f64).round() as usize;
    (0..width)
        .map(|i| match i.cmp(&knob) {
            std::cmp::Ordering::Less => '━',
            std::cmp::Ordering::Equal => '●',
            std::cmp::Ordering::Greater => '─',
        })
        .collect()
}

/// Block characters for bar heights in eighths.
pub const EIGHTHS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A one-row bar of `frac` of `width` cells, in eighths.
pub fn hbar(frac: f64, width: usize) -> String {
    let cells = (frac.clamp(0.0, 1.0) * width as f64 * 8.0).round() as usize;
    let full = cells / 8;
    let part = cells % 8;
    let partial = ['\0', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let mut bar = "█".repeat(full);
    if part > 0 && full < width {
        bar.push(partial[part]);
    }
    let len = bar.chars().count();
    bar.push_str(&" ".repeat(width.saturating_sub(len)));
    bar
}

pub fn status_glyph(status: crate::model::checks::CheckStatus) -> &'static str {
    match status {
        crate::model::checks::CheckStatus::Pass => "✓",
        crate::model::checks::CheckStatus::Warn => "!",
        crate::model::checks::CheckStatus::Fail => "✗",
    }
}

pub fn status_style(status: crate::model::checks::CheckStatus, theme: &Theme) -> Style {
    match status {
        crate::model::checks::CheckStatus::Pass => theme.good,
        crate::model::checks::CheckStatus::Warn => theme.warn,
        crate::model::checks::CheckStatus::Fail => theme.bad,
    }
}

/// Words wrapped to the width, for flags and notes; lines after the first indented by two.
pub fn wrapped(text: &str, width: u16, style: Style) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let fresh = line.trim().is_empty();
        if !fresh && line.chars().count() + 1 + word.chars().count() > width as usize {
            lines.push(Line::styled(std::mem::take(&mut line), style));
            line.push_str("  ");
        } else if !fresh {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.trim().is_empty() {
        lines.push(Line::styled(line, style));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_wider_than_its_column_keeps_its_gap() {
        assert_eq!(cell("2,029", 8), "   2,029");
        assert_eq!(cell("7,955,991 GPU-h", 14), " 7,955,991 GPU-h");
        assert_eq!(right("7,955,991 GPU-h", 14), "7,955,991 GPU-h");
    }

    #[test]
    fn fields_that_do_not_fit_are_left_out_whole() {
        let line = fields_line(
            vec![
                ("cost ".into(), Style::default()),
                ("$1,234,567".into(), Style::default()),
            ],
            12,
        );
        assert_eq!(line.to_string(), "cost ");
    }

    #[test]
    fn fields_that_do_not_fit_flow_onto_indented_lines_whole() {
        let text = |lines: &[Line]| lines.iter().map(ToString::to_string).collect::<Vec<_>>();
        let fields = vec![
            ("by cause ".to_string(), Style::default()),
            ("price $14.57M".to_string(), Style::default()),
            (" · terms $8.97M".to_string(), Style::default()),
            (" · fit $1.19M".to_string(), Style::default()),
        ];
        assert_eq!(
            text(&flowed_fields(fields.clone(), 40, 9)),
            ["by cause price $14.57M · terms $8.97M", "         fit $1.19M"]
        );
        assert_eq!(
            text(&flowed_fields(fields, 24, 9)),
            ["by cause price $14.57M", "         terms $8.97M", "         fit $1.19M"]
        );
        let basis = vec![
            ("2 clusters ".to_string(), Style::default()),
            ("  the fleet cut to its busiest hour".to_string(), Style::default()),
        ];
        assert_eq!(
            text(&flowed_fields(basis, 20, 4)),
            ["2 clusters ", "    the fleet cut to", "    its busiest hour"]
        );
    }

    #[test]
    fn bars_fill_in_eighths() {
        assert_eq!(hbar(0.5, 4), "██  ");
        assert_eq!(hbar(1.0, 3), "███");
        assert_eq!(hbar(0.0, 2), "  ");
        assert_eq!(hbar(1.0 / 16.0, 2).chars().next(), Some('▏'));
    }
}

/// `text` cut at spaces into lines of at most `width` characters (a word longer than that
/// stands alone on its line).
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && needed > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod wrap_tests {
    use super::wrap_words;

    #[test]
    fn words_wrap_whole_within_the_width() {
        assert_eq!(
            wrap_words("Back out of a drill or dialog", 12),
            ["Back out of", "a drill or", "dialog"]
        );
        assert_eq!(wrap_words("short", 40), ["short"]);
        assert_eq!(wrap_words("", 10), [""]);
        assert_eq!(wrap_words("unbreakableword x", 5), ["unbreakableword", "x"]);
    }
}
