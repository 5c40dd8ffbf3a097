//! Finding the fields of a batch of lines for the fast decoder ([`crate::fast`]): where each
//! field starts and ends, as `csv-core` would split them, or `None` where that takes more than
//! this module knows (arrow-csv then decodes the batch).
//!
//! Two ways, chosen per batch:
//!
//! - [`Fields::plain`], for a batch without the quote character: a record is a line and a field
//!   ends at the next delimiter; `memchr` finds both (SIMD in the sandbox too).
//! - [`Fields::quoted`], for a batch with quotes: a field that starts with the quote ends at the
//!   next quote, and is taken when nothing else is special about it: no doubled quote, no escape
//!   character, no line break inside, the delimiter or the line's end right after it. A quote
//!   anywhere else (inside an unquoted field, which csv-core keeps as text) declines the batch.
//!
//! Both decline a blank line (csv-core skips it), a line with another number of fields (arrow-csv
//! says which), and a `\r` that is not part of a `\r\n` line end (csv-core ends a record there).

use memchr::{memchr, memchr_iter, memchr2, memchr2_iter, memchr3};

/// The fields of a batch: the start and end of each, row after row.
#[derive(Debug, Default)]
pub struct Fields {
    pub starts: Vec<u32>,
    pub ends: Vec<u32>,
    pub rows: usize,
}

/// The characters that shape a CSV file.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    pub delimiter: u8,
    pub quote: u8,
    pub escape: Option<u8>,
    pub columns: usize,
}

impl Fields {
    /// Splits `chunk`, whole lines; false when arrow-csv must decide.
    pub fn split(&mut self, chunk: &[u8], dialect: Dialect) -> bool {
        self.starts.clear();
        self.ends.clear();
        self.rows = 0;
        if u32::try_from(chunk.len()).is_err() {
            return false;
        }
        let line_breaks_cr = if memchr(dialect.quote, chunk).is_none() {
            self.plain(chunk, dialect)
        } else {
            self.quoted(chunk, dialect)
        };
        // Any other `\r` ends a record for csv-core.
        line_breaks_cr.is_some_and(|n| n == memchr_iter(b'\r', chunk).count())
    }

    /// A batch without quotes; the number of `\r\n` line ends, or `None`.
    fn plain(&mut self, chunk: &[u8], dialect: Dialect) -> Option<usize> {
        let mut line_start = 0;
        let mut field_start = 0;
        let mut fields = 0;
        let mut line_breaks_cr = 0;
        for at in memchr2_iter(dialect.delimiter, b'\n', chunk) {
            self.starts.push(field_start as u32);
            field_start = at + 1;
            if chunk[at] == dialect.delimiter {
                self.ends.push(at as u32);
                fields += 1;
                continue;
            }
            let end = if at > line_start && chunk[at - 1] == b'\r' {
                line_breaks_cr += 1;
                at - 1
            } else {
                at
            };
            self.end_record(end, line_start, fields + 1, dialect)?;
            fields = 0;
            line_start = at + 1;
        }
        if line_start < chunk.len() {
            // The last line, at the end of the file without a line break.
            let end = if chunk[chunk.len() - 1] == b'\r' {
                line_breaks_cr += 1;
                chunk.len() - 1
            } else {
                chunk.len()
            };
            self.starts.push(field_start as u32);
            self.end_record(end, line_start, fields + 1, dialect)?;
        } else if fields != 0 {
            return None;
        }
        Some(line_breaks_cr)
    }

    /// A batch with quotes; the number of `\r\n` line ends, or `None`.
    fn quoted(&mut self, chunk: &[u8], dialect: Dialect) -> Option<usize> {
        let Dialect {
            delimiter, quote, ..
        } = dialect;
        let mut line_start = 0;
        let mut at = 0;
        let mut fields = 0;
        let mut line_breaks_cr = 0;
        while at < chunk.len() {
            // One field, from `at`: its text, and where it ends in the chunk.
            let (start, end, next) = if chunk[at] == quote {
                let close = at + 1 + memchr(quote, &chunk[at + 1..])?;
                let text = &chunk[at + 1..close];
                if memchr2(b'\n', b'\r', text).is_some()
                    || dialect.escape.is_some_and(|e| memchr(e, text).is_some())
                {
                    return None;
                }
                (at + 1, close, close + 1)
            } else {
                let next = match memchr3(delimiter, b'\n', quote, &chunk[at..]) {
                    Some(i) if chunk[at + i] == quote => return None,
                    Some(i) => at + i,
                    None => chunk.len(),
                };
                (at, next, next)
            };
            self.starts.push(start as u32);
            let separator = chunk.get(next).copied();
            if separator == Some(delimiter) {
                self.ends.push(end as u32);
                fields += 1;
                at = next + 1;
                continue;
            }
            // The end of the line: `\n`, `\r\n` or the end of the file.
            let (line_end, after) = match separator {
                None => (next, next),
                Some(b'\n') => (next, next + 1),
                Some(b'\r') if chunk.get(next + 1) == Some(&b'\n') => {
                    line_breaks_cr += 1;
                    (next, next + 2)
                }
                // A quoted field, then `\r` at the end of the file.
                Some(b'\r') if next + 1 == chunk.len() => {
                    line_breaks_cr += 1;
                    (next, next + 1)
                }
                _ => return None,
            };
            // An unquoted last field of a `\r\n` line ends before the `\r`.
            let end = if start == at && end > start && chunk[end - 1] == b'\r' {
                line_breaks_cr += 1;
                end - 1
            } else {
                end
            };
            self.ends.push(end as u32);
            let line_end = if start == at { end } else { line_end };
            self.check_record(line_end, line_start, fields + 1, dialect)?;
            fields = 0;
            line_start = after;
            at = after;
        }
        if fields != 0 {
            // The chunk ended right after a delimiter: one more, empty, field.
            self.starts.push(chunk.len() as u32);
            self.end_record(chunk.len(), line_start, fields + 1, dialect)?;
        }
        Some(line_breaks_cr)
    }

    /// Ends a record whose last field ends at `end`.
    fn end_record(
        &mut self,
        end: usize,
        line_start: usize,
        fields: usize,
        dialect: Dialect,
    ) -> Option<()> {
        self.ends.push(end as u32);
        self.check_record(end, line_start, fields, dialect)
    }

    /// A record of `fields` fields on the line from `line_start` to `line_end` (its line break
    /// excluded) is one arrow-csv decodes as a row of the batch.
    fn check_record(
        &mut self,
        line_end: usize,
        line_start: usize,
        fields: usize,
        dialect: Dialect,
    ) -> Option<()> {
        // csv-core skips a blank line; arrow-csv decides what a ragged one is.
        if line_end == line_start || fields != dialect.columns {
            return None;
        }
        self.rows += 1;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunk: &str, columns: usize) -> Option<Vec<Vec<&str>>> {
        let mut fields = Fields::default();
        let dialect = Dialect {
            delimiter: b',',
            quote: b'"',
            escape: Some(b'\\'),
            columns,
        };
        if !fields.split(chunk.as_bytes(), dialect) {
            return None;
        }
        assert_eq!(fields.starts.len(), fields.rows * columns);
        assert_eq!(fields.ends.len(), fields.rows * columns);
        Some(
            (0..fields.rows)
                .map(|r| {
                    (0..columns)
                        .map(|c| {
                            let at = r * columns + c;
                            &chunk[fields.starts[at] as usize..fields.ends[at] as usize]
                        })
                        .collect()
                })
                .collect(),
        )
    }

    #[test]
    fn plain_and_quoted_fields_split_like_csv_core() {
        for chunk in ["a,b\n1,\n,2", "a,b\r\n1,\r\n,2\r\n"] {
            assert_eq!(
                split(chunk, 2).unwrap(),
                [["a", "b"], ["1", ""], ["", "2"]],
                "{chunk:?}"
            );
        }
        let quoted = split("\"a, b\",1\n\"\",\"x\"\r\nc,\"2\"\n\"d\",", 2).unwrap();
        assert_eq!(quoted, [["a, b", "1"], ["", "x"], ["c", "2"], ["d", ""]]);
        assert_eq!(split("\"a\"", 1).unwrap(), [["a"]]);
        assert_eq!(split("a,b\r", 2).unwrap(), [["a", "b"]]);
        assert_eq!(split("\"a\",b\r", 2).unwrap(), [["a", "b"]]);
    }

    #[test]
    fn declines_what_csv_core_reads_otherwise() {
        for chunk in [
            "\"a\"\"b\",1\n",   // a doubled quote
            "\"a\\\"b\",1\n",   // an escape
            "\"a\nb\",1\n",     // a line break inside quotes
            "a\"b,1\n",         // a quote inside an unquoted field
            "\"a\"b,1\n",       // text after the closing quote
            "\"a,1\n",          // a quote never closed
            "a,1\n\nb,2\n",     // a blank line
            "\"a\",1\n\r\nb,2", // a blank CRLF line
            "a,1\rb,2\n",       // a lone \r
            "\"a\",1\rb,2\n",   // a lone \r, quoted batch
            "a,1,2\n",          // a ragged line
            "\"a\"\n",          // a ragged quoted line
        ] {
            assert_eq!(split(chunk, 2), None, "{chunk:?}");
        }
    }
}
