//! Documents from the pipeline's results, for both faces: the headless commands print them
//! (report, audit, replay, forecast, backtest, diff, board, bill, catalog) and the workbench exports them (the
//! report as JSON and Markdown). Rendered as terminal text or Markdown, charts as text or SVG.
//! The workbench's panes are drawn by src/ui.

pub mod board;
pub mod chart;
pub mod charts;
pub mod commitment_backtest;
pub mod commitments;
pub mod document;
pub mod forecast;
pub mod forecast_svg;
pub mod replay;
pub mod replay_svg;
pub mod report;
pub mod svg;
pub mod text_chart;
pub mod tornado_svg;
pub mod waterfall_svg;
