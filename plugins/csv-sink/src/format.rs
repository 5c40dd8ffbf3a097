//! Values as `pyarrow.csv.write_csv` (Arrow C++'s CSV writer, default options) writes them.
//!
//! Every column is turned into text as Arrow C++ casts it to a string, then strings and binaries
//! are quoted (always, with `"` doubled) and everything else is written bare; a null is empty.
//!
//! | type | text |
//! |---|---|
//! | boolean | `true`, `false` |
//! | integers, durations | decimal digits |
//! | float16/32/64 | shortest round-trip digits, positional for decimal exponents -6 to 9 (`32.28`, `7`, `0.000001`), scientific otherwise (`1e+10`, `1e-7`); `nan`, `inf`, `-inf` |
//! | decimal | plain (`1.50`) unless the scale is negative or the exponent below -6 (`1.23E+4`, `1E-10`) |
//! | date32/64 | `YYYY-MM-DD` (`-YYYY` before year 0) |
//! | time32/64 | `HH:MM:SS` plus `.fff`, `.ffffff` or `.fffffffff` for ms, µs and ns |
//! | timestamp | `YYYY-MM-DD HH:MM:SS` plus the unit's fraction; with a zone, the local time and `+HHMM`, except `Z` for `UTC` |
//! | string, binary | quoted; a binary that is not UTF-8 is an error |
//! | dictionary | its values |
//!
//! One departure: a zone named `+00:00` is written `Z`, as `UTC` is. That is how the host names
//! Iceberg's `timestamptz`, which pyiceberg reads as `UTC`, so an Iceberg table exported to CSV
//! gives the Python tool's bytes. Lists, structs, maps, unions and intervals have no text form in
//! Arrow C++'s writer and are refused (as pyarrow refuses them); string and binary views, which
//! pyarrow 26 refuses, are written like strings and binaries.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type, DurationMicrosecondType,
    DurationMillisecondType, DurationNanosecondType, DurationSecondType, Float16Type, Float32Type,
    Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
    UInt64Type,
};
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_schema::{DataType, TimeUnit};
use std::fmt::{Display, LowerExp, Write as _};

pub use ldp_sink_text::Zone;
use ldp_sink_text::{OffsetStyle, date_time};

/// Why a value could not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellError {
    /// A binary value that is not UTF-8, at this row of the batch.
    NotUtf8(usize),
}

/// Whether a column of `data_type` can be written, and if not, why.
pub fn check_type(data_type: &DataType) -> Result<(), String> {
    use DataType::*;
    match data_type {
        Null | Boolean | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64
        | Float16 | Float32 | Float64 | Decimal32(..) | Decimal64(..) | Decimal128(..)
        | Decimal256(..) | Date32 | Date64 | Time32(_) | Time64(_) | Duration(_) | Utf8
        | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => Ok(()),
        Timestamp(_, Some(zone)) => Zone::parse(zone).map(|_| ()),
        Timestamp(_, None) => Ok(()),
        Dictionary(_, values) => check_type(values),
        other => Err(format!(
            "pyarrow's CSV writer has no text form for the type {other}; flatten the column or \
             turn it into a string with a transform first"
        )),
    }
}

/// Appends `"text"` with every `"` doubled.
pub fn quoted(out: &mut String, text: &str) {
    out.push('"');
    for (i, part) in text.split('"').enumerate() {
        if i > 0 {
            out.push_str("\"\"");
        }
        out.push_str(part);
    }
    out.push('"');
}

/// Appends the text of the non-null value at `row` of `column`, whose type passed
/// [`check_type`]; `zone` is the parsed zone of a zoned timestamp column.
pub fn cell(
    out: &mut String,
    column: &dyn Array,
    row: usize,
    zone: Option<&Zone>,
) -> Result<(), CellError> {
    use DataType::*;
    match column.data_type() {
        Null => {}
        Boolean => out.push_str(if column.as_boolean().value(row) {
            "true"
        } else {
            "false"
        }),
        Int8 => display::<Int8Type>(out, column, row),
        Int16 => display::<Int16Type>(out, column, row),
        Int32 => display::<Int32Type>(out, column, row),
        Int64 => display::<Int64Type>(out, column, row),
        UInt8 => display::<UInt8Type>(out, column, row),
        UInt16 => display::<UInt16Type>(out, column, row),
        UInt32 => display::<UInt32Type>(out, column, row),
        UInt64 => display::<UInt64Type>(out, column, row),
        Duration(TimeUnit::Second) => display::<DurationSecondType>(out, column, row),
        Duration(TimeUnit::Millisecond) => display::<DurationMillisecondType>(out, column, row),
        Duration(TimeUnit::Microsecond) => display::<DurationMicrosecondType>(out, column, row),
        Duration(TimeUnit::Nanosecond) => display::<DurationNanosecondType>(out, column, row),
        Float16 => {
            let v = f64::from(column.as_primitive::<Float16Type>().value(row).to_f32());
            float(out, v, v.is_nan(), v.is_infinite(), v > 0.0);
        }
        Float32 => {
            let v = column.as_primitive::<Float32Type>().value(row);
            float(out, v, v.is_nan(), v.is_infinite(), v > 0.0);
        }
        Float64 => {
            let v = column.as_primitive::<Float64Type>().value(row);
            float(out, v, v.is_nan(), v.is_infinite(), v > 0.0);
        }
        Decimal32(_, scale) => decimal(out, prim::<Decimal32Type>(column, row), *scale),
        Decimal64(_, scale) => decimal(out, prim::<Decimal64Type>(column, row), *scale),
        Decimal128(_, scale) => decimal(out, prim::<Decimal128Type>(column, row), *scale),
        Decimal256(_, scale) => decimal(out, prim::<Decimal256Type>(column, row), *scale),
        Date32 | Date64 | Time32(_) | Time64(_) | Timestamp(_, _) => {
            date_time(out, column, row, zone, OffsetStyle::Compact);
        }
        Utf8 => quoted(out, column.as_string::<i32>().value(row)),
        LargeUtf8 => quoted(out, column.as_string::<i64>().value(row)),
        Utf8View => quoted(out, column.as_string_view().value(row)),
        Binary => utf8(out, column.as_binary::<i32>().value(row), row)?,
        LargeBinary => utf8(out, column.as_binary::<i64>().value(row), row)?,
        BinaryView => utf8(out, column.as_binary_view().value(row), row)?,
        FixedSizeBinary(_) => utf8(out, column.as_fixed_size_binary().value(row), row)?,
        // Dictionaries are decoded, and other types refused, before a value is written.
        _ => {}
    }
    Ok(())
}

fn prim<T: ArrowPrimitiveType>(column: &dyn Array, row: usize) -> T::Native {
    column.as_primitive::<T>().value(row)
}

fn display<T: ArrowPrimitiveType>(out: &mut String, column: &dyn Array, row: usize)
where
    T::Native: Display,
{
    let _ = write!(out, "{}", prim::<T>(column, row));
}

fn utf8(out: &mut String, bytes: &[u8], row: usize) -> Result<(), CellError> {
    let text = std::str::from_utf8(bytes).map_err(|_| CellError::NotUtf8(row))?;
    quoted(out, text);
    Ok(())
}

/// A float as Arrow C++ formats it (double-conversion's shortest digits, exponent sign always
/// written, positional for decimal exponents in `-6..10`, no trailing `.0`).
pub fn float(out: &mut String, value: impl LowerExp, nan: bool, infinite: bool, positive: bool) {
    if nan {
        out.push_str("nan");
        return;
    }
    if infinite {
        out.push_str(if positive { "inf" } else { "-inf" });
        return;
    }
    // `{:e}` gives the shortest round-trip digits: "3.0000000000000004e-1", "-7e0", "0e0".
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    out.push_str(sign);
    if (-6..10).contains(&exponent) {
        // The decimal point sits after `point` digits (before them when `point` <= 0).
        let point = exponent + 1;
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
            out.push_str(&digits);
        } else {
            let point = point as usize; // 1..=10
            if digits.len() <= point {
                let _ = write!(out, "{digits:0<point$}");
            } else {
                let _ = write!(out, "{}.{}", &digits[..point], &digits[point..]);
            }
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{exp_sign}{}", exponent.unsigned_abs());
    }
}

/// A decimal as Arrow C++ formats it: plain when the scale is not negative and the adjusted
/// exponent is at least -6, otherwise `d.dddE±x`.
pub fn decimal(out: &mut String, unscaled: impl Display, scale: i8) {
    let text = unscaled.to_string();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    if negative {
        out.push('-');
    }
    let scale = i32::from(scale);
    let len = digits.len() as i32;
    let adjusted = len - 1 - scale;
    if scale >= 0 && adjusted >= -6 {
        if scale == 0 {
            out.push_str(digits);
        } else if len > scale {
            let point = (len - scale) as usize;
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (scale - len) as usize));
            out.push_str(digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if adjusted < 0 { '-' } else { '+' };
        let _ = write!(out, "E{sign}{}", adjusted.unsigned_abs());
    }
}
