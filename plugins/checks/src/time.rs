//! Dates and instants as the reference handles them: Python's `datetime.fromisoformat` and
//! `date.fromisoformat` ([`parse_datetime`], [`parse_date`]), `isoformat()` of dates, naive and
//! aware datetimes ([`iso_date`], [`iso_datetime`]), and the offset of a column's time zone
//! ([`Zone`]).

use jiff::tz::TimeZone;

/// Microseconds per second.
pub const US_PER_SECOND: i64 = 1_000_000;
/// Microseconds per day.
pub const US_PER_DAY: i64 = 86_400 * US_PER_SECOND;

/// `(year, month, day)` of a day counted from 1970-01-01 (proleptic Gregorian).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days from 1970-01-01 to a civil date.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `date.isoformat()` of a day counted from 1970-01-01: `2024-01-07`.
pub fn iso_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `HH:MM:SS[.ffffff]` of microseconds into a day (Python's `time.isoformat()`).
pub fn iso_time(us_of_day: i64) -> String {
    let seconds = us_of_day.div_euclid(US_PER_SECOND);
    let micros = us_of_day.rem_euclid(US_PER_SECOND);
    let (h, mi, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if micros == 0 {
        format!("{h:02}:{mi:02}:{s:02}")
    } else {
        format!("{h:02}:{mi:02}:{s:02}.{micros:06}")
    }
}

/// Python's `+HH:MM[:SS]` of a UTC offset in seconds.
fn iso_offset(offset: i32) -> String {
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.unsigned_abs();
    let (h, m, s) = (abs / 3600, abs / 60 % 60, abs % 60);
    if s == 0 {
        format!("{sign}{h:02}:{m:02}")
    } else {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    }
}

/// `datetime.isoformat()` of an instant in microseconds since the epoch: naive
/// (`2024-01-01T00:54:38`) when `offset` is `None`, else shown at that UTC offset in seconds
/// (`2024-01-07T23:52:09+00:00`).
pub fn iso_datetime(epoch_us: i64, offset: Option<i32>) -> String {
    let local = epoch_us.saturating_add(i64::from(offset.unwrap_or(0)) * US_PER_SECOND);
    let days = local.div_euclid(US_PER_DAY);
    let text = format!(
        "{}T{}",
        iso_date(days),
        iso_time(local.rem_euclid(US_PER_DAY))
    );
    match offset {
        None => text,
        Some(offset) => text + &iso_offset(offset),
    }
}

/// Whether Python can represent the instant as a `datetime` (years 1 to 9999).
pub fn in_python_range(epoch_us: i64) -> bool {
    // 0001-01-01 and 10000-01-01.
    (-62_135_596_800 * US_PER_SECOND..253_402_300_800 * US_PER_SECOND).contains(&epoch_us)
}

/// A column's time zone: UTC, a fixed offset or a named zone of the bundled database.
#[derive(Clone, Debug)]
pub enum Zone {
    /// A fixed offset in seconds (`UTC` is 0).
    Fixed(i32),
    /// A named zone.
    Named(TimeZone),
}

impl Zone {
    /// The zone an Arrow timestamp's `tz` names; `None` when it is unknown.
    pub fn parse(tz: &str) -> Option<Zone> {
        let text = tz.trim();
        if let Some(offset) = parse_offset(text) {
            return Some(Zone::Fixed(offset));
        }
        if text.eq_ignore_ascii_case("utc") || text == "Z" {
            return Some(Zone::Fixed(0));
        }
        TimeZone::get(text).ok().map(Zone::Named)
    }

    /// The UTC offset in seconds at an instant.
    pub fn offset_at(&self, epoch_us: i64) -> i32 {
        match self {
            Zone::Fixed(offset) => *offset,
            Zone::Named(zone) => jiff::Timestamp::from_microsecond(epoch_us)
                .map(|ts| zone.to_offset(ts).seconds())
                .unwrap_or(0),
        }
    }
}

/// `+HH:MM`, `-HHMM`, `+HH` as an offset in seconds.
fn parse_offset(text: &str) -> Option<i32> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if !digits.chars().all(|c| c.is_ascii_digit()) || !matches!(digits.len(), 2 | 4 | 6) {
        return None;
    }
    let part = |i: usize| digits.get(i..i + 2).and_then(|p| p.parse::<i32>().ok());
    let (h, m, s) = (part(0)?, part(2).unwrap_or(0), part(4).unwrap_or(0));
    (h < 24 && m < 60 && s < 60).then_some(sign * (h * 3600 + m * 60 + s))
}

/// A `datetime` read from text: its wall-clock time as microseconds since the epoch, and its
/// UTC offset in seconds (`None` for a naive datetime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateTime {
    /// The wall-clock time, in microseconds since 1970-01-01T00:00:00.
    pub local_us: i64,
    /// The UTC offset in seconds; `None` when naive.
    pub offset: Option<i32>,
}

impl DateTime {
    /// The instant in microseconds since the epoch, a naive value read as UTC (the reference's
    /// `_utc`).
    pub fn utc_us(&self) -> i64 {
        self.local_us - i64::from(self.offset.unwrap_or(0)) * US_PER_SECOND
    }
}

fn invalid(text: &str) -> String {
    format!("Invalid isoformat string: {}", crate::py::str_repr(text))
}

fn number(bytes: &[u8]) -> Option<i64> {
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

/// `YYYY-MM-DD` or `YYYYMMDD`: the day from the epoch and how many bytes it used.
fn date_prefix(text: &str) -> Result<(i64, usize), String> {
    let b = text.as_bytes();
    let (year, month, day, used) = if b.len() >= 10 && b[4] == b'-' && b[7] == b'-' {
        (number(&b[0..4]), number(&b[5..7]), number(&b[8..10]), 10)
    } else if b.len() >= 8 {
        (number(&b[0..4]), number(&b[4..6]), number(&b[6..8]), 8)
    } else {
        return Err(invalid(text));
    };
    let (Some(year), Some(month), Some(day)) = (year, month, day) else {
        return Err(invalid(text));
    };
    if year < 1 {
        return Err(format!("year {year} is out of range"));
    }
    if !(1..=12).contains(&month) {
        return Err("month must be in 1..12".to_owned());
    }
    let (month, day) = (month as u32, day as u32);
    if day < 1 || day > days_in_month(year, month) {
        return Err("day is out of range for month".to_owned());
    }
    Ok((days_from_civil(year, month, day), used))
}

/// Python's `date.fromisoformat(text.strip())`, falling back to
/// `datetime.fromisoformat(text).date()` (the reference's `_to_date`): days since the epoch.
///
/// # Errors
///
/// Python's message (`Invalid isoformat string: '...'`).
pub fn parse_date(text: &str) -> Result<i64, String> {
    let text = text.trim();
    match date_prefix(text) {
        Ok((days, used)) if used == text.len() => Ok(days),
        _ => parse_datetime(text).map(|dt| dt.local_us.div_euclid(US_PER_DAY)),
    }
}

/// Python's `datetime.fromisoformat(text.strip())`: a date, optionally followed by any one
/// separator and `HH[:MM[:SS[.ffffff]]]` (or `HHMMSS`), optionally followed by `Z` or a UTC
/// offset.
///
/// # Errors
///
/// Python's message (`Invalid isoformat string: '...'`, `hour must be in 0..23`...).
pub fn parse_datetime(text: &str) -> Result<DateTime, String> {
    let original = text;
    let text = text.trim();
    let (days, used) = date_prefix(text).map_err(|e| {
        if e.starts_with("Invalid") {
            invalid(original.trim())
        } else {
            e
        }
    })?;
    let rest = &text[used..];
    let mut chars = rest.chars();
    let Some(_separator) = chars.next() else {
        return Ok(DateTime {
            local_us: days * US_PER_DAY,
            offset: None,
        });
    };
    let time_text = chars.as_str();
    // The time ends where the offset starts.
    let split = time_text
        .find(['+', '-', 'Z', 'z'])
        .unwrap_or(time_text.len());
    let (clock, zone) = time_text.split_at(split);
    let clock = clock.trim_end();
    let us = parse_clock(clock).ok_or_else(|| invalid(text))??;
    let offset = if zone.is_empty() {
        None
    } else if zone.eq_ignore_ascii_case("z") {
        Some(0)
    } else {
        let (sign, body) = zone.split_at(1);
        let body: String = body.chars().filter(|c| *c != ':').collect();
        let (whole, _fraction) = body.split_once('.').unwrap_or((&body, ""));
        let b = whole.as_bytes();
        let part = |i: usize| b.get(i..i + 2).and_then(number);
        let parsed = match b.len() {
            2 => part(0).map(|h| h * 3600),
            4 => part(0).zip(part(2)).map(|(h, m)| h * 3600 + m * 60),
            6 => part(0)
                .zip(part(2))
                .zip(part(4))
                .map(|((h, m), s)| h * 3600 + m * 60 + s),
            _ => None,
        };
        let seconds = parsed.ok_or_else(|| invalid(text))?;
        if seconds >= 86_400 {
            return Err(invalid(text));
        }
        Some(if sign == "-" { -seconds } else { seconds } as i32)
    };
    Ok(DateTime {
        local_us: days * US_PER_DAY + us,
        offset,
    })
}

/// `HH[:MM[:SS[.f...]]]` or `HH[MM[SS[.f...]]]` as microseconds into the day; `None` when
/// malformed, `Some(Err)` when a field is out of range.
fn parse_clock(clock: &str) -> Option<Result<i64, String>> {
    let (whole, fraction) = match clock.find(['.', ',']) {
        Some(at) => (&clock[..at], Some(&clock[at + 1..])),
        None => (clock, None),
    };
    let b = whole.as_bytes();
    let fields: Vec<i64> = if b.contains(&b':') {
        let parts: Vec<&str> = whole.split(':').collect();
        if parts.len() > 3 || parts.iter().any(|p| p.len() != 2) {
            return None;
        }
        parts
            .iter()
            .map(|p| number(p.as_bytes()))
            .collect::<Option<_>>()?
    } else {
        if b.is_empty() || b.len() % 2 != 0 || b.len() > 6 {
            return None;
        }
        b.chunks(2).map(number).collect::<Option<_>>()?
    };
    if fraction.is_some() && fields.len() != 3 {
        return None;
    }
    let (h, m, s) = (
        fields[0],
        fields.get(1).copied().unwrap_or(0),
        fields.get(2).copied().unwrap_or(0),
    );
    let micros = match fraction {
        None => 0,
        Some(digits) => {
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let mut six: String = digits.chars().take(6).collect();
            while six.len() < 6 {
                six.push('0');
            }
            six.parse::<i64>().ok()?
        }
    };
    if h > 23 {
        return Some(Err("hour must be in 0..23".to_owned()));
    }
    if m > 59 {
        return Some(Err("minute must be in 0..59".to_owned()));
    }
    if s > 59 {
        return Some(Err("second must be in 0..59".to_owned()));
    }
    Some(Ok(((h * 60 + m) * 60 + s) * US_PER_SECOND + micros))
}

/// The current time, microseconds since the epoch (the wall clock).
pub fn now_us() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(elapsed) => i64::try_from(elapsed.as_micros()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_micros()).unwrap_or(i64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trips() {
        for text in [
            "2024-01-08T00:00:00",
            "1969-12-31T23:59:59.500000",
            "0001-01-01T00:00:00",
            "2000-02-29T12:34:56.000001",
        ] {
            let parsed = parse_datetime(text).unwrap();
            assert_eq!(iso_datetime(parsed.utc_us(), None), text);
        }
        let aware = parse_datetime("2024-01-08T01:00:00+01:00").unwrap();
        assert_eq!(
            iso_datetime(aware.utc_us(), Some(0)),
            "2024-01-08T00:00:00+00:00"
        );
        assert_eq!(parse_datetime("20240108T000000Z").unwrap().offset, Some(0));
        assert_eq!(
            parse_datetime("2024-01-08 00:00:00,5").unwrap().local_us % US_PER_SECOND,
            500_000
        );
        assert_eq!(parse_date("2024-01-08T10:00").unwrap(), 19_730);
        assert_eq!(
            parse_datetime("2024-1-8").unwrap_err(),
            "Invalid isoformat string: '2024-1-8'"
        );
        assert_eq!(
            parse_datetime("2024-01-08T24:00").unwrap_err(),
            "hour must be in 0..23"
        );
        assert_eq!(iso_datetime(0, Some(-5400)), "1969-12-31T22:30:00-01:30");
        let paris = Zone::parse("Europe/Paris").unwrap();
        assert_eq!(paris.offset_at(0), 3600);
    }
}
