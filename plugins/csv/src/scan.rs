//! A byte-level CSV record scanner that splits records exactly as `csv-core` (the parser under
//! arrow-csv) does, and knows the line each record starts on.
//!
//! arrow-csv counts records, not lines: a quoted field may hold line breaks, blank lines are
//! skipped, and with CRLF endings a record ends at the `\r`. This scanner mirrors csv-core's state
//! machine (quotes only open a field, doubled quotes, an optional escape inside quotes, any of
//! `\r`, `\n`, `\r\n` ends a record, blank lines are skipped, a leading UTF-8 BOM is dropped) so
//! that record *n* here is record *n* there. It serves three purposes: cutting the inference
//! sample at a record boundary, looking at the sample's values, and turning a record number from
//! an arrow-csv error into a line number (on the error path only).

use std::io::{self, BufRead};
use std::ops::ControlFlow;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StartRecord,
    StartField,
    InField,
    InQuoted,
    InEscaped,
    InDoubleQuote,
    EndFieldDelim,
    EndRecord,
    Crlf,
}

/// One record: its number (1-based, counting the header), the line it starts on and its fields.
#[derive(Debug)]
pub struct Record<'a> {
    pub number: usize,
    pub line: usize,
    data: &'a [u8],
    ends: &'a [usize],
}

impl<'a> Record<'a> {
    /// How many fields the record has.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Field `i`, unquoted and unescaped.
    pub fn field(&self, i: usize) -> &'a [u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..self.ends[i]]
    }
}

/// The scanner; feed it bytes, then call [`Scanner::finish`] at the end of the input.
#[derive(Debug)]
pub struct Scanner {
    delimiter: u8,
    quote: u8,
    escape: Option<u8>,
    state: State,
    /// The current line (1-based): one more than the `\n` bytes seen.
    line: usize,
    record_line: usize,
    records: usize,
    data: Vec<u8>,
    ends: Vec<usize>,
    /// Bytes fed so far (a BOM included).
    pos: usize,
    /// The position just after the byte that ended the last record.
    last_end: usize,
    bom_checked: bool,
    done: bool,
}

impl Scanner {
    pub fn new(delimiter: u8, quote: u8, escape: Option<u8>) -> Self {
        Self {
            delimiter,
            quote,
            escape,
            state: State::StartRecord,
            line: 1,
            record_line: 1,
            records: 0,
            data: Vec::new(),
            ends: Vec::new(),
            pos: 0,
            last_end: 0,
            bom_checked: false,
            done: false,
        }
    }

    /// The byte offset just after the last complete record (0 if none).
    pub fn last_record_end(&self) -> usize {
        self.last_end
    }

    /// Scans `input`, calling `each` on every record completed; stops early when `each` breaks.
    pub fn feed<F>(&mut self, mut input: &[u8], each: &mut F) -> ControlFlow<()>
    where
        F: FnMut(&Record) -> ControlFlow<()>,
    {
        if self.done {
            return ControlFlow::Break(());
        }
        if !self.bom_checked && !input.is_empty() {
            self.bom_checked = true;
            if input.starts_with(b"\xef\xbb\xbf") {
                input = &input[3..];
                self.pos += 3;
            }
        }
        let mut i = 0;
        while i < input.len() {
            // Fast path: the plain bytes of a field, which only go to the field's data.
            let run = self.plain_run(&input[i..]);
            if run > 0 {
                self.data.extend_from_slice(&input[i..i + run]);
                self.pos += run;
                i += run;
                continue;
            }
            let c = input[i];
            i += 1;
            self.pos += 1;
            if self.step(c) {
                self.last_end = self.pos;
                if self.emit(each).is_break() {
                    self.done = true;
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The end of the input: completes a last record that has no line break.
    pub fn finish<F>(&mut self, each: &mut F) -> ControlFlow<()>
    where
        F: FnMut(&Record) -> ControlFlow<()>,
    {
        if self.done {
            return ControlFlow::Break(());
        }
        self.done = true;
        match self.state {
            State::StartRecord | State::EndRecord | State::Crlf => ControlFlow::Continue(()),
            _ => {
                self.ends.push(self.data.len());
                self.last_end = self.pos;
                each(&self.record())
            }
        }
    }

    /// Scans a whole reader.
    pub fn scan<R: BufRead, F>(&mut self, mut reader: R, each: &mut F) -> io::Result<()>
    where
        F: FnMut(&Record) -> ControlFlow<()>,
    {
        loop {
            let buf = reader.fill_buf()?;
            if buf.is_empty() {
                let _ = self.finish(each);
                return Ok(());
            }
            let n = buf.len();
            if self.feed(buf, each).is_break() {
                return Ok(());
            }
            reader.consume(n);
        }
    }

    fn record(&self) -> Record<'_> {
        Record {
            number: self.records + 1,
            line: self.record_line,
            data: &self.data,
            ends: &self.ends,
        }
    }

    fn emit<F>(&mut self, each: &mut F) -> ControlFlow<()>
    where
        F: FnMut(&Record) -> ControlFlow<()>,
    {
        let flow = each(&self.record());
        self.records += 1;
        self.data.clear();
        self.ends.clear();
        flow
    }

    /// How many bytes at the start of `input` [`Self::step`] would only append to the field's
    /// data, staying in the same state: inside an unquoted field, anything but the delimiter and
    /// line breaks; inside a quoted one, anything but the quote, the escape and line feeds
    /// (counted as lines).
    #[inline]
    fn plain_run(&self, input: &[u8]) -> usize {
        match self.state {
            State::InField => input
                .iter()
                .position(|&c| c == self.delimiter || Self::is_term(c))
                .unwrap_or(input.len()),
            State::InQuoted => input
                .iter()
                .position(|&c| c == self.quote || Some(c) == self.escape || c == b'\n')
                .unwrap_or(input.len()),
            _ => 0,
        }
    }

    fn is_term(c: u8) -> bool {
        c == b'\r' || c == b'\n'
    }

    /// Ends the current field and the record at terminator `c`.
    fn end_record(&mut self, c: u8) -> bool {
        self.ends.push(self.data.len());
        self.state = if c == b'\r' {
            State::Crlf
        } else {
            State::EndRecord
        };
        true
    }

    /// Consumes one byte; true when it ends a record. Follows csv-core's NFA, epsilon moves
    /// folded in.
    fn step(&mut self, c: u8) -> bool {
        if c == b'\n' {
            self.line += 1;
        }
        loop {
            match self.state {
                State::EndRecord => self.state = State::StartRecord,
                State::Crlf => {
                    self.state = State::StartRecord;
                    if c == b'\n' {
                        return false;
                    }
                }
                State::StartRecord => {
                    if Self::is_term(c) {
                        return false;
                    }
                    self.record_line = self.line;
                    self.state = State::StartField;
                }
                State::EndFieldDelim => self.state = State::StartField,
                State::StartField => {
                    if c == self.quote {
                        self.state = State::InQuoted;
                    } else if c == self.delimiter {
                        self.ends.push(self.data.len());
                        self.state = State::EndFieldDelim;
                    } else if Self::is_term(c) {
                        return self.end_record(c);
                    } else {
                        self.data.push(c);
                        self.state = State::InField;
                    }
                    return false;
                }
                State::InField => {
                    if c == self.delimiter {
                        self.ends.push(self.data.len());
                        self.state = State::EndFieldDelim;
                    } else if Self::is_term(c) {
                        return self.end_record(c);
                    } else {
                        self.data.push(c);
                    }
                    return false;
                }
                State::InQuoted => {
                    if c == self.quote {
                        self.state = State::InDoubleQuote;
                    } else if Some(c) == self.escape {
                        self.state = State::InEscaped;
                    } else {
                        self.data.push(c);
                    }
                    return false;
                }
                State::InEscaped => {
                    self.data.push(c);
                    self.state = State::InQuoted;
                    return false;
                }
                State::InDoubleQuote => {
                    if c == self.quote {
                        self.data.push(c);
                        self.state = State::InQuoted;
                    } else if c == self.delimiter {
                        self.ends.push(self.data.len());
                        self.state = State::EndFieldDelim;
                    } else if Self::is_term(c) {
                        return self.end_record(c);
                    } else {
                        self.data.push(c);
                        self.state = State::InField;
                    }
                    return false;
                }
            }
        }
    }
}

/// What [`locate`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The record's number, 1-based, counting the header.
    pub number: usize,
    /// The line it starts on, 1-based, counting the header.
    pub line: usize,
    /// Its fields, as text (invalid UTF-8 replaced).
    pub fields: Vec<String>,
    /// The index of its first field that is not valid UTF-8.
    pub bad_utf8: Option<usize>,
    /// How many fields the first record has (what every record must have).
    pub width: usize,
}

/// Finds record `target` (1-based, counting the header), or the first record before it that
/// arrow-csv would reject: one whose field count differs from the first record's, or with a
/// field that is not UTF-8. `None` when the input ends first.
pub fn locate<R: BufRead>(
    reader: R,
    delimiter: u8,
    quote: u8,
    escape: Option<u8>,
    target: Option<usize>,
) -> io::Result<Option<Located>> {
    let mut scanner = Scanner::new(delimiter, quote, escape);
    let mut width = None;
    let mut found = None;
    scanner.scan(reader, &mut |r: &Record| {
        let bad_utf8 = (0..r.len()).find(|&i| std::str::from_utf8(r.field(i)).is_err());
        let expected = *width.get_or_insert(r.len());
        if target == Some(r.number) || r.len() != expected || bad_utf8.is_some() {
            found = Some(Located {
                number: r.number,
                line: r.line,
                fields: (0..r.len())
                    .map(|i| String::from_utf8_lossy(r.field(i)).into_owned())
                    .collect(),
                bad_utf8,
                width: expected,
            });
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    })?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (line, fields) of every record.
    fn records(input: &str) -> Vec<(usize, Vec<String>)> {
        let mut out = Vec::new();
        let mut scanner = Scanner::new(b',', b'"', Some(b'\\'));
        scanner
            .scan(input.as_bytes(), &mut |r: &Record| {
                let fields = (0..r.len())
                    .map(|i| String::from_utf8(r.field(i).to_vec()).unwrap())
                    .collect();
                out.push((r.line, fields));
                ControlFlow::Continue(())
            })
            .unwrap();
        out
    }

    fn rec(line: usize, fields: &[&str]) -> (usize, Vec<String>) {
        (line, fields.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn splits_like_csv_core() {
        assert_eq!(
            records("a,b\n1,\"x,\"\"y\"\"\nz\"\n\n\n2,\"q\\\"\"\r\n3,4"),
            vec![
                rec(1, &["a", "b"]),
                rec(2, &["1", "x,\"y\"\nz"]),
                rec(6, &["2", "q\""]),
                rec(7, &["3", "4"]),
            ]
        );
        assert_eq!(records("a\r\rb\r"), vec![rec(1, &["a"]), rec(1, &["b"])]);
        assert_eq!(records("\u{feff}x,y\n"), vec![rec(1, &["x", "y"])]);
        assert_eq!(
            records("a,\n,"),
            vec![rec(1, &["a", ""]), rec(2, &["", ""])]
        );
        assert_eq!(records(""), vec![]);
        assert_eq!(records("ab\"c,d\n"), vec![rec(1, &["ab\"c", "d"])]);
    }

    #[test]
    fn last_record_end() {
        let mut scanner = Scanner::new(b',', b'"', None);
        let _ = scanner.feed(b"a,b\n1,\"2\n3", &mut |_| ControlFlow::Continue(()));
        assert_eq!(scanner.last_record_end(), 4);
        assert_eq!(scanner.records, 1);
    }

    #[test]
    fn locates_target_and_ragged_rows() {
        let text = "a,b\r\n1,2\r\n\r\n\"3\n\",4\r\n5\r\n";
        let found = locate(text.as_bytes(), b',', b'"', None, Some(3)).unwrap();
        assert_eq!(
            found,
            Some(Located {
                number: 3,
                line: 4,
                fields: vec!["3\n".into(), "4".into()],
                bad_utf8: None,
                width: 2,
            })
        );
        let found = locate(text.as_bytes(), b',', b'"', None, None)
            .unwrap()
            .unwrap();
        assert_eq!((found.number, found.line, found.fields.len()), (4, 6, 1));
        let found = locate(&b"a\n\xff\n"[..], b',', b'"', None, None)
            .unwrap()
            .unwrap();
        assert_eq!((found.line, found.bad_utf8), (2, Some(0)));
    }
}
