//! The column types a script sees and returns, named as pyarrow prints them (`int64`, `double`,
//! `string`, `timestamp[us, tz=UTC]`, `date32[day]`), and what JavaScript value each one takes.

use ldp_plugin_sdk::arrow_schema::{DataType, TimeUnit};
use std::sync::Arc;

/// The type names `schema(fields)` may return, for messages.
pub const TYPE_NAMES: &str = "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, \
     float, double, string, large_string, string_view, date32[day], timestamp[s|ms|us|ns] and \
     timestamp[s|ms|us|ns, tz=UTC]";

/// Whether a script can read and write a column of this type.
pub fn is_supported(data_type: &DataType) -> bool {
    use DataType as D;
    matches!(
        data_type,
        D::Boolean
            | D::Int8
            | D::Int16
            | D::Int32
            | D::Int64
            | D::UInt8
            | D::UInt16
            | D::UInt32
            | D::UInt64
            | D::Float32
            | D::Float64
            | D::Utf8
            | D::LargeUtf8
            | D::Utf8View
            | D::Date32
            | D::Timestamp(..)
    )
}

/// pyarrow's name of a type: `int64`, `timestamp[us, tz=UTC]`.
pub fn type_name(data_type: &DataType) -> String {
    ldp_pyrepr::pyarrow_type_name(data_type)
}

/// The type a name from `schema(fields)` stands for: pyarrow's names, plus a few aliases
/// (`float64`, `float32`, `utf8`, `boolean`, `date32`, `timestamp` = `timestamp[us]`).
pub fn parse_type_name(name: &str) -> Option<DataType> {
    use DataType as D;
    let name = name.trim();
    let simple = match name {
        "bool" | "boolean" => D::Boolean,
        "int8" => D::Int8,
        "int16" => D::Int16,
        "int32" => D::Int32,
        "int64" => D::Int64,
        "uint8" => D::UInt8,
        "uint16" => D::UInt16,
        "uint32" => D::UInt32,
        "uint64" => D::UInt64,
        "float" | "float32" => D::Float32,
        "double" | "float64" => D::Float64,
        "string" | "utf8" | "str" => D::Utf8,
        "large_string" | "large_utf8" => D::LargeUtf8,
        "string_view" | "utf8_view" => D::Utf8View,
        "date32[day]" | "date32" | "date" => D::Date32,
        "timestamp" => D::Timestamp(TimeUnit::Microsecond, None),
        _ => return parse_timestamp(name),
    };
    Some(simple)
}

/// `timestamp[us]`, `timestamp[ms, tz=UTC]` (spaces around the comma optional).
fn parse_timestamp(name: &str) -> Option<DataType> {
    let inner = name.strip_prefix("timestamp[")?.strip_suffix(']')?;
    let (unit, tz) = match inner.split_once(',') {
        Some((unit, tz)) => {
            let tz = tz.trim().strip_prefix("tz=")?.trim();
            if tz.is_empty() {
                return None;
            }
            (unit.trim(), Some(Arc::<str>::from(tz)))
        }
        None => (inner.trim(), None),
    };
    let unit = match unit {
        "s" => TimeUnit::Second,
        "ms" => TimeUnit::Millisecond,
        "us" => TimeUnit::Microsecond,
        "ns" => TimeUnit::Nanosecond,
        _ => return None,
    };
    Some(DataType::Timestamp(unit, tz))
}

/// What JavaScript value a column of this type takes, for messages: "a number (an integer)".
pub fn expected_value(data_type: &DataType) -> &'static str {
    use DataType as D;
    match data_type {
        D::Boolean => "a boolean (true or false)",
        D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 => {
            "an integer Number (or a BigInt) in the type's range"
        }
        D::Float32 | D::Float64 => "a Number",
        D::Utf8 | D::LargeUtf8 | D::Utf8View => "a string",
        D::Date32 => "a date string \"YYYY-MM-DD\" (or a Date)",
        D::Timestamp(..) => {
            "a timestamp string \"YYYY-MM-DDTHH:MM:SS[.ffffff]\" with an optional \"Z\" or \
             \"+HH:MM\" (or a Date)"
        }
        _ => "a value of a supported type",
    }
}

/// How to turn a value into this type in JavaScript, for messages.
pub fn conversion_hint(data_type: &DataType, column: &str) -> String {
    use DataType as D;
    let column = js_member(column);
    match data_type {
        D::Boolean => format!("e.g. Boolean(row{column})"),
        D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 => {
            format!("e.g. Math.round(Number(row{column}))")
        }
        D::Float32 | D::Float64 => format!("e.g. Number(row{column})"),
        D::Utf8 | D::LargeUtf8 | D::Utf8View => format!("e.g. String(row{column})"),
        D::Date32 => "e.g. \"2024-01-31\" or new Date(...).toISOString().slice(0, 10)".to_owned(),
        D::Timestamp(..) => {
            "e.g. \"2024-01-31T08:30:00\" or new Date(...).toISOString()".to_owned()
        }
        _ => String::new(),
    }
}

/// `.name` when `name` is a JavaScript identifier, `["name"]` otherwise.
pub fn js_member(name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        format!(".{name}")
    } else {
        format!("[{}]", serde_json::Value::from(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in [
            DataType::Boolean,
            DataType::Int8,
            DataType::Int64,
            DataType::UInt32,
            DataType::Float32,
            DataType::Float64,
            DataType::Utf8,
            DataType::LargeUtf8,
            DataType::Utf8View,
            DataType::Date32,
            DataType::Timestamp(TimeUnit::Second, None),
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            DataType::Timestamp(TimeUnit::Nanosecond, Some("Europe/Paris".into())),
        ] {
            assert!(is_supported(&t));
            assert_eq!(parse_type_name(&type_name(&t)), Some(t.clone()), "{t}");
        }
    }

    #[test]
    fn aliases_and_rejects() {
        assert_eq!(parse_type_name("date32"), Some(DataType::Date32));
        assert_eq!(parse_type_name("float64"), Some(DataType::Float64));
        assert_eq!(
            parse_type_name("timestamp[ms,tz=UTC]"),
            Some(DataType::Timestamp(
                TimeUnit::Millisecond,
                Some("UTC".into())
            ))
        );
        assert_eq!(parse_type_name("timestamp[h]"), None);
        assert_eq!(parse_type_name("timestamp[us, UTC]"), None);
        assert_eq!(parse_type_name("decimal128(10, 2)"), None);
        assert_eq!(parse_type_name("number"), None);
    }

    #[test]
    fn members() {
        assert_eq!(js_member("fare"), ".fare");
        assert_eq!(js_member("fare per km"), "[\"fare per km\"]");
        assert_eq!(js_member("2024"), "[\"2024\"]");
    }
}
