//! A decoder for the common case of a CSV file, faster than arrow-csv inside the sandbox.
//!
//! arrow-csv splits records with `csv-core`, a byte-at-a-time state machine that copies every
//! field into a buffer of its own; as WebAssembly that splitting alone was a third of the
//! plugin's time on a file like the rides, and 2.5 times its native cost. Most files need none
//! of that machinery: a record is a line, a field ends at the next delimiter, and a quoted
//! field holds neither quotes nor line breaks. This decoder handles exactly those batches: it
//! finds the fields with `memchr` ([`crate::split`], SIMD in the sandbox too), reads each where
//! it lies, and parses values with arrow's own parsers (behind exact shortcuts for plain
//! integers and decimals).
//!
//! It declines a batch (returns `None`) on anything it does not handle the way arrow-csv would
//! unaided: a quote it cannot read alone (doubled, escaped, around a line break, inside a field),
//! a blank line, a `\r` that does not end a line, a record with another number of fields, bytes
//! that are not UTF-8, or a value that does not parse. The reader then decodes that batch with arrow-csv, which gives the same batch, or the
//! error, that it always did: a declined batch costs a second pass, never a different result.

use crate::split::{Dialect, Fields};
use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{ArrayRef, BooleanArray, PrimitiveArray, StringArray};
use arrow_buffer::{BooleanBuffer, NullBuffer, NullBufferBuilder, OffsetBuffer};
use arrow_cast::parse::Parser;
use arrow_schema::{DataType, Schema};
use std::sync::Arc;

/// What a column is decoded to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int64,
    Float64,
    Boolean,
    Date32,
    Utf8,
    /// A timestamp without a zone: parsed here when every value has the common shape,
    /// otherwise given as text for [`crate::timestamp::parse_micros`].
    Timestamp,
}

/// The fast decoder of one file.
#[derive(Debug)]
pub struct FastDecoder {
    dialect: Dialect,
    kinds: Vec<Kind>,
    /// Where the fields of the batch lie.
    fields: Fields,
}

impl FastDecoder {
    /// A decoder for batches of `schema` (the reader's decode schema, where a timestamp column
    /// is text), or `None` when a column has a type this decoder does not build.
    /// `timestamps` are the columns to parse as timestamps.
    pub fn new(
        schema: &Schema,
        timestamps: &[usize],
        delimiter: u8,
        quote: u8,
        escape: Option<u8>,
    ) -> Option<Self> {
        if [delimiter, quote].iter().any(|&b| b == b'\n' || b == b'\r') {
            return None;
        }
        let kinds = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, field)| match field.data_type() {
                DataType::Utf8 if timestamps.contains(&i) => Some(Kind::Timestamp),
                DataType::Utf8 => Some(Kind::Utf8),
                DataType::Int64 => Some(Kind::Int64),
                DataType::Float64 => Some(Kind::Float64),
                DataType::Boolean => Some(Kind::Boolean),
                DataType::Date32 => Some(Kind::Date32),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        if kinds.is_empty() {
            return None;
        }
        Some(Self {
            dialect: Dialect {
                delimiter,
                quote,
                escape,
                columns: kinds.len(),
            },
            kinds,
            fields: Fields::default(),
        })
    }

    /// Decodes `chunk`, whole lines (each ending in `\n`, the last one possibly at the end of
    /// the file), into one array per column; `None` when arrow-csv must decode it instead.
    /// A timestamp column comes back as timestamps, or as text when a value needs arrow's
    /// parser.
    pub fn decode(&mut self, chunk: &[u8]) -> Option<Vec<ArrayRef>> {
        let text = std::str::from_utf8(chunk).ok()?;
        if !self.fields.split(chunk, self.dialect) {
            return None;
        }
        let columns = self.kinds.len();
        let mut arrays = Vec::with_capacity(columns);
        for (column, kind) in self.kinds.iter().enumerate() {
            let fields = Column {
                text,
                starts: &self.fields.starts,
                ends: &self.fields.ends,
                columns,
                column,
                rows: self.fields.rows,
            };
            arrays.push(match kind {
                Kind::Utf8 => strings(&fields)?,
                Kind::Int64 => primitive::<Int64Type>(&fields, fast_i64)?,
                Kind::Float64 => primitive::<Float64Type>(&fields, fast_f64)?,
                Kind::Date32 => primitive::<Date32Type>(&fields, |_| None)?,
                Kind::Boolean => booleans(&fields)?,
                Kind::Timestamp => match timestamps(&fields) {
                    Some(array) => array,
                    None => strings(&fields)?,
                },
            });
        }
        Some(arrays)
    }
}

/// The fields of one column of a batch.
struct Column<'a> {
    text: &'a str,
    starts: &'a [u32],
    ends: &'a [u32],
    columns: usize,
    column: usize,
    rows: usize,
}

impl<'a> Column<'a> {
    /// The text of this column's field in `row`.
    fn get(&self, row: usize) -> Option<&'a str> {
        let at = row * self.columns + self.column;
        self.text
            .get(self.starts[at] as usize..self.ends[at] as usize)
    }
}

/// A text column; an empty field is null, as arrow-csv's default null rule has it.
fn strings(fields: &Column<'_>) -> Option<ArrayRef> {
    let mut offsets = Vec::with_capacity(fields.rows + 1);
    let mut values = String::new();
    let mut nulls = NullBufferBuilder::new(fields.rows);
    offsets.push(0i32);
    for row in 0..fields.rows {
        let s = fields.get(row)?;
        if s.is_empty() {
            nulls.append_null();
        } else {
            values.push_str(s);
            nulls.append_non_null();
        }
        offsets.push(i32::try_from(values.len()).ok()?);
    }
    // The offsets grow and end within `values`, which is UTF-8 cut at ASCII delimiters.
    let array = StringArray::try_new(
        OffsetBuffer::new(offsets.into()),
        values.into_bytes().into(),
        nulls.finish(),
    )
    .ok()?;
    Some(Arc::new(array))
}

/// Every field of a column through `parse`, an empty one as null (`T::default()` among the
/// values); `None` as soon as a value does not parse.
fn parsed<T: Default>(
    fields: &Column<'_>,
    parse: impl Fn(&str) -> Option<T>,
) -> Option<(Vec<T>, Option<NullBuffer>)> {
    let mut values = Vec::with_capacity(fields.rows);
    let mut nulls = NullBufferBuilder::new(fields.rows);
    for row in 0..fields.rows {
        let s = fields.get(row)?;
        if s.is_empty() {
            values.push(T::default());
            nulls.append_null();
        } else {
            values.push(parse(s)?);
            nulls.append_non_null();
        }
    }
    Some((values, nulls.finish()))
}

/// A column of `T`: `fast` first, then arrow's own parser (which arrow-csv uses).
fn primitive<T>(fields: &Column<'_>, fast: fn(&[u8]) -> Option<T::Native>) -> Option<ArrayRef>
where
    T: Parser,
{
    let (values, nulls) = parsed(fields, |s| fast(s.as_bytes()).or_else(|| T::parse(s)))?;
    Some(Arc::new(PrimitiveArray::<T>::new(values.into(), nulls)))
}

fn booleans(fields: &Column<'_>) -> Option<ArrayRef> {
    let (values, nulls) = parsed(fields, parse_bool)?;
    Some(Arc::new(BooleanArray::new(
        BooleanBuffer::from(values),
        nulls,
    )))
}

/// A timestamp column when every value has the common shape; `None` sends the column to
/// arrow's parser as text.
fn timestamps(fields: &Column<'_>) -> Option<ArrayRef> {
    let (values, nulls) = parsed(fields, |s| crate::timestamp::fast_micros(s.as_bytes()))?;
    Some(Arc::new(PrimitiveArray::<TimestampMicrosecondType>::new(
        values.into(),
        nulls,
    )))
}

/// arrow-csv 58.4.1's boolean rule (private there): `true` or `false`, in any case.
fn parse_bool(s: &str) -> Option<bool> {
    if s.eq_ignore_ascii_case("false") {
        Some(false)
    } else if s.eq_ignore_ascii_case("true") {
        Some(true)
    } else {
        None
    }
}

/// A leading `-` split off: (negative, the digits).
fn split_sign(b: &[u8]) -> (bool, &[u8]) {
    match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    }
}

/// `-?[0-9]{1,18}`, which cannot overflow; anything else is left to arrow's parser.
fn fast_i64(b: &[u8]) -> Option<i64> {
    let (negative, digits) = split_sign(b);
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut value: i64 = 0;
    for &d in digits {
        let digit = d.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value * 10 + i64::from(digit);
    }
    Some(if negative { -value } else { value })
}

/// Powers of ten that a double holds exactly.
const EXACT_POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `-?[0-9]+(\.[0-9]+)?` whose digits, read as one integer, fit in 53 bits: that integer and
/// the power of ten are exact doubles, and one IEEE division rounds correctly, so the value is
/// the correctly rounded one arrow's parser gives. Anything else is left to arrow's parser.
fn fast_f64(b: &[u8]) -> Option<f64> {
    let (negative, digits) = split_sign(b);
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut point = None;
    for (i, &d) in digits.iter().enumerate() {
        if d == b'.' {
            if point.is_some() || i == 0 || i + 1 == digits.len() {
                return None;
            }
            point = Some(i);
            continue;
        }
        let digit = d.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        mantissa = mantissa * 10 + u64::from(digit);
    }
    if mantissa > 1 << 53 {
        return None;
    }
    let scale = point.map_or(0, |p| digits.len() - p - 1);
    let value = mantissa as f64 / EXACT_POWERS_OF_TEN[scale];
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_schema::Field;

    fn decoder(types: &[DataType], timestamps: &[usize]) -> FastDecoder {
        let schema = Schema::new(
            types
                .iter()
                .enumerate()
                .map(|(i, t)| Field::new(format!("c{i}"), t.clone(), true))
                .collect::<Vec<_>>(),
        );
        FastDecoder::new(&schema, timestamps, b',', b'"', None).unwrap()
    }

    #[test]
    fn shortcuts_agree_with_arrows_parsers() {
        for s in [
            "0",
            "-0",
            "7",
            "007",
            "-12",
            "123456789012345678",
            "1.5",
            "-0.0",
            "0.1",
            "12.34",
            "3.14159",
            "9007199254740992",
            "0.000000000000000000001",
            "99.99",
            "1234567.891",
        ] {
            if let Some(v) = fast_f64(s.as_bytes()) {
                let arrow = Float64Type::parse(s).unwrap();
                assert_eq!(v.to_bits(), arrow.to_bits(), "{s}");
            }
            if let Some(v) = fast_i64(s.as_bytes()) {
                assert_eq!(Some(v), Int64Type::parse(s), "{s}");
            }
        }
        // Left to arrow's parser: exponents, lone points, signs, long or wide values.
        for s in [
            "1e5",
            "1.",
            ".5",
            "+1",
            "1.2.3",
            "",
            "-",
            "9007199254740993",
            "1,5",
            "inf",
        ] {
            assert_eq!(fast_f64(s.as_bytes()), None, "{s}");
        }
        for s in ["+1", "1234567890123456789", "", "-", "1.0", "1_000"] {
            assert_eq!(fast_i64(s.as_bytes()), None, "{s}");
        }
        // Many random decimals, exactly as arrow parses them.
        let mut state: u64 = 7;
        for _ in 0..100_000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            let int = (state >> 40) % 100_000;
            let frac = (state >> 20) % 1_000_000;
            let digits = (state % 7) as usize;
            let s = format!("{int}.{frac:06}");
            let s = &s[..s.len() - 6 + digits.max(1)];
            let v = fast_f64(s.as_bytes()).unwrap();
            assert_eq!(v.to_bits(), Float64Type::parse(s).unwrap().to_bits(), "{s}");
        }
    }

    #[test]
    fn decodes_plain_lines() {
        let mut d = decoder(
            &[
                DataType::Int64,
                DataType::Utf8,
                DataType::Float64,
                DataType::Utf8,
            ],
            &[3],
        );
        let arrays = d
            .decode(b"1,NYC,2.5,2024-01-01 00:00:01\n2,,,\r\n-3,BKK,1e3,2024-01-01 00:00:02")
            .unwrap();
        assert_eq!(arrays[0].len(), 3);
        assert_eq!(arrays[0].as_primitive::<Int64Type>().values(), &[1, 2, -3]);
        let cities = arrays[1].as_string::<i32>();
        assert_eq!(cities.value(0), "NYC");
        assert!(cities.is_null(1));
        assert_eq!(arrays[2].as_primitive::<Float64Type>().value(2), 1000.0);
        assert!(arrays[2].is_null(1));
        let ts = arrays[3].as_primitive::<TimestampMicrosecondType>();
        assert_eq!(ts.value(0), 1_704_067_201_000_000);
        assert!(ts.is_null(1));
    }

    #[test]
    fn a_timestamp_of_another_shape_comes_back_as_text() {
        let mut d = decoder(&[DataType::Utf8], &[0]);
        let arrays = d.decode(b"2024-01-01 00:00:01+02:00\n").unwrap();
        assert_eq!(
            arrays[0].as_string::<i32>().value(0),
            "2024-01-01 00:00:01+02:00"
        );
    }

    #[test]
    fn declines_what_arrow_csv_must_decide() {
        let mut d = decoder(&[DataType::Int64, DataType::Utf8], &[]);
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
                d.decode(chunk).is_none(),
                "{:?}",
                String::from_utf8_lossy(chunk)
            );
        }
        assert!(d.decode(b"1,a\r\n2,b\r\n").is_some());
        let quoted = d.decode(b"\"1\",\"a, b\"\n2,\"\"\n").unwrap();
        assert_eq!(quoted[1].as_string::<i32>().value(0), "a, b");
        assert!(quoted[1].is_null(1));
    }
}
