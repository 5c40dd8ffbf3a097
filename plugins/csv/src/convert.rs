//! A column of CSV fields into an Arrow array, by the rules of [`crate::value`]. Both decoders
//! end here: the fast one with fields where they lie in the batch, arrow-csv's with a column it
//! decoded as text.

use crate::value::{self, ColumnType, NullValues};
use arrow_array::types::{
    Date32Type, Float64Type, Int64Type, Time64MicrosecondType, TimestampMicrosecondType,
};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, BooleanArray, PrimitiveArray, StringArray};
use arrow_buffer::{BooleanBuffer, NullBufferBuilder, OffsetBuffer};
use arrow_schema::{DataType, TimeUnit};
use std::sync::Arc;

/// The timezone of columns whose values carry an offset (they are converted to UTC).
pub const UTC: &str = "UTC";

/// The fields of one column of a batch.
pub trait Fields {
    /// Rows in the batch.
    fn rows(&self) -> usize;
    /// The text of the field in `row`.
    fn get(&self, row: usize) -> &str;
}

/// A column arrow-csv decoded as text: a null there is an empty field.
impl Fields for StringArray {
    fn rows(&self) -> usize {
        self.len()
    }
    fn get(&self, row: usize) -> &str {
        // A null's offsets are empty, so its value is "".
        self.value(row)
    }
}

/// The Arrow type a column is announced as.
pub fn data_type(column: ColumnType) -> DataType {
    match column {
        ColumnType::Int64 => DataType::Int64,
        ColumnType::Boolean => DataType::Boolean,
        ColumnType::Date32 => DataType::Date32,
        ColumnType::Time => DataType::Time64(TimeUnit::Microsecond),
        ColumnType::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, None),
        ColumnType::TimestampUtc => DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into())),
        ColumnType::Float64 => DataType::Float64,
        ColumnType::Utf8 | ColumnType::Null => DataType::Utf8,
    }
}

/// The column as an array of its type; `Err(row)` names the first row whose value it cannot
/// read.
pub fn convert(
    column: ColumnType,
    fields: &impl Fields,
    nulls: &NullValues,
) -> Result<ArrayRef, usize> {
    Ok(match column {
        ColumnType::Utf8 => strings(fields, None),
        ColumnType::Null => strings(fields, Some(nulls)),
        ColumnType::Int64 => Arc::new(primitive::<Int64Type>(
            fields,
            nulls,
            |s| fast_i64(s.as_bytes()),
            trimmed(value::parse_i64),
        )?),
        ColumnType::Float64 => Arc::new(primitive::<Float64Type>(
            fields,
            nulls,
            |s| fast_f64(s.as_bytes()),
            trimmed(value::parse_f64),
        )?),
        ColumnType::Date32 => Arc::new(primitive::<Date32Type>(
            fields,
            nulls,
            |_| None,
            trimmed(value::parse_date),
        )?),
        ColumnType::Time => Arc::new(primitive::<Time64MicrosecondType>(
            fields,
            nulls,
            |_| None,
            trimmed(value::parse_time),
        )?),
        ColumnType::Timestamp => Arc::new(primitive::<TimestampMicrosecondType>(
            fields,
            nulls,
            |_| None,
            |s| match value::parse_timestamp(s) {
                Some((micros, false)) => Some(micros),
                _ => None,
            },
        )?),
        ColumnType::TimestampUtc => Arc::new(
            primitive::<TimestampMicrosecondType>(
                fields,
                nulls,
                |_| None,
                |s| match value::parse_timestamp(s) {
                    Some((micros, true)) => Some(micros),
                    _ => None,
                },
            )?
            .with_timezone(UTC),
        ),
        ColumnType::Boolean => booleans(fields, nulls)?,
    })
}

/// `parse` of the value without the spaces and tabs around it.
fn trimmed<T>(parse: fn(&str) -> Option<T>) -> impl Fn(&str) -> Option<T> {
    move |s| parse(value::trim(s))
}

/// A text column: every value as written, or (`nulls`) the null markers as nulls.
fn strings(fields: &impl Fields, nulls: Option<&NullValues>) -> ArrayRef {
    let rows = fields.rows();
    let mut offsets = Vec::with_capacity(rows + 1);
    let mut values = String::new();
    let mut validity = NullBufferBuilder::new(rows);
    offsets.push(0i32);
    for row in 0..rows {
        let s = fields.get(row);
        if nulls.is_some_and(|n| n.is_null(s)) {
            validity.append_null();
        } else {
            values.push_str(s);
            validity.append_non_null();
        }
        let end = i32::try_from(values.len()).unwrap_or_else(|_| {
            // A batch's text is far below 2 GiB: the reader caps batch sizes.
            panic!("a CSV batch's text column passed 2 GiB")
        });
        offsets.push(end);
    }
    Arc::new(StringArray::new(
        OffsetBuffer::new(offsets.into()),
        values.into_bytes().into(),
        validity.finish(),
    ))
}

/// Every field through `fast` (a shortcut for the common shape, skipped when a null marker
/// is made of digits), else null when it is a null marker, else through `parse`.
fn primitive<T: ArrowPrimitiveType>(
    fields: &impl Fields,
    nulls: &NullValues,
    fast: impl Fn(&str) -> Option<T::Native>,
    parse: impl Fn(&str) -> Option<T::Native>,
) -> Result<PrimitiveArray<T>, usize> {
    let rows = fields.rows();
    let mut values = Vec::with_capacity(rows);
    let mut validity = NullBufferBuilder::new(rows);
    let use_fast = !nulls.has_numeric();
    for row in 0..rows {
        let s = fields.get(row);
        let value = match use_fast.then(|| fast(s)).flatten() {
            Some(v) => Some(v),
            None if nulls.is_null(s) => None,
            None => Some(parse(s).ok_or(row)?),
        };
        match value {
            Some(v) => {
                values.push(v);
                validity.append_non_null();
            }
            None => {
                values.push(T::Native::default());
                validity.append_null();
            }
        }
    }
    Ok(PrimitiveArray::new(values.into(), validity.finish()))
}

fn booleans(fields: &impl Fields, nulls: &NullValues) -> Result<ArrayRef, usize> {
    let rows = fields.rows();
    let mut values = Vec::with_capacity(rows);
    let mut validity = NullBufferBuilder::new(rows);
    for row in 0..rows {
        let s = fields.get(row);
        if nulls.is_null(s) {
            values.push(false);
            validity.append_null();
        } else {
            values.push(value::parse_bool(s).ok_or(row)?);
            validity.append_non_null();
        }
    }
    Ok(Arc::new(BooleanArray::new(
        BooleanBuffer::from(values),
        validity.finish(),
    )))
}

/// A leading `-` split off: (negative, the digits).
fn split_sign(b: &[u8]) -> (bool, &[u8]) {
    match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    }
}

/// `-?[0-9]{1,18}`, which cannot overflow; anything else is left to the full parser.
pub fn fast_i64(b: &[u8]) -> Option<i64> {
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
/// the correctly rounded one the full parser gives. Anything else is left to that parser.
pub fn fast_f64(b: &[u8]) -> Option<f64> {
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

    fn column(values: &[&str]) -> StringArray {
        StringArray::from(values.to_vec())
    }

    #[test]
    fn shortcuts_agree_with_the_full_parsers() {
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
                assert_eq!(v.to_bits(), value::parse_f64(s).unwrap().to_bits(), "{s}");
            }
            if let Some(v) = fast_i64(s.as_bytes()) {
                assert_eq!(Some(v), value::parse_i64(s), "{s}");
            }
        }
        for s in [
            "1e5",
            "1.",
            ".5",
            "+1",
            "1.2.3",
            "",
            "-",
            "9007199254740993",
            "inf",
        ] {
            assert_eq!(fast_f64(s.as_bytes()), None, "{s}");
        }
        // Many random decimals, exactly as the full parser reads them.
        let mut state: u64 = 7;
        for _ in 0..100_000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            let int = (state >> 40) % 100_000;
            let frac = (state >> 20) % 1_000_000;
            let digits = (state % 7) as usize;
            let s = format!("{int}.{frac:06}");
            let s = &s[..s.len() - 6 + digits.max(1)];
            let v = fast_f64(s.as_bytes()).unwrap();
            assert_eq!(v.to_bits(), value::parse_f64(s).unwrap().to_bits(), "{s}");
        }
    }

    /// pyarrow reads `NA`, `nan`, `N/A` and `NULL` as nulls in a number column and keeps them,
    /// and the empty string, in a text column.
    #[test]
    fn null_markers_are_null_except_in_text() {
        let nulls = NullValues::default();
        let numbers = convert(
            ColumnType::Float64,
            &column(&["1.5", "NA", "nan", "N/A", "NULL", "", "NAN"]),
            &nulls,
        )
        .unwrap();
        let numbers = numbers.as_primitive::<Float64Type>();
        assert_eq!(numbers.null_count(), 5);
        assert!(numbers.value(6).is_nan());
        let text = convert(ColumnType::Utf8, &column(&["NA", "", "x"]), &nulls).unwrap();
        let text = text.as_string::<i32>();
        assert_eq!(text.null_count(), 0);
        assert_eq!((text.value(0), text.value(1)), ("NA", ""));
        let none = convert(ColumnType::Null, &column(&["NA", "", "x"]), &nulls).unwrap();
        assert_eq!(none.null_count(), 2);
    }

    #[test]
    fn custom_null_values_may_be_numbers() {
        let nulls = NullValues::new(vec!["-999".into(), String::new()]);
        let ints = convert(ColumnType::Int64, &column(&["-999", "7", "", " 8"]), &nulls).unwrap();
        let ints = ints.as_primitive::<Int64Type>();
        assert!(ints.is_null(0) && ints.is_null(2));
        assert_eq!((ints.value(1), ints.value(3)), (7, 8));
        // "NA" is no longer a marker: a number column cannot read it.
        assert_eq!(
            convert(ColumnType::Int64, &column(&["1", "NA"]), &nulls).unwrap_err(),
            1
        );
    }

    #[test]
    fn each_type() {
        let nulls = NullValues::default();
        let b = convert(ColumnType::Boolean, &column(&["1", "False", "NA"]), &nulls).unwrap();
        let b = b.as_boolean();
        assert!(b.value(0) && !b.value(1) && b.is_null(2));
        let t = convert(
            ColumnType::TimestampUtc,
            &column(&["2024-01-01 10:00:00+02:00"]),
            &nulls,
        )
        .unwrap();
        assert_eq!(
            t.data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
        assert_eq!(
            t.as_primitive::<TimestampMicrosecondType>().value(0),
            1_704_096_000_000_000
        );
        let naive = convert(
            ColumnType::Timestamp,
            &column(&["2024-01-01 10:00:00+02:00"]),
            &nulls,
        );
        assert_eq!(naive.unwrap_err(), 0);
        let time = convert(ColumnType::Time, &column(&["10:30", "NA"]), &nulls).unwrap();
        assert_eq!(
            time.as_primitive::<Time64MicrosecondType>().value(0),
            37_800_000_000
        );
    }
}
