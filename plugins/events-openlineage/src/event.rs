//! The ldp events the sink is given, read as the Python tool's `RunEvent.from_dict` reads them
//! (only what the lineage needs: type, run id, attempt, time and payload).

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::Offset;
use ldp_plugin_sdk::PluginError;
use serde_json::{Map, Value};

use crate::json::{py_int, py_str, truthy};

/// One ldp event.
#[derive(Debug, Clone, PartialEq)]
pub struct LdpEvent {
    /// `run.started`, `run.finished`, ...
    pub event_type: String,
    /// The run id.
    pub run_id: String,
    /// The attempt.
    pub attempt: i64,
    /// When it happened (UTC, microseconds).
    pub ts: Timestamp,
    /// The payload.
    pub payload: Map<String, Value>,
}

fn invalid(message: String) -> PluginError {
    PluginError::data(format!("not a run event: {message}"))
}

impl LdpEvent {
    /// Reads the JSON text of one event envelope.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| invalid(format!("not JSON: {e}")))?;
        let Value::Object(data) = value else {
            return Err(invalid("a run event must be an object".into()));
        };
        let missing: Vec<&str> = ["event_id", "type", "ts", "run_id"]
            .into_iter()
            .filter(|key| !data.contains_key(*key))
            .collect();
        if !missing.is_empty() {
            return Err(invalid(format!("run event is missing {missing:?}")));
        }
        let field = |key: &str| data.get(key).unwrap_or(&Value::Null);
        let event_type = py_str(field("type"));
        if event_type.is_empty() {
            return Err(invalid("event type must be a non-empty string".into()));
        }
        let attempt = if truthy(field("attempt")) {
            py_int(field("attempt"))
                .ok_or_else(|| invalid(format!("attempt is not a number: {}", field("attempt"))))?
        } else {
            1
        };
        let ts = parse_ts(field("ts"))
            .ok_or_else(|| invalid(format!("ts is no ISO-8601 time: {}", field("ts"))))?;
        let payload = match field("payload") {
            Value::Object(map) => map.clone(),
            Value::String(text) if !text.is_empty() => match serde_json::from_str(text) {
                Ok(Value::Object(map)) => map,
                _ => return Err(invalid("payload is not a JSON object".into())),
            },
            other if !truthy(other) => Map::new(),
            _ => return Err(invalid("payload must be an object".into())),
        };
        Ok(Self {
            event_type,
            run_id: py_str(field("run_id")),
            attempt,
            ts,
            payload,
        })
    }
}

fn parse_ts(value: &Value) -> Option<Timestamp> {
    let micros = |ts: Timestamp| Timestamp::from_microsecond(ts.as_microsecond()).ok();
    match value {
        Value::String(text) => {
            let text = text.trim().replace('Z', "+00:00");
            if let Ok(ts) = text.parse::<Timestamp>() {
                return micros(ts);
            }
            let naive = text.parse::<DateTime>().ok()?;
            Offset::UTC.to_timestamp(naive).ok().and_then(micros)
        }
        Value::Number(number) => {
            let value = (number.as_f64()? * 1_000.0).round();
            (value.is_finite() && value.abs() < 9.0e18)
                .then(|| Timestamp::from_microsecond(value as i64).ok())
                .flatten()
        }
        _ => None,
    }
}

/// Python's `isoformat(timespec="milliseconds")` of a UTC time: `2026-12-02T14:25:30.175+00:00`.
pub fn event_time(ts: Timestamp) -> String {
    let dt = Offset::UTC.to_datetime(ts);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}+00:00",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second(),
        dt.subsec_nanosecond() / 1_000_000
    )
}
