//! Dates and instants as the Python tool handles them: Python's `datetime.fromisoformat` and
//! `date.fromisoformat` ([`parse_datetime`], [`parse_date`]), `isoformat()` of dates, naive and
//! aware datetimes ([`iso_date`], [`iso_datetime`]), and the offset of a column's time zone
//! ([`Zone`]).

use jiff::tz::TimeZone;
// Python's ISO readers live with the check parameters, which read `freshness`'s `now` with them.
pub use ldp_check_params::iso::{DateTime, US_PER_DAY, US_PER_SECOND, parse_date, parse_datetime};

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
