//! Presentation for the headless commands (report, audit, replay, diff, board, bill, catalog and
//! the exports): documents rendered as terminal text or Markdown, and charts as text or SVG.
//! The workbench (src/ui) draws its own panes and does not use this module.

pub mod chart;
pub mod document;
pub mod replay_svg;
pub mod svg;
pub mod text_chart;
pub mod waterfall_svg;
