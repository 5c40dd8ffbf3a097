//! A read-only DataFusion session over registered tables, and running one query in it.

use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use datafusion::catalog::MemorySchemaProvider;
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::context::{SQLOptions, SessionConfig, SessionContext};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::physical_plan::{ExecutionPlan, SendableRecordBatchStream, execute_stream};
use datafusion::sql::TableReference;
use futures_util::StreamExt;
use ldp_table::Table;

use crate::deadline::{Deadline, with_deadline};
use crate::error::{Error, Result};
use crate::provider::snapshot_provider;

/// A name a table is registered under: `rides` or `nyc.rides`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableName {
    namespace: Option<String>,
    name: String,
}

impl TableName {
    /// A bare name (`rides`).
    pub fn bare(name: impl Into<String>) -> TableName {
        TableName {
            namespace: None,
            name: name.into(),
        }
    }

    /// A qualified name (`nyc.rides`).
    pub fn qualified(namespace: impl Into<String>, name: impl Into<String>) -> TableName {
        TableName {
            namespace: Some(namespace.into()),
            name: name.into(),
        }
    }
}

impl TableName {
    /// The namespace of a qualified name.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// The table's own name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Display for TableName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{ns}.{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// What a query gave: its schema, its first rows and how many rows it had in all.
#[derive(Debug, Clone)]
pub struct QueryOutput {
    /// The result's schema.
    pub schema: SchemaRef,
    /// At most `max_rows` rows, in order.
    pub batches: Vec<RecordBatch>,
    /// Every row the query produced (rows past `max_rows` are counted, not kept).
    pub total_rows: u64,
    /// Data files the query's scans open (after skipping the files whose column bounds exclude
    /// its filters).
    pub files_scanned: usize,
}

/// How a [`Session`] runs its queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SessionOptions {
    /// Partitions a scan is split into (and threads of the runtime); one per core when `None`.
    /// One partition reads the files in path order, so the same query over the same
    /// snapshot gives its rows in the same order every time.
    pub partitions: Option<usize>,
    /// The most memory the query's operators may hold (bytes); unbounded when `None`. A query
    /// that needs more fails with DataFusion's resources-exhausted error.
    pub memory_limit: Option<usize>,
}

/// The stack of each thread that plans and runs a query. DataFusion's planner and sqlparser
/// recurse over the statement (up to [`crate::MAX_NESTING`] levels deep) and so does the
/// evaluation of nested expressions; 2 MiB, tokio's default, is not enough for a debug build.
pub const QUERY_STACK_BYTES: usize = 64 * 1024 * 1024;

/// How long after its time limit `limit` a query that did not stop is abandoned by the caller:
/// half the limit, at least a second.
pub(crate) fn backstop_grace(limit: std::time::Duration) -> std::time::Duration {
    (limit / 2).max(std::time::Duration::from_secs(1))
}

/// A DataFusion session: tables registered at a snapshot, queries that only read.
pub struct Session {
    /// Always `Some` until the session drops.
    runtime: Option<tokio::runtime::Runtime>,
    context: SessionContext,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").finish_non_exhaustive()
    }
}

impl Session {
    /// A session that scans with one partition per core.
    ///
    /// # Errors
    ///
    /// The async runtime cannot start.
    pub fn new() -> Result<Session> {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Session::with_partitions(cores)
    }

    /// A session that scans with `partitions` partitions (at least 1).
    ///
    /// With one partition a query's rows come out in a fixed order: a table's data files are
    /// read one after the other, in the order of their paths, each from its first row group to
    /// its last, and no operator repartitions them. The same query on the same snapshot then
    /// gives the same rows in the same order every time (pinned dataset versions rely on it).
    ///
    /// # Errors
    ///
    /// The async runtime cannot start.
    pub fn with_partitions(partitions: usize) -> Result<Session> {
        Session::with_options(SessionOptions {
            partitions: Some(partitions),
            memory_limit: None,
        })
    }

    /// A session with `options` (partitions, memory limit).
    ///
    /// # Errors
    ///
    /// The async runtime cannot start.
    pub fn with_options(options: SessionOptions) -> Result<Session> {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let partitions = options.partitions.unwrap_or(cores).max(1);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(partitions)
            .thread_name("ldp-sql")
            .thread_stack_size(QUERY_STACK_BYTES)
            .enable_all()
            .build()
            .map_err(Error::Runtime)?;
        let config = SessionConfig::new()
            .with_target_partitions(partitions)
            .with_information_schema(true);
        let context = match options.memory_limit {
            Some(bytes) => {
                let env = RuntimeEnvBuilder::new()
                    .with_memory_limit(bytes, 1.0)
                    .build_arc()
                    .map_err(Error::sql)?;
                SessionContext::new_with_config_rt(config, env)
            }
            None => SessionContext::new_with_config(config),
        };
        crate::value_cap::register(&context, crate::value_cap::cap_for(options.memory_limit));
        Ok(Session {
            runtime: Some(runtime),
            context,
        })
    }

    /// Registers `table` as of `snapshot` (default: current) under every name in `names`.
    ///
    /// # Errors
    ///
    /// The snapshot does not exist or the table's metadata cannot be read.
    pub fn register(
        &self,
        table: &Table,
        snapshot: Option<i64>,
        names: &[TableName],
    ) -> Result<()> {
        let provider = snapshot_provider(table, snapshot)?;
        for name in names {
            let reference = match &name.namespace {
                Some(namespace) => {
                    self.ensure_schema(namespace)?;
                    TableReference::partial(namespace.as_str(), name.name.as_str())
                }
                None => TableReference::bare(name.name.as_str()),
            };
            self.context
                .register_table(reference, Arc::clone(&provider))
                .map_err(Error::sql)?;
        }
        Ok(())
    }

    fn ensure_schema(&self, namespace: &str) -> Result<()> {
        let catalog = self
            .context
            .catalog("datafusion")
            .ok_or_else(|| Error::Sql {
                message: "the default catalog is missing".into(),
            })?;
        if catalog.schema(namespace).is_none() {
            catalog
                .register_schema(namespace, Arc::new(MemorySchemaProvider::new()))
                .map_err(Error::sql)?;
        }
        Ok(())
    }

    /// Runs one read-only query, keeping its first `max_rows` rows and counting the rest.
    ///
    /// # Errors
    ///
    /// [`Error::Rejected`] when the statement nests past the limits of [`crate::check_nesting`];
    /// [`Error::Sql`] when the SQL does not parse or plan (or is DDL, DML or a statement such as
    /// `SET`); [`Error::Execution`] when it fails while running.
    pub fn query(&self, sql: &str, max_rows: usize) -> Result<QueryOutput> {
        self.run(sql, max_rows, None)
    }

    /// As [`Session::query`], stopped after `limit`: [`Error::Timeout`]. Every operator of the
    /// plan checks the limit each time it is asked for a batch ([`crate::deadline`]), so the
    /// work stops with the query.
    ///
    /// # Errors
    ///
    /// As [`Session::query`], and [`Error::Timeout`] when it runs longer than `limit`.
    pub fn query_within(
        &self,
        sql: &str,
        max_rows: usize,
        limit: std::time::Duration,
    ) -> Result<QueryOutput> {
        self.run(sql, max_rows, Some(Deadline::after(limit)))
    }

    /// Plans and runs the query on the runtime's threads (their stacks are
    /// [`QUERY_STACK_BYTES`]), the caller waiting on a channel: it needs no runtime thread to
    /// wake it, so its backstop holds even when every worker is busy.
    fn run(
        &self,
        sql: &str,
        max_rows: usize,
        deadline: Option<Arc<Deadline>>,
    ) -> Result<QueryOutput> {
        let task = run(
            self.context.clone(),
            sql.to_owned(),
            max_rows,
            deadline.clone(),
        );
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        let handle = self.runtime().spawn(async move {
            let _ = sender.send(task.await);
        });
        let received = match &deadline {
            // A backstop only: the plan's nodes stop the query at its deadline.
            Some(deadline) => {
                receiver.recv_timeout(deadline.limit() + backstop_grace(deadline.limit()))
            }
            None => receiver.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match received {
            Ok(result) => result,
            Err(RecvTimeoutError::Timeout) => {
                handle.abort();
                Err(Error::Timeout {
                    seconds: deadline.map_or(0.0, |d| d.limit().as_secs_f64()),
                })
            }
            // The task ended without sending its result: it panicked.
            Err(RecvTimeoutError::Disconnected) => Err(Error::Execution {
                message: "the query stopped on an internal error of the engine".into(),
            }),
        }
    }

    pub(crate) fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime
            .as_ref()
            .expect("the runtime lives as long as the session")
    }

    pub(crate) fn context(&self) -> &SessionContext {
        &self.context
    }
}

impl Drop for Session {
    /// Nothing waits for a task that is still running (a query stopped by the backstop).
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// One query: the nesting limits, planning, the deadline on every node, execution.
async fn run(
    context: SessionContext,
    sql: String,
    max_rows: usize,
    deadline: Option<Arc<Deadline>>,
) -> Result<QueryOutput> {
    let outcome = plan_and_collect(&context, &sql, max_rows, deadline.as_ref()).await;
    match (outcome, deadline) {
        (Err(_), Some(deadline)) if deadline.was_passed() => Err(Error::Timeout {
            seconds: deadline.limit().as_secs_f64(),
        }),
        (outcome, _) => outcome,
    }
}

async fn plan_and_collect(
    context: &SessionContext,
    sql: &str,
    max_rows: usize,
    deadline: Option<&Arc<Deadline>>,
) -> Result<QueryOutput> {
    let planned = plan(context, sql, deadline).await?;
    let mut stream = planned.stream;
    let mut batches = Vec::new();
    let mut kept = 0usize;
    let mut total_rows = 0u64;
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(Error::execution)?;
        total_rows += batch.num_rows() as u64;
        if kept < max_rows {
            let take = batch.num_rows().min(max_rows - kept);
            kept += take;
            batches.push(batch.slice(0, take));
        }
    }
    Ok(QueryOutput {
        schema: planned.schema,
        batches,
        total_rows,
        files_scanned: planned.files_scanned,
    })
}

/// A query planned and started: its schema, its stream of batches and the files it opens.
pub(crate) struct Planned {
    pub(crate) schema: SchemaRef,
    pub(crate) stream: SendableRecordBatchStream,
    pub(crate) files_scanned: usize,
}

/// The nesting limits, planning (read-only), the deadline on every node, and execution started.
pub(crate) async fn plan(
    context: &SessionContext,
    sql: &str,
    deadline: Option<&Arc<Deadline>>,
) -> Result<Planned> {
    crate::nesting::check_nesting(sql)?;
    let options = SQLOptions::new()
        .with_allow_ddl(false)
        .with_allow_dml(false)
        .with_allow_statements(false);
    // As `SessionContext::sql_with_options`, with DuckDB's spellings rewritten in between.
    let state = context.state();
    let dialect = state.config().options().sql_parser.dialect;
    let mut statement = state.sql_to_statement(sql, &dialect).map_err(Error::sql)?;
    crate::duckdb::rewrite(&mut statement, &state)?;
    let logical = state
        .statement_to_plan(statement)
        .await
        .map_err(Error::sql)?;
    options.verify_plan(&logical).map_err(Error::sql)?;
    let frame = context
        .execute_logical_plan(logical)
        .await
        .map_err(Error::sql)?;
    let schema: SchemaRef = Arc::new(frame.schema().as_arrow().clone());
    let task = Arc::new(frame.task_ctx());
    let mut plan = frame
        .create_physical_plan()
        .await
        .map_err(Error::execution)?;
    let files_scanned = files_in(plan.as_ref());
    if let Some(deadline) = deadline {
        plan = with_deadline(plan, deadline).map_err(Error::execution)?;
    }
    let stream = execute_stream(plan, task).map_err(Error::execution)?;
    Ok(Planned {
        schema,
        stream,
        files_scanned,
    })
}

/// The data files the scans of `plan` open.
fn files_in(plan: &dyn ExecutionPlan) -> usize {
    let here = plan
        .as_any()
        .downcast_ref::<DataSourceExec>()
        .and_then(|exec| exec.data_source().as_any().downcast_ref::<FileScanConfig>())
        .map_or(0, |config| config.file_groups.iter().map(|g| g.len()).sum());
    here + plan
        .children()
        .into_iter()
        .map(|child| files_in(child.as_ref()))
        .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use arrow_array::{ArrayRef, Int64Array};

    use super::*;

    /// A session with `t`: `x` from 0 to `rows - 1`.
    fn session_with(rows: i64) -> Session {
        let session = Session::with_partitions(2).unwrap();
        let x: ArrayRef = Arc::new(Int64Array::from((0..rows).collect::<Vec<_>>()));
        let batch = RecordBatch::try_from_iter([("x", x)]).unwrap();
        session.context().register_batch("t", batch).unwrap();
        session
    }

    /// The bug: `ldp mcp --timeout` did not hold; an aggregate over a cross join never returned
    /// to the runtime, so the timer could not fire and the query held a core for minutes. Every
    /// node now checks the deadline: the query stops within twice its limit, and nothing of it
    /// keeps running.
    #[test]
    fn a_cross_join_bomb_stops_at_the_time_limit() {
        let session = session_with(3_000);
        let started = Instant::now();
        let limit = Duration::from_secs(2);
        // count(*) alone is answered from the statistics of an in-memory table.
        let sql = "SELECT sum(a.x + d.x) FROM t a, t b, t c, t d";
        let error = session.query_within(sql, 10, limit).unwrap_err();
        let took = started.elapsed();
        assert!(matches!(error, Error::Timeout { .. }), "{error}");
        assert!(took < 2 * limit, "stopped after {took:?}");
        // The work stopped with it: no task of the query is left on the runtime.
        let metrics = session.runtime().metrics();
        let idle_by = Instant::now() + Duration::from_secs(2);
        while metrics.num_alive_tasks() > 0 && Instant::now() < idle_by {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(metrics.num_alive_tasks(), 0);
        // And the session still answers.
        let out = session
            .query_within("SELECT count(*) FROM t", 10, limit)
            .unwrap();
        assert_eq!(out.total_rows, 1);
    }

    #[test]
    fn an_array_agg_over_a_cross_join_stops_at_the_time_limit() {
        let session = session_with(2_000);
        let started = Instant::now();
        let limit = Duration::from_secs(1);
        let sql = "SELECT array_agg(a.x + b.x + c.x) FROM t a, t b, t c";
        let error = session.query_within(sql, 10, limit).unwrap_err();
        assert!(matches!(error, Error::Timeout { .. }), "{error}");
        assert!(started.elapsed() < 2 * limit, "{:?}", started.elapsed());
    }

    /// The bug: 2,000 `SELECT 1` joined by `UNION ALL` overflowed the stack of the thread that
    /// planned them. 1,000 plan and run (on the runtime's large stacks); 5,000 are refused
    /// before they plan.
    #[test]
    fn a_thousand_unions_run_and_five_thousand_are_refused() {
        let session = session_with(1);
        let unions = |n: usize| vec!["SELECT 1"; n].join(" UNION ALL ");
        let out = session.query(&unions(1_000), 1).unwrap();
        assert_eq!(out.total_rows, 1_000);
        match session.query(&unions(5_000), 1) {
            Err(Error::Rejected { message }) => assert!(message.contains("limit is 2000")),
            other => panic!("{other:?}"),
        }
        let sum = format!("SELECT {} FROM t", vec!["x"; 1_500].join(" + "));
        assert_eq!(session.query(&sum, 1).unwrap().total_rows, 1);
    }
}
