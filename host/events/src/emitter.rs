//! [`RunEvents`]: builds the events of one run attempt and hands each to every sink.
//!
//! It numbers the events (`seq` from 0), stamps them (UUIDv7 id, UTC time at microsecond
//! precision), remembers the target table's UUID once known, merges its context (`pipeline`,
//! `table`, ...) under every payload and its tags (a workflow's `workflow`, `workflow_run_id`,
//! `task_id`) over it. A sink that fails is logged with `tracing::warn!` and never fails the
//! run.

use jiff::Timestamp;
use serde_json::{Map, Value};

use crate::envelope::{Event, SCHEMA_VERSION};
use crate::ids::uuid7;
use crate::payload::EventPayload;
use crate::redact::{MAX_MESSAGE, redact_text};
use crate::sink::EventSink;
use crate::time::{now_micros, truncate_to_micros};

type Clock = Box<dyn FnMut() -> Timestamp + Send>;

/// The events of one run attempt.
pub struct RunEvents {
    run_id: String,
    attempt: i64,
    seq: i64,
    table_uuid: Option<String>,
    context: Map<String, Value>,
    tags: Map<String, Value>,
    sinks: Vec<Box<dyn EventSink>>,
    clock: Clock,
    closed: bool,
}

impl std::fmt::Debug for RunEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunEvents")
            .field("run_id", &self.run_id)
            .field("attempt", &self.attempt)
            .field("seq", &self.seq)
            .field("table_uuid", &self.table_uuid)
            .field("context", &self.context)
            .field("tags", &self.tags)
            .field(
                "sinks",
                &self.sinks.iter().map(|s| s.describe()).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl RunEvents {
    /// The events of attempt `attempt` (from 1) of run `run_id`, with no sink yet.
    pub fn new(run_id: impl Into<String>, attempt: i64) -> Self {
        Self {
            run_id: run_id.into(),
            attempt,
            seq: 0,
            table_uuid: None,
            context: Map::new(),
            tags: Map::new(),
            sinks: Vec::new(),
            clock: Box::new(now_micros),
            closed: false,
        }
    }

    /// The events of a pipeline run: the context every payload carries is `pipeline` (the
    /// config's identifier) and `table` (`ns.t`, or the file path for file targets; `null` when
    /// there is neither).
    pub fn for_pipeline(
        run_id: impl Into<String>,
        attempt: i64,
        pipeline: &str,
        table: Option<&str>,
    ) -> Self {
        Self::new(run_id, attempt)
            .with_context("pipeline", pipeline)
            .with_context("table", table.map_or(Value::Null, Value::from))
    }

    /// Adds a key every payload carries unless the payload has its own.
    pub fn with_context(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.context.insert(key.to_owned(), value.into());
        self
    }

    /// Adds a key every payload carries, replacing the payload's own (a workflow tags the
    /// events of its tasks with `workflow`, `workflow_run_id` and `task_id`).
    pub fn with_tag(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.tags.insert(key.to_owned(), value.into());
        self
    }

    /// Tags every event as one of task `task_id` of workflow run `workflow_run_id`.
    pub fn with_workflow_tags(self, workflow: &str, workflow_run_id: &str, task_id: &str) -> Self {
        self.with_tag("workflow", workflow)
            .with_tag("workflow_run_id", workflow_run_id)
            .with_tag("task_id", task_id)
    }

    /// Adds a sink.
    pub fn with_sink(mut self, sink: Box<dyn EventSink>) -> Self {
        self.sinks.push(sink);
        self
    }

    /// Adds a sink.
    pub fn add_sink(&mut self, sink: Box<dyn EventSink>) {
        self.sinks.push(sink);
    }

    /// Replaces the clock (tests); times are cut to microseconds.
    pub fn with_clock(mut self, clock: impl FnMut() -> Timestamp + Send + 'static) -> Self {
        self.clock = Box::new(clock);
        self
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The attempt.
    pub fn attempt(&self) -> i64 {
        self.attempt
    }

    /// The `seq` the next event gets.
    pub fn next_seq(&self) -> i64 {
        self.seq
    }

    /// The target table's UUID, once known.
    pub fn table_uuid(&self) -> Option<&str> {
        self.table_uuid.as_deref()
    }

    /// Whether any sink listens; callers may skip work that only feeds events when none does.
    pub fn is_enabled(&self) -> bool {
        !self.sinks.is_empty()
    }

    /// Sets the target table's UUID for this and later events. `None` or an empty text leaves
    /// it as it is: once known, it sticks.
    pub fn set_table_uuid(&mut self, table_uuid: Option<&str>) {
        if let Some(uuid) = table_uuid.filter(|u| !u.is_empty()) {
            self.table_uuid = Some(uuid.to_owned());
        }
    }

    /// Emits a typed payload (see [`crate::payload`]).
    pub fn record(&mut self, payload: &impl EventPayload) -> Event {
        self.emit(payload.event_type(), payload.to_payload())
    }

    /// Emits a typed payload after setting the table UUID (see [`RunEvents::set_table_uuid`]).
    pub fn record_with_table(
        &mut self,
        payload: &impl EventPayload,
        table_uuid: Option<&str>,
    ) -> Event {
        self.set_table_uuid(table_uuid);
        self.record(payload)
    }

    /// Builds the next event of type `event_type` and gives it to every sink; returns it.
    pub fn emit(&mut self, event_type: &str, payload: Map<String, Value>) -> Event {
        let mut merged = self.context.clone();
        merged.extend(payload);
        merged.extend(self.tags.clone());
        let event = Event {
            event_id: uuid7(),
            event_type: event_type.to_owned(),
            schema_version: SCHEMA_VERSION,
            ts: truncate_to_micros((self.clock)()),
            run_id: self.run_id.clone(),
            attempt: self.attempt,
            seq: self.seq,
            table_uuid: self.table_uuid.clone(),
            payload: merged,
        };
        self.seq += 1;
        for sink in &mut self.sinks {
            if let Err(error) = sink.write(&event) {
                tracing::warn!(
                    "Event sink {} failed to record {}: {}",
                    sink.describe(),
                    event.event_type,
                    redact_text(&error.to_string(), Some(MAX_MESSAGE))
                );
            }
        }
        event
    }

    /// Closes every sink (once; later calls do nothing), logging failures as warnings.
    pub fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        for sink in &mut self.sinks {
            if let Err(error) = sink.close() {
                tracing::warn!(
                    "Event sink {} failed to flush: {}",
                    sink.describe(),
                    redact_text(&error.to_string(), Some(MAX_MESSAGE))
                );
            }
        }
    }
}

impl Drop for RunEvents {
    fn drop(&mut self) {
        self.close();
    }
}
