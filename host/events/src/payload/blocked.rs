//! `run.blocked_quality`.

use serde_json::{Map, Value};

use super::EventPayload;

/// `run.blocked_quality`: `{checks_failed, failures, on_failure}`, when a failed check held the
/// write back (`on_failure: fail`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedQuality {
    /// The names of the checks that failed, in order (`checks_failed` is their count).
    pub failures: Vec<String>,
    /// The config's `on_failure`.
    pub on_failure: String,
}

impl EventPayload for BlockedQuality {
    fn event_type(&self) -> &'static str {
        "run.blocked_quality"
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("checks_failed".into(), Value::from(self.failures.len()));
        payload.insert("failures".into(), Value::from(self.failures.clone()));
        payload.insert("on_failure".into(), Value::from(self.on_failure.clone()));
        payload
    }
}
