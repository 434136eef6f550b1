//! Presentation shared by the headless commands and the workbench: documents rendered as
//! terminal text or Markdown.

pub mod document;
