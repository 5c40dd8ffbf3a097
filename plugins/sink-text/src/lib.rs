//! What ldp's file sinks share (`csv-sink`, `json-sink`, `xlsx-sink`): the config of the one
//! file a sink writes in its staging folder ([`FileConfig`], [`file_name`]), the check of a
//! schema's columns with each zoned timestamp column's zone ([`column_zones`]), and dates, times
//! and zoned timestamps as text in Arrow C++'s formats ([`date_time`] for a column's value;
//! [`date`], [`time`], [`timestamp`], [`Zone`]).

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_schema::{DataType, TimeUnit};
use ldp_plugin_sdk::{ConfigObject, PluginError};
use std::fmt::Write as _;

/// How a zoned timestamp writes a zone's offset other than UTC's `Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetStyle {
    /// `+HHMM`, as Arrow C++ (pyarrow's `write_csv`) writes it.
    Compact,
    /// `+HH:MM` (ISO 8601 extended), which JSON readers parse.
    Colon,
}

/// The configuration of a file sink: `{"path": "/abs/staging/name.ext"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileConfig {
    /// The file to write.
    pub path: String,
}

impl FileConfig {
    /// Parses and validates a configuration object text; `what` names the file in messages
    /// (`CSV file`).
    pub fn parse(text: &str, what: &str) -> Result<Self, PluginError> {
        let object = ConfigObject::parse(text, &["path"])?;
        let path = object.absolute_file_path("path", &format!("{what} to write"))?;
        Ok(Self {
            path: path.to_owned(),
        })
    }
}

/// The file name of `path`, as a sink reports it in its summary (relative to the staging
/// folder).
pub fn file_name(path: &str) -> Result<String, PluginError> {
    std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_owned)
        .ok_or_else(|| {
            PluginError::config(format!(
                "config.path: {path:?} does not end with a file name"
            ))
        })
}

/// The type of a column's values (a dictionary's value type).
pub fn value_type(data_type: &DataType) -> &DataType {
    match data_type {
        DataType::Dictionary(_, values) => value_type(values),
        other => other,
    }
}

/// Checks every column of `schema` with `check` (why a sink cannot write a type) and returns
/// the zone of each zoned timestamp column (`None` for the other columns). `format` names the
/// file in messages: `{path}: cannot write column "x" (Binary) as CSV: {why}`.
pub fn column_zones(
    path: &str,
    schema: &arrow_schema::Schema,
    format: &str,
    check: impl Fn(&DataType) -> Result<(), String>,
) -> Result<Vec<Option<Zone>>, PluginError> {
    schema
        .fields()
        .iter()
        .map(|field| {
            check(field.data_type()).map_err(|why| {
                PluginError::data(format!(
                    "{path}: cannot write column {:?} ({}) as {format}: {why}",
                    field.name(),
                    field.data_type()
                ))
            })?;
            Ok(match value_type(field.data_type()) {
                DataType::Timestamp(_, Some(zone)) => Zone::parse(zone).ok(),
                _ => None,
            })
        })
        .collect()
}

/// A time zone of a timestamp column.
#[derive(Debug, Clone)]
pub enum Zone {
    /// `UTC` (and `+00:00`): the UTC time and `Z`.
    Utc,
    /// A fixed offset in seconds: the local time and its offset ([`OffsetStyle`]).
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
    pub fn offset_at(&self, utc_seconds: i64) -> i32 {
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

/// `YYYY-MM-DD` (`-YYYY` before year 0, as `%Y` writes it).
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

/// `HH:MM:SS` plus the unit's fraction; outside one day, Arrow C++'s
/// `<value out of range: N>`.
pub fn time(out: &mut String, value: i64, unit: &TimeUnit) {
    let (per_second, width) = per_second(unit);
    if !(0..86_400 * per_second).contains(&value) {
        let _ = write!(out, "<value out of range: {value}>");
        return;
    }
    clock(out, value / per_second, value % per_second, width);
}

/// `YYYY-MM-DD HH:MM:SS` plus the unit's fraction, then the zone's suffix: `Z` for UTC, the
/// offset in `style` for another zone.
pub fn timestamp(
    out: &mut String,
    value: i64,
    unit: &TimeUnit,
    zone: Option<&Zone>,
    style: OffsetStyle,
) {
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
            let (hours, minutes) = (minutes / 60, minutes % 60);
            let _ = match style {
                OffsetStyle::Compact => write!(out, "{sign}{hours:02}{minutes:02}"),
                OffsetStyle::Colon => write!(out, "{sign}{hours:02}:{minutes:02}"),
            };
        }
    }
}

/// Appends the text of the non-null value at `row` of a date, time or timestamp `column`
/// (`zone` is a timestamp column's zone); false, and nothing appended, for any other type.
pub fn date_time(
    out: &mut String,
    column: &dyn Array,
    row: usize,
    zone: Option<&Zone>,
    style: OffsetStyle,
) -> bool {
    fn prim<T: ArrowPrimitiveType>(column: &dyn Array, row: usize) -> T::Native {
        column.as_primitive::<T>().value(row)
    }
    match column.data_type() {
        DataType::Date32 => date(out, i64::from(prim::<Date32Type>(column, row))),
        // Truncated toward zero, as Arrow C++ casts it: -1 ms is 1970-01-01.
        DataType::Date64 => date(out, prim::<Date64Type>(column, row) / 86_400_000),
        DataType::Time32(TimeUnit::Millisecond) => time(
            out,
            i64::from(prim::<Time32MillisecondType>(column, row)),
            &TimeUnit::Millisecond,
        ),
        DataType::Time32(_) => time(
            out,
            i64::from(prim::<Time32SecondType>(column, row)),
            &TimeUnit::Second,
        ),
        DataType::Time64(TimeUnit::Nanosecond) => time(
            out,
            prim::<Time64NanosecondType>(column, row),
            &TimeUnit::Nanosecond,
        ),
        DataType::Time64(_) => time(
            out,
            prim::<Time64MicrosecondType>(column, row),
            &TimeUnit::Microsecond,
        ),
        DataType::Timestamp(unit, _) => {
            let value = match unit {
                TimeUnit::Second => prim::<TimestampSecondType>(column, row),
                TimeUnit::Millisecond => prim::<TimestampMillisecondType>(column, row),
                TimeUnit::Microsecond => prim::<TimestampMicrosecondType>(column, row),
                TimeUnit::Nanosecond => prim::<TimestampNanosecondType>(column, row),
            };
            timestamp(out, value, unit, zone, style);
        }
        _ => return false,
    }
    true
}
