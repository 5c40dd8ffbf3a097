//! How pyarrow shows values: `scalar.as_py()`, falling back to a string cast as the Python tool's
//! `_scalar_py` does for the nanoseconds Python can't hold.

use arrow_schema::{DataType, TimeUnit};

use super::value::Raw;
use crate::py::Py;
use crate::time::{Zone, iso_date};

/// `_scalar_py` of a non-null value of `data_type`, before `to_jsonable`.
pub fn py_of(data_type: &DataType, raw: Raw<'_>) -> Py {
    use DataType as D;
    match (data_type, raw) {
        (D::Dictionary(_, values), raw) => py_of(values, raw),
        (D::Date32, Raw::Int(days)) => Py::Date(iso_date(days)),
        (D::Date64, Raw::Int(ms)) => Py::Date(iso_date(ms.div_euclid(86_400_000))),
        (D::Timestamp(unit, tz), Raw::Int(v)) => timestamp(*unit, tz.as_deref(), v),
        (D::Time32(unit) | D::Time64(unit), Raw::Int(v)) => time(*unit, v),
        (D::Duration(unit), Raw::Int(v)) => duration(*unit, v),
        (D::Decimal128(_, scale) | D::Decimal256(_, scale), Raw::Dec(v)) => {
            Py::Str(decimal_str(v, i32::from(*scale)))
        }
        (D::Utf8 | D::LargeUtf8 | D::Utf8View, Raw::Bytes(b)) => {
            Py::Str(String::from_utf8_lossy(b).into_owned())
        }
        (_, Raw::Bytes(b)) => Py::Str(backslash_replace(b)),
        (_, Raw::Int(v)) => Py::Int(i128::from(v)),
        (_, Raw::UInt(v)) => Py::Int(i128::from(v)),
        (_, Raw::Float(v)) => Py::Float(v),
        (_, Raw::Bool(v)) => Py::Bool(v),
        (_, Raw::Dec(v)) => Py::Int(v),
    }
}

/// `bytes.decode("utf-8", errors="backslashreplace")`.
fn backslash_replace(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// The UTC offset of a time zone at an instant, in seconds (0 for a zone the bundled database
/// doesn't know).
fn offset_seconds(tz: &str, epoch_seconds: i64) -> i64 {
    Zone::parse(tz).map_or(0, |zone| {
        i64::from(zone.offset_at(epoch_seconds.saturating_mul(1_000_000)))
    })
}

fn offset_text(seconds: i64, colon: bool) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let (hours, minutes) = (seconds.abs() / 3600, seconds.abs() % 3600 / 60);
    if colon {
        format!("{sign}{hours:02}:{minutes:02}")
    } else {
        format!("{sign}{hours:02}{minutes:02}")
    }
}

fn units_per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// Seconds since the epoch and nanoseconds within the second.
fn split(unit: TimeUnit, value: i64) -> (i64, i64) {
    let per = units_per_second(unit);
    (
        value.div_euclid(per),
        value.rem_euclid(per) * (1_000_000_000 / per),
    )
}

fn clock(seconds_of_day: i64) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        seconds_of_day / 3600,
        seconds_of_day % 3600 / 60,
        seconds_of_day % 60
    )
}

/// A timestamp: `datetime.isoformat()`, or pyarrow's string cast when it has nanoseconds.
fn timestamp(unit: TimeUnit, tz: Option<&str>, value: i64) -> Py {
    let (seconds, nanos) = split(unit, value);
    let offset = tz.map_or(0, |tz| offset_seconds(tz, seconds));
    let local = seconds + offset;
    let (days, of_day) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let date = iso_date(days);
    if nanos % 1_000 != 0 {
        let zone = match tz {
            None => String::new(),
            Some(_) if offset == 0 => "Z".to_owned(),
            Some(_) => offset_text(offset, false),
        };
        return Py::Str(format!("{date} {}.{nanos:09}{zone}", clock(of_day)));
    }
    let micros = if nanos == 0 {
        String::new()
    } else {
        format!(".{:06}", nanos / 1_000)
    };
    let zone = tz.map_or(String::new(), |_| offset_text(offset, true));
    Py::DateTime(format!("{date}T{}{micros}{zone}", clock(of_day)))
}

/// A time of day: `time.isoformat()`, or pyarrow's string cast when it has nanoseconds.
fn time(unit: TimeUnit, value: i64) -> Py {
    let (seconds, nanos) = split(unit, value);
    let text = clock(seconds.rem_euclid(86_400));
    if nanos % 1_000 != 0 {
        Py::Str(format!("{text}.{nanos:09}"))
    } else if nanos != 0 {
        Py::Str(format!("{text}.{:06}", nanos / 1_000))
    } else {
        Py::Str(text)
    }
}

/// A duration: `timedelta.total_seconds()`, or the count itself when it has nanoseconds.
fn duration(unit: TimeUnit, value: i64) -> Py {
    match unit {
        TimeUnit::Second => Py::Float(value as f64),
        TimeUnit::Millisecond => Py::Float((i128::from(value) * 1_000) as f64 / 1e6),
        TimeUnit::Microsecond => Py::Float(value as f64 / 1e6),
        TimeUnit::Nanosecond if value % 1_000 != 0 => Py::Str(value.to_string()),
        TimeUnit::Nanosecond => Py::Float((value / 1_000) as f64 / 1e6),
    }
}

/// `str(decimal.Decimal)` of `value * 10**-scale`.
fn decimal_str(value: i128, scale: i32) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let digits = value.unsigned_abs().to_string();
    let exponent = -scale;
    let count = digits.len() as i32;
    let left = exponent + count;
    let dot = if exponent <= 0 && left > -6 { left } else { 1 };
    let (int, frac) = if dot <= 0 {
        (
            "0".to_owned(),
            format!(".{}{digits}", "0".repeat((-dot) as usize)),
        )
    } else if dot >= count {
        (
            format!("{digits}{}", "0".repeat((dot - count) as usize)),
            String::new(),
        )
    } else {
        let (a, b) = digits.split_at(dot as usize);
        (a.to_owned(), format!(".{b}"))
    };
    let exp = if left == dot {
        String::new()
    } else {
        format!("E{:+}", left - dot)
    };
    format!("{sign}{int}{frac}{exp}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_show_as_pyarrow() {
        let ts = |unit, tz: Option<&str>, v| match timestamp(unit, tz, v) {
            Py::DateTime(s) | Py::Str(s) => s,
            other => other.repr(),
        };
        assert_eq!(
            ts(TimeUnit::Microsecond, Some("UTC"), 1_704_067_200_000_005),
            "2024-01-01T00:00:00.000005+00:00"
        );
        assert_eq!(
            ts(TimeUnit::Nanosecond, None, 1_000_000_000_000_000_001),
            "2001-09-09 01:46:40.000000001"
        );
        assert_eq!(
            ts(TimeUnit::Nanosecond, Some("UTC"), 1_000_000_000_000_000_001),
            "2001-09-09 01:46:40.000000001Z"
        );
        assert_eq!(
            ts(TimeUnit::Second, Some("+02:00"), 1_000_000_000),
            "2001-09-09T03:46:40+02:00"
        );
        assert_eq!(ts(TimeUnit::Second, None, -1), "1969-12-31T23:59:59");
        assert_eq!(iso_date(19_723), "2024-01-01");
        assert_eq!(decimal_str(150, 2), "1.50");
        assert_eq!(decimal_str(-5, 3), "-0.005");
        assert_eq!(decimal_str(1, 7), "1E-7");
        assert_eq!(decimal_str(123, -2), "1.23E+4");
        assert_eq!(decimal_str(0, 2), "0.00");
        assert_eq!(duration(TimeUnit::Nanosecond, 1_000), Py::Float(1e-6));
        assert_eq!(
            duration(TimeUnit::Nanosecond, 2_001),
            Py::Str("2001".into())
        );
        assert_eq!(duration(TimeUnit::Millisecond, 2_000), Py::Float(2.0));
        assert_eq!(backslash_replace(b"a\xffb"), "a\\xffb");
        assert_eq!(
            ts(
                TimeUnit::Nanosecond,
                Some("Europe/Paris"),
                1_000_000_000_000_000_001
            ),
            "2001-09-09 03:46:40.000000001+0200"
        );
        assert_eq!(
            ts(TimeUnit::Second, Some("Europe/Paris"), 1_000_000_000),
            "2001-09-09T03:46:40+02:00"
        );
    }
}
