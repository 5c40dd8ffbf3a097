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

/// `str()` of the pyarrow type equal to `data_type` (the one implementation the host shares).
pub fn type_name(data_type: &DataType) -> String {
    ldp_pyrepr::pyarrow_type_name(data_type)
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
