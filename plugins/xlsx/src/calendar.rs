//! Excel's dates and times, read as openpyxl (the Python tool's reader) reads them, and printed as
//! Python prints them.
//!
//! A date cell holds a serial number: days since an epoch (1899-12-30, or 1904-01-01 in a
//! workbook that says so), with the time of day as the fraction. openpyxl rounds the fraction to
//! the millisecond, reads a serial from 0 to 1 as a time of day, and adds a day to serials below
//! 60 in the 1900 system (Excel's 1900-02-29 that never was). A date outside the years 1 to 9999
//! becomes the text `#VALUE!`, as openpyxl makes it.

/// Microseconds in a day.
pub const MICROS_PER_DAY: i64 = 86_400_000_000;
/// 1899-12-30, the 1900 system's epoch, in days since 1970-01-01.
const EPOCH_1900: i64 = -25_569;
/// 1904-01-01, the 1904 system's epoch, in days since 1970-01-01.
const EPOCH_1904: i64 = -24_107;
/// 0001-01-01 in days since 1970-01-01.
const MIN_DAY: i64 = -719_162;
/// 9999-12-31 in days since 1970-01-01.
const MAX_DAY: i64 = 2_932_896;

/// What a date-formatted serial number is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serial {
    /// A date and time: microseconds since 1970-01-01 00:00, no time zone.
    DateTime(i64),
    /// A time of day: microseconds since midnight.
    Time(i64),
    /// Outside the years 1 to 9999.
    OutOfRange,
}

/// Reads a date-formatted serial number as openpyxl's `from_excel` does.
pub fn from_serial(value: f64, is_1904: bool) -> Serial {
    if !value.is_finite() {
        return Serial::OutOfRange;
    }
    let day = value.floor();
    let fraction = value - day;
    // Python's round() rounds half to even.
    let millis = (fraction * 86_400.0 * 1000.0).round_ties_even() as i64;
    if (0.0..1.0).contains(&value) && millis < 86_400_000 {
        return Serial::Time(millis * 1000);
    }
    let shift = if !is_1904 && value > 0.0 && value < 60.0 {
        1.0
    } else {
        0.0
    };
    let epoch = if is_1904 { EPOCH_1904 } else { EPOCH_1900 };
    let days = epoch as f64 + day + shift;
    if !(MIN_DAY as f64..=MAX_DAY as f64).contains(&days) {
        return Serial::OutOfRange;
    }
    let micros = days as i64 * MICROS_PER_DAY + millis * 1000;
    if micros >= (MAX_DAY + 1) * MICROS_PER_DAY {
        return Serial::OutOfRange;
    }
    Serial::DateTime(micros)
}

/// A duration-formatted serial (`[h]:mm:ss`) as openpyxl reads it: days, rounded to the
/// microsecond and then to the millisecond. In microseconds; `None` if it does not fit.
pub fn duration_from_serial(value: f64) -> Option<i64> {
    let micros = (value * MICROS_PER_DAY as f64).round_ties_even();
    if !micros.is_finite() || micros.abs() >= 9.0e18 {
        return None;
    }
    let micros = micros as i64;
    let (seconds, sub) = (micros.div_euclid(1_000_000), micros.rem_euclid(1_000_000));
    Some(seconds * 1_000_000 + round_half_even(sub, 1000))
}

/// `value` rounded to a multiple of `step`, half to even (Python's `round(n, -3)` on an int).
fn round_half_even(value: i64, step: i64) -> i64 {
    let (quotient, remainder) = (value.div_euclid(step), value.rem_euclid(step));
    let up = remainder * 2 > step || (remainder * 2 == step && quotient % 2 != 0);
    (quotient + i64::from(up)) * step
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let month = i64::from(month);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day counted from 1970-01-01: (year, month, day).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Python's `date.isoformat()`: `2024-01-31`.
pub fn date_text(days: i64) -> String {
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Python's `time.isoformat()`: `13:05:00`, or `13:05:00.250000` with a fraction.
pub fn time_text(micros: i64) -> String {
    let seconds = micros.div_euclid(1_000_000);
    let sub = micros.rem_euclid(1_000_000);
    let text = format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if sub == 0 {
        text
    } else {
        format!("{text}.{sub:06}")
    }
}

/// Python's `datetime.isoformat(sep=" ")`: `2024-01-31 13:05:00`.
pub fn datetime_text(micros: i64) -> String {
    let days = micros.div_euclid(MICROS_PER_DAY);
    let rest = micros.rem_euclid(MICROS_PER_DAY);
    format!("{} {}", date_text(days), time_text(rest))
}

/// Python's `str(timedelta)`: `1:30:00`, `2 days, 0:00:00`, `-1 day, 23:00:00.500000`.
pub fn duration_text(micros: i64) -> String {
    let days = micros.div_euclid(MICROS_PER_DAY);
    let rest = micros.rem_euclid(MICROS_PER_DAY);
    let seconds = rest / 1_000_000;
    let sub = rest % 1_000_000;
    let mut text = String::new();
    if days != 0 {
        let plural = if days.abs() == 1 { "" } else { "s" };
        text.push_str(&format!("{days} day{plural}, "));
    }
    text.push_str(&format!(
        "{}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    ));
    if sub != 0 {
        text.push_str(&format!(".{sub:06}"));
    }
    text
}

/// The value of an ISO 8601 cell (`t="d"`), as openpyxl's `from_ISO8601` reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Iso {
    /// A date without a time: days since 1970-01-01.
    Date(i64),
    /// A date and time: microseconds since 1970-01-01 00:00.
    DateTime(i64),
    /// A time of day: microseconds since midnight.
    Time(i64),
    /// A duration (`PT1H30M`): microseconds.
    Duration(i64),
}

/// Parses an ISO 8601 cell as openpyxl does: `YYYY-MM-DD`, `HH:MM[:SS[.fff]]`, both joined by
/// `T`, or a duration `PT#H#M#S`; what follows a match is ignored. `None` if it is none of them
/// or names a date or time that does not exist.
pub fn parse_iso(text: &str) -> Option<Iso> {
    let b = text.as_bytes();
    let digits = |at: usize, n: usize| -> Option<u32> {
        let part = b.get(at..at + n)?;
        part.iter().all(u8::is_ascii_digit).then(|| {
            part.iter()
                .fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'))
        })
    };
    let mut at = 0;
    let date = match (digits(0, 4), b.get(4), digits(5, 2), b.get(7), digits(8, 2)) {
        (Some(y), Some(b'-'), Some(m), Some(b'-'), Some(d)) => {
            at = 10;
            Some((y, m, d))
        }
        _ => None,
    };
    if b.get(at) == Some(&b'T') {
        at += 1;
    }
    let time = match (digits(at, 2), b.get(at + 2), digits(at + 3, 2)) {
        (Some(h), Some(b':'), Some(mi)) => {
            let mut micros = 0;
            let mut second = 0;
            if let (Some(b':'), Some(s)) = (b.get(at + 5), digits(at + 6, 2)) {
                second = s;
                if b.get(at + 8) == Some(&b'.') {
                    let n = (1..=3)
                        .take_while(|i| digits(at + 8 + i, 1).is_some())
                        .count();
                    if n > 0 {
                        let fraction = digits(at + 9, n)?;
                        micros = fraction * 10u32.pow(6 - n as u32);
                    }
                }
            }
            Some((h, mi, second, micros))
        }
        _ => None,
    };
    let time_micros = |(h, mi, s, us): (u32, u32, u32, u32)| -> Option<i64> {
        (h < 24 && mi < 60 && s < 60).then(|| {
            ((i64::from(h) * 60 + i64::from(mi)) * 60 + i64::from(s)) * 1_000_000 + i64::from(us)
        })
    };
    let days = |(y, m, d): (u32, u32, u32)| -> Option<i64> {
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let last = match m {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        (y >= 1 && (1..=last).contains(&d)).then(|| days_from_civil(i64::from(y), m, d))
    };
    match (date, time) {
        (Some(date), None) => days(date).map(Iso::Date),
        (None, Some(time)) => time_micros(time).map(Iso::Time),
        (Some(date), Some(time)) => Some(Iso::DateTime(
            days(date)? * MICROS_PER_DAY + time_micros(time)?,
        )),
        (None, None) => parse_iso_duration(text).map(Iso::Duration),
    }
}

/// `PT#H#M#S` (seconds with up to 3 decimals), at least one part; microseconds.
fn parse_iso_duration(text: &str) -> Option<i64> {
    let mut rest = text.strip_prefix("PT")?;
    let leading_digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let mut micros: i64 = 0;
    let mut any = false;
    for (unit, scale) in [(b'H', 3_600_000_000_i64), (b'M', 60_000_000)] {
        let n = leading_digits(rest);
        if n > 0 && rest.as_bytes().get(n) == Some(&unit) {
            let part = rest[..n].parse::<i64>().ok()?.checked_mul(scale)?;
            micros = micros.checked_add(part)?;
            rest = &rest[n + 1..];
            any = true;
        }
    }
    let n = leading_digits(rest);
    if n > 0 {
        let whole = rest[..n].parse::<i64>().ok()?.checked_mul(1_000_000)?;
        let after = &rest[n..];
        let (fraction, used) = match after.strip_prefix('.') {
            Some(tail) => match leading_digits(tail) {
                k @ 1..=3 => (
                    tail[..k].parse::<i64>().ok()? * 10_i64.pow(6 - k as u32),
                    k + 1,
                ),
                _ => (0, 0),
            },
            None => (0, 0),
        };
        if after.as_bytes().get(used) == Some(&b'S') {
            micros = micros.checked_add(whole + fraction)?;
            any = true;
        }
    }
    any.then_some(micros)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = MICROS_PER_DAY;

    #[test]
    fn serials_in_the_1900_system() {
        // 2024-01-31 is serial 45322; 12:00 is half a day.
        let jan_31 = days_from_civil(2024, 1, 31);
        assert_eq!(from_serial(45322.0, false), Serial::DateTime(jan_31 * DAY));
        assert_eq!(
            from_serial(45322.5, false),
            Serial::DateTime(jan_31 * DAY + DAY / 2)
        );
        // Serials below 60 are shifted by Excel's phantom 1900-02-29.
        assert_eq!(
            from_serial(1.0, false),
            Serial::DateTime(days_from_civil(1900, 1, 1) * DAY)
        );
        assert_eq!(
            from_serial(61.0, false),
            Serial::DateTime(days_from_civil(1900, 3, 1) * DAY)
        );
        // From 0 to 1: a time of day, rounded to the millisecond.
        assert_eq!(from_serial(0.25, false), Serial::Time(6 * 3600 * 1_000_000));
        assert_eq!(from_serial(0.0, false), Serial::Time(0));
        assert_eq!(from_serial(1e12, false), Serial::OutOfRange);
        assert_eq!(from_serial(-1e9, false), Serial::OutOfRange);
        assert_eq!(from_serial(f64::NAN, false), Serial::OutOfRange);
    }

    #[test]
    fn serials_in_the_1904_system() {
        assert_eq!(
            from_serial(1.0, true),
            Serial::DateTime(days_from_civil(1904, 1, 2) * DAY)
        );
        // 2024-01-31 is 1462 days less in the 1904 system.
        assert_eq!(
            from_serial(45322.0 - 1462.0, true),
            Serial::DateTime(days_from_civil(2024, 1, 31) * DAY)
        );
    }

    #[test]
    fn civil_round_trip() {
        for days in [-719_162, -25_569, -1, 0, 1, 19_753, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(1899, 12, 30), EPOCH_1900);
        assert_eq!(days_from_civil(1904, 1, 1), EPOCH_1904);
        assert_eq!(days_from_civil(1, 1, 1), MIN_DAY);
        assert_eq!(days_from_civil(9999, 12, 31), MAX_DAY);
    }

    #[test]
    fn texts_read_like_python() {
        let t = days_from_civil(2024, 1, 31) * DAY + (13 * 3600 + 5 * 60) * 1_000_000;
        assert_eq!(datetime_text(t), "2024-01-31 13:05:00");
        assert_eq!(datetime_text(t + 250_000), "2024-01-31 13:05:00.250000");
        assert_eq!(date_text(days_from_civil(2024, 1, 31)), "2024-01-31");
        assert_eq!(time_text(3_600_000_000), "01:00:00");
        assert_eq!(duration_text(5_400_000_000), "1:30:00");
        assert_eq!(duration_text(2 * DAY), "2 days, 0:00:00");
        assert_eq!(duration_text(DAY + 500_000), "1 day, 0:00:00.500000");
        assert_eq!(duration_text(-3_600_000_000), "-1 day, 23:00:00");
    }

    #[test]
    fn durations_round_to_the_millisecond() {
        assert_eq!(duration_from_serial(1.5), Some(DAY + DAY / 2));
        assert_eq!(duration_from_serial(1.0 / 86_400_000.0 * 1.4), Some(1000));
        assert_eq!(duration_from_serial(1e300), None);
    }

    #[test]
    fn iso_cells() {
        let d = days_from_civil(2024, 1, 31);
        assert_eq!(parse_iso("2024-01-31"), Some(Iso::Date(d)));
        assert_eq!(
            parse_iso("2024-01-31T13:05:07.5Z"),
            Some(Iso::DateTime(d * DAY + 47_107_500_000))
        );
        assert_eq!(parse_iso("13:05"), Some(Iso::Time(47_100_000_000)));
        assert_eq!(parse_iso("PT1H30M"), Some(Iso::Duration(5_400_000_000)));
        assert_eq!(parse_iso("PT1.5S"), Some(Iso::Duration(1_500_000)));
        assert_eq!(parse_iso("2024-02-30"), None);
        assert_eq!(parse_iso("25:00"), None);
        assert_eq!(parse_iso("soon"), None);
        assert_eq!(parse_iso("PT"), None);
    }
}
