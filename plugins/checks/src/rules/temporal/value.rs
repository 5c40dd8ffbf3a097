//! Reading the values of an Arrow column without allocating, comparing them as Arrow's compute
//! kernels do, and printing them as the Python tool does (`to_jsonable(_scalar_py(value))`).

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Decimal256Type, DurationMicrosecondType,
    DurationMillisecondType, DurationNanosecondType, DurationSecondType, Float16Type, Float32Type,
    Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, Time32MillisecondType,
    Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, BinaryArray, BinaryViewArray, BooleanArray, FixedSizeBinaryArray, LargeBinaryArray,
    LargeStringArray, PrimitiveArray, StringArray, StringViewArray,
};
use arrow_schema::{DataType, TimeUnit};

use super::show::py_of;
use crate::py::Py;

/// One value of a column, borrowed from its batch. All values of a column have the same variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Raw<'a> {
    /// Signed integers and every integer-backed type (dates, times, timestamps, durations).
    Int(i64),
    /// Unsigned integers.
    UInt(u64),
    /// Floating point numbers (half, single and double precision).
    Float(f64),
    /// Booleans.
    Bool(bool),
    /// 128-bit decimals (the unscaled integer).
    Dec(i128),
    /// Strings and binaries.
    Bytes(&'a [u8]),
}

impl Raw<'_> {
    /// A floating point NaN, which the temporal checks skip like a null.
    pub fn is_nan(&self) -> bool {
        matches!(self, Raw::Float(f) if f.is_nan())
    }

    /// Arrow's sort order: numbers ascending, NaN after every number, bytes lexicographic.
    pub fn sort_cmp(&self, other: &Raw<'_>) -> Ordering {
        match (self, other) {
            (Raw::Int(a), Raw::Int(b)) => a.cmp(b),
            (Raw::UInt(a), Raw::UInt(b)) => a.cmp(b),
            (Raw::Float(a), Raw::Float(b)) => match (a.is_nan(), b.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
            },
            (Raw::Bool(a), Raw::Bool(b)) => a.cmp(b),
            (Raw::Dec(a), Raw::Dec(b)) => a.cmp(b),
            (Raw::Bytes(a), Raw::Bytes(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Raw::Int(_) => 0,
            Raw::UInt(_) => 1,
            Raw::Float(_) => 2,
            Raw::Bool(_) => 3,
            Raw::Dec(_) => 4,
            Raw::Bytes(_) => 5,
        }
    }

    /// The value as an owned [`Val`].
    pub fn to_val(self) -> Val {
        match self {
            Raw::Int(v) => Val::Int(v),
            Raw::UInt(v) => Val::UInt(v),
            Raw::Float(v) => Val::Float(v),
            Raw::Bool(v) => Val::Bool(v),
            Raw::Dec(v) => Val::Dec(v),
            Raw::Bytes(v) => Val::Bytes(v.to_vec()),
        }
    }
}

/// An owned [`Raw`], kept across batches (a group's key, the last value of a group).
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// See [`Raw::Int`].
    Int(i64),
    /// See [`Raw::UInt`].
    UInt(u64),
    /// See [`Raw::Float`].
    Float(f64),
    /// See [`Raw::Bool`].
    Bool(bool),
    /// See [`Raw::Dec`].
    Dec(i128),
    /// See [`Raw::Bytes`].
    Bytes(Vec<u8>),
}

impl Val {
    /// The value, borrowed.
    pub fn raw(&self) -> Raw<'_> {
        match self {
            Val::Int(v) => Raw::Int(*v),
            Val::UInt(v) => Raw::UInt(*v),
            Val::Float(v) => Raw::Float(*v),
            Val::Bool(v) => Raw::Bool(*v),
            Val::Dec(v) => Raw::Dec(*v),
            Val::Bytes(v) => Raw::Bytes(v),
        }
    }

    /// Replaces the value with `raw`, reusing the byte buffer (no allocation once it is large
    /// enough).
    pub fn set(&mut self, raw: Raw<'_>) {
        match (self, raw) {
            (Val::Bytes(buffer), Raw::Bytes(bytes)) => {
                buffer.clear();
                buffer.extend_from_slice(bytes);
            }
            (this, raw) => *this = raw.to_val(),
        }
    }
}

/// Reads the values of one column of one batch.
pub struct Reader<'a> {
    array: &'a dyn Array,
    access: Access<'a>,
}

enum Access<'a> {
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F16(&'a PrimitiveArray<Float16Type>),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Bool(&'a BooleanArray),
    Dec(&'a [i128]),
    Dec256(&'a [arrow_buffer::i256]),
    Utf8(&'a StringArray),
    LargeUtf8(&'a LargeStringArray),
    Utf8View(&'a StringViewArray),
    Binary(&'a BinaryArray),
    LargeBinary(&'a LargeBinaryArray),
    BinaryView(&'a BinaryViewArray),
    Fixed(&'a FixedSizeBinaryArray),
    Dict(Vec<usize>, Box<Reader<'a>>),
    /// Every value is null.
    Null,
}

macro_rules! prim {
    ($array:expr, $t:ty, $variant:ident) => {
        Access::$variant($array.as_primitive_opt::<$t>()?.values())
    };
}

impl<'a> Reader<'a> {
    /// A reader for `array`, or `None` when the checks can't read its type (lists, structs...).
    pub fn new(array: &'a dyn Array) -> Option<Reader<'a>> {
        use DataType as D;
        let access = match array.data_type() {
            D::Null => Access::Null,
            D::Int8 => prim!(array, Int8Type, I8),
            D::Int16 => prim!(array, Int16Type, I16),
            D::Int32 => prim!(array, Int32Type, I32),
            D::Int64 => prim!(array, Int64Type, I64),
            D::UInt8 => prim!(array, UInt8Type, U8),
            D::UInt16 => prim!(array, UInt16Type, U16),
            D::UInt32 => prim!(array, UInt32Type, U32),
            D::UInt64 => prim!(array, UInt64Type, U64),
            D::Float16 => Access::F16(array.as_primitive_opt::<Float16Type>()?),
            D::Float32 => prim!(array, Float32Type, F32),
            D::Float64 => prim!(array, Float64Type, F64),
            D::Boolean => Access::Bool(array.as_boolean_opt()?),
            D::Decimal128(_, _) => prim!(array, Decimal128Type, Dec),
            D::Decimal256(_, _) => prim!(array, Decimal256Type, Dec256),
            D::Date32 => prim!(array, Date32Type, I32),
            D::Date64 => prim!(array, Date64Type, I64),
            D::Time32(TimeUnit::Second) => prim!(array, Time32SecondType, I32),
            D::Time32(TimeUnit::Millisecond) => prim!(array, Time32MillisecondType, I32),
            D::Time64(TimeUnit::Microsecond) => prim!(array, Time64MicrosecondType, I64),
            D::Time64(TimeUnit::Nanosecond) => prim!(array, Time64NanosecondType, I64),
            D::Timestamp(TimeUnit::Second, _) => prim!(array, TimestampSecondType, I64),
            D::Timestamp(TimeUnit::Millisecond, _) => prim!(array, TimestampMillisecondType, I64),
            D::Timestamp(TimeUnit::Microsecond, _) => prim!(array, TimestampMicrosecondType, I64),
            D::Timestamp(TimeUnit::Nanosecond, _) => prim!(array, TimestampNanosecondType, I64),
            D::Duration(TimeUnit::Second) => prim!(array, DurationSecondType, I64),
            D::Duration(TimeUnit::Millisecond) => prim!(array, DurationMillisecondType, I64),
            D::Duration(TimeUnit::Microsecond) => prim!(array, DurationMicrosecondType, I64),
            D::Duration(TimeUnit::Nanosecond) => prim!(array, DurationNanosecondType, I64),
            D::Utf8 => Access::Utf8(array.as_string_opt::<i32>()?),
            D::LargeUtf8 => Access::LargeUtf8(array.as_string_opt::<i64>()?),
            D::Utf8View => Access::Utf8View(array.as_string_view_opt()?),
            D::Binary => Access::Binary(array.as_binary_opt::<i32>()?),
            D::LargeBinary => Access::LargeBinary(array.as_binary_opt::<i64>()?),
            D::BinaryView => Access::BinaryView(array.as_binary_view_opt()?),
            D::FixedSizeBinary(_) => Access::Fixed(array.as_fixed_size_binary_opt()?),
            D::Dictionary(_, _) => {
                let dictionary = array.as_any_dictionary_opt()?;
                let values = Reader::new(dictionary.values().as_ref())?;
                if dictionary.values().is_empty() {
                    Access::Null
                } else {
                    Access::Dict(dictionary.normalized_keys(), Box::new(values))
                }
            }
            _ => return None,
        };
        Some(Reader { array, access })
    }

    /// The value of row `i`, `None` when it is null. `i` must be a row of the batch.
    pub fn get(&self, i: usize) -> Option<Raw<'a>> {
        // A dictionary's null values and a null column are handled by `Access::get`.
        if self.array.is_null(i) {
            return None;
        }
        self.access.get(i)
    }
}

impl<'a> Access<'a> {
    fn get(&self, i: usize) -> Option<Raw<'a>> {
        Some(match self {
            Access::I8(v) => Raw::Int(i64::from(*v.get(i)?)),
            Access::I16(v) => Raw::Int(i64::from(*v.get(i)?)),
            Access::I32(v) => Raw::Int(i64::from(*v.get(i)?)),
            Access::I64(v) => Raw::Int(*v.get(i)?),
            Access::U8(v) => Raw::UInt(u64::from(*v.get(i)?)),
            Access::U16(v) => Raw::UInt(u64::from(*v.get(i)?)),
            Access::U32(v) => Raw::UInt(u64::from(*v.get(i)?)),
            Access::U64(v) => Raw::UInt(*v.get(i)?),
            Access::F16(v) => Raw::Float(f64::from(*v.values().get(i)?)),
            Access::F32(v) => Raw::Float(f64::from(*v.get(i)?)),
            Access::F64(v) => Raw::Float(*v.get(i)?),
            Access::Bool(v) if i < v.len() => Raw::Bool(v.value(i)),
            Access::Dec(v) => Raw::Dec(*v.get(i)?),
            // Beyond 38 digits a decimal256 saturates (compared and printed as the nearest
            // 128-bit value).
            Access::Dec256(v) => {
                let value = *v.get(i)?;
                Raw::Dec(value.to_i128().unwrap_or(if value.is_negative() {
                    i128::MIN
                } else {
                    i128::MAX
                }))
            }
            Access::Utf8(v) if i < v.len() => Raw::Bytes(v.value(i).as_bytes()),
            Access::LargeUtf8(v) if i < v.len() => Raw::Bytes(v.value(i).as_bytes()),
            Access::Utf8View(v) if i < v.len() => Raw::Bytes(v.value(i).as_bytes()),
            Access::Binary(v) if i < v.len() => Raw::Bytes(v.value(i)),
            Access::LargeBinary(v) if i < v.len() => Raw::Bytes(v.value(i)),
            Access::BinaryView(v) if i < v.len() => Raw::Bytes(v.value(i)),
            Access::Fixed(v) if i < v.len() => Raw::Bytes(v.value(i)),
            Access::Dict(keys, values) => values.get(*keys.get(i)?)?,
            _ => return None,
        })
    }
}

/// Whether the checks can read values of `data_type` (see [`Reader::new`]).
pub fn readable(data_type: &DataType) -> bool {
    use DataType as D;
    match data_type {
        D::Dictionary(_, values) => readable(values),
        D::Time32(unit) => matches!(unit, TimeUnit::Second | TimeUnit::Millisecond),
        D::Time64(unit) => matches!(unit, TimeUnit::Microsecond | TimeUnit::Nanosecond),
        _ => matches!(
            data_type,
            D::Null
                | D::Int8
                | D::Int16
                | D::Int32
                | D::Int64
                | D::UInt8
                | D::UInt16
                | D::UInt32
                | D::UInt64
                | D::Float16
                | D::Float32
                | D::Float64
                | D::Boolean
                | D::Decimal128(_, _)
                | D::Decimal256(_, _)
                | D::Date32
                | D::Date64
                | D::Timestamp(_, _)
                | D::Duration(_)
                | D::Utf8
                | D::LargeUtf8
                | D::Utf8View
                | D::Binary
                | D::LargeBinary
                | D::BinaryView
                | D::FixedSizeBinary(_)
        ),
    }
}

/// Whether pyarrow's `sort_indices` sorts a column of `data_type` (structs sort; half floats,
/// dictionaries, lists... don't).
pub fn sortable(data_type: &DataType) -> bool {
    match data_type {
        DataType::Float16 | DataType::Dictionary(_, _) => false,
        DataType::Struct(_) => true,
        other => readable(other),
    }
}

/// Whether pyarrow's `less` compares two columns of `data_type` (dictionaries do).
pub fn comparable(data_type: &DataType) -> bool {
    !matches!(data_type, DataType::Float16) && readable(data_type)
}

/// Whether pyarrow's `equal` compares two key columns of `data_type` (not `null`, not structs).
pub fn equatable(data_type: &DataType) -> bool {
    !matches!(data_type, DataType::Null) && readable(data_type)
}

/// Values of one column kept per row, typed and compact (8 bytes a number).
#[derive(Debug, Default)]
pub enum Store {
    /// No value yet.
    #[default]
    Empty,
    /// [`Raw::Int`] values.
    Int(Vec<i64>),
    /// [`Raw::UInt`] values.
    UInt(Vec<u64>),
    /// [`Raw::Float`] values.
    Float(Vec<f64>),
    /// [`Raw::Bool`] values.
    Bool(Vec<bool>),
    /// [`Raw::Dec`] values.
    Dec(Vec<i128>),
    /// [`Raw::Bytes`] values, one after the other, with the end of each.
    Bytes {
        /// Where each value ends in `data`.
        ends: Vec<usize>,
        /// The bytes of every value.
        data: Vec<u8>,
    },
}

impl Store {
    /// Appends a value (of the column's variant).
    pub fn push(&mut self, raw: Raw<'_>) {
        if let Store::Empty = self {
            *self = match raw {
                Raw::Int(_) => Store::Int(Vec::new()),
                Raw::UInt(_) => Store::UInt(Vec::new()),
                Raw::Float(_) => Store::Float(Vec::new()),
                Raw::Bool(_) => Store::Bool(Vec::new()),
                Raw::Dec(_) => Store::Dec(Vec::new()),
                Raw::Bytes(_) => Store::Bytes {
                    ends: Vec::new(),
                    data: Vec::new(),
                },
            };
        }
        match (self, raw) {
            (Store::Int(v), Raw::Int(x)) => v.push(x),
            (Store::UInt(v), Raw::UInt(x)) => v.push(x),
            (Store::Float(v), Raw::Float(x)) => v.push(x),
            (Store::Bool(v), Raw::Bool(x)) => v.push(x),
            (Store::Dec(v), Raw::Dec(x)) => v.push(x),
            (Store::Bytes { ends, data }, Raw::Bytes(x)) => {
                data.extend_from_slice(x);
                ends.push(data.len());
            }
            // A column never changes variant; nothing sensible to store otherwise.
            _ => {}
        }
    }

    /// Value `i` (in push order); `None` when out of range.
    pub fn get(&self, i: usize) -> Option<Raw<'_>> {
        Some(match self {
            Store::Empty => return None,
            Store::Int(v) => Raw::Int(*v.get(i)?),
            Store::UInt(v) => Raw::UInt(*v.get(i)?),
            Store::Float(v) => Raw::Float(*v.get(i)?),
            Store::Bool(v) => Raw::Bool(*v.get(i)?),
            Store::Dec(v) => Raw::Dec(*v.get(i)?),
            Store::Bytes { ends, data } => {
                let end = *ends.get(i)?;
                let start = if i == 0 { 0 } else { *ends.get(i - 1)? };
                Raw::Bytes(data.get(start..end)?)
            }
        })
    }
}

impl Store {
    /// Value `i` as an `i64` in the same sort order, for numbers (`-0.0` ties with `0.0`; no
    /// NaN is stored).
    fn sort_key(&self, i: usize) -> Option<i64> {
        Some(match self {
            Store::Int(v) => *v.get(i)?,
            Store::UInt(v) => (*v.get(i)? ^ (1 << 63)) as i64,
            Store::Float(v) => {
                let x = *v.get(i)?;
                let bits = if x == 0.0 { 0 } else { x.to_bits() as i64 };
                bits ^ ((((bits >> 63) as u64) >> 1) as i64)
            }
            Store::Bool(v) => i64::from(*v.get(i)?),
            _ => return None,
        })
    }

    /// Whether [`Store::sort_key`] gives every value's key.
    fn numeric(&self) -> bool {
        matches!(
            self,
            Store::Int(_) | Store::UInt(_) | Store::Float(_) | Store::Bool(_)
        )
    }
}

/// The order of `count` kept rows sorted by `rank` (their group's), then by their value in
/// `values`, then by row: the Python tool's stable `sort_indices` by keys and value.
pub fn sort_rows(count: usize, rank: impl Fn(usize) -> u32, values: &Store) -> Vec<usize> {
    if values.numeric() && u32::try_from(count).is_ok() {
        let mut keys: Vec<(u32, i64, u32)> = (0..count)
            .map(|i| (rank(i), values.sort_key(i).unwrap_or(0), i as u32))
            .collect();
        keys.sort_unstable();
        return keys.into_iter().map(|(_, _, i)| i as usize).collect();
    }
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by(|&a, &b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| match (values.get(a), values.get(b)) {
                (Some(x), Some(y)) => x.sort_cmp(&y),
                _ => Ordering::Equal,
            })
    });
    order
}

/// The value as the Python tool reports it: `to_jsonable(_scalar_py(value))` of a value of
/// `data_type` (ISO strings for dates and times, seconds for durations, `"nan"` for NaN).
pub fn jsonable(data_type: &DataType, raw: Option<Raw<'_>>) -> Py {
    match raw {
        None => Py::None,
        Some(raw) => py_of(data_type, raw).jsonable(),
    }
}
