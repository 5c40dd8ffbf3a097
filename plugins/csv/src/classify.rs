//! The classification of values that arrow-csv 58.4.1 does for `Format::infer_schema`, by hand.
//!
//! arrow-csv matches each value against a `RegexSet` that it compiles on first use; the plugin
//! is a fresh WebAssembly instance for every stream, so that compilation cost milliseconds on
//! every open. This module reproduces the same decisions without the `regex` crate:
//!
//! | bit | type | arrow-csv's regex (first match wins) |
//! |-----|------|--------------------------------------|
//! | 0 | Boolean | `(?i)^(true)$\|^(false)$` |
//! | 1 | Int64 | `^-?(\d+)$` (but Utf8 when 19 bytes or more and not an `i64`) |
//! | 2 | Float64 | `^-?((\d*\.\d+\|\d+\.\d*)([eE][-+]?\d+)?\|\d+([eE][-+]?\d+))$`, or `NaN`, `nan`, `inf`, `-inf` |
//! | 3 | Date32 | `^\d{4}-\d\d-\d\d$` |
//! | 4 | Timestamp(s) | `^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[^\d\.].*)?$` |
//! | 5, 6, 7 | Timestamp(ms, us, ns) | the same, then `\.\d{1,3}`, `{1,6}`, `{1,9}`, then `(?:[^\d].*)?$` |
//! | 8 | Utf8 | anything else, and any value starting with `"` |
//!
//! As in the regex crate's defaults, `\d` is any Unicode decimal digit (category Nd), `.`
//! is any character but `\n`, `$` is the end of the value, and `(?i)` folds case by Unicode
//! simple case folding (so `falſe`, with a long s, is a boolean). Values are not trimmed: a
//! leading or trailing space makes a value a string (except after the seconds of a timestamp,
//! where anything may follow). Empty values are nulls and are not classified. A column's bits
//! are or-ed together and [`Kinds::data_type`] gives arrow-csv's type for them.

use arrow_schema::{DataType, TimeUnit};

const BOOLEAN: u16 = 1 << 0;
const INTEGER: u16 = 1 << 1;
const FLOAT: u16 = 1 << 2;
const DATE: u16 = 1 << 3;
const TS_SECOND: u16 = 1 << 4;
const TS_MILLI: u16 = 1 << 5;
const TS_MICRO: u16 = 1 << 6;
const TS_NANO: u16 = 1 << 7;
const UTF8: u16 = 1 << 8;

/// The kinds of values seen in a column (arrow-csv's `InferredDataType`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Kinds(u16);

impl Kinds {
    /// Adds a non-empty value.
    #[inline]
    pub fn update(&mut self, value: &str) {
        self.0 |= classify(value);
    }

    /// arrow-csv's type for the values seen: `Null` for none, a single kind's type, `Float64`
    /// for integers and decimals, the finest temporal type for dates and timestamps, else
    /// `Utf8`.
    pub fn data_type(self) -> DataType {
        match self.0 {
            0 => DataType::Null,
            BOOLEAN => DataType::Boolean,
            INTEGER => DataType::Int64,
            FLOAT | 0b110 => DataType::Float64,
            b if (b & !0b1111_1000) == 0 => match b.leading_zeros() {
                8 => DataType::Timestamp(TimeUnit::Nanosecond, None),
                9 => DataType::Timestamp(TimeUnit::Microsecond, None),
                10 => DataType::Timestamp(TimeUnit::Millisecond, None),
                11 => DataType::Timestamp(TimeUnit::Second, None),
                _ => DataType::Date32,
            },
            _ => DataType::Utf8,
        }
    }
}

/// The ranges of Unicode's Decimal_Number (Nd) category, as the regex crate's `\d` has them
/// (regex-syntax 0.8.12, Unicode 16.0.0).
const DECIMAL_NUMBER: &[(u32, u32)] = &[
    (0x30, 0x39),
    (0x660, 0x669),
    (0x6F0, 0x6F9),
    (0x7C0, 0x7C9),
    (0x966, 0x96F),
    (0x9E6, 0x9EF),
    (0xA66, 0xA6F),
    (0xAE6, 0xAEF),
    (0xB66, 0xB6F),
    (0xBE6, 0xBEF),
    (0xC66, 0xC6F),
    (0xCE6, 0xCEF),
    (0xD66, 0xD6F),
    (0xDE6, 0xDEF),
    (0xE50, 0xE59),
    (0xED0, 0xED9),
    (0xF20, 0xF29),
    (0x1040, 0x1049),
    (0x1090, 0x1099),
    (0x17E0, 0x17E9),
    (0x1810, 0x1819),
    (0x1946, 0x194F),
    (0x19D0, 0x19D9),
    (0x1A80, 0x1A89),
    (0x1A90, 0x1A99),
    (0x1B50, 0x1B59),
    (0x1BB0, 0x1BB9),
    (0x1C40, 0x1C49),
    (0x1C50, 0x1C59),
    (0xA620, 0xA629),
    (0xA8D0, 0xA8D9),
    (0xA900, 0xA909),
    (0xA9D0, 0xA9D9),
    (0xA9F0, 0xA9F9),
    (0xAA50, 0xAA59),
    (0xABF0, 0xABF9),
    (0xFF10, 0xFF19),
    (0x104A0, 0x104A9),
    (0x10D30, 0x10D39),
    (0x10D40, 0x10D49),
    (0x11066, 0x1106F),
    (0x110F0, 0x110F9),
    (0x11136, 0x1113F),
    (0x111D0, 0x111D9),
    (0x112F0, 0x112F9),
    (0x11450, 0x11459),
    (0x114D0, 0x114D9),
    (0x11650, 0x11659),
    (0x116C0, 0x116C9),
    (0x116D0, 0x116E3),
    (0x11730, 0x11739),
    (0x118E0, 0x118E9),
    (0x11950, 0x11959),
    (0x11BF0, 0x11BF9),
    (0x11C50, 0x11C59),
    (0x11D50, 0x11D59),
    (0x11DA0, 0x11DA9),
    (0x11F50, 0x11F59),
    (0x16130, 0x16139),
    (0x16A60, 0x16A69),
    (0x16AC0, 0x16AC9),
    (0x16B50, 0x16B59),
    (0x16D70, 0x16D79),
    (0x1CCF0, 0x1CCF9),
    (0x1D7CE, 0x1D7FF),
    (0x1E140, 0x1E149),
    (0x1E2F0, 0x1E2F9),
    (0x1E4F0, 0x1E4F9),
    (0x1E5F1, 0x1E5FA),
    (0x1E950, 0x1E959),
    (0x1FBF0, 0x1FBF9),
];

#[inline]
fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    let c = c as u32;
    DECIMAL_NUMBER
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// A cursor over a value's characters.
struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    #[inline]
    fn peek(&self) -> Option<char> {
        self.rest.chars().next()
    }

    #[inline]
    fn is_end(&self) -> bool {
        self.rest.is_empty()
    }

    /// Takes `c` if it is next.
    #[inline]
    fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// Takes the next character if `f` accepts it.
    #[inline]
    fn eat_if(&mut self, f: impl Fn(char) -> bool) -> bool {
        match self.peek() {
            Some(c) if f(c) => {
                self.rest = &self.rest[c.len_utf8()..];
                true
            }
            _ => false,
        }
    }

    /// Takes one digit.
    #[inline]
    fn digit(&mut self) -> bool {
        self.eat_if(is_digit)
    }

    /// Takes exactly `n` digits.
    fn digits_exact(&mut self, n: usize) -> bool {
        (0..n).all(|_| self.digit())
    }

    /// Takes all the digits that follow; how many.
    fn digits(&mut self) -> usize {
        let mut n = 0;
        while self.digit() {
            n += 1;
        }
        n
    }
}

/// The bit of one non-empty value.
pub fn classify(value: &str) -> u16 {
    // Most strings are told apart by their first byte: no regex matches a value that starts
    // with another ASCII character than these (a non-ASCII one may be a Unicode digit).
    if let Some(&first) = value.as_bytes().first()
        && first.is_ascii()
        && !first.is_ascii_digit()
        && !matches!(
            first,
            b'-' | b'.' | b't' | b'T' | b'f' | b'F' | b'N' | b'n' | b'i'
        )
    {
        return UTF8;
    }
    if value.starts_with('"') {
        UTF8
    } else if is_boolean(value) {
        BOOLEAN
    } else if is_integer(value) {
        if value.len() >= 19 && value.parse::<i64>().is_err() {
            UTF8
        } else {
            INTEGER
        }
    } else if is_decimal(value) {
        FLOAT
    } else if let Some(bit) = temporal(value) {
        bit
    } else if matches!(value, "NaN" | "nan" | "inf" | "-inf") {
        FLOAT
    } else {
        UTF8
    }
}

/// `(?i)^(true)$|^(false)$`, with Unicode simple case folding: only `s` has a non-ASCII
/// fold among these letters (U+017F LATIN SMALL LETTER LONG S).
fn is_boolean(value: &str) -> bool {
    fn same(value: &str, word: &str) -> bool {
        let mut chars = value.chars();
        word.chars().all(|w| match chars.next() {
            Some(c) => c.to_ascii_lowercase() == w || (w == 's' && c == '\u{17F}'),
            None => false,
        }) && chars.next().is_none()
    }
    value.len() <= 6 && (same(value, "true") || same(value, "false"))
}

/// `^-?(\d+)$`
fn is_integer(value: &str) -> bool {
    let mut c = Cursor { rest: value };
    c.eat('-');
    c.digits() > 0 && c.is_end()
}

/// `^-?((\d*\.\d+|\d+\.\d*)([eE][-+]?\d+)?|\d+([eE][-+]?\d+))$`
fn is_decimal(value: &str) -> bool {
    let mut c = Cursor { rest: value };
    c.eat('-');
    let whole = c.digits();
    let point = c.eat('.');
    let fraction = if point { c.digits() } else { 0 };
    if whole + fraction == 0 {
        return false;
    }
    if c.eat_if(|c| c == 'e' || c == 'E') {
        c.eat_if(|c| c == '-' || c == '+');
        c.digits() > 0 && c.is_end()
    } else {
        // Without an exponent a point is required.
        point && c.is_end()
    }
}

/// The date and timestamp regexes: `DATE`, a `TS_*` bit, or `None`.
fn temporal(value: &str) -> Option<u16> {
    let mut c = Cursor { rest: value };
    let date =
        c.digits_exact(4) && c.eat('-') && c.digits_exact(2) && c.eat('-') && c.digits_exact(2);
    if !date {
        return None;
    }
    if c.is_end() {
        return Some(DATE);
    }
    let time = c.eat_if(|c| c == 'T' || c == ' ')
        && c.digits_exact(2)
        && c.eat(':')
        && c.digits_exact(2)
        && c.eat(':')
        && c.digits_exact(2);
    if !time {
        return None;
    }
    let bit = if c.eat('.') {
        match c.digits() {
            1..=3 => TS_MILLI,
            4..=6 => TS_MICRO,
            7..=9 => TS_NANO,
            _ => return None,
        }
    } else if c.peek().is_some_and(is_digit) {
        return None;
    } else {
        TS_SECOND
    };
    // `(?:[^\d].*)?$`: nothing, or a character that is not a digit (after the maximal run of
    // digits, or not a point after the seconds) and then no line feed.
    let mut tail = c.rest.chars();
    match tail.next() {
        None => Some(bit),
        Some(_) => (!tail.as_str().contains('\n')).then_some(bit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_csv::reader::Format;

    fn type_of(values: &[&str]) -> DataType {
        let mut kinds = Kinds::default();
        for v in values {
            kinds.update(v);
        }
        kinds.data_type()
    }

    fn one(value: &str) -> DataType {
        type_of(&[value])
    }

    /// arrow-csv's own answer for a column of `values` (quoted in the file, so that any value
    /// can be written), the oracle the classifier must agree with.
    fn arrow_type_of(values: &[&str]) -> DataType {
        let mut text = String::from("c\n");
        for v in values {
            text.push('"');
            text.push_str(&v.replace('"', "\"\""));
            text.push_str("\"\n");
        }
        let (schema, _) = Format::default()
            .with_header(true)
            .infer_schema(text.as_bytes(), None)
            .unwrap();
        schema.field(0).data_type().clone()
    }

    const TS_S: DataType = DataType::Timestamp(TimeUnit::Second, None);
    const TS_MS: DataType = DataType::Timestamp(TimeUnit::Millisecond, None);
    const TS_US: DataType = DataType::Timestamp(TimeUnit::Microsecond, None);
    const TS_NS: DataType = DataType::Timestamp(TimeUnit::Nanosecond, None);

    #[test]
    fn each_type() {
        assert_eq!(type_of(&[]), DataType::Null);
        assert_eq!(one("true"), DataType::Boolean);
        assert_eq!(one("FALSE"), DataType::Boolean);
        assert_eq!(one("tRuE"), DataType::Boolean);
        assert_eq!(one("0"), DataType::Int64);
        assert_eq!(one("-42"), DataType::Int64);
        assert_eq!(one("007"), DataType::Int64);
        assert_eq!(one("1.5"), DataType::Float64);
        assert_eq!(one("-0.25"), DataType::Float64);
        assert_eq!(one("NaN"), DataType::Float64);
        assert_eq!(one("-inf"), DataType::Float64);
        assert_eq!(one("2026-08-01"), DataType::Date32);
        assert_eq!(one("2026-08-01 07:15:00"), TS_S);
        assert_eq!(one("2026-08-01T07:15:00"), TS_S);
        assert_eq!(one("2026-08-01T07:15:00.1"), TS_MS);
        assert_eq!(one("2026-08-01T07:15:00.123"), TS_MS);
        assert_eq!(one("2026-08-01T07:15:00.1234"), TS_US);
        assert_eq!(one("2026-08-01T07:15:00.123456"), TS_US);
        assert_eq!(one("2026-08-01T07:15:00.1234567"), TS_NS);
        assert_eq!(one("2026-08-01T07:15:00.123456789"), TS_NS);
        assert_eq!(one("2026-08-01T07:15:00Z"), TS_S);
        assert_eq!(one("2026-08-01 07:15:00+02:00"), TS_S);
        assert_eq!(one("2026-08-01 07:15:00.5-08"), TS_MS);
        assert_eq!(one("2026-08-01 07:15:00.123456 +02:00"), TS_US);
        assert_eq!(one("x"), DataType::Utf8);
    }

    #[test]
    fn edge_cases() {
        for (value, expected) in [
            ("-", DataType::Utf8),
            ("--1", DataType::Utf8),
            ("+1", DataType::Utf8),
            ("1e5", DataType::Float64),
            ("1E+5", DataType::Float64),
            ("-1e-5", DataType::Float64),
            ("1e", DataType::Utf8),
            ("e5", DataType::Utf8),
            ("1.", DataType::Float64),
            (".5", DataType::Float64),
            ("-.5", DataType::Float64),
            (".", DataType::Utf8),
            ("-.", DataType::Utf8),
            (".e5", DataType::Utf8),
            ("1.e5", DataType::Float64),
            (".5e5", DataType::Float64),
            ("1.5.1", DataType::Utf8),
            ("1,5", DataType::Utf8),
            ("Infinity", DataType::Utf8),
            ("INF", DataType::Utf8),
            ("+inf", DataType::Utf8),
            ("-nan", DataType::Utf8),
            ("truee", DataType::Utf8),
            ("yes", DataType::Utf8),
            ("fal\u{17F}e", DataType::Boolean),
            ("2026-02-30", DataType::Date32),
            ("2026-13-45", DataType::Date32),
            ("2026-8-1", DataType::Utf8),
            ("12026-08-01", DataType::Utf8),
            ("2026-08-01T", DataType::Utf8),
            ("2026-08-01 07:15", DataType::Utf8),
            ("2026-08-01 07:15:001", DataType::Utf8),
            ("2026-08-01 07:15:00.", DataType::Utf8),
            ("2026-08-01 07:15:00.x", DataType::Utf8),
            ("2026-08-01 07:15:00.1234567890", DataType::Utf8),
            ("2026-08-01 07:15:00 junk", TS_S),
            ("2026-08-01 07:15:00.5x\ny", DataType::Utf8),
            ("2026-08-01 07:15:00\n", TS_S),
            ("2026-08-01 07:15:00Z\n", DataType::Utf8),
            ("2026-08-01x07:15:00", DataType::Utf8),
            // Spaces are kept, and make a string, but after the seconds of a timestamp.
            (" 1", DataType::Utf8),
            ("1 ", DataType::Utf8),
            (" 1.5", DataType::Utf8),
            ("true ", DataType::Utf8),
            (" 2026-08-01", DataType::Utf8),
            ("2026-08-01 ", DataType::Utf8),
            ("2026-08-01 07:15:00 ", TS_S),
            ("2026-08-01 07:15:00.5 ", TS_MS),
            ("\"1\"", DataType::Utf8),
            // i64 bounds: 19 bytes or more that do not fit are strings.
            ("9223372036854775807", DataType::Int64),
            ("9223372036854775808", DataType::Utf8),
            ("-9223372036854775808", DataType::Int64),
            ("-9223372036854775809", DataType::Utf8),
            ("99999999999999999999.5", DataType::Float64),
            // Unicode digits are \d to the regex crate.
            ("\u{661}\u{662}", DataType::Int64),
            ("\u{FF11}.5", DataType::Float64),
            ("\u{FF12}026-08-01", DataType::Date32),
            ("\u{B9}", DataType::Utf8),
        ] {
            assert_eq!(one(value), expected, "{value:?}");
        }
    }

    #[test]
    fn widening() {
        assert_eq!(type_of(&["1", "2.5"]), DataType::Float64);
        assert_eq!(type_of(&["NaN", "2"]), DataType::Float64);
        assert_eq!(type_of(&["1", "true"]), DataType::Utf8);
        assert_eq!(type_of(&["1.5", "true"]), DataType::Utf8);
        assert_eq!(type_of(&["1", "2026-08-01"]), DataType::Utf8);
        assert_eq!(type_of(&["1", "x"]), DataType::Utf8);
        assert_eq!(
            type_of(&["2026-08-01", "2026-08-01 07:15:00"]),
            TS_S,
            "a date and a timestamp are a timestamp"
        );
        assert_eq!(
            type_of(&["2026-08-01 07:15:00", "2026-08-01 07:15:00.123456789"]),
            TS_NS
        );
        assert_eq!(type_of(&["2026-08-01 07:15:00", "1.5"]), DataType::Utf8);
    }

    /// The classifier agrees with arrow-csv's regexes on every value above, alone and in pairs.
    #[test]
    fn agrees_with_arrow_csv() {
        let values = [
            "true",
            "FALSE",
            "tRuE",
            "fal\u{17F}e",
            "tru\u{17F}",
            "truee",
            "yes",
            "0",
            "-42",
            "007",
            "+1",
            "-",
            "--1",
            "1.5",
            "-0.25",
            "1.",
            ".5",
            "-.5",
            ".",
            "-.",
            ".e5",
            "1.e5",
            "1e5",
            "1E+5",
            "-1e-5",
            "1e",
            "e5",
            "1e5.5",
            "1.5.1",
            "1,5",
            "NaN",
            "nan",
            "inf",
            "-inf",
            "+inf",
            "Infinity",
            "INF",
            "-nan",
            "2026-08-01",
            "2026-02-30",
            "2026-8-1",
            "12026-08-01",
            "2026-08-01T",
            "2026-08-01 07:15",
            "2026-08-01 07:15:00",
            "2026-08-01T07:15:00",
            "2026-08-01 07:15:001",
            "2026-08-01 07:15:00.",
            "2026-08-01 07:15:00.x",
            "2026-08-01 07:15:00.1",
            "2026-08-01 07:15:00.123",
            "2026-08-01 07:15:00.1234",
            "2026-08-01 07:15:00.123456",
            "2026-08-01 07:15:00.1234567",
            "2026-08-01 07:15:00.123456789",
            "2026-08-01 07:15:00.1234567890",
            "2026-08-01T07:15:00Z",
            "2026-08-01 07:15:00+02:00",
            "2026-08-01 07:15:00.5-08",
            "2026-08-01 07:15:00 junk",
            "2026-08-01 07:15:00.5x\ny",
            "2026-08-01 07:15:00\n",
            "2026-08-01 07:15:00Z\n",
            "2026-08-01 07:15:00.5\nZ",
            "2026-08-01x07:15:00",
            " 1",
            "1 ",
            " 1.5",
            "true ",
            " 2026-08-01",
            "2026-08-01 ",
            "2026-08-01 07:15:00 ",
            "2026-08-01 07:15:00.5 ",
            "\"1\"",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999.5",
            "\u{661}\u{662}",
            "\u{FF11}.5",
            "\u{FF12}026-08-01",
            "\u{B9}",
            "\u{1D7CE}",
            "2026-08-01 07:15:00\u{661}",
            "x",
            "1\n",
            "\n1",
        ];
        for v in values {
            assert_eq!(one(v), arrow_type_of(&[v]), "{v:?}");
        }
        for a in values {
            for b in values {
                assert_eq!(type_of(&[a, b]), arrow_type_of(&[a, b]), "{a:?}, {b:?}");
            }
        }
    }
}
