//! What `ldp run` (or a workflow task) may change about a run.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_config::{Window, WriteMode};
use ldp_table::WriterOptions;

use crate::staged::{PublishPolicy, Staging};

/// Called with the rows written so far, after each batch.
pub type ProgressFn = Arc<dyn Fn(u64) + Send + Sync>;

/// What `ldp run` may change about a run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// `--mode`: overrides the target's `write_mode`.
    pub mode: Option<WriteMode>,
    /// How data files are written.
    pub writer: WriterOptions,
    /// Set (by a Ctrl-C handler) to stop the run: it ends with [`Error::Interrupted`] after
    /// deleting what it wrote, and commits nothing.
    pub cancel: Option<&'static AtomicBool>,
    /// Told how many rows are written, after each batch (a progress display).
    pub progress: Option<ProgressFn>,
    /// A staged run (`--window`, `--idempotency-key`): published at most once per key.
    pub staging: Option<Staging>,
    /// Limits of a staged run's publish loop.
    pub publish: PublishPolicy,
    /// The window of a direct run (a file target in a workflow): it picks the source path and
    /// the rows a window column keeps. A staged run takes its window from [`Staging`].
    pub window: Option<Window>,
    /// Where the run's events also go and how they are tagged (a task of a workflow run).
    pub events: Option<EventContext>,
    /// The caller's own transform, after the config's (outside the sandbox: trusted code).
    pub external_transform: Option<crate::transform::SharedExternal>,
    /// Batches that stand in for the config's source (a workflow's sql task hands the rows of
    /// its query): the source block is not read.
    pub batches: Option<ProvidedBatches>,
}

/// The rows of a run whose source is not a file or table: a schema and its batches.
#[derive(Clone, Debug)]
pub struct ProvidedBatches {
    /// What the source is called in the events (`sql task revenue`).
    pub name: String,
    /// The schema of every batch.
    pub schema: SchemaRef,
    /// The batches, in order.
    pub batches: Arc<Vec<RecordBatch>>,
}

/// Opens an extra event sink for each attempt (the workflow's ledger).
pub type SinkFactory = Arc<dyn Fn() -> Box<dyn ldp_events::EventSink> + Send + Sync>;

/// The events of a run that is a task of a workflow run.
#[derive(Clone)]
pub struct EventContext {
    /// The run id of a direct run (a staged run's is its [`Staging`]'s); a new one when `None`.
    pub run_id: Option<String>,
    /// The attempt of a direct run (from 1).
    pub attempt: u32,
    /// `workflow`, `workflow_run_id` and `task_id`, set over every payload.
    pub tags: Vec<(String, String)>,
    /// Sinks every event also goes to, besides the config's own.
    pub sinks: Vec<SinkFactory>,
}

impl std::fmt::Debug for EventContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventContext")
            .field("run_id", &self.run_id)
            .field("attempt", &self.attempt)
            .field("tags", &self.tags)
            .field("sinks", &self.sinks.len())
            .finish()
    }
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("mode", &self.mode)
            .field("writer", &self.writer)
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("staging", &self.staging)
            .field("window", &self.window)
            .field("events", &self.events)
            .field("batches", &self.batches.as_ref().map(|b| b.batches.len()))
            .field("external_transform", &self.external_transform.is_some())
            .finish()
    }
}

impl RunOptions {
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// The run id and attempt: a staged run's, else the workflow's for a direct run, else a new
    /// run id and attempt 1.
    pub(crate) fn run_identity(&self) -> (String, u32) {
        if let Some(staging) = &self.staging {
            return (staging.run_id.clone(), staging.attempt);
        }
        match &self.events {
            Some(EventContext {
                run_id: Some(id),
                attempt,
                ..
            }) => (id.clone(), (*attempt).max(1)),
            _ => (crate::staged::new_run_id(), 1),
        }
    }

    /// The window of the run: a staged run's, else the direct run's, if it has one.
    pub fn window(&self) -> Option<&Window> {
        self.staging
            .as_ref()
            .and_then(|s| s.window.as_ref())
            .or(self.window.as_ref())
    }
}
