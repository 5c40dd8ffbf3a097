//! How one CSV value is read: the rules of pyarrow's CSV reader with its default
//! `ConvertOptions` (the Python tool reads CSV with `pyarrow.csv.read_csv`), written out in
//! [`docs/compatibility.md`](../../../docs/compatibility.md#csv-values).
//!
//! - **Null markers**: a value equal to one of [`DEFAULT_NULL_VALUES`] (exactly, quoted or
//!   not) is null in every column that is not text. In a text column every value is kept as
//!   written, the empty string and `NA` included (pyarrow's `strings_can_be_null=False`).
//! - **Kinds**, tried in this order for a column, the first that reads every non-null value
//!   wins: integer, boolean, date, time, timestamp, double, text. A column whose values are all
//!   null markers is text with nulls (pyarrow's `null` type, which Iceberg cannot store).
//! - Integers, doubles, dates and times may have spaces or tabs around them; booleans and
//!   timestamps may not.

use std::ops::Range;

/// pyarrow's default `null_values`.
pub const DEFAULT_NULL_VALUES: &[&str] = &[
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null",
];

/// pyarrow's default `true_values`.
const TRUE_VALUES: &[&str] = &["1", "True", "TRUE", "true"];
/// pyarrow's default `false_values`.
const FALSE_VALUES: &[&str] = &["0", "False", "FALSE", "false"];

/// The values read as null.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NullValues {
    values: Vec<String>,
    /// The longest marker, to rule most values out by their length.
    longest: usize,
    /// Whether a marker is made of digits, a sign and a point only, so that a value the number
    /// shortcuts read may still be null.
    numeric: bool,
}

impl Default for NullValues {
    fn default() -> Self {
        Self::new(DEFAULT_NULL_VALUES.iter().map(|s| s.to_string()).collect())
    }
}

impl NullValues {
    pub fn new(values: Vec<String>) -> Self {
        let longest = values.iter().map(String::len).max().unwrap_or(0);
        let numeric = values.iter().any(|v| {
            !v.is_empty()
                && v.bytes()
                    .all(|b| b.is_ascii_digit() || b == b'-' || b == b'.')
        });
        Self {
            values,
            longest,
            numeric,
        }
    }

    /// Whether `value` is a null marker.
    #[inline]
    pub fn is_null(&self, value: &str) -> bool {
        value.len() <= self.longest && self.values.iter().any(|v| v == value)
    }

    /// Whether a value that a number shortcut reads may be a null marker all the same.
    #[inline]
    pub fn has_numeric(&self) -> bool {
        self.numeric
    }
}

/// The kinds a value can be read as, one bit each, in pyarrow's order of inference.
pub mod kind {
    pub const INTEGER: u8 = 1 << 0;
    pub const BOOLEAN: u8 = 1 << 1;
    pub const DATE: u8 = 1 << 2;
    pub const TIME: u8 = 1 << 3;
    pub const TIMESTAMP: u8 = 1 << 4;
    pub const TIMESTAMP_ZONED: u8 = 1 << 5;
    pub const DOUBLE: u8 = 1 << 6;
    /// Every kind but text: what a null marker allows.
    pub const ANY: u8 = (1 << 7) - 1;
}

pub use ldp_source_options::ColumnType;

/// The first kind, in pyarrow's order, that every value of a column allows; `seen` is false
/// when the column had no value that is not a null marker.
pub fn infer_type(allowed: u8, seen: bool) -> ColumnType {
    if !seen {
        return ColumnType::Null;
    }
    [
        (kind::INTEGER, ColumnType::Int64),
        (kind::BOOLEAN, ColumnType::Boolean),
        (kind::DATE, ColumnType::Date32),
        (kind::TIME, ColumnType::Time),
        (kind::TIMESTAMP, ColumnType::Timestamp),
        (kind::TIMESTAMP_ZONED, ColumnType::TimestampUtc),
        (kind::DOUBLE, ColumnType::Float64),
    ]
    .into_iter()
    .find(|(bit, _)| allowed & bit != 0)
    .map_or(ColumnType::Utf8, |(_, t)| t)
}

/// The kinds a value that is not a null marker can be read as.
pub fn classify(value: &str) -> u8 {
    let mut bits = 0;
    let trimmed = trim(value);
    if parse_i64(trimmed).is_some() {
        bits |= kind::INTEGER;
    }
    if parse_bool(value).is_some() {
        bits |= kind::BOOLEAN;
    }
    if parse_date(trimmed).is_some() {
        bits |= kind::DATE;
    }
    if parse_time(trimmed).is_some() {
        bits |= kind::TIME;
    }
    match parse_timestamp(value) {
        Some((_, false)) => bits |= kind::TIMESTAMP,
        Some((_, true)) => bits |= kind::TIMESTAMP_ZONED,
        None => {}
    }
    if parse_f64(trimmed).is_some() {
        bits |= kind::DOUBLE;
    }
    bits
}

/// The value without the spaces and tabs around it.
#[inline]
pub fn trim(value: &str) -> &str {
    value.trim_matches(|c| c == ' ' || c == '\t')
}

/// An integer: `-?[0-9]+` within int64, or `0x`/`0X` and up to 16 hex digits (two's
/// complement, as pyarrow reads them). The caller trims.
pub fn parse_i64(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if let Some(hex) = b.strip_prefix(b"0x").or_else(|| b.strip_prefix(b"0X")) {
        if hex.is_empty() || hex.len() > 16 {
            return None;
        }
        let mut value: u64 = 0;
        for &c in hex {
            value = value << 4 | u64::from((c as char).to_digit(16)?);
        }
        return Some(value as i64);
    }
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.parse().ok()
}

/// A double: what Rust's `f64` parser reads (a sign, digits with a point, an exponent, `inf`,
/// `infinity`, `nan` in any case), as pyarrow's parser. The caller trims.
pub fn parse_f64(s: &str) -> Option<f64> {
    // Like pyarrow's, Rust's parser refuses "1_0", "0x10", "1d" and "1,5".
    s.parse().ok()
}

/// `True`/`true`/`TRUE`/`1` or `False`/`false`/`FALSE`/`0`, exactly.
pub fn parse_bool(s: &str) -> Option<bool> {
    if FALSE_VALUES.contains(&s) {
        Some(false)
    } else if TRUE_VALUES.contains(&s) {
        Some(true)
    } else {
        None
    }
}

/// `YYYY-MM-DD`, a valid date, as days since 1970-01-01. The caller trims.
pub fn parse_date(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    if b.len() != 10 {
        return None;
    }
    let days = date_at(b)?;
    i32::try_from(days).ok()
}

/// `HH:MM` or `HH:MM:SS`, as microseconds since midnight. The caller trims.
pub fn parse_time(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let seconds = match b.len() {
        5 => hh_mm_ss(b, false)?,
        8 => hh_mm_ss(b, true)?,
        _ => return None,
    };
    Some(seconds * 1_000_000)
}

/// An ISO 8601 date-time as pyarrow reads it: `YYYY-MM-DD`, then optionally `T` or a space and
/// `HH`, `HH:MM`, `HH:MM:SS` or `HH:MM:SS.f` (1 to 9 digits, truncated to microseconds), then
/// optionally `Z`, `±HH`, `±HHMM` or `±HH:MM`. Microseconds since the epoch (in UTC for a value
/// with a zone), and whether it had one. Not trimmed.
pub fn parse_timestamp(s: &str) -> Option<(i64, bool)> {
    let b = s.as_bytes();
    if b.len() < 10 {
        return None;
    }
    let days = date_at(b)?;
    if b.len() == 10 {
        return Some((days * 86_400_000_000, false));
    }
    if b[10] != b'T' && b[10] != b' ' {
        return None;
    }
    let rest = &b[11..];
    // The zone starts at the first Z, + or - after the time.
    let zone_at = rest
        .iter()
        .position(|&c| c == b'Z' || c == b'+' || c == b'-')
        .unwrap_or(rest.len());
    let (time, zone) = rest.split_at(zone_at);
    let micros = time_of_day(time)?;
    let offset = match zone {
        [] => None,
        [b'Z'] => Some(0),
        [sign, tail @ ..] => {
            let minutes = match tail {
                [h1, h2] => two(*h1, *h2, 0..24)? * 60,
                [h1, h2, m1, m2] | [h1, h2, b':', m1, m2] => {
                    two(*h1, *h2, 0..24)? * 60 + two(*m1, *m2, 0..60)?
                }
                _ => return None,
            };
            Some(if *sign == b'-' { -minutes } else { minutes })
        }
    };
    let local = days * 86_400_000_000 + micros;
    match offset {
        None => Some((local, false)),
        Some(minutes) => Some((local - minutes * 60_000_000, true)),
    }
}

/// `HH`, `HH:MM`, `HH:MM:SS` or `HH:MM:SS.f{1,9}` as microseconds.
fn time_of_day(b: &[u8]) -> Option<i64> {
    let (whole, fraction) = match b.iter().position(|&c| c == b'.') {
        Some(at) => (&b[..at], Some(&b[at + 1..])),
        None => (b, None),
    };
    let seconds = match whole.len() {
        2 => two(whole[0], whole[1], 0..24)? * 3600,
        5 => hh_mm_ss(whole, false)?,
        8 => hh_mm_ss(whole, true)?,
        _ => return None,
    };
    let mut micros = 0;
    if let Some(fraction) = fraction {
        if whole.len() != 8 || fraction.is_empty() || fraction.len() > 9 {
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
    Some(seconds * 1_000_000 + micros)
}

/// `HH:MM` or `HH:MM:SS` (hours 0–23, minutes and seconds 0–59) as seconds.
fn hh_mm_ss(b: &[u8], with_seconds: bool) -> Option<i64> {
    if b[2] != b':' {
        return None;
    }
    let mut seconds = two(b[0], b[1], 0..24)? * 3600 + two(b[3], b[4], 0..60)? * 60;
    if with_seconds {
        if b[5] != b':' {
            return None;
        }
        seconds += two(b[6], b[7], 0..60)?;
    }
    Some(seconds)
}

/// Two ASCII digits as a number within `range`.
#[inline]
fn two(a: u8, b: u8, range: Range<i64>) -> Option<i64> {
    if !a.is_ascii_digit() || !b.is_ascii_digit() {
        return None;
    }
    let n = i64::from(a - b'0') * 10 + i64::from(b - b'0');
    range.contains(&n).then_some(n)
}

/// The date `YYYY-MM-DD` at the start of `b` (at least 10 bytes), as days since 1970-01-01.
fn date_at(b: &[u8]) -> Option<i64> {
    if b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let mut year = 0;
    for &c in &b[..4] {
        if !c.is_ascii_digit() {
            return None;
        }
        year = year * 10 + i64::from(c - b'0');
    }
    let month = two(b[5], b[6], 1..13)?;
    let day = two(b[8], b[9], 1..32)?;
    if day > days_in_month(year, month) {
        return None;
    }
    Some(days_from_civil(year, month, day))
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
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
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

    /// The type pyarrow 26.0.1 infers for a column of one value, and the value it reads, by
    /// `tests/data/csv-values/make_vectors.py` (see its output `vectors.tsv`).
    #[test]
    fn single_values_as_pyarrow_reads_them() {
        let vectors = include_str!("../../../tests/data/csv-values/vectors.tsv");
        let nulls = NullValues::default();
        let mut checked = 0;
        for line in vectors.lines().skip(1) {
            let mut cols = line.split('\t');
            let (Some(value), Some(expected)) = (cols.next(), cols.next()) else {
                continue;
            };
            let value = unescape(value);
            let ours = if nulls.is_null(&value) {
                "null"
            } else {
                infer_type(classify(&value), true).name()
            };
            let theirs = match expected {
                "int64" => "int64",
                "double" => "double",
                "bool" => "bool",
                "date32[day]" => "date",
                "time32[s]" => "time",
                "timestamp[s]" | "timestamp[ns]" => "timestamp",
                "timestamp[s, tz=UTC]" | "timestamp[ns, tz=UTC]" => "timestamptz",
                "null" => "null",
                _ => "string",
            };
            assert_eq!(ours, theirs, "{value:?}");
            checked += 1;
        }
        assert!(checked > 100, "{checked} vectors");
    }

    fn unescape(s: &str) -> String {
        s.replace("\\t", "\t").replace("\\s", " ")
    }

    #[test]
    fn values() {
        assert_eq!(parse_i64("0x10"), Some(16));
        assert_eq!(parse_i64("0xFFFFFFFFFFFFFFFF"), Some(-1));
        assert_eq!(parse_i64("-0x10"), None);
        assert_eq!(parse_i64("+1"), None);
        assert_eq!(parse_i64("9223372036854775808"), None);
        assert_eq!(parse_f64("+1"), Some(1.0));
        assert_eq!(parse_date("2024-02-29"), Some(19_782));
        assert_eq!(parse_date("2023-02-29"), None);
        assert_eq!(parse_time("23:59:59"), Some(86_399_000_000));
        assert_eq!(parse_time("10:00:60"), None);
        assert_eq!(
            parse_timestamp("2024-01-01T10:00:00-05:30"),
            Some((1_704_123_000_000_000, true))
        );
        assert_eq!(
            parse_timestamp("2024-01-01 10:00:00.1234567"),
            Some((1_704_103_200_123_456, false))
        );
        assert_eq!(parse_timestamp("2024-01-01T10:00:00+24:00"), None);
        assert_eq!(parse_timestamp("2024-01-01 10:00:00 "), None);
    }

    #[test]
    fn column_order() {
        let col = |values: &[&str]| {
            let nulls = NullValues::default();
            let mut allowed = kind::ANY;
            let mut seen = false;
            for v in values {
                if !nulls.is_null(v) {
                    allowed &= classify(v);
                    seen = true;
                }
            }
            infer_type(allowed, seen)
        };
        assert_eq!(col(&["1", "true"]), ColumnType::Boolean);
        assert_eq!(col(&["2", "true"]), ColumnType::Utf8);
        assert_eq!(col(&["1", "1.5", "NA"]), ColumnType::Float64);
        assert_eq!(col(&["NA", "NA"]), ColumnType::Null);
        assert_eq!(
            col(&["2024-01-01", "2024-01-01 10:00:00"]),
            ColumnType::Timestamp
        );
        assert_eq!(
            col(&["2024-01-01 10:00:00Z", "2024-01-01 10:00:00"]),
            ColumnType::Utf8
        );
        assert_eq!(col(&["nan", "1.5"]), ColumnType::Float64);
        assert_eq!(col(&["NULL", "2024-01-01"]), ColumnType::Date32);
    }
}
