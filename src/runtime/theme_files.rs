//! Themes: the built-in `themes/*.toml` and the user's in the config folder's `themes/`,
//! read forgivingly (a bad colour is reported with file, line and key; the default stands in)
//! and resolved once into styles. `NO_COLOR` turns colour off.

use std::path::Path;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

use crate::config::diagnostic::Diagnostic;
use crate::ui::theme::{Theme, parse_color};

const BUILTIN: [(&str, &str); 3] = [
    ("themes/dark.toml", include_str!("../../themes/dark.toml")),
    ("themes/light.toml", include_str!("../../themes/light.toml")),
    ("themes/basic16.toml", include_str!("../../themes/basic16.toml")),
];

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    #[serde(default)]
    colors: toml::Table,
}

/// Declares the colour keys once: the all-optional struct a theme file fills, the list of its
/// keys for messages, and the lookup by name.
macro_rules! theme_colors {
    ($($key:ident),* $(,)?) => {
        /// A theme file's `[colors]`: every key optional; what a file leaves out comes from the
        /// theme it is patched over (the dark theme's, for every theme after it).
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct ThemeColors {
            $(pub $key: Option<Color>,)*
            /// One colour per accelerator curve.
            pub series: Option<Vec<Color>>,
        }

        impl ThemeColors {
            /// The keys a `[colors]` table may hold, as messages list them.
            pub const KEYS: &'static [&'static str] = &[$(stringify!($key),)* "series"];

            fn colour_slot(&mut self, key: &str) -> Option<&mut Option<Color>> {
                match key {
                    $(stringify!($key) => Some(&mut self.$key),)*
                    _ => None,
                }
            }

            /// These colours where set, `base`'s elsewhere.
            fn patched_over(self, base: &ThemeColors) -> ThemeColors {
                ThemeColors {
                    $($key: self.$key.or(base.$key),)*
                    series: self.series.or_else(|| base.series.clone()),
                }
            }
        }
    };
}

theme_colors!(
    text,
    muted,
    title,
    border,
    border_focused,
    selected_fg,
    selected_bg,
    good,
    warn,
    bad,
    training,
    inference,
    burst,
    idle,
);

fn read_colors(
    file: &str,
    text: &str,
    base: Option<&ThemeColors>,
    warnings: &mut Vec<Diagnostic>,
) -> Option<(String, ThemeColors)> {
    let parsed: ThemeFile = match toml::from_str(text) {
        Ok(parsed) => parsed,
        Err(e) => {
            warnings.push(Diagnostic::toml(file, text, &e));
            return None;
        }
    };
    let mut colors = ThemeColors::default();
    for (key, value) in &parsed.colors {
        // Placed only when there is something to say: locating re-parses the text.
        let mut warn = |message: String| {
            let key_path = format!("colors.{}", crate::config::locate::key_segment(key));
            let span = crate::config::locate::locate_key_path(text, &key_path);
            warnings.push(Diagnostic::at(file, text, span, Some(key_path), message));
        };
        let parsed_color = |v: &toml::Value| match v.as_str() {
            Some(s) => parse_color(s).map_err(|e| e.to_string()),
            None => Err(format!("expected a colour string, found {}", v.type_str())),
        };
        if key == "series" {
            let items = value
                .as_array()
                .map(|a| a.iter().map(parsed_color).collect::<Result<Vec<_>, _>>());
            match items {
                Some(Ok(series)) if !series.is_empty() => colors.series = Some(series),
                Some(Err(e)) => warn(e),
                _ => warn("expected a non-empty array of colours".to_string()),
            }
            continue;
        }
        let Some(slot) = colors.colour_slot(key) else {
            warn(format!(
                "unknown colour key; the keys are: {}",
                ThemeColors::KEYS.join(", ")
            ));
            continue;
        };
        match parsed_color(value) {
            Ok(color) => *slot = Some(color),
            Err(e) => warn(e),
        }
    }
    let name = parsed.name.unwrap_or_else(|| {
        Path::new(file)
            .file_stem()
            .map_or_else(|| "theme".to_string(), |s| s.to_string_lossy().to_string())
    });
    let colors = match base {
        Some(base) => colors.patched_over(base),
        None => colors,
    };
    Some((name, colors))
}

/// The styles drawing uses, from a theme's colours (a colour no theme set is the terminal's).
fn resolve(name: String, colors: &ThemeColors) -> Theme {
    let c = |color: Option<Color>| color.unwrap_or(Color::Reset);
    let fg = |color: Option<Color>| Style::default().fg(c(color));
    Theme {
        name,
        base: fg(colors.text),
        muted: fg(colors.muted),
        title: fg(colors.title).add_modifier(Modifier::BOLD),
        border: fg(colors.border),
        border_focused: fg(colors.border_focused).add_modifier(Modifier::BOLD),
        selected: Style::default()
            .fg(c(colors.selected_fg))
            .bg(c(colors.selected_bg))
            .add_modifier(Modifier::BOLD),
        good: fg(colors.good),
        warn: fg(colors.warn),
        bad: fg(colors.bad).add_modifier(Modifier::BOLD),
        training: fg(colors.training),
        inference: fg(colors.inference),
        burst: fg(colors.burst),
        idle: fg(colors.idle),
        series: match &colors.series {
            Some(series) if !series.is_empty() => series.iter().map(|color| Style::default().fg(*color)).collect(),
            _ => vec![fg(colors.text)],
        },
        has_colour: true,
    }
}

pub struct LoadedThemes {
    pub themes: Vec<Theme>,
    pub warnings: Vec<Diagnostic>,
}

/// The built-in themes, then the user's (`themes/*.toml` in `user_dir`), or the monochrome
/// theme alone when `no_color` (the `NO_COLOR` convention: set and not empty).
pub fn load_themes(user_dir: Option<&Path>, no_color: bool) -> LoadedThemes {
    let mut warnings = Vec::new();
    if no_color {
        return LoadedThemes {
            themes: vec![Theme::monochrome()],
            warnings,
        };
    }
    let mut themes = Vec::new();
    let mut dark: Option<ThemeColors> = None;
    for (file, text) in BUILTIN {
        if let Some((name, colors)) = read_colors(file, text, dark.as_ref(), &mut warnings) {
            themes.push(resolve(name, &colors));
            if dark.is_none() {
                dark = Some(colors);
            }
        }
    }
    if let Some(dir) = user_dir
        && let Ok(entries) = std::fs::read_dir(dir)
    {
        let mut paths: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        paths.sort();
        for path in paths {
            let file = path.display().to_string();
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    if let Some((name, colors)) = read_colors(&file, &text, dark.as_ref(), &mut warnings) {
                        // A user theme of a built-in's name replaces it where it stands.
                        let theme = resolve(name, &colors);
                        match themes.iter_mut().find(|t| t.name == theme.name) {
                            Some(slot) => *slot = theme,
                            None => themes.push(theme),
                        }
                    }
                }
                Err(e) => warnings.push(Diagnostic::file(&file, format!("cannot read the theme: {e}"))),
            }
        }
    }
    if themes.is_empty() {
        themes.push(Theme::monochrome());
    }
    LoadedThemes { themes, warnings }
}

/// True when `NO_COLOR` asks for no colour.
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_builtin_themes_load_cleanly() {
        let loaded = load_themes(None, false);
        let names: Vec<&str> = loaded.themes.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["dark", "light", "basic16"]);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let basic = &loaded.themes[2];
        assert_eq!(basic.bad.fg, Some(Color::Red));
    }

    #[test]
    fn the_dark_theme_sets_every_key_and_only_those() {
        let (_, text) = BUILTIN[0];
        let file: ThemeFile = toml::from_str(text).expect("dark.toml");
        let mut keys: Vec<&str> = file.colors.keys().map(String::as_str).collect();
        let mut known = ThemeColors::KEYS.to_vec();
        keys.sort_unstable();
        known.sort_unstable();
        assert_eq!(keys, known);
    }

    #[test]
    fn no_color_gives_the_monochrome_theme() {
        let loaded = load_themes(None, true);
        assert_eq!(loaded.themes.len(), 1);
        assert!(!loaded.themes[0].has_colour);
        assert_eq!(loaded.themes[0].base.fg, None);
    }

    #[test]
    fn a_bad_user_colour_is_reported_and_the_default_stands() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("mine.toml"),
            "name = \"mine\"\n[colors]\ngood = \"#00ff00\"\nbad = \"mauve\"\n",
        )
        .expect("write");
        let loaded = load_themes(Some(dir.path()), false);
        let mine = loaded.themes.iter().find(|t| t.name == "mine").expect("user theme");
        assert_eq!(mine.good.fg, Some(Color::Rgb(0, 255, 0)));
        let dark = &loaded.themes[0];
        assert_eq!(mine.bad.fg, dark.bad.fg);
        let message = loaded.warnings[0].to_string();
        assert!(message.contains("mine.toml:4:"), "{message}");
        assert!(message.contains("mauve"), "{message}");
    }
}
