//! Integration tests of ldp-events: the Python tool's sample events rebuilt field by field, the
//! `_ldp` rows, and `ldp runs` output compared with what the Python tool prints.

mod emitter;
mod ledger;
mod runs;
mod staged;
mod system_tables;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use jiff::Timestamp;
use ldp_events::Event;

/// `tests/vectors`: sample event files the Python tool wrote (byte copies), and
/// `runs_mixed.jsonl`, made by its emitter (see `tests/expected/generate.py`).
pub fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

/// The lines of a vector file.
pub fn vector_lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(vectors().join(name))
        .expect("the vector exists")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The events of a vector file.
pub fn vector_events(name: &str) -> Vec<Event> {
    ldp_events::read_events_file(&vectors().join(name)).expect("the vector is readable")
}

/// A clock that gives the `ts` of `events` in order, shared by several emitters.
pub fn replay_clock(events: &[Event]) -> impl FnMut() -> Timestamp + Send + Clone + 'static {
    let times: Arc<Mutex<VecDeque<Timestamp>>> =
        Arc::new(Mutex::new(events.iter().map(|e| e.ts).collect()));
    move || {
        times
            .lock()
            .expect("not poisoned")
            .pop_front()
            .expect("one time per event")
    }
}

/// Compares rebuilt events with the Python tool's lines, field by field (the event id aside),
/// then as whole lines.
pub fn assert_same_lines(built: &[Event], expected: &[String]) {
    assert_eq!(built.len(), expected.len(), "number of events");
    for (index, (event, line)) in built.iter().zip(expected).enumerate() {
        let reference = Event::parse_line(line).expect("a reference event");
        let mut event = event.clone();
        event.event_id = reference.event_id.clone();
        assert_eq!(
            event.event_type, reference.event_type,
            "type of event {index}"
        );
        for (key, value) in &reference.payload {
            assert_eq!(
                event.payload.get(key),
                Some(value),
                "payload.{key} of event {index} ({})",
                reference.event_type
            );
        }
        let extra: Vec<&String> = event
            .payload
            .keys()
            .filter(|key| !reference.payload.contains_key(*key))
            .collect();
        assert!(extra.is_empty(), "event {index} has extra keys {extra:?}");
        assert_eq!(&event.to_line(), line, "line of event {index}");
    }
}
