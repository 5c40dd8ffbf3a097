//! Timestamps without a zone, parsed fast.
//!
//! arrow-csv parses every timestamp through chrono (`string_to_datetime`), which is about a third
//! of the plugin's time on a file like the rides. Timestamp columns are therefore decoded as
//! strings and converted here: the common shape `YYYY-MM-DD[T ]HH:MM:SS[.fraction]` is parsed
//! by hand; any other value (a zone, an odd width) goes through arrow's own `string_to_datetime`,
//! so the values, and the errors (`Error parsing column C at line N: …`, which the reader turns
//! into a message naming the file, line and column), are exactly arrow-csv's.

use arrow_array::types::TimestampMicrosecondType;
use arrow_array::{Array, PrimitiveArray, StringArray};
use arrow_cast::parse::string_to_datetime;
use arrow_schema::ArrowError;

/// Parses a decoded string column into microseconds since the epoch (UTC for zoned values, as
/// arrow-csv does). `line` is arrow-csv's line number of the batch's first row, for errors.
pub fn parse_micros(
    strings: &StringArray,
    column: usize,
    line: usize,
) -> Result<PrimitiveArray<TimestampMicrosecondType>, ArrowError> {
    let mut values = Vec::with_capacity(strings.len());
    for row in 0..strings.len() {
        if strings.is_null(row) {
            values.push(0);
            continue;
        }
        let text = strings.value(row);
        let micros = match fast_micros(text.as_bytes()) {
            Some(m) => m,
            None => string_to_datetime(&chrono_utc(), text)
                .map(|d| d.timestamp_micros())
                .map_err(|e| {
                    ArrowError::ParseError(format!(
                        "Error parsing column {column} at line {}: {e}",
                        line + row
                    ))
                })?,
        };
        values.push(micros);
    }
    Ok(PrimitiveArray::new(values.into(), strings.nulls().cloned()))
}

fn chrono_utc() -> arrow_array::timezone::Tz {
    // "+00:00" always parses.
    "+00:00"
        .parse()
        .unwrap_or_else(|_| unreachable!("+00:00 is a valid offset"))
}

/// `YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}]` → µs (fraction truncated), or `None` for anything else.
pub fn fast_micros(b: &[u8]) -> Option<i64> {
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || (b[10] != b' ' && b[10] != b'T') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let mut n = 0i64;
        for &c in &b[range] {
            if !c.is_ascii_digit() {
                return None;
            }
            n = n * 10 + i64::from(c - b'0');
        }
        Some(n)
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut micros = 0i64;
    if b.len() > 19 {
        let fraction = &b[20..];
        if b[19] != b'.' || fraction.is_empty() || fraction.len() > 9 {
            return None;
        }
        for (i, &c) in fraction.iter().enumerate() {
            if !c.is_ascii_digit() {
                return None;
            }
            if i < 6 {
                micros = micros * 10 + i64::from(c - b'0');
            }
        }
        for _ in fraction.len()..6 {
            micros *= 10;
        }
    }
    let days = days_from_civil(year, month, day);
    Some((days * 86_400 + hour * 3600 + minute * 60 + second) * 1_000_000 + micros)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Howard Hinnant's `days_from_civil`.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrow(text: &str) -> Option<i64> {
        string_to_datetime(&chrono_utc(), text)
            .ok()
            .map(|d| d.timestamp_micros())
    }

    #[test]
    fn agrees_with_arrow() {
        for text in [
            "2024-01-01 00:54:38",
            "2024-01-01 00:54:38.000000",
            "2024-02-29T23:59:59.123456789",
            "1969-12-31 23:59:59.5",
            "0001-01-01 00:00:00",
            "9999-12-31 23:59:59.999999",
            "2000-02-29 12:00:00.1",
            "1900-03-01 00:00:00",
        ] {
            assert_eq!(fast_micros(text.as_bytes()), arrow(text), "{text}");
        }
    }

    #[test]
    fn leaves_other_shapes_to_arrow() {
        for text in [
            "2023-02-29 00:00:00",
            "2024-01-01 24:00:00",
            "2024-01-01 00:00:60",
            "2024-01-01T00:00:00Z",
            "2024-01-01 00:00:00+02:00",
            "2024-01-01 00:00:00.",
            "2024-1-01 00:00:00",
            "2024-01-01",
        ] {
            assert_eq!(fast_micros(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn errors_as_arrow_csv_words_them() {
        let strings = StringArray::from(vec![Some("2024-01-01 00:00:00"), None, Some("soon")]);
        let parsed = parse_micros(
            &StringArray::from(vec![Some("2024-01-01T00:00:00Z"), None]),
            1,
            1,
        )
        .unwrap();
        assert_eq!(parsed.value(0), 1_704_067_200_000_000);
        assert!(parsed.is_null(1));
        let err = parse_micros(&strings, 1, 7).unwrap_err().to_string();
        assert!(
            err.starts_with("Parser error: Error parsing column 1 at line 9: "),
            "{err}"
        );
    }
}
