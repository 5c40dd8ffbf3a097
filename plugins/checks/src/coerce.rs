//! Config values turned into values of a column's type, as pyarrow's casts do: `"1"` to an
//! integer, `1.5` to `"1.5"` for a string column, `"2024-01-01"` to a date, a decimal's
//! unscaled integer. [`accepted_values`](crate::rules::accepted_values) and
//! [`range`](crate::rules::range) build on these.

use crate::arrow_value::per_second;
use crate::py::float_repr;
use crate::time;
use arrow_schema::TimeUnit;
use serde_json::Value;

/// Arrow's text of a float cast to a string: `2` for 2.0, `1.5`, `1e+20`.
pub fn float_text(f: f64) -> String {
    let text = float_repr(f);
    match text.strip_suffix(".0") {
        Some(whole) => whole.to_owned(),
        None => text,
    }
}

/// A config value as text for a string column (pyarrow's `cast(string)` of the inferred
/// array); `None` for lists and objects.
pub fn to_text(value: &Value) -> Option<String> {
    Some(match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(u)) => u.to_string(),
            _ => float_text(n.as_f64()?),
        },
        _ => return None,
    })
}

/// An integer parsed as Arrow casts a string to an integer.
pub fn parse_int(text: &str) -> Option<i128> {
    let text = text.trim();
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A float parsed as Arrow casts a string to a float.
pub fn parse_float(text: &str) -> Option<f64> {
    let text = text.trim();
    match text.to_ascii_lowercase().as_str() {
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        _ => {
            let ok = text
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'));
            if ok { text.parse().ok() } else { None }
        }
    }
}

/// A bool parsed as Arrow casts a string to a bool.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// A decimal text (`12.5`, `-0.05`, `1e3`) as an unscaled integer at `scale`; `None` when it is
/// not a number or would lose digits.
pub fn parse_decimal(text: &str, scale: i8) -> Option<i128> {
    let text = text.trim();
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = format!("{int}{frac}");
    let mut value: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    // value * 10^(exponent - frac.len()) * 10^scale
    let shift = exponent - frac.len() as i32 + i32::from(scale);
    if shift >= 0 {
        for _ in 0..shift {
            value = value.checked_mul(10)?;
        }
    } else {
        for _ in 0..(-shift) {
            if value % 10 != 0 {
                return None;
            }
            value /= 10;
        }
    }
    Some(if negative { -value } else { value })
}

/// A JSON number as a decimal's unscaled integer at `scale` (pyarrow's conversion of an `int`,
/// or the cast of a `double`).
pub fn number_to_decimal(value: &serde_json::Number, scale: i8) -> Option<i128> {
    if let Some(i) = value.as_i64() {
        return parse_decimal(&i.to_string(), scale);
    }
    if let Some(u) = value.as_u64() {
        return parse_decimal(&u.to_string(), scale);
    }
    parse_decimal(&float_repr(value.as_f64()?), scale)
}

/// A timestamp text as pyarrow casts it to a timestamp column in `unit`: the raw value. A
/// column without a zone wants a naive text, one with a zone an offset or `Z`.
pub fn parse_timestamp(text: &str, unit: TimeUnit, zoned: bool) -> Option<i64> {
    let parsed = time::parse_datetime(text).ok()?;
    if parsed.offset.is_some() != zoned {
        return None;
    }
    let us = parsed.utc_us();
    let per = per_second(unit);
    Some(match unit {
        TimeUnit::Nanosecond => us.checked_mul(1_000)?,
        TimeUnit::Microsecond => us,
        _ => {
            let factor = 1_000_000 / per;
            if us % factor != 0 {
                return None;
            }
            us / factor
        }
    })
}

/// A date text (`YYYY-MM-DD`) as days since the epoch, as Arrow casts a string to `date32`.
pub fn parse_date_text(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.len() != 10 {
        return None;
    }
    time::parse_date(text).ok()
}

/// The name pyarrow infers for the array of config values (`int64`, `double`, `string`,
/// `bool`), for messages.
pub fn inferred_type(values: &[Value]) -> &'static str {
    let mut name = "null";
    for value in values {
        name = match (name, value) {
            (_, Value::String(_)) => "string",
            (_, Value::Bool(_)) => "bool",
            ("double", Value::Number(_)) => "double",
            (_, Value::Number(n)) if n.is_f64() => "double",
            (_, Value::Number(_)) => "int64",
            (_, Value::Array(_)) => "list<item: null>",
            (_, Value::Object(_)) => "struct<>",
            (current, Value::Null) => current,
        };
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts() {
        assert_eq!(float_text(2.0), "2");
        assert_eq!(float_text(1.5), "1.5");
        assert_eq!(parse_decimal("12.5", 2), Some(1250));
        assert_eq!(parse_decimal("1.234", 2), None);
        assert_eq!(parse_decimal("-1e1", 1), Some(-100));
        assert_eq!(parse_int("+12"), Some(12));
        assert_eq!(parse_int("1.0"), None);
        assert_eq!(
            parse_timestamp("2024-01-01T00:00:01", TimeUnit::Second, false),
            Some(1_704_067_201)
        );
        assert_eq!(
            parse_timestamp("2024-01-01T00:00:01", TimeUnit::Second, true),
            None
        );
    }
}
