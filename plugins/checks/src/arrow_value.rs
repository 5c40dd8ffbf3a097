//! Reading Arrow values the way the Python tool sees them.
//!
//! [`Kind`] is what a column's type means to the checks (an integer that may be a date or an
//! instant, a float, a string...), known from the schema; [`Values`] is one batch's column
//! downcast once, read row by row as a [`Py`] (`as_py()` of the value) or as the bytes of a key
//! ([`Values::encode`]) that [`Kind::decode`] turns back into a [`Py`].

use crate::py::Py;
use crate::time::{self, US_PER_DAY, US_PER_SECOND, Zone};
use crate::types::type_name;
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{
    Array, ArrowPrimitiveType, BooleanArray, GenericByteArray, GenericByteViewArray,
};
use arrow_schema::{DataType, TimeUnit};

/// How an integer-backed column's values read in Python.
#[derive(Clone, Debug)]
pub enum IntKind {
    /// A plain integer.
    Plain,
    /// Days since the epoch (`date`).
    Date32,
    /// Milliseconds since the epoch, read as a `date`.
    Date64,
    /// An instant in `unit` since the epoch; naive, or shown in a zone.
    Timestamp(TimeUnit, Option<Zone>),
    /// A time of day in `unit`.
    Time(TimeUnit),
    /// A duration in `unit` (`timedelta`, shown as its seconds).
    Duration(TimeUnit),
}

/// Units of `unit` per second.
pub fn per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// A timestamp in `unit` as microseconds since the epoch (nanoseconds floored, as the Python tool's
/// `_epoch_us`), saturating.
pub fn to_us(raw: i64, unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => raw.saturating_mul(US_PER_SECOND),
        TimeUnit::Millisecond => raw.saturating_mul(1_000),
        TimeUnit::Microsecond => raw,
        TimeUnit::Nanosecond => raw.div_euclid(1_000),
    }
}

impl IntKind {
    /// `as_py()` of a raw value, as the Python tool prints it.
    pub fn py(&self, raw: i64) -> Py {
        match self {
            IntKind::Plain => Py::Int(i128::from(raw)),
            IntKind::Date32 => Py::Date(time::iso_date(raw)),
            IntKind::Date64 => Py::Date(time::iso_date(raw.div_euclid(86_400_000))),
            IntKind::Timestamp(unit, zone) => {
                let us = to_us(raw, *unit);
                if *unit == TimeUnit::Nanosecond && raw.rem_euclid(1_000) != 0 {
                    // pyarrow can't make a datetime of it and casts to a string instead.
                    let mut text = time::iso_datetime(us, None).replace('T', " ");
                    if !text.contains('.') {
                        text.push_str(".000000");
                    }
                    text.push_str(&format!("{:03}", raw.rem_euclid(1_000)));
                    if zone.is_some() {
                        text.push('Z');
                    }
                    return Py::Str(text);
                }
                let offset = zone.as_ref().map(|z| z.offset_at(us));
                Py::DateTime(time::iso_datetime(us, offset))
            }
            IntKind::Time(unit) => {
                Py::Other(time::iso_time(to_us(raw, *unit).rem_euclid(US_PER_DAY)))
            }
            IntKind::Duration(unit) => Py::Float(raw as f64 / per_second(*unit) as f64),
        }
    }
}

/// What a column's type is to the checks.
#[derive(Clone, Debug)]
pub enum Kind {
    /// `null`: every value is null.
    Null,
    /// `bool`.
    Bool,
    /// A signed integer, an unsigned one up to 32 bits, a date, time, timestamp or duration:
    /// read as `i64`.
    Int(IntKind),
    /// `uint64`.
    UInt64,
    /// `float` (32 bits).
    F32,
    /// `double`.
    F64,
    /// `decimal128(p, s)`: the scale.
    Decimal128(i8),
    /// `string`, `large_string`, `string_view`.
    Str,
    /// `binary`, `large_binary`, `binary_view`, `fixed_size_binary[n]`.
    Bin,
    /// Anything else: its pyarrow name.
    Other(String),
}

impl Kind {
    /// The kind of a column type (a dictionary is the kind of its values).
    pub fn of(data_type: &DataType) -> Kind {
        use DataType as D;
        match data_type {
            D::Null => Kind::Null,
            D::Boolean => Kind::Bool,
            D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::UInt8 | D::UInt16 | D::UInt32 => {
                Kind::Int(IntKind::Plain)
            }
            D::UInt64 => Kind::UInt64,
            D::Float32 => Kind::F32,
            D::Float64 => Kind::F64,
            D::Date32 => Kind::Int(IntKind::Date32),
            D::Date64 => Kind::Int(IntKind::Date64),
            D::Timestamp(unit, tz) => Kind::Int(IntKind::Timestamp(
                *unit,
                tz.as_deref()
                    .map(|tz| Zone::parse(tz).unwrap_or(Zone::Fixed(0))),
            )),
            D::Time32(unit) | D::Time64(unit) => Kind::Int(IntKind::Time(*unit)),
            D::Duration(unit) => Kind::Int(IntKind::Duration(*unit)),
            D::Decimal128(_, scale) => Kind::Decimal128(*scale),
            D::Utf8 | D::LargeUtf8 | D::Utf8View => Kind::Str,
            D::Binary | D::LargeBinary | D::BinaryView | D::FixedSizeBinary(_) => Kind::Bin,
            D::Dictionary(_, value) => Kind::of(value),
            other => Kind::Other(type_name(other)),
        }
    }

    /// A key's value from the bytes [`Values::encode`] wrote; the bytes read are consumed.
    pub fn decode(&self, bytes: &mut &[u8]) -> Py {
        fn take<const N: usize>(bytes: &mut &[u8]) -> [u8; N] {
            let mut out = [0u8; N];
            if bytes.len() >= N {
                out.copy_from_slice(&bytes[..N]);
                *bytes = &bytes[N..];
            }
            out
        }
        match self {
            Kind::Null | Kind::Other(_) => Py::None,
            Kind::Bool => Py::Bool(take::<1>(bytes)[0] != 0),
            Kind::Int(kind) => kind.py(i64::from_le_bytes(take(bytes))),
            Kind::UInt64 => Py::Int(i128::from(u64::from_le_bytes(take(bytes)))),
            Kind::F32 => Py::Float(f64::from(f32::from_le_bytes(take(bytes)))),
            Kind::F64 => Py::Float(f64::from_le_bytes(take(bytes))),
            Kind::Decimal128(scale) => {
                Py::Other(decimal_text(i128::from_le_bytes(take(bytes)), *scale))
            }
            Kind::Str | Kind::Bin => {
                let len = u32::from_le_bytes(take(bytes)) as usize;
                let len = len.min(bytes.len());
                let (value, rest) = bytes.split_at(len);
                *bytes = rest;
                if matches!(self, Kind::Str) {
                    Py::Str(String::from_utf8_lossy(value).into_owned())
                } else {
                    Py::Other(bytes_text(value))
                }
            }
        }
    }
}

/// `str(Decimal)` of an unscaled value: `12.50`, `-0.05`, `1.2E+3` for a negative scale.
pub fn decimal_text(unscaled: i128, scale: i8) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale <= 0 {
        if scale == 0 || unscaled == 0 {
            return format!("{sign}{digits}");
        }
        let exponent = digits.len() as i32 - 1 - i32::from(scale);
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        return format!("{sign}{first}{rest}E+{exponent}");
    }
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

/// `bytes.decode("utf-8", errors="backslashreplace")`.
pub fn bytes_text(value: &[u8]) -> String {
    let mut out = String::new();
    let mut rest = value;
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                return out;
            }
            Err(error) => {
                let (good, bad) = rest.split_at(error.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let skip = error.error_len().unwrap_or(bad.len()).max(1);
                for byte in &bad[..skip.min(bad.len())] {
                    out.push_str(&format!("\\x{byte:02x}"));
                }
                rest = &bad[skip.min(bad.len())..];
            }
        }
    }
}

/// The integers of a primitive column, by native width.
#[derive(Clone, Copy, Debug)]
pub enum Ints<'a> {
    /// `int8`.
    I8(&'a [i8]),
    /// `int16`.
    I16(&'a [i16]),
    /// `int32`, `date32`, `time32`.
    I32(&'a [i32]),
    /// `int64`, `date64`, `timestamp`, `time64`, `duration`.
    I64(&'a [i64]),
    /// `uint8`.
    U8(&'a [u8]),
    /// `uint16`.
    U16(&'a [u16]),
    /// `uint32`.
    U32(&'a [u32]),
}

impl Ints<'_> {
    /// The value at `i` as `i64`.
    #[inline]
    pub fn get(&self, i: usize) -> i64 {
        match self {
            Ints::I8(v) => i64::from(v[i]),
            Ints::I16(v) => i64::from(v[i]),
            Ints::I32(v) => i64::from(v[i]),
            Ints::I64(v) => v[i],
            Ints::U8(v) => i64::from(v[i]),
            Ints::U16(v) => i64::from(v[i]),
            Ints::U32(v) => i64::from(v[i]),
        }
    }
}

fn prim<T: ArrowPrimitiveType>(array: &dyn Array) -> Option<&[T::Native]> {
    array.as_primitive_opt::<T>().map(|a| a.values().as_ref())
}

/// The integers behind an integer, date, time, timestamp or duration column.
pub fn ints(array: &dyn Array) -> Option<Ints<'_>> {
    use DataType as D;
    Some(match array.data_type() {
        D::Int8 => Ints::I8(prim::<Int8Type>(array)?),
        D::Int16 => Ints::I16(prim::<Int16Type>(array)?),
        D::Int32 => Ints::I32(prim::<Int32Type>(array)?),
        D::Int64 => Ints::I64(prim::<Int64Type>(array)?),
        D::UInt8 => Ints::U8(prim::<UInt8Type>(array)?),
        D::UInt16 => Ints::U16(prim::<UInt16Type>(array)?),
        D::UInt32 => Ints::U32(prim::<UInt32Type>(array)?),
        D::Date32 => Ints::I32(prim::<Date32Type>(array)?),
        D::Date64 => Ints::I64(prim::<Date64Type>(array)?),
        D::Time32(TimeUnit::Second) => Ints::I32(prim::<Time32SecondType>(array)?),
        D::Time32(_) => Ints::I32(prim::<Time32MillisecondType>(array)?),
        D::Time64(TimeUnit::Nanosecond) => Ints::I64(prim::<Time64NanosecondType>(array)?),
        D::Time64(_) => Ints::I64(prim::<Time64MicrosecondType>(array)?),
        D::Timestamp(TimeUnit::Second, _) => Ints::I64(prim::<TimestampSecondType>(array)?),
        D::Timestamp(TimeUnit::Millisecond, _) => {
            Ints::I64(prim::<TimestampMillisecondType>(array)?)
        }
        D::Timestamp(TimeUnit::Microsecond, _) => {
            Ints::I64(prim::<TimestampMicrosecondType>(array)?)
        }
        D::Timestamp(TimeUnit::Nanosecond, _) => Ints::I64(prim::<TimestampNanosecondType>(array)?),
        D::Duration(TimeUnit::Second) => Ints::I64(prim::<DurationSecondType>(array)?),
        D::Duration(TimeUnit::Millisecond) => Ints::I64(prim::<DurationMillisecondType>(array)?),
        D::Duration(TimeUnit::Microsecond) => Ints::I64(prim::<DurationMicrosecondType>(array)?),
        D::Duration(TimeUnit::Nanosecond) => Ints::I64(prim::<DurationNanosecondType>(array)?),
        _ => return None,
    })
}

/// Byte strings of a string or binary column.
#[derive(Clone, Copy, Debug)]
pub enum Bytes<'a> {
    /// `string` / `binary`.
    Small(&'a GenericByteArray<GenericBinaryType<i32>>),
    /// `large_string` / `large_binary`.
    Large(&'a GenericByteArray<GenericBinaryType<i64>>),
    /// `string` with 32-bit offsets.
    SmallStr(&'a GenericByteArray<GenericStringType<i32>>),
    /// `large_string`.
    LargeStr(&'a GenericByteArray<GenericStringType<i64>>),
    /// `string_view`.
    StrView(&'a GenericByteViewArray<StringViewType>),
    /// `binary_view`.
    BinView(&'a GenericByteViewArray<BinaryViewType>),
    /// `fixed_size_binary[n]`.
    Fixed(&'a arrow_array::FixedSizeBinaryArray),
}

impl<'a> Bytes<'a> {
    /// The string or binary values of `array`.
    pub fn of(array: &'a dyn Array) -> Option<Bytes<'a>> {
        use DataType as D;
        Some(match array.data_type() {
            D::Utf8 => Bytes::SmallStr(array.as_string_opt::<i32>()?),
            D::LargeUtf8 => Bytes::LargeStr(array.as_string_opt::<i64>()?),
            D::Utf8View => Bytes::StrView(array.as_string_view_opt()?),
            D::Binary => Bytes::Small(array.as_binary_opt::<i32>()?),
            D::LargeBinary => Bytes::Large(array.as_binary_opt::<i64>()?),
            D::BinaryView => Bytes::BinView(array.as_binary_view_opt()?),
            D::FixedSizeBinary(_) => Bytes::Fixed(array.as_fixed_size_binary_opt()?),
            _ => return None,
        })
    }

    /// The bytes at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> &'a [u8] {
        match self {
            Bytes::Small(a) => a.value(i),
            Bytes::Large(a) => a.value(i),
            Bytes::SmallStr(a) => a.value(i).as_bytes(),
            Bytes::LargeStr(a) => a.value(i).as_bytes(),
            Bytes::StrView(a) => a.value(i).as_bytes(),
            Bytes::BinView(a) => a.value(i),
            Bytes::Fixed(a) => a.value(i),
        }
    }
}

/// One batch's column, downcast once.
#[derive(Clone, Debug)]
pub enum Values<'a> {
    /// Every value is null (or the type has no reader).
    Null,
    /// `bool`.
    Bool(&'a BooleanArray),
    /// Integers (see [`Kind::Int`]).
    Int(Ints<'a>),
    /// `uint64`.
    UInt64(&'a [u64]),
    /// `float`.
    F32(&'a [f32]),
    /// `double`.
    F64(&'a [f64]),
    /// `decimal128`.
    Decimal128(&'a [i128]),
    /// Strings or binary.
    Bytes(Bytes<'a>),
    /// A dictionary: its keys, and its values.
    Dict(Ints<'a>, Box<Values<'a>>),
}

impl<'a> Values<'a> {
    /// The values of `array`; `None` when the type has no reader ([`Kind::Other`]).
    pub fn of(array: &'a dyn Array) -> Option<Values<'a>> {
        use DataType as D;
        Some(match array.data_type() {
            D::Null => Values::Null,
            D::Boolean => Values::Bool(array.as_boolean_opt()?),
            D::UInt64 => Values::UInt64(prim::<UInt64Type>(array)?),
            D::Float32 => Values::F32(prim::<Float32Type>(array)?),
            D::Float64 => Values::F64(prim::<Float64Type>(array)?),
            D::Decimal128(_, _) => Values::Decimal128(prim::<Decimal128Type>(array)?),
            D::Dictionary(_, _) => {
                let dict = array.as_any_dictionary_opt()?;
                let keys = ints(dict.keys())?;
                Values::Dict(keys, Box::new(Values::of(dict.values().as_ref())?))
            }
            _ => match ints(array) {
                Some(ints) => Values::Int(ints),
                None => Values::Bytes(Bytes::of(array)?),
            },
        })
    }

    /// Appends the key bytes of the (valid) value at `i`; [`Kind::decode`] reads them back.
    pub fn encode(&self, i: usize, out: &mut Vec<u8>) {
        match self {
            Values::Null => {}
            Values::Bool(a) => out.push(u8::from(a.value(i))),
            Values::Int(v) => out.extend_from_slice(&v.get(i).to_le_bytes()),
            Values::UInt64(v) => out.extend_from_slice(&v[i].to_le_bytes()),
            Values::F32(v) => {
                let f = if v[i].is_nan() { f32::NAN } else { v[i] };
                out.extend_from_slice(&f.to_le_bytes())
            }
            Values::F64(v) => {
                let f = if v[i].is_nan() { f64::NAN } else { v[i] };
                out.extend_from_slice(&f.to_le_bytes())
            }
            Values::Decimal128(v) => out.extend_from_slice(&v[i].to_le_bytes()),
            Values::Bytes(b) => {
                let value = b.get(i);
                out.extend_from_slice(&(value.len() as u32).to_le_bytes());
                out.extend_from_slice(value);
            }
            Values::Dict(keys, values) => {
                if let Ok(key) = usize::try_from(keys.get(i)) {
                    values.encode(key, out);
                }
            }
        }
    }
}

/// Python's value (`as_py()`) at row `i` of `array` (`None` when null).
pub fn py_at(array: &dyn Array, kind: &Kind, i: usize) -> Py {
    if array.is_null(i) {
        return Py::None;
    }
    match Values::of(array) {
        Some(values) => {
            let mut bytes = Vec::new();
            values.encode(i, &mut bytes);
            kind.decode(&mut bytes.as_slice())
        }
        None => Py::None,
    }
}

/// The rows of a column that are null (`None` when none), as pyarrow counts them: every row of a
/// `null` column, else the validity bitmap.
pub fn nulls(array: &dyn Array) -> Option<arrow_buffer::NullBuffer> {
    if matches!(array.data_type(), DataType::Null) {
        return Some(arrow_buffer::NullBuffer::new_null(array.len()));
    }
    array.nulls().filter(|n| n.null_count() > 0).cloned()
}

/// How many rows of a column are null (pyarrow's `null_count`).
pub fn null_count(array: &dyn Array) -> usize {
    if matches!(array.data_type(), DataType::Null) {
        array.len()
    } else {
        array.null_count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_and_bytes() {
        assert_eq!(decimal_text(1250, 2), "12.50");
        assert_eq!(decimal_text(-5, 2), "-0.05");
        assert_eq!(decimal_text(12, -2), "1.2E+3");
        assert_eq!(bytes_text(b"a\xffb"), "a\\xffb");
    }
}
