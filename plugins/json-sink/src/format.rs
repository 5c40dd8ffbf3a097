//! The JSON of each type, for a file the `json` source reads back to the same rows and types.
//!
//! arrow-json's writer writes the values, with explicit nulls and, through [`Encoders`], the
//! dates, times, timestamps and durations of this module (arrow-json writes timestamps as
//! `2024-01-01T10:00:00`, without their zone's offset; the `json` source would read them back,
//! but the CSV target writes `2024-01-01 10:00:00.000000`, and a file of both should agree).
//!
//! | type | JSON |
//! |---|---|
//! | null (any type) | `null`, the key always written |
//! | boolean | `true`, `false` |
//! | integers | numbers (`-3`); a `uint64` beyond `int64` reads back as a double |
//! | float16/32/64 | shortest round-trip digits, always with a fraction or an exponent (`1.0`, `0.1`, `1.0e16`), so whole doubles read back as `double`; NaN, `inf`, `-inf` → `null` (JSON has no such numbers) |
//! | decimal | a number with the scale's digits (`1.50`); reads back as a double (an integer at scale 0) |
//! | date32/64 | `"YYYY-MM-DD"` (`"-YYYY-MM-DD"` before year 0); reads back as `date32` |
//! | timestamp | `"YYYY-MM-DD HH:MM:SS"` plus the unit's fraction (`.fff`, `.ffffff`, `.fffffffff`); with a zone, `Z` for `UTC` (and `+00:00`), else the local time and `+HH:MM`; reads back as `timestamp[us]`, `timestamp[us, tz=UTC]` when zoned |
//! | time32/64 | `"HH:MM:SS"` plus the unit's fraction; reads back as a string |
//! | duration | a number of the unit |
//! | string (and views) | a JSON string |
//! | binary (all kinds) | lowercase hex in a string (arrow-json's form) |
//! | list (all kinds) | an array |
//! | struct | an object of its fields in order, nulls written |
//! | map with string keys | an object |
//! | dictionary, run-end encoded | their values |
//! | interval | Arrow's text in a string |
//!
//! Refused before the file is created: unions, maps whose keys are not strings, a zone that is
//! not a zone, and names repeated in one object (top-level columns or a struct's fields), as a
//! JSON object's keys must differ (the `json` source refuses a repeated key).

use arrow_array::cast::AsArray;
use arrow_array::types::{
    DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType, DurationSecondType,
};
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_json::writer::{NullableEncoder, make_encoder};
use arrow_json::{Encoder, EncoderFactory, EncoderOptions};
use arrow_schema::{ArrowError, DataType, FieldRef, Fields, TimeUnit};
use std::collections::HashSet;

pub use ldp_sink_text::Zone;
use ldp_sink_text::{OffsetStyle, date_time};
use std::fmt::Write as _;

/// Whether a column of `data_type` can be written, and if not, why.
pub fn check_type(data_type: &DataType) -> Result<(), String> {
    use DataType::*;
    match data_type {
        Null
        | Boolean
        | Int8
        | Int16
        | Int32
        | Int64
        | UInt8
        | UInt16
        | UInt32
        | UInt64
        | Float16
        | Float32
        | Float64
        | Decimal32(..)
        | Decimal64(..)
        | Decimal128(..)
        | Decimal256(..)
        | Date32
        | Date64
        | Time32(_)
        | Time64(_)
        | Duration(_)
        | Interval(_)
        | Utf8
        | LargeUtf8
        | Utf8View
        | Binary
        | LargeBinary
        | BinaryView
        | FixedSizeBinary(_)
        | Timestamp(_, None) => Ok(()),
        Timestamp(_, Some(zone)) => Zone::parse(zone).map(|_| ()),
        List(item)
        | LargeList(item)
        | ListView(item)
        | LargeListView(item)
        | FixedSizeList(item, _) => check_type(item.data_type()),
        Struct(fields) => check_fields(fields, "the struct field"),
        Map(entries, _) => match entries.data_type() {
            Struct(kv) if kv.len() == 2 => {
                if !matches!(kv[0].data_type(), Utf8 | LargeUtf8 | Utf8View) {
                    return Err(format!(
                        "a JSON object's keys are strings, and this map's keys are {}; cast \
                         them to strings with a transform first",
                        kv[0].data_type()
                    ));
                }
                check_type(kv[1].data_type())
            }
            other => Err(format!(
                "a map's entries must be a key and a value, not {other}"
            )),
        },
        Dictionary(_, values) => check_type(values),
        RunEndEncoded(_, values) => check_type(values.data_type()),
        Union(..) => Err(
            "a union has no JSON form that reads back; split it into columns with a transform \
             first"
                .to_string(),
        ),
    }
}

/// Whether every field of `fields` can be written under a name of its own; `what` names a
/// field in the message for a repeated name (`the column`).
pub fn check_fields(fields: &Fields, what: &str) -> Result<(), String> {
    let mut seen = HashSet::with_capacity(fields.len());
    for field in fields {
        if !seen.insert(field.name().as_str()) {
            return Err(format!(
                "{what} {:?} appears twice, and the keys of a JSON object must differ; rename \
                 one with a transform first",
                field.name()
            ));
        }
        check_type(field.data_type())
            .map_err(|why| format!("field {:?} ({}): {why}", field.name(), field.data_type()))?;
    }
    Ok(())
}

/// The encoders of this module, given to arrow-json's writer: dates, times, timestamps and
/// durations (see the module's table), and dictionaries whose values may be null (arrow-json
/// looks at the keys' nulls only, and would write a null value as a value).
#[derive(Debug, Default)]
pub struct Encoders;

impl EncoderFactory for Encoders {
    fn make_default_encoder<'a>(
        &self,
        field: &'a FieldRef,
        array: &'a dyn Array,
        options: &'a EncoderOptions,
    ) -> Result<Option<NullableEncoder<'a>>, ArrowError> {
        use DataType::*;
        let zone = match array.data_type() {
            Date32 | Date64 | Time32(_) | Time64(_) | Duration(_) | Timestamp(_, None) => None,
            Timestamp(_, Some(zone)) => {
                Some(Zone::parse(zone).map_err(ArrowError::InvalidArgumentError)?)
            }
            Dictionary(..) => {
                let dictionary = array.as_any_dictionary();
                let values = make_encoder(field, dictionary.values().as_ref(), options)?;
                let encoder = DictionaryEncoder {
                    keys: dictionary.normalized_keys(),
                    values,
                };
                return Ok(Some(NullableEncoder::new(
                    Box::new(encoder),
                    array.logical_nulls(),
                )));
            }
            _ => return Ok(None),
        };
        let encoder = TemporalEncoder {
            array,
            zone,
            text: String::with_capacity(40),
        };
        Ok(Some(NullableEncoder::new(
            Box::new(encoder),
            array.nulls().cloned(),
        )))
    }
}

/// A dictionary's values, looked up by key.
struct DictionaryEncoder<'a> {
    keys: Vec<usize>,
    values: NullableEncoder<'a>,
}

impl Encoder for DictionaryEncoder<'_> {
    fn encode(&mut self, idx: usize, out: &mut Vec<u8>) {
        // The dictionary's logical nulls (a null key, or a key of a null value) are written by
        // the caller.
        self.values.encode(self.keys[idx], out);
    }
}

/// A date, time, timestamp or duration column.
struct TemporalEncoder<'a> {
    array: &'a dyn Array,
    zone: Option<Zone>,
    text: String,
}

impl Encoder for TemporalEncoder<'_> {
    fn encode(&mut self, idx: usize, out: &mut Vec<u8>) {
        self.text.clear();
        let string = temporal(&mut self.text, self.array, idx, self.zone.as_ref());
        // The texts are digits, `-`, `:`, `.`, ` `, `+` and `Z`: nothing to escape.
        if string {
            out.push(b'"');
            out.extend_from_slice(self.text.as_bytes());
            out.push(b'"');
        } else {
            out.extend_from_slice(self.text.as_bytes());
        }
    }
}

/// Appends the JSON text of the non-null value at `row` of a date, time, timestamp or
/// duration `column` (without quotes); whether it is a string (a duration is a number).
pub fn temporal(out: &mut String, column: &dyn Array, row: usize, zone: Option<&Zone>) -> bool {
    use DataType::*;
    match column.data_type() {
        Date32 | Date64 | Time32(_) | Time64(_) | Timestamp(_, _) => {
            date_time(out, column, row, zone, OffsetStyle::Colon);
        }
        Duration(unit) => {
            let value = match unit {
                TimeUnit::Second => prim::<DurationSecondType>(column, row),
                TimeUnit::Millisecond => prim::<DurationMillisecondType>(column, row),
                TimeUnit::Microsecond => prim::<DurationMicrosecondType>(column, row),
                TimeUnit::Nanosecond => prim::<DurationNanosecondType>(column, row),
            };
            let _ = write!(out, "{value}");
            return false;
        }
        // The factory makes this encoder for the types above only.
        _ => out.push_str("null"),
    }
    true
}

fn prim<T: ArrowPrimitiveType>(column: &dyn Array, row: usize) -> T::Native {
    column.as_primitive::<T>().value(row)
}
