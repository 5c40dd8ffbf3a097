//! `metadata.monitors` (an ldp extension): what `ldp status` checks of a table, from its
//! snapshots and its recorded runs, without reading its data.
//!
//! ```json
//! "monitors": {"freshness": {"max_age": "26h"},
//!              "volume": {"min_rows": 1, "max_rows": 100000, "max_change_pct": 50, "trailing": 7},
//!              "schema_drift": true,
//!              "failure_streak": 2}
//! ```
//!
//! - `freshness.max_age`: the newest snapshot (the last publish) is at most this old: a whole
//!   number and a unit, `s`, `m`, `h` or `d` (`90m`, `26h`, `7d`); with `freshness.column` (a
//!   timestamp or date column), the newest row is, by the column's upper bounds in the
//!   manifests;
//! - `volume`: the rows the newest snapshot added lie within `min_rows`..`max_rows`, and within
//!   `max_change_pct` percent of the median of the `trailing` snapshots before it (default 7);
//! - `schema_drift`: the newest snapshot's schema is the one of the snapshot before it (no
//!   column added, dropped or retyped);
//! - `failure_streak`: fewer than this many of the newest runs failed or were blocked in a row;
//! - `alert.webhook_env`: the environment variable holding the URL that `ldp status --alert`
//!   posts each breach and each recovery to (the URL often carries a secret, so the config names
//!   the variable, never the URL).
//!
//! Any other key is an error. Monitors change nothing a run writes, so they are left out of the
//! spec hash.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::problems::{Problems, as_number, as_whole, join};
use crate::repr::repr;

/// The keys of `metadata.monitors`.
pub const MONITOR_KEYS: [&str; 5] = [
    "freshness",
    "volume",
    "schema_drift",
    "failure_streak",
    "alert",
];
const ALERT_KEYS: [&str; 1] = ["webhook_env"];
const FRESHNESS_KEYS: [&str; 2] = ["max_age", "column"];
const VOLUME_KEYS: [&str; 4] = ["min_rows", "max_rows", "max_change_pct", "trailing"];

/// The monitors of a table.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Monitors {
    /// The newest snapshot's greatest age, in seconds.
    pub freshness_max_age_s: Option<u64>,
    /// The time column whose newest value the age is of (else the last publish).
    pub freshness_column: Option<String>,
    /// The rows a publish adds.
    pub volume: Option<Volume>,
    /// Whether a schema change of the newest snapshot is a breach.
    pub schema_drift: bool,
    /// How many failed or blocked runs in a row are a breach.
    pub failure_streak: Option<u64>,
    /// The environment variable holding the webhook URL alerts go to.
    pub webhook_env: Option<String>,
}

/// `monitors.volume`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Volume {
    /// The fewest rows a publish may add.
    pub min_rows: Option<u64>,
    /// The most rows a publish may add.
    pub max_rows: Option<u64>,
    /// The largest change against the trailing median, in percent.
    pub max_change_pct: Option<f64>,
    /// How many snapshots before the newest make the median.
    pub trailing: u64,
}

/// `90m`, `26h`, `7d` as seconds.
pub fn parse_age(text: &str) -> Option<u64> {
    let text = text.trim();
    let unit = text.chars().last()?;
    let number: u64 = text[..text.len() - unit.len_utf8()].trim().parse().ok()?;
    let scale = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        _ => return None,
    };
    number.checked_mul(scale).filter(|s| *s > 0)
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Checks `metadata.monitors`; no monitors when absent, `None` when invalid.
pub(crate) fn check_monitors(problems: &mut Problems, value: Option<&Value>) -> Option<Monitors> {
    let at = "metadata.monitors";
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Some(Monitors::default());
    };
    let Some(map) = value.as_object() else {
        problems.add(
            at,
            format!(
                "must be an object such as {{'freshness': {{'max_age': '26h'}}}}, got {}",
                repr(value)
            ),
        );
        return None;
    };
    let before = problems.len();
    problems.reject_unknown_keys(at, map, &MONITOR_KEYS);
    let mut monitors = Monitors::default();
    if let Some(freshness) = object(problems, map, "freshness", at) {
        let here = join(at, "freshness");
        problems.reject_unknown_keys(&here, freshness, &FRESHNESS_KEYS);
        match freshness.get("max_age") {
            Some(Value::String(text)) if parse_age(text).is_some() => {
                monitors.freshness_max_age_s = parse_age(text);
            }
            other => problems.add(
                &join(&here, "max_age"),
                format!(
                    "must be a whole number and a unit, s, m, h or d (e.g. '26h'), got {}",
                    other.map_or("nothing".to_string(), repr)
                ),
            ),
        }
        match freshness.get("column") {
            None | Some(Value::Null) => {}
            Some(Value::String(column)) if !column.is_empty() => {
                monitors.freshness_column = Some(column.clone());
            }
            Some(other) => problems.add(
                &join(&here, "column"),
                format!("must name a timestamp or date column, got {}", repr(other)),
            ),
        }
    }
    if let Some(volume) = object(problems, map, "volume", at) {
        monitors.volume = check_volume(problems, volume, &join(at, "volume"));
    }
    match map.get("schema_drift") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(flag)) => monitors.schema_drift = *flag,
        Some(other) => problems.add(
            &join(at, "schema_drift"),
            format!("must be true or false, got {}", repr(other)),
        ),
    }
    if let Some(alert) = object(problems, map, "alert", at) {
        let here = join(at, "alert");
        problems.reject_unknown_keys(&here, alert, &ALERT_KEYS);
        match alert.get("webhook_env") {
            Some(Value::String(name)) if is_env_name(name) => {
                monitors.webhook_env = Some(name.clone());
            }
            other => problems.add(
                &join(&here, "webhook_env"),
                format!(
                    "must name an environment variable (e.g. 'LDP_ALERT_WEBHOOK'), got {}",
                    other.map_or("nothing".to_string(), repr)
                ),
            ),
        }
    }
    if let Some(value) = map.get("failure_streak").filter(|v| !v.is_null()) {
        match as_whole(value)
            .and_then(|n| u64::try_from(n).ok())
            .filter(|n| *n >= 1)
        {
            Some(n) => monitors.failure_streak = Some(n),
            None => problems.add(
                &join(at, "failure_streak"),
                format!("must be a whole number of at least 1, got {}", repr(value)),
            ),
        }
    }
    (problems.len() == before).then_some(monitors)
}

fn object<'a>(
    problems: &mut Problems,
    map: &'a Map<String, Value>,
    key: &str,
    at: &str,
) -> Option<&'a Map<String, Value>> {
    let value = map.get(key).filter(|v| !v.is_null())?;
    let object = value.as_object();
    if object.is_none() {
        problems.add(
            &join(at, key),
            format!("must be an object, got {}", repr(value)),
        );
    }
    object
}

fn check_volume(problems: &mut Problems, map: &Map<String, Value>, at: &str) -> Option<Volume> {
    problems.reject_unknown_keys(at, map, &VOLUME_KEYS);
    let mut whole = |key: &str, least: u64| -> Option<u64> {
        let value = map.get(key).filter(|v| !v.is_null())?;
        let parsed = as_whole(value)
            .and_then(|n| u64::try_from(n).ok())
            .filter(|n| *n >= least);
        if parsed.is_none() {
            problems.add(
                &join(at, key),
                format!(
                    "must be a whole number of at least {least}, got {}",
                    repr(value)
                ),
            );
        }
        parsed
    };
    let min_rows = whole("min_rows", 0);
    let max_rows = whole("max_rows", 0);
    let trailing = whole("trailing", 1).unwrap_or(7);
    let max_change_pct = map
        .get("max_change_pct")
        .filter(|v| !v.is_null())
        .and_then(|value| {
            let parsed = as_number(value).filter(|n| n.is_finite() && *n >= 0.0);
            if parsed.is_none() {
                problems.add(
                    &join(at, "max_change_pct"),
                    format!(
                        "must be a number of percent, 0 or more, got {}",
                        repr(value)
                    ),
                );
            }
            parsed
        });
    if let (Some(min), Some(max)) = (min_rows, max_rows)
        && min > max
    {
        problems.add(at, format!("min_rows ({min}) is above max_rows ({max})"));
    }
    Some(Volume {
        min_rows,
        max_rows,
        max_change_pct,
        trailing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(value: Value) -> (Option<Monitors>, Vec<String>) {
        let mut problems = Problems::default();
        let monitors = check_monitors(&mut problems, Some(&value));
        (monitors, problems.into_vec())
    }

    #[test]
    fn every_monitor_parses() {
        let (monitors, problems) = check(json!({"freshness": {"max_age": "26h"},
            "volume": {"min_rows": 1, "max_change_pct": 50}, "schema_drift": true, "failure_streak": 2,
            "alert": {"webhook_env": "LDP_ALERT_WEBHOOK"}}));
        assert!(problems.is_empty(), "{problems:?}");
        let monitors = monitors.unwrap();
        assert_eq!(monitors.freshness_max_age_s, Some(93_600));
        assert_eq!(monitors.volume.unwrap().trailing, 7);
        assert!(monitors.schema_drift);
        assert_eq!(monitors.failure_streak, Some(2));
        assert_eq!(monitors.webhook_env.as_deref(), Some("LDP_ALERT_WEBHOOK"));
    }

    #[test]
    fn a_wrong_monitor_is_named_at_its_key() {
        let (monitors, problems) = check(json!({"freshnes": {}, "freshness": {"max_age": "1w"},
            "volume": {"min_rows": 5, "max_rows": 2}, "failure_streak": 0,
            "alert": {"webhook_env": "https://hooks.example/secret"}}));
        assert!(monitors.is_none());
        let text = problems.join("\n");
        assert!(
            text.contains("metadata.monitors.freshness.max_age: must be a whole number and a unit"),
            "{text}"
        );
        assert!(
            text.contains("metadata.monitors.volume: min_rows (5) is above max_rows (2)"),
            "{text}"
        );
        assert!(
            text.contains("metadata.monitors.failure_streak: must be a whole number of at least 1"),
            "{text}"
        );
        assert!(text.contains("freshnes"), "{text}");
        assert!(
            text.contains("metadata.monitors.alert.webhook_env: must name an environment variable"),
            "{text}"
        );
    }
}
