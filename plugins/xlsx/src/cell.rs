//! One cell's value, as the Python tool's reader (openpyxl, `data_only=True`) sees it, and how it
//! prints: as the text of a column that mixes kinds, or as a column name.

use crate::calendar::{self, Iso, Serial};
use calamine::{CellErrorType, DataRef};
use ldp_pyrepr::py_float;

/// 2^63: whole numbers from here on do not fit an `int64`.
const INT64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// A cell that is not empty.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// TRUE or FALSE.
    Bool(bool),
    /// A number (a formula cell gives the number Excel saved with it).
    Number(f64),
    /// Text, never empty (an empty text is an empty cell); error cells read as their code,
    /// `#DIV/0!`.
    Text(String),
    /// A date without a time (only from ISO 8601 cells): days since 1970-01-01.
    Date(i64),
    /// A date and time: microseconds since 1970-01-01 00:00, no time zone.
    DateTime(i64),
    /// A time of day: microseconds since midnight.
    Time(i64),
    /// A duration (a `[h]:mm:ss` format): microseconds.
    Duration(i64),
}

/// The kinds of cells a column may hold, one bit each, in the order the Python tool sorts their
/// names in its warning.
pub mod kind {
    /// TRUE or FALSE.
    pub const BOOL: u8 = 1;
    /// Dates and datetimes.
    pub const DATE: u8 = 2;
    /// Numbers.
    pub const NUMBER: u8 = 4;
    /// Durations.
    pub const OTHER: u8 = 8;
    /// Text.
    pub const TEXT: u8 = 16;
    /// Times of day.
    pub const TIME: u8 = 32;
    /// The names, by bit.
    pub const NAMES: [(u8, &str); 6] = [
        (BOOL, "bool"),
        (DATE, "date"),
        (NUMBER, "number"),
        (OTHER, "other"),
        (TEXT, "text"),
        (TIME, "time"),
    ];

    /// `"number and text"`: the names of the kinds in `set`, sorted, joined by `and`.
    pub fn describe(set: u8) -> String {
        let names: Vec<&str> = NAMES
            .iter()
            .filter(|(bit, _)| set & bit != 0)
            .map(|(_, name)| *name)
            .collect();
        names.join(" and ")
    }
}

impl Value {
    /// The value of a cell as calamine read it, or `None` for an empty cell (no value, or an
    /// empty text). `Err` holds why an ISO 8601 cell cannot be read.
    pub fn from_cell(cell: &DataRef<'_>, is_1904: bool) -> Result<Option<Self>, String> {
        Ok(Some(match cell {
            DataRef::Empty => return Ok(None),
            DataRef::String(s) | DataRef::DateTimeIso(s) | DataRef::DurationIso(s)
                if s.is_empty() =>
            {
                return Ok(None);
            }
            DataRef::SharedString("") => return Ok(None),
            DataRef::String(s) => Value::Text(s.clone()),
            DataRef::SharedString(s) => Value::Text((*s).to_owned()),
            DataRef::Bool(b) => Value::Bool(*b),
            DataRef::Int(i) => Value::Number(*i as f64),
            DataRef::Float(f) => Value::Number(*f),
            DataRef::DateTime(dt) if dt.is_duration() => {
                match calendar::duration_from_serial(dt.as_f64()) {
                    Some(micros) => Value::Duration(micros),
                    None => Value::Text("#VALUE!".to_owned()),
                }
            }
            DataRef::DateTime(dt) => match calendar::from_serial(dt.as_f64(), is_1904) {
                Serial::DateTime(micros) => Value::DateTime(micros),
                Serial::Time(micros) => Value::Time(micros),
                // openpyxl turns a date it cannot represent into an error cell.
                Serial::OutOfRange => Value::Text("#VALUE!".to_owned()),
            },
            DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => match calendar::parse_iso(s) {
                Some(Iso::Date(days)) => Value::Date(days),
                Some(Iso::DateTime(micros)) => Value::DateTime(micros),
                Some(Iso::Time(micros)) => Value::Time(micros),
                Some(Iso::Duration(micros)) => Value::Duration(micros),
                None => return Err(format!("Invalid datetime value {s}")),
            },
            DataRef::Error(e) => Value::Text(error_code(e).to_owned()),
        }))
    }

    /// The kind bit of the value (see [`kind`]).
    pub fn kind(&self) -> u8 {
        match self {
            Value::Bool(_) => kind::BOOL,
            Value::Number(_) => kind::NUMBER,
            Value::Text(_) => kind::TEXT,
            Value::Date(_) | Value::DateTime(_) => kind::DATE,
            Value::Time(_) => kind::TIME,
            Value::Duration(_) => kind::OTHER,
        }
    }

    /// The text of the value in a column read as text: `TRUE`, `3`, `2.5`,
    /// `2024-01-31 00:00:00`, `1:30:00` (the Python tool's `_text`).
    pub fn into_text(self) -> String {
        match self {
            Value::Bool(true) => "TRUE".to_owned(),
            Value::Bool(false) => "FALSE".to_owned(),
            Value::Text(s) => s,
            other => other.common_text(),
        }
    }

    /// The value as a column name (Python's `str()` of the cell): `True`, `3`, `2.5`, text as
    /// it is.
    pub fn header_text(&self) -> String {
        match self {
            Value::Bool(true) => "True".to_owned(),
            Value::Bool(false) => "False".to_owned(),
            Value::Text(s) => s.clone(),
            other => other.common_text(),
        }
    }

    /// The text of the kinds that print the same way in both cases.
    fn common_text(&self) -> String {
        match self {
            Value::Number(n) => number_text(*n),
            Value::Date(days) => calendar::date_text(*days),
            Value::DateTime(micros) => calendar::datetime_text(*micros),
            Value::Time(micros) => calendar::time_text(*micros),
            Value::Duration(micros) => calendar::duration_text(*micros),
            Value::Bool(b) => b.to_string(),
            Value::Text(s) => s.clone(),
        }
    }

    /// Whether the value is whitespace only, which the Python tool counts as an empty header cell.
    pub fn is_blank(&self) -> bool {
        matches!(self, Value::Text(s) if s.chars().all(is_py_space))
    }
}

/// Whether the number is whole and fits an `int64` (read as int64 in a column of numbers).
pub fn is_whole(n: f64) -> bool {
    n.abs() < INT64_LIMIT && n.fract() == 0.0
}

/// A number as Python prints it: openpyxl reads `3` as the int 3 and `2.5` as a float, and the
/// workbook stores a whole number without a decimal point.
fn number_text(n: f64) -> String {
    if is_whole(n) {
        (n as i64).to_string()
    } else {
        py_float(n)
    }
}

/// An error cell's code, as the file spells it (and openpyxl reads it).
fn error_code(e: &CellErrorType) -> &'static str {
    match e {
        CellErrorType::Div0 => "#DIV/0!",
        CellErrorType::NA => "#N/A",
        CellErrorType::Name => "#NAME?",
        CellErrorType::Null => "#NULL!",
        CellErrorType::Num => "#NUM!",
        CellErrorType::Ref => "#REF!",
        CellErrorType::Value => "#VALUE!",
        CellErrorType::GettingData => "#GETTING_DATA",
    }
}

/// Python's `str.isspace()` for one character: Unicode white space and the ASCII separators
/// `\x1c`..`\x1f`.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `" ".join(text.split())`: one space for any run of white space, none at the ends.
pub fn squeeze_spaces(text: &str) -> String {
    text.split(is_py_space)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// An approximation of Python's `str.casefold()`: lower case, with the folds that lower case
/// misses for common text (`ß` is `ss`, a final `ς` is `σ`).
pub fn casefold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for c in text.to_lowercase().chars() {
        match c {
            'ß' => folded.push_str("ss"),
            'ς' => folded.push('σ'),
            'ſ' => folded.push('s'),
            _ => folded.push(c),
        }
    }
    folded
}

#[cfg(test)]
mod tests {
    use super::*;
    use calamine::{ExcelDateTime, ExcelDateTimeType};

    fn read(cell: DataRef<'_>) -> Option<Value> {
        Value::from_cell(&cell, false).unwrap()
    }

    #[test]
    fn empty_cells() {
        assert_eq!(read(DataRef::Empty), None);
        assert_eq!(read(DataRef::String(String::new())), None);
        assert_eq!(read(DataRef::SharedString("")), None);
        assert_eq!(
            read(DataRef::SharedString(" ")),
            Some(Value::Text(" ".into()))
        );
    }

    #[test]
    fn dates_times_and_durations() {
        let date = |v: f64, t| DataRef::DateTime(ExcelDateTime::new(v, t, false));
        assert!(matches!(
            read(date(45322.0, ExcelDateTimeType::DateTime)),
            Some(Value::DateTime(_))
        ));
        assert_eq!(
            read(date(0.5, ExcelDateTimeType::DateTime)),
            Some(Value::Time(43_200_000_000))
        );
        assert_eq!(
            read(date(1.5, ExcelDateTimeType::TimeDelta)),
            Some(Value::Duration(129_600_000_000))
        );
        assert_eq!(
            read(date(1e10, ExcelDateTimeType::DateTime)),
            Some(Value::Text("#VALUE!".into()))
        );
        assert_eq!(
            read(DataRef::DateTimeIso("2024-01-31".into())),
            Some(Value::Date(19_753))
        );
        assert_eq!(
            Value::from_cell(&DataRef::DateTimeIso("bad".into()), false),
            Err("Invalid datetime value bad".into())
        );
        assert_eq!(
            read(DataRef::Error(CellErrorType::Div0)),
            Some(Value::Text("#DIV/0!".into()))
        );
    }

    #[test]
    fn texts() {
        assert_eq!(Value::Bool(true).into_text(), "TRUE");
        assert_eq!(Value::Bool(true).header_text(), "True");
        assert_eq!(Value::Number(3.0).into_text(), "3");
        assert_eq!(Value::Number(2.5).into_text(), "2.5");
        assert_eq!(Value::Number(1e20).into_text(), "1e+20");
        assert_eq!(Value::Date(19_753).into_text(), "2024-01-31");
        assert_eq!(Value::DateTime(0).header_text(), "1970-01-01 00:00:00");
        assert_eq!(Value::Duration(5_400_000_000).into_text(), "1:30:00");
        assert_eq!(kind::describe(kind::TEXT | kind::NUMBER), "number and text");
        assert_eq!(
            kind::describe(kind::TIME | kind::BOOL | kind::DATE),
            "bool and date and time"
        );
    }

    #[test]
    fn names() {
        assert_eq!(squeeze_spaces("  unit\n price\t(EUR) "), "unit price (EUR)");
        assert!(Value::Text(" \n\u{a0}".into()).is_blank());
        assert!(!Value::Number(0.0).is_blank());
        assert_eq!(casefold("Straße"), casefold("STRASSE"));
        assert_eq!(casefold("ΣΑΣ"), casefold("σας"));
        assert!(is_whole(-0.0) && is_whole(3.0) && !is_whole(2.5) && !is_whole(1e19));
    }
}
