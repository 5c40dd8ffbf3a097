//! Where events go: the [`EventSink`] trait, and [`CollectSink`], which keeps them in memory.
//!
//! The JSONL and OpenLineage sinks are plugins (`events-jsonl`, `events-openlineage`): the host
//! wraps a plugin in an [`EventSink`] that hands it [`Event::to_line`]. The `_ldp` tables are
//! written by the host from the events a run collected ([`crate::system_tables`]).

use std::sync::{Arc, Mutex, PoisonError};

use crate::envelope::Event;
use crate::error::SinkError;

/// A destination for the events of a run. A sink error never fails a run: [`crate::RunEvents`]
/// logs it as a warning and goes on.
pub trait EventSink: Send {
    /// Records one event (a file sink writes it straight away).
    ///
    /// # Errors
    ///
    /// The event could not be recorded.
    fn write(&mut self, event: &Event) -> Result<(), SinkError>;

    /// Persists anything buffered and releases the sink. Called once, when the run ends,
    /// whatever its outcome.
    ///
    /// # Errors
    ///
    /// What was buffered could not be persisted.
    fn close(&mut self) -> Result<(), SinkError>;

    /// A short name for warnings, e.g. `jsonl /project/.ldp/events.jsonl`.
    fn describe(&self) -> String {
        "event sink".to_owned()
    }
}

/// Keeps every event in memory, in emit order, for tests and for sinks that write once per run
/// (the `_ldp` tables). Clones share the same events, so a test keeps one clone and gives the
/// other to the emitter.
#[derive(Debug, Clone, Default)]
pub struct CollectSink {
    shared: Arc<Mutex<Collected>>,
}

#[derive(Debug, Default)]
struct Collected {
    events: Vec<Event>,
    closes: usize,
}

impl CollectSink {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events recorded so far, in order.
    pub fn events(&self) -> Vec<Event> {
        self.lock(|collected| collected.events.clone())
    }

    /// Takes the events recorded so far, leaving none.
    pub fn take(&self) -> Vec<Event> {
        self.lock(|collected| std::mem::take(&mut collected.events))
    }

    /// The event types recorded so far, in order.
    pub fn types(&self) -> Vec<String> {
        self.lock(|collected| {
            collected
                .events
                .iter()
                .map(|event| event.event_type.clone())
                .collect()
        })
    }

    /// How many times the sink was closed.
    pub fn closes(&self) -> usize {
        self.lock(|collected| collected.closes)
    }

    fn lock<R>(&self, f: impl FnOnce(&mut Collected) -> R) -> R {
        let mut guard = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut guard)
    }
}

impl EventSink for CollectSink {
    fn write(&mut self, event: &Event) -> Result<(), SinkError> {
        self.lock(|collected| collected.events.push(event.clone()));
        Ok(())
    }

    fn close(&mut self) -> Result<(), SinkError> {
        self.lock(|collected| collected.closes += 1);
        Ok(())
    }

    fn describe(&self) -> String {
        "memory".to_owned()
    }
}
