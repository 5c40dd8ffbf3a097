//! A decoder for the common case of a CSV file, faster than arrow-csv inside the sandbox.
//!
//! arrow-csv splits records with `csv-core`, a byte-at-a-time state machine that copies every
//! field into a buffer of its own; as WebAssembly that splitting alone was a third of the
//! plugin's time on a file like the rides, and 2.5 times its native cost. Most files need none
//! of that machinery: a record is a line, a field ends at the next delimiter, and a quoted
//! field holds neither quotes nor line breaks. This decoder handles exactly those batches: it
//! finds the fields with `memchr` ([`crate::split`], SIMD in the sandbox too) and reads each
//! where it lies ([`crate::convert`], as the other path does).
//!
//! It declines a batch (returns `None`) on anything it does not handle the way arrow-csv's
//! splitter would unaided: a quote it cannot read alone (doubled, escaped, around a line break,
//! inside a field), a blank line, a `\r` that does not end a line, a record with another number
//! of fields, bytes that are not UTF-8, or a value that does not parse. The reader then splits
//! that batch with arrow-csv, which gives the same batch, or the error with its line: a
//! declined batch costs a second pass, never a different result.

use crate::convert::{self, Fields};
use crate::split::{self, Dialect};
use crate::value::{ColumnType, NullValues};
use arrow_array::ArrayRef;

/// The fast decoder of one file.
#[derive(Debug)]
pub struct FastDecoder {
    dialect: Dialect,
    types: Vec<ColumnType>,
    /// Where the fields of the batch lie.
    fields: split::Fields,
}

impl FastDecoder {
    /// A decoder for batches of columns of `types`, or `None` when the dialect is one it does
    /// not split (a line break as the delimiter or the quote).
    pub fn new(types: &[ColumnType], delimiter: u8, quote: u8, escape: Option<u8>) -> Option<Self> {
        if [delimiter, quote].iter().any(|&b| b == b'\n' || b == b'\r') || types.is_empty() {
            return None;
        }
        Some(Self {
            dialect: Dialect {
                delimiter,
                quote,
                escape,
                columns: types.len(),
            },
            types: types.to_vec(),
            fields: split::Fields::default(),
        })
    }

    /// Decodes `chunk`, whole lines (each ending in `\n`, the last one possibly at the end of
    /// the file), into one array per column; `None` when arrow-csv must decode it instead
    /// (which also finds the error when a value cannot be read).
    pub fn decode(&mut self, chunk: &[u8], nulls: &NullValues) -> Option<Vec<ArrayRef>> {
        let text = std::str::from_utf8(chunk).ok()?;
        if !self.fields.split(chunk, self.dialect) {
            return None;
        }
        let columns = self.types.len();
        let mut arrays = Vec::with_capacity(columns);
        for (column, &column_type) in self.types.iter().enumerate() {
            let fields = Column {
                text,
                starts: &self.fields.starts,
                ends: &self.fields.ends,
                columns,
                column,
                rows: self.fields.rows,
            };
            arrays.push(convert::convert(column_type, &fields, nulls).ok()?);
        }
        Some(arrays)
    }
}

/// The fields of one column of a batch, where they lie in its text.
struct Column<'a> {
    text: &'a str,
    starts: &'a [u32],
    ends: &'a [u32],
    columns: usize,
    column: usize,
    rows: usize,
}

impl Fields for Column<'_> {
    fn rows(&self) -> usize {
        self.rows
    }

    fn get(&self, row: usize) -> &str {
        let at = row * self.columns + self.column;
        // The splitter cuts UTF-8 text at ASCII delimiters and quotes only.
        self.text
            .get(self.starts[at] as usize..self.ends[at] as usize)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type, TimestampMicrosecondType};

    fn decoder(types: &[ColumnType]) -> FastDecoder {
        FastDecoder::new(types, b',', b'"', None).unwrap()
    }

    #[test]
    fn decodes_plain_lines() {
        let mut d = decoder(&[
            ColumnType::Int64,
            ColumnType::Utf8,
            ColumnType::Float64,
            ColumnType::Timestamp,
        ]);
        let arrays = d
            .decode(
                b"1,NYC,2.5,2024-01-01 00:00:01\n2,,NA,\r\n-3,BKK,1e3,2024-01-01 00:00:02",
                &NullValues::default(),
            )
            .unwrap();
        assert_eq!(arrays[0].len(), 3);
        assert_eq!(arrays[0].as_primitive::<Int64Type>().values(), &[1, 2, -3]);
        let cities = arrays[1].as_string::<i32>();
        assert_eq!((cities.value(0), cities.value(1)), ("NYC", ""));
        assert_eq!(cities.null_count(), 0);
        assert_eq!(arrays[2].as_primitive::<Float64Type>().value(2), 1000.0);
        assert!(arrays[2].is_null(1));
        let ts = arrays[3].as_primitive::<TimestampMicrosecondType>();
        assert_eq!(ts.value(0), 1_704_067_201_000_000);
        assert!(ts.is_null(1));
    }

    #[test]
    fn declines_what_arrow_csv_must_decide() {
        let mut d = decoder(&[ColumnType::Int64, ColumnType::Utf8]);
        let nulls = NullValues::default();
        for chunk in [
            &b"1,\"a\"\"b\"\n"[..], // a doubled quote
            b"1,a\n\n2,b\n",        // a blank line
            b"1,a\r2,b\n",          // a lone \r ends a record
            b"1,a,c\n",             // too many fields
            b"1\n",                 // too few
            b"x,a\n",               // not an integer
            b"1,\xff\n",            // not UTF-8
            b"1,a\n\r\n",           // a blank CRLF line
        ] {
            assert!(
                d.decode(chunk, &nulls).is_none(),
                "{:?}",
                String::from_utf8_lossy(chunk)
            );
        }
        assert!(d.decode(b"1,a\r\n2,b\r\n", &nulls).is_some());
        let quoted = d.decode(b"\"1\",\"a, b\"\n2,\"\"\n", &nulls).unwrap();
        assert_eq!(quoted[1].as_string::<i32>().value(0), "a, b");
        assert_eq!(quoted[1].as_string::<i32>().value(1), "");
    }
}
