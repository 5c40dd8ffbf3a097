//! Arrow type strings of the `schema` check: any pyarrow alias (`int64`, `double`, `string`,
//! `timestamp[us]`...), `timestamp[unit, tz=ZONE]`, and `decimal128(p, s)`, `decimal256(p, s)`,
//! `decimal(p, s)`.

/// The aliases `pyarrow.type_for_alias` knows.
const ALIASES: [&str; 55] = [
    "null",
    "bool",
    "boolean",
    "i1",
    "int8",
    "i2",
    "int16",
    "i4",
    "int32",
    "i8",
    "int64",
    "u1",
    "uint8",
    "u2",
    "uint16",
    "u4",
    "uint32",
    "u8",
    "uint64",
    "f2",
    "halffloat",
    "float16",
    "f4",
    "float",
    "float32",
    "f8",
    "double",
    "float64",
    "string",
    "str",
    "utf8",
    "binary",
    "large_string",
    "large_str",
    "large_utf8",
    "large_binary",
    "binary_view",
    "string_view",
    "date32",
    "date64",
    "date32[day]",
    "date64[ms]",
    "time32[s]",
    "time32[ms]",
    "time64[us]",
    "time64[ns]",
    "timestamp[s]",
    "timestamp[ms]",
    "timestamp[us]",
    "timestamp[ns]",
    "duration[s]",
    "duration[ms]",
    "duration[us]",
    "duration[ns]",
    "month_day_nano_interval",
];

/// Whether a text names an Arrow type the `schema` check understands.
pub fn is_arrow_type(text: &str) -> bool {
    let text = text.trim();
    let lowered = text.to_lowercase();
    ALIASES.contains(&lowered.as_str()) || is_timestamp(&lowered) || is_decimal(&lowered)
}

/// `timestamp[ s|ms|us|ns ]` or `timestamp[unit, tz=ZONE]`, blanks allowed around the parts.
fn is_timestamp(text: &str) -> bool {
    let Some(inner) = text
        .strip_prefix("timestamp[")
        .and_then(|rest| rest.strip_suffix(']'))
    else {
        return false;
    };
    let (unit, zone) = match inner.split_once(',') {
        Some((unit, zone)) => (unit, Some(zone)),
        None => (inner, None),
    };
    if !matches!(unit.trim(), "s" | "ms" | "us" | "ns") {
        return false;
    }
    match zone {
        None => true,
        Some(zone) => zone
            .trim()
            .strip_prefix("tz")
            .and_then(|rest| rest.trim_start().strip_prefix('='))
            .is_some_and(|name| !name.trim().is_empty() && !name.contains(']')),
    }
}

/// `decimal(p, s)`, `decimal128(p, s)` or `decimal256(p, s)`; the scale may be negative.
fn is_decimal(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("decimal") else {
        return false;
    };
    let rest = rest
        .strip_prefix("128")
        .or_else(|| rest.strip_prefix("256"))
        .unwrap_or(rest);
    let Some(inner) = rest
        .strip_prefix('(')
        .and_then(|rest| rest.strip_suffix(')'))
    else {
        return false;
    };
    let Some((precision, scale)) = inner.split_once(',') else {
        return false;
    };
    let digits = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit());
    let scale = scale.trim();
    digits(precision.trim()) && digits(scale.strip_prefix('-').unwrap_or(scale))
}

#[cfg(test)]
mod tests {
    use super::is_arrow_type;

    #[test]
    fn type_strings() {
        for ok in [
            "int64",
            "Double",
            "large_string",
            "timestamp[us]",
            "timestamp[ us , tz=UTC ]",
            "decimal(10, 2)",
            "decimal256(40,-2)",
            "date32[day]",
        ] {
            assert!(is_arrow_type(ok), "{ok}");
        }
        for bad in [
            "int65",
            "timestamp[m]",
            "timestamp[us, zone=UTC]",
            "decimal(10)",
            "decimal(a, 2)",
            "list<int64>",
        ] {
            assert!(!is_arrow_type(bad), "{bad}");
        }
    }
}
