//! CSV records (RFC 4180: quotes, doubled quotes, line breaks inside quotes, CRLF), read in
//! chunks so memory stays bounded whatever the file holds: only the fields asked for are
//! kept, each up to a size limit. Every kept field knows its line and column (1-based, in
//! characters), so a bad value can be shown where it is.

use std::io::{BufRead, BufReader, Read};

/// One field of a record, when kept.
#[derive(Debug, Clone, Default)]
pub struct Field {
    pub bytes: Vec<u8>,
    pub line: u64,
    pub column: u64,
    /// Longer than the limit: `bytes` holds its start only.
    pub too_long: bool,
}

/// A record: the kept fields by index (others are empty), and how many fields it had.
#[derive(Debug, Default)]
pub struct Record {
    pub line: u64,
    pub fields: Vec<Field>,
    pub count: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    FieldStart,
    Unquoted,
    Quoted,
    QuoteInQuoted,
}

pub struct Records<R: Read> {
    reader: BufReader<R>,
    /// The line and character column of the next byte.
    line: u64,
    column: u64,
    keep: Vec<bool>,
    /// Keep every field up to this many (the header).
    keep_first: usize,
    max_field_bytes: usize,
    done: bool,
}

/// A quoted field never closed before the end of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnclosedQuote {
    pub line: u64,
    pub column: u64,
}

impl<R: Read> Records<R> {
    pub fn new(reader: R) -> Records<R> {
        Records {
            reader: BufReader::with_capacity(1 << 16, reader),
            line: 1,
            column: 1,
            keep: Vec::new(),
            keep_first: 0,
            max_field_bytes: 0,
            done: false,
        }
    }

    /// From now on, keep the fields whose index is true in `keep`, each up to `max_field_bytes`.
    pub fn keep(&mut self, keep: Vec<bool>, max_field_bytes: usize) {
        self.keep = keep;
        self.keep_first = 0;
        self.max_field_bytes = max_field_bytes;
    }

    /// From now on, keep the first `columns` fields, each up to `max_field_bytes`.
    pub fn keep_first(&mut self, columns: usize, max_field_bytes: usize) {
        self.keep = Vec::new();
        self.keep_first = columns;
        self.max_field_bytes = max_field_bytes;
    }

    /// Skips `n` bytes at the start (a byte-order mark).
    pub fn skip_bytes(&mut self, n: usize) -> std::io::Result<()> {
        let mut skipped = 0;
        while skipped < n {
            let available = self.reader.fill_buf()?.len();
            if available == 0 {
                break;
            }
            let take = available.min(n - skipped);
            self.reader.consume(take);
            skipped += take;
        }
        Ok(())
    }

    /// The next record with any content (blank lines and rows of empty fields are skipped,
    /// and counted in `blank`); `None` at the end of the file.
    pub fn next_record(&mut self, record: &mut Record, blank: &mut u64) -> Result<Option<()>, RecordError> {
        loop {
            if self.done {
                return Ok(None);
            }
            let had_content = self.read_record(record)?;
            if had_content {
                return Ok(Some(()));
            }
            if !self.done {
                *blank += 1;
            }
        }
    }

    /// Reads one record; true when it held anything but empty fields.
    fn read_record(&mut self, record: &mut Record) -> Result<bool, RecordError> {
        for field in &mut record.fields {
            field.bytes.clear();
            field.too_long = false;
        }
        record.line = self.line;
        record.count = 0;
        let mut cursor = Cursor {
            line: self.line,
            column: self.column,
            state: State::FieldStart,
            index: 0,
            started: false,
            content: false,
            quote_at: (0, 0),
            keep: &self.keep,
            keep_first: self.keep_first,
            max_field_bytes: self.max_field_bytes,
        };
        loop {
            let buf = self.reader.fill_buf().map_err(RecordError::Io)?;
            if buf.is_empty() {
                self.done = true;
                (self.line, self.column) = (cursor.line, cursor.column);
                if cursor.state == State::Quoted {
                    let (line, column) = cursor.quote_at;
                    return Err(RecordError::UnclosedQuote(UnclosedQuote { line, column }));
                }
                if cursor.started || cursor.index > 0 {
                    record.count = cursor.index + 1;
                }
                return Ok(cursor.content);
            }
            let (used, end_of_record) = cursor.feed(buf, record);
            self.reader.consume(used);
            if end_of_record {
                (self.line, self.column) = (cursor.line, cursor.column);
                record.count = cursor.index + 1;
                return Ok(cursor.content);
            }
        }
    }
}

/// Where the reading of one record stands.
struct Cursor<'k> {
    /// The line and character column of the next byte.
    line: u64,
    column: u64,
    state: State,
    /// The field being read.
    index: usize,
    /// Whether its first byte was seen.
    started: bool,
    /// Whether the record held anything but empty fields.
    content: bool,
    quote_at: (u64, u64),
    keep: &'k [bool],
    keep_first: usize,
    max_field_bytes: usize,
}

/// Characters in UTF-8 bytes (continuation bytes are not counted).
fn chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64
}

impl Cursor<'_> {
    fn wants(&self, index: usize) -> bool {
        index < self.keep_first || self.keep.get(index).copied().unwrap_or(false)
    }

    /// Appends bytes to the current field when it is kept, up to the limit.
    fn push(&mut self, record: &mut Record, bytes: &[u8]) {
        if !self.content && bytes.iter().any(|b| !b.is_ascii_whitespace()) {
            self.content = true;
        }
        if self.wants(self.index)
            && let Some(field) = record.fields.get_mut(self.index)
        {
            let room = self.max_field_bytes.saturating_sub(field.bytes.len());
            if bytes.len() > room {
                field.too_long = true;
            }
            field.bytes.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
    }

    /// Reads from `buf` up to the end of the record: the bytes used, and whether it ended.
    fn feed(&mut self, buf: &[u8], record: &mut Record) -> (usize, bool) {
        let mut i = 0;
        while i < buf.len() {
            if !self.started {
                self.started = true;
                if self.wants(self.index) {
                    if record.fields.len() <= self.index {
                        record.fields.resize_with(self.index + 1, Field::default);
                    }
                    record.fields[self.index].line = self.line;
                    record.fields[self.index].column = self.column;
                }
            }
            // Runs of plain bytes at once: nothing in them changes the state.
            let rest = &buf[i..];
            let run = match self.state {
                State::Unquoted => memchr::memchr3(b',', b'\n', b'\r', rest).unwrap_or(rest.len()),
                State::Quoted => memchr::memchr2(b'"', b'\n', rest).unwrap_or(rest.len()),
                State::FieldStart | State::QuoteInQuoted => 0,
            };
            if run > 0 {
                self.push(record, &rest[..run]);
                self.column += chars(&rest[..run]);
                i += run;
                continue;
            }
            let byte = buf[i];
            i += 1;
            let mut push = None;
            let mut end_field = false;
            let mut end_of_record = false;
            match (self.state, byte) {
                (State::FieldStart, b'"') => {
                    self.state = State::Quoted;
                    self.quote_at = (self.line, self.column);
                    self.content = true;
                }
                (State::FieldStart | State::Unquoted | State::QuoteInQuoted, b',') => end_field = true,
                (State::FieldStart | State::Unquoted | State::QuoteInQuoted, b'\n') => {
                    end_field = true;
                    end_of_record = true;
                }
                (State::FieldStart | State::Unquoted | State::QuoteInQuoted, b'\r') => {}
                (State::FieldStart | State::Unquoted, _) => {
                    self.state = State::Unquoted;
                    push = Some(byte);
                }
                (State::Quoted, b'"') => self.state = State::QuoteInQuoted,
                (State::Quoted, _) => push = Some(byte),
                (State::QuoteInQuoted, b'"') => {
                    self.state = State::Quoted;
                    push = Some(b'"');
                }
                // `"ab"cd` reads as `abcd`, as most CSV readers do.
                (State::QuoteInQuoted, _) => {
                    self.state = State::Unquoted;
                    push = Some(byte);
                }
            }
            if byte == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if byte & 0xC0 != 0x80 {
                self.column += 1;
            }
            if let Some(byte) = push {
                self.push(record, &[byte]);
            }
            if end_of_record {
                return (i, true);
            }
            if end_field {
                self.index += 1;
                self.started = false;
                self.state = State::FieldStart;
            }
        }
        (i, false)
    }
}

#[derive(Debug)]
pub enum RecordError {
    Io(std::io::Error),
    UnclosedQuote(UnclosedQuote),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &[u8], keep: usize) -> (Vec<(u64, Vec<String>, usize)>, u64) {
        let mut records = Records::new(text);
        records.keep(vec![true; keep], 16);
        let mut record = Record::default();
        let mut blank = 0;
        let mut out = Vec::new();
        while let Some(()) = records.next_record(&mut record, &mut blank).expect("reads") {
            let fields = record.fields[..keep.min(record.count)]
                .iter()
                .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
                .collect();
            out.push((record.line, fields, record.count));
        }
        (out, blank)
    }

    #[test]
    fn quotes_line_breaks_and_blank_rows() {
        let text = b"a,b,c\r\n\r\n,,\n\"x,1\",\"say \"\"hi\"\"\",\"two\nlines\"\n4,5,6";
        let (records, blank) = all(text, 3);
        assert_eq!(blank, 2);
        assert_eq!(records[0], (1, vec!["a".into(), "b".into(), "c".into()], 3));
        assert_eq!(
            records[1],
            (4, vec!["x,1".into(), "say \"hi\"".into(), "two\nlines".into()], 3)
        );
        // The record after a quoted line break starts on line 6.
        assert_eq!(records[2], (6, vec!["4".into(), "5".into(), "6".into()], 3));
    }

    #[test]
    fn fields_know_their_line_and_column_and_stop_at_the_limit() {
        let text = "h1,h2\né,12345678901234567890\n".as_bytes();
        let mut records = Records::new(text);
        records.keep(vec![false, true], 4);
        let mut record = Record::default();
        let mut blank = 0;
        records.next_record(&mut record, &mut blank).expect("reads");
        records.next_record(&mut record, &mut blank).expect("reads");
        let field = &record.fields[1];
        assert_eq!((field.line, field.column), (2, 3));
        assert_eq!(field.bytes, b"1234");
        assert!(field.too_long);
        assert!(record.fields[0].bytes.is_empty(), "not kept");
    }

    #[test]
    fn an_unclosed_quote_is_an_error_naming_where_it_opened() {
        let mut records = Records::new(&b"a,b\n1,\"open\n2,3\n"[..]);
        records.keep(vec![true, true], 64);
        let mut record = Record::default();
        let mut blank = 0;
        records.next_record(&mut record, &mut blank).expect("header");
        match records.next_record(&mut record, &mut blank) {
            Err(RecordError::UnclosedQuote(at)) => assert_eq!(at, UnclosedQuote { line: 2, column: 3 }),
            other => panic!("expected an unclosed quote, got {other:?}"),
        }
    }
}
