//! ISO-8601 dates and datetimes as Python reads them: `datetime.fromisoformat` and
//! `date.fromisoformat` ([`parse_datetime`], [`parse_date`]). `freshness`'s `now` must read
//! with [`parse_datetime`]; the checks plugin reads `range` bounds with both.

use ldp_pyrepr::repr_str;

/// Microseconds per second.
pub const US_PER_SECOND: i64 = 1_000_000;
/// Microseconds per day.
pub const US_PER_DAY: i64 = 86_400 * US_PER_SECOND;

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
    /// The instant in microseconds since the epoch, a naive value read as UTC (the Python tool's
    /// `_utc`).
    pub fn utc_us(&self) -> i64 {
        self.local_us - i64::from(self.offset.unwrap_or(0)) * US_PER_SECOND
    }
}

fn invalid(text: &str) -> String {
    format!("Invalid isoformat string: {}", repr_str(text))
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
/// `datetime.fromisoformat(text).date()` (the Python tool's `_to_date`): days since the epoch.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_reads() {
        let aware = parse_datetime("2024-01-08T01:00:00+01:00").unwrap();
        assert_eq!((aware.offset, aware.utc_us() % US_PER_DAY), (Some(3600), 0));
        assert_eq!(parse_datetime("20240108T000000Z").unwrap().offset, Some(0));
        assert_eq!(
            parse_datetime("2024-01-08 00:00:00,5").unwrap().local_us % US_PER_SECOND,
            500_000
        );
        assert_eq!(parse_datetime("2024-01-08X10:00").unwrap().offset, None);
        assert_eq!(parse_date("2024-01-08T10:00").unwrap(), 19_730);
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(
            parse_datetime("2024-1-8").unwrap_err(),
            "Invalid isoformat string: '2024-1-8'"
        );
        assert_eq!(
            parse_datetime("2024-01-08T24:00").unwrap_err(),
            "hour must be in 0..23"
        );
        assert_eq!(
            parse_datetime("2023-02-29").unwrap_err(),
            "day is out of range for month"
        );
    }
}
