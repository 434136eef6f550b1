//! Presentation shared by the headless commands and the workbench: documents rendered as
//! terminal text or Markdown, and charts as text or SVG.

pub mod chart;
pub mod document;
pub mod replay_svg;
pub mod svg;
pub mod text_chart;
pub mod waterfall_svg;
