//! Which events `ldp runs` shows of what it read.

use crate::envelope::Event;

/// The events of a JSONL file that belong to pipeline `pipeline` (events whose payload has no
/// `pipeline`, or this one) and, with `run_id`, to that run. Without `pipeline` (a `.jsonl`
/// given directly), every event of the run, or every event.
pub fn select_events(
    events: Vec<Event>,
    pipeline: Option<&str>,
    run_id: Option<&str>,
) -> Vec<Event> {
    events
        .into_iter()
        .filter(|event| is_selected(event, pipeline, run_id))
        .collect()
}

/// Whether [`select_events`] keeps `event`.
pub fn is_selected(event: &Event, pipeline: Option<&str>, run_id: Option<&str>) -> bool {
    let of_pipeline = match pipeline {
        None => true,
        Some(identifier) => match event.payload.get("pipeline") {
            None | Some(serde_json::Value::Null) => true,
            Some(value) => value.as_str() == Some(identifier),
        },
    };
    of_pipeline && run_id.is_none_or(|id| event.run_id == id)
}
