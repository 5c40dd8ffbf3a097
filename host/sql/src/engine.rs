//! Where a query runs. A [`Session`] runs it in this process; a cluster session (`ldp-cluster`)
//! runs it on a Ballista cluster. Both register the same tables at the same snapshots and give
//! the same rows, so the callers that run SQL for a lake hold a `dyn` [`Engine`]: `ldp query`
//! picks one, and `ldp mcp` and a workflow's `sql` tasks take an [`EngineFactory`] (their
//! crates never name the cluster).

use std::sync::Arc;
use std::time::Duration;

use ldp_table::Table;

use crate::error::Result;
use crate::session::{QueryOutput, Session, TableName};
use crate::stream::BatchSink;

/// A place to run read-only queries over registered tables.
pub trait Engine {
    /// Registers `table` as of `snapshot` (default: current) under every name in `names`.
    ///
    /// # Errors
    ///
    /// The snapshot does not exist or the table's metadata cannot be read.
    fn register(&self, table: &Table, snapshot: Option<i64>, names: &[TableName]) -> Result<()>;

    /// Runs one read-only query, keeping its first `max_rows` rows and counting the rest;
    /// stopped after `limit` when given ([`crate::Error::Timeout`]).
    ///
    /// # Errors
    ///
    /// As [`Session::query`].
    fn query(&self, sql: &str, max_rows: usize, limit: Option<Duration>) -> Result<QueryOutput>;

    /// Runs one read-only query and hands its schema, then every batch, to `sink`; returns
    /// the number of rows. An engine that cannot stream collects the result first (the
    /// default).
    ///
    /// # Errors
    ///
    /// As [`Engine::query`], and [`crate::Error::Output`] when `sink` fails.
    fn query_stream(
        &self,
        sql: &str,
        limit: Option<Duration>,
        sink: &mut dyn BatchSink,
    ) -> Result<u64> {
        let out = self.query(sql, usize::MAX, limit)?;
        let output = |source| crate::Error::Output { source };
        sink.schema(&out.schema).map_err(output)?;
        for batch in &out.batches {
            sink.batch(batch).map_err(output)?;
        }
        Ok(out.total_rows)
    }
}

impl Engine for Session {
    fn register(&self, table: &Table, snapshot: Option<i64>, names: &[TableName]) -> Result<()> {
        Session::register(self, table, snapshot, names)
    }

    fn query_stream(
        &self,
        sql: &str,
        limit: Option<Duration>,
        sink: &mut dyn BatchSink,
    ) -> Result<u64> {
        Session::query_stream(self, sql, limit, sink)
    }

    fn query(&self, sql: &str, max_rows: usize, limit: Option<Duration>) -> Result<QueryOutput> {
        match limit {
            Some(limit) => self.query_within(sql, max_rows, limit),
            None => Session::query(self, sql, max_rows),
        }
    }
}

/// Makes the engine of one query, or of one session of queries; named for logs and `Debug`.
#[derive(Clone)]
pub struct EngineFactory {
    name: String,
    make: Arc<dyn Fn() -> Result<Box<dyn Engine>> + Send + Sync>,
}

impl EngineFactory {
    /// A factory named `name` (such as the cluster's URL) that calls `make`.
    pub fn new(
        name: impl Into<String>,
        make: impl Fn() -> Result<Box<dyn Engine>> + Send + Sync + 'static,
    ) -> EngineFactory {
        EngineFactory {
            name: name.into(),
            make: Arc::new(make),
        }
    }

    /// A new engine.
    ///
    /// # Errors
    ///
    /// The engine cannot start (a cluster that does not answer, a runtime that cannot start).
    pub fn open(&self) -> Result<Box<dyn Engine>> {
        (self.make)()
    }
}

impl std::fmt::Debug for EngineFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("EngineFactory").field(&self.name).finish()
    }
}
