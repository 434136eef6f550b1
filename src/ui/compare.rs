//! The compare view: plans side by side.

use ratatui::Frame;
use ratatui::layout::Rect;

use super::theme::Theme;
use crate::app::App;

pub fn render(_app: &App, _theme: &Theme, _frame: &mut Frame, _size: Rect) {}
