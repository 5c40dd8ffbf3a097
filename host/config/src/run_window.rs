//! The window of one run: the half-open interval `[start, end)` of UTC instants that a
//! run is responsible for, given on the command line as `--window START/END` or a shortcut.
//! (The `metadata.window` declaration of a config is [`crate::WindowSpec`].)
//!
//! * `START/END` (exactly one `/`): each side, trimmed, is an ISO-8601 date or datetime as
//!   Python 3.11's `datetime.fromisoformat` reads it, after `Z`/`z` became `+00:00`. A naive
//!   value is UTC, **even when the config has a time zone** (as in the Python tool:
//!   `docs/compatibility.md#naive-window-bounds-are-utc`); a date is midnight UTC. The end must
//!   be after the start.
//! * `yesterday`, `last-week` (Monday to Monday; on a Monday the week that ended at that
//!   midnight) and `last-month` are counted in the config's time zone from the local date of
//!   `now`. Their bounds are local midnights; a midnight a clock change skips reads as the
//!   moment of the change and a repeated one as its first occurrence, so a day across a clock
//!   change is 23 or 25 hours long.
//!
//! [`format_instant`] writes an instant as UTC with a `Z` (`2026-08-01T00:00:00Z`, microseconds
//! only when not zero), the form keys and plans use.
//!
//! Limits: a bound past `9999-12-30T22:00:00Z` (the last hours Python can hold, which a
//! [`Timestamp`] cannot) is refused as out of range, as is one Python cannot convert to UTC
//! (where the Python tool crashes with `OverflowError`).

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp, ToSpan};
use serde_json::Value;

use crate::error::ConfigError;
use crate::isoformat::fromisoformat;
use crate::python::py_strip;
use crate::repr::{repr, repr_list, repr_str};

/// The window shortcuts.
pub const SHORTCUTS: [&str; 3] = ["yesterday", "last-week", "last-month"];

/// Whether a text is a window shortcut (trimmed, written exactly).
pub fn is_shortcut(text: &str) -> bool {
    SHORTCUTS.contains(&py_strip(text))
}

/// The window of one run: `[start, end)`, UTC, at microsecond precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    /// The first instant of the window.
    pub start: Timestamp,
    /// The first instant after the window.
    pub end: Timestamp,
}

impl Window {
    /// A window from its bounds.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Window`] when `end` is not after `start`: `window end
    /// 2026-08-01T00:00:00+00:00 must be after its start 2026-08-02T00:00:00+00:00`.
    pub fn new(start: Timestamp, end: Timestamp) -> Result<Window, ConfigError> {
        if end <= start {
            return Err(window_error(format!(
                "window end {} must be after its start {}",
                isoformat_utc(end),
                isoformat_utc(start)
            )));
        }
        Ok(Window { start, end })
    }

    /// Reads `--window`: a shortcut counted in `time_zone` from `now`, or `START/END`.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Window`] with the Python tool's messages, e.g. `window '2026-08-01' must
    /// be an ISO-8601 interval 'START/END', or one of yesterday, last-week, last-month` or
    /// `window start 'x' is not an ISO-8601 date or datetime`.
    pub fn parse(text: &str, time_zone: &TimeZone, now: Timestamp) -> Result<Window, ConfigError> {
        if is_shortcut(text) {
            return Window::shortcut(text, time_zone, now);
        }
        let parts: Vec<&str> = text.split('/').collect();
        let [start, end] = parts[..] else {
            return Err(window_error(format!(
                "window {} must be an ISO-8601 interval 'START/END', or one of {}",
                repr_str(text),
                SHORTCUTS.join(", ")
            )));
        };
        Window::new(bound(start, "start")?, bound(end, "end")?)
    }

    /// Reads a window given as JSON, as the Python tool's API accepts it: `null` (no window), a
    /// string (as [`Window::parse`]), `[start, end]` or `{"start": …, "end": …}` with ISO-8601
    /// strings.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Window`] with the Python tool's messages.
    pub fn from_json(
        value: &Value,
        time_zone: &TimeZone,
        now: Timestamp,
    ) -> Result<Option<Window>, ConfigError> {
        let (start, end) = match value {
            Value::Null => return Ok(None),
            Value::String(text) => return Window::parse(text, time_zone, now).map(Some),
            Value::Object(map) => {
                let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
                keys.sort_unstable();
                if keys != ["end", "start"] {
                    return Err(window_error(format!(
                        "window must be {{'start', 'end'}}, got keys {}",
                        repr_list(&keys)
                    )));
                }
                (&map["start"], &map["end"])
            }
            Value::Array(items) if items.len() == 2 => (&items[0], &items[1]),
            other => {
                return Err(window_error(format!(
                    "window must be 'START/END', a (start, end) pair or {{'start', 'end'}}, got {}",
                    repr(other)
                )));
            }
        };
        let bound_of = |value: &Value, what: &str| match value {
            Value::String(text) if !py_strip(text).is_empty() => bound(text, what),
            other => Err(window_error(format!(
                "window {what} must be a datetime, a date or an ISO-8601 string, got {}",
                repr(other)
            ))),
        };
        Window::new(bound_of(start, "start")?, bound_of(end, "end")?).map(Some)
    }

    /// A shortcut window (`yesterday`, `last-week`, `last-month`), counted in `time_zone` from
    /// the local date of `now`.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Window`] when `name` is not a shortcut, or the window falls outside the
    /// years 1–9999.
    pub fn shortcut(
        name: &str,
        time_zone: &TimeZone,
        now: Timestamp,
    ) -> Result<Window, ConfigError> {
        let name = py_strip(name);
        let today = now.to_zoned(time_zone.clone()).date();
        let out_of_range = || window_error(format!("window {} is out of range", repr_str(name)));
        let (first, end) = match name {
            "yesterday" => (today.yesterday().map_err(|_| out_of_range())?, today),
            "last-week" => {
                let back = i64::from(today.weekday().to_monday_zero_offset());
                let end = today.checked_sub(back.days()).map_err(|_| out_of_range())?;
                (end.checked_sub(7.days()).map_err(|_| out_of_range())?, end)
            }
            "last-month" => {
                let end = today.first_of_month();
                let first = end
                    .yesterday()
                    .map_err(|_| out_of_range())?
                    .first_of_month();
                (first, end)
            }
            _ => {
                return Err(window_error(format!(
                    "unknown window {}; the shortcuts are {}",
                    repr_str(name),
                    SHORTCUTS.join(", ")
                )));
            }
        };
        let start = local_midnight(first, time_zone).ok_or_else(out_of_range)?;
        let end = local_midnight(end, time_zone).ok_or_else(out_of_range)?;
        Window::new(start, end)
    }

    /// `START/END` with both bounds as [`format_instant`] writes them (the `window` of a plan).
    pub fn label(&self) -> String {
        format!(
            "{}/{}",
            format_instant(self.start),
            format_instant(self.end)
        )
    }
}

impl Window {
    /// `START/END` as the Python tool's snapshot property `ldp.logical-window` writes it
    /// (`2026-08-01T00:00:00+00:00/2026-08-02T00:00:00+00:00`).
    pub fn property(&self) -> String {
        format!("{}/{}", isoformat_utc(self.start), isoformat_utc(self.end))
    }
}

impl std::fmt::Display for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label())
    }
}

/// An instant as ISO-8601 UTC with a `Z`: seconds always, microseconds (6 digits) only when
/// not zero (`2026-08-01T00:00:00Z`, `2026-08-01T00:00:00.250000Z`). Nanoseconds are cut.
pub fn format_instant(instant: Timestamp) -> String {
    format!("{}Z", civil_utc(instant))
}

/// Python's `isoformat()` of a UTC datetime: like [`format_instant`] with `+00:00`
/// (`2026-08-01T00:00:00+00:00`), as snapshot properties and run events write instants.
pub fn isoformat_utc(instant: Timestamp) -> String {
    format!("{}+00:00", civil_utc(instant))
}

fn civil_utc(instant: Timestamp) -> String {
    let civil = instant.to_zoned(TimeZone::UTC).datetime();
    let text = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        civil.year(),
        civil.month(),
        civil.day(),
        civil.hour(),
        civil.minute(),
        civil.second()
    );
    let micros = civil.subsec_nanosecond() / 1000;
    if micros == 0 {
        text
    } else {
        format!("{text}.{micros:06}")
    }
}

/// One side of `START/END`: an ISO-8601 date (midnight UTC) or datetime (`Z` is `+00:00`, a
/// naive one is UTC), trimmed.
fn bound(text: &str, what: &str) -> Result<Timestamp, ConfigError> {
    let trimmed = py_strip(text);
    if trimmed.is_empty() {
        return Err(window_error(format!(
            "window {what} must be a datetime, a date or an ISO-8601 string, got {}",
            repr_str(text)
        )));
    }
    let cleaned = trimmed.replace(['Z', 'z'], "+00:00");
    let Some(parsed) = fromisoformat(&cleaned) else {
        return Err(window_error(format!(
            "window {what} {} is not an ISO-8601 date or datetime",
            repr_str(text)
        )));
    };
    let offset = SignedDuration::from_micros(parsed.offset_micros.unwrap_or(0));
    parsed
        .datetime
        .to_zoned(TimeZone::UTC)
        .ok()
        .and_then(|naive| naive.timestamp().checked_sub(offset).ok())
        .filter(|instant| in_python_range(*instant))
        .ok_or_else(|| window_error(format!("window {what} {} is out of range", repr_str(text))))
}

/// Whether an instant is a UTC datetime Python can hold (years 1–9999).
fn in_python_range(instant: Timestamp) -> bool {
    (1..=9999).contains(&instant.to_zoned(TimeZone::UTC).year())
}

/// Local midnight of a date, a skipped one read with the offset before the change and a
/// repeated one as its first occurrence (Python's `fold=0`).
fn local_midnight(date: Date, time_zone: &TimeZone) -> Option<Timestamp> {
    let midnight: DateTime = date.to_datetime(jiff::civil::Time::midnight());
    let instant = midnight.to_zoned(time_zone.clone()).ok()?.timestamp();
    in_python_range(instant).then_some(instant)
}

fn window_error(message: String) -> ConfigError {
    ConfigError::Window { message }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().expect("timestamp")
    }

    fn label(text: &str) -> Result<String, String> {
        Window::parse(text, &TimeZone::UTC, at("2026-08-05T01:30:00Z"))
            .map(|window| window.label())
            .map_err(|error| error.to_string())
    }

    #[test]
    fn intervals() {
        let day = Ok("2026-08-01T00:00:00Z/2026-08-02T00:00:00Z".to_owned());
        assert_eq!(label("2026-08-01/2026-08-02"), day);
        assert_eq!(label(" 2026-08-01T00:00:00Z / 20260802 "), day);
        assert_eq!(label("2026-08-01T02:00:00+02:00/2026-08-02T00:00z"), day);
        assert_eq!(
            label("2026-08-01T00:00:00.25/2026-08-01T00:00:01").as_deref(),
            Ok("2026-08-01T00:00:00.250000Z/2026-08-01T00:00:01Z")
        );
    }

    #[test]
    fn messages() {
        assert_eq!(
            label("2026-08-02/2026-08-01"),
            Err("window end 2026-08-01T00:00:00+00:00 must be after its start 2026-08-02T00:00:00+00:00".to_owned())
        );
        assert_eq!(
            label("2026-08-01"),
            Err("window '2026-08-01' must be an ISO-8601 interval 'START/END', or one of yesterday, last-week, last-month".to_owned())
        );
        assert_eq!(
            label("a/b/c"),
            Err("window 'a/b/c' must be an ISO-8601 interval 'START/END', or one of yesterday, last-week, last-month".to_owned())
        );
        assert_eq!(
            label(" /2026-08-01"),
            Err(
                "window start must be a datetime, a date or an ISO-8601 string, got ' '".to_owned()
            )
        );
        assert_eq!(
            label("2026-08-01/tomorrow "),
            Err("window end 'tomorrow ' is not an ISO-8601 date or datetime".to_owned())
        );
    }

    #[test]
    fn json_forms() {
        let now = at("2026-08-05T01:30:00Z");
        let read = |value: Value| {
            Window::from_json(&value, &TimeZone::UTC, now)
                .map(|window| window.map(|window| window.label()))
                .map_err(|error| error.to_string())
        };
        let day = Ok(Some("2026-08-01T00:00:00Z/2026-08-02T00:00:00Z".to_owned()));
        assert_eq!(read(serde_json::json!(null)), Ok(None));
        assert_eq!(read(serde_json::json!(["2026-08-01", "2026-08-02"])), day);
        assert_eq!(
            read(serde_json::json!({"end": "2026-08-02", "start": "2026-08-01"})),
            day
        );
        assert_eq!(
            read(serde_json::json!({"start": "2026-08-01"})),
            Err("window must be {'start', 'end'}, got keys ['start']".to_owned())
        );
        assert_eq!(
            read(serde_json::json!(["2026-08-01", 5])),
            Err("window end must be a datetime, a date or an ISO-8601 string, got 5".to_owned())
        );
        assert_eq!(
            read(serde_json::json!([1])),
            Err(
                "window must be 'START/END', a (start, end) pair or {'start', 'end'}, got [1]"
                    .to_owned()
            )
        );
    }

    #[test]
    fn instants() {
        assert_eq!(
            format_instant(at("2026-08-01T00:00:00Z")),
            "2026-08-01T00:00:00Z"
        );
        assert_eq!(
            format_instant(at("2026-08-01T00:00:00.000001999Z")),
            "2026-08-01T00:00:00.000001Z"
        );
        assert_eq!(
            format_instant(at("0999-01-01T00:00:00Z")),
            "0999-01-01T00:00:00Z"
        );
    }
}
