//! Dialogs drawn over the panes: help, palette, value entry, save as, quit, conflict, recovery,
//! compare (and what reading said, in `read_notices`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::theme::Theme;
use super::widgets::{inner, label, pane_block, wrap_words, wrapped};
use crate::app::command::{COMMANDS, CommandId};
use crate::app::palette::{PaletteMode, matches};
use crate::app::{App, Overlay};

pub fn render(app: &App, theme: &Theme, frame: &mut Frame, size: Rect) {
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help { scroll } => help(app, theme, frame, size, *scroll),
        Overlay::ReadNotices { scroll } => super::read_notices::overlay(app, theme, frame, size, *scroll),
        Overlay::Palette(state) => {
            let title = match state.mode {
                PaletteMode::All => "Palette: commands, accelerators, clusters, plans, logs",
                PaletteMode::Files => "Open a log or plan",
                PaletteMode::Compare => "Compare with a plan",
            };
            // Wide enough for the longest entry where the screen allows.
            let found = matches(app, state);
            let longest = found.iter().map(|e| e.label.chars().count()).max().unwrap_or(0);
            let wanted = (longest + 13 + 10 + 2).clamp(70, usize::from(size.width.saturating_sub(2)).max(70));
            let area = centered(size, u16::try_from(wanted).unwrap_or(70), 18);
            let body = dialog(frame, area, title, theme);
            let mut lines = vec![Line::from(vec![
                Span::styled("› ", theme.title),
                Span::styled(state.query.clone(), theme.base),
                Span::styled("▏", theme.title),
            ])];
            let visible = body.height.saturating_sub(1) as usize;
            let first = state.selected.saturating_sub(visible.saturating_sub(1));
            for (i, entry) in found.iter().enumerate().skip(first).take(visible) {
                let style = if i == state.selected {
                    theme.selected
                } else {
                    theme.base
                };
                let hint_width = 10;
                let text_width = (body.width as usize).saturating_sub(hint_width + 13);
                lines.push(Line::from(vec![
                    Span::styled(format!("{:<12} ", entry.kind), theme.muted),
                    Span::styled(label(&entry.label, text_width), style),
                    Span::styled(format!("{:>hint_width$}", entry.key_hint), theme.title),
                ]));
            }
            if found.is_empty() {
                lines.push(Line::styled("nothing matches", theme.muted));
            }
            frame.render_widget(Paragraph::new(lines), body);
        }
        Overlay::Entry { field, text, error } => text_dialog(
            frame,
            theme,
            centered(size, 50, 6),
            ("Type a value", &field.label(&app.plan)),
            (text, ""),
            (error.as_deref(), "Enter to set, Esc to cancel"),
        ),
        Overlay::SaveAs { text, error, choices } => save_as_dialog(frame, theme, size, text, error.as_deref(), choices),
        Overlay::ConfirmQuit => {
            let area = centered(size, 50, 5);
            let body = dialog(frame, area, "Unsaved edits", theme);
            let lines = vec![
                Line::styled("The plan has edits that are not saved.", theme.warn),
                Line::from(vec![
                    Span::styled("s", theme.title),
                    Span::styled(" save and quit  ", theme.base),
                    Span::styled("y", theme.title),
                    Span::styled(" quit without saving  ", theme.base),
                    Span::styled("n", theme.title),
                    Span::styled(" stay", theme.base),
                ]),
            ];
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), body);
        }
        Overlay::Conflict(_) => {
            let area = centered(size, 64, 9);
            let body = dialog(frame, area, "The plan file changed on disk", theme);
            let choice = |key, what| choice_line(key, what, theme);
            let lines = vec![
                Line::styled(
                    "Someone edited the file while you hold unsaved edits. Nothing is lost until you choose:",
                    theme.warn,
                ),
                choice("O", "keep mine, written over the file"),
                choice("K", "keep mine as a copy (name-mine.toml); the file stays theirs"),
                choice("T", "take theirs (undo brings mine back)"),
                choice("C", "compare the two side by side"),
            ];
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), body);
        }
        Overlay::Recover => recover(app, theme, frame, size),
        Overlay::Compare { scroll, column, .. } => super::compare::render(app, theme, frame, size, *scroll, *column),
    }
}

/// One choice of a dialog: its key, then what it does.
fn choice_line(key: &'static str, what: &'static str, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!(" {key}  "), theme.title),
        Span::styled(what, theme.base),
    ])
}

/// The offer of edits kept by a workbench that a signal or a panic stopped.
fn recover(app: &App, theme: &Theme, frame: &mut Frame, size: Rect) {
    let file = app
        .recovery
        .as_ref()
        .map_or_else(String::new, |r| r.path.display().to_string());
    let area = centered(size, 72, 10);
    let body = dialog(frame, area, "Unsaved edits were kept", theme);
    let choice = |key, what| choice_line(key, what, theme);
    let lines = vec![
        Line::styled(
            format!("A workbench stopped by a signal or a crash kept its unsaved edits of this plan in {file}."),
            theme.warn,
        ),
        choice("R", "recover them, as unsaved edits (the file changes when you save)"),
        choice("D", "discard them (deletes the recovery file)"),
        choice("C", "diff: the kept edits beside the plan on disk"),
        choice("Esc", "decide later (the recovery file stays)"),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), body);
}

/// A dialog that takes a line of text: (title, prompt), (text, suffix after it), (error, hint).
fn text_dialog(
    frame: &mut Frame,
    theme: &Theme,
    area: Rect,
    (title, prompt): (&str, &str),
    (text, suffix): (&str, &str),
    (error, hint): (Option<&str>, &str),
) {
    let body = dialog(frame, area, title, theme);
    let lines = vec![
        Line::styled(prompt.to_string(), theme.muted),
        Line::from(vec![
            Span::styled("› ", theme.title),
            Span::styled(text.to_string(), theme.base),
            Span::styled(format!("{suffix}▏"), theme.muted),
        ]),
        match error {
            Some(e) => Line::styled(e.to_string(), theme.bad),
            None => Line::styled(hint.to_string(), theme.muted),
        },
    ];
    frame.render_widget(Paragraph::new(lines), body);
}

/// The path to save to, with what Tab found or why the last try was refused, wrapped.
fn save_as_dialog(frame: &mut Frame, theme: &Theme, size: Rect, text: &str, error: Option<&str>, choices: &[String]) {
    let body = dialog(frame, centered(size, 72, 8), "Save the plan to", theme);
    // The end of a long path is what is being typed: keep it in view.
    let room = usize::from(body.width).saturating_sub(3);
    let shown: String = {
        let count = text.chars().count();
        text.chars().skip(count.saturating_sub(room)).collect()
    };
    let last = match (error, choices.is_empty()) {
        (Some(e), _) => Line::styled(e.to_string(), theme.bad),
        (None, false) => Line::styled(choices.join("  "), theme.base),
        (None, true) => Line::styled("Enter to save, Tab to complete, Esc to cancel", theme.muted),
    };
    let lines = vec![
        Line::styled(
            "a file path, from the current folder; its folder must exist",
            theme.muted,
        ),
        Line::from(vec![
            Span::styled("› ", theme.title),
            Span::styled(shown, theme.base),
            Span::styled("▏", theme.muted),
        ]),
        last,
    ];
    frame.render_widget(Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }), body);
}

pub(super) fn dialog(frame: &mut Frame, area: Rect, title: &str, theme: &Theme) -> Rect {
    frame.render_widget(Clear, area);
    frame.render_widget(pane_block(title, true, theme), area);
    inner(area)
}

/// A box of at most `width`×`height` in the middle of `size`.
pub(super) fn centered(size: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(size.width);
    let height = height.min(size.height);
    Rect {
        x: size.x + (size.width - width) / 2,
        y: size.y + (size.height - height) / 2,
        width,
        height,
    }
}

/// One meaning per word, as every pane, the report and the JSON use it (docs/glossary.md).
const WORDS: &str = "Words (docs/glossary.md): paid = capacity × hours; allocated = held by a job; busy = doing work \
                     (allocated × utilization); allocated idle = allocated and not busy; never allocated = paid and held \
                     by no job; stranded = paid and not busy (never allocated + allocated idle); utilization = busy over \
                     paid; set aside = rows the audit kept out, each with its reason.";

/// Columns of the help overlay's keys and command names, before what each command does.
const HELP_KEYS_WIDTH: usize = 22;
const HELP_NAME_WIDTH: usize = 24;
/// Between a command's title and what it does, where one line holds both.
const HELP_SEPARATOR: &str = " · ";

fn help(app: &App, theme: &Theme, frame: &mut Frame, size: Rect, scroll: usize) {
    // As wide as the longest line needs, within the screen: every title whole where it fits,
    // wrapped under its column where it does not.
    let longest = COMMANDS
        .iter()
        .map(|c| c.title.chars().count() + HELP_SEPARATOR.chars().count() + c.help.chars().count())
        .max()
        .unwrap_or(0);
    let wanted = (HELP_KEYS_WIDTH + HELP_NAME_WIDTH + longest + 4).max(76);
    let area = centered(
        size,
        u16::try_from(wanted).unwrap_or(u16::MAX),
        size.height.saturating_sub(2),
    );
    let body = dialog(
        frame,
        area,
        "Keys (Esc closes; user key map: keys.toml in the config folder)",
        theme,
    );
    let mut lines = Vec::new();
    let title_width = (body.width as usize)
        .saturating_sub(HELP_KEYS_WIDTH + HELP_NAME_WIDTH)
        .max(12);
    let indent = || Span::raw(" ".repeat(HELP_KEYS_WIDTH + HELP_NAME_WIDTH));
    for command in COMMANDS {
        let mut parts = wrap_words(command.title, title_width).into_iter();
        let mut first = vec![
            Span::styled(
                format!("{:<HELP_KEYS_WIDTH$}", app.keymap.all_hints(command.id)),
                theme.title,
            ),
            Span::styled(format!("{:<HELP_NAME_WIDTH$}", command.name), theme.muted),
            Span::styled(parts.next().unwrap_or_default(), theme.base),
        ];
        let rest: Vec<String> = parts.collect();
        let whole = command.title.chars().count() + HELP_SEPARATOR.chars().count() + command.help.chars().count();
        // What it does beside its title where the line holds both, else on lines of its own.
        if rest.is_empty() && whole <= title_width {
            first.push(Span::styled(format!("{HELP_SEPARATOR}{}", command.help), theme.muted));
            lines.push(Line::from(first));
            continue;
        }
        lines.push(Line::from(first));
        for part in rest {
            lines.push(Line::from(vec![indent(), Span::styled(part, theme.base)]));
        }
        for help in wrap_words(command.help, title_width) {
            lines.push(Line::from(vec![indent(), Span::styled(help, theme.muted)]));
        }
    }
    lines.push(Line::raw(""));
    let values = format!(
        "Values: {}{} steps the selected value and {} types it: an MFU, an inference input, a risk cell, a pool, \
         a forecast row, and in a cluster ({} on Workloads) its price per GPU-hour, GPUs, term and deployment.",
        app.key_hint(CommandId::Decrease),
        app.key_hint(CommandId::Increase),
        app.key_hint(CommandId::Edit),
        app.key_hint(CommandId::Drill),
    );
    let scrolling = format!(
        "Scrolling: every pane scrolls, {} {} a page, {} {} to its first and last line, the arrows a line \
         where they have nothing more to select; ↑ N more and ↓ N more on its border say what lies beyond. \
         {} zooms the focused pane to the whole screen; {} again or {} gives the others back.",
        app.key_hint(CommandId::PageUp),
        app.key_hint(CommandId::PageDown),
        app.key_hint(CommandId::ScrollTop),
        app.key_hint(CommandId::ScrollBottom),
        app.key_hint(CommandId::Zoom),
        app.key_hint(CommandId::Zoom),
        app.key_hint(CommandId::Back),
    );
    let mouse = "Mouse: click a pane to focus it, the wheel scrolls the pane under the pointer, click or drag a slider \
                 to set an MFU or a growth.";
    for note in [
        values.as_str(),
        scrolling.as_str(),
        mouse,
        WORDS,
        super::panes::layer_lines::CONTRACTS_GLOSSARY,
    ] {
        lines.extend(wrapped(note, body.width, theme.muted));
    }
    let scroll = scroll.min(lines.len().saturating_sub(1)) as u16;
    frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), body);
}
