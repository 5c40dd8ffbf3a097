//! Arrow types as pyarrow names them: [`type_name`] prints a type the way `str(pa.DataType)`
//! does (`int64`, `double`, `string`, `timestamp[us, tz=UTC]`, `decimal128(10, 2)`...), and
//! [`parse_type`] reads a type string the way the reference's `parse_type` does (any
//! `pyarrow.type_for_alias` alias, `timestamp[unit, tz=ZONE]`, `decimal(p, s)`).

use arrow_schema::{DataType, IntervalUnit, TimeUnit};

/// The unit as pyarrow prints it: `s`, `ms`, `us`, `ns`.
pub fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    }
}

/// `str()` of the pyarrow type equal to `data_type`.
pub fn type_name(data_type: &DataType) -> String {
    use DataType as D;
    let simple = match data_type {
        D::Null => "null",
        D::Boolean => "bool",
        D::Int8 => "int8",
        D::Int16 => "int16",
        D::Int32 => "int32",
        D::Int64 => "int64",
        D::UInt8 => "uint8",
        D::UInt16 => "uint16",
        D::UInt32 => "uint32",
        D::UInt64 => "uint64",
        D::Float16 => "halffloat",
        D::Float32 => "float",
        D::Float64 => "double",
        D::Utf8 => "string",
        D::LargeUtf8 => "large_string",
        D::Utf8View => "string_view",
        D::Binary => "binary",
        D::LargeBinary => "large_binary",
        D::BinaryView => "binary_view",
        D::Date32 => "date32[day]",
        D::Date64 => "date64[ms]",
        D::Interval(IntervalUnit::MonthDayNano) => "month_day_nano_interval",
        D::Interval(IntervalUnit::DayTime) => "day_time_interval",
        D::Interval(IntervalUnit::YearMonth) => "month_interval",
        _ => "",
    };
    if !simple.is_empty() {
        return simple.to_owned();
    }
    match data_type {
        D::Timestamp(unit, None) => format!("timestamp[{}]", unit_name(*unit)),
        D::Timestamp(unit, Some(tz)) => format!("timestamp[{}, tz={tz}]", unit_name(*unit)),
        D::Time32(unit) => format!("time32[{}]", unit_name(*unit)),
        D::Time64(unit) => format!("time64[{}]", unit_name(*unit)),
        D::Duration(unit) => format!("duration[{}]", unit_name(*unit)),
        D::Decimal32(p, s) => format!("decimal32({p}, {s})"),
        D::Decimal64(p, s) => format!("decimal64({p}, {s})"),
        D::Decimal128(p, s) => format!("decimal128({p}, {s})"),
        D::Decimal256(p, s) => format!("decimal256({p}, {s})"),
        D::FixedSizeBinary(n) => format!("fixed_size_binary[{n}]"),
        D::List(field) => format!("list<{}: {}>", field.name(), type_name(field.data_type())),
        D::LargeList(field) => format!(
            "large_list<{}: {}>",
            field.name(),
            type_name(field.data_type())
        ),
        D::ListView(field) => format!(
            "list_view<{}: {}>",
            field.name(),
            type_name(field.data_type())
        ),
        D::FixedSizeList(field, n) => format!(
            "fixed_size_list<{}: {}>[{n}]",
            field.name(),
            type_name(field.data_type())
        ),
        D::Struct(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| format!("{}: {}", f.name(), type_name(f.data_type())))
                .collect();
            format!("struct<{}>", inner.join(", "))
        }
        D::Map(field, _) => match field.data_type() {
            D::Struct(kv) if kv.len() == 2 => format!(
                "map<{}, {}>",
                type_name(kv[0].data_type()),
                type_name(kv[1].data_type())
            ),
            other => format!("map<{}>", type_name(other)),
        },
        D::Dictionary(key, value) => format!(
            "dictionary<values={}, indices={}, ordered=0>",
            type_name(value),
            type_name(key)
        ),
        D::RunEndEncoded(ends, values) => format!(
            "run_end_encoded<run_ends: {}, values: {}>",
            type_name(ends.data_type()),
            type_name(values.data_type())
        ),
        other => format!("{other}"),
    }
}

/// The reference's `parse_type`: the Arrow type a pyarrow type string names.
///
/// # Errors
///
/// The reference's message when the text names no type.
pub fn parse_type(spec: &str) -> Result<DataType, String> {
    let text = spec.trim();
    if text.is_empty() {
        return Err(format!(
            "a column type must be a pyarrow type string such as 'int64', got {}",
            crate::py::str_repr(spec)
        ));
    }
    let lowered = text.to_lowercase();
    if let Some(data_type) = timestamp(text, &lowered) {
        return Ok(data_type);
    }
    if let Some(data_type) = decimal(&lowered) {
        return data_type;
    }
    alias(&lowered).ok_or_else(|| {
        format!(
            "unknown pyarrow type {}; use a name such as 'int64', 'double', 'string', 'bool', \
             'date32', 'timestamp[us]', 'timestamp[us, tz=UTC]' or 'decimal128(10, 2)'",
            crate::py::str_repr(spec)
        )
    })
}

fn unit(text: &str) -> Option<TimeUnit> {
    match text {
        "s" => Some(TimeUnit::Second),
        "ms" => Some(TimeUnit::Millisecond),
        "us" => Some(TimeUnit::Microsecond),
        "ns" => Some(TimeUnit::Nanosecond),
        _ => None,
    }
}

/// `timestamp[ unit ]` or `timestamp[unit, tz=ZONE]` (case-insensitive, the zone kept as
/// written).
fn timestamp(text: &str, lowered: &str) -> Option<DataType> {
    if !lowered.starts_with("timestamp[") || !lowered.ends_with(']') {
        return None;
    }
    // "timestamp[" is ASCII, so byte offsets agree between `text` and `lowered`.
    let inner = text.get("timestamp[".len()..text.len() - 1)?;
    let (unit_text, zone) = match inner.split_once(',') {
        Some((unit_text, zone)) => (unit_text, Some(zone)),
        None => (inner, None),
    };
    let unit = unit(&unit_text.trim().to_lowercase())?;
    let zone = match zone {
        None => None,
        Some(zone) => {
            let zone = zone.trim();
            if !zone.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("tz")) {
                return None;
            }
            let name = zone[2..].trim_start().strip_prefix('=')?.trim();
            if name.is_empty() || name.contains(']') {
                return None;
            }
            Some(name.into())
        }
    };
    Some(DataType::Timestamp(unit, zone))
}

/// `decimal(p, s)`, `decimal128(p, s)`, `decimal256(p, s)`.
fn decimal(lowered: &str) -> Option<Result<DataType, String>> {
    let rest = lowered.strip_prefix("decimal")?;
    let (wide, rest) = if let Some(rest) = rest.strip_prefix("128") {
        (false, rest)
    } else if let Some(rest) = rest.strip_prefix("256") {
        (true, rest)
    } else {
        (false, rest)
    };
    let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
    let (precision, scale) = inner.split_once(',')?;
    let (precision, scale) = (precision.trim(), scale.trim());
    let digits = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit());
    if !digits(precision) || !digits(scale.strip_prefix('-').unwrap_or(scale)) {
        return None;
    }
    let (Ok(precision), Ok(scale)) = (precision.parse::<u8>(), scale.parse::<i8>()) else {
        return Some(Err(format!("invalid decimal type {lowered}")));
    };
    let (max, name) = if wide { (76, "256") } else { (38, "128") };
    if precision == 0 || precision > max {
        return Some(Err(format!(
            "Decimal precision out of range [1, {max}]: {precision} (decimal{name})"
        )));
    }
    Some(Ok(if wide {
        DataType::Decimal256(precision, scale)
    } else {
        DataType::Decimal128(precision, scale)
    }))
}

/// `pyarrow.type_for_alias` (the text already lower-cased).
fn alias(lowered: &str) -> Option<DataType> {
    use DataType as D;
    Some(match lowered {
        "null" => D::Null,
        "bool" | "boolean" => D::Boolean,
        "i1" | "int8" => D::Int8,
        "i2" | "int16" => D::Int16,
        "i4" | "int32" => D::Int32,
        "i8" | "int64" => D::Int64,
        "u1" | "uint8" => D::UInt8,
        "u2" | "uint16" => D::UInt16,
        "u4" | "uint32" => D::UInt32,
        "u8" | "uint64" => D::UInt64,
        "f2" | "halffloat" | "float16" => D::Float16,
        "f4" | "float" | "float32" => D::Float32,
        "f8" | "double" | "float64" => D::Float64,
        "string" | "str" | "utf8" => D::Utf8,
        "binary" => D::Binary,
        "large_string" | "large_str" | "large_utf8" => D::LargeUtf8,
        "large_binary" => D::LargeBinary,
        "binary_view" => D::BinaryView,
        "string_view" => D::Utf8View,
        "date32" | "date32[day]" => D::Date32,
        "date64" | "date64[ms]" => D::Date64,
        "time32[s]" => D::Time32(TimeUnit::Second),
        "time32[ms]" => D::Time32(TimeUnit::Millisecond),
        "time64[us]" => D::Time64(TimeUnit::Microsecond),
        "time64[ns]" => D::Time64(TimeUnit::Nanosecond),
        "duration[s]" => D::Duration(TimeUnit::Second),
        "duration[ms]" => D::Duration(TimeUnit::Millisecond),
        "duration[us]" => D::Duration(TimeUnit::Microsecond),
        "duration[ns]" => D::Duration(TimeUnit::Nanosecond),
        "month_day_nano_interval" => D::Interval(IntervalUnit::MonthDayNano),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (spec, name) in [
            ("int64", "int64"),
            ("Double", "double"),
            ("float64", "double"),
            ("utf8", "string"),
            ("large_utf8", "large_string"),
            ("date32", "date32[day]"),
            ("timestamp[US]", "timestamp[us]"),
            ("timestamp[ us , tz=UTC ]", "timestamp[us, tz=UTC]"),
            (
                "timestamp[ms, tz=Europe/Paris]",
                "timestamp[ms, tz=Europe/Paris]",
            ),
            ("decimal(10,2)", "decimal128(10, 2)"),
            ("decimal256(40, -2)", "decimal256(40, -2)"),
            ("float", "float"),
            ("boolean", "bool"),
        ] {
            assert_eq!(type_name(&parse_type(spec).unwrap()), name, "{spec}");
        }
        for bad in [
            "int65",
            "timestamp[m]",
            "timestamp[us, zone=UTC]",
            "decimal(10)",
            "",
        ] {
            assert!(parse_type(bad).is_err(), "{bad}");
        }
    }
}
