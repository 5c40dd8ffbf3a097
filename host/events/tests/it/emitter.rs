//! The emitter: numbering, the sticky table UUID, context and tags, and sinks that fail.

use ldp_events::payload::{Failed, Stage};
use ldp_events::{CollectSink, Event, EventSink, RunEvents, SinkError};
use serde_json::{Map, json};

struct Failing;

impl EventSink for Failing {
    fn write(&mut self, _event: &Event) -> Result<(), SinkError> {
        Err(SinkError::failed("disk full at s3://u:secret@bucket"))
    }
    fn close(&mut self) -> Result<(), SinkError> {
        Err(SinkError::failed("still full"))
    }
}

fn payload(pairs: serde_json::Value) -> Map<String, serde_json::Value> {
    pairs.as_object().cloned().expect("an object")
}

#[test]
fn a_failing_sink_never_stops_the_others() {
    let sink = CollectSink::new();
    let mut events = RunEvents::new("r", 2)
        .with_sink(Box::new(Failing))
        .with_sink(Box::new(sink.clone()));
    assert!(events.is_enabled());
    events.emit("run.started", Map::new());
    events.emit("run.finished", Map::new());
    drop(events);
    let built = sink.events();
    assert_eq!(built.iter().map(|e| e.seq).collect::<Vec<_>>(), [0, 1]);
    assert!(built.iter().all(|e| e.attempt == 2 && e.run_id == "r"));
    assert_eq!(
        sink.closes(),
        1,
        "dropping the emitter closes its sinks once"
    );
}

#[test]
fn the_table_uuid_sticks_once_known() {
    let sink = CollectSink::new();
    let mut events = RunEvents::new("r", 1).with_sink(Box::new(sink.clone()));
    events.emit("a", Map::new());
    events.set_table_uuid(Some("u-1"));
    events.emit("b", Map::new());
    events.set_table_uuid(None);
    events.set_table_uuid(Some(""));
    events.emit("c", Map::new());
    let uuids: Vec<Option<String>> = sink.events().into_iter().map(|e| e.table_uuid).collect();
    assert_eq!(uuids, [None, Some("u-1".into()), Some("u-1".into())]);
    assert_eq!(events.table_uuid(), Some("u-1"));
    assert_eq!(events.next_seq(), 3);
}

#[test]
fn context_goes_under_the_payload_and_tags_over_it() {
    let sink = CollectSink::new();
    let mut events = RunEvents::for_pipeline("r", 1, "rides", Some("nyc.rides"))
        .with_tag("task_id", "t")
        .with_sink(Box::new(sink.clone()));
    events.emit(
        "x",
        payload(json!({"table": "other", "task_id": "mine", "n": 1})),
    );
    let event = &sink.events()[0];
    assert_eq!(
        serde_json::Value::Object(event.payload.clone()),
        json!({"pipeline": "rides", "table": "other", "task_id": "t", "n": 1})
    );
}

#[test]
fn failure_messages_are_redacted_and_cut() {
    let sink = CollectSink::new();
    let mut events = RunEvents::new("r", 1).with_sink(Box::new(sink.clone()));
    let message = format!(
        "connect to postgresql://ldp:pw@db failed {}",
        "x".repeat(3000)
    );
    events.record(&Failed {
        stage: Stage::Extract,
        error_type: "OperationalError".into(),
        message,
    });
    let event = &sink.events()[0];
    let text = event.get_str("message").expect("a message");
    assert!(text.starts_with("connect to postgresql://ldp:***@db failed xxx"));
    assert_eq!(text.chars().count(), 2000);
    assert!(text.ends_with("..."));
    assert_eq!(event.get_str("stage"), Some("extract"));
    assert_eq!(Stage::Task("maintain".into()).as_str(), "maintain");
}
