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
    Date32Type, Date64Type, DurationMicrosecondType, DurationMillisecondType,
    DurationNanosecondType, DurationSecondType, Time32MillisecondType, Time32SecondType,
    Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_json::writer::{NullableEncoder, make_encoder};
use arrow_json::{Encoder, EncoderFactory, EncoderOptions};
use arrow_schema::{ArrowError, DataType, FieldRef, Fields, TimeUnit};
use std::collections::HashSet;
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
        Date32 => date(out, i64::from(prim::<Date32Type>(column, row))),
        // Truncated toward zero, as Arrow C++ casts it: -1 ms is 1970-01-01.
        Date64 => date(out, prim::<Date64Type>(column, row) / 86_400_000),
        Time32(TimeUnit::Millisecond) => time(
            out,
            i64::from(prim::<Time32MillisecondType>(column, row)),
            &TimeUnit::Millisecond,
        ),
        Time32(_) => time(
            out,
            i64::from(prim::<Time32SecondType>(column, row)),
            &TimeUnit::Second,
        ),
        Time64(TimeUnit::Nanosecond) => time(
            out,
            prim::<Time64NanosecondType>(column, row),
            &TimeUnit::Nanosecond,
        ),
        Time64(_) => time(
            out,
            prim::<Time64MicrosecondType>(column, row),
            &TimeUnit::Microsecond,
        ),
        Timestamp(unit, _) => {
            let value = match unit {
                TimeUnit::Second => prim::<TimestampSecondType>(column, row),
                TimeUnit::Millisecond => prim::<TimestampMillisecondType>(column, row),
                TimeUnit::Microsecond => prim::<TimestampMicrosecondType>(column, row),
                TimeUnit::Nanosecond => prim::<TimestampNanosecondType>(column, row),
            };
            timestamp(out, value, unit, zone);
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

/// A time zone of a timestamp column.
#[derive(Debug, Clone)]
pub enum Zone {
    /// `UTC` (and `+00:00`, as the host names Iceberg's `timestamptz`): the UTC time and `Z`.
    Utc,
    /// A fixed offset in seconds: the local time and `+HH:MM`.
    Fixed(i32),
    /// A named zone: the local time and its offset at that instant.
    Named(jiff::tz::TimeZone),
}

impl Zone {
    /// Parses a zone as Arrow names it: `UTC`, `+HH:MM`, `-HHMM`, `+HH`, or an IANA name.
    pub fn parse(name: &str) -> Result<Self, String> {
        if name == "UTC" || name == "+00:00" {
            return Ok(Self::Utc);
        }
        if let Some(seconds) = fixed_offset(name) {
            return Ok(Self::Fixed(seconds));
        }
        jiff::tz::TimeZone::get(name)
            .map(Self::Named)
            .map_err(|_| format!("its time zone {name:?} is not a known time zone"))
    }

    /// The offset from UTC, in seconds, at `utc_seconds` since the epoch.
    fn offset_at(&self, utc_seconds: i64) -> i32 {
        match self {
            Self::Utc => 0,
            Self::Fixed(seconds) => *seconds,
            Self::Named(tz) => jiff::Timestamp::from_second(utc_seconds)
                .map(|t| tz.to_offset(t).seconds())
                .unwrap_or(0),
        }
    }
}

/// `+HH:MM`, `-HHMM` or `+HH` in seconds.
fn fixed_offset(name: &str) -> Option<i32> {
    let (sign, rest) = match name.as_bytes().first()? {
        b'+' => (1, &name[1..]),
        b'-' => (-1, &name[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) || !matches!(digits.len(), 2 | 4) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = if digits.len() == 4 {
        digits[2..].parse().ok()?
    } else {
        0
    };
    Some(sign * (hours * 3600 + minutes * 60))
}

/// Days since 1970-01-01 as (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Howard Hinnant's `civil_from_days`.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11]
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32; // [1, 31]
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32; // [1, 12]
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `YYYY-MM-DD` (`-YYYY` before year 0).
pub fn date(out: &mut String, days: i64) {
    let (year, month, day) = civil_from_days(days);
    if year < 0 {
        let _ = write!(out, "-{:04}-{month:02}-{day:02}", -year);
    } else {
        let _ = write!(out, "{year:04}-{month:02}-{day:02}");
    }
}

fn per_second(unit: &TimeUnit) -> (i64, usize) {
    match unit {
        TimeUnit::Second => (1, 0),
        TimeUnit::Millisecond => (1_000, 3),
        TimeUnit::Microsecond => (1_000_000, 6),
        TimeUnit::Nanosecond => (1_000_000_000, 9),
    }
}

fn clock(out: &mut String, seconds_in_day: i64, fraction: i64, width: usize) {
    let (hour, minute, second) = (
        seconds_in_day / 3600,
        seconds_in_day / 60 % 60,
        seconds_in_day % 60,
    );
    let _ = write!(out, "{hour:02}:{minute:02}:{second:02}");
    if width > 0 {
        let _ = write!(out, ".{fraction:0width$}");
    }
}

/// `HH:MM:SS` plus the unit's fraction; outside one day (not a valid time), Arrow C++'s
/// `<value out of range: N>`, as the CSV target writes it.
pub fn time(out: &mut String, value: i64, unit: &TimeUnit) {
    let (per_second, width) = per_second(unit);
    if !(0..86_400 * per_second).contains(&value) {
        let _ = write!(out, "<value out of range: {value}>");
        return;
    }
    clock(out, value / per_second, value % per_second, width);
}

/// `YYYY-MM-DD HH:MM:SS` plus the unit's fraction, then the zone's suffix: `Z` for UTC,
/// `+HH:MM` for another zone.
pub fn timestamp(out: &mut String, value: i64, unit: &TimeUnit, zone: Option<&Zone>) {
    let (per_second, width) = per_second(unit);
    let utc_seconds = value.div_euclid(per_second);
    let fraction = value.rem_euclid(per_second);
    let offset = zone.map_or(0, |z| z.offset_at(utc_seconds));
    let seconds = utc_seconds + i64::from(offset);
    date(out, seconds.div_euclid(86_400));
    out.push(' ');
    clock(out, seconds.rem_euclid(86_400), fraction, width);
    match zone {
        None => {}
        Some(Zone::Utc) => out.push('Z'),
        Some(_) => {
            let sign = if offset < 0 { '-' } else { '+' };
            let minutes = offset.unsigned_abs() / 60;
            let _ = write!(out, "{sign}{:02}:{:02}", minutes / 60, minutes % 60);
        }
    }
}
