//! Typed payloads of the events of a pipeline run, built from plain values, never from
//! pipeline types, so that the JSON is the Python tool's whatever the caller.
//!
//! A pipeline run emits, through [`crate::RunEvents::record`]:
//!
//! ```text
//! run.started -> [run.skipped_duplicate -> run.finished]
//!             |  [run.extracted -> quality.evaluated
//!                   -> (run.published | run.skipped_duplicate | run.blocked_quality | run.failed)
//!                   -> run.finished]
//! ```
//!
//! and an error after the start emits [`Failed`] then [`Finished`] with
//! [`Outcome::Failed`]. The emitter adds `pipeline` and `table` (and a workflow's tags) to every
//! payload. Workflow runs use the payloads of [`workflow`](self::WorkflowStarted); the alerts of
//! `ldp status --alert` are [`MonitorAlert`]s.

mod blocked;
mod extracted;
mod failed;
mod finished;
mod monitor;
mod quality;
mod schema;
mod started;
mod workflow;
mod written;

use serde_json::{Map, Value};

pub use blocked::BlockedQuality;
pub use extracted::Extracted;
pub use failed::{Failed, Stage};
pub use finished::{Finished, Outcome, round_duration};
pub use monitor::{MONITOR_BREACHED, MONITOR_RECOVERED, MonitorAlert, is_monitor_event};
pub use quality::{CheckOutcome, QualityEvaluated, check_column, redact_details, redact_metrics};
pub use schema::SchemaField;
pub use started::{COMPATIBLE_VERSION, LDP_VERSION, Publish, Started, TransformRef};
pub use workflow::{TaskFinished, TaskStarted, WorkflowFinished, WorkflowStarted, WorkflowTask};
pub use written::{SnapshotSummary, WriteFacts, Written};

/// A payload of one event type.
pub trait EventPayload {
    /// The event type, e.g. `run.started`.
    fn event_type(&self) -> &'static str;
    /// The payload, without the emitter's context (`pipeline`, `table`, ...).
    fn to_payload(&self) -> Map<String, Value>;
}

/// `Some(text)` as a JSON string, `None` as `null`.
pub(crate) fn opt_str(value: Option<&str>) -> Value {
    value.map_or(Value::Null, Value::from)
}

/// `Some(n)` as a JSON number, `None` as `null`.
pub(crate) fn opt_num<N: Into<Value>>(value: Option<N>) -> Value {
    value.map_or(Value::Null, Into::into)
}
