//! The type strings of the `schema` check, read as the Python tool's `parse_type` reads them:
//! any `pyarrow.type_for_alias` alias (`int64`, `double`, `string`, `timestamp[us]`...),
//! `timestamp[unit, tz=ZONE]`, and `decimal(p, s)`, `decimal128(p, s)`, `decimal256(p, s)`.

use ldp_pyrepr::repr_str;

use crate::TimeUnit;

/// An Arrow type a `schema` check names. The checks plugin turns it into the Arrow type it
/// compares with the input's; the host only needs to know the string names one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrowType {
    Null,
    Boolean,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float32,
    Float64,
    Utf8,
    LargeUtf8,
    Utf8View,
    Binary,
    LargeBinary,
    BinaryView,
    Date32,
    Date64,
    /// `time32[s]`, `time32[ms]`.
    Time32(TimeUnit),
    /// `time64[us]`, `time64[ns]`.
    Time64(TimeUnit),
    Duration(TimeUnit),
    /// A unit and a time zone, as written (`UTC`, `Europe/Paris`, `+01:00`).
    Timestamp(TimeUnit, Option<String>),
    /// Precision (1 to 38) and scale.
    Decimal128(u8, i8),
    /// Precision (1 to 76) and scale.
    Decimal256(u8, i8),
    MonthDayNanoInterval,
}

impl ArrowType {
    /// The type a pyarrow type string names (surrounding blanks and case ignored, a time zone
    /// kept as written).
    ///
    /// # Errors
    ///
    /// The Python tool's message: `unknown pyarrow type 'int65'; use a name such as ...`, `a
    /// column type must be a pyarrow type string such as 'int64', got ''`, or pyarrow's for a
    /// decimal precision out of range.
    pub fn parse(spec: &str) -> Result<ArrowType, String> {
        let text = spec.trim();
        if text.is_empty() {
            return Err(format!(
                "a column type must be a pyarrow type string such as 'int64', got {}",
                repr_str(spec)
            ));
        }
        let lowered = text.to_lowercase();
        if let Some(timestamp) = timestamp(text, &lowered) {
            return Ok(timestamp);
        }
        if let Some(decimal) = decimal(&lowered) {
            return decimal;
        }
        alias(&lowered).ok_or_else(|| {
            format!(
                "unknown pyarrow type {}; use a name such as 'int64', 'double', 'string', 'bool', \
                 'date32', 'timestamp[us]', 'timestamp[us, tz=UTC]' or 'decimal128(10, 2)'",
                repr_str(spec)
            )
        })
    }
}

fn unit(text: &str) -> Option<TimeUnit> {
    match text {
        "s" => Some(TimeUnit::S),
        "ms" => Some(TimeUnit::Ms),
        "us" => Some(TimeUnit::Us),
        "ns" => Some(TimeUnit::Ns),
        _ => None,
    }
}

/// `timestamp[ unit ]` or `timestamp[unit, tz=ZONE]`: the zone non-empty, without `]`.
fn timestamp(text: &str, lowered: &str) -> Option<ArrowType> {
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
            Some(name.to_owned())
        }
    };
    Some(ArrowType::Timestamp(unit, zone))
}

/// `decimal(p, s)`, `decimal128(p, s)`, `decimal256(p, s)`; the scale may be negative, the
/// precision must fit the width.
fn decimal(lowered: &str) -> Option<Result<ArrowType, String>> {
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
        ArrowType::Decimal256(precision, scale)
    } else {
        ArrowType::Decimal128(precision, scale)
    }))
}

/// `pyarrow.type_for_alias` (the text already lower-cased).
fn alias(lowered: &str) -> Option<ArrowType> {
    use ArrowType as T;
    Some(match lowered {
        "null" => T::Null,
        "bool" | "boolean" => T::Boolean,
        "i1" | "int8" => T::Int8,
        "i2" | "int16" => T::Int16,
        "i4" | "int32" => T::Int32,
        "i8" | "int64" => T::Int64,
        "u1" | "uint8" => T::UInt8,
        "u2" | "uint16" => T::UInt16,
        "u4" | "uint32" => T::UInt32,
        "u8" | "uint64" => T::UInt64,
        "f2" | "halffloat" | "float16" => T::Float16,
        "f4" | "float" | "float32" => T::Float32,
        "f8" | "double" | "float64" => T::Float64,
        "string" | "str" | "utf8" => T::Utf8,
        "binary" => T::Binary,
        "large_string" | "large_str" | "large_utf8" => T::LargeUtf8,
        "large_binary" => T::LargeBinary,
        "binary_view" => T::BinaryView,
        "string_view" => T::Utf8View,
        "date32" | "date32[day]" => T::Date32,
        "date64" | "date64[ms]" => T::Date64,
        "time32[s]" => T::Time32(TimeUnit::S),
        "time32[ms]" => T::Time32(TimeUnit::Ms),
        "time64[us]" => T::Time64(TimeUnit::Us),
        "time64[ns]" => T::Time64(TimeUnit::Ns),
        "duration[s]" => T::Duration(TimeUnit::S),
        "duration[ms]" => T::Duration(TimeUnit::Ms),
        "duration[us]" => T::Duration(TimeUnit::Us),
        "duration[ns]" => T::Duration(TimeUnit::Ns),
        "month_day_nano_interval" => T::MonthDayNanoInterval,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_strings() {
        for (spec, parsed) in [
            ("Double", ArrowType::Float64),
            ("large_utf8", ArrowType::LargeUtf8),
            ("date32[day]", ArrowType::Date32),
            ("timestamp[US]", ArrowType::Timestamp(TimeUnit::Us, None)),
            (
                "timestamp[ us , tz=Europe/Paris ]",
                ArrowType::Timestamp(TimeUnit::Us, Some("Europe/Paris".into())),
            ),
            ("decimal(10,2)", ArrowType::Decimal128(10, 2)),
            ("decimal256(40, -2)", ArrowType::Decimal256(40, -2)),
        ] {
            assert_eq!(ArrowType::parse(spec), Ok(parsed), "{spec}");
        }
        for bad in [
            "int65",
            "timestamp[m]",
            "timestamp[us, zone=UTC]",
            "timestamp[us, tz=]",
            "decimal(10)",
            "decimal(a, 2)",
            "list<int64>",
        ] {
            assert!(
                ArrowType::parse(bad)
                    .unwrap_err()
                    .starts_with("unknown pyarrow type"),
                "{bad}"
            );
        }
        assert_eq!(
            ArrowType::parse(" ").unwrap_err(),
            "a column type must be a pyarrow type string such as 'int64', got ' '"
        );
        assert_eq!(
            ArrowType::parse("decimal(0, 2)").unwrap_err(),
            "Decimal precision out of range [1, 38]: 0 (decimal128)"
        );
    }
}
