//! Python's `datetime.strftime` as the Python tool runs it (CPython on glibc, `C` locale), for the
//! window placeholders of a source path (`{window_start:%Y-%m-%d}`).
//!
//! Python fills `%z` (`+0200`, `+053000` with seconds), `%Z` (the zone's abbreviation,
//! `CEST`, `UTC`) and `%f` (6-digit microseconds) itself and hands the rest to glibc. Supported
//! here: `%a %A %b %B %h %c %C %d %D %e %F %g %G %H %I %j %k %l %m %M %n %p %P %r %R %S %t %T
//! %u %U %V %w %W %x %X %y %Y %z %Z %f %%`, the glibc flags `-` (no padding), `_` (spaces), `0`
//! (zeros) on numbers and `^` (upper case) on names and composites. Years (`%Y %G %C`) are not
//! padded (`999`), as glibc does. A conversion glibc does not know is copied as written
//! (`%Q`, `%-Q`), as glibc does. Refused with an error, rather than guessed: `%s` (it depends on
//! the machine's time zone), field widths, the `E`/`O` modifiers, flags on `%z %Z %f %n %t %%
//! %P` and the other flag uses glibc gives odd results for.

use jiff::Zoned;

use crate::error::ConfigError;

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Formats a zoned time with a Python strftime format (see the module docs).
///
/// # Errors
///
/// [`ConfigError::Spec`] for a directive this port does not reproduce (`%s`, widths, `E`/`O`,
/// flags where glibc's result is not reproduced here).
pub fn py_strftime(time: &Zoned, format: &str) -> Result<String, ConfigError> {
    let mut out = String::new();
    let mut chars = format.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flag = None;
        while let Some(&(_, next)) = chars.peek() {
            if matches!(next, '-' | '_' | '0' | '^' | '#') && flag.is_none() {
                flag = Some(next);
                chars.next();
            } else {
                break;
            }
        }
        let Some((index, conversion)) = chars.next() else {
            out.push_str(&format[start..]);
            break;
        };
        let sequence = &format[start..index + conversion.len_utf8()];
        let unsupported = || ConfigError::Spec {
            message: format!(
                "the strftime directive {sequence:?} in a window placeholder is not supported by this ldp; use %Y, %m, %d, %H, %M, %S and the like"
            ),
        };
        if conversion.is_ascii_digit() || matches!(conversion, 'E' | 'O' | '-' | '_' | '^' | '#') {
            return Err(unsupported());
        }
        match directive(time, conversion, flag) {
            Directive::Text(text) => out.push_str(&text),
            Directive::Unknown => out.push_str(sequence),
            Directive::Unsupported => return Err(unsupported()),
        }
    }
    Ok(out)
}

enum Directive {
    Text(String),
    Unknown,
    Unsupported,
}

/// A number as glibc pads it: `width` digits with `pad` (`0` or ` `) unless a flag says
/// otherwise.
fn number(value: i64, width: usize, pad: char, flag: Option<char>) -> Directive {
    let digits = value.unsigned_abs().to_string();
    let sign = if value < 0 { "-" } else { "" };
    let pad = match flag {
        None | Some('^' | '#') => pad,
        Some('0') => '0',
        Some('_') => ' ',
        Some('-') => return Directive::Text(format!("{sign}{digits}")),
        Some(_) => return Directive::Unsupported,
    };
    let fill: String =
        std::iter::repeat_n(pad, width.saturating_sub(digits.len() + sign.len())).collect();
    Directive::Text(if pad == '0' {
        format!("{sign}{fill}{digits}")
    } else {
        format!("{fill}{sign}{digits}")
    })
}

/// A name: as it is, or upper-cased with `^`.
fn name(text: &str, flag: Option<char>) -> Directive {
    match flag {
        None => Directive::Text(text.to_owned()),
        Some('^') => Directive::Text(text.to_uppercase()),
        Some(_) => Directive::Unsupported,
    }
}

/// A directive that expands to others (`%D`, `%T`, ...): as it is, or upper-cased with `^`.
fn composite(time: &Zoned, format: &str, flag: Option<char>) -> Directive {
    match (py_strftime(time, format), flag) {
        (Ok(text), None) => Directive::Text(text),
        (Ok(text), Some('^')) => Directive::Text(text.to_uppercase()),
        _ => Directive::Unsupported,
    }
}

fn directive(time: &Zoned, conversion: char, flag: Option<char>) -> Directive {
    let weekday = usize::try_from(time.weekday().to_sunday_zero_offset()).unwrap_or(0);
    let month = usize::try_from(time.month() - 1).unwrap_or(0);
    let year = i64::from(time.year());
    let hour = i64::from(time.hour());
    let hour12 = if hour % 12 == 0 { 12 } else { hour % 12 };
    let yday = i64::from(time.day_of_year()) - 1;
    let wday = weekday as i64;
    let iso = time.date().iso_week_date();
    match conversion {
        'a' => name(&DAYS[weekday][..3], flag),
        'A' => name(DAYS[weekday], flag),
        'b' | 'h' => name(&MONTHS[month][..3], flag),
        'B' => name(MONTHS[month], flag),
        'p' => name(if hour < 12 { "AM" } else { "PM" }, flag),
        'P' if flag.is_none() => name(if hour < 12 { "am" } else { "pm" }, flag),
        'c' => composite(time, "%a %b %e %H:%M:%S %Y", flag),
        'D' | 'x' => composite(time, "%m/%d/%y", flag),
        'F' => composite(time, "%Y-%m-%d", flag),
        'r' => composite(time, "%I:%M:%S %p", flag),
        'R' => composite(time, "%H:%M", flag),
        'T' | 'X' => composite(time, "%H:%M:%S", flag),
        'C' => number(year.div_euclid(100), 1, '0', flag),
        'd' => number(i64::from(time.day()), 2, '0', flag),
        'e' => number(i64::from(time.day()), 2, ' ', flag),
        'g' => number(i64::from(iso.year()).rem_euclid(100), 2, '0', flag),
        'G' => number(i64::from(iso.year()), 1, '0', flag),
        'H' => number(hour, 2, '0', flag),
        'I' => number(hour12, 2, '0', flag),
        'j' => number(yday + 1, 3, '0', flag),
        'k' => number(hour, 2, ' ', flag),
        'l' => number(hour12, 2, ' ', flag),
        'm' => number(i64::from(time.month()), 2, '0', flag),
        'M' => number(i64::from(time.minute()), 2, '0', flag),
        'S' => number(i64::from(time.second()), 2, '0', flag),
        'u' => number(
            i64::from(time.weekday().to_monday_one_offset()),
            1,
            '0',
            flag,
        ),
        'U' => number((yday + 7 - wday) / 7, 2, '0', flag),
        'V' => number(i64::from(iso.week()), 2, '0', flag),
        'w' => number(wday, 1, '0', flag),
        'W' => number((yday + 7 - (wday + 6) % 7) / 7, 2, '0', flag),
        'y' => number(year.rem_euclid(100), 2, '0', flag),
        'Y' => number(year, 1, '0', flag),
        'n' if flag.is_none() => Directive::Text("\n".to_owned()),
        't' if flag.is_none() => Directive::Text("\t".to_owned()),
        '%' if flag.is_none() => Directive::Text("%".to_owned()),
        'z' if flag.is_none() => Directive::Text(utc_offset(time)),
        'Z' if flag.is_none() => Directive::Text(abbreviation(time)),
        'f' if flag.is_none() => Directive::Text(format!("{:06}", time.subsec_nanosecond() / 1000)),
        'n' | 't' | '%' | 'z' | 'Z' | 'f' | 'P' | 's' => Directive::Unsupported,
        _ => Directive::Unknown,
    }
}

/// Python's `%z`: `+HHMM`, with `SS` when the offset has seconds.
fn utc_offset(time: &Zoned) -> String {
    let seconds = time.offset().seconds();
    let sign = if seconds < 0 { '-' } else { '+' };
    let seconds = seconds.unsigned_abs();
    let (hours, minutes, rest) = (seconds / 3600, seconds % 3600 / 60, seconds % 60);
    if rest == 0 {
        format!("{sign}{hours:02}{minutes:02}")
    } else {
        format!("{sign}{hours:02}{minutes:02}{rest:02}")
    }
}

/// Python's `%Z`: the zone's abbreviation at that instant.
fn abbreviation(time: &Zoned) -> String {
    time.time_zone()
        .to_offset_info(time.timestamp())
        .abbreviation()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::tz::TimeZone;

    fn paris(text: &str) -> Zoned {
        let zone = jiff::tz::db().get("Europe/Paris").expect("zone");
        text.parse::<jiff::Timestamp>()
            .expect("instant")
            .to_zoned(zone)
    }

    fn format(time: &Zoned, format: &str) -> String {
        py_strftime(time, format).expect("format")
    }

    #[test]
    fn directives() {
        let time = paris("2026-07-31T22:00:00.25Z");
        assert_eq!(format(&time, "%Y-%m-%d"), "2026-08-01");
        assert_eq!(
            format(
                &time,
                "%a %A %b %B %h %C %d %e %j %u %w %y %H %I %M %S %p %f"
            ),
            "Sat Saturday Aug August Aug 20 01  1 213 6 6 26 00 12 00 00 AM 250000"
        );
        assert_eq!(
            format(&time, "%c|%D|%F|%T|%R|%r|%x|%X"),
            "Sat Aug  1 00:00:00 2026|08/01/26|2026-08-01|00:00:00|00:00|12:00:00 AM|08/01/26|00:00:00"
        );
        assert_eq!(
            format(&time, "%z %Z %G %g %V %U %W"),
            "+0200 CEST 2026 26 31 30 30"
        );
        assert_eq!(
            format(&time, "%-d %_m %0e %-j %^a %^B %k %l"),
            "1  8 01 213 SAT AUGUST  0 12"
        );
        assert_eq!(format(&time, "100%% %Q %-Q x%"), "100% %Q %-Q x%");
        let utc = "2026-01-04T15:04:05Z"
            .parse::<jiff::Timestamp>()
            .expect("t")
            .to_zoned(TimeZone::UTC);
        assert_eq!(
            format(&utc, "%z %Z %U %W %V %G %P"),
            "+0000 UTC 01 00 01 2026 pm"
        );
    }

    #[test]
    fn refused() {
        let time = paris("2026-07-31T22:00:00Z");
        for directive in ["%s", "%10Y", "%Ey", "%Od", "%#a", "%-z", "%^Z", "%-F"] {
            assert!(py_strftime(&time, directive).is_err(), "{directive}");
        }
    }
}
