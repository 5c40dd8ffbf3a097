//! `metadata.window` (§1.2): `"none"`, or `{size: day|hour|15m, column?, timezone? (UTC)}`.

use jiff::tz::TimeZone;
use serde_json::Value;

use crate::problems::{Problems, check_string, get, join, non_blank};
use crate::repr::{repr, repr_list};

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
    /// The sizes in the reference's order.
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
    /// `timezone`: an IANA name (default `UTC`); days are counted in it.
    pub timezone: String,
}

impl WindowSpec {
    /// The time zone; `UTC` if the name is unknown (it was checked when the config was read).
    pub fn time_zone(&self) -> TimeZone {
        lookup_time_zone(&self.timezone).unwrap_or(TimeZone::UTC)
    }
}

/// Looks up an IANA time zone in the bundled database. Names are matched exactly, as Python's
/// `zoneinfo` does on a case-sensitive file system (`europe/paris` is not a zone).
pub fn lookup_time_zone(name: &str) -> Option<TimeZone> {
    let zone = jiff::tz::db().get(name).ok()?;
    (zone.iana_name() == Some(name)).then_some(zone)
}

/// Checks `metadata.window`; `Some(None)` for absent or `"none"`, `None` when invalid.
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
        problems.add(
            at,
            format!(
                "must be 'none' or an object such as {{'size': 'day'}}, got {}",
                repr(value)
            ),
        );
        return None;
    };
    let before = problems.len();
    problems.reject_unknown_keys(at, window, &WINDOW_KEYS);
    let size = match get(window, "size") {
        None => {
            problems.add(&join(at, "size"), "is required");
            None
        }
        Some(raw) => {
            let size = raw.as_str().and_then(WindowSize::parse);
            if size.is_none() {
                let sizes: Vec<&str> = WindowSize::ALL.iter().map(|size| size.as_str()).collect();
                problems.add(
                    &join(at, "size"),
                    format!("must be one of {}, got {}", repr_list(&sizes), repr(raw)),
                );
            }
            size
        }
    };
    let column = check_string(problems, window, "column", at, false);
    let timezone = match get(window, "timezone") {
        None => Some("UTC".to_owned()),
        Some(raw) => match non_blank(raw) {
            None => {
                problems.add(
                    &join(at, "timezone"),
                    format!("must be a non-empty string, got {}", repr(raw)),
                );
                None
            }
            Some(name) if lookup_time_zone(name).is_none() => {
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
            ["metadata.window: must be 'none' or an object such as {'size': 'day'}, got 'daily'"]
        );
    }
}
