//! Splitting a JSON file into records, with the line and column each one starts at.
//!
//! Two layouts: newline-delimited JSON (one object per line; any whitespace separates records,
//! blank lines are skipped) and a top-level array of objects (`[{...}, {...}]`). The scanner
//! finds where each record ends by counting brackets outside strings; it does not validate the
//! JSON inside (the inference and the decoder do, and report what they find at the record's
//! line). The file is read in 1 MiB blocks and a record may span blocks, so memory holds one
//! block and the longest record.

use std::io::Read;

/// How much is read at once.
const BLOCK: usize = 1 << 20;

/// The layout of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One object per line.
    Lines,
    /// One top-level array of objects.
    Array,
}

/// One record: its bytes and where it starts (1-based line and byte column).
#[derive(Debug)]
pub struct Record<'a> {
    /// The record's text, one JSON object.
    pub bytes: &'a [u8],
    /// The line it starts on.
    pub line: usize,
    /// The column (in bytes) it starts at.
    pub column: usize,
}

/// A syntax error of the layout, at a line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    /// What is wrong and what to do.
    pub message: String,
    /// Whether reading the file failed (not its content).
    pub io: bool,
}

/// Where the scanner is in an array file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first value (in an array: before `[`).
    Start,
    /// In an array, after `[` or `,`: a record or (after `[`) `]` comes next.
    Value { first: bool },
    /// In an array, after a record: `,` or `]` comes next.
    Separator,
    /// In a newline-delimited file: a record or the end comes next.
    Lines,
    /// After the end of the array (or of the file).
    End,
}

/// Splits a file into records.
pub struct Scanner<R: Read> {
    input: R,
    buf: Vec<u8>,
    /// The first byte not yet consumed.
    pos: usize,
    at_eof: bool,
    layout: Option<Layout>,
    prefer_lines: bool,
    state: State,
    line: usize,
    /// Offset in `buf` of the start of the current line (may be negative once compacted).
    line_start: isize,
}

impl<R: Read> Scanner<R> {
    /// A scanner of `input`. With `prefer_lines` (a `.jsonl` or `.ndjson` file) the file is
    /// newline-delimited; otherwise it is an array when its first non-blank character is `[`.
    pub fn new(input: R, prefer_lines: bool) -> Self {
        Self {
            input,
            buf: Vec::with_capacity(BLOCK),
            pos: 0,
            at_eof: false,
            layout: None,
            prefer_lines,
            state: State::Start,
            line: 1,
            line_start: 0,
        }
    }

    /// The layout, known once the first record (or the end) was reached.
    pub fn layout(&self) -> Option<Layout> {
        self.layout
    }

    fn column_of(&self, at: usize) -> usize {
        (at as isize - self.line_start) as usize + 1
    }

    fn error(&self, at: usize, message: String) -> ScanError {
        ScanError {
            line: self.line,
            column: self.column_of(at),
            message,
            io: false,
        }
    }

    /// Reads another block; false at the end of the file.
    fn fill(&mut self) -> Result<bool, ScanError> {
        if self.at_eof {
            return Ok(false);
        }
        // Drop what was consumed, keeping the line's start relative to the buffer.
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.line_start -= self.pos as isize;
            self.pos = 0;
        }
        let before = self.buf.len();
        let read = (&mut self.input)
            .take(BLOCK as u64)
            .read_to_end(&mut self.buf)
            .map_err(|e| ScanError {
                line: self.line,
                column: 1,
                message: format!("cannot read the file: {e}"),
                io: true,
            })?;
        if read == 0 {
            self.at_eof = true;
        }
        Ok(self.buf.len() > before)
    }

    /// Skips whitespace (and a byte-order mark at the start); the next byte, or `None` at the
    /// end of the file.
    fn skip_blank(&mut self) -> Result<Option<u8>, ScanError> {
        loop {
            while self.pos < self.buf.len() {
                match self.buf[self.pos] {
                    b'\n' => {
                        self.pos += 1;
                        self.line += 1;
                        self.line_start = self.pos as isize;
                    }
                    b' ' | b'\t' | b'\r' => self.pos += 1,
                    0xEF if self.state == State::Start
                        && self.line == 1
                        && self.buf[self.pos..].starts_with(&[0xEF, 0xBB, 0xBF]) =>
                    {
                        self.pos += 3;
                        self.line_start = self.pos as isize;
                    }
                    byte => return Ok(Some(byte)),
                }
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// The next record, or `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>, ScanError> {
        loop {
            let next = self.skip_blank()?;
            match (self.state, next) {
                (State::End, None) => return Ok(None),
                (State::End, Some(byte)) => {
                    return Err(self.error(
                        self.pos,
                        format!(
                            "unexpected {} after the end of the array; a JSON file holds one \
                             array of records",
                            describe(byte)
                        ),
                    ));
                }
                (State::Start, None) => {
                    self.layout.get_or_insert(if self.prefer_lines {
                        Layout::Lines
                    } else {
                        Layout::Array
                    });
                    self.state = State::End;
                    return Ok(None);
                }
                (State::Start, Some(b'[')) if !self.prefer_lines => {
                    self.layout = Some(Layout::Array);
                    self.pos += 1;
                    self.state = State::Value { first: true };
                }
                (State::Start, Some(_)) => {
                    self.layout = Some(Layout::Lines);
                    self.state = State::Lines;
                    return self.record();
                }
                (State::Lines, None) => {
                    self.state = State::End;
                    return Ok(None);
                }
                (State::Lines, Some(_)) => return self.record(),
                (State::Value { .. }, None) | (State::Separator, None) => {
                    return Err(self.error(
                        self.pos,
                        "the file ends inside the array; it needs a closing ']'".to_string(),
                    ));
                }
                (State::Value { first: true }, Some(b']')) | (State::Separator, Some(b']')) => {
                    self.pos += 1;
                    self.state = State::End;
                }
                (State::Value { .. }, Some(_)) => {
                    self.state = State::Separator;
                    return self.record();
                }
                (State::Separator, Some(b',')) => {
                    self.pos += 1;
                    self.state = State::Value { first: false };
                }
                (State::Separator, Some(byte)) => {
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected ',' or ']' after a record, found {}",
                            describe(byte)
                        ),
                    ));
                }
            }
        }
    }

    /// The record that starts at `pos` (a non-blank byte), which must be an object.
    fn record(&mut self) -> Result<Option<Record<'_>>, ScanError> {
        let start = self.pos;
        let (line, column) = (self.line, self.column_of(start));
        let first = self.buf[start];
        if first != b'{' {
            let found = describe(first);
            let hint = match (self.layout, first) {
                (Some(Layout::Lines), b'[') => {
                    "; a .jsonl file holds one object per line (name the file .json if it holds \
                     one array of records)"
                }
                (Some(Layout::Array), _) => "; the array must hold objects, one per record",
                _ => "; each line must hold one JSON object",
            };
            return Err(self.error(
                start,
                format!("expected a JSON object (one record), found {found}{hint}"),
            ));
        }
        // Bracket depth, whether inside a string, and whether the last byte was a backslash
        // inside a string; `at` is the next byte to look at, relative to the record's start.
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        let mut at = 0usize;
        let mut start = start;
        loop {
            let bytes = &self.buf[start..];
            while at < bytes.len() {
                let byte = bytes[at];
                at += 1;
                if in_string {
                    if escaped {
                        escaped = false;
                    } else if byte == b'\\' {
                        escaped = true;
                    } else if byte == b'"' {
                        in_string = false;
                    } else if byte == b'\n' {
                        self.line += 1;
                        self.line_start = (start + at) as isize;
                    }
                    continue;
                }
                match byte {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            self.pos = start + at;
                            return Ok(Some(Record {
                                bytes: &self.buf[start..start + at],
                                line,
                                column,
                            }));
                        }
                    }
                    b'\n' => {
                        self.line += 1;
                        self.line_start = (start + at) as isize;
                    }
                    _ => {}
                }
            }
            // The record goes on past the buffer: read more (the buffer is compacted first, so
            // the record then starts at 0).
            self.pos = start;
            if !self.fill()? {
                return Err(ScanError {
                    line,
                    column,
                    message: "the record that starts here is not complete at the end of the \
                              file (a '}' or ']' is missing, or a string is not closed)"
                        .to_string(),
                    io: false,
                });
            }
            start = self.pos;
        }
    }
}

/// A byte as a message names it.
fn describe(byte: u8) -> String {
    match byte {
        b'[' => "an array".to_string(),
        b'"' => "a string".to_string(),
        b'-' | b'0'..=b'9' => "a number".to_string(),
        b't' | b'f' => "a boolean".to_string(),
        b'n' => "null".to_string(),
        b if b.is_ascii_graphic() => format!("'{}'", b as char),
        b => format!("the byte 0x{b:02X}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The records of `text` as (text, line, column), or the error's (line, column, message).
    fn scan(text: &str, prefer_lines: bool) -> Result<Vec<(String, usize, usize)>, ScanError> {
        let mut scanner = Scanner::new(text.as_bytes(), prefer_lines);
        let mut out = Vec::new();
        while let Some(r) = scanner.next_record()? {
            out.push((
                String::from_utf8_lossy(r.bytes).into_owned(),
                r.line,
                r.column,
            ));
        }
        Ok(out)
    }

    fn rec(text: &str, line: usize, column: usize) -> (String, usize, usize) {
        (text.to_string(), line, column)
    }

    #[test]
    fn lines_with_blank_lines_nested_values_and_strings_with_brackets() {
        let text = "\u{feff}{\"a\":1}\n\n  {\"b\":{\"c\":[1,{\"d\":\"}]\\\"\"}]}}\r\n{\"e\":\"x\ny\"} {\"f\":2}";
        let records = scan(text, false).expect("scans");
        assert_eq!(
            records,
            vec![
                rec("{\"a\":1}", 1, 1),
                rec("{\"b\":{\"c\":[1,{\"d\":\"}]\\\"\"}]}}", 3, 3),
                rec("{\"e\":\"x\ny\"}", 4, 1),
                rec("{\"f\":2}", 5, 5),
            ]
        );
    }

    #[test]
    fn an_array_of_records() {
        let text = " [\n {\"a\":1},\n {\"a\":2} ,{\"a\":[3]}\n]\n";
        let records = scan(text, false).expect("scans");
        assert_eq!(
            records,
            vec![
                rec("{\"a\":1}", 2, 2),
                rec("{\"a\":2}", 3, 2),
                rec("{\"a\":[3]}", 3, 11)
            ]
        );
        assert_eq!(scan("[]", false).expect("scans"), vec![]);
        assert_eq!(scan("", false).expect("scans"), vec![]);
        assert_eq!(scan("\n \n", true).expect("scans"), vec![]);
    }

    #[test]
    fn layout_errors_name_line_and_column() {
        let e = scan("[{\"a\":1},]", false).expect_err("trailing comma");
        assert_eq!((e.line, e.column), (1, 10));
        assert!(
            e.message
                .starts_with("expected a JSON object (one record), found ']'"),
            "{}",
            e.message
        );
        let e = scan("[{\"a\":1} {\"a\":2}]", false).expect_err("no comma");
        assert_eq!((e.line, e.column), (1, 10));
        assert_eq!(e.message, "expected ',' or ']' after a record, found '{'");
        let e = scan("[{\"a\":1}]\n[]", false).expect_err("two arrays");
        assert_eq!((e.line, e.column), (2, 1));
        let e = scan("[{\"a\":1}", false).expect_err("unclosed array");
        assert!(e.message.contains("needs a closing ']'"), "{}", e.message);
        let e = scan("{\"a\":1}\n{\"a\":\"x}\n", false).expect_err("unclosed string");
        assert_eq!((e.line, e.column), (2, 1));
        assert!(
            e.message.contains("not complete at the end of the file"),
            "{}",
            e.message
        );
        let e = scan("{\"a\":1}\n 5\n", false).expect_err("a number");
        assert_eq!((e.line, e.column), (2, 2));
        assert!(e.message.contains("found a number"), "{}", e.message);
        let e = scan("{\"a\":1}\n[{\"a\":1}]", false).expect_err("an array on line 2");
        assert_eq!((e.line, e.column), (2, 1));
        let e = scan("[{\"a\":1}]", true).expect_err("an array in a .jsonl file");
        assert!(
            e.message
                .contains("a .jsonl file holds one object per line"),
            "{}",
            e.message
        );
    }

    #[test]
    fn records_span_blocks() {
        let long = "x".repeat(BLOCK + 10);
        let text = format!("{{\"a\":1}}\n{{\"s\":\"{long}\"}}\n{{\"a\":2}}\n");
        let records = scan(&text, true).expect("scans");
        assert_eq!(records.len(), 3);
        assert_eq!(records[1].0.len(), long.len() + 8);
        assert_eq!((records[2].1, records[2].2), (3, 1));
    }
}
