//! The transforms as a chain on their own thread: the source's messages in, the transformed
//! messages out, so that transforming overlaps reading and writing.
//!
//! The chain opens each transform when the source's schema arrives, with the schema the one
//! before it declared, so every output schema is known (and an invalid one refused) before any
//! batch flows. A batch a transform gives back that does not follow the schema it declared
//! fails the run: the runtime decodes it against that schema.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::Scope;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use jiff::Timestamp;
use jiff::tz::TimeZone;
use ldp_plugin_runtime::{Plugin, TransformStream};
use ldp_table::WindowFilter;

use super::Resolved;
use super::external::{ExternalStream, SharedExternal};
use crate::error::{Error, Result};
use crate::source::Message;

/// Transforms loaded and ready to open.
pub(crate) struct Chain {
    transforms: Vec<(Resolved, Plugin)>,
    /// The caller's own transform, after the config's.
    external: Option<SharedExternal>,
    capacity: usize,
    window: Option<SourceWindow>,
    /// Rows the source gave.
    rows_read: AtomicU64,
    /// Rows of the run's window (when `window` is set).
    rows_kept: AtomicU64,
}

/// `metadata.window.column` and the run's window: the rows outside it are dropped right after
/// extraction, before the transforms, as the Python tool does.
pub(crate) struct SourceWindow {
    /// The column.
    pub column: String,
    /// `[start, end)`.
    pub start: Timestamp,
    /// `[start, end)`.
    pub end: Timestamp,
    /// The zone a date column's days are in.
    pub zone: TimeZone,
}

impl Chain {
    /// A chain of `transforms`, with channels of `capacity` batches; with transforms, `window`
    /// filters the source's rows before them (without, the writer filters).
    pub fn new(
        transforms: Vec<(Resolved, Plugin)>,
        capacity: usize,
        window: Option<SourceWindow>,
    ) -> Chain {
        Chain {
            transforms,
            external: None,
            capacity,
            window,
            rows_read: AtomicU64::new(0),
            rows_kept: AtomicU64::new(0),
        }
    }

    /// The chain with the caller's own transform after the config's.
    pub fn with_external(mut self, external: Option<SharedExternal>) -> Chain {
        self.external = external;
        self
    }

    /// Whether the chain runs (there are transforms): then it filters the window and counts.
    pub fn is_active(&self) -> bool {
        !self.transforms.is_empty() || self.external.is_some()
    }

    /// Rows the source gave, and rows of the window (when it filtered one), once it ended.
    pub fn counts(&self) -> (u64, Option<u64>) {
        (
            self.rows_read.load(Ordering::Relaxed),
            self.window
                .as_ref()
                .map(|_| self.rows_kept.load(Ordering::Relaxed)),
        )
    }

    /// Runs the chain on a thread of `scope` over what `input` receives; returns what it sends.
    /// Without transforms, `input` itself.
    pub fn spawn<'scope, 'env>(
        &'env self,
        scope: &'scope Scope<'scope, 'env>,
        input: Receiver<Result<Message>>,
    ) -> Receiver<Result<Message>> {
        if !self.is_active() {
            return input;
        }
        let (sender, output) = sync_channel(self.capacity);
        scope.spawn(crate::span::in_current_span(move || {
            self.run(&input, &sender)
        }));
        output
    }

    fn run(&self, input: &Receiver<Result<Message>>, sender: &SyncSender<Result<Message>>) {
        let mut open: Vec<Stage<'_>> = Vec::new();
        let mut filter: Option<WindowFilter> = None;
        let send = |message: Result<Message>| sender.send(message).is_ok();
        for message in input {
            let result = match message {
                Ok(Message::Schema(schema)) => match self.open(&schema) {
                    Ok(opened) => {
                        open = opened.streams;
                        filter = opened.filter;
                        send(Ok(Message::Schema(opened.schema)))
                    }
                    Err(e) => {
                        send(Err(e));
                        return;
                    }
                },
                Ok(Message::Batch(batch)) => {
                    match self
                        .keep(filter.as_ref(), batch)
                        .and_then(|batch| match batch {
                            Some(batch) => push_through(&mut open, 0, vec![batch]),
                            None => Ok(Vec::new()),
                        }) {
                        Ok(batches) => batches.into_iter().all(|b| send(Ok(Message::Batch(b)))),
                        Err(e) => {
                            send(Err(e));
                            return;
                        }
                    }
                }
                Err(e) => {
                    send(Err(e));
                    return;
                }
            };
            if !result {
                return; // the writer hung up
            }
        }
        // The source ended cleanly: flush each transform, in order, through the ones after it.
        for i in 0..open.len() {
            let flushed = open[i]
                .flush()
                .and_then(|batches| push_through(&mut open, i + 1, batches));
            match flushed {
                Ok(batches) => {
                    if !batches.into_iter().all(|b| send(Ok(Message::Batch(b)))) {
                        return;
                    }
                }
                Err(e) => {
                    send(Err(e));
                    return;
                }
            }
        }
    }

    /// Counts a source batch and keeps the rows of the window; `None` when none are left.
    fn keep(
        &self,
        filter: Option<&WindowFilter>,
        batch: RecordBatch,
    ) -> Result<Option<RecordBatch>> {
        self.rows_read
            .fetch_add(batch.num_rows() as u64, Ordering::Relaxed);
        let Some(filter) = filter else {
            return Ok((batch.num_rows() > 0).then_some(batch));
        };
        let kept = filter.keep(&batch)?;
        self.rows_kept
            .fetch_add(kept.num_rows() as u64, Ordering::Relaxed);
        Ok((kept.num_rows() > 0).then_some(kept))
    }

    /// Opens every transform for the schema the one before it gives.
    fn open(&self, schema: &SchemaRef) -> Result<Opened<'_>> {
        let filter = match &self.window {
            Some(w) => Some(WindowFilter::new(
                schema,
                &w.column,
                w.start,
                w.end,
                w.zone.clone(),
            )?),
            None => None,
        };
        let mut schema = schema.clone();
        let mut streams = Vec::with_capacity(self.transforms.len());
        for (resolved, plugin) in &self.transforms {
            let stream = plugin
                .open_transform(resolved.plugin_config(), &schema, &resolved.sandbox)
                .map_err(|source| Error::Transform {
                    what: resolved.what.clone(),
                    source,
                })?;
            schema = with_columns(stream.output_schema(), &resolved.what)?;
            streams.push(Stage::Plugin(resolved, Box::new(stream)));
        }
        if let Some(external) = &self.external {
            let stream = external.open(&schema).map_err(|source| Error::External {
                what: external.name().to_owned(),
                source,
            })?;
            schema = with_columns(stream.output_schema(), external.name())?;
            streams.push(Stage::External(external.name(), stream));
        }
        Ok(Opened {
            streams,
            schema,
            filter,
        })
    }
}

/// The output schema a transform (`what`) declared, which must have a column.
fn with_columns(schema: &SchemaRef, what: &str) -> Result<SchemaRef> {
    if schema.fields().is_empty() {
        return Err(Error::Unsupported {
            message: format!(
                "{what}: the transform declared an output schema without columns; a table needs at least one"
            ),
        });
    }
    Ok(schema.clone())
}

/// The transforms of a chain, open for the source's schema.
struct Opened<'a> {
    /// Each transform's stream, in order.
    streams: Vec<Stage<'a>>,
    /// The last transform's output schema.
    schema: SchemaRef,
    /// The source's window filter, applied before the first transform.
    filter: Option<WindowFilter>,
}

/// One open transform of the chain.
enum Stage<'a> {
    /// A plugin of the config, in its sandbox.
    Plugin(&'a Resolved, Box<TransformStream>),
    /// The caller's own transform, by its name.
    External(&'a str, Box<dyn ExternalStream>),
}

impl Stage<'_> {
    fn push(&mut self, batch: &RecordBatch) -> Result<Vec<RecordBatch>> {
        match self {
            Stage::Plugin(resolved, stream) => {
                stream.push(batch).map_err(|source| Error::Transform {
                    what: resolved.what.clone(),
                    source,
                })
            }
            Stage::External(name, stream) => stream.push(batch).map_err(|source| Error::External {
                what: (*name).to_owned(),
                source,
            }),
        }
    }

    fn flush(&mut self) -> Result<Vec<RecordBatch>> {
        match self {
            Stage::Plugin(resolved, stream) => stream.flush().map_err(|source| Error::Transform {
                what: resolved.what.clone(),
                source,
            }),
            Stage::External(name, stream) => stream.finish().map_err(|source| Error::External {
                what: (*name).to_owned(),
                source,
            }),
        }
    }
}

/// Pushes `batches` through the open transforms from `from` on.
fn push_through(
    open: &mut [Stage<'_>],
    from: usize,
    mut batches: Vec<RecordBatch>,
) -> Result<Vec<RecordBatch>> {
    for stage in open.iter_mut().skip(from) {
        let mut next = Vec::with_capacity(batches.len());
        for batch in &batches {
            next.extend(stage.push(batch)?);
        }
        batches = next;
    }
    Ok(batches)
}
