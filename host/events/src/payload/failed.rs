//! `run.failed`.

use serde_json::{Map, Value};

use super::EventPayload;
use crate::redact::{MAX_MESSAGE, redact_text};

/// Where a run was when it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Before anything else (building the payload of `run.started`).
    Start,
    /// Looking for the idempotency key in the target's history.
    Search,
    /// Reading the source.
    Extract,
    /// Running the transforms.
    Transform,
    /// Running the checks.
    Validate,
    /// Writing the target.
    Write,
    /// Reading back what was written, for the result.
    Report,
    /// A workflow task that is not a pipeline: its kind (`maintain`, `dbt`).
    Task(String),
}

impl Stage {
    /// `start`, `search`, `extract`, `transform`, `validate`, `write`, `report`, or the task
    /// kind.
    pub fn as_str(&self) -> &str {
        match self {
            Stage::Start => "start",
            Stage::Search => "search",
            Stage::Extract => "extract",
            Stage::Transform => "transform",
            Stage::Validate => "validate",
            Stage::Write => "write",
            Stage::Report => "report",
            Stage::Task(kind) => kind,
        }
    }
}

/// `run.failed`: `{stage, error_type, message}`, the message secret-redacted and cut to 2000
/// characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    /// Where the run was.
    pub stage: Stage,
    /// The name of the error, as the Python tool names its exceptions (`FileNotFoundError`,
    /// `ConfigError`, `CommitFailedException`).
    pub error_type: String,
    /// The error's message, unredacted: the payload redacts it.
    pub message: String,
}

impl EventPayload for Failed {
    fn event_type(&self) -> &'static str {
        "run.failed"
    }

    fn to_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("stage".into(), Value::from(self.stage.as_str()));
        payload.insert("error_type".into(), Value::from(self.error_type.clone()));
        payload.insert(
            "message".into(),
            Value::from(redact_text(&self.message, Some(MAX_MESSAGE))),
        );
        payload
    }
}
