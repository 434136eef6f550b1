//! Colours resolved once into styles. Themes are TOML files (`themes/`); `runtime::theme_files`
//! reads them, this is what drawing uses.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    pub base: Style,
    pub muted: Style,
    pub title: Style,
    pub border: Style,
    pub border_focused: Style,
    pub selected: Style,
    pub good: Style,
    pub warn: Style,
    pub bad: Style,
    pub training: Style,
    pub inference: Style,
    pub burst: Style,
    pub idle: Style,
    /// One colour per accelerator curve, in plan order.
    pub series: Vec<Style>,
    /// Without colour, classes and statuses are told apart by glyphs alone.
    pub has_colour: bool,
}

impl Theme {
    /// No colour at all, for `NO_COLOR` and terminals that have none: bold, reverse and glyphs.
    pub fn monochrome() -> Theme {
        let plain = Style::default();
        Theme {
            name: "monochrome".to_string(),
            base: plain,
            muted: plain.add_modifier(Modifier::DIM),
            title: plain.add_modifier(Modifier::BOLD),
            border: plain,
            border_focused: plain.add_modifier(Modifier::BOLD),
            selected: plain.add_modifier(Modifier::REVERSED),
            good: plain,
            warn: plain.add_modifier(Modifier::BOLD),
            bad: plain.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            training: plain,
            inference: plain,
            burst: plain,
            idle: plain.add_modifier(Modifier::DIM),
            series: vec![plain],
            has_colour: false,
        }
    }

    /// A workload class's colour.
    pub fn class_style(&self, class: crate::model::workload::WorkloadClass) -> Style {
        use crate::model::workload::WorkloadClass;
        match class {
            WorkloadClass::Training => self.training,
            WorkloadClass::Inference => self.inference,
            WorkloadClass::Burst => self.burst,
        }
    }

    pub fn series(&self, index: usize) -> Style {
        self.series
            .get(index % self.series.len().max(1))
            .copied()
            .unwrap_or(self.base)
    }
}

/// A colour a theme names that cannot be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ColorError {
    /// `#` and not six hex digits.
    #[error("'{text}' is not a colour: expected #rrggbb")]
    NotHex { text: String },
    #[error(
        "'{text}' is not a colour: expected #rrggbb, 0-255, or one of black, red, green, yellow, blue, magenta, \
         cyan, gray, darkgray, lightred, lightgreen, lightyellow, lightblue, lightmagenta, lightcyan, white, reset"
    )]
    NotAColour { text: String },
}

/// Reads `#rrggbb`, a name of the 16 ANSI colours (`red`, `lightblue`, `darkgray`...) or an
/// index `0`-`255`.
pub fn parse_color(text: &str) -> Result<Color, ColorError> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix('#') {
        if hex.len() == 6
            && let Ok(v) = u32::from_str_radix(hex, 16)
        {
            return Ok(Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8));
        }
        return Err(ColorError::NotHex { text: t.to_string() });
    }
    if let Ok(index) = t.parse::<u8>() {
        return Ok(Color::Indexed(index));
    }
    let color = match t.to_ascii_lowercase().replace(['-', '_', ' '], "").as_str() {
        "reset" | "default" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" | "grey" => Color::Gray,
        "darkgray" | "darkgrey" => Color::DarkGray,
        "lightred" => Color::LightRed,
        "lightgreen" => Color::LightGreen,
        "lightyellow" => Color::LightYellow,
        "lightblue" => Color::LightBlue,
        "lightmagenta" => Color::LightMagenta,
        "lightcyan" => Color::LightCyan,
        "white" => Color::White,
        _ => {
            return Err(ColorError::NotAColour { text: t.to_string() });
        }
    };
    Ok(color)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_read_in_three_notations() {
        assert_eq!(parse_color("#ff8000"), Ok(Color::Rgb(255, 128, 0)));
        assert_eq!(parse_color("light-blue"), Ok(Color::LightBlue));
        assert_eq!(parse_color("208"), Ok(Color::Indexed(208)));
        assert!(parse_color("#ff80").is_err());
        assert!(parse_color("mauve").is_err());
    }
}
