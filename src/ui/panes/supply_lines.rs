//! The selected class's supply in the Contracts pane: its largest gang, the offers left out and
//! why (one line per reason), and what the chosen offers' sellers leave unstated.

use ratatui::style::Style;
use ratatui::text::Line;

use crate::model::fleet_contracts::ClassContracts;
use crate::ui::theme::Theme;
use crate::ui::widgets::wrap_words;

pub fn supply_lines(class: &ClassContracts, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    // Two columns of indent, four on a wrapped line's continuation.
    let wrap_at = usize::from(width).saturating_sub(4).max(16);
    let mut lines = Vec::new();
    let mut push = |text: String, style: Style| {
        for (k, part) in wrap_words(&text, wrap_at).into_iter().enumerate() {
            let indent = if k == 0 { "  " } else { "    " };
            lines.push(Line::styled(format!("{indent}{part}"), style));
        }
    };
    if let Some(gang) = class.largest_gang_gpus {
        push(
            format!("largest gang {gang:.0} GPUs of {}", class.accelerator),
            theme.muted,
        );
    }
    for (reason, offers) in class.exclusions_by_reason() {
        push(format!("left out: {} ({reason})", offers.join(", ")), theme.muted);
    }
    for trusted in &class.assumed_supply {
        push(format!("on trust: {trusted}"), theme.warn);
    }
    lines
}
