//! A report as data (sections of tables, key-value lists and notes), rendered either as
//! aligned terminal text or as Markdown for a review.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub headers: Vec<String>,
    pub align: Vec<Align>,
    pub rows: Vec<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Table(Table),
    /// Label and value pairs, one a line.
    Facts(Vec<(String, String)>),
    Note(String),
    /// Text shown as it is, in a fixed-width font (a text chart).
    Preformatted(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub title: String,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub title: String,
    pub sections: Vec<Section>,
}

impl Table {
    pub fn new(columns: &[(&str, Align)]) -> Table {
        Table {
            headers: columns.iter().map(|(h, _)| h.to_string()).collect(),
            align: columns.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    fn widths(&self) -> Vec<usize> {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                if let Some(w) = widths.get_mut(i) {
                    *w = (*w).max(cell.chars().count());
                }
            }
        }
        widths
    }
}

fn pad(cell: &str, width: usize, align: Align) -> String {
    match align {
        Align::Left => format!("{cell:<width$}"),
        Align::Right => format!("{cell:>width$}"),
    }
}

fn text_row(cells: &[String], widths: &[usize], align: &[Align]) -> String {
    let parts: Vec<String> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            pad(
                c,
                widths.get(i).copied().unwrap_or(0),
                align.get(i).copied().unwrap_or(Align::Left),
            )
        })
        .collect();
    format!("  {}", parts.join("  ")).trim_end().to_string()
}

/// Prose is wrapped to this many columns; table rows are data and keep their width.
pub const TEXT_WIDTH: usize = 120;

/// Words of `text` in lines of at most `width` characters; a word longer than that (a path, a
/// URL) stands alone on its line rather than being cut.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        let mut line_chars = 0;
        for word in paragraph.split_whitespace() {
            let word_chars = word.chars().count();
            if line_chars > 0 && line_chars + 1 + word_chars > width {
                lines.push(std::mem::take(&mut line));
                line_chars = 0;
            }
            if line_chars > 0 {
                line.push(' ');
                line_chars += 1;
            }
            line.push_str(word);
            line_chars += word_chars;
        }
        lines.push(line);
    }
    lines
}

/// Aligned plain text for a terminal.
pub fn render_text(doc: &Document) -> String {
    let mut out = format!("{}\n", doc.title);
    for section in &doc.sections {
        out.push_str(&format!("\n{}\n", section.title.to_uppercase()));
        for block in &section.blocks {
            match block {
                Block::Table(table) => {
                    let widths = table.widths();
                    out.push_str(&text_row(&table.headers, &widths, &table.align));
                    out.push('\n');
                    for row in &table.rows {
                        out.push_str(&text_row(row, &widths, &table.align));
                        out.push('\n');
                    }
                }
                Block::Facts(facts) => {
                    let width = facts.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
                    for (label, value) in facts {
                        out.push_str(&format!("  {label:<width$}  {value}\n"));
                    }
                }
                // A note keeps its own line breaks and wraps what is longer; each line indented.
                Block::Note(note) => {
                    for line in wrap(note, TEXT_WIDTH - 2) {
                        out.push_str(&format!("  {line}\n"));
                    }
                }
                Block::Preformatted(text) => {
                    for line in text.lines() {
                        out.push_str(format!("  {line}").trim_end());
                        out.push('\n');
                    }
                }
            }
        }
    }
    out
}

fn md_escape(cell: &str) -> String {
    cell.replace('|', "\\|")
}

/// GitHub-flavoured Markdown, to paste into a review.
pub fn render_markdown(doc: &Document) -> String {
    let mut out = format!("# {}\n", doc.title);
    for section in &doc.sections {
        out.push_str(&format!("\n## {}\n\n", section.title));
        for block in &section.blocks {
            match block {
                Block::Table(table) => {
                    let cells: Vec<String> = table.headers.iter().map(|h| md_escape(h)).collect();
                    out.push_str(&format!("| {} |\n", cells.join(" | ")));
                    let rule: Vec<&str> = table
                        .align
                        .iter()
                        .map(|a| if *a == Align::Right { "---:" } else { "---" })
                        .collect();
                    out.push_str(&format!("| {} |\n", rule.join(" | ")));
                    for row in &table.rows {
                        let cells: Vec<String> = row.iter().map(|c| md_escape(c)).collect();
                        out.push_str(&format!("| {} |\n", cells.join(" | ")));
                    }
                    out.push('\n');
                }
                Block::Facts(facts) => {
                    for (label, value) in facts {
                        out.push_str(&format!("- **{}**: {}\n", md_escape(label), md_escape(value)));
                    }
                    out.push('\n');
                }
                Block::Note(note) => out.push_str(&format!("{note}\n\n")),
                Block::Preformatted(text) => out.push_str(&format!("```text\n{}\n```\n\n", text.trim_end())),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_at_word_boundaries_and_long_words_stand_alone() {
        assert_eq!(wrap("one two three", 7), vec!["one two", "three"]);
        assert_eq!(
            wrap("a https://example.com/very/long b", 8),
            vec!["a", "https://example.com/very/long", "b"]
        );
        assert_eq!(wrap("first\nsecond", 80), vec!["first", "second"]);
        assert_eq!(wrap("", 10), vec![""]);
    }

    fn sample() -> Document {
        let mut table = Table::new(&[("chip", Align::Left), ("cost", Align::Right)]);
        table.row(vec!["h100-sxm".into(), "$4.21M".into()]);
        table.row(vec!["a|b".into(), "$1".into()]);
        Document {
            title: "T".into(),
            sections: vec![Section {
                title: "Training".into(),
                blocks: vec![Block::Table(table), Block::Facts(vec![("k".into(), "v".into())])],
            }],
        }
    }

    #[test]
    fn text_aligns_columns() {
        let text = render_text(&sample());
        assert!(
            text.contains("  chip        cost\n  h100-sxm  $4.21M\n  a|b           $1\n"),
            "{text}"
        );
    }

    #[test]
    fn preformatted_text_is_fenced_in_markdown_and_indented_in_text() {
        let doc = Document {
            title: "T".into(),
            sections: vec![Section {
                title: "Charts".into(),
                blocks: vec![Block::Preformatted("a | b\n  c\n".into())],
            }],
        };
        assert!(render_markdown(&doc).contains("\n```text\na | b\n  c\n```\n"));
        assert!(render_text(&doc).contains("\n  a | b\n    c\n"));
    }

    #[test]
    fn markdown_escapes_pipes_and_right_aligns_numbers() {
        let md = render_markdown(&sample());
        assert!(md.contains("| --- | ---: |"), "{md}");
        assert!(md.contains("| a\\|b | $1 |"), "{md}");
    }
}
