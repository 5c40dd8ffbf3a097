//! The event envelope and its JSONL line.
//!
//! An event is `{event_id, type, schema_version, ts, run_id, attempt, seq, table_uuid,
//! payload}`. Its line is the canonical JSON of that object (sorted keys, `,`/`:` separators,
//! raw UTF-8, Python's float repr), as the Python tool's `RunEvent.to_json` writes it. Reading
//! lines back is lenient, as the Python tool's `read_jsonl` is: blank lines and lines that are not
//! events are skipped (with a warning), unknown fields are ignored.

use std::io::BufRead;
use std::path::Path;

use jiff::Timestamp;
use serde_json::{Map, Value};

use crate::error::EventsError;
use crate::pyvalue::{py_int, py_str, truthy};
use crate::time::{isoformat, parse_ts};

/// The version of the envelope.
pub const SCHEMA_VERSION: i64 = 1;

/// The event types the Python tool defines (`run.staged` and `table.maintained` are never
/// emitted). Consumers ignore types they don't know.
pub const EVENT_TYPES: [&str; 12] = [
    "run.started",
    "run.extracted",
    "quality.evaluated",
    "run.staged",
    "run.published",
    "run.skipped_duplicate",
    "run.blocked_quality",
    "run.failed",
    "run.finished",
    "workflow.started",
    "workflow.finished",
    "table.maintained",
];

/// One thing that happened in a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// A UUIDv7 text, unique per event.
    pub event_id: String,
    /// What happened (`type` in JSON), one of [`EVENT_TYPES`].
    pub event_type: String,
    /// The envelope version, [`SCHEMA_VERSION`].
    pub schema_version: i64,
    /// When it happened, at microsecond precision.
    pub ts: Timestamp,
    /// The run's id.
    pub run_id: String,
    /// The attempt, from 1.
    pub attempt: i64,
    /// The position within `(run_id, attempt)`, from 0.
    pub seq: i64,
    /// The target Iceberg table's UUID once known.
    pub table_uuid: Option<String>,
    /// Allowlisted facts about the step (counts, schemas, verdicts, snapshot ids).
    pub payload: Map<String, Value>,
}

impl Event {
    /// The event as a JSON object (`ts` as ISO+00 text, `type` for [`Event::event_type`]).
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("event_id".into(), Value::from(self.event_id.clone()));
        object.insert("type".into(), Value::from(self.event_type.clone()));
        object.insert("schema_version".into(), Value::from(self.schema_version));
        object.insert("ts".into(), Value::from(isoformat(self.ts)));
        object.insert("run_id".into(), Value::from(self.run_id.clone()));
        object.insert("attempt".into(), Value::from(self.attempt));
        object.insert("seq".into(), Value::from(self.seq));
        object.insert(
            "table_uuid".into(),
            self.table_uuid.clone().map_or(Value::Null, Value::from),
        );
        object.insert("payload".into(), Value::Object(self.payload.clone()));
        Value::Object(object)
    }

    /// The JSONL line the Python tool writes for this event, without the newline: compact JSON
    /// with sorted keys, e.g. `{"attempt":1,"event_id":"…","payload":{…},"run_id":"…",
    /// "schema_version":1,"seq":0,"table_uuid":null,"ts":"2026-12-02T14:25:30.175234+00:00",
    /// "type":"run.started"}`.
    pub fn to_line(&self) -> String {
        canonical(&self.to_value())
    }

    /// The payload as canonical JSON (the `payload` column of `_ldp.runs`).
    pub fn payload_json(&self) -> String {
        canonical(&Value::Object(self.payload.clone()))
    }

    /// Reads an event from a JSON object, as the Python tool's `RunEvent.from_dict` does:
    /// `event_id`, `type`, `ts` and `run_id` are required; `schema_version`, `attempt` and
    /// `seq` default to 1, 1 and 0; a `payload` given as JSON text is parsed; unknown fields
    /// are ignored.
    ///
    /// # Errors
    ///
    /// [`EventsError::Invalid`] when the value is not an object, a required key is missing, or
    /// a value cannot be read (`ts` that is no ISO-8601 text, `attempt` that is no number).
    pub fn from_value(value: &Value) -> Result<Event, EventsError> {
        let Value::Object(data) = value else {
            return Err(EventsError::invalid(format!(
                "a run event must be an object, got {}",
                ldp_config::type_name(value)
            )));
        };
        let missing: Vec<&str> = ["event_id", "type", "ts", "run_id"]
            .into_iter()
            .filter(|key| !data.contains_key(*key))
            .collect();
        if !missing.is_empty() {
            return Err(EventsError::invalid(format!(
                "run event is missing {}",
                ldp_config::repr_list(&missing)
            )));
        }
        let field = |key: &str| data.get(key).unwrap_or(&Value::Null);
        let event_type = py_str(field("type"));
        if event_type.is_empty() {
            return Err(EventsError::invalid(
                "event type must be a non-empty string, got ''",
            ));
        }
        let whole = |key: &str, default: i64| -> Result<i64, EventsError> {
            let value = field(key);
            if !truthy(value) {
                return Ok(default);
            }
            py_int(value).ok_or_else(|| {
                EventsError::invalid(format!(
                    "{key} must be a whole number, got {}",
                    ldp_config::repr(value)
                ))
            })
        };
        let ts = parse_ts(field("ts")).ok_or_else(|| {
            EventsError::invalid(format!(
                "event ts must be a datetime or an ISO-8601 string, got {}",
                ldp_config::repr(field("ts"))
            ))
        })?;
        Ok(Event {
            event_id: py_str(field("event_id")),
            event_type,
            schema_version: whole("schema_version", SCHEMA_VERSION)?,
            ts,
            run_id: py_str(field("run_id")),
            attempt: whole("attempt", 1)?,
            seq: whole("seq", 0)?,
            table_uuid: match field("table_uuid") {
                Value::Null => None,
                other => Some(py_str(other)),
            },
            payload: read_payload(field("payload"))?,
        })
    }

    /// Reads one JSONL line.
    ///
    /// # Errors
    ///
    /// [`EventsError::Invalid`] when the line is not JSON or not an event.
    pub fn parse_line(line: &str) -> Result<Event, EventsError> {
        let value: Value = serde_json::from_str(line)
            .map_err(|e| EventsError::invalid(format!("not JSON: {e}")))?;
        Event::from_value(&value)
    }

    /// A payload value by key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.payload.get(key)
    }

    /// A payload text by key (`None` when absent or not a string).
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.payload.get(key).and_then(Value::as_str)
    }
}

fn read_payload(value: &Value) -> Result<Map<String, Value>, EventsError> {
    match value {
        Value::Object(map) => Ok(map.clone()),
        Value::String(text) if !text.is_empty() => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(other) => Err(EventsError::invalid(format!(
                "payload must be an object, got {}",
                ldp_config::type_name(&other)
            ))),
            Err(e) => Err(EventsError::invalid(format!("payload is not JSON: {e}"))),
        },
        other if !truthy(other) => Ok(Map::new()),
        other => Err(EventsError::invalid(format!(
            "payload must be an object, got {}",
            ldp_config::type_name(other)
        ))),
    }
}

/// Canonical JSON (sorted keys, compact, raw UTF-8, Python's float repr) of a value.
pub(crate) fn canonical(value: &Value) -> String {
    // Only a NaN or an infinite float is refused, and a `serde_json::Value` cannot hold one.
    ldp_config::canonical_json(value).unwrap_or_else(|_| value.to_string())
}

/// Reads the events of a JSONL stream in order. Blank lines are skipped; a line that is not an
/// event (one cut short by a crash) is skipped with a warning naming `source` and its line.
///
/// # Errors
///
/// Reading the stream failed.
pub fn read_events(reader: impl BufRead, source: &str) -> std::io::Result<Vec<Event>> {
    let mut events = Vec::new();
    for (index, line) in reader.split(b'\n').enumerate() {
        let bytes = line?;
        let text = String::from_utf8_lossy(&bytes);
        if text.trim().is_empty() {
            continue;
        }
        match Event::parse_line(&text) {
            Ok(event) => events.push(event),
            Err(error) => tracing::warn!(
                "Skipping line {} of {source}: not a run event ({error})",
                index + 1
            ),
        }
    }
    Ok(events)
}

/// Reads the events a JSONL sink wrote to `path`, in file order (see [`read_events`]).
///
/// # Errors
///
/// [`EventsError::Read`] when the file cannot be opened or read.
pub fn read_events_file(path: &Path) -> Result<Vec<Event>, EventsError> {
    let read_error = |source| EventsError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    read_events(std::io::BufReader::new(file), &path.display().to_string()).map_err(read_error)
}

/// Sorts events as the Python tool's `read_iceberg_events` returns them: by `(ts, run_id,
/// attempt, seq)`.
pub fn sort_events(events: &mut [Event]) {
    events.sort_by(|a, b| {
        (a.ts, &a.run_id, a.attempt, a.seq).cmp(&(b.ts, &b.run_id, b.attempt, b.seq))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LINE: &str = r#"{"attempt":1,"event_id":"01a23725-708b-7077-9fbc-88b0d6d6eb2a","payload":{"pipeline":"rides","rows_read":3,"table":"nyc.rides"},"run_id":"01a23725-6f95-73c9-8cfe-c24a42626895","schema_version":1,"seq":1,"table_uuid":null,"ts":"2026-12-02T14:25:30.251783+00:00","type":"run.extracted"}"#;

    #[test]
    fn a_line_reads_back_to_itself() {
        let event = Event::parse_line(LINE).expect("an event");
        assert_eq!(event.event_type, "run.extracted");
        assert_eq!(event.seq, 1);
        assert_eq!(event.to_line(), LINE);
    }

    #[test]
    fn defaults_and_text_payloads() {
        let event = Event::from_value(&json!({
            "event_id": "e", "type": "run.started", "ts": "2026-08-01T00:00:00Z", "run_id": "r",
            "payload": "{\"b\": 2.0, \"a\": \"é\"}", "extra": 1
        }))
        .expect("an event");
        assert_eq!((event.schema_version, event.attempt, event.seq), (1, 1, 0));
        assert_eq!(
            event.to_line(),
            r#"{"attempt":1,"event_id":"e","payload":{"a":"é","b":2.0},"run_id":"r","schema_version":1,"seq":0,"table_uuid":null,"ts":"2026-08-01T00:00:00+00:00","type":"run.started"}"#
        );
    }

    #[test]
    fn invalid_events_say_why() {
        let missing = Event::from_value(&json!({"event_id": "e", "type": "t"}));
        assert_eq!(
            missing.expect_err("invalid").to_string(),
            "not a run event: run event is missing ['ts', 'run_id']"
        );
        let empty = Event::from_value(
            &json!({"event_id": "e", "type": "", "ts": "2026-08-01", "run_id": "r"}),
        );
        assert!(empty.is_err());
        let list = Event::from_value(&json!([]));
        assert_eq!(
            list.expect_err("invalid").to_string(),
            "not a run event: a run event must be an object, got list"
        );
    }

    #[test]
    fn readers_skip_blank_and_broken_lines() {
        let text = format!("\n{LINE}\n{{\"attempt\":1,\"ev\n  \n{LINE}\n");
        let events = read_events(text.as_bytes(), "test").expect("readable");
        assert_eq!(events.len(), 2);
    }
}
