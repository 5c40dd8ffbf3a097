//! Running a query whose result is handed on batch by batch, as it is produced, instead of
//! collected: `ldp query --arrow` writes results of any size with the memory of a few batches.

use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures_util::StreamExt;

use crate::deadline::Deadline;
use crate::error::{Error, Result};
use crate::session::{Session, backstop_grace, plan};

/// Where the result of [`Session::query_stream`] goes: its schema first, then every batch in
/// order. An error from either stops the query.
pub trait BatchSink {
    /// The result's schema, before any batch (also for a result without rows).
    ///
    /// # Errors
    ///
    /// Writing failed (a closed pipe, a full disk).
    fn schema(&mut self, schema: &SchemaRef) -> std::io::Result<()>;

    /// The next batch of rows.
    ///
    /// # Errors
    ///
    /// Writing failed.
    fn batch(&mut self, batch: &RecordBatch) -> std::io::Result<()>;
}

/// What the query's task hands the caller.
enum Item {
    Schema(SchemaRef),
    Batch(RecordBatch),
    End,
}

/// Batches in flight between the query's task and the caller.
const IN_FLIGHT: usize = 2;

impl Session {
    /// Runs one read-only query and hands its schema and then each batch to `sink` as they are
    /// produced, holding at most a few batches; stopped after `limit` when given. Returns the
    /// number of rows.
    ///
    /// # Errors
    ///
    /// As [`Session::query`]; [`Error::Timeout`] past `limit`; [`Error::Output`] when `sink`
    /// fails (the query stops).
    pub fn query_stream(
        &self,
        sql: &str,
        limit: Option<Duration>,
        sink: &mut dyn BatchSink,
    ) -> Result<u64> {
        let deadline = limit.map(Deadline::after);
        let (sender, receiver) = sync_channel(IN_FLIGHT);
        let task = produce(
            self.context().clone(),
            sql.to_owned(),
            deadline.clone(),
            sender,
        );
        let handle = self.runtime().spawn(task);
        let started = Instant::now();
        let mut rows = 0u64;
        loop {
            let received = match &deadline {
                Some(d) => {
                    let budget = d.limit() + backstop_grace(d.limit());
                    receiver.recv_timeout(budget.saturating_sub(started.elapsed()))
                }
                None => receiver.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            let written = match received {
                Ok(Ok(Item::Schema(schema))) => sink.schema(&schema),
                Ok(Ok(Item::Batch(batch))) => {
                    rows += batch.num_rows() as u64;
                    sink.batch(&batch)
                }
                Ok(Ok(Item::End)) => return Ok(rows),
                Ok(Err(e)) => return Err(e),
                Err(RecvTimeoutError::Timeout) => {
                    handle.abort();
                    return Err(Error::Timeout {
                        seconds: deadline.map_or(0.0, |d| d.limit().as_secs_f64()),
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Error::Execution {
                        message: "the query stopped on an internal error of the engine".into(),
                    });
                }
            };
            if let Err(source) = written {
                handle.abort();
                return Err(Error::Output { source });
            }
        }
    }
}

/// Plans and runs the query, sending the schema, each batch and the end (or the error); stops
/// when the caller hangs up.
async fn produce(
    context: datafusion::execution::context::SessionContext,
    sql: String,
    deadline: Option<Arc<Deadline>>,
    sender: SyncSender<Result<Item>>,
) {
    let timed_out = |e: Error| match &deadline {
        Some(d) if d.was_passed() => Error::Timeout {
            seconds: d.limit().as_secs_f64(),
        },
        _ => e,
    };
    // The channel is bounded: a send waits for the caller without holding a runtime thread
    // busy in a tight loop, and a caller that hung up ends the task.
    let send = |item: Result<Item>| {
        let sender = sender.clone();
        async move {
            tokio::task::spawn_blocking(move || sender.send(item).is_ok())
                .await
                .unwrap_or(false)
        }
    };
    let planned = match plan(&context, &sql, deadline.as_ref()).await {
        Ok(planned) => planned,
        Err(e) => {
            send(Err(timed_out(e))).await;
            return;
        }
    };
    if !send(Ok(Item::Schema(planned.schema))).await {
        return;
    }
    let mut stream = planned.stream;
    while let Some(batch) = stream.next().await {
        let item = batch
            .map(Item::Batch)
            .map_err(|e| timed_out(Error::execution(e)));
        let failed = item.is_err();
        if !send(item).await || failed {
            return;
        }
    }
    send(Ok(Item::End)).await;
}
