//! `metadata.window`: `"none"`, or `{size: day|hour|15m, column?, timezone? (UTC)}`; any other
//! key is an error.

use jiff::tz::TimeZone;
use serde_json::Value;

use crate::problems::{Problems, get, join, non_blank};
use crate::python::py_strip;
use crate::repr::{repr, repr_list, type_name};

/// The keys a window object may have.
pub const WINDOW_KEYS: [&str; 3] = ["size", "column", "timezone"];

/// The size of a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowSize {
    /// `day`: local calendar days.
    Day,
    /// `hour`.
    Hour,
    /// `15m`: quarter hours.
    FifteenMinutes,
}

impl WindowSize {
    /// The sizes in the Python tool's order.
    pub const ALL: [WindowSize; 3] = [
        WindowSize::Day,
        WindowSize::Hour,
        WindowSize::FifteenMinutes,
    ];

    /// `day`, `hour` or `15m`.
    pub fn as_str(self) -> &'static str {
        match self {
            WindowSize::Day => "day",
            WindowSize::Hour => "hour",
            WindowSize::FifteenMinutes => "15m",
        }
    }

    /// Parses a size, written exactly.
    pub fn parse(text: &str) -> Option<WindowSize> {
        WindowSize::ALL
            .into_iter()
            .find(|size| size.as_str() == text)
    }
}

impl std::fmt::Display for WindowSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A window definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowSpec {
    /// `size`.
    pub size: WindowSize,
    /// `column`: the date or timestamp column that selects the rows of a window.
    pub column: Option<String>,
    /// `timezone` as written: an IANA name (default `UTC`); days are counted in it.
    pub timezone: String,
}

impl WindowSpec {
    /// The time zone (the name trimmed, as the Python tool reads it); `UTC` if the name is
    /// unknown (it was checked when the config was read).
    pub fn time_zone(&self) -> TimeZone {
        lookup_time_zone(py_strip(&self.timezone)).unwrap_or(TimeZone::UTC)
    }
}

/// Looks up an IANA time zone in the bundled database. Names are matched exactly, as Python's
/// `zoneinfo` does on a case-sensitive file system (`europe/paris` is not a zone).
pub fn lookup_time_zone(name: &str) -> Option<TimeZone> {
    let zone = jiff::tz::db().get(name).ok()?;
    (zone.iana_name() == Some(name)).then_some(zone)
}

/// Checks `metadata.window` as the Python tool's `window_problems` does; `Some(None)` for absent
/// or `"none"`, `None` when invalid.
pub(crate) fn check_window(
    problems: &mut Problems,
    value: Option<&Value>,
) -> Option<Option<WindowSpec>> {
    let at = "metadata.window";
    let value = match value {
        None | Some(Value::Null) => return Some(None),
        Some(Value::String(text)) if text == "none" => return Some(None),
        Some(value) => value,
    };
    let Some(window) = value.as_object() else {
        let got = match value {
            Value::String(_) => repr(value),
            other => type_name(other).to_owned(),
        };
        problems.add(
            at,
            format!("must be 'none' or an object with a 'size', got {got}"),
        );
        return None;
    };
    let before = problems.len();
    problems.reject_unknown_keys(at, window, &WINDOW_KEYS);
    let sizes: Vec<&str> = WindowSize::ALL.iter().map(|size| size.as_str()).collect();
    let size = match get(window, "size") {
        None => {
            problems.add(
                &join(at, "size"),
                format!("is required: one of {}", repr_list(&sizes)),
            );
            None
        }
        Some(raw) => {
            let size = raw.as_str().and_then(WindowSize::parse);
            if size.is_none() {
                problems.add(
                    &join(at, "size"),
                    format!("must be one of {}, got {}", repr_list(&sizes), repr(raw)),
                );
            }
            size
        }
    };
    let column = match get(window, "column") {
        None => None,
        Some(raw) => match non_blank(raw) {
            Some(column) => Some(column.to_owned()),
            None => {
                problems.add(
                    &join(at, "column"),
                    format!("must be a column name, got {}", repr(raw)),
                );
                None
            }
        },
    };
    let timezone = match get(window, "timezone") {
        None => Some("UTC".to_owned()),
        Some(raw) => match non_blank(raw) {
            None => {
                problems.add(
                    &join(at, "timezone"),
                    format!(
                        "time zone must be an IANA name such as 'Europe/Paris' or 'UTC', got {}",
                        repr(raw)
                    ),
                );
                None
            }
            Some(name) if name != "UTC" && lookup_time_zone(py_strip(name)).is_none() => {
                problems.add(
                    &join(at, "timezone"),
                    format!(
                        "unknown time zone {}; use an IANA name such as 'Europe/Paris' or 'UTC' (on Windows, pip install tzdata)",
                        repr(raw)
                    ),
                );
                None
            }
            Some(name) => Some(name.to_owned()),
        },
    };
    if problems.len() > before {
        return None;
    }
    Some(Some(WindowSpec {
        size: size?,
        column,
        timezone: timezone?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn window(value: Value) -> Result<Option<WindowSpec>, Vec<String>> {
        let mut problems = Problems::default();
        check_window(&mut problems, Some(&value)).ok_or_else(|| problems.into_vec())
    }

    #[test]
    fn windows() {
        assert_eq!(window(json!("none")), Ok(None));
        let spec = window(json!({"size": "day", "column": "ts", "timezone": "Europe/Paris"}))
            .unwrap()
            .unwrap();
        assert_eq!(spec.size, WindowSize::Day);
        assert_eq!(spec.time_zone().iana_name(), Some("Europe/Paris"));
        assert_eq!(
            window(json!({"size": "15m"})).unwrap().unwrap().timezone,
            "UTC"
        );
        assert_eq!(
            window(json!({"size": "week", "timezone": "europe/paris", "x": 1})).unwrap_err(),
            [
                "metadata.window: has unknown keys ['x']; allowed: ['size', 'column', 'timezone']",
                "metadata.window.size: must be one of ['day', 'hour', '15m'], got 'week'",
                "metadata.window.timezone: unknown time zone 'europe/paris'; use an IANA name such as 'Europe/Paris' or 'UTC' (on Windows, pip install tzdata)",
            ]
        );
        assert_eq!(
            window(json!("daily")).unwrap_err(),
            ["metadata.window: must be 'none' or an object with a 'size', got 'daily'"]
        );
        assert_eq!(
            window(json!(5)).unwrap_err(),
            ["metadata.window: must be 'none' or an object with a 'size', got int"]
        );
        assert_eq!(
            window(json!({"column": " ", "timezone": ""})).unwrap_err(),
            [
                "metadata.window.size: is required: one of ['day', 'hour', '15m']",
                "metadata.window.column: must be a column name, got ' '",
                "metadata.window.timezone: time zone must be an IANA name such as 'Europe/Paris' or 'UTC', got ''",
            ]
        );
        let padded = window(json!({"size": "day", "timezone": " Europe/Paris "}))
            .unwrap()
            .unwrap();
        assert_eq!(padded.timezone, " Europe/Paris ");
        assert_eq!(padded.time_zone().iana_name(), Some("Europe/Paris"));
    }
}
