//! The value set of `accepted_values` typed like the column (the Python tool's `_value_set` and
//! `pc.is_in`'s cast), and the lookups of a batch's values in it.

use crate::arrow_value::{Kind, Values};
use crate::coerce;
use crate::types::type_name;
use arrow_array::Array;
use arrow_schema::DataType;
use hashbrown::HashSet;
use serde_json::Value;

/// The accepted values in the column's terms.
pub enum Accepted {
    /// Strings or binary: the list, a hash set when the list is long, and the values as
    /// `(length, first 8 bytes)` words when every one is at most 8 bytes long.
    Bytes(Vec<Vec<u8>>, HashSet<Vec<u8>>, Option<Vec<(usize, u64)>>),
    /// Raw integers (of integer, date, time and timestamp columns), and floats compared with
    /// them as doubles.
    Ints(Vec<i128>, Vec<f64>),
    /// Float bits (NaN canonical).
    Floats(Vec<u64>),
    /// Bools.
    Bools(Vec<bool>),
    /// Decimal unscaled integers.
    Decimals(Vec<i128>),
    /// A `null` column: nothing to check.
    Nothing,
}

fn canonical_bits(f: f64) -> u64 {
    if f.is_nan() {
        f64::NAN.to_bits()
    } else {
        f.to_bits()
    }
}

fn int_range(data_type: &DataType) -> (i128, i128) {
    match data_type {
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 | DataType::Date32 | DataType::Time32(_) => {
            (i32::MIN.into(), i32::MAX.into())
        }
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 => (0, u32::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    }
}

/// The value set typed like the column (the Python tool's `_value_set` and `is_in`'s cast); the
/// error message and its pyarrow type when the types can't be compared.
pub fn accepted(
    values: &[Value],
    data_type: &DataType,
) -> Result<Accepted, (String, &'static str)> {
    let target = match data_type {
        DataType::Dictionary(_, value) => value.as_ref(),
        other => other,
    };
    let mismatch = || {
        (
            format!(
                "Array type doesn't match type of values set: {} vs {}",
                type_name(target),
                coerce::inferred_type(values)
            ),
            "ArrowTypeError",
        )
    };
    let present: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
    let all = |f: &dyn Fn(&Value) -> bool| present.iter().all(|v| f(v));
    let strings = all(&|v| v.is_string());
    match Kind::of(target) {
        Kind::Null => Ok(Accepted::Nothing),
        Kind::Str => {
            let texts: Option<Vec<Vec<u8>>> = present
                .iter()
                .map(|v| coerce::to_text(v).map(String::into_bytes))
                .collect();
            texts.map(bytes_set).ok_or_else(mismatch)
        }
        Kind::Bin if strings => Ok(bytes_set(
            present
                .iter()
                .filter_map(|v| v.as_str())
                .map(|s| s.as_bytes().to_vec())
                .collect(),
        )),
        Kind::Int(kind) => {
            let (lo, hi) = int_range(target);
            if strings {
                let parsed: Option<Vec<i128>> = present
                    .iter()
                    .map(|v| {
                        let text = v.as_str()?;
                        match &kind {
                            crate::arrow_value::IntKind::Plain => {
                                coerce::parse_int(text).filter(|i| (lo..=hi).contains(i))
                            }
                            crate::arrow_value::IntKind::Date32 => {
                                coerce::parse_date_text(text).map(i128::from)
                            }
                            crate::arrow_value::IntKind::Date64 => {
                                coerce::parse_date_text(text).map(|d| i128::from(d) * 86_400_000)
                            }
                            crate::arrow_value::IntKind::Timestamp(unit, zone) => {
                                coerce::parse_timestamp(text, *unit, zone.is_some()).map(i128::from)
                            }
                            _ => None,
                        }
                    })
                    .collect();
                return parsed
                    .map(|ints| Accepted::Ints(ints, Vec::new()))
                    .ok_or_else(mismatch);
            }
            numbers_as_ints(&present, lo, hi).ok_or_else(mismatch)
        }
        Kind::UInt64 => {
            let (lo, hi) = int_range(target);
            if strings {
                let parsed: Option<Vec<i128>> = present
                    .iter()
                    .map(|v| coerce::parse_int(v.as_str()?).filter(|i| (lo..=hi).contains(i)))
                    .collect();
                return parsed
                    .map(|ints| Accepted::Ints(ints, Vec::new()))
                    .ok_or_else(mismatch);
            }
            numbers_as_ints(&present, lo, hi).ok_or_else(mismatch)
        }
        kind @ (Kind::F32 | Kind::F64) => {
            let narrow = |f: f64| {
                if matches!(kind, Kind::F32) {
                    f64::from(f as f32)
                } else {
                    f
                }
            };
            let floats: Option<Vec<u64>> = present
                .iter()
                .map(|v| {
                    let f = match v {
                        Value::Number(n) => n.as_f64(),
                        Value::Bool(b) => Some(f64::from(u8::from(*b))),
                        Value::String(s) => coerce::parse_float(s),
                        _ => None,
                    }?;
                    Some(canonical_bits(narrow(f)))
                })
                .collect();
            floats.map(Accepted::Floats).ok_or_else(mismatch)
        }
        Kind::Bool => {
            let bools: Option<Vec<bool>> = present
                .iter()
                .map(|v| match v {
                    Value::Bool(b) => Some(*b),
                    Value::Number(n) => n.as_f64().map(|f| f != 0.0),
                    Value::String(s) => coerce::parse_bool(s),
                    _ => None,
                })
                .collect();
            bools.map(Accepted::Bools).ok_or_else(mismatch)
        }
        Kind::Decimal128(scale) => {
            let decimals: Option<Vec<i128>> = present
                .iter()
                .map(|v| match v {
                    Value::Number(n) => coerce::number_to_decimal(n, scale),
                    Value::String(s) => coerce::parse_decimal(s, scale),
                    _ => None,
                })
                .collect();
            decimals.map(Accepted::Decimals).ok_or_else(mismatch)
        }
        Kind::Bin => Err(mismatch()),
        Kind::Other(_) => Err((
            format!(
                "Function 'is_in' has no kernel matching input types ({})",
                type_name(data_type)
            ),
            "ArrowNotImplementedError",
        )),
    }
}

fn bytes_set(values: Vec<Vec<u8>>) -> Accepted {
    let set = if values.len() > 8 {
        values.iter().cloned().collect()
    } else {
        HashSet::new()
    };
    let words = (values.len() <= 8 && values.iter().all(|v| v.len() <= 8))
        .then(|| values.iter().map(|v| (v.len(), word(v))).collect());
    Accepted::Bytes(values, set, words)
}

/// Up to 8 bytes as a number (zero-padded).
#[inline]
fn word(bytes: &[u8]) -> u64 {
    let mut buffer = [0u8; 8];
    let n = bytes.len().min(8);
    buffer[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(buffer)
}

/// Whether a value is one of the short accepted `words`.
#[inline]
fn in_words(words: &[(usize, u64)], value: &[u8]) -> bool {
    value.len() <= 8 && {
        let w = word(value);
        words.iter().any(|(len, x)| *len == value.len() && *x == w)
    }
}

/// The rows of a `string` column (at `valid` rows) that are not accepted.
pub fn string_offenders<O: arrow_array::OffsetSizeTrait>(
    array: &arrow_array::GenericStringArray<O>,
    valid: Option<&arrow_buffer::NullBuffer>,
    accepted: &Accepted,
    bad: &mut Vec<usize>,
) {
    let Accepted::Bytes(list, set, words) = accepted else {
        return;
    };
    let offsets = array.value_offsets();
    let data: &[u8] = array.value_data();
    let span = |i: usize| (offsets[i].as_usize(), offsets[i + 1].as_usize());
    match (words, valid) {
        (Some(words), None) => {
            for i in 0..array.len() {
                let (start, end) = span(i);
                let len = end - start;
                let ok = len <= 8 && {
                    // Read 8 bytes at once when the buffer has them, masked to the length.
                    let w = match data.get(start..start + 8) {
                        Some(eight) => {
                            let mut buffer = [0u8; 8];
                            buffer.copy_from_slice(eight);
                            let mask = if len == 8 {
                                u64::MAX
                            } else {
                                (1u64 << (8 * len)) - 1
                            };
                            u64::from_le_bytes(buffer) & mask
                        }
                        None => word(data.get(start..end).unwrap_or_default()),
                    };
                    // Without branches: which value a row holds is unpredictable.
                    words
                        .iter()
                        .fold(false, |found, (l, x)| found | ((*l == len) & (*x == w)))
                };
                if !ok {
                    bad.push(i);
                }
            }
        }
        _ => {
            let ok = |i: usize| {
                let (start, end) = span(i);
                let v = data.get(start..end).unwrap_or_default();
                match words {
                    Some(words) => in_words(words, v),
                    None if set.is_empty() => list.iter().any(|s| s.as_slice() == v),
                    None => set.contains(v),
                }
            };
            match valid {
                None => bad.extend((0..array.len()).filter(|i| !ok(*i))),
                Some(valid) => bad.extend(valid.valid_indices().filter(|i| !ok(*i))),
            }
        }
    }
}

/// Numbers for an integer column: truncated to the column's type when every one fits (as
/// `pa.array(values, type=...)`), else compared exactly as written.
fn numbers_as_ints(values: &[&Value], lo: i128, hi: i128) -> Option<Accepted> {
    let exact = |v: &Value| -> Option<i128> {
        match v {
            Value::Number(n) => n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
                .or_else(|| {
                    let f = n.as_f64()?;
                    (f.is_finite() && f.abs() < 1e38).then_some(f.trunc() as i128)
                }),
            Value::Bool(b) => Some(i128::from(*b)),
            _ => None,
        }
    };
    let typed: Option<Vec<i128>> = values
        .iter()
        .map(|v| exact(v).filter(|i| (lo..=hi).contains(i)))
        .collect();
    if let Some(ints) = typed {
        return Some(Accepted::Ints(ints, Vec::new()));
    }
    let mut ints = Vec::new();
    let mut floats = Vec::new();
    for value in values {
        match value {
            Value::Number(n) if n.is_f64() => floats.push(n.as_f64()?),
            other => ints.push(exact(other)?),
        }
    }
    Some(Accepted::Ints(ints, floats))
}

impl Accepted {
    /// Whether the (valid) value at `i` is accepted.
    pub fn contains(&self, values: &Values<'_>, i: usize) -> bool {
        match (self, values) {
            (Accepted::Nothing, _) => true,
            (_, Values::Dict(keys, inner)) => {
                usize::try_from(keys.get(i)).is_ok_and(|key| self.contains(inner, key))
            }
            (Accepted::Bytes(list, set, words), Values::Bytes(b)) => {
                let value = b.get(i);
                if let Some(words) = words {
                    in_words(words, value)
                } else if set.is_empty() {
                    list.iter().any(|s| s.as_slice() == value)
                } else {
                    set.contains(value)
                }
            }
            (Accepted::Ints(ints, floats), Values::Int(v)) => {
                let x = v.get(i);
                ints.contains(&i128::from(x)) || floats.contains(&(x as f64))
            }
            (Accepted::Ints(ints, floats), Values::UInt64(v)) => {
                let x = v[i];
                ints.contains(&i128::from(x)) || floats.contains(&(x as f64))
            }
            (Accepted::Floats(bits), Values::F64(v)) => bits.contains(&canonical_bits(v[i])),
            (Accepted::Floats(bits), Values::F32(v)) => {
                bits.contains(&canonical_bits(f64::from(v[i])))
            }
            (Accepted::Bools(bools), Values::Bool(a)) => bools.contains(&a.value(i)),
            (Accepted::Decimals(list), Values::Decimal128(v)) => list.contains(&v[i]),
            _ => true,
        }
    }
}
