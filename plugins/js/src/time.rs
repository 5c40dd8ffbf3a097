//! Dates and timestamps as the ISO-8601 strings a script sees and returns.
//!
//! A `date32` is `YYYY-MM-DD`; a timestamp is `YYYY-MM-DDTHH:MM:SS`, with a fraction when it is
//! not zero (3 digits for `ms`, 6 for `us`, 9 for `ns`, like Python's `isoformat`) and a `Z` when
//! the column has a time zone. Going back, a timestamp string may use `T` or a space, leave out
//! the seconds or the time, carry 1 to 9 fraction digits and end with `Z` or an offset
//! (`+02:00`, `+0200`, `+02`), which is converted to UTC. Without an offset the time is read as
//! UTC for a column with a time zone, and as the wall time for a column without one.

use ldp_plugin_sdk::arrow_schema::TimeUnit;

const SECS_PER_DAY: i64 = 86_400;

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // Both are small and positive by construction.
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

fn push_digits(out: &mut String, value: u32, width: usize) {
    let mut buf = [b'0'; 10];
    let mut v = value;
    for slot in buf[..width].iter_mut().rev() {
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
    }
    // Only ASCII digits were written.
    out.extend(buf[..width].iter().map(|&b| char::from(b)));
}

fn push_date(out: &mut String, days: i64) {
    let (year, month, day) = civil_from_days(days);
    if (0..=9999).contains(&year) {
        push_digits(out, year as u32, 4);
    } else {
        // ISO-8601 expanded years: a sign and at least four digits.
        out.push_str(&format!("{year:+05}"));
    }
    out.push('-');
    push_digits(out, month, 2);
    out.push('-');
    push_digits(out, day, 2);
}

/// Appends a `date32` value as `YYYY-MM-DD`.
pub fn format_date(out: &mut String, days: i32) {
    push_date(out, i64::from(days));
}

/// Units of `unit` in one second.
pub fn per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// Appends a timestamp as `YYYY-MM-DDTHH:MM:SS[.fff|.ffffff|.fffffffff]`, then `Z` if `utc`.
pub fn format_timestamp(out: &mut String, value: i64, unit: TimeUnit, utc: bool) {
    let per_sec = per_second(unit);
    let secs = value.div_euclid(per_sec);
    let frac = value.rem_euclid(per_sec);
    let days = secs.div_euclid(SECS_PER_DAY);
    let sod = secs.rem_euclid(SECS_PER_DAY) as u32;
    push_date(out, days);
    out.push('T');
    push_digits(out, sod / 3600, 2);
    out.push(':');
    push_digits(out, sod / 60 % 60, 2);
    out.push(':');
    push_digits(out, sod % 60, 2);
    if frac != 0 {
        out.push('.');
        let width = match unit {
            TimeUnit::Second => 0,
            TimeUnit::Millisecond => 3,
            TimeUnit::Microsecond => 6,
            TimeUnit::Nanosecond => 9,
        };
        push_digits(out, frac as u32, width);
    }
    if utc {
        out.push('Z');
    }
}

/// A date-time read from text: days since the epoch, seconds of the day, nanoseconds, and the
/// UTC offset in seconds if the text had one.
struct DateTime {
    days: i64,
    secs_of_day: i64,
    nanos: i64,
    offset_secs: Option<i64>,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }
    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    /// Exactly `n` digits.
    fn digits(&mut self, n: usize) -> Option<u32> {
        let mut value = 0u32;
        for _ in 0..n {
            let b = self.peek().filter(u8::is_ascii_digit)?;
            value = value * 10 + u32::from(b - b'0');
            self.pos += 1;
        }
        Some(value)
    }
    fn done(&self) -> bool {
        self.pos == self.bytes.len()
    }
}

const NOT_ISO: &str = "not an ISO-8601 date-time";

fn parse_date_part(c: &mut Cursor<'_>) -> Result<i64, String> {
    let negative = c.eat(b'-');
    let positive = !negative && c.eat(b'+');
    let year = if negative || positive {
        // An expanded year: 4 to 6 digits after the sign.
        let start = c.pos;
        while c.peek().is_some_and(|b| b.is_ascii_digit()) && c.pos - start < 6 {
            c.pos += 1;
        }
        if c.pos - start < 4 {
            return Err(NOT_ISO.to_owned());
        }
        let text = std::str::from_utf8(&c.bytes[start..c.pos]).unwrap_or("0");
        let year: i64 = text.parse().unwrap_or(0);
        if negative { -year } else { year }
    } else {
        i64::from(c.digits(4).ok_or_else(|| NOT_ISO.to_owned())?)
    };
    let (Some(month), Some(day)) = (
        c.eat(b'-').then(|| c.digits(2)).flatten(),
        c.eat(b'-').then(|| c.digits(2)).flatten(),
    ) else {
        return Err(NOT_ISO.to_owned());
    };
    if !(1..=12).contains(&month) {
        return Err(format!("month {month} is not 01 to 12"));
    }
    if day == 0 || day > days_in_month(year, month) {
        return Err(format!("day {day} does not exist in {year:04}-{month:02}"));
    }
    Ok(days_from_civil(year, month, day))
}

fn parse_datetime(text: &str) -> Result<DateTime, String> {
    let mut c = Cursor {
        bytes: text.trim().as_bytes(),
        pos: 0,
    };
    let days = parse_date_part(&mut c)?;
    let mut dt = DateTime {
        days,
        secs_of_day: 0,
        nanos: 0,
        offset_secs: None,
    };
    if c.done() {
        return Ok(dt);
    }
    if !(c.eat(b'T') || c.eat(b't') || c.eat(b' ')) {
        return Err(NOT_ISO.to_owned());
    }
    let bad = || NOT_ISO.to_owned();
    let hour = c.digits(2).ok_or_else(bad)?;
    if !c.eat(b':') {
        return Err(bad());
    }
    let minute = c.digits(2).ok_or_else(bad)?;
    let mut second = 0;
    if c.eat(b':') {
        second = c.digits(2).ok_or_else(bad)?;
        if c.eat(b'.') || c.eat(b',') {
            let start = c.pos;
            let mut nanos = 0i64;
            while let Some(b) = c.peek().filter(u8::is_ascii_digit) {
                if c.pos - start < 9 {
                    nanos = nanos * 10 + i64::from(b - b'0');
                }
                c.pos += 1;
            }
            let digits = c.pos - start;
            if digits == 0 {
                return Err(bad());
            }
            for _ in digits..9 {
                nanos *= 10;
            }
            dt.nanos = nanos;
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!(
            "time {hour:02}:{minute:02}:{second:02} is out of range"
        ));
    }
    dt.secs_of_day = i64::from(hour * 3600 + minute * 60 + second);
    if c.eat(b'Z') || c.eat(b'z') {
        dt.offset_secs = Some(0);
    } else if let Some(sign) = c.peek().filter(|b| *b == b'+' || *b == b'-') {
        c.pos += 1;
        let hours = c.digits(2).ok_or_else(bad)?;
        let colon = c.eat(b':');
        let minutes = if colon || !c.done() {
            c.digits(2).ok_or_else(bad)?
        } else {
            0
        };
        if hours > 23 || minutes > 59 {
            return Err(format!("offset {hours:02}:{minutes:02} is out of range"));
        }
        let offset = i64::from(hours * 3600 + minutes * 60);
        dt.offset_secs = Some(if sign == b'-' { -offset } else { offset });
    }
    if !c.done() {
        return Err(bad());
    }
    Ok(dt)
}

/// Reads a timestamp string into a value of `unit` (UTC when the text has an offset). A fraction
/// finer than `unit` is truncated.
pub fn parse_timestamp(text: &str, unit: TimeUnit) -> Result<i64, String> {
    let dt = parse_datetime(text)?;
    let per_sec = i128::from(per_second(unit));
    let secs = i128::from(dt.days) * i128::from(SECS_PER_DAY) + i128::from(dt.secs_of_day)
        - i128::from(dt.offset_secs.unwrap_or(0));
    let value = secs * per_sec + i128::from(dt.nanos) * per_sec / 1_000_000_000;
    i64::try_from(value).map_err(|_| "out of the range of the column's unit".to_owned())
}

/// Reads a `YYYY-MM-DD` string into days since the epoch.
pub fn parse_date(text: &str) -> Result<i32, String> {
    let mut c = Cursor {
        bytes: text.trim().as_bytes(),
        pos: 0,
    };
    let days = parse_date_part(&mut c).map_err(|e| e.replace(NOT_ISO, "not a date YYYY-MM-DD"))?;
    if !c.done() {
        return Err(
            "not a date YYYY-MM-DD (to keep the date of a timestamp string, take \
             .slice(0, 10))"
                .to_owned(),
        );
    }
    i32::try_from(days).map_err(|_| "out of the range of date32".to_owned())
}

/// A JavaScript time value (milliseconds since the epoch, from a `Date`) in `unit`.
pub fn from_epoch_millis(millis: f64, unit: TimeUnit) -> Option<i64> {
    if !millis.is_finite() {
        return None;
    }
    let millis = millis.floor();
    let value = match unit {
        TimeUnit::Second => (millis / 1000.0).floor(),
        TimeUnit::Millisecond => millis,
        TimeUnit::Microsecond => millis * 1e3,
        TimeUnit::Nanosecond => millis * 1e6,
    };
    // Beyond ±2^63 the cast saturates; refuse instead.
    (value.abs() < 9.2e18).then_some(value as i64)
}

/// A JavaScript time value as days since the epoch (the UTC date).
pub fn days_from_epoch_millis(millis: f64) -> Option<i32> {
    if !millis.is_finite() {
        return None;
    }
    let days = (millis / 86_400_000.0).floor();
    (days.abs() < 2e9).then_some(days as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(value: i64, unit: TimeUnit, utc: bool) -> String {
        let mut s = String::new();
        format_timestamp(&mut s, value, unit, utc);
        s
    }

    #[test]
    fn civil_round_trip() {
        for days in [
            -800_000, -719_468, -1, 0, 1, 59, 60, 10_957, 19_723, 2_932_896,
        ] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
    }

    #[test]
    fn formats() {
        assert_eq!(ts(0, TimeUnit::Microsecond, false), "1970-01-01T00:00:00");
        assert_eq!(
            ts(1_704_070_478_000_000, TimeUnit::Microsecond, true),
            "2024-01-01T00:54:38Z"
        );
        assert_eq!(
            ts(1_500, TimeUnit::Millisecond, false),
            "1970-01-01T00:00:01.500"
        );
        assert_eq!(
            ts(-1, TimeUnit::Microsecond, false),
            "1969-12-31T23:59:59.999999"
        );
        assert_eq!(
            ts(5, TimeUnit::Nanosecond, false),
            "1970-01-01T00:00:00.000000005"
        );
        let mut d = String::new();
        format_date(&mut d, 19_723);
        assert_eq!(d, "2024-01-01");
    }

    #[test]
    fn parses() {
        let us = TimeUnit::Microsecond;
        assert_eq!(
            parse_timestamp("2024-01-01T00:54:38", us),
            Ok(1_704_070_478_000_000)
        );
        assert_eq!(
            parse_timestamp("2024-01-01 00:54:38Z", us),
            Ok(1_704_070_478_000_000)
        );
        assert_eq!(
            parse_timestamp("2024-01-01T01:54:38.000+01:00", us),
            Ok(1_704_070_478_000_000)
        );
        assert_eq!(
            parse_timestamp("2024-01-01T00:54:38.5", us),
            Ok(1_704_070_478_500_000)
        );
        assert_eq!(
            parse_timestamp("2024-01-01T00:54", TimeUnit::Second),
            Ok(1_704_070_440)
        );
        assert_eq!(
            parse_timestamp("2024-01-01", TimeUnit::Second),
            Ok(1_704_067_200)
        );
        assert_eq!(parse_timestamp("1970-01-01T00:00:00.0000019", us), Ok(1));
        assert_eq!(parse_timestamp("1969-12-31T23:59:59.999999", us), Ok(-1));
        assert!(parse_timestamp("2024-02-30T00:00:00", us).is_err());
        assert!(parse_timestamp("2024-01-01T24:00:00", us).is_err());
        assert!(parse_timestamp("01/02/2024", us).is_err());
        assert!(parse_timestamp("2024-01-01T00:00:00 UTC", us).is_err());
        assert_eq!(parse_date("2024-01-01"), Ok(19_723));
        assert!(
            parse_date("2024-01-01T00:00:00")
                .unwrap_err()
                .contains("slice(0, 10)")
        );
        assert!(parse_date("2024-13-01").unwrap_err().contains("month 13"));
    }

    #[test]
    fn round_trips() {
        for unit in [
            TimeUnit::Second,
            TimeUnit::Millisecond,
            TimeUnit::Microsecond,
            TimeUnit::Nanosecond,
        ] {
            let now = 1_704_070_478 * per_second(unit) + per_second(unit) / 7;
            for value in [0, 1, -1, now, -now, -86_400 * per_second(unit) - 1] {
                for utc in [false, true] {
                    assert_eq!(parse_timestamp(&ts(value, unit, utc), unit), Ok(value));
                }
            }
        }
        assert_eq!(
            from_epoch_millis(1_500.0, TimeUnit::Microsecond),
            Some(1_500_000)
        );
        assert_eq!(from_epoch_millis(-1.0, TimeUnit::Second), Some(-1));
        assert_eq!(from_epoch_millis(f64::NAN, TimeUnit::Second), None);
        assert_eq!(days_from_epoch_millis(-1.0), Some(-1));
    }
}
