//! Instants as the Python tool writes and reads them: Python's `datetime.isoformat()` of a UTC
//! datetime (`2026-12-02T14:25:30.175234+00:00`, microseconds only when non-zero), its
//! `timespec="milliseconds"` form (OpenLineage's `eventTime`), the naive forms `ldp runs` prints,
//! and the lenient reading of an event's `ts`.

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::Offset;
use serde_json::Value;

/// The instant at microsecond precision (Python's `datetime` has no finer one).
pub fn truncate_to_micros(ts: Timestamp) -> Timestamp {
    Timestamp::from_microsecond(ts.as_microsecond()).unwrap_or(ts)
}

/// The current instant, at microsecond precision.
pub fn now_micros() -> Timestamp {
    truncate_to_micros(Timestamp::now())
}

fn civil(ts: Timestamp) -> DateTime {
    Offset::UTC.to_datetime(ts)
}

fn date_time(dt: DateTime, separator: char) -> String {
    format!(
        "{:04}-{:02}-{:02}{separator}{:02}:{:02}:{:02}",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second()
    )
}

fn micros(dt: DateTime) -> i32 {
    dt.subsec_nanosecond() / 1_000
}

/// Python's `isoformat()` of the instant in UTC: `2026-12-02T14:25:30.175234+00:00`, or
/// `2026-08-01T00:00:00+00:00` when the microseconds are 0 (ISO+00).
pub fn isoformat(ts: Timestamp) -> String {
    let dt = civil(ts);
    let mut text = date_time(dt, 'T');
    let micros = micros(dt);
    if micros != 0 {
        text.push_str(&format!(".{micros:06}"));
    }
    text.push_str("+00:00");
    text
}

/// Python's `isoformat(timespec="milliseconds")` of the instant in UTC:
/// `2026-12-02T14:25:30.175+00:00` (cut, not rounded, to milliseconds; always present).
pub fn isoformat_millis(ts: Timestamp) -> String {
    let dt = civil(ts);
    format!("{}.{:03}+00:00", date_time(dt, 'T'), micros(dt) / 1_000)
}

/// The naive UTC time to the second, with a space: `2026-12-02 14:25:30` (`ldp runs`'
/// `started_utc`).
pub fn naive_seconds(ts: Timestamp) -> String {
    date_time(civil(ts), ' ')
}

/// The naive UTC time to the millisecond, with a space: `2026-12-02 14:25:30.175` (`ldp runs
/// --events`' `ts_utc`).
pub fn naive_millis(ts: Timestamp) -> String {
    let dt = civil(ts);
    format!("{}.{:03}", date_time(dt, ' '), micros(dt) / 1_000)
}

/// Reads an event's `ts` as the Python tool does: an ISO-8601 text (`Z` read as `+00:00`; without
/// an offset it is UTC) or a number of milliseconds since the Unix epoch. `None` when it is
/// neither.
pub fn parse_ts(value: &Value) -> Option<Timestamp> {
    match value {
        Value::String(text) => parse_ts_text(text),
        Value::Number(number) => {
            let millis = number.as_f64()?;
            let micros = (millis * 1_000.0).round();
            if !micros.is_finite() || micros.abs() > 9.0e18 {
                return None;
            }
            Timestamp::from_microsecond(micros as i64).ok()
        }
        _ => None,
    }
}

/// Reads an ISO-8601 text as [`parse_ts`] does.
pub fn parse_ts_text(text: &str) -> Option<Timestamp> {
    let text = text.trim().replace('Z', "+00:00");
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Some(truncate_to_micros(ts));
    }
    let naive = text.parse::<DateTime>().ok()?;
    Offset::UTC.to_timestamp(naive).ok().map(truncate_to_micros)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> Timestamp {
        text.parse().expect("an instant")
    }

    #[test]
    fn isoformat_drops_zero_micros() {
        assert_eq!(
            isoformat(ts("2026-08-01T00:00:00Z")),
            "2026-08-01T00:00:00+00:00"
        );
        assert_eq!(
            isoformat(ts("2026-12-02T14:25:30.175234Z")),
            "2026-12-02T14:25:30.175234+00:00"
        );
        assert_eq!(
            isoformat(ts("2026-12-02T14:25:30.1Z")),
            "2026-12-02T14:25:30.100000+00:00"
        );
    }

    #[test]
    fn millis_are_cut() {
        let t = ts("2026-12-02T14:25:30.175934Z");
        assert_eq!(isoformat_millis(t), "2026-12-02T14:25:30.175+00:00");
        assert_eq!(naive_millis(t), "2026-12-02 14:25:30.175");
        assert_eq!(naive_seconds(t), "2026-12-02 14:25:30");
        assert_eq!(
            isoformat_millis(ts("2026-12-02T14:25:30Z")),
            "2026-12-02T14:25:30.000+00:00"
        );
    }

    #[test]
    fn ts_reads_leniently() {
        let expected = ts("2026-12-02T14:25:30.175234Z");
        for text in [
            "2026-12-02T14:25:30.175234+00:00",
            "2026-12-02T14:25:30.175234Z",
            "2026-12-02T14:25:30.175234",
            "2026-12-02T15:25:30.175234+01:00",
        ] {
            assert_eq!(parse_ts(&Value::from(text)), Some(expected), "{text}");
        }
        assert_eq!(
            parse_ts(&serde_json::json!(1_000)),
            Some(ts("1970-01-01T00:00:01Z"))
        );
        assert_eq!(parse_ts(&Value::from("yesterday")), None);
        assert_eq!(parse_ts(&Value::Null), None);
    }
}
