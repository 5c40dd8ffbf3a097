//! One Arrow value as the CLI shows it: in the common table format or as JSON.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};

/// A value, typed as far as printing cares.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// SQL NULL.
    Null,
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float.
    Float(f64),
    /// Anything else, already rendered (strings, dates, timestamps, nested values).
    Text(String),
}

impl Cell {
    /// Whether the value is a number (right-aligned in tables).
    pub fn is_number(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::UInt(_) | Cell::Float(_))
    }

    /// The text of the common table format: `NULL`, `true`, floats with at most 6 decimals and
    /// no trailing zeros (`8.0` → `8`), non-finite or huge floats as Python's repr.
    pub fn display(&self) -> String {
        match self {
            Cell::Null => "NULL".into(),
            Cell::Bool(b) => b.to_string(),
            Cell::Int(i) => i.to_string(),
            Cell::UInt(u) => u.to_string(),
            Cell::Float(f) => float_text(*f),
            Cell::Text(t) => t.clone(),
        }
    }

    /// The value as JSON (non-finite floats as strings, since JSON has none).
    pub fn json(&self) -> serde_json::Value {
        match self {
            Cell::Null => serde_json::Value::Null,
            Cell::Bool(b) => (*b).into(),
            Cell::Int(i) => (*i).into(),
            Cell::UInt(u) => (*u).into(),
            Cell::Float(f) => serde_json::Number::from_f64(*f).map_or_else(
                || ldp_config::py_float(*f).into(),
                serde_json::Value::Number,
            ),
            Cell::Text(t) => t.clone().into(),
        }
    }
}

/// A float in the common table format.
pub fn float_text(f: f64) -> String {
    if !f.is_finite() || f.abs() >= 1e15 {
        return ldp_config::py_float(f);
    }
    let text = format!("{f:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

/// The value at `row` of `array`.
pub fn cell(array: &ArrayRef, row: usize) -> Cell {
    if array.is_null(row) {
        return Cell::Null;
    }
    match array.data_type() {
        DataType::Boolean => Cell::Bool(array.as_boolean().value(row)),
        DataType::Int8 => Cell::Int(array.as_primitive::<Int8Type>().value(row).into()),
        DataType::Int16 => Cell::Int(array.as_primitive::<Int16Type>().value(row).into()),
        DataType::Int32 => Cell::Int(array.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Cell::Int(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => Cell::UInt(array.as_primitive::<UInt8Type>().value(row).into()),
        DataType::UInt16 => Cell::UInt(array.as_primitive::<UInt16Type>().value(row).into()),
        DataType::UInt32 => Cell::UInt(array.as_primitive::<UInt32Type>().value(row).into()),
        DataType::UInt64 => Cell::UInt(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => Cell::Float(array.as_primitive::<Float32Type>().value(row).into()),
        DataType::Float64 => Cell::Float(array.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => Cell::Text(array.as_string::<i32>().value(row).to_string()),
        DataType::LargeUtf8 => Cell::Text(array.as_string::<i64>().value(row).to_string()),
        DataType::Utf8View => Cell::Text(array.as_string_view().value(row).to_string()),
        DataType::Date32 => {
            let days = array.as_primitive::<Date32Type>().value(row);
            Cell::Text(date_text(i64::from(days)))
        }
        DataType::Timestamp(unit, tz) => {
            let (value, per_second) = match unit {
                TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().value(row), 1),
                TimeUnit::Millisecond => (
                    array.as_primitive::<TimestampMillisecondType>().value(row),
                    1_000,
                ),
                TimeUnit::Microsecond => (
                    array.as_primitive::<TimestampMicrosecondType>().value(row),
                    1_000_000,
                ),
                TimeUnit::Nanosecond => (
                    array.as_primitive::<TimestampNanosecondType>().value(row),
                    1_000_000_000,
                ),
            };
            Cell::Text(timestamp_text(value, per_second, tz.is_some()))
        }
        _ => Cell::Text(
            arrow_cast::display::ArrayFormatter::try_new(array.as_ref(), &Default::default())
                .map_or_else(|_| "?".into(), |f| f.value(row).to_string()),
        ),
    }
}

/// `YYYY-MM-DD` of days since the epoch.
fn date_text(days: i64) -> String {
    let (y, m, d) = ldp_table::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DD HH:MM:SS[.ffffff]` (Python's `str(datetime)`), `+00:00` for zoned values (stored
/// in UTC).
fn timestamp_text(value: i64, per_second: i64, zoned: bool) -> String {
    let secs = value.div_euclid(per_second);
    let frac = value.rem_euclid(per_second);
    let micros = match per_second {
        1 => 0,
        1_000 => frac * 1_000,
        1_000_000 => frac,
        _ => frac / 1_000,
    };
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let mut text = format!(
        "{} {:02}:{:02}:{:02}",
        date_text(days),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    if micros != 0 {
        text.push_str(&format!(".{micros:06}"));
    }
    if zoned {
        text.push_str("+00:00");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_the_reference_prints_them() {
        assert_eq!(float_text(8.0), "8");
        assert_eq!(float_text(32.28), "32.28");
        assert_eq!(float_text(1.0 / 3.0), "0.333333");
        assert_eq!(float_text(-0.0000001), "0");
        assert_eq!(float_text(f64::NAN), "nan");
        assert_eq!(float_text(1e16), "1e+16");
    }

    #[test]
    fn timestamps_as_python_prints_them() {
        assert_eq!(
            timestamp_text(1_704_070_478_000_000, 1_000_000, false),
            "2024-01-01 00:54:38"
        );
        assert_eq!(
            timestamp_text(1_704_070_478_500_000, 1_000_000, true),
            "2024-01-01 00:54:38.500000+00:00"
        );
        assert_eq!(timestamp_text(-1, 1, false), "1969-12-31 23:59:59");
        assert_eq!(date_text(19_723), "2024-01-01");
    }
}
