//! Python 3.11's `datetime.fromisoformat` (the C implementation the Python tool runs), which
//! decides what a window bound may look like: `2026-08-01`, `20260801`, `2026-W31-6`,
//! `2026-08-01T10:30`, `2026-08-01 10:30:00.250+02:00`, `2026-08-01T103000,5-0130` and the
//! like. The separator between date and time may be any character; a fraction has any number
//! of digits (cut, not rounded, to microseconds); an offset may have seconds and a fraction.
//!
//! The parser walks the UTF-8 bytes as the C code does, reading a NUL past the end.

use jiff::civil::{Date, DateTime, ISOWeekDate, Time, Weekday};

/// A parsed ISO-8601 date or datetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IsoDateTime {
    /// The civil date and time, at microsecond precision.
    pub datetime: DateTime,
    /// The UTC offset in microseconds, when the text has one (`None`: naive).
    pub offset_micros: Option<i64>,
}

/// Parses like Python 3.11's `datetime.fromisoformat`; `None` where it raises `ValueError`.
pub fn fromisoformat(text: &str) -> Option<IsoDateTime> {
    if text.chars().count() < 7 {
        return None;
    }
    let bytes = Bytes(text.as_bytes());
    let len = text.len();
    let separator = find_separator(&bytes, len)?;
    let (year, month, day) = parse_date(&bytes, separator)?;
    let mut time = ParsedTime::default();
    if len > separator {
        let lead = bytes.at(separator);
        let width = if lead & 0x80 == 0 {
            1
        } else {
            match lead & 0xf0 {
                0xe0 => 3,
                0xf0 => 4,
                _ => 2,
            }
        };
        let start = separator + width;
        if start > len {
            return None;
        }
        time = parse_time(&bytes, start, len)?;
    }
    if !(1..=9999).contains(&year) {
        return None;
    }
    let date = Date::new(
        i16::try_from(year).ok()?,
        i8::try_from(month).ok()?,
        i8::try_from(day).ok()?,
    )
    .ok()?;
    let (hour, minute, second) = (time.hour, time.minute, time.second);
    if !(0..24).contains(&hour) || !(0..60).contains(&minute) || !(0..60).contains(&second) {
        return None;
    }
    let clock = Time::new(
        i8::try_from(hour).ok()?,
        i8::try_from(minute).ok()?,
        i8::try_from(second).ok()?,
        i32::try_from(time.microsecond * 1000).ok()?,
    )
    .ok()?;
    let offset_micros = match time.offset {
        None => None,
        Some((0, _)) => Some(0),
        Some((seconds, micros)) => {
            let total = seconds * 1_000_000 + micros;
            if total.abs() >= 86_400 * 1_000_000 {
                return None;
            }
            Some(total)
        }
    };
    Some(IsoDateTime {
        datetime: date.to_datetime(clock),
        offset_micros,
    })
}

/// The bytes of the text; reading past the end gives the C string's NUL.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn at(&self, index: usize) -> u8 {
        self.0.get(index).copied().unwrap_or(0)
    }

    fn is_digit(&self, index: usize) -> bool {
        self.at(index).is_ascii_digit()
    }

    /// `count` digits from `*pos`; `None` at the first non-digit.
    fn digits(&self, pos: &mut usize, count: usize) -> Option<i64> {
        let mut value = 0i64;
        for _ in 0..count {
            let digit = self.at(*pos).wrapping_sub(b'0');
            *pos += 1;
            if digit > 9 {
                return None;
            }
            value = value * 10 + i64::from(digit);
        }
        Some(value)
    }
}

fn find_separator(bytes: &Bytes, len: usize) -> Option<usize> {
    if len == 7 {
        return Some(7);
    }
    if bytes.at(4) == b'-' {
        if bytes.at(5) != b'W' {
            return Some(10);
        }
        if len < 8 {
            return None;
        }
        if len > 8 && bytes.at(8) == b'-' {
            if len == 9 {
                return None;
            }
            if len > 10 && bytes.is_digit(10) {
                return Some(8);
            }
            return Some(10);
        }
        return Some(8);
    }
    if bytes.at(4) == b'W' {
        let mut index = 7;
        while index < len && bytes.is_digit(index) {
            index += 1;
        }
        if index < 9 {
            return Some(index);
        }
        return Some(if index % 2 == 0 { 7 } else { 8 });
    }
    Some(8)
}

fn parse_date(bytes: &Bytes, len: usize) -> Option<(i64, i64, i64)> {
    let mut pos = 0;
    let year = bytes.digits(&mut pos, 4)?;
    let uses_separator = bytes.at(pos) == b'-';
    if uses_separator {
        pos += 1;
    }
    if bytes.at(pos) == b'W' {
        pos += 1;
        let week = bytes.digits(&mut pos, 2)?;
        let mut weekday = 1;
        if pos < len {
            if uses_separator {
                let separator = bytes.at(pos);
                pos += 1;
                if separator != b'-' {
                    return None;
                }
            }
            weekday = bytes.digits(&mut pos, 1)?;
        }
        return iso_week_to_date(year, week, weekday);
    }
    let month = bytes.digits(&mut pos, 2)?;
    if uses_separator {
        let separator = bytes.at(pos);
        pos += 1;
        if separator != b'-' {
            return None;
        }
    }
    let day = bytes.digits(&mut pos, 2)?;
    Some((year, month, day))
}

fn iso_week_to_date(year: i64, week: i64, weekday: i64) -> Option<(i64, i64, i64)> {
    let weekday = Weekday::from_monday_one_offset(i8::try_from(weekday).ok()?).ok()?;
    let date = ISOWeekDate::new(i16::try_from(year).ok()?, i8::try_from(week).ok()?, weekday)
        .ok()?
        .date();
    Some((
        i64::from(date.year()),
        i64::from(date.month()),
        i64::from(date.day()),
    ))
}

#[derive(Default)]
struct ParsedTime {
    hour: i64,
    minute: i64,
    second: i64,
    microsecond: i64,
    /// Seconds and microseconds of the offset, when there is one.
    offset: Option<(i64, i64)>,
}

/// `HH[:?MM[:?SS[{.,}f+]]]` up to `end`: the four values and whether the text goes on.
fn parse_clock(bytes: &Bytes, start: usize, end: usize) -> Option<([i64; 4], bool)> {
    let mut values = [0i64; 4];
    let mut pos = start;
    let mut has_separator = true;
    for (index, slot) in values.iter_mut().take(3).enumerate() {
        *slot = bytes.digits(&mut pos, 2)?;
        let c = bytes.at(pos);
        pos += 1;
        if index == 0 {
            has_separator = c == b':';
        }
        if pos >= end {
            return Some((values, c != 0));
        } else if has_separator && c == b':' {
            continue;
        } else if c == b'.' || c == b',' {
            break;
        } else if !has_separator {
            pos -= 1;
        } else {
            return None;
        }
    }
    let remaining = end - pos;
    let count = remaining.min(6);
    let mut micros = bytes.digits(&mut pos, count)?;
    if count < 6 {
        micros *= 10i64.pow(u32::try_from(6 - count).ok()?);
    }
    values[3] = micros;
    while bytes.is_digit(pos) {
        pos += 1;
    }
    Some((values, bytes.at(pos) != 0))
}

fn parse_time(bytes: &Bytes, start: usize, end: usize) -> Option<ParsedTime> {
    let mut zone = start;
    loop {
        let c = bytes.at(zone);
        if c == b'Z' || c == b'+' || c == b'-' {
            break;
        }
        zone += 1;
        if zone >= end {
            break;
        }
    }
    let (values, more) = parse_clock(bytes, start, zone)?;
    let mut time = ParsedTime {
        hour: values[0],
        minute: values[1],
        second: values[2],
        microsecond: values[3],
        offset: None,
    };
    if zone == end {
        return (!more).then_some(time);
    }
    if bytes.at(zone) == b'Z' {
        if bytes.at(zone + 1) != 0 {
            return None;
        }
        time.offset = Some((0, 0));
        return Some(time);
    }
    let sign = if bytes.at(zone) == b'-' { -1 } else { 1 };
    let (offset, more) = parse_clock(bytes, zone + 1, end)?;
    if more {
        return None;
    }
    time.offset = Some((
        sign * (offset[0] * 3600 + offset[1] * 60 + offset[2]),
        sign * offset[3],
    ));
    Some(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Option<String> {
        fromisoformat(text).map(|parsed| match parsed.offset_micros {
            None => parsed.datetime.to_string(),
            Some(offset) => format!("{} {offset}", parsed.datetime),
        })
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(parsed("2026-08-01").as_deref(), Some("2026-08-01T00:00:00"));
        assert_eq!(parsed("20260801").as_deref(), Some("2026-08-01T00:00:00"));
        assert_eq!(parsed("2026-W31").as_deref(), Some("2026-07-27T00:00:00"));
        assert_eq!(parsed("2026W316").as_deref(), Some("2026-08-01T00:00:00"));
        assert_eq!(
            parsed("2026-W31-6T10").as_deref(),
            Some("2026-08-01T10:00:00")
        );
        assert_eq!(
            parsed("2026-08-01 10:30:00.25+02:00").as_deref(),
            Some("2026-08-01T10:30:00.25 7200000000")
        );
        assert_eq!(
            parsed("2026-08-01T103000,1234567-0130").as_deref(),
            Some("2026-08-01T10:30:00.123456 -5400000000")
        );
        assert_eq!(
            parsed("2026-08-01T00:00+00:00:00.5").as_deref(),
            Some("2026-08-01T00:00:00 0")
        );
        assert_eq!(
            parsed("2026-08-01T00:00-00:00:01.5").as_deref(),
            Some("2026-08-01T00:00:00 -1500000")
        );
    }

    #[test]
    fn refused() {
        for text in [
            "",
            "2026",
            "2026-8-1",
            "2026-08-32",
            "2026-02-29",
            "0000-01-01",
            "2026-08-01T",
            "2026-08-01T24:00",
            "2026-08-01T10:60",
            "2026-08-01T1",
            "2026-08-01T10:00:",
            "2026-08-01T10:00+24:00",
            "2026-08-01T10:00+1",
            "2026-08-01T10:00:00.",
            "2025-W53",
            "2026-W00",
            "2026-W01-8",
            "2026-08-01T10:00 ",
            "2026/08/01",
            "2026-0801",
            "202608-01",
        ] {
            assert_eq!(parsed(text), None, "{text:?}");
        }
    }
}
