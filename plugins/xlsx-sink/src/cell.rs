//! What each Arrow value becomes in a cell: numbers as numbers, booleans as booleans, text as
//! text, dates, times and timestamps as Excel serial numbers with a date format, so Excel (and
//! openpyxl, pandas) read them as dates. Empty text is an empty cell, as Excel stores it. What Excel cannot hold exactly is written as text
//! rather than changed: integers beyond ±2^53 (Excel's numbers are doubles), decimals of more
//! than 15 digits, NaN and infinities, and dates outside 1900-03-01 to 9999-12-31.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Float16Type, Float32Type, Float64Type, Int8Type,
    Int16Type, Int32Type, Int64Type, Time32MillisecondType, Time32SecondType,
    Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_schema::{DataType, TimeUnit};
use ldp_sink_text::{OffsetStyle, Zone};

/// 1899-12-30, the serial 0 of Excel's 1900 date system, in days since 1970-01-01.
const EPOCH: i64 = -25_569;
/// 1900-03-01: from here on a serial counts days as the calendar does (Excel counts a
/// 1900-02-29 that never was), in days since 1970-01-01.
const FIRST_DAY: i64 = -25_508;
/// 9999-12-31, the last day Excel shows, in days since 1970-01-01.
const LAST_DAY: i64 = 2_932_896;
/// The largest integer a double holds exactly.
const EXACT_INTEGER: i128 = 1 << 53;
/// The most significant digits a double keeps of a decimal.
const EXACT_DIGITS: u8 = 15;
/// Microseconds in a day.
const MICROS_PER_DAY: f64 = 86_400_000_000.0;

/// How a number is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// Excel's General.
    General,
    /// `yyyy-mm-dd`.
    Date,
    /// `yyyy-mm-dd hh:mm:ss`.
    DateTime {
        /// With `.000`: the column's unit is finer than a second.
        millis: bool,
    },
    /// `hh:mm:ss`.
    Time {
        /// With `.000`, likewise.
        millis: bool,
    },
    /// A fixed number of decimals (a decimal column's scale).
    Decimals(u8),
}

impl Style {
    /// Excel's number format for the style.
    pub fn number_format(self) -> String {
        match self {
            Style::General => "General".into(),
            Style::Date => "yyyy-mm-dd".into(),
            Style::DateTime { millis: false } => "yyyy-mm-dd hh:mm:ss".into(),
            Style::DateTime { millis: true } => "yyyy-mm-dd hh:mm:ss.000".into(),
            Style::Time { millis: false } => "hh:mm:ss".into(),
            Style::Time { millis: true } => "hh:mm:ss.000".into(),
            Style::Decimals(0) => "0".into(),
            Style::Decimals(scale) => format!("0.{}", "0".repeat(usize::from(scale))),
        }
    }
}

/// A cell's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A number, shown in a style.
    Number(f64, Style),
    /// A boolean.
    Bool(bool),
    /// Text.
    Text(String),
}

/// Why a column cannot be written.
pub fn check_type(data_type: &DataType) -> Result<(), String> {
    match data_type {
        DataType::Dictionary(_, values) => check_type(values),
        DataType::Null
        | DataType::Boolean
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Float16
        | DataType::Float32
        | DataType::Float64
        | DataType::Decimal128(_, _)
        | DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Date32
        | DataType::Date64
        | DataType::Time32(_)
        | DataType::Time64(_)
        | DataType::Timestamp(_, _) => Ok(()),
        other => Err(format!(
            "a cell holds a number, a boolean, text or a date; cast {other} to one of them (or \
             to text, e.g. as JSON) with a transform first"
        )),
    }
}

fn prim<T: ArrowPrimitiveType>(column: &dyn Array, row: usize) -> T::Native {
    column.as_primitive::<T>().value(row)
}

/// The cell of the non-null value at `row` of `column` (not a dictionary: the writer looks
/// dictionaries up first); `zone` is a zoned timestamp column's zone.
pub fn cell(column: &dyn Array, row: usize, zone: Option<&Zone>) -> Cell {
    let integer = |value: i128| {
        if (-EXACT_INTEGER..=EXACT_INTEGER).contains(&value) {
            Cell::Number(value as f64, Style::General)
        } else {
            Cell::Text(value.to_string())
        }
    };
    let float = |value: f64| {
        if value.is_finite() {
            Cell::Number(value, Style::General)
        } else if value.is_nan() {
            Cell::Text("NaN".into())
        } else if value > 0.0 {
            Cell::Text("inf".into())
        } else {
            Cell::Text("-inf".into())
        }
    };
    match column.data_type() {
        DataType::Boolean => Cell::Bool(column.as_boolean().value(row)),
        DataType::Int8 => integer(prim::<Int8Type>(column, row).into()),
        DataType::Int16 => integer(prim::<Int16Type>(column, row).into()),
        DataType::Int32 => integer(prim::<Int32Type>(column, row).into()),
        DataType::Int64 => integer(prim::<Int64Type>(column, row).into()),
        DataType::UInt8 => integer(prim::<UInt8Type>(column, row).into()),
        DataType::UInt16 => integer(prim::<UInt16Type>(column, row).into()),
        DataType::UInt32 => integer(prim::<UInt32Type>(column, row).into()),
        DataType::UInt64 => integer(prim::<UInt64Type>(column, row).into()),
        DataType::Float16 => float(prim::<Float16Type>(column, row).to_f64()),
        DataType::Float32 => float(prim::<Float32Type>(column, row).into()),
        DataType::Float64 => float(prim::<Float64Type>(column, row)),
        DataType::Decimal128(precision, scale) => {
            decimal(prim::<Decimal128Type>(column, row), *precision, *scale)
        }
        DataType::Utf8 => Cell::Text(column.as_string::<i32>().value(row).to_owned()),
        DataType::LargeUtf8 => Cell::Text(column.as_string::<i64>().value(row).to_owned()),
        DataType::Utf8View => Cell::Text(column.as_string_view().value(row).to_owned()),
        DataType::Date32 => date(i64::from(prim::<Date32Type>(column, row))),
        // Truncated toward zero, as the CSV and JSON targets write it.
        DataType::Date64 => date(prim::<Date64Type>(column, row) / 86_400_000),
        DataType::Time32(TimeUnit::Second) => time(
            i64::from(prim::<Time32SecondType>(column, row)) * 1_000_000,
            false,
        ),
        DataType::Time32(_) => time(
            i64::from(prim::<Time32MillisecondType>(column, row)) * 1_000,
            true,
        ),
        DataType::Time64(TimeUnit::Nanosecond) => {
            time(prim::<Time64NanosecondType>(column, row) / 1_000, true)
        }
        DataType::Time64(_) => time(prim::<Time64MicrosecondType>(column, row), true),
        DataType::Timestamp(unit, _) => {
            let value = match unit {
                TimeUnit::Second => prim::<TimestampSecondType>(column, row),
                TimeUnit::Millisecond => prim::<TimestampMillisecondType>(column, row),
                TimeUnit::Microsecond => prim::<TimestampMicrosecondType>(column, row),
                TimeUnit::Nanosecond => prim::<TimestampNanosecondType>(column, row),
            };
            timestamp(value, *unit, zone)
        }
        // Checked by `check_type` when the sink opens.
        other => Cell::Text(format!("<{other}>")),
    }
}

fn decimal(value: i128, precision: u8, scale: i8) -> Cell {
    let text = decimal_text(value, scale);
    match u8::try_from(scale) {
        Ok(scale) if precision <= EXACT_DIGITS => match text.parse::<f64>() {
            Ok(number) => Cell::Number(number, Style::Decimals(scale)),
            Err(_) => Cell::Text(text),
        },
        _ => Cell::Text(text),
    }
}

/// A decimal's digits with its point: `-12.50` for -1250 at scale 2, `1200` for 12 at scale -2.
fn decimal_text(value: i128, scale: i8) -> String {
    let digits = value.unsigned_abs().to_string();
    let sign = if value < 0 { "-" } else { "" };
    if scale <= 0 {
        return format!(
            "{sign}{digits}{}",
            "0".repeat(usize::from(scale.unsigned_abs()))
        );
    }
    let scale = usize::from(scale.unsigned_abs());
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = digits.split_at(digits.len() - scale);
    format!("{sign}{whole}.{fraction}")
}

fn date(days: i64) -> Cell {
    if (FIRST_DAY..=LAST_DAY).contains(&days) {
        Cell::Number((days - EPOCH) as f64, Style::Date)
    } else {
        let mut text = String::new();
        ldp_sink_text::date(&mut text, days);
        Cell::Text(text)
    }
}

fn time(micros: i64, fractional: bool) -> Cell {
    Cell::Number(
        micros as f64 / MICROS_PER_DAY,
        Style::Time { millis: fractional },
    )
}

/// A timestamp as the wall-clock time of its column's zone (UTC for a zoned column whose zone
/// is UTC, the time as written for a column without one): Excel's dates have no zone.
fn timestamp(value: i64, unit: TimeUnit, zone: Option<&Zone>) -> Cell {
    let per_second: i64 = match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    let utc_seconds = value.div_euclid(per_second);
    let offset = zone.map_or(0, |z| z.offset_at(utc_seconds));
    let seconds = utc_seconds + i64::from(offset);
    let days = seconds.div_euclid(86_400);
    if !(FIRST_DAY..=LAST_DAY).contains(&days) {
        let mut text = String::new();
        ldp_sink_text::timestamp(&mut text, value, &unit, zone, OffsetStyle::Colon);
        return Cell::Text(text);
    }
    let fraction_micros = value.rem_euclid(per_second) * 1_000_000 / per_second;
    let micros = seconds.rem_euclid(86_400) * 1_000_000 + fraction_micros;
    Cell::Number(
        (days - EPOCH) as f64 + micros as f64 / MICROS_PER_DAY,
        Style::DateTime {
            millis: unit != TimeUnit::Second,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_keep_their_digits() {
        assert_eq!(decimal_text(-1250, 2), "-12.50");
        assert_eq!(decimal_text(5, 3), "0.005");
        assert_eq!(decimal_text(12, -2), "1200");
        assert_eq!(decimal(1250, 10, 2), Cell::Number(12.5, Style::Decimals(2)));
        assert_eq!(
            decimal(12_345_678_901_234_567, 20, 2),
            Cell::Text("123456789012345.67".into())
        );
    }

    #[test]
    fn dates_are_serials_from_1900_03_01() {
        // 2024-01-15 is serial 45306 in Excel.
        assert_eq!(date(19_737), Cell::Number(45_306.0, Style::Date));
        assert_eq!(date(FIRST_DAY), Cell::Number(61.0, Style::Date));
        assert_eq!(date(FIRST_DAY - 1), Cell::Text("1900-02-28".into()));
        assert_eq!(date(LAST_DAY + 1), Cell::Text("10000-01-01".into()));
    }

    #[test]
    fn timestamps_are_wall_clock_serials() {
        // 2024-01-15 12:00:00 UTC.
        let noon = 1_705_320_000;
        assert_eq!(
            timestamp(noon, TimeUnit::Second, None),
            Cell::Number(45_306.5, Style::DateTime { millis: false })
        );
        // In New York that is 07:00.
        let zone = Zone::parse("America/New_York").expect("zone");
        let Cell::Number(serial, _) = timestamp(noon * 1000, TimeUnit::Millisecond, Some(&zone))
        else {
            panic!("a number")
        };
        assert!((serial - (45_306.0 + 7.0 / 24.0)).abs() < 1e-9);
    }
}
